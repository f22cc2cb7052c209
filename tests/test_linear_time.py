"""Every scan is linear: each hostile input, at 1 MiB and at 4 MiB, costs about 4x, not 16x or 64x.

Issue 10, item 8. Each row of :data:`CASES` is ``(name, build, run)``: ``build(size)``
makes a hostile text of about ``size`` characters (the worst input of one pattern
or scan), ``run(text, tmp)`` feeds it to the real code (the parser, the index
scan, the doctor on a store written to ``tmp``, or the CLI end to end). Another
module's patterns join by appending rows.

Each row is measured in a child process (``python tests/test_linear_time.py
NAME``) with a timeout, so a super-linear scan fails the test instead of
hanging it. The main check is the growth: time(4 MiB) <= 8 x time(1 MiB)
(linear is 4x, quadratic 16x). The absolute bound per row is only a backstop.

A scaling test that fails once under load is a defect of the test (issue 32:
9.0x on a loaded 2-CPU machine), so the time is the process's own CPU time
(``time.process_time``: other processes on a busy machine do not count, as
they do in wall-clock time), each size keeps its fastest run, and the sizes are
measured in alternating rounds until the growth is clearly linear or the round
budget is spent: a stall slows one run, a super-linear scan every run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from doctorkit import TODAY, make_store, note
from engramory.cli import main
from engramory.doctor import engine
from engramory.doctor.context import Options
from engramory.doctor.rules import schema as rules_schema
from engramory.store import frontmatter, markdown
from engramory.store.caps import Caps

REPO = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024
SMALL, LARGE = MIB, 4 * MIB
GROWTH = 8.0  # linear is 4x, quadratic 16x
FLOOR = 0.05  # CPU seconds: a 1 MiB time below this counts as this (tiny timings jitter)
BACKSTOP = 20.0  # CPU seconds for one 4 MiB run
TIMEOUT = 180  # wall seconds for one row in its child process (all rounds; a hang fails)
ROUNDS = 4  # at most this many rounds of (1 MiB, 4 MiB) runs (see child_row)
BUDGET = 60.0  # wall seconds: no new round starts after this (see child_row)
CLEARLY = 0.75  # a round ends the measuring once the growth is within this share of allowed

# Caps under which a 4 MiB index is still read and parsed (the read limit is 8 x hard bytes).
BIG_CAPS = Caps(warn_bytes=MIB, hard_bytes=MIB)
BIG_CAP_FLAGS = ("--warn-bytes", str(MIB), "--hard-bytes", str(MIB))


class Case(NamedTuple):
    name: str
    build: Callable[[int], str]
    run: Callable[[str, Path], object]


def repeat(unit: str, size: int, head: str = "", tail: str = "") -> str:
    """``head``, then ``unit`` repeated up to ``size`` characters in all, then ``tail``."""
    return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


def feedback(body: str) -> str:
    """A valid feedback note around ``body`` (the label rules look at its body)."""
    return note("n", "feedback", body=body)


# --- what a row runs ----------------------------------------------------------------------------


def scan_index(text: str, tmp: Path) -> object:
    """What the doctor does with the index text: classify every line, look at each one's code."""
    lines = markdown.classify_index(text)
    return sum(markdown.has_code_span_path(line.text) for line in lines)


def doctor_on_index(text: str, tmp: Path) -> object:
    """The doctor (every rule) on a store whose index is ``text``."""
    root = make_store(tmp / "store", {}, index=text)
    return engine.run(str(root), BIG_CAPS, Options(today=TODAY)).findings


def doctor_on_note(text: str, tmp: Path) -> object:
    """The doctor (every rule) on a store holding one indexed note ``n.md`` of text ``text``."""
    root = make_store(tmp / "store", {"n.md": text}, index="# Notes\n\n- [n](n.md) — x\n")
    return engine.run(str(root), Caps(), Options(today=TODAY)).findings


def parse_frontmatter(text: str, tmp: Path) -> object:
    return frontmatter.parse(text)


def _cli(*args: str) -> int:
    with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink):
        return main(list(args))


def cli_doctor(text: str, tmp: Path) -> object:
    """``engramory doctor --format json`` end to end on a store whose index is ``text``."""
    root = make_store(tmp / "store", {}, index=text)
    return _cli("doctor", str(root), "--format", "json", *BIG_CAP_FLAGS)


