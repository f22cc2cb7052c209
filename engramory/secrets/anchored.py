"""A gated detector's pattern tried only where one of its keywords occurs.

A pattern whose match always starts at a keyword need not be searched across the
whole text: trying it at each keyword's occurrence, in order, skipping those inside
the previous match, gives exactly ``finditer``'s matches. Past :data:`MAX_STARTS`
occurrences the search runs on from the first one instead, so a text of nothing but
keywords stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

MAX_STARTS = 64


def occurrences(low: str, word: str, first: int) -> list[int]:
    """Where ``word`` occurs in ``low`` from ``first`` (its first occurrence); at most
    ``MAX_STARTS + 1`` of them (more means "search instead")."""
    found = [first]
    at = low.find(word, first + 1)
    while at != -1 and len(found) <= MAX_STARTS:
        found.append(at)
        at = low.find(word, at + 1)
    return found


def starts(low: str, seen: dict[str, int], words: Iterable[str]) -> list[int]:
    """Sorted positions a match may start at: each occurrence of a seen word
    (``seen``: each word's first occurrence)."""
    found: set[int] = set()
    for word in words:
        if word in seen:
            found.update(occurrences(low, word, seen[word]))
    return sorted(found)


def matches(pattern: re.Pattern[str], text: str, at: list[int]) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``'s matches, given that each starts at one of ``at``
    (sorted) and none is empty."""
    if len(at) > MAX_STARTS:
        yield from pattern.finditer(text, at[0])
        return
    end = 0
    for start in at:
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            end = match.end()
            yield match
