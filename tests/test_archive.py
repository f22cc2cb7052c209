"""`engramory archive`: move a note to archive/, edit the index, refuse before any change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_new import tree

from conftest import run_engramory
from doctorkit import doctor, make_store, note, valid_store
from engramory.store.markdown import classify_index
from engramory.util import fsutil
from engramory.write import archiving, indexedit


def errors(root: Path) -> list[str]:
    return [f"{f.rule}: {f.message}" for f in doctor(root).findings if f.severity == "error"]


def test_archive_moves_removes_pointer_and_reports_wikilinks(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    index_before = (store / "MEMORY.md").read_text(encoding="utf-8")
    note_bytes = (store / "reference-logs.md").read_bytes()
    result = cli("archive", "reference-logs", "--store", str(store))
    assert result.code == 0, result
    assert not (store / "reference-logs.md").exists()
    assert (store / "archive" / "reference-logs.md").read_bytes() == note_bytes
    # the pointer goes, and the "## reference" heading it leaves empty (with the blank line
    # before it) goes with it
    expected = index_before.replace(
        "\n\n## reference\n- [reference-logs](reference-logs.md) — open when it matters\n", "\n"
    )
    assert expected != index_before
    assert (store / "MEMORY.md").read_text(encoding="utf-8") == expected
    assert "project-migration.md:" in result.out and "[[reference-logs]]" in result.out
    assert errors(store) == []
    assert cli("doctor", str(store)).code == 0


def test_keep_pointer_rewrites_to_archive(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    result = cli("archive", "reference-logs", "--store", str(store), "--keep-pointer")
    assert result.code == 0, result
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [reference-logs](archive/reference-logs.md) — open when it matters\n" in index
    assert "](reference-logs.md)" not in index
    assert errors(store) == []
    assert [f.rule for f in doctor(store).findings] == ["pointer-into-archive"]


POINTER_FORMS = "\n".join(
    [
        "# Memory",
        "## reference",
        "- [x](x.md) — plain",
        "- [x](./x.md) — dot",
        "- [x](<x.md>) — angle",
        '- [x](x.md "a title") — titled',
        "- [x](x.md#part) — anchored",
        "- [x](%78.md) — percent",
        "- [x](sub/../x.md) — climbing back",
        "- [[x]] — wikilink",
        "- [[X|alias]] — wikilink in another case",
        "- [x](x.md) and [y](y.md) — shared line",
        "- [y](y.md) — another note",
        "- [xx](xx.md) — a longer name",
        "- [docs](https://example.com/x.md) — remote",
        "",
    ]
)


def forms_store(root: Path) -> Path:
    notes = {n + ".md": note(n, "reference") for n in ("x", "y", "xx")}
    store = make_store(root, notes, index=POINTER_FORMS)
    (store / "sub").mkdir()
    return store


def test_every_pointer_form_resolved_as_the_doctor_does(cli, tmp_path: Path) -> None:
    store = forms_store(tmp_path / "s")
    assert cli("archive", "x", "--store", str(store)).code == 0
    assert (store / "MEMORY.md").read_text(encoding="utf-8") == "\n".join(
        [
            "# Memory",
            "## reference",
            "- [x](archive/x.md) and [y](y.md) — shared line",
            "- [y](y.md) — another note",
            "- [xx](xx.md) — a longer name",
            "- [docs](https://example.com/x.md) — remote",
            "",
        ]
    )
    assert errors(store) == []


def test_keep_pointer_every_form(cli, tmp_path: Path) -> None:
    store = forms_store(tmp_path / "s")
    assert cli("archive", "x", "--store", str(store), "--keep-pointer").code == 0
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [x](archive/x.md) — plain\n" in index
    assert "- [x](archive/x.md) — dot\n" in index
    assert "- [x](archive/x.md) — angle\n" in index
    assert '- [x](archive/x.md "a title") — titled\n' in index
    assert "- [x](archive/x.md) — anchored\n" in index  # the anchor went with the old target
    assert "- [x](archive/x.md) — percent\n" in index
    assert "- [x](archive/x.md) — climbing back\n" in index
    assert "- [[x]] — wikilink\n" in index  # the doctor resolves it to the archived note
    assert "- [xx](xx.md) — a longer name\n" in index
    assert errors(store) == []


def test_crlf_index_kept(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a"), "b.md": note("b")}, index=None)
    (store / "MEMORY.md").write_bytes(b"## user\r\n- [a](a.md)\r\n- [b](b.md) \xff\r\n")
    assert cli("archive", "a", "--store", str(store)).code == 0
    assert (store / "MEMORY.md").read_bytes() == b"## user\r\n- [b](b.md) \xff\r\n"


def test_existing_capitalised_archive_dir_is_used(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "Archive").mkdir()
    assert cli("archive", "user-role", "--store", str(store), "--keep-pointer").code == 0
    assert (store / "Archive" / "user-role.md").exists()
    assert "(Archive/user-role.md)" in (store / "MEMORY.md").read_text(encoding="utf-8")
    assert errors(store) == []


def test_no_index_just_moves(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a"), "b.md": note("b")}, index=None)
    assert cli("archive", "a", "--store", str(store)).code == 0
    assert (store / "archive" / "a.md").exists() and not (store / "MEMORY.md").exists()


# -- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "slug",
    ["a/b", "../user-role", "/etc/passwd", "..", ".", "sub\\x", "C:x", "", "MEMORY", "memory.md"],
)
def test_non_bare_slug_is_64_before_anything(cli, tmp_path: Path, slug: str) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(tmp_path)
    assert cli("archive", slug, "--store", str(tmp_path / "missing")).code == 64
    assert cli("archive", slug, "--store", str(store)).code == 64
    assert tree(tmp_path) == before


def test_missing_note_is_66(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(store)
    result = cli("archive", "nope", "--store", str(store))
    assert result.code == 66 and "nope.md" in result.err
    assert tree(store) == before


@pytest.mark.parametrize("existing", ["archive/user-role.md", "archive/USER-Role.md"])
def test_archived_copy_in_any_case_is_1(cli, tmp_path: Path, existing: str) -> None:
    store = valid_store(tmp_path / "s")
    (store / "archive").mkdir()
    (store / existing).write_text(note("user-role"), encoding="utf-8")
    before = tree(store)
    result = cli("archive", "user-role", "--store", str(store))
    assert result.code == 1 and "already exists" in result.err
    assert tree(store) == before


def test_symlink_out_of_store_is_1(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    outside = tmp_path / "outside.md"
    outside.write_text(note("ext"), encoding="utf-8")
    (store / "ext.md").symlink_to(outside)
    before = tree(tmp_path)
    result = cli("archive", "ext", "--store", str(store))
    assert result.code == 1 and "leading out of the store" in result.err
    assert tree(tmp_path) == before


def test_symlink_inside_store_is_refused_too(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    (store / "alias.md").symlink_to("user-role.md")
    before = tree(store)
    assert cli("archive", "alias", "--store", str(store)).code == 1
    assert tree(store) == before


def test_archive_symlink_is_refused(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (store / "archive").symlink_to(elsewhere)
    before = tree(tmp_path)
    assert cli("archive", "user-role", "--store", str(store)).code == 1
    assert tree(tmp_path) == before


def test_keep_pointer_over_hard_cap_refused(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    size = (store / "MEMORY.md").stat().st_size
    before = tree(store)
    result = cli(
        "archive", "user-role", "--store", str(store), "--keep-pointer",
        "--hard-bytes", str(size),
    )  # fmt: skip
    assert result.code == 1 and "hard cap" in result.err
    assert tree(store) == before
    # removing the pointer shrinks the index: allowed even when it is over
    assert cli("archive", "user-role", "--store", str(store), "--hard-bytes", "10").code == 0


def test_dry_run_changes_nothing(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(store)
    result = cli("archive", "user-role", "--store", str(store), "--dry-run")
    assert result.code == 0
    assert "would move user-role.md -> archive/user-role.md" in result.out
    assert "would remove" in result.out
    assert tree(store) == before


def test_failed_index_write_moves_the_note_back(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = valid_store(tmp_path / "s")
    before = tree(store)

    def failing(path, data, mode=None):  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fsutil, "write_atomic", failing)
    result = cli("archive", "user-role", "--store", str(store))
    assert result.code == 1 and "moved back" in result.err
    assert tree(store) == before  # archive/ made for the move is gone again


def test_an_index_edited_after_the_plan_is_not_overwritten(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MEMORY.md edited between the checks and the move: nothing moves, the edit stays."""
    store = valid_store(tmp_path / "s")
    real = archiving.move

    def edit_then_move(*args, **kwargs):  # type: ignore[no-untyped-def]
        with open(store / "MEMORY.md", "a", encoding="utf-8") as index:
            index.write("- [late](late.md) — added by someone else\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(archiving, "move", edit_then_move)
    result = cli("archive", "user-role", "--store", str(store))
    assert result.code == 1 and "changed meanwhile" in result.err
    assert (store / "user-role.md").exists() and not (store / "archive").exists()
    assert "late.md" in (store / "MEMORY.md").read_text(encoding="utf-8")


def test_real_cli_subprocess(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    result = run_engramory("archive", "feedback-tests", "--store", str(store))
    assert result.returncode == 0, result
    assert os.path.exists(store / "archive" / "feedback-tests.md")
    assert errors(store) == []
    result = run_engramory("archive", "../x", "--store", str(store))
    assert result.returncode == 64 and b"Traceback" not in result.stderr


def test_refuses_to_orphan_notes_reached_only_through_it(cli, tmp_path: Path) -> None:
    notes = {
        "a.md": note("a", body="See [[b]].\n"),
        "b.md": note("b", body="Deeper: [[c]].\n"),
        "c.md": note("c"),
        "d.md": note("d", body="Also [[c]].\n"),
    }
    index = "## user\n- [a](a.md) — a\n- [d](d.md) — d\n"
    store = make_store(tmp_path / "s", notes, index=index)
    assert errors(store) == []
    before = tree(store)
    result = cli("archive", "a", "--store", str(store))
    assert result.code == 1, result
    assert "b.md" in result.err and "orphan" in result.err
    assert "c.md" not in result.err  # still reached through d
    assert tree(store) == before
    # once b has its own pointer, a can go
    (store / "MEMORY.md").write_text(index + "- [b](b.md) — b\n", encoding="utf-8")
    assert cli("archive", "a", "--store", str(store)).code == 0
    assert errors(store) == []


def test_already_orphaned_notes_do_not_block(cli, tmp_path: Path) -> None:
    notes = {"a.md": note("a"), "lost.md": note("lost")}
    store = make_store(tmp_path / "s", notes, index="## user\n- [a](a.md) — a\n")
    assert cli("archive", "a", "--store", str(store)).code == 0


CORPUS = sorted(p for p in (Path(__file__).parent / "corpus" / "stores").iterdir() if p.is_dir())


def _error_counts(root: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for finding in doctor(root).findings:
        if finding.severity == "error":
            counts[finding.rule] = counts.get(finding.rule, 0) + 1
    return counts


@pytest.mark.parametrize("source", CORPUS, ids=lambda p: p.name[:12])
def test_new_then_archive_on_corpus_stores_adds_no_error_and_gives_back_the_index(
    cli, tmp_path: Path, source: Path
) -> None:
    import shutil

    store = tmp_path / "s"
    shutil.copytree(source, store, symlinks=True)
    before = _error_counts(store)
    index = store / "MEMORY.md"
    index_before = index.read_bytes() if index.exists() else None
    result = cli(
        "new", "reference", "corpus-probe", "--description", "A probe note for the corpus test",
        "--store", str(store),
    )  # fmt: skip
    if result.code == 1:  # an index already at its hard cap: refused, nothing written
        assert "hard cap" in result.err and not (store / "corpus-probe.md").exists()
        return
    assert result.code == 0, result
    assert _error_counts(store) == before
    assert cli("archive", "corpus-probe", "--store", str(store)).code == 0
    assert _error_counts(store) == before
    if index_before is not None and not index_before.endswith((b"\n\n", b"\n\r\n")):
        assert index.read_bytes() == index_before  # the ## reference heading new added goes too


# --- the ## TYPE heading `new` added, taken out again when archive leaves it empty -------------

ROLE = note("role", "user")
INDEX_WITHOUT_FEEDBACK = "# Memory\n\n## user\n- [Role](role.md) — the role\n"


def new_feedback(cli, store: Path, slug: str = "test-style") -> None:
    result = cli(
        "new", "feedback", slug, "--description", "How tests are written here",
        "--why", "the team reviews tests first", "--how", "one behaviour per test",
        "--store", str(store),
    )  # fmt: skip
    assert result.code == 0, result


@pytest.mark.parametrize(
    "index",
    [
        INDEX_WITHOUT_FEEDBACK,
        INDEX_WITHOUT_FEEDBACK.rstrip("\n"),  # no final newline
        INDEX_WITHOUT_FEEDBACK.replace("\n", "\r\n"),
        "",  # an empty index
    ],
    ids=["lf", "no-final-newline", "crlf", "empty"],
)
def test_new_then_archive_gives_back_the_index_byte_for_byte(
    cli, tmp_path: Path, index: str
) -> None:
    store = make_store(tmp_path / "s", {"role.md": ROLE}, index=index)
    before = (store / "MEMORY.md").read_bytes()
    new_feedback(cli, store)
    assert b"## feedback" in (store / "MEMORY.md").read_bytes()
    result = cli("archive", "test-style", "--store", str(store))
    assert result.code == 0, result
    assert (store / "MEMORY.md").read_bytes() == before
    assert 'removed the heading "## feedback" (nothing is left under it)' in result.out


def test_a_section_new_added_before_another_goes_without_its_blank_lines(
    cli, tmp_path: Path
) -> None:
    store = make_store(tmp_path / "s", {"role.md": ROLE}, index=INDEX_WITHOUT_FEEDBACK)
    new_feedback(cli, store)
    result = cli(
        "new", "reference", "dashboards", "--description", "Where the dashboards are",
        "--store", str(store),
    )  # fmt: skip
    assert result.code == 0, result
    assert cli("archive", "test-style", "--store", str(store)).code == 0
    assert (store / "MEMORY.md").read_text(encoding="utf-8") == (
        INDEX_WITHOUT_FEEDBACK + "\n## reference\n- [Dashboards](dashboards.md) — Where the "
        "dashboards are\n"
    )


@pytest.mark.parametrize(
    ("section", "why"),
    [
        ("## feedback\nKept: the user's own words.\n- [Test style](test-style.md) — x\n", "text"),
        ("## feedback\n<!-- the user's comment -->\n- [Test style](test-style.md) — x\n", "note"),
        ("## Feedback\n- [Test style](test-style.md) — x\n", "another case"),
        ("### feedback\n- [Test style](test-style.md) — x\n", "another level"),
        ("## feedback notes\n- [Test style](test-style.md) — x\n", "more words"),
    ],
    ids=lambda value: value if len(value) < 20 else None,
)
def test_a_heading_not_as_new_writes_it_or_with_more_under_it_stays(
    cli, tmp_path: Path, section: str, why: str
) -> None:
    index = INDEX_WITHOUT_FEEDBACK + "\n" + section
    notes = {"role.md": ROLE, "test-style.md": note("test-style", "feedback")}
    store = make_store(tmp_path / "s", notes, index=index)
    result = cli("archive", "test-style", "--store", str(store))
    assert result.code == 0, result
    heading = section.split("\n", 1)[0]
    left = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert heading + "\n" in left, why
    assert "test-style.md" not in left
    assert "removed the heading" not in result.out


def test_an_empty_heading_this_archive_did_not_empty_stays(cli, tmp_path: Path) -> None:
    index = "# Memory\n\n## project\n\n## user\n- [Role](role.md) — the role\n"
    store = make_store(tmp_path / "s", {"role.md": ROLE}, index=index)
    new_feedback(cli, store)
    assert cli("archive", "test-style", "--store", str(store)).code == 0
    assert (store / "MEMORY.md").read_text(encoding="utf-8") == index  # ## project kept


def test_keep_pointer_and_a_section_with_another_pointer_keep_the_heading(
    cli, tmp_path: Path
) -> None:
    store = make_store(tmp_path / "s", {"role.md": ROLE}, index=INDEX_WITHOUT_FEEDBACK)
    new_feedback(cli, store, "test-style")
    new_feedback(cli, store, "review-style")
    assert cli("archive", "test-style", "--store", str(store)).code == 0
    assert "## feedback\n- [Review style](review-style.md)" in (store / "MEMORY.md").read_text(
        encoding="utf-8"
    )
    assert cli("archive", "review-style", "--store", str(store), "--keep-pointer").code == 0
    left = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert "## feedback\n- [Review style](archive/review-style.md)" in left


def test_dry_run_says_the_heading_would_go_and_writes_nothing(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"role.md": ROLE}, index=INDEX_WITHOUT_FEEDBACK)
    new_feedback(cli, store)
    before = tree(store)
    result = cli("archive", "test-style", "--store", str(store), "--dry-run")
    assert result.code == 0, result
    assert 'MEMORY.md:6: would remove the heading "## feedback"' in result.out
    assert tree(store) == before


_INDEX_LINES = st.sampled_from(
    ["# Memory", "## user", "### project", "- [A](a.md) — a", "text", "", "## Feedback notes"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_INDEX_LINES, max_size=8), st.sampled_from(["", "\n", "\r\n"]))
def test_adding_a_section_then_emptying_it_round_trips(lines: list[str], end: str) -> None:
    """``new``'s edit then archive's, on the text alone: byte for byte, whenever the index
    does not already end with a blank line (``new`` then adds no blank line before the
    heading, and the two texts cannot be told apart)."""
    nl = end or "\n"
    text = nl.join(lines) + (end if lines else "")
    last = indexedit.split_lines(text)[-1:]
    if last and not last[0].strip():
        return  # ends with a blank line: ambiguous, see the docstring
    added = indexedit.add_pointer(text, "feedback", "- [T](t.md) — t")
    pointer = next(e.number for e in classify_index(added) if "(t.md)" in e.text)
    headings, spacing = archiving.empty_headings(added, [pointer])
    assert list(headings.values()) == ["## feedback"]
    assert indexedit.remove_lines(added, [pointer, *headings, *spacing]) == text