def cli_doctor_text(text: str, tmp: Path) -> object:
    """``engramory doctor`` (text output) end to end on a store holding the note ``text``."""
    root = make_store(tmp / "store", {"n.md": text}, index="- [n](n.md) — x\n")
    return _cli("doctor", str(root))


def cli_check(text: str, tmp: Path) -> object:
    """``engramory check`` on an index of ``text`` (caps raised so that it is read)."""
    root = make_store(tmp / "store", {}, index=text)
    return _cli("check", str(root), "--hard-bytes", str(8 * MIB), "--warn-bytes", str(8 * MIB))


# --- the hostile inputs -------------------------------------------------------------------------

CASES: list[Case] = [
    # The shapes reproduced in issue 10.
    Case("index: a line of backticks (code span)", lambda n: "`" * n, cli_doctor),
    Case("index: prose, then backticks (code span)", lambda n: "a" + "`" * n, scan_index),
    Case("index: '`` `' repeated (code span)", lambda n: repeat("`` `", n), scan_index),
    Case("index: '# a # # ... x' (heading)", lambda n: repeat(" #", n, "# a", " x"), scan_index),
    Case("index: blanks, then '|x' (table rule)", lambda n: " " * n + "|x", cli_doctor),
    Case(
        "index: a row, then blanks and '|x' (table rule of the next line)",
        lambda n: "a | b\n" + " " * n + "|x",
        scan_index,
    ),
    Case("note: 'why' and blanks (label)", lambda n: feedback("why" + " " * n), doctor_on_note),
    Case("note: '**Why' and blanks (label)", lambda n: feedback("**Why" + " " * n), doctor_on_note),
    Case("note: a line of '*' (near-miss label)", lambda n: feedback("*" * n), cli_doctor_text),
    Case(
        "note: a frontmatter value of backslashes (unquote)",
        lambda n: '---\nname: "' + "\\" * n + '"\n---\n',
        parse_frontmatter,
    ),
    Case(
        "note: escaped quotes in a frontmatter value (unquote)",
        lambda n: repeat('\\"', n, '---\nname: "', '"\n---\n'),
        doctor_on_note,
    ),
    # One worst case per other pattern and scan audited.
    Case("index: '- - - ... x' (thematic break)", lambda n: repeat("- ", n, "", "x"), scan_index),
    Case("index: a fence of tildes", lambda n: "~" * n, scan_index),
    Case(
        "index: stars, then 'archived' (archived line)",
        lambda n: "*" * n + "archived",
        doctor_on_index,
    ),
    Case(
        "index: '[a](<' repeated (unclosed angle target)",
        lambda n: repeat("[a](<", n, "", ")"),
        scan_index,
    ),
    Case("index: '](' repeated (link targets)", lambda n: repeat("](", n, "", ")"), scan_index),
    Case(
        "index: '[a](x \"' repeated (unclosed titles)",
        lambda n: repeat('[a](x "', n, "", ")"),
        scan_index,
    ),
    Case("index: '[[a' repeated (wikilink)", lambda n: repeat("[[a", n), scan_index),
    Case("index: '[aaa...' (reference definition)", lambda n: "[" + "a" * n + "]x", scan_index),
    Case(
        "index: prose and blank lines (many findings)",
        lambda n: repeat("some prose here\n\n", n),
        doctor_on_index,
    ),
    Case(
        "note: 'Why:' on every line (empty labels)",
        lambda n: feedback(repeat("Why:\n", n)),
        doctor_on_note,
    ),
    Case(
        "note: 'how ' repeated on one line (label words)",
        lambda n: feedback(repeat("how ", n)),
        doctor_on_note,
    ),
    Case(
        "note: 'Why:' then underscores (label content)",
        lambda n: feedback("Why:" + "_" * n),
        doctor_on_note,
    ),
    Case(
        "note: '#' after an empty label (heading line)",
        lambda n: feedback("Why:\n" + "#" * n),
        doctor_on_note,
    ),
    Case(
        "note: '## Why' on every line (heading labels)",
        lambda n: feedback(repeat("## Why\n", n)),
        doctor_on_note,
    ),
    Case(
        "note: 'How to apply (' repeated on one line (more words, no colon)",
        lambda n: feedback(repeat("How to apply (", n)),
        doctor_on_note,
    ),
    Case(
        "note: 'Why x' lines without a colon (label phrase)",
        lambda n: feedback(repeat("**Why " + "x" * 70 + "\n", n)),
        doctor_on_note,
    ),
    Case(
        "note: 'Why - ' on every line (dash labels)",
        lambda n: feedback(repeat("Why - \n", n)),
        doctor_on_note,
    ),
    Case(
        "note: a frontmatter of 'x' lines (many findings)",
        lambda n: repeat("x\n", n, "---\n", "---\n"),
        doctor_on_note,
    ),
    Case(
        "note: one long unknown key (close matches)",
        lambda n: repeat("k", n, "---\n", ": v\n---\n"),
        doctor_on_note,
    ),
    Case(
        "note: backticks and a wikilink in the body (code stripping)",
        lambda n: feedback("[[a]] " + "`" * n),
        doctor_on_note,
    ),
    Case("check: a 4 MiB index of short lines", lambda n: repeat("- [a](a.md)\n", n), cli_check),
]


