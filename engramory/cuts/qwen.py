"""Qwen Code's cut of its managed auto-memory ``MEMORY.md`` (field-2026-12.md §1.1 and §1.2
"Qwen Code": ``packages/core/src/memory/index-budget.ts`` @03aa0995 and the prompt builder that
calls it when the index is loaded, ``truncateManagedAutoMemoryIndex``).

At load the host normalises line endings, trims the text, and when it is over
200 lines or 25,000 UTF-16 units applies ``trimIndexToBudget``: of the first
200 lines it keeps, in one pass, every line of at most 150 units that still
fits in the 25,000-unit budget (a ``\\n`` between kept lines counts one), then
in a second pass any longer line that still fits, and restores file order. So
a long line near the top can be dropped while shorter lines below it load: the
cut is not a tail cut. A trailing warning the host's own writer appended is not
counted against the entries.
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

HOST = "qwen"
MAX_LINES = 200
MAX_UNITS = 25_000
SHORT_LINE = 150
WRITER_NOTICE = (
    "\n\n> WARNING: MEMORY.md is too large; only part of it was written. Keep index entries "
    "concise and move detail into topic files."
)


def trim_to_budget(lines: list[str]) -> set[int]:
    """The 0-based indexes of ``lines`` that ``trimIndexToBudget`` keeps."""
    entries = lines[:MAX_LINES]
    sizes = [utf16_units(line) for line in entries]
    if sum(sizes) + max(len(entries) - 1, 0) <= MAX_UNITS:
        return set(range(len(entries)))
    kept: set[int] = set()
    size = 0
    for limit in (SHORT_LINE, MAX_UNITS):
        for index, length in enumerate(sizes):
            if index in kept or length > limit:
                continue
            grown = size + (1 if kept else 0) + length
            if grown > MAX_UNITS:
                continue
            size = grown
            kept.add(index)
    return kept


def cut(text: str) -> Cut:
    """Qwen Code's cut of index ``text`` (BOM already dropped)."""
    normalised = text.replace("\r\n", "\n")
    raw_lines = text.split("\n")
    lead = len(normalised) - len(normalised.lstrip(JS_WHITESPACE))
    content = normalised.strip(JS_WHITESPACE)
    first = normalised.count("\n", 0, lead)
    entries_text = content[: -len(WRITER_NOTICE)] if content.endswith(WRITER_NOTICE) else content
    lines = entries_text.split("\n") if entries_text else []
    used = utf16_units(content)
    over = len(content.split("\n")) > MAX_LINES or used > MAX_UNITS
    kept = trim_to_budget(lines) if over else set(range(len(lines)))
    dropped = [first + i + 1 for i in range(len(lines)) if i not in kept]
    return Cut(
        HOST,
        UTF16_UNITS,
        MAX_UNITS,
        used,
        f"trimmed; over {MAX_LINES} lines or {MAX_UNITS:,} UTF-16 units, the first {MAX_LINES} "
        f"lines are kept shortest-first (lines of at most {SHORT_LINE} units before longer "
        "ones) while they fit, then put back in file order: not a tail cut",
        nonblank_after(raw_lines, dropped),
        max(0, used - MAX_UNITS),
    )


def measure(data: bytes, name: str, version: tuple[int, ...] | None = None) -> Cut:
    """The registry's entry point: the file's bytes and name."""
    return cut(decoded(data))
