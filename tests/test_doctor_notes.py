"""Note-file and note-graph rules: each fires on its case and stays quiet on the nearest valid one."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from doctorkit import doctor, fired, make_store, note, rules, valid_store
from engramory.doctor.rules import RULES
from engramory.store import disk as storemod

POSIX = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")


# --- note-escapes-store ---------------------------------------------------------


def test_note_symlink_out_of_the_store_is_never_read(tmp_path: Path, monkeypatch) -> None:
    secret = tmp_path / "diary.md"
    secret.write_text("---\nname: SECRET-CONTENT\n")  # broken on purpose: must not be reported
    store = valid_store(tmp_path / "s")
    (store / "diary.md").symlink_to(secret)
    opened: list[str] = []
    real = storemod.read_file

    def spy(path: str, limit: int) -> storemod.Read:
        opened.append(path)
        return real(path, limit)

    monkeypatch.setattr(storemod, "read_file", spy)
    from engramory.doctor import engine

    monkeypatch.setattr(engine, "read_file", spy)
    report = doctor(store)
    assert str(secret) not in opened
    assert [(f.rule, f.path) for f in report.findings] == [("note-escapes-store", "diary.md")]
    assert "SECRET" not in repr(report.findings)
    assert report.notes == 4  # an escaping note is not counted


def test_note_symlink_inside_the_store_is_a_note(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "alias.md").symlink_to(store / "user-role.md")
    assert "note-escapes-store" not in rules(store)
    assert "orphan" not in rules(store)  # it is the same file as an indexed note


# --- note-unreadable ----------------------------------------------------------------


@POSIX
def test_fifo_note_is_reported_and_never_opened(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    os.mkfifo(store / "pipe.md")
    (finding,) = fired(store, "note-unreadable")  # a blocking open would hang the test here
    assert finding.path == "pipe.md" and "FIFO" in finding.message


def test_dangling_symlink_note(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "gone.md").symlink_to(store / "nowhere.md")
    (finding,) = fired(store, "note-unreadable")
    assert "dangling" in finding.message


def test_permission_error_note(tmp_path: Path, monkeypatch) -> None:
    store = valid_store(tmp_path / "s")
    from engramory.doctor import engine

    real = engine.read_file

    def deny(path: str, limit: int) -> storemod.Read:
        if path.endswith("user-role.md"):
            return storemod.Read(storemod.UNREADABLE, error="Permission denied")
        return real(path, limit)

    monkeypatch.setattr(engine, "read_file", deny)
    report = doctor(store)
    assert [(f.rule, f.path) for f in report.findings] == [("note-unreadable", "user-role.md")]


def test_readable_notes_are_quiet(tmp_path: Path) -> None:
    assert fired(valid_store(tmp_path / "s"), "note-unreadable") == []


# --- note-too-large -----------------------------------------------------------------


def test_note_over_4_mib_is_not_read(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    with (store / "user-role.md").open("ab") as handle:
        handle.truncate(4 * 1024 * 1024 + 1)
    report = doctor(store)
    assert [f.rule for f in report.findings] == ["note-too-large"]  # no schema findings: not read


def test_note_of_exactly_4_mib_is_read(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    path = store / "user-role.md"
    text = path.read_bytes()
    path.write_bytes(text + b"x" * (4 * 1024 * 1024 - len(text)))
    assert fired(store, "note-too-large") == []


# --- directory-unreadable -----------------------------------------------------------


def test_unlistable_directory(tmp_path: Path, monkeypatch) -> None:
    store = valid_store(tmp_path / "s")
    (store / "locked").mkdir()
    real = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(storemod.os, "scandir", scandir)
    (finding,) = fired(store, "directory-unreadable")
    assert finding.path == "locked/"


def test_listable_directories_are_quiet(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "archive").mkdir()
    assert fired(store, "directory-unreadable") == []


# --- duplicate-slug ---------------------------------------------------------------------


def test_same_name_in_two_directories(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a"), "sub/a.md": note("a")})
    (finding,) = fired(store, "duplicate-slug")
    assert finding.path == "sub/a.md" and "a.md" in finding.message


def test_names_equal_up_to_case(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"deploy.md": note("deploy"), "x/Deploy.md": note("Deploy")})
    (finding,) = fired(store, "duplicate-slug")
    assert "case" in finding.message


def test_archived_note_with_a_live_name_is_not_a_duplicate(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a"), "archive/a.md": note("a")})
    assert fired(store, "duplicate-slug") == []


# --- nested-note ----------------------------------------------------------------------------


def test_nested_note_in_a_type_folder(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"feedback/x.md": note("x", "feedback")}, index="- [x](feedback/x.md)\n"
    )
    (finding,) = fired(store, "nested-note")
    assert finding.severity == "warning" and "folder per type" in finding.message
    assert "orphan" not in rules(store)  # the pointer credits it


def test_nested_note_in_an_archive_lookalike(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"_archived/x.md": note("x")}, index="")
    (finding,) = fired(store, "nested-note")
    assert "rename it to archive/" in finding.message


@pytest.mark.parametrize("folder", ["archive", "Archive", "ARCHIVE", "templates", "Templates"])
def test_retired_folders_hold_no_live_notes(tmp_path: Path, folder: str) -> None:
    store = make_store(tmp_path / "s", {f"{folder}/x.md": "no frontmatter at all"}, index="")
    assert rules(store) == set()
    assert doctor(store).notes == 0


def test_hidden_directories_are_not_walked(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {".obsidian/x.md": "junk", ".git/y.md": "junk"}, index="")
    assert rules(store) == set()


def test_archive_lookalike_names_are_live(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"archive-2025/x.md": note("x")}, index="")
    assert "nested-note" in rules(store)


# --- orphan / linked-not-indexed --------------------------------------------------------


def test_orphan(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "lonely.md").write_text(note("lonely"))
    (finding,) = fired(store, "orphan")
    assert finding.path == "lonely.md" and finding.severity == "error"


def test_linked_from_an_indexed_note_is_not_an_orphan(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {
            "a.md": note("a", body="See [[b]].\n"),
            "b.md": note("b", body="See [[c|C]].\n"),
            "c.md": note("c"),
        },
        index="- [a](a.md)\n",
    )
    report = doctor(store)
    assert [(f.rule, f.path) for f in report.findings] == [
        ("linked-not-indexed", "b.md"),
        ("linked-not-indexed", "c.md"),
    ]


def test_unindexed_notes_linking_each_other_are_both_orphans(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a"), "x.md": note("x", body="[[y]]\n"), "y.md": note("y", body="[[x]]\n")},
        index="- [a](a.md)\n",
    )
    assert sorted(f.path for f in fired(store, "orphan")) == ["x.md", "y.md"]


def test_self_link_does_not_rescue_an_orphan(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a"), "x.md": note("x", body="[[x]]\n")},
        index="- [a](a.md)\n",
    )
    assert [f.path for f in fired(store, "orphan")] == ["x.md"]


def test_link_from_an_archived_note_does_not_rescue(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a"), "x.md": note("x"), "archive/old.md": note("old", body="[[x]]\n")},
        index="- [a](a.md)\n- [old](archive/old.md)\n",
    )
    assert [f.path for f in fired(store, "orphan")] == ["x.md"]


def test_wikilink_inside_code_does_not_link(tmp_path: Path) -> None:
    body = "```\n[[x]]\n```\nand `[[x]]` inline\n"
    store = make_store(
        tmp_path / "s", {"a.md": note("a", body=body), "x.md": note("x")}, index="- [a](a.md)\n"
    )
    assert [f.path for f in fired(store, "orphan")] == ["x.md"]


def test_wikilink_in_frontmatter_does_not_link(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", description="see [[x]]"), "x.md": note("x")},
        index="- [a](a.md)\n",
    )
    assert [f.path for f in fired(store, "orphan")] == ["x.md"]


def test_credit_is_by_resolved_path_not_basename(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"x.md": note("x"), "sub/x.md": note("x")}, index="- [x](x.md)\n"
    )
    # orphan on its own: nested-note (which would report sub/ as one folder) does not run
    assert [f.path for f in fired(store, "orphan", select={"orphan"})] == ["sub/x.md"]


def test_pointer_to_an_unreadable_note_still_credits_it(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {}, index="- [big](big.md)\n")
    with (store / "big.md").open("wb") as handle:
        handle.truncate(5 * 1024 * 1024)
    assert rules(store) == {"note-too-large"}


def test_no_orphans_reported_when_the_index_was_not_read(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    assert "orphan" not in rules(store) and "linked-not-indexed" not in rules(store)


# --- wikilinks --------------------------------------------------------------------------


def test_wikilink_missing_is_info_with_a_line(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", body="intro\n\nsee [[later-note]]\n")},
    )
    (finding,) = fired(store, "wikilink-missing")
    assert finding.severity == "info" and finding.line == 11


@pytest.mark.parametrize("link", ["[[b]]", "[[b|Alias]]", "[[b#Heading]]", "[[b.md]]", "[[B]]"])
def test_wikilink_forms_that_resolve(tmp_path: Path, link: str) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a", body=link + "\n"), "b.md": note("b")})
    assert fired(store, "wikilink-missing") == []


def test_wikilink_to_an_archived_note_is_not_missing(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"a.md": note("a", body="[[old]]\n"), "archive/old.md": note("old")}
    )
    assert fired(store, "wikilink-missing") == []


def test_wikilink_not_slug_in_a_note_and_in_the_index(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", body="see [[sub/b]]\n"), "sub/b.md": note("b")},
        index="- [a](a.md)\n- [[sub/b]]\n",
    )
    found = fired(store, "wikilink-not-slug")
    assert sorted((f.path, f.line) for f in found) == [("MEMORY.md", 2), ("a.md", 9)]
    assert "pointer-missing" not in rules(store)
    assert "wikilink-missing" not in rules(store)


def test_bare_slug_wikilinks_are_quiet(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    assert fired(store, "wikilink-not-slug") == []


# --- one cause, one finding: a folder the index never points into (issue 31) -----------------

RESEARCH = 312


def research_store(root: Path, extra: dict[str, str] | None = None, index: str = "") -> Path:
    """A store whose index points to ``a.md`` only, beside 312 notes without frontmatter
    under ``research/`` (the shape of a real store in issue 31)."""
    notes: dict[str, str] = {"a.md": note("a")}
    notes.update({f"research/r{n:03}.md": f"# Finding {n}\n\nA result.\n" for n in range(RESEARCH)})
    notes.update(extra or {})
    return make_store(root, notes, index="# Memory\n\n- [a](a.md) — a\n" + index)


def test_an_unindexed_folder_is_one_finding(tmp_path: Path) -> None:
    report = doctor(research_store(tmp_path / "s"))
    (finding,) = report.findings
    assert (finding.rule, finding.path, finding.line) == ("nested-note", "research/", None)
    assert finding.message.startswith(
        "312 notes under research/ are not reachable from the index: research/r000.md, "
        "research/r001.md, research/r002.md, …;"
    )
    assert finding.severity == "warning"
    assert report.notes == RESEARCH + 1


def test_a_folder_of_one_note_names_it_without_an_ellipsis(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"a.md": note("a"), "old/x.md": "# x\n"}, index="- [a](a.md)\n"
    )
    (finding,) = doctor(store).findings
    assert finding.path == "old/" and "1 note under old/ is not reachable" in finding.message
    assert "old/x.md;" in finding.message and "…" not in finding.message


@pytest.mark.parametrize(
    ("folder", "advice"),
    [
        ("feedback", "a folder per type is a classic mistake"),
        ("_archived", "if _archived/ holds retired notes, rename it to archive/"),
        ("research", "move the folder out of the store"),
    ],
)
def test_the_folder_finding_keeps_the_folders_hint(
    tmp_path: Path, folder: str, advice: str
) -> None:
    store = make_store(
        tmp_path / "s", {"a.md": note("a"), f"{folder}/x.md": note("x")}, index="- [a](a.md)\n"
    )
    (finding,) = doctor(store).findings
    assert finding.path == f"{folder}/" and advice in finding.message


def test_without_nested_note_each_file_is_reported_as_before(tmp_path: Path) -> None:
    """--select orphan, or every rule but nested-note (--ignore): no folder finding, so
    nothing is folded and each note's own findings come back."""
    store = research_store(tmp_path / "s")
    assert len(fired(store, "orphan", select={"orphan"})) == RESEARCH
    everything_else = {r for r in RULES if r != "nested-note"}
    found = Counter(f.rule for f in doctor(store, select=everything_else).findings)
    assert found == {"orphan": RESEARCH, "no-frontmatter": RESEARCH}
    (only,) = doctor(store, select={"nested-note"}).findings
    assert only.path == "research/"


