"""Hermes' ``MEMORY.md`` and ``USER.md`` (field-2026-12.md §1.1 "Hermes"; the host's
``tools/memory_tool.py``: ``ENTRY_DELIMITER``, ``_read_file``, ``_char_count``).

The host splits the file at ``\\n§\\n``, strips each entry, drops empty ones and
then duplicates (the first copy stays), and counts the characters (Python code
points) of the entries joined again by ``\\n§\\n``, against 2,200 for
``MEMORY.md`` and 1,375 for ``USER.md``. Nothing is cut at load; over the cap
its ``memory`` tool refuses every ``add``, so the entries that do not fit are
the newest ones: from the first entry that takes the count past the cap to the
last. Those are what "falls off" here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engramory.cuts.model import CHARACTERS, Cut, decoded

HOST = "hermes"
DELIMITER = "\n§\n"
MEMORY_CAP = 2_200
USER_CAP = 1_375


@dataclass(frozen=True)
class Entry:
    """One entry as the host keeps it, with the 1-based line its text starts on."""

    line: int
    text: str


def cap_for(name: str) -> int:
    """The host's cap for the file called ``name`` (``USER.md`` or anything else)."""
    return USER_CAP if name.upper() == "USER.MD" else MEMORY_CAP


def every_entry(text: str) -> Iterator[Entry]:
    """Every non-empty entry in file order, duplicates included."""
    start = 0
    line, counted = 1, 0  # the line number at offset ``counted``, kept as the scan moves on
    while start <= len(text):
        end = text.find(DELIMITER, start)
        end = len(text) if end < 0 else end
        piece = text[start:end]
        stripped = piece.strip()
        if stripped:
            at = start + len(piece) - len(piece.lstrip())
            line += text.count("\n", counted, at)
            counted = at
            yield Entry(line, stripped)
        start = end + len(DELIMITER)


def entries(text: str) -> tuple[list[Entry], int]:
    """The entries the host loads, in order, and how many duplicates it dropped."""
    found: list[Entry] = []
    seen: set[str] = set()
    duplicates = 0
    for entry in every_entry(text):
        if entry.text in seen:
            duplicates += 1
        else:
            seen.add(entry.text)
            found.append(entry)
    return found, duplicates


def over_cap(kept: list[Entry], cap: int) -> list[Entry]:
    """The newest entries that do not fit: from the one that crosses ``cap`` to the last."""
    size = 0
    for index, entry in enumerate(kept):
        size += len(entry.text) + (len(DELIMITER) if index else 0)
        if size > cap:
            return kept[index:]
    return []


def cut(text: str, name: str = "MEMORY.md") -> Cut:
    """Hermes' count of ``text`` (the file called ``name``) against its cap."""
    kept, duplicates = entries(text)
    cap = cap_for(name)
    used = len(DELIMITER.join(entry.text for entry in kept))
    extra = f"; {duplicates} duplicate entries dropped at load" if duplicates else ""
    return Cut(
        HOST,
        CHARACTERS,
        cap,
        used,
        f"characters of the §-separated entries, duplicates dropped, against {cap:,} for "
        f"{name}; over it the host refuses every add (nothing is cut at load){extra}",
        tuple(entry.line for entry in over_cap(kept, cap)),
        max(0, used - cap),
        cut_at_load=False,
    )


def measure(data: bytes, name: str, version: tuple[int, ...] | None = None) -> Cut:
    """The registry's entry point: the file's bytes and name."""
    return cut(decoded(data), name)
