"""The near-duplicate fingerprint and exact comparison are linear: 1 MiB vs 4 MiB costs ~4x.

In the style of tests/test_linear_time.py (and with its measuring helpers): each row of
:data:`CASES` builds a hostile note body of about ``size`` characters and runs the real
code on it in a child process (``python tests/test_linear_dupes.py NAME TMP``), so a
super-linear step fails the growth check (or the timeout) instead of hanging the suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from test_linear_time import Case, assert_linear_row, child_row, repeat

from engramory.doctor.rules.duplicates import (
    fingerprint_of,
    likeness,
    normal_description,
    text_parts,
)


def fingerprinted(text: str, tmp: Path) -> object:
    return len(fingerprint_of("", text))


def described(text: str, tmp: Path) -> object:
    return len(normal_description(text))


def compared(text: str, tmp: Path) -> object:
    """Both halves as notes, compared exactly (the store pass's confirmation)."""
    one, other = text.split("\0")
    return likeness(text_parts(one.encode()), text_parts(other.encode()))


def distinct_words(size: int) -> str:
    return " ".join(f"w{i}" for i in range(size // 8))


def near_copies(size: int) -> str:
    body = distinct_words(size // 2)
    return f"---\ndescription: a\n---\n{body}\0---\ndescription: b\n---\n{body} last"


CASES: list[Case] = [
    Case("fingerprint: distinct words", distinct_words, fingerprinted),
    Case("fingerprint: one word repeated", lambda n: repeat("ab ", n), fingerprinted),
    Case("fingerprint: one huge word", lambda n: "x" * n, fingerprinted),
    Case("fingerprint: punctuation, no word", lambda n: repeat(".,;- ", n), fingerprinted),
    Case("fingerprint: a word per line", lambda n: repeat("w\n", n), fingerprinted),
    Case("fingerprint: words between dashes", lambda n: repeat("w\u2014", n), fingerprinted),
    Case("description: whitespace runs", lambda n: repeat(" \t\u00a0", n, tail="x"), described),
    Case("compare: two near copies of a huge note", near_copies, compared),
]


def test_the_cases_do_what_they_say(tmp_path: Path) -> None:
    assert fingerprinted(distinct_words(1000), tmp_path) == 68  # 17 keys
    assert fingerprinted("x" * 1000, tmp_path) == 0  # one word: takes no part
    assert described(repeat(" \t", 100, tail="x"), tmp_path) == 1
    alike = compared(near_copies(4000), tmp_path)
    assert alike is not None and alike.shared > 0.99


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_time_grows_linearly(case: Case, tmp_path: Path) -> None:
    assert_linear_row(__file__, case, tmp_path)


if __name__ == "__main__":
    child_row(CASES, sys.argv[1], sys.argv[2])
