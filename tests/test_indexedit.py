"""engramory.write.indexedit: pure edits of the index text that leave every other byte alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.store.markdown import INLINE, classify_index, find_links
from engramory.write import indexedit

INDEX = "# Memory\n\n## User\n- [a](a.md) — one\n\n## Feedback\n- [b](b.md) — two\n"


def test_pointer_line_shape() -> None:
    assert indexedit.pointer_line("My note", "my-note.md", "when X") == (
        "- [My note](my-note.md) — when X"
    )
    assert indexedit.pointer_line("T", "t.md", "") == "- [T](t.md)"


@pytest.mark.parametrize(
    "title, hook",
    [
        ("a]b[c", "x"),
        ("a](evil.md) [", "y"),
        ("tick `", "and ` tick"),
        ("back\\", "x"),
        ("two\nlines", "hook\r\nwith [[wiki]] and [l](other.md)"),
    ],
)
def test_pointer_line_holds_exactly_one_link(title: str, hook: str) -> None:
    line = indexedit.pointer_line(title, "note.md", hook)
    assert "\n" not in line and "\r" not in line
    links = find_links(line)
    assert [(link.form, link.target) for link in links] == [(INLINE, "note.md")]


def test_pointer_line_wraps_awkward_target() -> None:
    line = indexedit.pointer_line("T", "a b(c).md", "h")
    assert [link.target for link in find_links(line)] == ["a b(c).md"]


def test_add_pointer_at_end_of_section_before_blank_lines() -> None:
    out = indexedit.add_pointer(INDEX, "user", "- [c](c.md) — three")
    assert out == INDEX.replace("— one\n", "— one\n- [c](c.md) — three\n")


def test_add_pointer_section_heading_any_case() -> None:
    out = indexedit.add_pointer(INDEX, "FEEDBACK", "- x")
    assert out == INDEX + "- x\n"


def test_add_pointer_empty_section() -> None:
    text = "## User\n\n## Project\n- [p](p.md)\n"
    out = indexedit.add_pointer(text, "user", "- [u](u.md)")
    assert out == "## User\n- [u](u.md)\n\n## Project\n- [p](p.md)\n"


def test_add_pointer_new_section_at_end() -> None:
    out = indexedit.add_pointer(INDEX, "project", "- [p](p.md)")
    assert out == INDEX + "\n## project\n- [p](p.md)\n"
    entry = classify_index(out)[-1]
    assert entry.section == "project"


def test_add_pointer_new_section_after_trailing_blank() -> None:
    assert indexedit.add_pointer("# M\n\n", "user", "- x") == "# M\n\n## user\n- x\n"


def test_add_pointer_empty_text() -> None:
    assert indexedit.add_pointer("", "reference", "- x") == "## reference\n- x\n"


def test_add_pointer_keeps_crlf_and_missing_final_newline() -> None:
    text = "## User\r\n- [a](a.md)"
    out = indexedit.add_pointer(text, "user", "- [b](b.md)")
    assert out == "## User\r\n- [a](a.md)\r\n- [b](b.md)"
    assert indexedit.remove_lines(out, [3]) == text


def test_add_pointer_new_section_crlf_no_final_newline() -> None:
    out = indexedit.add_pointer("# M\r\nx", "user", "- y")
    assert out == "# M\r\nx\r\n\r\n## user\r\n- y"


def test_add_pointer_ignores_heading_inside_code_block() -> None:
    text = "```\n## User\n```\n"
    out = indexedit.add_pointer(text, "user", "- x")
    assert out == text + "\n## user\n- x\n"


def test_add_pointer_refuses_line_break() -> None:
    with pytest.raises(ValueError):
        indexedit.add_pointer(INDEX, "user", "a\nb")


def test_remove_lines() -> None:
    assert indexedit.remove_lines(INDEX, [4, 7]) == ("# Memory\n\n## User\n\n## Feedback\n")
    assert indexedit.remove_lines(INDEX, []) == INDEX
    with pytest.raises(ValueError):
        indexedit.remove_lines(INDEX, [99])
    with pytest.raises(ValueError):
        indexedit.remove_lines(INDEX, [0])


def test_replace_line_keeps_its_ending() -> None:
    text = "a\r\nb\nc"
    assert indexedit.replace_line(text, 1, "X") == "X\r\nb\nc"
    assert indexedit.replace_line(text, 3, "Y") == "a\r\nb\nY"
    with pytest.raises(ValueError):
        indexedit.replace_line(text, 4, "Z")
    with pytest.raises(ValueError):
        indexedit.replace_line(text, 1, "two\nlines")


def test_move_line_to_other_section() -> None:
    out = indexedit.move_line(INDEX, 4, "feedback")
    assert out == "# Memory\n\n## User\n\n## Feedback\n- [b](b.md) — two\n- [a](a.md) — one\n"
    moved = [e for e in classify_index(out) if e.links and e.links[0].target == "a.md"]
    assert moved[0].section == "feedback"


def test_move_line_to_missing_section_crlf() -> None:
    text = INDEX.replace("\n", "\r\n")
    out = indexedit.move_line(text, 7, "reference")
    assert out.endswith("\r\n\r\n## reference\r\n- [b](b.md) — two\r\n")
    assert "\n" not in out.replace("\r\n", "")


# -- properties ---------------------------------------------------------------

_CONTENT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"),
    max_size=30,
)
_LINE = st.one_of(
    _CONTENT,
    st.sampled_from(["", "## User", "## feedback", "# Memory", "- [a](a.md) — x", "```", "<!--"]),
)


@st.composite
def index_texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(_LINE, max_size=12))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines)
    if lines and draw(st.booleans()):
        text += ending
    return text


def _added_line_number(before: str, after: str) -> int:
    """The 1-based number of the one line ``after`` has and ``before`` has not."""
    old = indexedit.split_lines(before)
    new = indexedit.split_lines(after)
    for number, (a, b) in enumerate(zip(old, new), 1):
        if a.rstrip("\r\n") != b.rstrip("\r\n"):
            return number
    return len(new)


@settings(max_examples=300, deadline=None)
@given(index_texts(), st.sampled_from(["user", "feedback", "project"]))
def test_add_then_remove_gives_back_the_text(text: str, section: str) -> None:
    line = "- [new](new.md) — hook"
    has_section = indexedit.section_block(text, section) is not None
    out = indexedit.add_pointer(text, section, line)
    if not has_section:
        assert out.rstrip("\r\n").endswith("## " + section + indexedit.line_ending(text) + line)
        assert out.startswith(text)  # every byte before it stays
        if text and not text.endswith("\n"):
            assert out.endswith(line)  # a missing final newline stays missing
        return
    number = _added_line_number(text, out)
    assert indexedit.split_lines(out)[number - 1].rstrip("\r\n") == line
    assert indexedit.remove_lines(out, [number]) == text
    # the added line sits in the section the doctor will attribute it to
    assert classify_index(out)[number - 1].section == section


@settings(max_examples=300, deadline=None)
@given(index_texts(), st.data())
def test_replace_changes_only_that_line(text: str, data: st.DataObject) -> None:
    lines = indexedit.split_lines(text)
    if not lines:
        return
    number = data.draw(st.integers(1, len(lines)))
    out = indexedit.replace_line(text, number, "REPLACED")
    new_lines = indexedit.split_lines(out)
    assert len(new_lines) == len(lines)
    for i, (old, new) in enumerate(zip(lines, new_lines), 1):
        if i == number:
            assert new == "REPLACED" + old[len(old.rstrip("\r\n")) :]
        else:
            assert new == old


@settings(max_examples=300, deadline=None)
@given(index_texts(), st.data())
def test_remove_keeps_every_other_line(text: str, data: st.DataObject) -> None:
    lines = indexedit.split_lines(text)
    if len(lines) < 2:
        return
    number = data.draw(st.integers(1, len(lines) - 1))
    out = indexedit.remove_lines(text, [number])
    assert out == "".join(lines[: number - 1] + lines[number:])


@settings(max_examples=200, deadline=None)
@given(index_texts())
def test_crlf_text_stays_crlf(text: str) -> None:
    if "\n" in text and "\r\n" not in text:
        return
    out = indexedit.add_pointer(text, "reference", "- [r](r.md)")
    if "\n" in text:
        assert "\n" not in out.replace("\r\n", "")
