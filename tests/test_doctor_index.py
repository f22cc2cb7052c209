"""Index and pointer rules: each fires on its case and stays quiet on the nearest valid input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from doctorkit import doctor, fired, make_store, note, rules, valid_store
from engramory.store.caps import Caps


def test_valid_store_is_clean(tmp_path: Path) -> None:
    report = doctor(valid_store(tmp_path / "s"))
    assert report.findings == []
    assert report.notes == 4


# --- no-index ------------------------------------------------------------------


def test_no_index_fires_without_memory_md(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    (finding,) = fired(store, "no-index")
    assert finding.path == "MEMORY.md" and finding.severity == "error"
    assert "orphan" not in rules(store)  # reachability is skipped, not everything orphaned


def test_no_index_fires_for_a_directory_named_memory_md(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    (store / "MEMORY.md").mkdir()
    (finding,) = fired(store, "no-index")
    assert "directory" in finding.message


def test_no_index_quiet_on_an_empty_index(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {}, index="")
    assert fired(store, "no-index") == []


# --- index-escapes-store / index-symlink ------------------------------------------


def test_index_escapes_store_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("- [secret](secret.md)\n" * 300)
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    (store / "MEMORY.md").symlink_to(outside)
    report = doctor(store)
    assert {f.rule for f in report.findings} == {"index-escapes-store"}
    assert report.index.text is None and report.index.measured is None


def test_index_symlink_inside_store_warns_and_is_read(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "MEMORY.md").rename(store / "real-index.txt")
    (store / "MEMORY.md").symlink_to("real-index.txt")
    report = doctor(store)
    assert [f.rule for f in report.findings] == ["index-symlink"]
    assert report.index.measured is not None


def test_index_symlink_quiet_for_a_regular_file(tmp_path: Path) -> None:
    assert fired(valid_store(tmp_path / "s"), "index-symlink") == []


# --- index-unreadable -------------------------------------------------------------


def test_index_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = valid_store(tmp_path / "s")
    from engramory.util import fsutil

    real = fsutil.read_bounded_stat

    def deny(path, limit, follow_symlinks=True):  # type: ignore[no-untyped-def]
        if str(path).endswith("MEMORY.md"):
            raise PermissionError(13, "Permission denied")
        return real(path, limit, follow_symlinks)

    monkeypatch.setattr(fsutil, "read_bounded_stat", deny)
    report = doctor(store)
    assert [f.rule for f in report.findings] == ["index-unreadable"]
    assert "Permission denied" in report.findings[0].message


def test_index_unreadable_quiet_when_readable(tmp_path: Path) -> None:
    assert fired(valid_store(tmp_path / "s"), "index-unreadable") == []


# --- index-too-large --------------------------------------------------------------


def test_index_too_large_is_not_parsed(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {}, index=None)
    with (store / "MEMORY.md").open("wb") as handle:
        handle.truncate(1024 * 1024 + 1)
    report = doctor(store)
    assert [f.rule for f in report.findings] == ["index-too-large"]
    assert report.index.measured is not None and report.index.measured.lines is None


def test_index_too_large_limit_follows_the_hard_byte_cap(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {}, index=None)
    (store / "MEMORY.md").write_bytes(b"x\n" * 600_000)  # 1.2 MB: over 1 MiB, under 8 x 200 KB
    assert fired(store, "index-too-large", caps=Caps(hard_bytes=200_000)) == []
    assert fired(store, "index-too-large") != []


# --- caps ------------------------------------------------------------------------


def index_of(lines: int) -> str:
    return "# Memory index\n" + "".join("> spacer\n" for _ in range(lines - 1))


@pytest.mark.parametrize(
    ("lines", "hard", "soft"), [(150, 0, 0), (151, 0, 1), (200, 0, 1), (201, 1, 0)]
)
def test_line_caps(tmp_path: Path, lines: int, hard: int, soft: int) -> None:
    store = make_store(tmp_path / "s", {}, index=index_of(lines))
    assert len(fired(store, "index-over-hard-cap")) == hard
    assert len(fired(store, "index-over-soft-cap")) == soft


@pytest.mark.parametrize(
    ("size", "hard", "soft"), [(20480, 0, 0), (20481, 0, 1), (25000, 0, 1), (25001, 1, 0)]
)
def test_byte_caps(tmp_path: Path, size: int, hard: int, soft: int) -> None:
    store = make_store(tmp_path / "s", {}, index=None)
    (store / "MEMORY.md").write_bytes(b"> " + b"x" * (size - 3) + b"\n")
    assert len(fired(store, "index-over-hard-cap")) == hard
    assert len(fired(store, "index-over-soft-cap")) == soft


def test_hard_cap_message_names_each_breached_dimension(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {}, index=None)
    (store / "MEMORY.md").write_text(("> " + "x" * 130 + "\n") * 210)
    (finding,) = fired(store, "index-over-hard-cap")
    assert "lines (210 > 200)" in finding.message
    assert "bytes (27,930 > 25,000)" in finding.message


# --- index-line-not-pointer -------------------------------------------------------


def test_prose_line_in_index(tmp_path: Path) -> None:
    notes = {"a.md": note("a")}
    store = make_store(
        tmp_path / "s", notes, index="# Index\n\n## user\n- [a](a.md) — hook\nDeploys go first.\n"
    )
    (finding,) = fired(store, "index-line-not-pointer")
    assert finding.line == 5
    assert finding.severity == "warning"


def test_consecutive_prose_lines_are_one_finding(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"a.md": note("a")}, index="- [a](a.md)\none\ntwo\nthree\n\nfour\n"
    )
    found = fired(store, "index-line-not-pointer")
    assert [(f.line, "lines 2–4" in f.message) for f in found] == [(2, True), (6, False)]


def test_bare_archived_line_says_it_strands_notes(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"a.md": note("a")}, index="- [a](a.md)\narchived: old search work\n"
    )
    (finding,) = fired(store, "index-line-not-pointer")
    assert "stranded" in finding.message and finding.line == 2


def test_code_span_path_gets_a_hint(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index="- `a.md` — the note\n")
    (finding,) = fired(store, "index-line-not-pointer")
    assert "not a link" in finding.message


def test_line_with_only_a_remote_link_is_not_a_pointer(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"a.md": note("a")}, index="- [a](a.md)\n- [docs](https://x.org/a.md)\n"
    )
    (finding,) = fired(store, "index-line-not-pointer")
    assert finding.line == 2 and "remote" in finding.message


def test_structure_lines_are_fine(tmp_path: Path) -> None:
    index = (
        "# Memory\n\n> a quote\n<!-- a comment\nspanning lines -->\n---\n"
        "| File | Why |\n|---|---|\n| [a](a.md) | hook |\n"
        "1. [a again](a.md)\n[[a]]\n**Bold**: [a](a.md)\n"
    )
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=index)
    assert fired(store, "index-line-not-pointer") == []


# --- index-line-too-long ----------------------------------------------------------


def test_long_pointer_line(tmp_path: Path) -> None:
    line = "- [a](a.md) — " + "x" * 190
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=line + "\n")
    (finding,) = fired(store, "index-line-too-long")
    assert str(len(line)) in finding.message
    assert fired(store, "index-line-too-long", max_index_line=300) == []


def test_line_of_exactly_the_limit_is_fine(tmp_path: Path) -> None:
    line = "- [a](a.md) — " + "x" * 186
    assert len(line) == 200
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=line + "\n")
    assert fired(store, "index-line-too-long") == []


def test_long_prose_line_is_not_a_long_pointer_line(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index="- [a](a.md)\n" + "y" * 300)
    assert fired(store, "index-line-too-long") == []


# --- pointer-bad-scheme ------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "file:///etc/passwd",
        "FILE://x.md",
        "javascript:alert(1)",
        "data:text/plain,x.md",
        "svn://host/x.md",
        "vscode://file/x.md",
    ],
)
def test_bad_scheme(tmp_path: Path, target: str) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=f"- [a](a.md)\n- [x]({target})\n")
    (finding,) = fired(store, "pointer-bad-scheme")
    assert finding.line == 2


@pytest.mark.parametrize(
    "target",
    [
        "https://x.org/a.md",
        "HTTP://x.org",
        "ftp://h/x.md",
        "ftps://h/x",
        "ssh://h/x",
        "git+ssh://h/r.git",
        "git+https://h/r",
        "mailto:a@b.md",
    ],
)
def test_remote_schemes_are_external_and_skipped(tmp_path: Path, target: str) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=f"- [a](a.md) [x]({target})\n")
    found = rules(store)
    assert not found & {"pointer-bad-scheme", "pointer-missing", "pointer-escapes-store"}


# --- pointer-escapes-store ---------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "../outside.md",
        "/etc/x.md",
        "//host/share/x.md",
        "\\\\host\\share\\x.md",
        "C:\\x.md",
        "C:x.md",
        "c:/x.md",
        "%2e%2e/outside.md",
        "..%2Foutside.md",
        "sub/../../outside.md",
        "<../outside.md>",
    ],
)
def test_pointer_escapes(tmp_path: Path, target: str) -> None:
    (tmp_path / "outside.md").write_text(note("outside"))
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index=f"- [a](a.md)\n- [x]({target})\n")
    (finding,) = fired(store, "pointer-escapes-store")
    assert finding.line == 2
    assert "outside" not in {f.path for f in doctor(store).findings}


def test_pointer_through_a_symlink_out_escapes(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("secret")
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index="- [a](a.md)\n- [x](link.md)\n")
    (store / "link.md").symlink_to(tmp_path / "outside.md")
    assert [f.line for f in fired(store, "pointer-escapes-store")] == [2]


def test_sibling_directory_with_the_root_as_prefix_is_outside(tmp_path: Path) -> None:
    (tmp_path / "s-old").mkdir()
    (tmp_path / "s-old" / "x.md").write_text(note("x"))
    store = make_store(
        tmp_path / "s", {"a.md": note("a")}, index="- [a](a.md)\n- [x](../s-old/x.md)\n"
    )
    assert len(fired(store, "pointer-escapes-store")) == 1


def test_dot_dot_that_stays_inside_is_fine(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index="- [a](sub/../a.md)\n")
    assert rules(store) == set()


# --- pointer-missing ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("index", "why"),
    [
        ("- [x](gone.md)\n", "no such file"),
        ("- [x](sub)\n", "directory"),
        ("- [x](my note.md)\n", "raw space"),
        ("- [x]()\n", "empty target"),
        ("[x]: a-ref.md\n", "reference-style"),
        ("- [[no-such-slug]]\n", "no note is named"),
        ("- [x](<unclosed.md)\n", "angle-bracket"),
    ],
)
def test_pointer_missing(tmp_path: Path, index: str, why: str) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a"), "sub/b.md": note("b")}, index=index)
    found = fired(store, "pointer-missing")
    assert len(found) == 1 and why in found[0].message


def test_pointer_to_a_fifo_is_missing_and_never_opened(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("POSIX only")
    store = make_store(tmp_path / "s", {}, index="- [x](pipe.md)\n")
    os.mkfifo(store / "pipe.md")
    (finding,) = fired(store, "pointer-missing")
    assert "not a regular file" in finding.message


@pytest.mark.parametrize(
    "target",
    [
        "a.md",
        "./a.md",
        "a.md#section",
        "a.md?x=1",
        'a.md "Title"',
        "<a.md>",
        "a%2Emd",
        "my%20note.md",
        "<my note.md>",
        "A%20b.MD",
    ],
)
def test_pointer_forms_that_resolve(tmp_path: Path, target: str) -> None:
    notes = {"a.md": note("a"), "my note.md": note("my note"), "A b.MD": note("A b")}
    store = make_store(tmp_path / "s", notes, index=f"- [x]({target})\n")
    assert fired(store, "pointer-missing") == []


def test_wikilink_in_the_index_credits_its_note(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index="- [[a]] — hook\n")
    assert rules(store) == set()


# --- pointer-into-archive ---------------------------------------------------------------


def test_pointer_into_archive_is_info_and_credits_no_live_note(tmp_path: Path) -> None:
    notes = {"a.md": note("a"), "archive/a.md": note("a")}
    store = make_store(tmp_path / "s", notes, index="- [old a](archive/a.md)\n")
    report = doctor(store)
    assert {(f.rule, f.severity) for f in report.findings} == {
        ("pointer-into-archive", "info"),
        ("orphan", "error"),
    }


def test_pointer_into_archive_quiet_for_live_pointer(tmp_path: Path) -> None:
    assert fired(valid_store(tmp_path / "s"), "pointer-into-archive") == []


# --- duplicate-pointer ------------------------------------------------------------------


def test_duplicate_pointer(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a"), "b.md": note("b")},
        index="- [a](a.md)\n- [b](b.md)\n- [a again](./a.md#x)\n- [[a]]\n",
    )
    found = fired(store, "duplicate-pointer")
    assert [f.line for f in found] == [3, 4]
    assert "line 1" in found[0].message


def test_missing_pointer_with_a_matching_name_is_not_a_duplicate(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")}, index="- [a](a.md)\n- [x](sub/a.md)\n")
    assert fired(store, "duplicate-pointer") == []


# --- pointer-section-mismatch -------------------------------------------------------


def test_section_mismatch(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"x.md": note("x", "feedback")}, index="## user\n- [x](x.md)\n"
    )
    (finding,) = fired(store, "pointer-section-mismatch")
    assert finding.line == 2 and "## feedback" in finding.message


def test_section_match_and_thematic_headings_are_quiet(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"x.md": note("x", "feedback"), "y.md": note("y", "project")},
        index="## Feedback\n- [x](x.md)\n## Deployment\n- [y](y.md)\n",
    )
    assert fired(store, "pointer-section-mismatch") == []


def test_section_mismatch_needs_schema(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s", {"x.md": note("x", "feedback")}, index="## user\n- [x](x.md)\n"
    )
    assert fired(store, "pointer-section-mismatch", schema=False) == []


def test_fix_hint_names_the_breached_dimension(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {}, index=index_of(201))
    hints = doctor(store).hints
    assert "merge duplicate pointers" in hints["index-over-hard-cap"]
    assert "shorten the longest" not in hints["index-over-hard-cap"]
    wide = make_store(tmp_path / "w", {}, index=None)
    (wide / "MEMORY.md").write_bytes(b"> " + b"x" * 25000 + b"\n")
    assert (
        "compact the index now: shorten the longest index lines first"
        in doctor(wide).hints["index-over-hard-cap"]
    )
