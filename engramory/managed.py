"""Engramory's managed blocks in shared rules files, and its ``.gitignore`` entry: pure text.

A managed block is delimited by whole-line markers (``<!-- BEGIN ENGRAMORY
CLAUDE -->`` ... ``<!-- END ENGRAMORY CLAUDE -->``; indentation and trailing
spaces around a marker are tolerated, a marker quoted inside a sentence is
not a marker). Installing appends the block in a way that removing it gives
back the file's exact previous bytes -- line endings (LF or CRLF) and the
presence of a final newline included -- and re-installing replaces the block
in place, byte for byte. Markers that are missing one half, duplicated or in
the wrong order are *damaged*: nothing is written and the caller reports them,
because text deleted on a guess cannot be recovered.
"""

from __future__ import annotations

from dataclasses import dataclass

ABSENT = "absent"
PRESENT = "present"
DAMAGED = "damaged"


@dataclass(frozen=True)
class BlockState:
    """Where a host's block is in a text: ``lines`` are 0-based line numbers."""

    status: str
    begin: int = -1
    end: int = -1
    detail: str = ""


def newline_of(text: str) -> str:
    """The file's line ending: CRLF when its first line break is CRLF, else LF."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _lines(text: str) -> list[str]:
    """Lines without their endings (a final newline does not start an extra line)."""
    body = text[:-1] if text.endswith("\n") else text
    return [line[:-1] if line.endswith("\r") else line for line in body.split("\n")] if text else []


def find_block(text: str, begin: str, end: str) -> BlockState:
    """Locate the block whose whole-line markers are ``begin`` and ``end``."""
    stripped = [line.strip() for line in _lines(text)]
    begins = [i for i, line in enumerate(stripped) if line == begin]
    ends = [i for i, line in enumerate(stripped) if line == end]
    if not begins and not ends:
        return BlockState(ABSENT)
    if len(begins) == 1 and len(ends) == 1 and begins[0] < ends[0]:
        return BlockState(PRESENT, begins[0], ends[0])
    where = ", ".join(
        [f"BEGIN on line {i + 1}" for i in begins] + [f"END on line {i + 1}" for i in ends]
    )
    return BlockState(DAMAGED, detail=where)


def install_block(text: str, block: str, begin: str, end: str) -> str:
    """``text`` with the block installed or refreshed. Raises ``ValueError`` on damaged markers.

    ``block`` is the whole block, markers included, ``\\n``-separated, with no
    final newline; it is written with the file's own line ending.
    """
    state = find_block(text, begin, end)
    if state.status == DAMAGED:
        raise ValueError(f"damaged Engramory markers ({state.detail})")
    nl = newline_of(text) if text else "\n"
    block_text = block.replace("\n", nl)
    if state.status == PRESENT:
        lines = _lines(text)
        new_lines = lines[: state.begin] + block_text.split(nl) + lines[state.end + 1 :]
        final = nl if text.endswith("\n") else ""
        return nl.join(new_lines) + final
    if not text:
        return block_text + nl
    if text.endswith("\n"):
        return text + nl + block_text + nl
    return text + nl + nl + block_text


def remove_block(text: str, begin: str, end: str) -> str:
    """``text`` without the block: the exact inverse of :func:`install_block` when it appended.

    Raises ``ValueError`` on damaged markers, ``LookupError`` when there is no block.
    """
    state = find_block(text, begin, end)
    if state.status == DAMAGED:
        raise ValueError(f"damaged Engramory markers ({state.detail})")
    if state.status == ABSENT:
        raise LookupError("no Engramory block")
    nl = newline_of(text)
    lines = _lines(text)
    before, after = lines[: state.begin], lines[state.end + 1 :]
    ended = text.endswith("\n")
    if not after:
        # The block is last: undo "C + NL + block + NL" or "C + NL + NL + block".
        if not before:
            return ""
        if before[-1] == "":
            before = before[:-1]
            return nl.join(before) + (nl if ended else "")
        return nl.join(before) + nl
    # Content follows the block: drop it with one adjacent blank line.
    if before and before[-1] == "":
        before = before[:-1]
    elif after and after[0] == "":
        after = after[1:]
    return nl.join(before + after) + (nl if ended else "")


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
