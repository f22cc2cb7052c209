"""The secret scan's shortcuts change its speed, never its answer (issue 33).

The scan searches a provider's pattern only where one pass found its trigger, tries the
other detectors only where the lowered text holds one of their keywords, and searches
label words from their first occurrence. ``find(text, exhaustive=True)`` runs every
detector over the whole text with none of that; for any text the two must agree (a speed
shortcut once broke secret detection). The texts mix every detector's examples, near
misses cut from them, label words and separators, and random characters (ASCII, and not:
the shortcuts look at an ASCII form of the text).

Fixtures that look like keys are assembled at run time from the detectors' examples.
"""

from __future__ import annotations

import importlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from engramory import secrets
from engramory.secrets import anchored, labelled, scan
from engramory.secrets.detectors import DETECTORS, example

EXAMPLES = [example(e) for d in DETECTORS for e in d.fires + d.quiet]
KEYWORDS = sorted({k for d in DETECTORS for k in d.keywords})
LABELS = ["password", "dbPassword", "API Key", "SECRET_KEY", "token", "pw", "auth", "pass"]
JOINERS = [": ", "=", " = ", " is ", " was ", " (old) ", " | ", "**: ", '": "', "\n", " "]
VALUES = ["Hx9#kQ2!mZ7@pL4$", "Welcome2024ab", "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c", "${X}", "x"]


def near_misses(text: str) -> list[str]:
    """Cuts and case changes of an example: what a shortcut could get wrong."""
    half = len(text) // 2
    return [text[:half], text[half:], text[:-1], text[1:], text.upper(), text.swapcase()]


NEAR = [miss for e in EXAMPLES for miss in near_misses(e)]
PIECES = st.one_of(
    st.sampled_from(EXAMPLES),
    st.sampled_from(NEAR),
    st.sampled_from(KEYWORDS),
    st.sampled_from(KEYWORDS).map(str.upper),
    st.builds(
        lambda a, b, c: a + b + c,
        st.sampled_from(LABELS),
        st.sampled_from(JOINERS),
        st.sampled_from(VALUES),
    ),
    st.sampled_from(JOINERS),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=12),
    st.text(max_size=6),  # any character: İ, the Kelvin sign, CJK, surrogates, controls
)
TEXTS = st.lists(PIECES, max_size=12).map("".join)


def keys(found: list[secrets.Secret]) -> list[tuple[str, int, int, int, str]]:
    return [(s.detector, s.line, s.start, s.end, s.shown) for s in found]


@settings(max_examples=1500, deadline=None)
@given(TEXTS)
def test_the_fast_scan_finds_what_every_detector_finds_over_the_whole_text(text: str) -> None:
    fast = keys(secrets.find(text))
    assert fast == keys(secrets.find(text, exhaustive=True))
    assert keys(secrets.first_per_line(text)) == keys(secrets.first_per_line(text, exhaustive=True))


def test_every_example_is_found_alike_by_both_scans_in_any_surroundings() -> None:
    for sample in EXAMPLES:
        for text in (sample, f"é — {sample} 東京\n", f"x{sample}x", f"\n\n{sample}\n"):
            assert keys(secrets.find(text)) == keys(secrets.find(text, exhaustive=True))


def test_the_fast_scan_still_fires_on_every_detector_example() -> None:
    for detector in DETECTORS:
        for sample in detector.fires:
            assert detector.id in [s.detector for s in secrets.find(example(sample))]


@settings(max_examples=800, deadline=None)
@given(TEXTS.map(scan.lowered))
def test_label_words_searched_one_by_one_are_the_candidates_of_one_pattern(low: str) -> None:
    wanted = [
        (m.span(), m.group("word"), m.group("paren")) for m in labelled.CANDIDATE.finditer(low)
    ]
    got = [(m.span(), m.group("word"), m.group("paren")) for m in labelled.candidates(low)]
    assert got == wanted


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["bearer ", "Bearer x", "bearer abc123def456", "b", " "]), max_size=90)
)
def test_matches_at_keywords_are_finditers_matches_below_and_above_the_limit(pieces) -> None:
    text = "".join(pieces)
    pattern = re.compile(r"(?i:bearer)[ \t]{1,4}(?P<value>[A-Za-z0-9]{3,40})")
    low = text.lower()
    seen = {"bearer": low.find("bearer")} if "bearer" in low else {}
    starts = anchored.starts(low, seen, ["bearer"])
    got = [m.span() for m in anchored.matches(pattern, text, starts)] if starts else []
    assert got == [m.span() for m in pattern.finditer(text)]


