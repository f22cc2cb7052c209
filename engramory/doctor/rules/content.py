"""Content rules: what notes say, not how they are shaped (issue 14).

The protocol's write-side rules, checked on the text: dates are absolute, a
project note records where to read current state rather than the state, a
note is a memory and not a per-turn log, stale project state is retired, a
fact lives in one note kept up to date (no dated series, no parallel handoff
store), and the store stays out of git. None of these is a schema rule:
``--no-schema`` keeps them. Every pattern here is linear on its worst input
(bounded repetitions, alternatives that start with distinct literals).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from datetime import date
from typing import TYPE_CHECKING

from engramory.doctor.context import NoteCheck, StoreView
from engramory.doctor.model import (
    INFO,
    NOTE,
    STORE,
    WARNING,
    Example,
    Issue,
    rule,
    sample_note,
)
from engramory.doctor.rules.patterns import Lazy, folded, lines_holding
from engramory.secrets.excerpts import excerpt
from engramory.store import markdown
from engramory.store.discovery import INDEX_NAME
from engramory.store.disk import ARCHIVE, ESCAPES, HANDOFF_PREFIXES, area_of
from engramory.store.frontmatter import decode

if TYPE_CHECKING:
    import subprocess

# Relative dates are found from their keywords with ``str.find`` on the lower-cased text
# (a scan with the whole pattern costs tens of microseconds per note), then each candidate
# is confirmed by an anchored pattern at, or in a short window before, the keyword.
# The grammar (see ``relative_date``): a day word (yesterday, today, tonight, tomorrow);
# this/last/next/past/coming + a period or a weekday; a count with "ago". A count
# without "ago" ("in 7 days", "for 3 weeks") is a length of time, not a date.
_WORD_STARTS = ("yesterday", "today", "tonight", "tomorrow", "this", "last", "next", "past")
_WORD_STARTS += ("coming",)
_AT_WORD = Lazy(
    r"(?:yesterday|today|tonight|tomorrow"
    r"|this[ \t]{1,4}(?:morning|afternoon|evening|week|month|quarter|year|sprint)"
    r"|(?:last|next|past|coming)[ \t]{1,4}(?:week|month|quarter|year|sprint"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
)
_UNIT_ENDS = ("ago",)
_UNIT_WINDOW = 24  # the longest "NNNN    months    " before "ago"
_WITH_NUMBER = Lazy(r"(?<!\w)\d{1,4}[ \t]{1,4}(?:days?|weeks?|months?|years?)[ \t]{1,4}ago\b")
# "today" names a day of a calendar or a range, not the day the note was written, after
# one of these words ("excludes today", "the today view") or before one of these
# ("today highlighted in red", "the Today button").
TODAY_NOUN_AFTER = frozenset(
    {"the", "exclude", "excludes", "excluded", "excluding", "except"}
    | {"include", "includes", "included", "including"}
)
TODAY_NOUN_BEFORE = frozenset(
    {"highlighted", "marked", "shown", "selected", "greyed", "grayed", "circled"}
    | {"button", "cell", "column", "tab", "view", "tile", "badge", "widget"}
)
_NEIGHBOUR = 16  # characters looked at beside "today": a few blanks and the longest word
CHINESE_RELATIVE = ("昨天", "今天", "明天", "前天", "后天", "上周", "下周", "本周", "上个月")
CHINESE_RELATIVE += ("下个月", "去年", "明年", "今年")
# Every English form holds one of these (a quick gate before the full search): ``day``
# stands for yesterday, today and the weekdays, ``week`` for weeks, ``month`` for
# months.
_GATE_WORDS = ("day", "ago", "tonight", "tomorrow", "week", "month", "quarter", "year")
_GATE_WORDS += ("morning", "afternoon", "evening", "sprint")
ABSOLUTE_DATE = Lazy(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")

_HEX_ID = r"[0-9a-fA-F]{7,40}"
CURRENT_STATE = Lazy(
    r"(?P<commit>(?<![0-9a-zA-Z])[0-9a-fA-F]{40}(?![0-9a-zA-Z]))"
    rf"|(?P<head>\b(?:HEAD|[Tt]ip)\b[^\n]{{0,40}}?(?<![0-9a-zA-Z]){_HEX_ID}(?![0-9a-zA-Z]))"
    r"|(?P<tests>\b\d{1,7}[ \t]{1,3}tests?[ \t]{1,3}(?:pass|passing|passed|green)\b)"
    r"|(?P<running>\bcurrently[ \t]{1,3}(?:on|at|running|using)[ \t]{1,3}v?\d)"
    r"|(?P<version>\b(?:current|latest)[ \t]{1,3}version(?:[ \t]{1,3}is[ \t]{1,3}|[ \t]{0,3}:"
    r"[ \t]{0,3})v?\d)",
    re.IGNORECASE,
)
_HEX40 = Lazy("[0-9a-f]{40}")  # on folded text: a commit id is on a line without a keyword
_STATE_WORDS = ("head", "tip", "test", "currently", "version")  # every other form holds one
_STATE_KINDS = {
    "commit": "a commit id",
    "head": "a commit id at HEAD",
    "tests": "a test count",
    "running": "a running version",
    "version": "a current version",
}

# A line that begins (after list, heading and quote markers) with a timestamp, found
# from the newline before it (see ``_timestamp_lines``): a pattern that starts on a
# literal is searched for far faster than one anchored with ``^`` at every position.
TIMESTAMP_LINE = Lazy(r"\n[ \t>#*+\-]{0,12}(?:\[?\d{4}-\d{2}-\d{2}(?!\d)|\d{1,2}:\d{2}(?!\d))")
LOG_LINES = 5

# A date inside a slug, with the separator next to it (see ``series_key``).
SLUG_DATE = Lazy(r"(?<!\d)(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}-\d{2})(?!\d)")
_SEPARATORS = "-_. "

PARALLEL_DIRS = frozenset({"sessions", "daily", "logs", "state"})

GIT_TIMEOUT = 5.0  # seconds per git call; a hung git never hangs the doctor


def _body(note: NoteCheck) -> tuple[str, int] | None:
    """The note's body text and the line number of its first line (``None``: not read)."""
    if note.fm is None:
        return None
    if note.fm.closed:
        return note.fm.body, note.fm.body_line
    return decode(note.read.data or b""), 1


