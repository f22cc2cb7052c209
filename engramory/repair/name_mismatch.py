"""``name-mismatch`` (and a missing or empty ``name``): set ``name`` to the file's slug."""

from __future__ import annotations

from collections.abc import Iterator

from engramory.doctor.model import Finding
from engramory.repair import NAME_MISMATCH
from engramory.repair.model import NoteInput

ID = NAME_MISMATCH


def fixes(note: NoteInput, findings: list[Finding]) -> Iterator[tuple[str, str, Finding]]:
    """``(key, value, finding)`` for each of the note's findings this fix repairs (the plan
    hands it those whose rule names it: ``name-mismatch``'s, ``missing-field``'s about
    ``name``)."""
    for finding in findings:
        yield ("name", note.slug, finding)
