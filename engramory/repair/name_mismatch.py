"""``name-mismatch`` (and a missing or empty ``name``): set ``name`` to the file's slug."""

from __future__ import annotations

from collections.abc import Iterator

from engramory.doctor.model import Finding
from engramory.repair import MISSING_FIELD, NAME_MISMATCH
from engramory.repair.model import NoteInput

ID = NAME_MISMATCH


def _is_missing_name(finding: Finding) -> bool:
    return finding.rule == MISSING_FIELD and finding.message.startswith("'name' ")


def fixes(note: NoteInput, findings: list[Finding]) -> Iterator[tuple[str, str, Finding]]:
    """``(key, value, finding)`` for each finding of the note this fix repairs."""
    for finding in findings:
        if finding.rule == NAME_MISMATCH or _is_missing_name(finding):
            yield ("name", note.slug, finding)
