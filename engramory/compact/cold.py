"""Step 4 (``--archive-cold``): archive the coldest notes until the index fits.

Cold is by when a note last changed, never by its name; a note the index does not point
to is never archived (taking it out of the store saves no index line).
"""

from __future__ import annotations

from datetime import date, datetime

from engramory.compact.model import COLD, ColdCandidate, StepResult, StoreFacts, within

EXEMPT = ("user", "feedback")


def day_of(value: str | None) -> str:
    """The ``YYYY-MM-DD`` a field starts with (``modified`` may be a timestamp);
    anything else sorts as the oldest."""
    try:
        return date.fromisoformat((value or "")[:10]).isoformat()
    except ValueError:
        return ""


def _mtime_day(mtime: float) -> str:
    """The local day of a modification time (``""`` when unknown)."""
    if mtime <= 0:
        return ""
    try:
        return datetime.fromtimestamp(mtime).date().isoformat()
    except (OverflowError, OSError, ValueError):
        return ""


def last_changed(candidate: ColdCandidate) -> str:
    """The day the note last changed: its ``modified`` field, else ``updated``, else its
    last git commit, else its file's modification time (``""``: none known)."""
    return (
        day_of(candidate.modified)
        or day_of(candidate.updated)
        or day_of(candidate.committed)
        or _mtime_day(candidate.mtime)
    )


def order(candidates: list[ColdCandidate]) -> list[ColdCandidate]:
    """Longest unchanged first (see :func:`last_changed`; none known first), then by
    ``created``, then by modification time; the path only settles a full tie. ``user``
    and ``feedback`` notes left out."""
    kept = [c for c in candidates if (c.note_type or "").strip().lower() not in EXEMPT]
    return sorted(kept, key=lambda c: (last_changed(c), day_of(c.created), c.mtime, c.rel))


def plan(text: str, facts: StoreFacts, limits: tuple[int, int]) -> StepResult:
    """Archive notes in cold order while the index is over ``limits``."""
    result = StepResult(COLD, text, text)
    if facts.archive_many is not None:
        rels = [candidate.rel for candidate in order(facts.cold)]
        result.after, result.archived = facts.archive_many(text, rels, limits)
        return result
    for candidate in order(facts.cold):
        if within(result.after, limits):
            break
        edited = facts.archive_edit(result.after, candidate.rel)
        if edited is None or edited == result.after:
            continue  # archive would refuse, or no pointer to take out: it saves nothing
        result.after = edited
        result.archived.append(candidate.rel)
    return result