def test_ignore_on_the_command_line_gives_the_per_file_findings(cli, tmp_path: Path) -> None:
    store = research_store(tmp_path / "s")
    result = cli("doctor", str(store), "--format", "json", "--ignore", "nested-note")
    found = Counter(f["rule"] for f in json.loads(result.out)["findings"])
    assert found == {"orphan": RESEARCH, "no-frontmatter": RESEARCH}
    result = cli("doctor", str(store), "--format", "json")
    assert [f["path"] for f in json.loads(result.out)["findings"]] == ["research/"]
    assert result.code == 0  # a warning: the index the agent reads is sound


def test_a_pointer_into_the_folder_keeps_the_per_file_findings(tmp_path: Path) -> None:
    """The folder counts as indexed when a pointer resolves into it (even one to a note that
    is gone): its unreachable notes are then orphans, one by one, as before."""
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a"), "topics/b.md": note("b"), "topics/c.md": note("c")},
        index="- [a](a.md)\n- [b](topics/b.md)\n",
    )
    found = sorted((f.rule, f.path) for f in doctor(store).findings)
    assert found == [
        ("nested-note", "topics/b.md"),
        ("nested-note", "topics/c.md"),
        ("orphan", "topics/c.md"),
    ]
    gone = make_store(
        tmp_path / "t", {"a.md": note("a"), "topics/c.md": note("c")}, index="- [g](topics/g.md)\n"
    )
    assert {(f.rule, f.path) for f in doctor(gone).findings} >= {
        ("nested-note", "topics/c.md"),
        ("orphan", "topics/c.md"),
    }


