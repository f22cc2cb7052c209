"""``near-duplicate``: two live notes that say nearly the same thing, found without
comparing every pair.

Two live notes are near-duplicates when their descriptions are equal once
case-folded with runs of whitespace collapsed, or when both bodies hold at
least :data:`MIN_WORDS` words and the Jaccard similarity of their sets of
word 3-grams ("shingles": three consecutive words, case-folded; a word is a
run of letters, digits and ``_``) is at least 0.8. Each later note (in path
order) is reported once, naming the earliest note it was found to duplicate.

Comparing every pair would be quadratic, so the search has three steps:

1. **Fingerprint** (per note, in the per-note pass, so in worker processes on
   a large store; :func:`fingerprint`): 17 small integers. The first is a
   CRC-32 of the normalised description. The others are *band keys*: each
   shingle is hashed with CRC-32 (stable across processes, runs and Python
   versions, unlike ``hash()``), the sorted hashes are seen as points on a
   ring of 2**32 cut into :data:`BANDS` equal arcs, and band key ``j`` is a
   CRC-32 of the first :data:`ROWS` hashes at or after the start of arc
   ``j``. Two notes get the same key ``j`` exactly when the first ``ROWS``
   shingles of their *union* after that point are all shared, which for
   notes of a few dozen shingles or more happens with probability
   C(|A∩B|, 4) / C(|A∪B|, 4), about J**4. So a pair with J >= 0.8 shares at
   least one of the 16 keys with probability 1 - (1 - 0.8**4)**16 > 0.999
   (more above 0.8; ``tests/test_doctor_duplicates.py`` measures it), while
   a pair with J = 0.3 does about 12% of the time and J = 0.1 about 0.2%.
   This is MinHash with banding (16 bands of 4 rows), with the four rows of a
   band read off one hash function, so each shingle is hashed once.
2. **Candidates** (store pass; :func:`candidates`): per key, a counter finds
   the keys held by more than one note (linear in the notes). A key held by
   at most :data:`CROWD` notes makes every earlier holder a candidate for
   each later one. A key held by more (shared boilerplate) gives a later note
   only its first ``CROWD`` holders, and only those that agree on a second
   key too; an equal description always makes a candidate, with the first
   ``CROWD`` holders. The work is linear in the number of notes.
3. **Confirmation** (:func:`find_duplicates`): a later note's candidates,
   earliest first (at most :data:`CHECKS` of them), are read again and
   compared exactly, description and shingle sets alike; the first that is a
   near-duplicate is named. No note body is kept for the store pass: only the
   17 integers, and the last few notes re-read.
"""

from __future__ import annotations

import struct
import zlib
from array import array
from bisect import bisect_left
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress, repeat
from typing import NamedTuple

from engramory.doctor.context import NoteCheck, StoreView
from engramory.doctor.model import STORE, WARNING, Example, Issue, rule, sample_note
from engramory.doctor.rules.patterns import Lazy
from engramory.store.disk import NOTE_READ_LIMIT, READ_OK, read_file
from engramory.store.frontmatter import Frontmatter, decode, parse_bytes

RULE_ID = "near-duplicate"

WORD = Lazy(r"\w+")  # one character class, no nesting: linear on any input
# Byte -> itself for an ASCII word byte (lower-cased), a blank for every other byte.
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
_ASCII_BYTES = bytes(range(128))
_ASCII_WORD_BYTES = bytes(
    code + 32 if 65 <= code <= 90 else code if code in _WORD_BYTES else 32 for code in range(256)
)
MIN_WORDS = 20  # a body shorter than this is not compared
SIMILAR = (4, 5)  # Jaccard >= 4/5, compared in integers: 5 * shared >= 4 * union

BANDS = 16
ROWS = 4
ARC = (1 << 32) // BANDS
COLUMNS = 1 + BANDS  # the description key, then the band keys
CROWD = 8  # a key held by more notes than this is boilerplate (see the module docstring)
CHECKS = 8  # exact comparisons per later note, at most
CACHE_SHINGLES = 200_000  # shingles kept in memory across re-read notes, at most

