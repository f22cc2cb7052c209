"""The days a command under test may have seen as "today": a run that crosses midnight sees either.

A test that compares a written date with a ``date.today()`` taken at import time fails once
in a while when the suite runs across midnight (CI did, on 2026-12-03). Take the day before
and after the call instead and accept either.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date


@contextmanager
def days_seen() -> Iterator[list[str]]:
    """Yield a list that holds today's ISO date, and the date after the block once it ends."""
    seen = [date.today().isoformat()]
    yield seen
    after = date.today().isoformat()
    if after not in seen:
        seen.append(after)