def test_more_keywords_than_the_limit_search_on_from_the_first() -> None:
    text = "x " + "bearer abcdefgh12 " * (anchored.MAX_STARTS + 5)
    low = text.lower()
    starts = anchored.starts(low, {"bearer": low.find("bearer")}, ["bearer"])
    assert len(starts) == anchored.MAX_STARTS + 1  # counted no further
    pattern = re.compile(r"bearer (?P<value>\w+)")
    assert [m.span() for m in anchored.matches(pattern, text, starts)] == [
        m.span() for m in pattern.finditer(text)
    ]


def top_level_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at each ``|`` outside groups and sets."""
    pieces, depth, start, at = [], 0, 0, 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 1
        elif char == "[":
            at = pattern.index("]", at + 2)
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            pieces.append(pattern[start:at])
            start = at + 1
        at += 1
    return [*pieces, pattern[start:]]


def test_each_trigger_is_look_arounds_and_matches_its_examples_at_its_pivot() -> None:
    """A trigger consumes its one character (the rest are look-arounds), so no trigger hides
    another in its pivot's pass, and that pass (with its letter test) finds it."""
    for detector in DETECTORS:
        if not detector.trigger:
            continue
        pivot, looks = detector.trigger
        for alternative in top_level_alternatives(looks):
            assert re.fullmatch(r"(?:\(\?<?[=!](?:[^()]|\([^()]*\))*\))+", alternative), alternative
        own = re.compile(f"{re.escape(pivot)}(?:{looks})")
        for sample in detector.fires:
            text = example(sample)
            hits = [m.start() for m in own.finditer(text)]
            assert hits, (detector.id, sample)
            assert [m.start() for m in scan._pivot_pattern(pivot).finditer(text)] == hits


def test_the_ascii_forms_keep_offsets_and_lower_only_ascii_letters() -> None:
    text = "İ Kelvin \u212a API_Key: 東京 Ωmega"
    asc, low = scan.ascii_forms(text)
    assert len(asc) == len(low) == len(text)
    assert asc == "? Kelvin ? API_Key: ?? ?mega"
    assert low == asc.lower()
    assert scan.ascii_forms("Plain ASCII") == ("Plain ASCII", "plain ascii")


@settings(max_examples=300, deadline=None)
@given(TEXTS.map(scan.lowered))
def test_gate_words_found_through_their_rarest_letter_are_every_occurrence(low: str) -> None:
    """The rare-letter test before a gate word's search never hides a word the text holds."""
    expected = {w: low.find(w) for w, _rare in scan._GATE_WORDS if w in low}
    assert scan._first_seen(low) == expected
    assert scan._first_seen(low + " bearer authorization").keys() == {"bearer", "authorization"}


def chars_before_pivot(look_behind: str, pivot: str) -> set[str]:
    """The characters a look-behind ``(?<=…<pivot>)`` takes right before its pivot, read from
    its parsed form (a literal or a class of literals and ranges)."""
    parser = getattr(re, "_parser", None) or importlib.import_module("sre_parse")
    (op, (direction, inner)), *_rest = list(parser.parse(look_behind))
    assert op.name == "ASSERT" and direction == -1, look_behind
    items = list(inner)
    assert items[-1][0].name == "LITERAL" and chr(items[-1][1]) == pivot, look_behind
    kind, value = items[-2]
    if kind.name == "LITERAL":
        return {chr(value)}
    assert kind.name == "IN", look_behind
    found: set[str] = set()
    for member, code in value:
        if member.name == "LITERAL":
            found.add(chr(code))
        else:
            assert member.name == "RANGE", look_behind
            found.update(chr(c) for c in range(code[0], code[1] + 1))
    return found


def test_the_letters_before_a_pivot_are_every_letter_its_look_behinds_take() -> None:
    """A pivot's pass first requires one of BEFORE_PIVOT's letters before it: every trigger
    on that pivot whose look-arounds open with a look-behind must take no other there."""
    checked = 0
    for detector in DETECTORS:
        pivot, looks = detector.trigger or ("", "")
        if pivot not in scan.BEFORE_PIVOT or not looks.startswith("(?<="):
            continue
        for alternative in top_level_alternatives(looks):
            assert alternative.startswith("(?<="), (detector.id, alternative)
            first = re.match(r"\(\?<=(?:[^()\[]|\[[^\]]*\])*\)", alternative)
            assert first is not None, alternative
            taken = chars_before_pivot(first.group(), pivot)
            assert taken <= set(scan.BEFORE_PIVOT[pivot]), (detector.id, taken)
            checked += 1
    assert checked >= 15
