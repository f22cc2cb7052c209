"""Step 4 (``--archive-cold``): archive the coldest notes until the index fits."""

from __future__ import annotations

from datetime import date

from engramory.compact.model import COLD, ColdCandidate, StepResult, StoreFacts, within

EXEMPT = ("user", "feedback")


def _day(value: str | None) -> str:
    """A valid ``YYYY-MM-DD`` as is; anything else sorts as the oldest."""
    try:
        return date.fromisoformat(value or "").isoformat()
    except ValueError:
        return ""


def order(candidates: list[ColdCandidate]) -> list[ColdCandidate]:
    """Oldest ``updated`` first (missing or invalid oldest), then ``created``, then path;
    ``user`` and ``feedback`` notes left out."""
    kept = [c for c in candidates if (c.note_type or "").strip().lower() not in EXEMPT]
    return sorted(kept, key=lambda c: (_day(c.updated), _day(c.created), c.rel))


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
        if edited is None:
            continue
        result.after = edited
        result.archived.append(candidate.rel)
    return result
