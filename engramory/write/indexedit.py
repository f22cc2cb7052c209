"""Pure edits of an index's text: add, remove, replace and move pointer lines.

Every function takes the index as a ``str`` (decoded as the doctor decodes it,
BOM already dropped: the caller re-adds it on write) and returns the new text.
Nothing here touches the disk. Every byte outside the touched lines stays as it
was: other lines, their ``\\n`` or ``\\r\\n`` endings, a missing final newline,
comments. Line numbers are 1-based and count ``\\n`` only (DESIGN.md §4
"Lines"), the same numbers :func:`engramory.store.markdown.classify_index` gives.

Two edits have to touch a neighbour to keep the text well formed, and they
undo each other: appending after a last line that has no final newline gives
that line the text's line ending (the new last line then has none), and
removing such a last line takes the ending off the line that becomes last.
"""

from __future__ import annotations

from collections.abc import Iterable

from engramory.store.markdown import (
    HEADING,
    INLINE,
    Link,
    classify_index,
    find_links,
    heading_title,
    mask_code_spans,
)

# In the link text, ``[`` and ``]`` (and a backslash) are escaped with a backslash, and a
# ``(`` right after ``]`` too, so the line holds exactly one link for Markdown and for the
# doctor's link reader (which does not honour backslash escapes but then finds no ``](``
# and no ``[[`` in the title); backticks in the title that would open a code span
# running past it (and hide the link) are written as character references. The hook is
# left as written unless it holds a link that could point to a note (which would credit
# that note), escaped the same way; a web link in the hook stays a link.
_TARGET_NEEDS_ANGLES = frozenset(" \t()<>")


def _one_line(text: str) -> str:
    """``text`` with every control character (newlines included) turned into one space, trimmed."""
    cleaned = "".join(" " if ord(ch) < 32 or ord(ch) == 127 else ch for ch in text)
    return cleaned.strip()


def pointer_line(title: str, target: str, hook: str) -> str:
    """``- [Title](target) — hook``, made safe to hold on one Markdown line.

    Newlines and other control characters become spaces; brackets in the
    title (and in a hook that holds a link) are escaped with a backslash so the
    line holds exactly one link; a target with blanks or parentheses is
    wrapped in ``<...>``. An empty hook gives ``- [Title](target)``.
    """
    line, whole = _pointer_parts(_escape_link_syntax(_one_line(title)), target, hook)
    if "`" in line and mask_code_spans(whole)[: len(line)] != _masked_title(line):
        ticked = _escape_link_syntax(_one_line(title)).replace("`", "&#96;")
        line, whole = _pointer_parts(ticked, target, hook)
    return whole


def _pointer_parts(safe_title: str, target: str, hook: str) -> tuple[str, str]:
    """``(link part, whole line)`` for a title already made safe."""
    safe_target = _one_line(target)
    if any(ch in _TARGET_NEEDS_ANGLES for ch in safe_target):
        safe_target = "<" + safe_target.replace("<", "%3C").replace(">", "%3E") + ">"
    safe_hook = _one_line(hook)
    if any(_may_point_to_a_note(link) for link in find_links(safe_hook)):
        safe_hook = _escape_link_syntax(safe_hook)
    line = f"- [{safe_title}]({safe_target})"
    return line, f"{line} — {safe_hook}" if safe_hook else line


def _masked_title(line: str) -> str:
    """The link part ``- [title](target)`` with only the title's own code spans masked:
    what the doctor must see of it."""
    end = line.rfind("](")
    return "- [" + mask_code_spans(line[3:end]) + line[end:]


def _may_point_to_a_note(link: Link) -> bool:
    """A wikilink, or an inline link that is not a web address, a mail address or an anchor."""
    target = link.target.strip().lower()
    return link.form != INLINE or not (target.startswith(("#", "mailto:")) or "://" in target)


