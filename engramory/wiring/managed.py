"""Engramory's managed blocks in shared rules files, and its ``.gitignore`` entry: pure text.

A managed block is delimited by whole-line markers (``<!-- BEGIN ENGRAMORY
CLAUDE -->`` ... ``<!-- END ENGRAMORY CLAUDE -->``; indentation and trailing
spaces around a marker are tolerated, a marker quoted inside a sentence or
inside a fenced code block is not a marker). Installing appends the block in
a way that removing it gives back the file's exact previous bytes -- every
line's own ending (LF, CRLF or a lone CR, mixed or not), a BOM and the
presence of a final newline included -- and re-installing replaces the block
in place, byte for byte. Markers that are missing one half, duplicated or in
the wrong order are *damaged*: nothing is written and the caller reports them,
because text deleted on a guess cannot be recovered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STORE_IGNORE_COMMENT = "# Engramory memory store (plain text, machine-local: never commit it)"
ABSENT = "absent"
PRESENT = "present"
DAMAGED = "damaged"


@dataclass(frozen=True)
class BlockState:
    """Where a host's block is in a text: ``begin`` and ``end`` index :func:`split_lines`."""

    status: str
    begin: int = -1
    end: int = -1
    detail: str = ""


def newline_of(text: str) -> str:
    """A ``.gitignore``'s line ending: CRLF when its first line break is CRLF, else LF."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _lines(text: str) -> list[str]:
    """Lines without their endings (a final newline does not start an extra line)."""
    body = text[:-1] if text.endswith("\n") else text
    return [line[:-1] if line.endswith("\r") else line for line in body.split("\n")] if text else []


# --- rules files: every line keeps its own ending ------------------------------------------

_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
_BOM = "\ufeff"

Line = tuple[str, str]  # (text, its ending: "\n", "\r\n", "\r" or "" for a last line without one)


class UnclosedFenceError(ValueError):
    """A code fence runs to the end of the file: a block appended there would be code."""


def split_lines(text: str) -> list[Line]:
    """``text`` as lines with their own endings (LF, CRLF or a lone CR); joining gives it back."""
    parts = _LINE_BREAK.split(text)
    lines = [(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
    if parts[-1]:
        lines.append((parts[-1], ""))
    return lines


def _join(lines: list[Line]) -> str:
    return "".join(text + ending for text, ending in lines)


def dominant_newline(lines: list[Line]) -> str:
    """The most frequent line ending (LF on a tie, and for a file without any)."""
    counts = {"\n": 0, "\r\n": 0, "\r": 0}
    for _, ending in lines:
        if ending:
            counts[ending] += 1
    return max(counts, key=lambda ending: counts[ending])


def _texts(lines: list[Line]) -> list[str]:
    """The lines' text, a leading BOM left out (it is not part of the first line's content)."""
    texts = [text for text, _ in lines]
    if texts:
        texts[0] = texts[0].lstrip(_BOM)
    return texts


def _fenced(lines: list[Line]) -> tuple[list[bool], int]:
    """Which lines belong to a fenced code block, and the line of a fence left open (or -1).

    CommonMark's rule: a fence opens with three or more backticks or tildes
    indented at most three spaces (a backtick fence's info string holds no
    backtick) and closes with a run of the same character at least as long,
    followed by nothing but spaces; an unclosed fence runs to the end.
    """
    inside: list[bool] = []
    opened, char, length = -1, "", 0
    for number, text in enumerate(_texts(lines)):
        if opened < 0:
            match = _FENCE_OPEN.match(text)
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                opened, char, length = number, match.group(1)[0], len(match.group(1))
            inside.append(opened >= 0)
            continue
        inside.append(True)
        close = _FENCE_CLOSE.fullmatch(text)
        if close and close.group(1)[0] == char and len(close.group(1)) >= length:
            opened = -1
    return inside, opened


def _marker_lines(lines: list[Line], marker: str) -> list[int]:
    """The lines that are ``marker`` as a whole line, outside code fences."""
    inside, _ = _fenced(lines)
    return [
        number
        for number, text in enumerate(_texts(lines))
        if text.strip() == marker and not inside[number]
    ]


def _state(lines: list[Line], begin: str, end: str) -> BlockState:
    begins, ends = _marker_lines(lines, begin), _marker_lines(lines, end)
    if not begins and not ends:
        return BlockState(ABSENT)
    if len(begins) == 1 and len(ends) == 1 and begins[0] < ends[0]:
        return BlockState(PRESENT, begins[0], ends[0])
    where = ", ".join(
        [f"BEGIN on line {i + 1}" for i in begins] + [f"END on line {i + 1}" for i in ends]
    )
    return BlockState(DAMAGED, detail=where)


def find_block(text: str, begin: str, end: str) -> BlockState:
    """Locate the block whose whole-line markers are ``begin`` and ``end`` (outside code fences)."""
    return _state(split_lines(text), begin, end)


def install_block(text: str, block: str, begin: str, end: str) -> str:
    """``text`` with the block installed or refreshed. Raises ``ValueError`` on damaged markers.

    ``block`` is the whole block, markers included, ``\\n``-separated, with no
    final newline. A new block is written with the file's dominant line ending
    (LF for a new file); a block already there is refreshed with the ending its
    BEGIN line has, and its END line keeps its own, so re-installing is
    byte-identical. Every other line is left as it is, ending included.
    Raises :class:`UnclosedFenceError` when the block would land inside a code
    fence that is never closed.
    """
    lines = split_lines(text)
    state = _state(lines, begin, end)
    if state.status == DAMAGED:
        raise ValueError(f"damaged Engramory markers ({state.detail})")
    block_lines = block.split("\n")
    if state.status == PRESENT:
        nl = lines[state.begin][1]
        new = [(line, nl) for line in block_lines[:-1]] + [(block_lines[-1], lines[state.end][1])]
        return _join(lines[: state.begin] + new + lines[state.end + 1 :])
    _, opened = _fenced(lines)
    if opened >= 0:
        raise UnclosedFenceError(
            f"a code fence opened on line {opened + 1} that is never closed (the block "
            "would be appended inside it)"
        )
    nl = dominant_newline(lines)
    if lines and lines[-1][1] == "\r" and nl == "\n":
        nl = "\r"  # an LF after the final lone CR would fuse with it into one CRLF
    new = [(line, nl) for line in block_lines]
    if not lines:
        return _join(new)
    if lines[-1][1]:
        return _join([*lines, ("", nl), *new])
    new[-1] = (block_lines[-1], "")
    return _join([*lines[:-1], (lines[-1][0], nl), ("", nl), *new])


def remove_block(text: str, begin: str, end: str) -> str:
    """``text`` without the block: the exact inverse of :func:`install_block` when it appended.

    Raises ``ValueError`` on damaged markers, ``LookupError`` when there is no block.
    """
    lines = split_lines(text)
    state = _state(lines, begin, end)
    if state.status == DAMAGED:
        raise ValueError(f"damaged Engramory markers ({state.detail})")
    if state.status == ABSENT:
        raise LookupError("no Engramory block")
    before, after = lines[: state.begin], lines[state.end + 1 :]
    if not after:
        # The block is last: undo "C + NL + block + NL" or "C + NL + NL + block".
        if before and before[-1][0] == "":
            before = before[:-1]
            if before and not lines[state.end][1]:
                before[-1] = (before[-1][0], "")
        return _join(before)
    # Content follows the block: drop it with one adjacent blank line.
    if before and before[-1][0] == "":
        before = before[:-1]
    elif after[0][0] == "":
        after = after[1:]
    return _join(before + after)


# The first line of a ``.gitignore`` init created holding only rules uninstall takes back:
# uninstall deletes the file when this line is all that is left (never a file the user had).
CREATED_MARKER = (
    "# Engramory: init created this file; uninstall deletes it when nothing else is left"
)


def mark_created(text: str) -> str:
    """A new ignore file's ``text`` with :data:`CREATED_MARKER` as its first line."""
    return CREATED_MARKER + (newline_of(text) if text else "\n") + text