def test_a_linked_note_of_an_unindexed_folder_is_judged_on_its_own(tmp_path: Path) -> None:
    """A note that an indexed note links to is reachable: it keeps its own nested-note
    finding and is not counted in the folder's."""
    store = research_store(tmp_path / "s", {"a.md": note("a", body="See [[r001]].\n")})
    findings = doctor(store).findings
    assert ("nested-note", "research/r001.md") in {(f.rule, f.path) for f in findings}
    (folder,) = [f for f in findings if f.path == "research/"]
    assert folder.message.startswith("311 notes under research/")
    assert "research/r001.md" not in folder.message


def test_what_a_folded_note_says_is_still_checked(tmp_path: Path) -> None:
    store = research_store(tmp_path / "s", {"research/r000.md": "# Plan\n\nShipped yesterday.\n"})
    assert {(f.rule, f.path) for f in doctor(store).findings} == {
        ("nested-note", "research/"),
        ("relative-date", "research/r000.md"),
    }


def test_no_folder_finding_when_the_index_was_not_read(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"research/x.md": note("x")}, index=None)
    assert [(f.rule, f.path) for f in fired(store, "nested-note")] == [
        ("nested-note", "research/x.md")
    ]


def test_an_allow_comment_in_the_index_silences_the_folder(tmp_path: Path) -> None:
    store = research_store(tmp_path / "s", index="<!-- engramory: allow nested-note -->\n")
    assert doctor(store).findings == []
