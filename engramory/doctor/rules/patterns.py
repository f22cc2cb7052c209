"""The cheap front of the content rules' regular expressions (issue 35).

A pattern is compiled the first time a rule uses it (:class:`Lazy`), not when the
command is imported: ``engramory doctor --help`` or a run of the index rules never pays
for the note rules' patterns, and a worker process compiles each one at most once.

A rule reads only the lines its pattern could match: the lines that hold one of its
keywords (:func:`lines_holding`), looked for with ``str.find`` in :func:`folded` text.
The keywords are taken from the pattern's own literals, so the gate lets through every
line the pattern can match (a property test checks each gated rule against its full
search).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# Under re.IGNORECASE these four letters match an ASCII letter that ``str.lower`` does not
# give them (İ also lower-cases to two characters): a keyword test maps them first.
_LIKE_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


class Lazy:
    """A regular expression compiled on first use; then its methods are the compiled ones."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        # Reached only for what the instance does not hold: before the first use, or an
        # attribute other than the common methods, which compiling stores in the instance.
        compiled = self.__dict__.get("compiled")
        if compiled is None:
            compiled = self.compiled = re.compile(self.pattern, self.flags)
            for method in ("search", "match", "fullmatch", "finditer", "findall", "sub", "split"):
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def folded(text: str) -> str:
    """``text`` lower-cased for keyword tests, the same length, position for position: a
    letter ``re.IGNORECASE`` equates to an ASCII letter becomes that letter."""
    if text.isascii():
        return text.lower()
    return text.translate(_LIKE_ASCII).lower()


def lines_holding(low: str, words: Iterable[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of ``low`` holding one of ``words``, in order, once
    (``end``: where its newline is, or the text's end)."""
    spans: dict[int, int] = {}
    for word in words:
        pos = low.find(word)
        while pos >= 0:
            end = low.find("\n", pos)
            end = len(low) if end < 0 else end
            spans[low.rfind("\n", 0, pos) + 1] = end
            pos = low.find(word, end)  # the rest of this line is in already
    return sorted(spans.items())
