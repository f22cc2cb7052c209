"""The content rules' shortcuts give what the full search gives (issue 35).

Each gated rule is run against its ungated form over generated text that holds
the trigger words in odd places, cases and scripts (the letters re.IGNORECASE
equates to ASCII ones, code spans, quotes, hex runs, non-ASCII separators).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.doctor.rules import content, duplicates, patterns, secrets
from engramory.store import markdown

STATE_BITS = [
    "HEAD", "head", "Tip", "tIp", "t\u0130p", "t\u0131p", "te\u017ft", "TEST", "tests",
    "pass", "passing", "green", "currently", "CURRENTLY", "on", "at", "using", "running",
    "current", "latest", "version", "Version", "is", ":", "v", "3f9c2ab", "0123456789abcdef" * 3,
    "a" * 40, "deadbeef", "412", "7", " ", "  ", "\t", "\n", ".", "-", "x", "\u00e9", "\u212a",
]  # fmt: skip
RELATIVE_BITS = [
    "today", "Today", "TODAY", "yesterday", "tonight", "tomorrow", "this", "last", "next",
    "past", "coming", "week", "month", "sprint", "morning", "monday", "3", "12", "days",
    "ago", "the", "excludes", "button", "2026-01-11", "`", "```", "~~~", '"', "\u201c",
    "\u201d", " ", "  ", "\n", "_", "x", "\u6628\u5929", "\u0130", "\u00e9",
]  # fmt: skip
WORD_BITS = [
    "Word", "snake_case", "x1", "\u2014", "\u2019", "\u2192", "\u00a0", "\U0001f600", "\u00e9",
    "\u00df", "\u0130", "\u017f", "\u212a", "\ufb01", "\u00b2", "\u0663", "\u03a3", " ", "\n",
    "-", "_",
]  # fmt: skip


def texts(bits: list[str]) -> st.SearchStrategy[str]:
    """Text made of ``bits`` and a little arbitrary text between them."""
    piece = st.one_of(st.sampled_from(bits), st.text(max_size=3))
    return st.lists(piece, max_size=40).map("".join)


# --- current-state -----------------------------------------------------------------------------

FULL_STATE = re.compile(content.CURRENT_STATE.pattern, content.CURRENT_STATE.flags)


def state_lines_ungated(text: str, first: int) -> list[tuple[int, str]]:
    """The full search: the pattern over the whole text, the first statement of each line."""
    found: list[tuple[int, str]] = []
    for match in FULL_STATE.finditer(text):
        if content._is_state(match):
            line = first + text.count("\n", 0, match.start())
            if not found or found[-1][0] != line:
                found.append((line, content._STATE_KINDS[match.lastgroup or "commit"]))
    return found


@settings(max_examples=400)
@given(texts(STATE_BITS), st.integers(1, 9))
def test_current_state_gate_finds_what_the_full_search_finds(text: str, first: int) -> None:
    assert content.current_state_lines(text, first) == state_lines_ungated(text, first)


def test_current_state_gate_knows_the_letters_ignorecase_matches() -> None:
    """``İ``, ``ı``, ``ſ`` and the Kelvin sign match ASCII letters under re.IGNORECASE:
    the keyword test sees them as those letters."""
    assert content.current_state_lines("412 te\u017fts pass\nat t\u0130p 3f9c2ab\n", 1) == [
        (1, "a test count"),
        (2, "a commit id at HEAD"),
    ]
    assert content.current_state_lines("T\u0131p 3f9c2ab1\n", 4) == [(4, "a commit id at HEAD")]
    assert patterns.folded("T\u0130P \u212a \u017f\u00e9") == "tip k s\u00e9"


def test_a_line_without_a_keyword_is_not_searched() -> None:
    assert patterns.lines_holding("a\nhead x\nb\nx head tip\n", ("head", "tip")) == [
        (2, 8),
        (11, 21),
    ]
    assert patterns.lines_holding("no keyword here", ("head",)) == []


# --- relative-date -----------------------------------------------------------------------------


def relative_lines_ungated(text: str, first: int) -> list[tuple[int, str]]:
    """The search as it was before the shortcut: every line split and looked at."""
    visible = markdown.strip_code(text).lower()
    starts = [0] + [pos + 1 for pos, ch in enumerate(visible) if ch == "\n"]
    by_line: dict[int, list[tuple[int, int]]] = {}
    for start, end in content.relative_spans(visible):
        number = max(k for k, s in enumerate(starts) if s <= start)
        by_line.setdefault(number, []).append((start - starts[number], end - starts[number]))
    raw = text.split("\n")
    found = []
    for number, held in sorted(by_line.items()):
        if re.search(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)", raw[number]):
            continue
        line_end = starts[number + 1] - 1 if number + 1 < len(starts) else len(visible)
        words = content._first_unquoted(visible[starts[number] : line_end], held)
        if words is not None:
            found.append((number + first, words))
    return found if content.relative_spans(text.lower()) else []


@settings(max_examples=400)
@given(texts(RELATIVE_BITS), st.integers(1, 9))
def test_relative_date_shortcut_finds_what_the_full_search_finds(text: str, first: int) -> None:
    assert content.relative_date_lines(text, first) == relative_lines_ungated(text, first)


# --- personal-data -----------------------------------------------------------------------------


@given(texts(["ann.lee", "@", "acme.io", "+44 20 7946 0958", "+", "\n", " ", ".", "x"]))
def test_personal_data_gate_finds_what_every_line_gives(text: str) -> None:
    """A last line holding only ``@`` (no address) takes every text past the gate."""
    ungated = list(secrets.personal_data_in(text + "\n@", 1))
    assert list(secrets.personal_data_in(text, 1)) == ungated


# --- near-duplicate's words --------------------------------------------------------------------


@settings(max_examples=400)
@given(texts(WORD_BITS))
def test_word_fast_path_finds_the_words_the_regex_finds(body: str) -> None:
    """Bytes split on a body whose non-ASCII characters are all separators, the regex on
    any other: the same words, case-folded, either way."""
    expected = [word.encode() for word in re.findall(r"\w+", body.casefold())]
    assert duplicates.encoded_words(body) == expected


def test_word_fast_path_takes_separators_only() -> None:
    assert duplicates._only_separators("\u2014\u2019\u00a0\U0001f600".encode())
    assert not duplicates._only_separators("\u00e9".encode())  # a letter
    assert not duplicates._only_separators("\u03a3".encode())  # case-folds to another
    assert duplicates.encoded_words("Deploy\u2014then \u201ctest\u201d") == [
        b"deploy",
        b"then",
        b"test",
    ]


def test_a_pattern_is_compiled_on_first_use() -> None:
    lazy = patterns.Lazy(r"a(b)")
    assert "search" not in vars(lazy)
    assert lazy.search("xab").group(1) == "b"
    assert "search" in vars(lazy) and lazy.findall("abab") == ["b", "b"]
