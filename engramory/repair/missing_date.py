"""``missing-date``: ``created`` from the first commit of the note, ``updated`` from the last.

The dates come from outside the note (git, or the file's modification time
with ``--dates-from mtime``), found by the command; none found means the
finding stays. A date is never made up, and ``updated`` is never set earlier
than an existing ``created`` (that would trade one finding for ``date-order``).
"""

from __future__ import annotations

from collections.abc import Iterator

from engramory.doctor.model import Finding
from engramory.repair import MISSING_DATE
from engramory.repair.invalid_date import key_of
from engramory.repair.model import NoteInput

ID = MISSING_DATE


def fixes(note: NoteInput, findings: list[Finding]) -> Iterator[tuple[str, str, Finding]]:
    """``(key, value, finding)`` for each missing date the note's history gives."""
    fields = note.frontmatter().fields
    wanted = {key_of(f): f for f in findings if f.rule == MISSING_DATE and key_of(f)}
    values = {"created": note.dates.first, "updated": note.dates.last}
    created = values["created"] if "created" in wanted else fields.get("created", "").strip()
    updated = values["updated"] if "updated" in wanted else fields.get("updated", "").strip()
    if created and updated and len(created) == len(updated) == 10 and updated < created:
        return  # a history older than the note's own created date: a person decides
    for key, finding in wanted.items():
        value = values[key]
        if value:
            yield (key, value, finding)
