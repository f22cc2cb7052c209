"""`engramory doctor` on the command line: output formats, exit codes, selection, safety."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from conftest import EXAMPLE_STORE, run_engramory
from doctorkit import make_store, note, valid_store
from engramory.doctor.rules import RULES

ISSUE_CATALOGUE = """
no-index index-escapes-store index-symlink index-unreadable index-too-large index-over-hard-cap
index-over-soft-cap index-line-not-pointer index-line-too-long pointer-bad-scheme
pointer-escapes-store pointer-missing pointer-into-archive duplicate-pointer
pointer-section-mismatch note-escapes-store note-unreadable note-too-large directory-unreadable
duplicate-slug nested-note orphan linked-not-indexed wikilink-missing wikilink-not-slug
no-frontmatter frontmatter-syntax duplicate-key missing-field invalid-type invalid-scope
missing-date invalid-date date-order future-date missing-why missing-how-to-apply empty-label
name-mismatch missing-scope unknown-key
relative-date current-state per-turn-log stale-project dated-series handoff-store not-gitignored
""".split()
ISSUE_CATALOGUE += ["secret-value", "personal-data"]  # issue 14: secrets
ISSUE_CATALOGUE += ["near-duplicate"]  # issue 14: dupes
# issue 32: a symlinked folder leading out, after directory-unreadable
ISSUE_CATALOGUE.insert(ISSUE_CATALOGUE.index("directory-unreadable") + 1, "symlink-escape")
ISSUE_CATALOGUE += ["notes-vanished"]  # issue 37: history
ISSUE_CATALOGUE += ["memory-elsewhere"]  # issue 39: memory that follows the project
ISSUE_CATALOGUE += [  # issue 38: each host's own files, under the host's profile only
    "codex-summary-header", "codex-summary-over-cut", "codex-task-group",
    "hermes-over-cap", "hermes-separator", "hermes-duplicate-entry",
]  # fmt: skip


def broken_store(root: Path) -> Path:
    return make_store(
        root,
        {"a.md": note("a"), "b.md": "# no frontmatter\n", "c.md": note("c", "feedback", scope="")},
        index="# Index\n- [a](a.md)\n- [b](b.md)\n- [c](c.md)\n- [gone](gone.md)\nprose line\n",
    )


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file() and not path.is_symlink():
            digest.update(path.read_bytes())
        digest.update(oct(path.lstat().st_mode).encode())
    return digest.hexdigest()


def test_example_store_is_clean(cli) -> None:
    result = cli("doctor", str(EXAMPLE_STORE))
    assert result.code == 0
    assert result.out.startswith("engramory doctor: clean")


def test_text_output_format_and_order(cli, tmp_path: Path) -> None:
    result = cli("doctor", str(broken_store(tmp_path / "s")))
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[:5] == [
        "MEMORY.md:5: error: 'gone.md' points to nothing: no such file [pointer-missing]",
        "MEMORY.md:6: warning: this line holds no pointer to a note (content leaked into the "
        "index): move it into a note and keep one pointer line [index-line-not-pointer]",
        "b.md:1: error: no frontmatter: start the note with a '---' line, then name, "
        "description, type, created and updated, then '---' [no-frontmatter]",
        "c.md: info: no scope: does this feedback note hold in every repo (global) or only "
        "this one (repo)? [missing-scope]",
        "engramory doctor: 2 errors, 1 warning, 1 info — 3 notes, index 6 lines / 73 B "
        "(hard cap 200 lines / 25,000 B), profile engramory (not a Claude Code memory folder; "
        "0 of 2 notes with frontmatter in Claude Code's dialect, not a majority)",
    ]
    assert lines[5:] == [
        f"  fix {rule}: {RULES[rule].fix}"
        for rule in ("index-line-not-pointer", "pointer-missing", "no-frontmatter", "missing-scope")
    ]


def test_json_output_shape(cli, tmp_path: Path) -> None:
    store = broken_store(tmp_path / "s")
    result = cli("doctor", str(store), "--format", "json")
    assert result.code == 1
    report = json.loads(result.out)
    assert set(report) == {
        "engramory",
        "store",
        "profile",
        "profile_reason",
        "index",
        "notes",
        "summary",
        "fixes",
        "findings",
    }
    fired = ("index-line-not-pointer", "pointer-missing", "no-frontmatter", "missing-scope")
    assert report["fixes"] == {rule: RULES[rule].fix for rule in fired}
    assert report["store"] == str(store.resolve())
    assert report["profile"] == "engramory"
    assert report["index"] == {
        "path": "MEMORY.md",
        "lines": 6,
        "bytes": 73,
        "caps": {"warn_lines": 150, "hard_lines": 200, "warn_bytes": 20480, "hard_bytes": 25000},
    }
    assert report["notes"] == 3
    assert report["summary"] == {"error": 2, "warning": 1, "info": 1}
    first = report["findings"][0]
    assert first == {
        "rule": "pointer-missing",
        "severity": "error",
        "path": "MEMORY.md",
        "line": 5,
        "message": "'gone.md' points to nothing: no such file",
    }
    assert all(
        set(f) == {"rule", "severity", "path", "line", "message"} for f in report["findings"]
    )


def test_json_index_is_null_when_not_read(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    report = json.loads(cli("doctor", str(store), "--format", "json").out)
    assert report["index"]["lines"] is None and report["index"]["bytes"] is None
    assert [f["rule"] for f in report["findings"]] == ["no-index"]


def test_findings_are_sorted_by_path_then_line_then_rule(cli, tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"z.md": note("z", "feedback", drop=("scope", "created")), "a.md": "no fm\n"},
        index="- [z](z.md)\n- [a](a.md)\n",
    )
    findings = json.loads(cli("doctor", str(store), "--format", "json").out)["findings"]
    keys = [(f["path"], f["line"] is not None, f["line"] or 0, f["rule"]) for f in findings]
    assert keys == sorted(keys)
    assert [f["path"] for f in findings] == ["a.md", "z.md", "z.md"]


def test_warnings_pass_unless_strict(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    with (store / "MEMORY.md").open("a") as handle:
        handle.write("a prose line\n")
    assert cli("doctor", str(store)).code == 0
    assert cli("doctor", str(store), "--strict").code == 1


def test_info_never_fails(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"x.md": note("x", "feedback", drop=("scope",))})
    assert cli("doctor", str(store), "--strict").code == 0


def test_select_and_ignore(cli, tmp_path: Path) -> None:
    store = broken_store(tmp_path / "s")
    only = json.loads(
        cli("doctor", str(store), "--format", "json", "--select", "pointer-missing").out
    )
    assert {f["rule"] for f in only["findings"]} == {"pointer-missing"}
    rest = cli(
        "doctor", str(store), "--format", "json", "--ignore", "pointer-missing,no-frontmatter"
    )
    assert rest.code == 0  # the remaining warning and info do not fail
    assert {f["rule"] for f in json.loads(rest.out)["findings"]} == {
        "index-line-not-pointer",
        "missing-scope",
    }
    both = cli(
        "doctor",
        str(store),
        "--select",
        "pointer-missing",
        "--select",
        "no-frontmatter",
        "--ignore",
        "no-frontmatter",
    )
    assert "[no-frontmatter]" not in both.out and "[pointer-missing]" in both.out


@pytest.mark.parametrize("flag", ["--select", "--ignore"])
def test_unknown_rule_id_is_a_usage_error(cli, flag: str) -> None:
    result = cli("doctor", str(EXAMPLE_STORE), flag, "orphan,orphans")
    assert result.code == 64
    assert "unknown rule id(s): orphans" in result.err


def test_list_rules_is_exactly_the_catalogue(cli) -> None:
    result = cli("doctor", "--list-rules")
    assert result.code == 0
    ids = [line.split()[0] for line in result.out.splitlines()]
    assert ids == ISSUE_CATALOGUE
    listed = json.loads(cli("doctor", "--list-rules", "--format", "json").out)
    assert [r["rule"] for r in listed] == ISSUE_CATALOGUE
    assert all(r["severity"] in ("error", "warning", "info") and r["summary"] for r in listed)


def test_no_schema_flag(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": "no frontmatter\n"})
    assert cli("doctor", str(store)).code == 1
    relaxed = cli("doctor", str(store), "--no-schema")
    assert relaxed.code == 0 and "clean" in relaxed.out


def test_cap_flags_and_environment(cli, tmp_path: Path, monkeypatch) -> None:
    store = valid_store(tmp_path / "s")
    assert "[index-over-hard-cap]" in cli("doctor", str(store), "--hard-lines", "5").out
    monkeypatch.setenv("ENGRAMORY_HARD", "5")
    assert "[index-over-hard-cap]" in cli("doctor", str(store)).out
    assert "[index-over-hard-cap]" not in cli("doctor", str(store), "--hard-lines", "50").out


def test_max_index_line_flag(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    assert "[index-line-too-long]" in cli("doctor", str(store), "--max-index-line", "20").out
    assert cli("doctor", str(store), "--max-index-line", "0").code == 64


def test_index_path_argument_means_its_store(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    assert cli("doctor", str(store / "MEMORY.md")).code == 0


def test_missing_store_exits_66(cli, tmp_path: Path) -> None:
    result = cli("doctor", str(tmp_path / "nope"))
    assert result.code == 66 and "does not exist" in result.err


def test_discovery_without_argument(tmp_path: Path) -> None:
    valid_store(tmp_path / ".engramory-memory")
    proc = run_engramory("doctor", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = run_engramory(
        "doctor",
        cwd=tmp_path / ".engramory-memory" / "..",
        env={"ENGRAMORY_MEMORY_ROOT": str(tmp_path / "absent")},
    )
    assert proc.returncode == 66


def test_doctor_never_writes(cli, tmp_path: Path) -> None:
    store = broken_store(tmp_path / "s")
    before = tree_digest(store)
    cli("doctor", str(store))
    cli("doctor", str(store), "--format", "json")
    assert tree_digest(store) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_fifo_index_does_not_hang(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    os.mkfifo(store / "MEMORY.md")
    proc = run_engramory("doctor", str(store), timeout=20)
    assert proc.returncode == 1
    assert b"[no-index]" in proc.stdout


def test_non_utf8_console(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"café.md": "# ☕ no frontmatter\n"}, index="- [c](café.md)\n"
    )
    proc = run_engramory("doctor", str(store), env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr
    assert b"caf\\xe9.md" in proc.stdout


def test_hostile_values_are_truncated_in_messages(cli, tmp_path: Path) -> None:
    huge = "A1b2" * 1000
    store = make_store(tmp_path / "s", {"x.md": note("x", type=huge)})
    result = cli("doctor", str(store), "--format", "json")
    (finding,) = [f for f in json.loads(result.out)["findings"] if f["rule"] == "invalid-type"]
    assert len(finding["message"]) < 200
    assert huge[:40] not in result.out


def test_json_pieces_join_into_one_valid_document(tmp_path: Path) -> None:
    from doctorkit import doctor
    from engramory.report import jsonout

    store = make_store(
        tmp_path / "s",
        {f"n{i}.md": "no frontmatter\n" for i in range(2500)},
        index="- [n0](n0.md)\n",
    )
    report = doctor(store)
    text = "".join(jsonout.render_json(report))
    payload = json.loads(text)
    assert len(payload["findings"]) == len(report.findings) > jsonout.JSON_BATCH
    assert text == json.dumps(payload, ensure_ascii=False)
