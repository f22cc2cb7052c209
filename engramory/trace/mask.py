"""Masking for ``engramory trace``: a value the secret detector matched anywhere in a
session is masked wherever it appears in that session's output.

The detector finds a key by its label or shape (``password: …``); the same value
may come back later without either ("Your password `…`" in the agent's reply, a
list of values). :func:`values_in` collects what the detector matched in every
message of a session; :func:`masked` cuts the detector's own matches and every
other occurrence of those values to their first four characters.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from engramory import secrets
from engramory.secrets.gate import may_hold_secret

MIN_KNOWN = 6  # shorter values are masked where the detector finds them, not everywhere


def values_in(texts: Iterable[str]) -> frozenset[str]:
    """Every value the detector matches in ``texts`` (long enough to mask on sight)."""
    found: set[str] = set()
    for text in texts:
        if may_hold_secret(text):
            found.update(text[s.start : s.end] for s in secrets.find(text))
    return frozenset(value for value in found if len(value) >= MIN_KNOWN)


def masked(text: str, known: Collection[str] = ()) -> str:
    """``text`` with the detector's matches and every occurrence of ``known`` values cut."""
    text = secrets.redact(text)
    for value in sorted(known, key=len, reverse=True):
        if value in text:
            text = text.replace(value, secrets.shown_form(value))
    return text