def cpu_seconds(run: Callable[[], object]) -> float:
    """The CPU time of one call of ``run``, in seconds (this process only)."""
    start = time.process_time()
    run()
    return time.process_time() - start


def fastest_pair(
    small: Callable[[], object],
    large: Callable[[], object],
    limit: Callable[[float], float],
    rounds: int = ROUNDS,
) -> tuple[float, float]:
    """``(small, large)``: the fastest CPU time of each of two runs, measured in alternating
    rounds (both sizes meet the same load). The first round whose large time is clearly
    within ``limit(small)`` (:data:`CLEARLY`) ends it; at most ``rounds``, and no round
    starts after :data:`BUDGET` wall seconds. The measuring helper of every scaling test."""
    best_small = best_large = float("inf")
    began = time.monotonic()
    for _ in range(rounds):
        best_small = min(best_small, cpu_seconds(small))
        best_large = min(best_large, cpu_seconds(large))
        if best_large <= CLEARLY * limit(best_small) or time.monotonic() - began > BUDGET:
            break
    return best_small, best_large


def allowed(small: float) -> float:
    """The most the 4 MiB run may take, given the 1 MiB time."""
    return GROWTH * max(small, FLOOR)


def child_row(cases: list[Case], name: str, tmp: str) -> None:
    """In the child process: time one row at both sizes (:func:`fastest_pair`), print
    ``[small, large]`` as JSON. Each run gets a fresh folder under ``tmp``."""
    (case,) = [c for c in cases if c.name == name]
    small_text, large_text = case.build(SMALL), case.build(LARGE)
    small, large = fastest_pair(
        lambda: case.run(small_text, Path(tempfile.mkdtemp(dir=tmp))),
        lambda: case.run(large_text, Path(tempfile.mkdtemp(dir=tmp))),
        allowed,
    )
    print(json.dumps([small, large]))


