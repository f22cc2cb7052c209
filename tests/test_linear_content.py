"""The content rules' scans and the allow comment are linear: 1 MiB vs 4 MiB costs about 4x.

In the style of tests/test_linear_time.py (and with its measuring helpers): each row of
:data:`CASES` builds a hostile input of about ``size`` characters and runs the real scan
on it in a child process (``python tests/test_linear_content.py NAME TMP``), so a
quadratic pattern fails the growth check (or the timeout) instead of hanging the suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from test_linear_time import Case, assert_linear_row, child_row, repeat

from engramory.doctor.allow import line_allows
from engramory.doctor.rules import content


def relative(text: str, tmp: Path) -> object:
    return len(content.relative_date_lines(text, 1))


def state(text: str, tmp: Path) -> object:
    return len(content.current_state_lines(text, 1))


def log(text: str, tmp: Path) -> object:
    return content.first_log_line(text, 1)


def series(text: str, tmp: Path) -> object:
    return content.series_key(text)


def allows(text: str, tmp: Path) -> object:
    return len(line_allows(text))


CASES: list[Case] = [
    Case("relative: quoted words on one line", lambda n: repeat('"today" ', n), relative),
    Case("relative: a run of digits and blanks", lambda n: repeat("1 ", n, tail="day"), relative),
    Case("relative: 'in' and 'this' without an end", lambda n: repeat("in this  ", n), relative),
    Case("relative: backtick runs", lambda n: repeat("` `` today ", n), relative),
    Case("relative: 'excludes today' repeated", lambda n: repeat("excludes today ", n), relative),
    Case(
        "relative: 'today' between long words",
        lambda n: repeat("x" * 30 + " today " + "y" * 30 + " ", n),
        relative,
    ),
    Case("relative: counts without 'ago'", lambda n: repeat("in 30 days ", n), relative),
    Case("state: a run of hex", lambda n: repeat("a", n), state),
    Case("state: HEAD without an id", lambda n: repeat("HEAD tip ", n), state),
    Case("state: digits and 'tests'", lambda n: repeat("12 tests ", n), state),
    Case("state: a keyword on every line", lambda n: repeat("head tip test\n", n), state),
    Case(
        "state: 'current version' without a digit", lambda n: repeat("current version ", n), state
    ),
    Case("log: marker runs without a timestamp", lambda n: repeat("-" * 11 + "1\n", n), log),
    Case("log: timestamps inside a fence", lambda n: repeat("10:00\n", n, "```\n"), log),
    Case("series: a slug of digits", lambda n: repeat("1", n), series),
    Case("allow: unclosed comments on one line", lambda n: repeat("<!-- engramory: ", n), allows),
    Case(
        "allow: a comment on every line",
        lambda n: repeat("<!-- engramory: allow a,b -->\n", n),
        allows,
    ),
]


def test_the_cases_do_what_they_say(tmp_path: Path) -> None:
    """The hostile inputs, small: each takes the path its name promises."""
    assert relative(repeat('"today" ', 100), tmp_path) == 0
    assert relative(repeat("` `` today ", 100), tmp_path) == 1
    assert relative(repeat("excludes today ", 100), tmp_path) == 0
    assert relative(repeat("x" * 30 + " today " + "y" * 30 + " ", 100), tmp_path) == 1
    assert relative(repeat("in 30 days ", 100), tmp_path) == 0
    assert state(repeat("12 tests ", 100), tmp_path) == 0
    assert log(repeat("10:00\n", 100, "```\n"), tmp_path) is None
    assert (
        allows(repeat("<!-- engramory: allow a,b -->\n", 300), tmp_path) == 11
    )  # and the line after


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_time_grows_linearly(case: Case, tmp_path: Path) -> None:
    assert_linear_row(__file__, case, tmp_path)


if __name__ == "__main__":
    child_row(CASES, sys.argv[1], sys.argv[2])
