"""Claude Code's cut of its ``MEMORY.md`` index (field-2026-12.md §1.1 and §1.2 "Claude Code").

The host reads the index, trims whitespace at both ends (JavaScript ``trim``),
keeps the first 200 lines, then, when what is left is over 25,000 UTF-16 code
units, cuts at the last ``\\n`` at or before unit 25,000 (or, with no such
``\\n``, at unit 25,000 itself, inside the first line): claude-native-memory.md §2.
The cut is a tail cut, so the newest entries, appended at the bottom, go first.

Since 2.1.211 ("limit measures loaded content only") the frontmatter block and
HTML block comments are not counted: they are taken out before the measure.
We take them out as whole lines (a comment from the line that opens ``<!--`` to
the line that holds ``-->``, outside code fences, as CommonMark reads an HTML
block); the lines left are joined as if the removed ones were never there.
Before 2.1.211, or when the version is not known, everything counts, which is
never looser than the host.
"""

from __future__ import annotations

from engramory.cuts.model import (
    JS_WHITESPACE,
    UTF16_UNITS,
    Cut,
    decoded,
    nonblank_after,
    utf16_units,
)
from engramory.store import frontmatter, markdown

HOST = "claude"
MAX_LINES = 200
MAX_UNITS = 25_000
STRIPS_COMMENTS_SINCE = (2, 1, 211)


def strips_comments(version: tuple[int, ...] | None) -> bool:
    """Whether a Claude Code of ``version`` leaves frontmatter and block comments uncounted."""
    return version is not None and version >= STRIPS_COMMENTS_SINCE


def uncounted_lines(text: str) -> set[int]:
    """1-based numbers of the frontmatter lines and HTML block-comment lines of ``text``."""
    found: set[int] = set()
    parsed = frontmatter.parse(text)
    if parsed.present and parsed.closed:
        found.update(range(1, parsed.fence_lines[-1] + 1))
    for line in markdown.classify_index(text):
        if line.kind == markdown.COMMENT and line.number not in found:
            found.add(line.number)
    return found


def loaded_prefix(lines: list[str]) -> int:
    """How many of the trimmed ``lines`` the host loads in full (the 200-line, then unit cut)."""
    kept = lines[:MAX_LINES]
    if sum(utf16_units(line) for line in kept) + len(kept) - 1 <= MAX_UNITS:
        return len(kept)
    newline_at = -1  # the unit index of the ``\n`` that ends the line just counted
    loaded = 0
    for line in kept[:-1]:
        newline_at += utf16_units(line) + 1
        if newline_at > MAX_UNITS:
            break
        loaded += 1
    return loaded


def cut(text: str, version: tuple[int, ...] | None = None) -> Cut:
    """Claude Code's cut of index ``text`` (BOM already dropped) for host ``version``."""
    raw_lines = text.split("\n")
    skipped = uncounted_lines(text) if strips_comments(version) else set()
    counted = [n for n in range(1, len(raw_lines) + 1) if n not in skipped]
    joined = "\n".join(raw_lines[n - 1] for n in counted)
    lead = len(joined) - len(joined.lstrip(JS_WHITESPACE))
    content = joined.strip(JS_WHITESPACE)
    first = joined.count("\n", 0, lead)  # index in ``counted`` of the first loaded line
    lines = content.split("\n") if content else []
    loaded = loaded_prefix(lines)
    dropped = [counted[first + i] for i in range(loaded, len(lines))]
    used = utf16_units(content)
    rule = (
        "frontmatter and HTML block comments not counted (2.1.211 and later)"
        if skipped or strips_comments(version)
        else "frontmatter and HTML comments counted (before 2.1.211, or version not given)"
    )
    return Cut(
        HOST,
        UTF16_UNITS,
        MAX_UNITS,
        used,
        f"trimmed, then the first {MAX_LINES} lines, then {MAX_UNITS:,} UTF-16 units cut at "
        f"the last line end; {rule}",
        nonblank_after(raw_lines, dropped),
        max(0, used - MAX_UNITS),
    )


def measure(data: bytes, name: str, version: tuple[int, ...] | None = None) -> Cut:
    """The registry's entry point: the file's bytes and name."""
    return cut(decoded(data), version)