def assert_linear_row(script: str, case: Case, tmp_path: Path) -> None:
    """Run one row in a fresh process (``script NAME TMP``, which calls :func:`child_row`)
    and assert that its 4 MiB time is within :func:`allowed` of its 1 MiB time."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    env["PYTHONPATH"] = str(REPO)
    try:
        proc = subprocess.run(
            [sys.executable, script, case.name, str(tmp_path)],
            check=False,
            capture_output=True,
            text=True,
            env=env,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case.name}: not done in {TIMEOUT} s at 1 MiB and 4 MiB (a hang)")
    assert proc.returncode == 0, proc.stderr[-2000:]
    small, large = json.loads(proc.stdout.strip().splitlines()[-1])
    assert large <= allowed(small), (
        f"{case.name}: {small:.3f} s at 1 MiB, {large:.3f} s at 4 MiB of CPU time, the "
        f"fastest of each ({large / max(small, 1e-9):.1f}x; linear is 4x)"
    )
    assert large < BACKSTOP, f"{case.name}: {large:.1f} s at 4 MiB"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_time_grows_linearly(case: Case, tmp_path: Path) -> None:
    assert_linear_row(__file__, case, tmp_path)


# --- the scans that replaced patterns find exactly what the patterns found ---------------------
# (Short inputs: here the patterns are the oracle, and cheap.)

OLD_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
OLD_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
OLD_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{1,}:?[ \t]*(\|[ \t]*:?-{1,}:?[ \t]*)*\|?[ \t]*$")
OLD_LABEL = re.compile(
    r"^[ \t#>*\-+]*(?P<word>why|how[ \t]+to[ \t]+apply)[ \t]*\*{0,2}[ \t]*[:：]",
    re.IGNORECASE | re.MULTILINE,
)
# Issue 31's grammar, as patterns tried in turn on one line after the label word: the
# colon (old form), more words then the colon, a dash, or (on a heading) nothing.
LABEL_WORD = re.compile(r"[ \t#>*\-+]*(?P<word>why|how[ \t]+to[ \t]+apply)(?!\w)", re.IGNORECASE)
LABEL_ENDS = (
    re.compile(r"[ \t]*\*{0,2}[ \t]*[:：]"),
    re.compile(r"[^.?!。？！:：]{0,79}[:：]"),
    re.compile(r"[ \t]*\*{0,2}[ \t]*[-–—](?=[ \t]|$)"),
)
HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")


def new_labels(body: str) -> list[tuple[str, int, int]]:
    """The labels of ``body`` by the patterns of issue 31's grammar (the oracle)."""
    found, offset = [], 0
    for line in body.split("\n"):
        word = LABEL_WORD.match(line)
        if word is not None:
            end = next((m.end() for p in LABEL_ENDS if (m := p.match(line, word.end()))), None)
            if end is None and HEADING.match(line):
                end = len(line)
            if end is not None:
                found.append((word.group("word")[:3].lower(), offset, offset + end))
        offset += len(line) + 1
    return found


OLD_NEAR = {
    word: re.compile(r"^[ \t#>*\-+_|0-9.)]*\**_?" + word + r"\b", re.IGNORECASE | re.MULTILINE)
    for word in ("why", "how")
}


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="`a \n", max_size=30))
def test_code_spans_are_the_patterns_spans(text: str) -> None:
    expected = [(m.start(), m.start(2), m.end(2), m.end()) for m in OLD_CODE_SPAN.finditer(text)]
    assert markdown.code_spans(text) == expected
    masked = OLD_CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
    assert markdown.mask_code_spans(text) == masked


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="# \ta x", max_size=16))
def test_heading_title_is_the_patterns_title(line: str) -> None:
    match = OLD_HEADING.match(line)
    assert markdown.heading_title(line) == (None if match is None else match.group(2) or "")


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="|-: \tx\r", max_size=14))
def test_table_rule_is_the_patterns_rule(line: str) -> None:
    assert markdown.is_table_rule(line) == bool(OLD_TABLE_RULE.match(line))


LABEL_PARTS = st.lists(
    st.sampled_from(
        [
            "why",
            "Why",
            "how to apply",
            "HOW\tto  Apply",
            "how",
            "howto",
            " ",
            "\t",
            "*",
            "**",
            "#",
            "-",
            "1.",
            "_",
            "|",
            ":",
            "：",
            "x",
            "é",
            "\n",
            "## ",
            " - ",
            "—",
            "(x)",
            ".",
            "?",
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=1500, deadline=None)
@given(LABEL_PARTS)
def test_labels_and_near_misses_are_the_patterns(body: str) -> None:
    found = rules_schema.find_labels(body)
    assert found == new_labels(body)
    old = [(m.group("word")[:3].lower(), m.start(), m.end()) for m in OLD_LABEL.finditer(body)]
    assert set(old) <= set(found)  # every label that passed before still passes, alike
    for word, pattern in OLD_NEAR.items():
        match = pattern.search(body)
        first = None if match is None else body.count("\n", 0, match.start())
        found = [
            number
            for number, _offset, line in rules_schema._lines_holding(body, word)
            if rules_schema._near_miss_at(line, word)
        ]
        assert (found[0] if found else None) == first


if __name__ == "__main__":
    child_row(CASES, sys.argv[1], sys.argv[2])
