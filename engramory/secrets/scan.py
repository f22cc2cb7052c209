"""The scan: every detector over a text, their finds merged, in text order, never overlapping.

A text is lowered once (ASCII only, so offsets stay those of the text); each
detector whose trigger or keywords it holds is searched; the finds are sorted
and merged (where a labelled value holds a provider's key, the provider names
it). Nothing here reads a file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from engramory.secrets.detectors import DETECTORS, Detector

SHOWN_CHARS = 4
LABELLED = "labelled-secret"

Allowed = Callable[[str], bool]  # whether a value is on the store's allow list


class Secret:
    """One credential's value in a text.

    ``detector`` is the detector's stable id, ``title`` what a message calls it
    (with its article: "an AWS access key id"), ``line`` is 1-based (counting
    ``\\n`` only), ``start``/``end`` the value's offsets and ``shown`` its first
    four characters and ``…`` (never more of the value).
    """

    __slots__ = ("detector", "end", "line", "shown", "start", "title")

    def __init__(self, detector: Detector, line: int, start: int, end: int, shown: str) -> None:
        self.detector = detector.id
        self.title = detector.title
        self.line = line
        self.start = start
        self.end = end
        self.shown = shown

    @property
    def kind(self) -> str:
        """The title without its article ("AWS access key id")."""
        return self.title.split(" ", 1)[1]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:  # never the value: only what a message may show
        where = f"line={self.line}, {self.start}:{self.end}"
        return f"Secret({self.detector!r}, {where}, {self.shown!r})"

    def _key(self) -> tuple[str, int, int, int]:
        return (self.detector, self.line, self.start, self.end)


def shown_form(value: str) -> str:
    """What a message may show of a value: its first four characters, then ``…``."""
    return value[:SHOWN_CHARS] + "…"


def ascii_forms(text: str) -> tuple[str, str]:
    """``text`` with each character that is not ASCII as ``?``, and that lowered: the
    same offsets as ``text`` (every trigger and keyword is ASCII), found and lowered far
    faster than in a text that is not ASCII."""
    if text.isascii():
        return text, text.lower()
    raw = text.encode("ascii", "replace")
    return raw.decode("ascii"), raw.lower().decode("ascii")


def lowered(text: str) -> str:
    """``text`` lowered (ASCII letters only) with the same length, so offsets carry over."""
    return ascii_forms(text)[1]


_TRIGGERED = tuple((rank, d) for rank, d in enumerate(DETECTORS) if d.trigger)
_READERS = tuple(
    (rank, d) for rank, d in enumerate(DETECTORS) if d.finder is not None and not d.trigger
)
_GATED = tuple(
    (rank, d, frozenset(d.keywords))
    for rank, d in enumerate(DETECTORS)
    if not d.trigger and d.finder is None
)
# A trigger with one of these pivots whose look-arounds open with a look-behind has one
# of these letters right before it (the letters its look-behinds take there): most
# ``-``, ``.`` and ``_`` in Markdown have none (rules, lists, tables, sentence ends,
# words), and fail this first. (The private key's ``-----BEGIN`` has no look-behind.)
# tests/test_secrets_fastpath.py reads each look-behind to hold these lists complete.
BEFORE_PIVOT = {"-": "abeikprstX", ".": "sG", "_": "bcefmoprsu"}
_GUARDS = {pivot: f"(?<=[{chars}]{re.escape(pivot)})" for pivot, chars in BEFORE_PIVOT.items()}


def _pivot_pattern(pivot: str) -> re.Pattern[str]:
    """One pattern for the triggers on ``pivot``: the character, then any of their look-arounds."""
    looks = [d.trigger[1] for _rank, d in _TRIGGERED if d.trigger[0] == pivot]
    guard = _GUARDS.get(pivot, "")
    behind = "|".join(look for look in looks if guard and look.startswith("(?<="))
    others = [look for look in looks if not (guard and look.startswith("(?<="))]
    branches = ([f"{guard}(?:{behind})"] if behind else []) + others
    return re.compile(f"{re.escape(pivot)}(?:{'|'.join(branches)})")


# One pass per trigger character, only when the text holds it: finding a character is far
# faster than a pattern's search, and a pass that finds none of the triggers ends there.
_PIVOTS = tuple(
    (
        pivot,
        _pivot_pattern(pivot),
        tuple((rank, d) for rank, d in _TRIGGERED if d.trigger[0] == pivot),
    )
    for pivot in sorted({d.trigger[0] for _rank, d in _TRIGGERED})
)
# Letters by how rarely English prose holds them: a text without a gate word's rarest
# letter (one character, found far faster than a word) cannot hold the word.
_RARE_FIRST = "zqjxkvbpygfwmucldrhsnioate"


def _rarest(word: str) -> str:
    """The character of ``word`` least often in prose (a non-letter: rarer than any)."""
    return min(word, key=lambda ch: _RARE_FIRST.find(ch) if ch in _RARE_FIRST else -1)


_GATE_WORDS = tuple(
    (word, _rarest(word)) for word in sorted({k for _r, _d, ks in _GATED for k in ks})
)


def _first_seen(low: str) -> dict[str, int]:
    """Where each gate word first occurs in ``low`` (words that do not occur are absent)."""
    seen: dict[str, int] = {}
    for word, rare in _GATE_WORDS:
        at = low.find(word) if rare in low else -1
        if at != -1:
            seen[word] = at
    return seen


def _triggered(asc: str) -> list[tuple[int, Detector]]:
    """The patterns whose trigger occurs in ``asc`` (a text's :func:`ascii_forms`)."""
    found: list[tuple[int, Detector]] = []
    for pivot, trigger, detectors in _PIVOTS:
        first = asc.find(pivot)
        if first != -1 and trigger.search(asc, first) is not None:
            found.extend(detectors)
    return found


def _candidates(text: str, exhaustive: bool = False) -> list[tuple[int, int, int, Detector]]:
    """Every detector's finds, by start. A pattern with a trigger is searched when the text
    holds its trigger, the other patterns only where the lowered text holds one of their
    keywords; the readers (private keys, labelled values) read every text. ``exhaustive``
    searches every pattern over the whole text instead: the same finds, slower (the tests
    compare the two)."""
    asc, low = ascii_forms(text)
    seen = None if exhaustive else _first_seen(low)
    triggered = _TRIGGERED if exhaustive else _triggered(asc)
    searched = [(rank, d, d.spans(text, low)) for rank, d in triggered]
    searched += [(rank, d, d.spans(text, low, seen)) for rank, d in _READERS]
    searched += [
        (rank, d, d.spans(text, low, seen))
        for rank, d, keywords in _GATED
        if seen is None or not keywords.isdisjoint(seen)
    ]
    found = [(start, rank, end, d) for rank, d, spans in searched for start, end in spans]
    found.sort(key=lambda c: (c[0], c[1]))
    return found


def spans(
    text: str, allowed: Allowed | None = None, exhaustive: bool = False
) -> Iterator[tuple[Detector, int, int]]:
    """``(detector, start, end)`` of every secret in ``text``, in order, never overlapping."""
    kept: list[tuple[Detector, int, int]] = []
    for start, _rank, end, detector in _candidates(text, exhaustive):
        if allowed is not None and allowed(text[start:end]):
            continue
        if kept and start < kept[-1][2]:
            last, last_start, last_end = kept[-1]
            if last.id == LABELLED and detector.id != LABELLED:
                kept[-1] = (detector, last_start, max(last_end, end))
            continue
        kept.append((detector, start, end))
    return iter(kept)


def find(text: str, allowed: Allowed | None = None, exhaustive: bool = False) -> list[Secret]:
    """Every secret in ``text``, in order. ``exhaustive=True`` runs every detector over the
    whole text, ignoring the keywords that gate them: the same answer, slower; for tests."""
    found: list[Secret] = []
    line, counted = 1, 0
    for detector, start, end in spans(text, allowed, exhaustive):
        line += text.count("\n", counted, start)
        counted = start
        found.append(Secret(detector, line, start, end, shown_form(text[start:end])))
    return found


def first_per_line(
    text: str, allowed: Allowed | None = None, exhaustive: bool = False
) -> list[Secret]:
    """The first secret (by position) of each line that holds one (``exhaustive``: as in
    :func:`find`)."""
    kept: list[Secret] = []
    for secret in find(text, allowed, exhaustive):
        if not kept or kept[-1].line != secret.line:
            kept.append(secret)
    return kept


def redact(text: str, allowed: Allowed | None = None) -> str:
    """``text`` with every secret's value replaced by its ``shown`` form."""
    pieces: list[str] = []
    done = 0
    for _detector, start, end in spans(text, allowed):
        pieces.append(text[done:start])
        pieces.append(shown_form(text[start:end]))
        done = end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def replace(text: str, allowed: Allowed | None = None) -> tuple[str, list[Secret]]:
    """``text`` with every secret's value replaced by ``[redacted: <detector>]``, and the
    secrets replaced (lines as in the original text)."""
    found = find(text, allowed)
    pieces: list[str] = []
    done = 0
    for secret in found:
        pieces.append(text[done : secret.start])
        pieces.append(f"[redacted: {secret.detector}]")
        done = secret.end
    pieces.append(text[done:])
    return "".join(pieces), found
