"""`engramory new`: the note and its pointer, every refusal before the first write."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import pytest
from daysseen import days_seen
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_engramory
from doctorkit import doctor, make_store, note, valid_store
from engramory.cli import main
from engramory.store.frontmatter import parse
from engramory.store.markdown import classify_index
from engramory.util import fsutil
from engramory.write import newnote, notewrite

AWS = "AKIA" + "QWERTYUIOPASDFGH"[::-1]


def tree(root: Path) -> dict[str, tuple[str, int]]:
    """Every entry's bytes (hashed; symlinks by target) and mode: a refusal leaves it equal."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        mode = path.lstat().st_mode
        if path.is_symlink():
            content = "link:" + os.readlink(path)
        elif path.is_dir():
            content = "dir"
        else:
            content = hashlib.sha256(path.read_bytes()).hexdigest()
        out[rel] = (content, mode)
    return out


def errors(root: Path) -> list[str]:
    return [f"{f.rule}: {f.message}" for f in doctor(root).findings if f.severity == "error"]


FEEDBACK = ("--why", "the team reviews tests first", "--how", "one behaviour per test")


def test_feedback_note_layout_and_pointer(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    with days_seen() as days:
        result = cli(
            "new", "feedback", "test-style", "--description", "How tests are shaped here",
            "--scope", "repo", "--body", "Small tests.", *FEEDBACK, "--store", str(store),
        )  # fmt: skip
    assert result.code == 0, result
    assert (store / "test-style.md").read_text(encoding="utf-8") in [
        "---\nname: test-style\ndescription: How tests are shaped here\ntype: feedback\n"
        f"scope: repo\ncreated: {day}\nupdated: {day}\n---\n\nSmall tests.\n\n"
        "**Why:** the team reviews tests first\n\n**How to apply:** one behaviour per test\n"
        for day in days
    ]
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    lines = classify_index(index)
    added = [e for e in lines if e.links and e.links[0].target == "test-style.md"]
    assert added[0].text == "- [Test style](test-style.md) — How tests are shaped here"
    assert added[0].section == "feedback"
    # at the end of the feedback block, just after its last pointer
    assert lines[added[0].number - 2].links[0].target == "feedback-tests.md"
    assert errors(store) == []
    assert "created" in result.out and "test-style.md" in result.out


def test_doctor_cli_passes_after_new(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    for args in (
        ("user", "editor", "--description", "Editor and shell setup", "--body", "Vim."),
        ("reference", "dashboards", "--description", "Where dashboards are", "--title", "Dash"),
        ("project", "launch", "--description", "Launch plan", "--scope", "repo", *FEEDBACK),
    ):
        assert cli("new", *args, "--store", str(store)).code == 0
    result = cli("doctor", str(store))
    assert result.code == 0, result.out
    assert " 0 errors" in result.out or "clean" in result.out


def test_missing_section_is_added_at_the_end(cli, tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"a.md": note("a")}, index="# Memory\n\n## user\n- [a](a.md) — x\n"
    )
    assert cli("new", "reference", "logs", "--description", "Logs", "--store", str(store)).code == 0
    assert (store / "MEMORY.md").read_text(encoding="utf-8") == (
        "# Memory\n\n## user\n- [a](a.md) — x\n\n## reference\n- [Logs](logs.md) — Logs\n"
    )
    assert errors(store) == []


def test_crlf_bom_and_odd_bytes_of_the_index_are_kept(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    before = b"\xef\xbb\xbf## User\r\n- [a](a.md) \xff odd\r\n\r\n## Project\r\n"
    (store / "MEMORY.md").write_bytes(before)
    assert cli("new", "user", "b", "--description", "Bee", "--store", str(store)).code == 0
    after = (store / "MEMORY.md").read_bytes()
    assert after == before.replace(b"odd\r\n", b"odd\r\n- [B](b.md) \xe2\x80\x94 Bee\r\n", 1)


def test_store_without_index_gets_one(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"b.md": note("b")}, index=None)
    assert cli("new", "user", "a", "--description", "A", "--store", str(store)).code == 0
    assert (store / "MEMORY.md").read_text(encoding="utf-8") == "## user\n- [A](a.md) — A\n"


def test_no_store_is_66(cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("new", "user", "a", "--description", "A", "--store", str(empty))
    assert result.code == 66
    assert list(empty.iterdir()) == []


# -- usage refusals: 64, before anything is read --------------------------------------------

USAGE = [
    ("bogus", "x", "--description", "d"),
    ("User", "x", "--description", "d"),
    ("user", "Upper", "--description", "d"),
    ("user", "-lead", "--description", "d"),
    ("user", "a_b", "--description", "d"),
    ("user", "a/b", "--description", "d"),
    ("user", "a" * 81, "--description", "d"),
    ("user", "x", "--description", "   "),
    ("user", "x", "--description", "two\nlines"),
    ("user", "x", "--description", "d", "--why", "w"),
    ("reference", "x", "--description", "d", "--how", "h"),
    ("feedback", "x", "--description", "d", "--why", "w"),
    ("project", "x", "--description", "d", "--how", "h"),
    ("project", "x", "--description", "d", "--why", "", "--how", "h"),
    ("user", "x", "--description", "d", "--title", "a\rb"),
]


@pytest.mark.parametrize("args", USAGE)
def test_usage_refusals_exit_64_and_read_nothing(cli, tmp_path: Path, args: tuple) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(tmp_path)
    # a missing store and a missing body file would be 66: 64 comes first
    missing = tmp_path / "nowhere"
    result = cli("new", *args, "--store", str(missing), "--body-file", str(tmp_path / "no.txt"))
    assert result.code == 64, result
    assert cli("new", *args, "--store", str(store)).code == 64
    assert tree(tmp_path) == before


def test_slug_of_80_is_fine(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    assert cli("new", "user", "a" * 80, "--description", "d", "--store", str(store)).code == 0


def test_body_file_missing_is_66(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(store)
    result = cli(
        "new", "user", "x", "--description", "d", "--store", str(store),
        "--body-file", str(tmp_path / "no.txt"),
    )  # fmt: skip
    assert result.code == 66 and "no.txt" in result.err
    assert tree(store) == before


def test_body_from_file_and_stdin(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    store = valid_store(tmp_path / "s")
    body = tmp_path / "body.txt"
    body.write_text("From a file.\r\nSecond line.\n", encoding="utf-8")
    assert cli(
        "new", "user", "x", "--description", "d", "--store", str(store), "--body-file", str(body)
    ).code == 0  # fmt: skip
    assert (store / "x.md").read_text(encoding="utf-8").endswith("\nFrom a file.\nSecond line.\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"From stdin.\n")))
    assert cli(
        "new", "user", "y", "--description", "e", "--store", str(store), "--body-file", "-"
    ).code == 0  # fmt: skip
    assert (store / "y.md").read_text(encoding="utf-8").endswith("---\n\nFrom stdin.\n")


# -- refusals: exit 1, nothing written ----------------------------------------------------------


@pytest.mark.parametrize(
    "existing",
    [
        "user-role.md",
        "User-Role.md",
        "archive/user-role.md",
        "ARCHIVE/User-ROLE.md",
        "sub/user-role.md",
    ],
)
def test_existing_slug_in_any_case_refused(cli, tmp_path: Path, existing: str) -> None:
    store = make_store(tmp_path / "s", {existing: note("user-role")})
    before = tree(store)
    result = cli("new", "user", "user-role", "--description", "d", "--store", str(store))
    assert result.code == 1, result
    assert "already exists" in result.err
    assert tree(store) == before


def test_existing_non_note_entry_refused(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "x.md").mkdir()
    before = tree(store)
    assert cli("new", "user", "x", "--description", "d", "--store", str(store)).code == 1
    assert tree(store) == before


def test_index_over_hard_cap_refused_saying_by_how_much(cli, tmp_path: Path) -> None:
    notes = {f"n{i}.md": note(f"n{i}") for i in range(3)}
    store = make_store(tmp_path / "s", notes)
    lines = (store / "MEMORY.md").read_text(encoding="utf-8").count("\n")
    before = tree(store)
    result = cli(
        "new", "user", "x", "--description", "d", "--store", str(store),
        "--hard-lines", str(lines),
    )  # fmt: skip
    assert result.code == 1
    assert f"{lines + 1} lines, 1 over the cap of {lines}" in result.err
    assert "compact" in result.err
    size = (store / "MEMORY.md").stat().st_size
    result = cli(
        "new", "user", "x", "--description", "d", "--store", str(store),
        "--hard-bytes", str(size + 10),
    )  # fmt: skip
    assert result.code == 1 and f"over the cap of {size + 10:,} B" in result.err
    assert tree(store) == before
    # exactly at the cap is fine (over means strictly greater)
    assert cli(
        "new", "user", "x", "--description", "d", "--store", str(store),
        "--hard-lines", str(lines + 1),
    ).code == 0  # fmt: skip


@pytest.mark.parametrize("where", ["--description", "--body", "--title"])
def test_secret_refused_without_echoing_it(cli, tmp_path: Path, where: str) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(store)
    args = ["new", "user", "x", "--store", str(store)]
    args += ["--description", f"key {AWS}"] if where == "--description" else ["--description", "d"]
    if where != "--description":
        args += [where, f"key {AWS}"]
    result = cli(*args)
    assert result.code == 1, result
    assert "AWS access key id" in result.err
    assert AWS not in result.err + result.out
    assert tree(store) == before


def test_a_value_on_the_allow_list_is_written_and_another_refused(cli, tmp_path: Path) -> None:
    """Issue 33: the store's .engramory/allow-secrets (fingerprints, never values) lets a
    deliberate exception through `new` as it does the doctor and the guard."""
    from engramory.secrets.allow import fingerprint

    store = valid_store(tmp_path / "s")
    (store / ".engramory").mkdir()
    (store / ".engramory" / "allow-secrets").write_text(
        f"# the public booking widget key\n{fingerprint(AWS)[:16]}\n", encoding="utf-8"
    )
    args = ["new", "reference", "widget", "--description", "the widget", "--store", str(store)]
    assert cli(*args, "--body", f"widget key {AWS}").code == 0
    other = "AKIA" + "ZXCVBNMLKJHGFDSA"
    result = cli(*args[:2], "other", *args[3:], "--body", f"other key {other}")
    assert result.code == 1 and other not in result.err + result.out


def test_index_symlink_out_of_store_refused(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    outside = tmp_path / "outside.md"
    outside.write_text("## user\n- [a](a.md)\n", encoding="utf-8")
    (store / "MEMORY.md").symlink_to(outside)
    before = tree(tmp_path)
    assert cli("new", "user", "x", "--description", "d", "--store", str(store)).code == 1
    assert tree(tmp_path) == before


# -- similar notes and doctor warnings: informational, still written ---------------------------


def test_similar_notes_listed_and_note_still_written(cli, tmp_path: Path) -> None:
    notes = {
        "tests.md": note("tests", description="How the tests are written in this repo"),
        "other.md": note("other", description="Deployment steps for staging"),
    }
    store = make_store(tmp_path / "s", notes)
    result = cli(
        "new", "user", "x", "--description", "How tests are written", "--store", str(store)
    )  # fmt: skip
    assert result.code == 0
    assert "update one of these instead?" in result.out
    assert "tests.md" in result.out and "other.md" not in result.out
    assert (store / "x.md").exists()
    data = json.loads(
        cli("new", "user", "y", "--description", "How tests are written here", "--store",
            str(store), "--format", "json").out
    )  # fmt: skip
    assert data["created"] == "y.md"
    assert [s["path"] for s in data["similar"]] == ["x.md", "tests.md"]  # most alike first
    assert set(data["index"]) == {"lines", "bytes"}
    index = (store / "MEMORY.md").read_bytes()
    assert data["index"] == {"lines": index.count(b"\n"), "bytes": len(index)}


def test_similar_list_holds_at_most_five() -> None:
    others = [(f"n{i}.md", "deploy the staging service") for i in range(8)]
    found = notewrite.similar("Deploy the staging service!", others)
    assert len(found) == 5 and all(score == 1.0 for _, score in found)
    assert notewrite.similar("deploy", [("a.md", "deploy staging service now")]) == []
    # stop words do not count: "the", "of", "a" shared is no likeness
    assert notewrite.similar("the rules of a game", [("a.md", "the price of a house")]) == []


def test_relative_date_and_near_duplicate_warn_but_write(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a", description="Where the CI logs live")})
    result = cli(
        "new", "reference", "ci-logs", "--description", "Where the CI logs live",
        "--body", "Moved there yesterday.", "--store", str(store),
    )  # fmt: skip
    assert result.code == 0
    assert "[relative-date]" in result.out
    assert "[near-duplicate]" in result.out and "a.md" in result.out
    assert (store / "ci-logs.md").exists()
    assert errors(store) == []


def test_dry_run_writes_nothing(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(store)
    result = cli(
        "new", "feedback", "x", "--description", "Desc", *FEEDBACK, "--store", str(store),
        "--dry-run",
    )  # fmt: skip
    assert result.code == 0
    assert "would write" in result.out and "**Why:** the team reviews tests first" in result.out
    assert "- [X](x.md) — Desc" in result.out
    assert tree(store) == before
    data = json.loads(
        cli("new", "user", "x", "--description", "D", "--store", str(store), "--dry-run",
            "--format", "json").out
    )  # fmt: skip
    assert data["created"] == "x.md" and data["dry_run"] is True
    assert tree(store) == before


def test_failed_index_write_removes_the_note(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(store)
    real = fsutil.write_atomic

    def failing(path, data, mode=None):  # type: ignore[no-untyped-def]
        if os.path.basename(os.fspath(path)) == "MEMORY.md":
            raise OSError(28, "No space left on device")
        real(path, data, mode)

    monkeypatch.setattr(fsutil, "write_atomic", failing)
    result = cli("new", "user", "x", "--description", "d", "--store", str(store))
    assert result.code == 1
    assert "removed again" in result.err
    assert tree(store) == before


def test_an_index_edited_after_the_plan_is_not_overwritten(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone edits MEMORY.md between the checks and the write: nothing is written (the
    edit would be lost), and the tree is as that edit left it."""
    store = valid_store(tmp_path / "s")
    real = newnote.make_plan

    def plan_then_edit(*args, **kwargs):  # type: ignore[no-untyped-def]
        plan = real(*args, **kwargs)
        with open(store / "MEMORY.md", "a", encoding="utf-8") as index:
            index.write("- [late](late.md) — added by someone else\n")
        return plan

    monkeypatch.setattr(newnote, "make_plan", plan_then_edit)
    result = cli("new", "user", "x", "--description", "d", "--store", str(store))
    assert result.code == 1 and "changed meanwhile" in result.err
    assert not (store / "x.md").exists()
    assert "late.md" in (store / "MEMORY.md").read_text(encoding="utf-8")


def test_discovery_finds_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    project = tmp_path / "proj"
    valid_store(project / ".engramory-memory")
    monkeypatch.chdir(project)
    result = cli("new", "user", "x", "--description", "d")
    assert result.code == 0, result
    assert (project / ".engramory-memory" / "x.md").exists()


def test_real_cli_subprocess(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    result = run_engramory(
        "new", "project", "launch", "--description", "Launch: plan «v2»", "--scope", "repo",
        *FEEDBACK, "--store", str(store),
    )  # fmt: skip
    assert result.returncode == 0, result
    assert errors(store) == []
    result = run_engramory("new", "nope", "x", "--description", "d", "--store", str(store))
    assert result.returncode == 64 and b"Traceback" not in result.stderr


# -- round trip of awkward values ------------------------------------------------------------

AWKWARD = (
    st.lists(
        st.one_of(
            st.sampled_from(['"', "'", ": ", "#", " ", "\\", "[", "]", "`", "é", "—", "日本", "|"]),
            st.characters(blacklist_categories=("Cs", "Cc")),
        ),
        min_size=1,
        max_size=20,
    )
    .map("".join)
    .filter(lambda s: s.strip() != "")
)


@pytest.mark.parametrize(
    "description",
    ['say "hi"', "key: value", "# not a comment", "trailing   ", "'single'", "naïve café 日本"],
)
def test_awkward_values_round_trip_through_the_cli(cli, tmp_path: Path, description: str) -> None:
    store = valid_store(tmp_path / "s")
    result = cli(
        "new", "project", "x", "--description", description, "--why", description,
        "--how", "h", "--title", description, "--store", str(store),
    )  # fmt: skip
    assert result.code == 0, result
    parsed = parse((store / "x.md").read_text(encoding="utf-8"))
    assert parsed.problems == ()
    assert parsed.fields["description"] == description
    assert errors(store) == []


@settings(max_examples=60, deadline=None)
@given(description=AWKWARD, title=AWKWARD)
def test_awkward_values_round_trip(description: str, title: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = valid_store(Path(tmp) / "s")
        with days_seen() as days:
            code = main(
                # the ``--flag=value`` form: argparse reads a value that starts with "-" as a flag
                ["new", "user", "x", f"--description={description}", f"--title={title}",
                 "--store", str(store), "--format", "json"]
            )  # fmt: skip
        if code == 1:  # only a secret-looking value may be refused
            from engramory import secrets

            assert secrets.find(description) or secrets.find(title)
            return
        assert code == 0
        parsed = parse((store / "x.md").read_text(encoding="utf-8"))
        assert parsed.problems == ()
        assert parsed.fields in [
            {
                "name": "x",
                "description": description,
                "type": "user",
                "created": day,
                "updated": day,
            }
            for day in days
        ]
        entries = classify_index((store / "MEMORY.md").read_text(encoding="utf-8"))
        ours = [e for e in entries if any(link.target == "x.md" for link in e.links)]
        assert len(ours) == 1
        assert [link.target for link in ours[0].links] == ["x.md"]  # one link, whatever the text
        assert ours[0].section == "user"
        assert errors(store) == []