_FACT = struct.Struct(f"<{COLUMNS}I")
_ARC_STARTS = tuple(band * ARC for band in range(BANDS))
_ROW = struct.Struct(f"<{ROWS}I")
_PACK_WHOLE = 4096  # up to this many shingles, one pack of the whole ring is the cheaper
_U32 = next(code for code in "IL" if array(code).itemsize == 4)


# --- per note -------------------------------------------------------------------------------


def normal_description(value: str) -> str:
    """A description as compared: case-folded, whitespace runs collapsed to one space."""
    return " ".join(value.casefold().split())


def body_words(body: str) -> list[str]:
    """The body's words, case-folded."""
    return WORD.findall(body.casefold())


def shingles(words: Sequence[str]) -> set[str]:
    """The set of word 3-grams (three consecutive words, joined by a space)."""
    return set(map(" ".join, zip(words, words[1:], words[2:])))


def _crc(text: str) -> int:
    """A stable 32-bit hash of ``text``, never 0 (0 means "no key")."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass")) or 1


def encoded_words(body: str) -> list[bytes]:
    """:func:`body_words`, UTF-8 encoded. The fast path splits the body's bytes after one
    translation that lower-cases ASCII letters and blanks every other byte: the same
    words, as ``\\w`` and case-folding agree with their byte forms on ASCII, when every
    non-ASCII character is a separator (``\\w`` does not match it) that case-folding
    leaves alone: dashes, quotes, arrows, most emoji."""
    data = body.encode("utf-8", "surrogatepass")
    if len(data) != len(body) and not _only_separators(data.translate(None, _ASCII_BYTES)):
        return list(map(str.encode, body_words(body)))
    return data.translate(_ASCII_WORD_BYTES).split()


def _only_separators(others: bytes) -> bool:
    """Whether every character of ``others`` (UTF-8) is a :func:`_separator`."""
    try:
        chars = set(others.decode("utf-8"))
    except UnicodeDecodeError:  # a lone surrogate: no fast path
        return False
    return all(map(_separator, chars))


@lru_cache(maxsize=4096)
def _separator(char: str) -> bool:
    """A character ``\\w`` does not match and case-folding leaves as it is."""
    return WORD.match(char) is None and char.casefold() == char


def band_keys(words: Sequence[bytes]) -> list[int]:
    """The :data:`BANDS` band keys of a body's (encoded) words (see the module docstring)."""
    # map() all the way: no Python-level loop per shingle or band (this runs on every note).
    points = sorted(set(map(zlib.crc32, map(b" ".join, zip(words, words[1:], words[2:])))))
    count = len(points)
    if not count:
        return [0] * BANDS
    # The ring read past its end wraps to its start (repeated when it is shorter than a band).
    ring = points * (1 + -(-ROWS // count)) if count < ROWS else points + points[:ROWS]
    starts = map(bisect_left, repeat(points, BANDS), _ARC_STARTS)
    if count > _PACK_WHOLE:  # a huge body: pack only the rows read, not every point
        keys = [zlib.crc32(_ROW.pack(*ring[k : k + ROWS])) for k in starts]
    else:
        packed = struct.pack(f"<{len(ring)}I", *ring)
        keys = list(map(zlib.crc32, [packed[4 * k : 4 * (k + ROWS)] for k in starts]))
    return keys if 0 not in keys else [key or 1 for key in keys]


def note_parts(parsed: Frontmatter, data: bytes) -> tuple[str, str]:
    """``(normalised description, body)`` of a parsed note (the whole text is the body
    when the frontmatter is missing or not closed)."""
    description = normal_description(parsed.fields.get("description", ""))
    body = parsed.body if parsed.closed else decode(data)
    return description, body


def fingerprint(note: NoteCheck) -> bytes:
    """The note's description key and band keys, packed (``b""``: it takes no part).

    A note that could not be read, or has neither a description nor a body of
    :data:`MIN_WORDS` words, takes no part.
    """
    if note.fm is None or note.read.data is None:
        return b""
    return fingerprint_of(*note_parts(note.fm, note.read.data))


def fingerprint_of(description: str, body: str) -> bytes:
    """The fingerprint of a note with this normalised description and body."""
    words = encoded_words(body)
    bands = band_keys(words) if len(words) >= MIN_WORDS else [0] * BANDS
    described = _crc(description) if description else 0
    if not described and not bands[0]:
        return b""
    return _FACT.pack(described, *bands)


# --- across notes ---------------------------------------------------------------------------


@dataclass
class Work:
    """What a search cost: candidate pairs considered, and notes compared exactly."""

    pairs: int = 0
    compared: int = 0


def _agreeing_bands(one: bytes, other: bytes) -> int:
    """How many band keys two fingerprints share (a band key is never 0)."""
    return sum(map(int.__eq__, _FACT.unpack(one)[1:], _FACT.unpack(other)[1:]))


def candidates(facts: Sequence[bytes], work: Work | None = None) -> dict[int, set[int]]:
    """For each note number that has candidates, the earlier note numbers to compare it with.

    ``facts`` holds each note's :func:`fingerprint`, by note number.
    """
    work = work if work is not None else Work()
    numbers = [number for number, fact in enumerate(facts) if fact]
    found: dict[int, set[int]] = {}
    if len(numbers) < 2:
        return found
    table = array(_U32)
    for number in numbers:  # not b"".join(): no second copy of every fingerprint at once
        table.frombytes(facts[number])
    for column in range(COLUMNS):
        keys = table[column::COLUMNS]
        shared = {key for key, held in Counter(keys).items() if held > 1 and key}
        if not shared:
            continue
        holders: dict[int, list[int]] = {}
        for position in compress(range(len(keys)), map(shared.__contains__, keys)):
            holders.setdefault(keys[position], []).append(numbers[position])
        for members in holders.values():
            crowded = column > 0 and len(members) > CROWD
            heads = members[:CROWD]
            for place, later in enumerate(members[1:], 1):
                mine = found.get(later)
                for earlier in heads[:place]:
                    work.pairs += 1
                    if mine is not None and earlier in mine:
                        continue
                    if crowded and _agreeing_bands(facts[later], facts[earlier]) < 2:
                        continue
                    if mine is None:
                        mine = found[later] = set()
                    mine.add(earlier)
    return found


class Parts(NamedTuple):
    """What the exact comparison needs of a note: its normalised description, its set of
    shingles (``None`` when the body is too short) and its file identity (a symlink to a
    note is that note, not a copy of it)."""

    description: str
    shingles: frozenset[str] | None
    identity: tuple[int, int] | None = None


class Likeness(NamedTuple):
    """How two notes were found alike: the same description, or ``shared`` (Jaccard)."""

    same_description: bool
    shared: float


def text_parts(data: bytes, identity: tuple[int, int] | None = None) -> Parts:
    """What the exact comparison needs of a note's bytes."""
    description, body = note_parts(parse_bytes(data), data)
    words = body_words(body)
    kept = frozenset(shingles(words)) if len(words) >= MIN_WORDS else None
    return Parts(description, kept, identity)


def likeness(one: Parts, other: Parts) -> Likeness | None:
    """How alike two notes are, exactly, or ``None`` when they are not near-duplicates."""
    if one.identity is not None and one.identity == other.identity:
        return None  # one file under two names
    if one.description and one.description == other.description:
        return Likeness(True, 1.0)
    mine, theirs = one.shingles, other.shingles
    if mine is None or theirs is None:
        return None
    shared = len(mine & theirs)
    union = len(mine) + len(theirs) - shared
    if SIMILAR[1] * shared >= SIMILAR[0] * union:
        return Likeness(False, shared / union)
    return None


def find_duplicates(
    facts: Sequence[bytes],
    parts_of: Callable[[int], Parts | None],
    work: Work | None = None,
) -> Iterator[tuple[int, int, Likeness]]:
    """``(later, earliest, likeness)`` for each note found to duplicate an earlier one.

    ``parts_of(number)`` reads a note again (``None``: it cannot be read now).
    """
    work = work if work is not None else Work()
    found = candidates(facts, work)
    for later in sorted(found):
        mine = parts_of(later)
        if mine is None:
            continue
        for earlier in sorted(found[later])[:CHECKS]:
            theirs = parts_of(earlier)
            work.compared += 1
            alike = likeness(mine, theirs) if theirs is not None else None
            if alike is not None:
                yield later, earlier, alike
                break


class _Rereader:
    """Notes read again for the exact comparison; the most recent ones are kept (up to
    :data:`CACHE_SHINGLES` shingles in all), as a candidate is often compared again."""

    def __init__(self, view: StoreView) -> None:
        self.view = view
        self.kept: OrderedDict[int, Parts | None] = OrderedDict()
        self.size = 0

    def __call__(self, number: int) -> Parts | None:
        if number in self.kept:
            self.kept.move_to_end(number)
            return self.kept[number]
        file = self.view.notes[number].file
        read = read_file(file.path(self.view.root), NOTE_READ_LIMIT)
        parts = None
        if read.status == READ_OK and read.data is not None:
            parts = text_parts(read.data, read.identity)
        size = len(parts.shingles or ()) if parts is not None else 0
        if size <= CACHE_SHINGLES:
            self.kept[number] = parts
            self.size += size
            while self.size > CACHE_SHINGLES:
                _, dropped = self.kept.popitem(last=False)
                self.size -= len(dropped.shingles or ()) if dropped is not None else 0
        return parts


# --- the rule -------------------------------------------------------------------------------

_SIXTY = (
    "Deploys to the staging cluster go through the release pipeline and never\n"
    "from a laptop, because the pipeline signs the image, runs the smoke tests\n"
    "against a copy of production data and records who shipped what, so a\n"
    "rollback can find the last good build in minutes instead of an afternoon\n"
    "of guessing which commit was actually live in production."
)
_UNRELATED = (
    "The billing service rounds every invoice line to whole cents before it sums\n"
    "them, which is what the finance team reconciles against; summing first and\n"
    "rounding once gives totals that differ by a cent on long invoices and\n"
    "triggers a manual review each month."
)
_NINETEEN = (
    "Run the linter before each commit so that style problems never reach review and "
    "nobody argues about them later."
)


@rule(
    RULE_ID,
    WARNING,
    "two live notes that say nearly the same thing (equal descriptions, or bodies of 20+ "
    "words with word-3-gram Jaccard >= 0.8)",
    fires=(
        Example(
            "`a.md` and `b.md`: the same sixty-word body but for one word",
            {
                "a.md": sample_note("a", body=_SIXTY + "\n"),
                "b.md": sample_note("b", body=_SIXTY.replace("afternoon", "evening") + "\n"),
            },
        ),
        Example(
            "`a.md` and `b.md` with the same description, up to case and spaces",
            {
                "a.md": sample_note("a", description="How we deploy to staging"),
                "b.md": sample_note("b", description="how we  deploy to STAGING"),
            },
        ),
    ),
    quiet=(
        Example(
            "two notes on different subjects",
            {
                "a.md": sample_note("a", body=_SIXTY + "\n"),
                "b.md": sample_note("b", body=_UNRELATED + "\n"),
            },
        ),
        Example(
            "the same 19-word body in two notes (too short to compare)",
            {
                "a.md": sample_note("a", body=_NINETEEN + "\n"),
                "b.md": sample_note("b", body=_NINETEEN + "\n"),
            },
        ),
        Example(
            "`a.md` and its copy `archive/a.md` (an archived note is not a live one)",
            {
                "a.md": sample_note("a", body=_SIXTY + "\n"),
                "archive/a.md": sample_note("a", body=_SIXTY + "\n"),
            },
        ),
    ),
    scope=STORE,
    fix="merge each near-duplicate into the note it names (keep what is new, then delete it "
    "and its index line); if both must stay, make each description say what only it holds",
    gather=fingerprint,
)
def near_duplicate(view: StoreView) -> Iterator[Issue]:
    """Fires: two notes with the same sixty-word body but for one word; two notes whose
    descriptions differ only in case and spacing.
    Quiet: two notes on different subjects; the same 19-word body twice; a note and its
    archived copy."""
    facts = view.facts.get(RULE_ID, [])
    for later, earliest, alike in find_duplicates(facts, _Rereader(view)):
        other = view.notes[earliest].rel
        if alike.same_description:
            message = (
                f"this note has the same description as {other}: merge the two, or reword "
                "this description to say what only this note holds"
            )
        else:
            percent = int(alike.shared * 100)
            message = (
                f"this note says nearly the same as {other} ({percent}% of the word triples "
                f"in their bodies are shared): merge what is new into {other} and delete "
                "this note"
            )
        yield view.notes[later].rel, None, message