def only_created_marker(text: str) -> bool:
    """Whether ``text`` holds nothing but :data:`CREATED_MARKER` (and blank lines)."""
    return [line.strip() for line in _lines(text) if line.strip()] == [CREATED_MARKER]


def gitignore_entry(relative: str) -> str:
    """The ignore line for a store at ``relative`` (``/``-separated) below the ignore file."""
    return "/" + relative.strip("/") + "/"


def has_gitignore_entry(text: str, relative: str) -> bool:
    """Whether an equivalent line already ignores the store (``/x/``, ``x/``, ``/x``, ``x``...)."""
    wanted = relative.strip("/")
    for line in _lines(text):
        entry = line.strip()
        if not entry or entry.startswith(("#", "!")):
            continue
        for suffix in ("/**", "/*", "/"):
            if entry.endswith(suffix):
                entry = entry[: -len(suffix)]
                break
        if entry.lstrip("/") == wanted:
            return True
    return False


def add_gitignore_entry(text: str, relative: str, comment: str) -> str:
    """``text`` with the store's ignore entry (and a comment line) appended."""
    return add_ignore_rule(text, gitignore_entry(relative), comment)


def ignore_store(text: str, relative: str) -> tuple[str, str]:
    """``(text, what was done)``: ``text`` with the entry that ignores the store at
    ``relative`` (and :data:`STORE_IGNORE_COMMENT` above it), unchanged when a line already
    ignores it. What ``engramory init`` and an import that creates a store both add."""
    if has_gitignore_entry(text, relative):
        return text, f"already ignores {relative}/"
    new = add_gitignore_entry(text, relative, STORE_IGNORE_COMMENT)
    return new, f"ignore {gitignore_entry(relative)}"


def has_ignore_rule(text: str, rule: str, comment: str) -> bool:
    """Whether ``rule`` is present with Engramory's ``comment`` line directly above it."""
    lines = _lines(text)
    wanted = rule.strip("/")
    return any(
        line.strip().strip("/") == wanted and i > 0 and lines[i - 1].strip() == comment
        for i, line in enumerate(lines)
    )


def add_ignore_rule(text: str, rule: str, comment: str) -> str:
    """``text`` with ``comment`` and ``rule`` appended (a blank line before them)."""
    nl = newline_of(text) if text else "\n"
    addition = f"{comment}{nl}{rule}{nl}"
    if not text:
        return addition
    if not text.endswith("\n"):
        text += nl
    return text + nl + addition


def remove_ignore_rule(text: str, rule: str, comment: str) -> str:
    """``text`` without Engramory's rule, its comment and the blank line before them.

    A rule without Engramory's comment directly above is the user's and stays.
    """
    nl = newline_of(text)
    lines = _lines(text)
    wanted = rule.strip("/")
    for i, line in enumerate(lines):
        if line.strip().strip("/") == wanted and i > 0 and lines[i - 1].strip() == comment:
            start = i - 1
            if start > 0 and not lines[start - 1].strip():
                start -= 1
            kept = lines[:start] + lines[i + 1 :]
            return nl.join(kept) + (nl if kept and text.endswith("\n") else "")
    return text