def _escape_link_syntax(text: str) -> str:
    """``text`` with ``\\``, ``[`` and ``]`` backslash-escaped, and ``(`` after ``]``."""
    out = []
    previous = ""
    for ch in text:
        if ch in "\\[]" or (ch == "(" and previous == "]"):
            out.append("\\")
        out.append(ch)
        previous = ch
    return "".join(out)


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its own ending (``\\n`` only separates)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def line_ending(text: str) -> str:
    """The text's own line ending: that of its first line, ``\\n`` when it has none."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _ending_of(line: str) -> str:
    """The ending of one line from :func:`split_lines`: ``\\r\\n``, ``\\n``, ``\\r`` or ``""``."""
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    return "\r" if line.endswith("\r") else ""


def _content_of(line: str) -> str:
    """One line without its ending."""
    return line[: len(line) - len(_ending_of(line))]


def _check_number(lines: list[str], number: int) -> None:
    if not 1 <= number <= len(lines):
        raise ValueError(f"line {number} is not in the index (it has {len(lines)} lines)")


def _check_single_line(line: str) -> None:
    if "\n" in line or "\r" in line:
        raise ValueError("an index line cannot hold a line break")


def section_block(text: str, section: str) -> tuple[int, int] | None:
    """``(heading line, last line)`` of the first ``## section`` block, else ``None``.

    The heading matches case-insensitively at any level, as the doctor reads
    sections; the block runs to the line before the next heading (or the end).
    """
    wanted = section.strip().lower()
    start = None
    for entry in classify_index(text):
        if entry.kind != HEADING:
            continue
        if start is not None:
            return start, entry.number - 1
        title = heading_title(entry.text)
        if title is not None and title.strip().lower() == wanted:
            start = entry.number
    if start is None:
        return None
    return start, len(split_lines(text))


def _insert_after(lines: list[str], after: int, content: str, ending: str) -> list[str]:
    """``content`` inserted as a new line after line ``after`` (0 = at the top)."""
    lines = list(lines)
    if after == len(lines):  # appending: the old last line may lack its ending
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += ending
            return [*lines, content]
        return [*lines, content + ending]
    return [*lines[:after], content + ending, *lines[after:]]


def add_pointer(text: str, section: str, line: str) -> str:
    """``line`` appended at the end of the ``## section`` block.

    It goes after the block's last non-blank line (before the blank lines that
    close the block). Without such a heading, a ``## section`` block is added
    at the end of the text, after one blank line. The text's own line ending
    is used.
    """
    _check_single_line(line)
    ending = line_ending(text)
    lines = split_lines(text)
    block = section_block(text, section)
    if block is not None:
        start, last = block
        while last > start and not _content_of(lines[last - 1]).strip():
            last -= 1
        return "".join(_insert_after(lines, last, line, ending))
    added = list(lines)
    if added and _content_of(added[-1]).strip():
        added = _insert_after(added, len(added), "", ending)
    added = _insert_after(added, len(added), f"## {section}", ending)
    return "".join(_insert_after(added, len(added), line, ending))


def remove_lines(text: str, numbers: Iterable[int]) -> str:
    """The text without the lines ``numbers`` (1-based; repeats allowed).

    When the text's last line has no ending and is removed, the line that
    becomes last loses its ending too, so adding and removing round-trip.
    """
    lines = split_lines(text)
    dropped = set(numbers)
    for number in dropped:
        _check_number(lines, number)
    kept = [line for number, line in enumerate(lines, 1) if number not in dropped]
    if lines and not _ending_of(lines[-1]) and len(lines) in dropped and kept:
        kept[-1] = _content_of(kept[-1])
    return "".join(kept)


def replace_line(text: str, number: int, new: str) -> str:
    """Line ``number``'s content replaced by ``new``; its line ending is kept."""
    _check_single_line(new)
    lines = split_lines(text)
    _check_number(lines, number)
    lines[number - 1] = new + _ending_of(lines[number - 1])
    return "".join(lines)


def move_line(text: str, number: int, section: str) -> str:
    """Line ``number`` moved to the end of ``## section`` (added as :func:`add_pointer` adds)."""
    lines = split_lines(text)
    _check_number(lines, number)
    content = _content_of(lines[number - 1])
    return add_pointer(remove_lines(text, [number]), section, content)
