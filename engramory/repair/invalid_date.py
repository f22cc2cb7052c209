"""``invalid-date``: a date written unambiguously in another form, rewritten as YYYY-MM-DD.

Only year-first forms are unambiguous: ``2026/03/01``, ``2026-3-1``,
``2026.03.01`` (one separator, used twice, 1-2 digit month and day) and
``20260301``. Anything else (``01/03/2026``, ``2026-02-30``) is left to a person.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from engramory.doctor.model import Finding
from engramory.repair import INVALID_DATE
from engramory.repair.model import NoteInput

ID = INVALID_DATE
DATE_KEYS = ("created", "updated")


def _ascii_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def normalise(value: str) -> str | None:
    """``value`` as YYYY-MM-DD when it is an unambiguous real date in another form."""
    value = value.strip()
    if len(value) == 8 and _ascii_digits(value):
        parts = [value[:4], value[4:6], value[6:]]
    else:
        separators = [sep for sep in "-/." if sep in value]
        if len(separators) != 1:
            return None
        parts = value.split(separators[0])
        if len(parts) != 3 or len(parts[0]) != 4 or not all(1 <= len(p) <= 2 for p in parts[1:]):
            return None
    if not all(_ascii_digits(part) for part in parts):
        return None
    try:
        found = date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return None
    rendered = found.isoformat()
    return rendered if rendered != value else None


def key_of(finding: Finding) -> str | None:
    """The date key a date finding is about (the key its rule names, :attr:`Finding.key`)."""
    return finding.key if finding.key in DATE_KEYS else None


def fixes(note: NoteInput, findings: list[Finding]) -> Iterator[tuple[str, str, Finding]]:
    """``(key, value, finding)`` for each invalid date that has one unambiguous reading."""
    fields = note.frontmatter().fields
    for finding in findings:
        if finding.rule != INVALID_DATE:
            continue
        key = key_of(finding)
        fixed = normalise(fields.get(key, "")) if key else None
        if key and fixed:
            yield (key, fixed, finding)
