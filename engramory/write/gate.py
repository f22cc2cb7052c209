"""Would a note pass the doctor, and the live notes of a store: the checks every writer makes.

``new``, the MCP server's ``memory_write`` and ``memory_update`` and ``import``
ask :func:`doctor_gate` before writing a note (its errors refuse the write, its
warnings are said), and read the store's other notes through :func:`live_notes`
(bounded reads, never outside the store).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date

from engramory.doctor.model import ERROR, WARNING
from engramory.doctor.profiles import Profile
from engramory.doctor.rules.duplicates import likeness, text_parts
from engramory.secrets.excerpts import excerpt
from engramory.store.disk import NOTE_READ_LIMIT, READ_OK, read_file, walk
from engramory.store.frontmatter import parse_bytes
from engramory.util.errors import EngramoryError
from engramory.write import notewrite


@dataclass
class LiveNote:
    """A live note of the store, read whole (bounded)."""

    rel: str
    data: bytes

    @property
    def description(self) -> str:
        """The note's ``description`` field (empty when it has none)."""
        return parse_bytes(self.data).fields.get("description", "")


def live_notes(root: str) -> Iterator[LiveNote]:
    """Every readable live note of the store, in the walk's order (bounded reads, never
    outside it)."""
    for note in walk(root).notes:
        if note.status != READ_OK:
            continue
        read = read_file(note.path(root), NOTE_READ_LIMIT)
        if read.status == READ_OK and read.data is not None:
            yield LiveNote(note.rel, read.data)


def near_duplicates(data: bytes, neighbours: Iterable[LiveNote]) -> list[str]:
    """The live notes the doctor's ``near-duplicate`` rule would pair with the note ``data``."""
    mine = text_parts(data)
    return [n.rel for n in neighbours if likeness(mine, text_parts(n.data)) is not None]


def doctor_gate(
    rel: str,
    data: bytes,
    today: date,
    profile: Profile,
    allowed: tuple[str, ...],
    before: bytes | None = None,
) -> list[str]:
    """The doctor's warnings about the note ``rel`` would have (``path[:line]: message
    [rule]``); refuses (exit 1) when it would have an error. ``before``: the note as it is
    now, whose errors a rewrite may keep (only new errors refuse it)."""
    issues = notewrite.note_issues(rel, data, today, profile, allowed)
    broken = set()
    if before is not None:
        old = notewrite.note_issues(rel, before, today, profile, allowed)
        broken = {i.rule for i in old if i.severity == ERROR}
    errors = [i for i in issues if i.severity == ERROR and i.rule not in broken]
    if errors:
        after = "" if before is None else " after the update"
        raise EngramoryError(
            f"{rel} would not pass the doctor{after}: "
            + "; ".join(f"{excerpt(i.message, 200)} [{i.rule}]" for i in errors)
        )
    return [
        f"{rel}{'' if i.line is None else f':{i.line}'}: {i.message} [{i.rule}]"
        for i in issues
        if i.severity == WARNING
    ]
