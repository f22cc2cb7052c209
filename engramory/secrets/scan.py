"""The scan: every detector over a text, their finds merged, in text order, never overlapping.

A text is lowered once (offsets stay those of the text); each detector whose
gating keywords it holds is tried where they occur; the finds are sorted
and merged (where a labelled value holds a provider's key, the provider names
it). Nothing here reads a file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from engramory.secrets import anchored
from engramory.secrets.detectors import DETECTORS, Detector

SHOWN_CHARS = 4
LABELLED = "labelled-secret"
_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}

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


def lowered(text: str) -> str:
    """``text`` lowered with the same length, so offsets carry over: ``str.lower`` maps
    every character to one but U+0130 (``İ``, two), which only ASCII lowering keeps apart."""
    return text.translate(_ASCII_LOWER) if "\u0130" in text else text.lower()


_GATED = tuple(
    (rank, d, d.keywords) for rank, d in enumerate(DETECTORS) if d.gated or not d.pattern
)
_GATE_WORDS = sorted({k for _rank, _d, keywords in _GATED for k in keywords}, key=len)
# Each gate word with a shorter one inside it ("" when none), shortest first: a word is
# looked for only where that one occurs ("authorization" only if "auth" does).
_GATE_ORDER = tuple(
    (word, next((inner for inner in _GATE_WORDS if inner != word and inner in word), ""))
    for word in _GATE_WORDS
)
_SEARCHED = tuple((rank, d) for rank, d in enumerate(DETECTORS) if d.pattern and not d.gated)
_searches: list[tuple[int, Detector, Callable[[str], object]]] = []


def _first_seen(low: str) -> dict[str, int]:
    """Where each gate word first occurs in ``low`` (words that do not occur are absent)."""
    seen: dict[str, int] = {}
    for word, inner in _GATE_ORDER:
        if inner and inner not in seen:
            continue
        at = low.find(word, max(0, seen[inner] - word.find(inner)) if inner else 0)
        if at != -1:
            seen[word] = at
    return seen


def _candidates(text: str, exhaustive: bool = False) -> list[tuple[int, int, int, Detector]]:
    """Every detector's finds, by start. A pattern that opens with a literal is searched
    straight away (the search skips ahead to the literal as fast as a keyword test would);
    the others, and the readers (private keys, labelled values), are tried only where the
    lowered text holds one of their keywords. ``exhaustive`` runs every detector over the
    whole text instead: the same finds, slower (the tests compare the two)."""
    if not _searches:
        _searches.extend((rank, d, d.pattern_search()) for rank, d in _SEARCHED)
    found: list[tuple[int, int, int, Detector]] = []
    low = lowered(text)
    for rank, detector, search in _searches:
        if exhaustive or search(text) is not None:
            found.extend((start, rank, end, detector) for start, end in detector.spans(text, low))
    seen = {} if exhaustive else _first_seen(low)
    for rank, detector, keywords in _GATED:
        if exhaustive:
            spans = detector.spans(text, low)
        elif any(keyword in seen for keyword in keywords):
            at = anchored.starts(low, seen, keywords, detector.lead)
            spans = detector.spans(text, low, at)
        else:
            continue
        found.extend((start, rank, end, detector) for start, end in spans)
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
