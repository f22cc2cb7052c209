"""CI and summary output (issue 19): ``--format github``/``sarif`` for doctor and check,
``--statistics``, ``--max-findings``, the JSON ``fixes`` and ``--color``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from conftest import REPO
from doctorkit import make_store, note
from engramory.doctor.model import Finding
from engramory.doctor.rules import RULES
from engramory.report import github, relative_path, sarif
from engramory.util.console import colour_wanted

SARIF_SCHEMA = json.loads(
    (REPO / "tests" / "schemas" / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8")
)
SECRET = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
ESC = "\x1b"


def awkward_store(root: Path) -> Path:
    """A store with an error, a warning, an info, a secret and a file name that needs escaping."""
    return make_store(
        root,
        {
            "a.md": note("a"),
            "b.md": "# no frontmatter\n",
            "c.md": note("c", "feedback", scope=""),
            "key.md": note("key", body=f"token: {SECRET}\n"),
            "odd, name:50%.md": note("odd, name:50%", "feedback", scope=""),
        },
        index=(
            "# Index\n- [a](a.md)\n- [b](b.md)\n- [c](c.md)\n- [k](key.md)\n"
            "- [odd](<odd, name:50%.md>)\n- [gone](gone.md)\nprose line\n"
        ),
    )


def doctor_json(cli, store: Path) -> dict:
    return json.loads(cli("doctor", str(store), "--format", "json").out)


# --- github ----------------------------------------------------------------------------------


def test_workflow_command_escaping() -> None:
    assert github.escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert github.escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    assert github.escape_data("a:b,c") == "a:b,c"  # : and , only matter in properties
    assert github.escape_data(f"bell\x07 {ESC}[31m") == "bell\\x07 \\x1b[31m"


def test_annotation_shape_per_severity() -> None:
    assert (
        github.annotation(Finding("orphan", "error", "m/x, y.md", None, "lost"))
        == "::error file=m/x%2C y.md,title=orphan::lost"
    )
    assert (
        github.annotation(Finding("date-order", "warning", "m/x.md", 3, "a\nb"))
        == "::warning file=m/x.md,line=3,title=date-order::a%0Ab"
    )
    assert github.annotation(Finding("missing-scope", "info", "x.md", 1, "m")).startswith(
        "::notice file=x.md,line=1,"
    )


def test_doctor_github_one_line_per_finding_relative_to_cwd(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = awkward_store(tmp_path / "repo" / "memory")
    monkeypatch.chdir(tmp_path / "repo")
    expected = doctor_json(cli, store)["findings"]
    result = cli("doctor", str(store), "--format", "github")
    assert result.code == 1
    lines = result.out.splitlines()
    assert len(lines) == len(expected)
    for line, finding in zip(lines, expected):
        command = {"error": "error", "warning": "warning", "info": "notice"}[finding["severity"]]
        assert line.startswith(f"::{command} file=memory/")
        tag = finding["rule"] + (f" ({finding['detector']})" if "detector" in finding else "")
        assert f"title={tag}::" in line
    assert any(line.startswith("::error file=memory/MEMORY.md,line=") for line in lines)
    assert any("file=memory/odd%2C name%3A50%25.md," in line for line in lines)
    assert SECRET not in result.out


def test_doctor_github_from_inside_the_store_and_from_a_sibling(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path / "s", {"b.md": "# no frontmatter\n"})
    monkeypatch.chdir(store)
    assert cli("doctor", "--format", "github").out.startswith("::error file=b.md,line=1,")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert cli("doctor", str(store), "--format", "github").out.startswith(
        "::error file=../s/b.md,line=1,"
    )


def test_clean_store_prints_no_annotation(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")})
    result = cli("doctor", str(store), "--format", "github")
    assert (result.code, result.out) == (0, "")


# --- sarif -----------------------------------------------------------------------------------


def test_doctor_sarif_is_valid_and_complete(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = awkward_store(tmp_path / "repo" / "memory")
    monkeypatch.chdir(tmp_path / "repo")
    expected = doctor_json(cli, store)["findings"]
    result = cli("doctor", str(store), "--format", "sarif", "--max-findings", "1")
    assert result.code == 1
    log = json.loads(result.out)
    Draft4Validator.check_schema(SARIF_SCHEMA)
    errors = sorted(Draft4Validator(SARIF_SCHEMA).iter_errors(log), key=str)
    assert errors == []
    (run,) = log["runs"]
    descriptors = run["tool"]["driver"]["rules"]
    assert [d["id"] for d in descriptors] == list(RULES)
    for descriptor in descriptors:
        rule = RULES[descriptor["id"]]
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["help"]["text"] == rule.fix
        level = sarif.LEVELS[rule.severity]
        assert descriptor["defaultConfiguration"]["level"] == level
    results = run["results"]
    assert len(results) == len(expected)  # --max-findings trims the text report only
    for made, finding in zip(results, expected):
        assert made["ruleId"] == finding["rule"]
        assert descriptors[made["ruleIndex"]]["id"] == finding["rule"]
        assert made["level"] == sarif.LEVELS[finding["severity"]]
        assert made["message"]["text"] == finding["message"]
        (location,) = made["locations"]
        physical = location["physicalLocation"]
        assert physical["region"]["startLine"] == (finding["line"] or 1)
        assert physical["artifactLocation"]["uri"] == "memory/" + sarif.uri(finding["path"])
    assert "memory/odd%2C%20name%3A50%25.md" in {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results
    }
    base = run["originalUriBaseIds"][sarif.SOURCE_ROOT]["uri"]
    assert base == (tmp_path / "repo").resolve().as_uri() + "/"
    assert SECRET not in result.out


def test_a_schema_violation_is_caught() -> None:
    """The schema test can fail: a region starting at line 0 is not SARIF."""
    log = sarif.document([Finding("orphan", "error", "x.md", None, "m")], [], "1", "/")
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(log))


def test_relative_path_forms(tmp_path: Path) -> None:
    assert relative_path(str(tmp_path / "s"), "a/b.md", str(tmp_path)) == "s/a/b.md"
    assert relative_path(str(tmp_path / "s"), "b.md", str(tmp_path / "t")) == "../s/b.md"


# --- check -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "code", "command", "rule"),
    [
        (("--hard-lines", "3", "--warn-lines", "2"), 2, "error", "index-over-hard-cap"),
        (("--warn-lines", "2"), 1, "warning", "index-over-soft-cap"),
    ],
)
def test_check_github_and_sarif(
    cli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    flags: tuple[str, ...],
    code: int,
    command: str,
    rule: str,
) -> None:
    store = make_store(tmp_path / "mem", {"a.md": note("a")})
    monkeypatch.chdir(tmp_path)
    result = cli("check", "mem", "--format", "github", *flags)
    assert result.code == code
    (line,) = result.out.splitlines()
    assert line.startswith(f"::{command} file=mem/MEMORY.md,title={rule}::")
    result = cli("check", str(store), "--format", "sarif", *flags)
    assert result.code == code
    log = json.loads(result.out)
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(log)) == []
    (made,) = log["runs"][0]["results"]
    assert made["ruleId"] == rule
    location = made["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "mem/MEMORY.md"
    assert location["region"]["startLine"] == 1


def test_check_ok_reports_nothing(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "mem", {"a.md": note("a")})
    result = cli("check", str(store), "--format", "github")
    assert (result.code, result.out) == (0, "")
    log = json.loads(cli("check", str(store), "--format", "sarif").out)
    assert log["runs"][0]["results"] == []
    assert list(Draft4Validator(SARIF_SCHEMA).iter_errors(log)) == []


# --- statistics, max-findings, fixes ---------------------------------------------------------


def many_orphans(root: Path, orphans: int) -> Path:
    notes = {f"o{n}.md": note(f"o{n}") for n in range(orphans)}
    notes["b.md"] = "# no frontmatter\n"
    return make_store(root, notes, index="# Index\n- [b](b.md)\n- [gone](gone.md)\n")


def test_statistics_one_line_per_rule_by_count(cli, tmp_path: Path) -> None:
    store = many_orphans(tmp_path / "s", 5)
    result = cli("doctor", str(store), "--statistics")
    assert result.code == 1
    lines = result.out.splitlines()
    assert [line.split()[:3] for line in lines[:3]] == [
        ["5", "error", "orphan"],
        ["1", "error", "no-frontmatter"],
        ["1", "error", "pointer-missing"],
    ]
    assert lines[0].endswith(RULES["orphan"].fix)
    assert lines[3].startswith("engramory doctor: 7 errors")
    assert len(lines) == 4  # no finding lines, no separate fix lines
    assert "[orphan]" not in result.out


def test_statistics_is_a_text_view(cli, tmp_path: Path) -> None:
    store = many_orphans(tmp_path / "s", 1)
    result = cli("doctor", str(store), "--statistics", "--format", "json")
    assert result.code == 64
    assert "--statistics is a text view" in result.err


def test_max_findings_caps_the_text_report_only(cli, tmp_path: Path) -> None:
    store = many_orphans(tmp_path / "s", 5)
    result = cli("doctor", str(store), "--max-findings", "2")
    lines = result.out.splitlines()
    assert lines[2] == (
        "... and 5 more findings not shown (--max-findings 2); "
        "--statistics counts every finding by rule"
    )
    assert all(line.endswith("]") for line in lines[:2])
    assert lines[3].startswith("engramory doctor: 7 errors")
    assert cli("doctor", str(store), "--max-findings", "7").out.count("not shown") == 0
    report = json.loads(cli("doctor", str(store), "--format", "json", "--max-findings", "1").out)
    assert len(report["findings"]) == 7
    github_out = cli("doctor", str(store), "--format", "github", "--max-findings", "1").out
    assert len(github_out.splitlines()) == 7


def test_json_fixes_name_only_the_rules_that_fired(cli, tmp_path: Path) -> None:
    store = many_orphans(tmp_path / "s", 2)
    report = json.loads(cli("doctor", str(store), "--format", "json").out)
    assert report["fixes"] == {
        rule: RULES[rule].fix for rule in ("pointer-missing", "orphan", "no-frontmatter")
    }
    clean = make_store(tmp_path / "c", {"a.md": note("a")})
    assert json.loads(cli("doctor", str(clean), "--format", "json").out)["fixes"] == {}


# --- colour ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "tty", "no_color", "wanted"),
    [
        ("auto", True, None, True),
        ("auto", True, "1", False),
        ("auto", True, "", True),  # NO_COLOR counts only when set and non-empty
        ("auto", False, None, False),
        ("always", False, "1", True),
        ("never", True, None, False),
    ],
)
def test_colour_wanted(choice: str, tty: bool, no_color: str | None, wanted: bool) -> None:
    environ = {} if no_color is None else {"NO_COLOR": no_color}
    assert colour_wanted(choice, tty, environ) is wanted


def test_color_always_wins_over_no_color_and_file_text_stays_escaped(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path / "s", {f"b{ESC}[2J.md": "# no frontmatter\n"})
    monkeypatch.setenv("NO_COLOR", "1")
    out = cli("doctor", str(store), "--color", "always").out
    assert f"{ESC}[1;31merror{ESC}[0m" in out
    assert "b\\x1b[2J.md" in out
    finding_lines = [line for line in out.splitlines() if line.endswith("]")]
    assert out.count(ESC) == 2 * len(finding_lines) == 6  # the severity words only
    check_out = cli("check", str(store), "--color", "always").out
    assert check_out.startswith(f"{ESC}[32mOK{ESC}[0m: ")
    assert ESC not in cli("doctor", str(store)).out  # auto: captured output is no terminal
    monkeypatch.delenv("NO_COLOR")
    assert ESC not in cli("doctor", str(store), "--color", "never").out


def run_on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run ``python -m engramory ARGS`` with its stdout on a pseudo-terminal; its output."""
    import pty  # POSIX only

    main_fd, child_fd = pty.openpty()
    full_env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full_env.update(env, PYTHONPATH=str(REPO))
    with subprocess.Popen(
        [sys.executable, "-m", "engramory", *args], stdout=child_fd, env=full_env
    ) as process:
        os.close(child_fd)
        chunks = []
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    os.close(main_fd)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_auto_colours_a_terminal_unless_no_color(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"b.md": "# no frontmatter\n"})
    assert f"{ESC}[1;31merror" in run_on_a_terminal(["doctor", str(store)], {})
    assert ESC not in run_on_a_terminal(["doctor", str(store)], {"NO_COLOR": "1"})
    piped = subprocess.run(
        [sys.executable, "-m", "engramory", "doctor", str(store)],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert b"error" in piped.stdout
    assert ESC.encode() not in piped.stdout