def _line_starts(text: str, positions: Iterator[int], first: int) -> Iterator[int]:
    """The line number of each position in ``text`` (positions ascending), counted once."""
    line, counted = first, 0
    for pos in positions:
        line += text.count("\n", counted, pos)
        counted = pos
        yield line


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _find_all(text: str, word: str) -> Iterator[int]:
    pos = text.find(word)
    while pos >= 0:
        yield pos
        pos = text.find(word, pos + 1)


def may_hold_relative(low: str) -> bool:
    """False when lower-cased ``low`` certainly holds no relative date."""
    for word in _GATE_WORDS:
        if word in low:
            return True
    return not low.isascii() and any(word in low for word in CHINESE_RELATIVE)


def relative_spans(low: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every relative date in lower-cased ``low``, sorted (English
    words on word boundaries, the Chinese ones anywhere)."""
    spans: set[tuple[int, int]] = set()
    if not may_hold_relative(low):
        return []
    for word in [w for w in _WORD_STARTS if w in low]:
        for pos in _find_all(low, word):
            if pos == 0 or not _is_word_char(low[pos - 1]):
                match = _AT_WORD.match(low, pos)
                if match is not None and not (word == "today" and _today_is_a_noun(low, pos)):
                    spans.add(match.span())
    for unit in [u for u in _UNIT_ENDS if u in low]:
        for pos in _find_all(low, unit):
            end = pos + len(unit)
            if end < len(low) and _is_word_char(low[end]):
                continue
            offset = max(0, pos - _UNIT_WINDOW)
            match = _WITH_NUMBER.search(low[offset:end])
            if match is not None:
                spans.add((offset + match.start(), offset + match.end()))
    if not low.isascii():
        for word in [w for w in CHINESE_RELATIVE if w in low]:
            spans.update((pos, pos + len(word)) for pos in _find_all(low, word))
    return sorted(spans)


def _word_before(low: str, pos: int) -> str:
    """The word just before ``pos`` (blanks between); ``""`` when none, or longer than any
    word looked for."""
    stop = max(0, pos - _NEIGHBOUR)
    end = pos
    while end > stop and low[end - 1] in " \t":
        end -= 1
    start = end
    while start > stop and low[start - 1].isalpha():
        start -= 1
    if start == stop and start > 0 and low[start - 1].isalpha():
        return ""
    return low[start:end]


def _word_after(low: str, pos: int) -> str:
    """The word just after ``pos`` (blanks between); ``""`` when none, or longer than any
    word looked for."""
    stop = min(len(low), pos + _NEIGHBOUR)
    start = pos
    while start < stop and low[start] in " \t":
        start += 1
    end = start
    while end < stop and low[end].isalpha():
        end += 1
    if end == stop and end < len(low) and low[end].isalpha():
        return ""
    return low[start:end]


def _today_is_a_noun(low: str, pos: int) -> bool:
    """Whether "today" at ``pos`` names a day of a calendar or a range (see ``TODAY_NOUN_*``)."""
    return (
        _word_before(low, pos) in TODAY_NOUN_AFTER
        or _word_after(low, pos + len("today")) in TODAY_NOUN_BEFORE
    )


def _first_unquoted(line: str, spans: list[tuple[int, int]]) -> str | None:
    """The first of ``spans`` on ``line`` that is not inside a quotation (``"..."``,
    ``“...”``): a quoted phrase is cited text, not the note's own claim."""
    straight, opened, closed, pos = 0, 0, 0, 0
    last_straight, last_close = line.rfind('"'), line.rfind("”")
    for start, end in spans:
        straight += line.count('"', pos, start)
        opened += line.count("“", pos, start)
        closed += line.count("”", pos, start)
        pos = start
        quoted = (straight % 2 == 1 and last_straight >= end) or (
            opened > closed and last_close >= end
        )
        if not quoted:
            return line[start:end]
    return None


def relative_date_lines(text: str, first: int) -> list[tuple[int, str]]:
    """``(line, words)`` for each line of ``text`` (numbered from ``first``) holding a
    relative date outside code and quotations, without an absolute ``YYYY-MM-DD`` beside it."""
    low = text.lower()
    spans = relative_spans(low)
    if not spans:
        return []
    visible = low  # the same lines, code blanked
    if "`" in text or "~~~" in text:
        visible = markdown.strip_code(text).lower()
        spans = relative_spans(visible)
    by_line: dict[int, list[tuple[int, int]]] = {}  # where a line starts -> its spans
    begins, looked = 0, 0  # the spans are sorted: each stretch is looked through once
    for start, end in spans:
        begins = max(begins, visible.rfind("\n", looked, start) + 1)
        looked = start
        by_line.setdefault(begins, []).append((start - begins, end - begins))
    raw = text.split("\n") if by_line else []
    found: list[tuple[int, str]] = []
    counted, number = 0, 0
    for begins, held in sorted(by_line.items()):
        number += visible.count("\n", counted, begins)
        counted = begins
        if ABSOLUTE_DATE.search(raw[number]):
            continue
        line_end = visible.find("\n", begins)
        words = _first_unquoted(visible[begins : line_end if line_end >= 0 else None], held)
        if words is not None:
            found.append((number + first, words))
    return found


@rule(
    "relative-date",
    WARNING,
    "a relative date (yesterday, last week, 3 days ago, 昨天) in a note's body or description",
    fires=(
        Example(
            "`Deployed yesterday.` in the body",
            {"x.md": sample_note("x", body="Deployed yesterday.\n")},
        ),
        Example(
            "`description: the plan for next week`",
            {"x.md": sample_note("x", description="the plan for next week")},
        ),
        Example("`昨天发布了` in the body", {"x.md": sample_note("x", body="昨天发布了。\n")}),
        Example(
            "`Today we decided to pin the version.`",
            {"x.md": sample_note("x", body="Today we decided to pin the version.\n")},
        ),
        Example(
            "`Freeze the schema this sprint.`",
            {"x.md": sample_note("x", body="Freeze the schema this sprint.\n")},
        ),
        Example(
            "`Rotated the key 3 days ago.`",
            {"x.md": sample_note("x", body="Rotated the key 3 days ago.\n")},
        ),
    ),
    quiet=(
        Example(
            "a length of time: `0 bookings in 30 days`, `crash in 3 weeks`, `for 3 weeks`",
            {
                "x.md": sample_note(
                    "x", body="0 bookings in 30 days.\nA crash in 3 weeks.\nRan for 3 weeks.\n"
                )
            },
        ),
        Example(
            "`today` as a day on a calendar or in a range: `today highlighted in red`, "
            "`Excludes today (d-1)`",
            {
                "x.md": sample_note(
                    "x", body="The widget shows today highlighted in red.\nExcludes today (d-1).\n"
                )
            },
        ),
        Example(
            "`Deployed yesterday (2026-01-11).`: the absolute date is there",
            {"x.md": sample_note("x", body="Deployed yesterday (2026-01-11).\n")},
        ),
        Example(
            "`today` only inside a code span or a fenced block",
            {"x.md": sample_note("x", body="Run `make today`.\n\n```\ntoday\n```\n")},
        ),
        Example(
            'a quoted phrase: `the prompt "looks off this morning"`',
            {"x.md": sample_note("x", body='Demo the prompt "looks off this morning".\n')},
        ),
        Example(
            "`todays_report` (not a word on its own)",
            {"x.md": sample_note("x", body="See todays_report.\n")},
        ),
    ),
    scope=NOTE,
    fix="write the absolute date (YYYY-MM-DD): 'yesterday' means nothing a week later",
)
def relative_date(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """A relative date is, on a word boundary and outside code and quotations:

    * a day word: ``yesterday``, ``today``, ``tonight``, ``tomorrow``; but not ``today``
      naming a day of a calendar or a range: after ``the``, ``excludes``, ``including``
      ... (``TODAY_NOUN_AFTER``) or before ``highlighted``, ``button`` ...
      (``TODAY_NOUN_BEFORE``);
    * ``this``, ``last``, ``next``, ``past`` or ``coming`` and a period (``week``,
      ``month``, ``quarter``, ``year``, ``sprint``; ``this morning``) or a weekday;
    * a count with ``ago`` (``3 days ago``): a count without it (``in 7 days``, ``for 3
      weeks``, ``in the last 30 days``) is a length of time, not a date;
    * the Chinese words (``昨天``, ``上周`` ...), anywhere.

    A line that also holds a ``YYYY-MM-DD`` date is quiet.

    Fires: ``Deployed yesterday.``; ``description: the plan for next week``; ``昨天``;
    ``Today we decided``; ``this sprint``; ``3 days ago``.
    Quiet: beside an absolute date, inside code, ``todays_report``, ``0 bookings in 30
    days``, ``today highlighted in red``, ``Excludes today (d-1)``."""
    for note in notes:
        found = _body(note)
        if found is None:
            continue
        lines: list[tuple[int, str]] = []
        description = note.fm.fields.get("description", "") if note.fm is not None else ""
        line = note.fm.key_lines.get("description") if note.fm is not None else None
        if description and line is not None:
            lines.extend((line, words) for _, words in relative_date_lines(description, line)[:1])
        lines.extend(relative_date_lines(*found))
        for number, words in lines:
            yield (
                note.rel,
                number,
                f"{excerpt(words)} is a relative date: write the absolute date (YYYY-MM-DD) "
                "it means",
            )


def current_state_lines(text: str, first: int) -> list[tuple[int, str]]:
    """``(line, kind)`` of the first current-state statement on each line of ``text``.

    The pattern reads only the lines holding one of its keywords (``_STATE_WORDS``), or
    every line when the text holds a run of 40 hex digits (no match spans a line)."""
    low = folded(text)
    whole = _HEX40.search(low) is not None
    spans = [(0, len(text))] if whole else lines_holding(low, _STATE_WORDS)
    found: list[tuple[int, str]] = []
    counted, line = 0, first
    for start, end in spans:
        for match in CURRENT_STATE.finditer(text, start, end):
            if not _is_state(match):
                continue
            line += text.count("\n", counted, match.start())
            counted = match.start()
            if not found or found[-1][0] != line:
                found.append((line, _STATE_KINDS[match.lastgroup or "commit"]))
    return found


def _is_state(match: re.Match[str]) -> bool:
    """A hex id counts only when it holds a digit (``HEAD of defaced`` is prose)."""
    if match.lastgroup != "head":
        return True
    tail = match.group()[-7:]
    return any(ch.isdigit() for ch in tail) and any(not ch.isdigit() for ch in match.group()[4:])


@rule(
    "current-state",
    WARNING,
    "a project note recording current state (a commit id, a test count, the running version)",
    fires=(
        Example(
            "`Deployed at 0123456789abcdef0123456789abcdef01234567.` in a project note",
            {
                "x.md": sample_note(
                    "x",
                    "project",
                    body="Deployed at 0123456789abcdef0123456789abcdef01234567.\n\n"
                    "**Why:** r.\n\n**How to apply:** s.\n",
                )
            },
        ),
        Example(
            "`412 tests pass on HEAD 3f9c2ab.` in a project note",
            {
                "x.md": sample_note(
                    "x",
                    "project",
                    body="412 tests pass on HEAD 3f9c2ab.\n\n**Why:** r.\n\n**How to apply:** s.\n",
                )
            },
        ),
        Example(
            "`The current version is 2.4.` in a project note",
            {
                "x.md": sample_note(
                    "x",
                    "project",
                    body="The current version is 2.4.\n\n**Why:** r.\n\n**How to apply:** s.\n",
                )
            },
        ),
    ),
    quiet=(
        Example(
            "a 40-hex commit id in a reference note",
            {
                "x.md": sample_note(
                    "x", "reference", body="Fixed in 0123456789abcdef0123456789abcdef01234567.\n"
                )
            },
        ),
        Example(
            "`the test count: run make test` in a project note",
            {
                "x.md": sample_note(
                    "x",
                    "project",
                    body="For the test count run `make test`.\n\n**Why:** r.\n\n"
                    "**How to apply:** s.\n",
                )
            },
        ),
    ),
    scope=NOTE,
    fix="current state goes stale: record where to read it (a command, a file, a dashboard)",
)
def current_state(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: a 40-hex id, ``HEAD 3f9c2ab``, ``412 tests pass``, ``currently on v3``,
    ``latest version: 2.4`` in a project note. Quiet: the same in a reference note."""
    for note in notes:
        if note.note_type != "project":
            continue
        found = _body(note)
        if found is None:
            continue
        for line, kind in current_state_lines(*found):
            yield (
                note.rel,
                line,
                f"{kind} in a project note goes stale: record where to read it instead "
                "(a command, a file, a dashboard)",
            )


def _timestamp_lines(text: str) -> list[int]:
    """Where each line of ``text`` that begins with a timestamp starts."""
    # In "\n" + text, the newline before a line sits where that line starts in text.
    return [match.start() for match in TIMESTAMP_LINE.finditer("\n" + text)]


def first_log_line(text: str, first: int) -> int | None:
    """The first timestamped line of ``text`` when it has :data:`LOG_LINES` or more
    (fenced code blocks are not counted: a pasted log excerpt is a quote, not a log)."""
    if text.count("-") + 2 * text.count(":") < 2 * LOG_LINES:
        return None  # each timestamp holds two dashes or a colon
    positions = _timestamp_lines(text)
    if len(positions) < LOG_LINES:
        return None
    visible = markdown.strip_code(text) if ("```" in text or "~~~" in text) else text
    positions = _timestamp_lines(visible)
    if len(positions) < LOG_LINES:
        return None
    return next(_line_starts(visible, iter(positions[:1]), first))


@rule(
    "per-turn-log",
    WARNING,
    "a note of five or more timestamped lines: a log, not a memory",
    fires=(
        Example(
            "five lines `- 2026-01-0N: did X`",
            {
                "x.md": sample_note(
                    "x", body="".join(f"- 2026-01-0{d}: worked on it\n" for d in range(1, 6))
                )
            },
        ),
        Example(
            "five lines `10:1N asked ...`",
            {"x.md": sample_note("x", body="".join(f"10:1{d} asked\n" for d in range(5)))},
        ),
    ),
    quiet=(
        Example(
            "four timestamped lines",
            {
                "x.md": sample_note(
                    "x", body="".join(f"- 2026-01-0{d}: worked on it\n" for d in range(1, 5))
                )
            },
        ),
        Example(
            "a pasted log inside a fenced block",
            {
                "x.md": sample_note(
                    "x", body="```\n" + "".join(f"10:1{d} line\n" for d in range(6)) + "```\n"
                )
            },
        ),
    ),
    scope=NOTE,
    fix="keep the lasting facts (decisions, their reasons) and drop the turn-by-turn log",
)
def per_turn_log(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: five lines starting ``- 2026-01-0N`` or ``10:1N``.
    Quiet: four such lines, or a log inside a fenced block."""
    for note in notes:
        found = _body(note)
        if found is None:
            continue
        line = first_log_line(*found)
        if line is not None:
            yield (
                note.rel,
                line,
                f"{LOG_LINES} or more lines begin with a timestamp: a log, not a memory; "
                "keep the lasting facts",
            )


def days_stale(updated: str, today: date, limit: int) -> int | None:
    """Days between ``updated`` (``YYYY-MM-DD``) and ``today`` when more than ``limit``."""
    if limit <= 0 or len(updated) != 10 or not updated.isascii():
        return None
    try:
        days = (today - date.fromisoformat(updated)).days
    except ValueError:
        return None
    return days if days > limit else None


@rule(
    "stale-project",
    INFO,
    "a project note not updated for more than --stale-days days (default 90; 0: off)",
    fires=(
        Example(
            "a project note with `updated: 2020-01-12`",
            {"x.md": sample_note("x", "project", created="2020-01-10", updated="2020-01-12")},
        ),
    ),
    quiet=(
        Example(
            "a user note with `updated: 2020-01-12`",
            {"x.md": sample_note("x", "user", created="2020-01-10", updated="2020-01-12")},
        ),
        Example(
            "the same project note with --stale-days 0",
            {"x.md": sample_note("x", "project", created="2020-01-10", updated="2020-01-12")},
            flags=("--stale-days", "0"),
        ),
    ),
    scope=NOTE,
    fix="is this task finished? retire its transient state or move the note to archive/",
)
def stale_project(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: a project note updated more than ``--stale-days`` days ago.
    Quiet: other types, recent notes, ``--stale-days 0``."""
    for note in notes:
        if note.note_type != "project" or note.fm is None:
            continue
        options = note.options
        days = days_stale(note.fm.fields.get("updated", ""), options.today, options.stale_days)
        if days is not None:
            yield (
                note.rel,
                note.fm.key_lines.get("updated"),
                f"not updated for {days:,} days (more than {options.stale_days}): is this task "
                "finished? retire its transient state or archive it",
            )


def series_key(slug: str) -> str | None:
    """``slug`` without its date and the separator next to it (casefolded); ``None``
    when it holds no plausible date (``YYYY-MM-DD``, ``YYYYMMDD``, ``YYYY-MM``)."""
    for match in SLUG_DATE.finditer(slug):
        digits = match.group().replace("-", "")
        year, month = int(digits[:4]), int(digits[4:6])
        day = int(digits[6:8]) if len(digits) == 8 else 1
        if not (1900 <= year <= 2199 and 1 <= month <= 12 and 1 <= day <= 31):
            continue
        start, end = match.start(), match.end()
        if start > 0 and slug[start - 1] in _SEPARATORS:
            start -= 1
        elif end < len(slug) and slug[end] in _SEPARATORS:
            end += 1
        return (slug[:start] + slug[end:]).casefold()
    return None


@rule(
    "dated-series",
    WARNING,
    "live notes whose names differ only by a date (status-2026-03-01, status-2026-03-08)",
    fires=(
        Example(
            "`status-2026-03-01.md` and `status-2026-03-08.md`",
            {
                "status-2026-03-01.md": sample_note("status-2026-03-01"),
                "status-2026-03-08.md": sample_note("status-2026-03-08"),
            },
        ),
    ),
    quiet=(
        Example(
            "`status.md` and `archive/status-2026-03-01.md`",
            {
                "status.md": sample_note("status"),
                "archive/status-2026-03-01.md": sample_note("status-2026-03-01"),
            },
        ),
        Example(
            "`release-2026-03.md` and `rollout-2026-03.md`",
            {
                "release-2026-03.md": sample_note("release-2026-03"),
                "rollout-2026-03.md": sample_note("rollout-2026-03"),
            },
        ),
    ),
    scope=STORE,
    fix="keep one live note updated in place; move the older snapshots to archive/",
)
def dated_series(view: StoreView) -> Iterator[Issue]:
    """Fires: ``status-2026-03-01`` and ``status-2026-03-08``.
    Quiet: one live note and an archived one; different names with dates."""
    groups: dict[str, list[int]] = {}  # series key -> the dated notes of that series
    undated: list[int] = []
    for number, summary in enumerate(view.notes):
        if summary.status == ESCAPES:
            continue
        key = series_key(summary.file.slug)
        if key is None:
            undated.append(number)
        else:
            groups.setdefault(key, []).append(number)
    if not groups:
        return
    for number in undated:  # a live undated note named like a series belongs to it
        members = groups.get(view.notes[number].file.slug.casefold())
        if members is not None:
            members.append(number)
    for key in sorted(groups):
        members = sorted(groups[key])
        if len(members) < 2:
            continue
        stem = excerpt(key) if key else "named only by a date"
        for number in members:
            yield (
                view.notes[number].rel,
                None,
                f"one of {len(members)} live notes in a dated series ({stem}): keep one live "
                "note updated in place and archive the snapshots",
            )


def _handoff_name(name: str) -> bool:
    return name.casefold().startswith(HANDOFF_PREFIXES)


def parallel_entries(view: StoreView) -> Iterator[tuple[str, bool]]:
    """``(path, is_directory)`` of every live entry that looks like a parallel store."""
    for rel in view.walk.dirs:
        name = rel.rsplit("/", 1)[-1]
        if area_of(rel + "/x") == ARCHIVE or rel.casefold() == ARCHIVE:
            continue
        if _handoff_name(name) or name.casefold() in PARALLEL_DIRS:
            yield rel, True
    for rel in view.walk.loose:
        yield rel, False
    for summary in view.notes:
        if _handoff_name(summary.file.name):
            yield summary.rel, False


@rule(
    "handoff-store",
    WARNING,
    "a handoff file or a sessions/daily/logs/state directory in the store: a parallel store",
    fires=(
        Example("a file `HANDOFF.md` in the store", {"HANDOFF.md": "# Handoff\n\nNext: X.\n"}),
        Example(
            "a directory `sessions/`",
            {"sessions/2026-01-10.md": sample_note("2026-01-10")},
        ),
        Example("a file `handoff.json`", {"handoff.json": "{}\n"}),
    ),
    quiet=(
        Example(
            "`archive/handoff-old.md`",
            {"archive/handoff-old.md": sample_note("handoff-old")},
        ),
        Example("a note `handover-notes.md`", {"handover-notes.md": sample_note("handover-notes")}),
    ),
    scope=STORE,
    fix="fold what a handoff or session file says into the notes and the index, then delete it",
)
def handoff_store(view: StoreView) -> Iterator[Issue]:
    """Fires: ``HANDOFF.md``, ``sessions/``, ``handoff.json``.
    Quiet: under ``archive/``; ``handover-notes.md``."""
    for rel, is_dir in sorted(parallel_entries(view)):
        what = "a directory" if is_dir else "a file"
        yield (
            rel,
            None,
            f"{what} that keeps a parallel store beside the protocol's (handoffs, sessions, "
            "logs): fold what it says into notes and the index, then remove it",
        )


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess[str] | None:
    """Run git without a shell and with a timeout; ``None`` when it cannot run at all."""
    import shutil  # noqa: PLC0415 - only this rule needs them; every command imports the rules
    import subprocess  # noqa: PLC0415

    git = shutil.which("git")
    if git is None:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    try:
        return subprocess.run(
            [git, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def store_is_committable(root: str) -> bool:
    """True when ``root`` lies inside a git work tree whose top is a proper parent of it
    and git says its ``MEMORY.md`` is not ignored. Anything unexpected from git: False."""
    top = _git(["rev-parse", "--show-toplevel"], root)
    if top is None or top.returncode != 0:
        return False
    lines = top.stdout.splitlines()
    if not lines:
        return False
    top_dir = os.path.realpath(lines[0])
    store = os.path.realpath(root)
    if top_dir == store or os.path.commonpath([top_dir, store]) != top_dir:
        return False
    ignored = _git(["check-ignore", "-q", "--", os.path.join(store, INDEX_NAME)], top_dir)
    return ignored is not None and ignored.returncode == 1


# The least git needs to see a repository around an example store (no git run to make it).
_GIT_REPO = {".git/HEAD": "ref: refs/heads/main\n", ".git/objects/.keep": "", ".git/refs/.keep": ""}


@rule(
    "not-gitignored",
    WARNING,
    "the store lies inside a git work tree and its MEMORY.md is not ignored",
    fires=(
        Example(
            "a store in a git repository (a `.git/` beside it) without an ignore entry",
            {"x.md": sample_note("x")},
            outside=_GIT_REPO,
        ),
    ),
    quiet=(
        Example("a store outside any git repository", {"x.md": sample_note("x")}),
        Example(
            "the same store with `store/` in the repository's `.gitignore`",
            {"x.md": sample_note("x")},
            outside={**_GIT_REPO, ".gitignore": "store/\n"},
        ),
        Example(
            "the same store committed on purpose: `<!-- engramory: allow not-gitignored -->` in "
            "MEMORY.md",
            {
                "MEMORY.md": "# Memory index\n\n<!-- engramory: allow not-gitignored -->\n"
                "- [x](x.md) — when it matters\n",
                "x.md": sample_note("x"),
            },
            outside=_GIT_REPO,
        ),
    ),
    scope=STORE,
    fix="committing the store publishes it: add it to .gitignore (`engramory init` does), or "
    "put `<!-- engramory: allow not-gitignored -->` in MEMORY.md when it is committed on purpose",
)
def not_gitignored(view: StoreView) -> Iterator[Issue]:
    """Fires: a store inside a git work tree, not ignored.
    Quiet: outside git, ignored, the top of its own repository, git missing or failing."""
    if store_is_committable(view.root):
        yield (
            INDEX_NAME,
            None,
            "the store is inside a git work tree and not ignored: committing it publishes it; "
            "add it to .gitignore (`engramory init` does)",
        )
