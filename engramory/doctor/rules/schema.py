"""Schema rules: each note's frontmatter and the body lines its type requires.

All of these are skipped by ``--no-schema`` (adopting an existing store starts
with structure only). They run only on notes that could be read.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Sequence
from datetime import date, timedelta
from functools import lru_cache, partial

from engramory.doctor.context import NOTE_TYPES, NoteCheck
from engramory.doctor.model import (
    ERROR,
    INFO,
    NOTE,
    WARNING,
    Example,
    Issue,
    Keyed,
    More,
    rule,
    sample_note,
)
from engramory.doctor.rules.patterns import Lazy, folded
from engramory.secrets.excerpts import excerpt
from engramory.store import frontmatter as fm

REQUIRED = ("name", "description", "type")
DATES = ("created", "updated")
SCOPES = ("global", "repo")
PROTOCOL_KEYS = frozenset({"name", "description", "type", "scope", "created", "updated"})
# Keys Claude Code's native memory writes (nested under `metadata:`), which the
# parser reads as plain keys because indentation is ignored.
HOST_NATIVE_KEYS = frozenset({"metadata", "originSessionId", "node_type", "modified"})
KNOWN_KEYS = PROTOCOL_KEYS | HOST_NATIVE_KEYS
TYPE_PREFIXES = tuple(f"{t}-" for t in NOTE_TYPES)
NEEDS_WHY_HOW = ("feedback", "project")

# Pieces of the examples: a frontmatter's fields without its fences, and a How line.
_FIELDS = (
    "name: x\ndescription: when to open x\ntype: user\ncreated: 2026-01-10\nupdated: 2026-01-12\n"
)
_HOW = "\n\n**How to apply:** the next step.\n"

_HEADING_LINE = Lazy(r"^ {0,3}#{1,6}([ \t]|$)")

# Labels are found by scanning each line once rather than by a pattern: the
# natural patterns (blanks or stars on both sides of an optional part) backtrack
# quadratically on a long line of blanks or stars.
_LABEL_MARKERS = " \t#>*-+"  # list, quote and heading markers and bold before a label
_NEAR_MARKERS = " \t#>*-+_|0123456789.)"  # ... and what hides one (numbers, tables, italics)
_BLANKS = " \t"
_COLONS = (":", "\uff1a")
_DASHES = ("-", "\u2013", "\u2014")  # -, en dash, em dash
# More words between a label and its colon: at most this many characters, and no
# sentence end among them (a question that starts with "Why" is not a label).
_LABEL_WORDS = 80
_SENTENCE_ENDS = frozenset(".?!\u3002\uff1f\uff01")


def _label_at(line: str) -> tuple[str, int] | None:
    """``(word, end)`` when ``line`` is a label: ``why`` or ``how``, ``end`` where its text starts.

    A label: at the line start, after any list/quote/heading markers and bold,
    the whole word "Why" or the words "How to apply" (any case), then

    * optional bold and ':' or '\uff1a' (``**Why:**``, ``How to apply:``), or
    * more words, then the colon, within a short phrase with no sentence end
      (``**Why (context):**``, ``**How to apply \u2014 the pattern:**``), or
    * optional bold and a dash before more words (``Why \u2014 because``), or
    * nothing that makes one of these on a Markdown heading (``## Why``,
      ``### Why this is a standing instruction``): the heading is the label and
      its text is what follows it, so ``end`` is the end of the line.
    """
    found = _label_word(line)
    if found is None:
        return None
    word, i = found
    if i < len(line) and _is_word_char(line[i]):
        return None  # "Whyever", "How to applying"
    end = _label_end(line, i)
    if end is not None:
        return word, end
    return (word, len(line)) if _HEADING_LINE.match(line) else None


def _label_word(line: str) -> tuple[str, int] | None:
    """``(word, i)`` when the line's first word after its markers is "Why" or "How to apply"
    (``i`` just after it)."""
    i = len(line) - len(line.lstrip(_LABEL_MARKERS))
    if line[i : i + 3].lower() == "why":
        return "why", i + 3
    if line[i : i + 3].lower() != "how":
        return None
    i += 3
    for part in ("to", "apply"):
        blanks = len(line) - i - len(line[i:].lstrip(_BLANKS))
        if not blanks or line[i + blanks : i + blanks + len(part)].lower() != part:
            return None
        i += blanks + len(part)
    return "how", i


def _label_end(line: str, i: int) -> int | None:
    """Just after the colon (or dash) ending the label whose word ends at ``i``, else ``None``."""
    j = len(line) - len(line[i:].lstrip(_BLANKS))
    j += 2 if line[j : j + 2] == "**" else 1 if line[j : j + 1] == "*" else 0
    j = len(line) - len(line[j:].lstrip(_BLANKS))
    if line[j : j + 1] in _COLONS:
        return j + 1
    phrase = line[i : i + _LABEL_WORDS]
    for at, ch in enumerate(phrase):
        if ch in _SENTENCE_ENDS:
            break
        if ch in _COLONS:
            return i + at + 1
    if line[j : j + 1] in _DASHES and line[j + 1 : j + 2] in ("", " ", "\t"):
        return j + 1
    return None


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _near_miss_at(line: str, word: str) -> bool:
    """The word at a line start in a form the label grammar does not accept (``1. Why``)."""
    i = len(line) - len(line.lstrip(_NEAR_MARKERS))
    end = i + len(word)
    return line[i:end].lower() == word and not (end < len(line) and _is_word_char(line[end]))


def _finder(text: str, word: str) -> Callable[[int], int]:
    """``find(pos)``: where the next ``word`` (``why``, ``how`` or either: ``label``, any
    case) starts at or after ``pos``, or -1. The text is searched folded with ``str.find``
    (offsets unchanged, and far faster than a case-blind pattern)."""
    low = folded(text)
    if word != "label":
        return partial(low.find, word)

    # Each word's next hit is kept until the search passes it: a word that is missing
    # (or far ahead) is searched for once, not once per line of the other.
    ahead = {"why": -2, "how": -2}  # -2: not searched yet; -1: no more

    def either(pos: int) -> int:
        for key, at in ahead.items():
            if at != -1 and at < pos:
                ahead[key] = low.find(key, pos)
        hits = [at for at in ahead.values() if at >= 0]
        return min(hits) if hits else -1

    return either


def _lines_holding(text: str, word: str) -> Iterator[tuple[int, int, str]]:
    """``(number, offset, line)`` of each line of ``text`` holding ``word`` (see ``_finder``).

    ``number`` is 0-based. A line is visited once however often the word occurs
    in it, and the search jumps to the next line: linear.
    """
    find = _finder(text, word)
    number, counted, pos = 0, 0, 0
    while True:
        hit = find(pos)
        if hit < 0:
            return
        start = text.rfind("\n", 0, hit) + 1
        end = text.find("\n", hit + 3)
        end = len(text) if end < 0 else end
        number += text.count("\n", counted, start)
        counted = start
        yield number, start, text[start:end]
        pos = end + 1


def find_labels(body: str) -> list[tuple[str, int, int]]:
    """``(word, start, end)`` of every Why:/How to apply: label (``start`` is the line start)."""
    labels = []
    for _number, offset, line in _lines_holding(body, "label"):
        found = _label_at(line)
        if found is not None:
            labels.append((found[0], offset, offset + found[1]))
    return labels


def _fields(note: NoteCheck) -> dict[str, str] | None:
    """The parsed fields, or ``None`` when there is no closed frontmatter to judge."""
    if note.fm is None or not note.fm.closed:
        return None
    return note.fm.fields


def _line_of(note: NoteCheck, key: str) -> int | None:
    return note.fm.key_lines.get(key) if note.fm is not None else None


@rule(
    "no-frontmatter",
    ERROR,
    "a note without a frontmatter block",
    fires=(Example("a note whose first line is `# Title`", {"x.md": "# Title\n\nA fact.\n"}),),
    quiet=(
        Example("a note starting with `---`, `name: ...` ... `---`", {"x.md": sample_note("x")}),
    ),
    scope=NOTE,
    schema=True,
    fix="start each note with a '---' block holding name, description, type, created and updated",
)
def no_frontmatter(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: a note whose first line is ``# Title``.
    Quiet: a note starting with ``---``, ``name: ...`` ... ``---``."""
    for note in notes:
        if note.fm is not None and not note.fm.present:
            yield (
                note.rel,
                1,
                "no frontmatter: start the note with a '---' line, then name, description, type, "
                "created and updated, then '---'",
            )


@rule(
    "frontmatter-syntax",
    ERROR,
    "a frontmatter problem (unclosed fence, malformed line, empty key, quoting)",
    fires=(
        Example(
            "`tags:` followed by `  - a` (a list item is not `key: value`)",
            {"x.md": "---\n" + _FIELDS + "tags:\n  - a\n---\n\nA fact.\n"},
        ),
        Example(
            '`description: "unclosed`',
            {"x.md": sample_note("x", description='"unclosed')},
        ),
        Example(
            "a frontmatter without its closing `---`",
            {"x.md": "---\n" + _FIELDS + "\nA fact.\n"},
        ),
    ),
    quiet=(
        Example(
            '`description: "a \\"quoted\\" word"`',
            {"x.md": sample_note("x", description='"a \\"quoted\\" word"')},
        ),
    ),
    scope=NOTE,
    schema=True,
    fix="each frontmatter line is 'key: value'; quote a value only as a whole, escaping inner "
    'quotes as \\"',
)
def frontmatter_syntax(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``tags:`` followed by ``  - a`` (a list item is not ``key: value``);
    ``description: "unclosed``; a frontmatter without its closing ``---``.
    Quiet: ``description: "a \\"quoted\\" word"``."""
    for note in notes:
        if note.fm is None:
            continue
        for problem in note.fm.problems:
            if problem.kind != fm.DUPLICATE_KEY:
                yield (note.rel, problem.line, problem.message)
        more = sum(n for kind, n in note.fm.dropped.items() if kind != fm.DUPLICATE_KEY)
        if more:
            yield (note.rel, None, More(more))


@rule(
    "duplicate-key",
    ERROR,
    "a frontmatter key set twice",
    fires=(
        Example(
            "`type: user` and later `type: feedback`",
            {"x.md": "---\n" + _FIELDS + "type: feedback\n---\n\nA fact.\n"},
        ),
    ),
    quiet=(Example("each key once", {"x.md": sample_note("x")}),),
    scope=NOTE,
    schema=True,
    fix="keep exactly one line per frontmatter key",
)
def duplicate_key(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``type: feedback`` and later ``type: user``.
    Quiet: each key once."""
    for note in notes:
        if note.fm is None:
            continue
        for problem in note.fm.problems:
            if problem.kind == fm.DUPLICATE_KEY:
                yield (note.rel, problem.line, problem.message)
        if note.fm.dropped.get(fm.DUPLICATE_KEY):
            yield (note.rel, None, More(note.fm.dropped[fm.DUPLICATE_KEY]))


@rule(
    "missing-field",
    ERROR,
    "name, description or type missing or empty",
    fires=(
        Example("no `description:` line", {"x.md": sample_note("x", description="")}),
        Example('`name: ""`', {"x.md": sample_note("x", name='""')}),
        Example(
            "`type:` with only spaces after it",
            {"x.md": "---\nname: x\ndescription: d\ntype:   \n---\n\nA fact.\n"},
        ),
    ),
    quiet=(Example("all three present and non-empty", {"x.md": sample_note("x")}),),
    scope=NOTE,
    schema=True,
    fix="fill in name (the file's slug), description (a one-line hook) and type",
    repair="name-mismatch",
    repair_keys=("name",),
)
def missing_field(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: no ``description:`` line; ``name: ""``; ``type:   ``.
    Quiet: all three present and non-empty."""
    for note in notes:
        fields = _fields(note)
        if fields is None:
            continue
        for key in REQUIRED:
            if not fields.get(key, "").strip():
                state = "is empty" if key in fields else "is missing"
                yield (
                    note.rel,
                    _line_of(note, key),
                    Keyed(f"'{key}' {state}: {_field_advice(note, key)}", key),
                )


def _field_advice(note: NoteCheck, key: str) -> str:
    if key == "name":
        return f"use the file's slug, {excerpt(note.file.slug)}"
    if key == "description":
        return "one line saying when a future session should open this note"
    return f"one of {fm.TYPES_TEXT}"


@rule(
    "invalid-type",
    ERROR,
    f"type is not exactly one of {fm.TYPES_TEXT}",
    fires=(
        Example("`type: Feedback`", {"x.md": sample_note("x", "Feedback")}),
        Example("`type: handoff`", {"x.md": sample_note("x", "handoff")}),
    ),
    quiet=(
        Example("`type: feedback`", {"x.md": sample_note("x", "feedback")}),
        Example('`type: "feedback"`', {"x.md": sample_note("x", "feedback", type='"feedback"')}),
    ),
    scope=NOTE,
    schema=True,
    fix=f"set type to exactly one of {fm.TYPES_TEXT} (lower-case)",
)
def invalid_type(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``type: Feedback``, ``type: handoff``, ``type: notes``.
    Quiet: ``type: feedback``, ``type: "feedback"``."""
    for note in notes:
        fields = _fields(note)
        if fields is None:
            continue
        value = fields.get("type", "")
        if value.strip() and value not in NOTE_TYPES:
            hint = " (types are lower-case)" if value.strip().lower() in NOTE_TYPES else ""
            yield (
                note.rel,
                _line_of(note, "type"),
                f"type {excerpt(value)} is not one of {fm.TYPES_TEXT}{hint}",
            )


@rule(
    "invalid-scope",
    ERROR,
    "scope present and not exactly global or repo",
    fires=(
        Example("`scope: Global`", {"x.md": sample_note("x", "feedback", scope="Global")}),
        Example("`scope: machine`", {"x.md": sample_note("x", "feedback", scope="machine")}),
    ),
    quiet=(
        Example("`scope: repo`", {"x.md": sample_note("x", "feedback", scope="repo")}),
        Example("no scope line", {"x.md": sample_note("x", "feedback", scope="")}),
    ),
    scope=NOTE,
    schema=True,
    fix="set scope to global or repo, or remove the line when the reach is unclear",
)
def invalid_scope(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``scope: Global``, ``scope: machine``.
    Quiet: ``scope: repo``, no scope line, ``scope:`` (empty counts as absent)."""
    for note in notes:
        fields = _fields(note)
        if fields is None:
            continue
        value = fields.get("scope", "")
        if value.strip() and value not in SCOPES:
            yield (
                note.rel,
                _line_of(note, "scope"),
                f"scope {excerpt(value)} is not global or repo (leave scope out when unsure)",
            )


@rule(
    "missing-date",
    ERROR,
    "created or updated missing or empty",
    fires=(
        Example("no `updated:` line", {"x.md": sample_note("x", updated="")}),
        Example(
            "no dates in a Claude Code note (with --profile claude-native: info, to add them at "
            "the next edit)",
            {"x.md": sample_note("x", created="", updated="")},
            flags=("--profile", "claude-native"),
        ),
    ),
    quiet=(
        Example(
            "`created: 2026-01-15` and `updated: 2026-02-01`",
            {"x.md": sample_note("x", created="2026-01-15", updated="2026-02-01")},
        ),
    ),
    scope=NOTE,
    schema=True,
    fix="add created: and updated: as YYYY-MM-DD (the dates of the fact, not of the file)",
    repair="missing-date",
)
def missing_date(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: no ``updated:`` line.
    Quiet: ``created: 2026-01-15`` and ``updated: 2026-02-01``."""
    for note in notes:
        fields = _fields(note)
        if fields is None:
            continue
        for key in DATES:
            if not fields.get(key, "").strip():
                state = "is empty" if key in fields else "is missing"
                message = Keyed(f"'{key}' {state}: write it as YYYY-MM-DD", key)
                yield (note.rel, _line_of(note, key), message)


@lru_cache(maxsize=4096)  # notes share dates: most values are parsed once per run
def _parse_date(value: str) -> date | None:
    """A real calendar date written exactly ``YYYY-MM-DD`` in ASCII digits, else ``None``."""
    if len(value) != 10 or value[4] != "-" or value[7] != "-" or not value.isascii():
        return None
    if not (value[:4].isdigit() and value[5:7].isdigit() and value[8:].isdigit()):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def _parsed_dates(note: NoteCheck) -> dict[str, date | None]:
    """``created``/``updated`` as dates (``None`` when invalid), parsed once per note."""
    if note.dates is None:
        fields = _fields(note) or {}
        note.dates = {key: _parse_date(fields[key]) for key in DATES if key in fields}
    return note.dates


def _dates(note: NoteCheck) -> dict[str, date]:
    """The ``created``/``updated`` values that are valid dates."""
    return {key: value for key, value in _parsed_dates(note).items() if value is not None}


@rule(
    "invalid-date",
    ERROR,
    "a date that is not YYYY-MM-DD in ASCII digits, or not a real calendar date",
    fires=(
        Example("`created: 2026-1-5`", {"x.md": sample_note("x", created="2026-1-5")}),
        Example("`created: 2026-02-30`", {"x.md": sample_note("x", created="2026-02-30")}),
        Example("`created: 15/01/2026`", {"x.md": sample_note("x", created="15/01/2026")}),
        Example(
            "full-width digits",
            {"x.md": sample_note("x", created="\uff12\uff10\uff12\uff16-01-05")},
        ),
    ),
    quiet=(
        Example("`created: 2024-02-29`", {"x.md": sample_note("x", created="2024-02-29")}),
        Example('`created: "2026-01-10"`', {"x.md": sample_note("x", created='"2026-01-10"')}),
    ),
    scope=NOTE,
    schema=True,
    fix="write dates as YYYY-MM-DD with real calendar dates, e.g. 2026-01-15",
    repair="invalid-date",
)
def invalid_date(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``created: 2026-1-5``, ``2026-02-30``, ``15/01/2026``, full-width digits.
    Quiet: ``created: 2024-02-29``; ``created: "2026-01-15"``."""
    for note in notes:
        fields = _fields(note)
        if fields is None:
            continue
        parsed = _parsed_dates(note)
        for key in DATES:
            value = fields.get(key, "")
            if value.strip() and parsed.get(key) is None:
                yield (
                    note.rel,
                    _line_of(note, key),
                    Keyed(f"'{key}' is {excerpt(value)}, not a real date in YYYY-MM-DD form", key),
                )


@rule(
    "date-order",
    WARNING,
    "updated is earlier than created",
    fires=(
        Example(
            "`created: 2026-05-01` with `updated: 2026-04-01`",
            {"x.md": sample_note("x", created="2026-05-01", updated="2026-04-01")},
        ),
    ),
    quiet=(
        Example(
            "equal dates", {"x.md": sample_note("x", created="2026-04-01", updated="2026-04-01")}
        ),
        Example("updated later", {"x.md": sample_note("x")}),
    ),
    scope=NOTE,
    schema=True,
    fix="make updated the same as or later than created",
)
def date_order(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``created: 2026-05-01`` with ``updated: 2026-04-01``.
    Quiet: equal dates, or updated later."""
    for note in notes:
        dates = _dates(note)
        if "created" in dates and "updated" in dates and dates["updated"] < dates["created"]:
            yield (
                note.rel,
                _line_of(note, "updated"),
                f"updated {dates['updated']} is earlier than created {dates['created']}",
            )


@rule(
    "future-date",
    WARNING,
    "a date after tomorrow (local time)",
    fires=(Example("`updated: 2099-01-01`", {"x.md": sample_note("x", updated="2099-01-01")}),),
    quiet=(Example("dates in the past", {"x.md": sample_note("x")}),),
    scope=NOTE,
    schema=True,
    fix="use the date the fact was settled; dates in the future are usually typos",
)
def future_date(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``updated: 2099-01-01``.
    Quiet: today's or tomorrow's date (time zones differ)."""
    limit = None
    for note in notes:
        if limit is None:
            limit = note.options.today + timedelta(days=1)
        for key, value in _dates(note).items():
            if value > limit:
                yield (note.rel, _line_of(note, key), f"'{key}' {value} is in the future")


def _labels(note: NoteCheck) -> list[tuple[str, int, int]]:
    """``(word, start, end)`` of every Why:/How to apply: label in the body (body offsets).

    ``word`` is ``why`` or ``how``; ``end`` is just after the colon. Found in
    one pass per note, shared by the label rules.
    """
    if note.labels is None:
        body = note.fm.body if note.fm is not None else ""
        note.labels = find_labels(body)
    return note.labels


def _label_check(note: NoteCheck, word: str) -> bool:
    """Whether the note's type needs the label (``why`` or ``how``) and its body lacks it."""
    if note.note_type not in NEEDS_WHY_HOW or note.fm is None:
        return False
    return not any(found == word for found, _start, _end in _labels(note))


def _near_miss(note: NoteCheck, word: str) -> int | None:
    """The line of the first near miss of the ``why`` or ``how`` label, else ``None``."""
    assert note.fm is not None
    for number, _offset, line in _lines_holding(note.fm.body, word):
        if _near_miss_at(line, word):
            return note.fm.body_line + number
    return None


@rule(
    "missing-why",
    ERROR,
    "a feedback or project note without a 'Why:' line in its body",
    fires=(
        Example(
            "`Why does the build fail? See: the log` (a question, not a label)",
            {
                "x.md": sample_note(
                    "x", "feedback", body="Why does the build fail? See: the log." + _HOW
                )
            },
        ),
        Example(
            "`_Why:_`", {"x.md": sample_note("x", "feedback", body="_Why:_ the reason." + _HOW)}
        ),
        Example(
            "`1. Why:`",
            {"x.md": sample_note("x", "feedback", body="1. Why: the reason." + _HOW)},
        ),
        Example(
            "no Why line at all", {"x.md": sample_note("x", "feedback", body="A fact." + _HOW)}
        ),
    ),
    quiet=tuple(
        Example(f"`{label}` ...", {"x.md": sample_note("x", "feedback", body=label + " r." + _HOW)})
        for label in ("**Why:**", "Why:", "- why :", "## Why:", "Why\uff1a", "**Why (context):**")
    )
    + tuple(
        Example(
            f"a heading `{heading}` with the reason below it",
            {"x.md": sample_note("x", "feedback", body=f"{heading}\n\nThe reason.\n" + _HOW)},
        )
        for heading in ("## Why", "### Why this is a standing instruction and not a nicety")
    ),
    scope=NOTE,
    schema=True,
    fix="add a line starting 'Why:' (or **Why:**, or a '## Why' heading) with the reason behind "
    "the note",
)
def missing_why(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: a feedback note whose body has ``Why does the build fail? See: ...`` (a
    question), ``_Why:_``, ``1. Why:``, or nothing at all.
    Quiet: ``**Why:** ...``, ``Why: ...``, ``- why : ...``, ``## Why: ...``, ``Why：...``,
    ``**Why (context):**``, a heading ``## Why`` or ``### Why this matters``."""
    for note in notes:
        if not _label_check(note, "why"):
            continue
        message = f"a {note.note_type} note needs a 'Why:' line: the reason behind it"
        near = _near_miss(note, "why")
        if near is not None:
            message += (
                f"; line {near} is close: write it at the start of a line as 'Why:' "
                "(add a colon; numbers, tables and underscores hide the label)"
            )
        yield (note.rel, None, message)


@rule(
    "missing-how-to-apply",
    ERROR,
    "a feedback or project note without a 'How to apply:' line in its body",
    fires=(
        Example(
            "a project note with `How:` only",
            {"x.md": sample_note("x", "project", body="**Why:** r.\n\nHow: do it.\n")},
        ),
        Example(
            "`**How**:` only",
            {"x.md": sample_note("x", "project", body="**Why:** r.\n\n**How**: do it.\n")},
        ),
        Example("no label", {"x.md": sample_note("x", "project", body="**Why:** r.\n")}),
    ),
    quiet=(
        Example(
            "`**How to apply:** ...`",
            {"x.md": sample_note("x", "project", body="**Why:** r.\n\n**How to apply:** s.\n")},
        ),
        Example(
            "`### How to apply: ...`",
            {"x.md": sample_note("x", "project", body="**Why:** r.\n\n### How to apply: s.\n")},
        ),
        Example(
            "a heading `## How to apply` with the steps below it",
            {"x.md": sample_note("x", "project", body="**Why:** r.\n\n## How to apply\n\ns.\n")},
        ),
        Example(
            "`**How to apply \u2014 the pattern:** ...`",
            {
                "x.md": sample_note(
                    "x", "project", body="**Why:** r.\n\n**How to apply \u2014 the pattern:** s.\n"
                )
            },
        ),
        Example(
            "`How to apply - steps:` ...",
            {"x.md": sample_note("x", "project", body="**Why:** r.\n\nHow to apply - steps: s.\n")},
        ),
    ),
    scope=NOTE,
    schema=True,
    fix="add a line starting 'How to apply:' (or **How to apply:**, or a '## How to apply' "
    "heading) with the concrete next action",
)
def missing_how_to_apply(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: a project note with ``How:`` or ``**How**:`` only, or no label.
    Quiet: ``**How to apply:** ...``, ``### How to apply: ...``, a heading ``## How to
    apply``, ``**How to apply — the pattern:**``, ``How to apply - steps:``."""
    for note in notes:
        if not _label_check(note, "how"):
            continue
        message = f"a {note.note_type} note needs a 'How to apply:' line: the concrete action"
        near = _near_miss(note, "how")
        if near is not None:
            message += f"; line {near} is close: use the full 'How to apply:' label, with its colon"
        yield (note.rel, None, message)


_CONTENT = Lazy(r"[^\W_]")  # a letter or a digit, in any script


def _has_content(text: str) -> bool:
    return _CONTENT.search(text) is not None


@rule(
    "empty-label",
    WARNING,
    "a Why: or How to apply: label with nothing after it",
    fires=(
        Example(
            "`**Why:**` followed directly by `**How to apply:** ...`",
            {"x.md": sample_note("x", "feedback", body="**Why:**\n**How to apply:** s.\n")},
        ),
        Example(
            "`**Why:**` followed by a heading",
            {
                "x.md": sample_note(
                    "x", "feedback", body="**Why:**\n## Detail\ntext\n\n**How to apply:** s.\n"
                )
            },
        ),
    ),
    quiet=(
        Example(
            "`**Why:**` followed by text on the same line or the lines below",
            {"x.md": sample_note("x", "feedback", body="**Why:**\nthe reason.\n" + _HOW)},
        ),
    ),
    scope=NOTE,
    schema=True,
    fix="write the reason after 'Why:' and the action after 'How to apply:'",
)
def empty_label(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``**Why:**`` followed directly by ``**How to apply:** ...`` or a heading.
    Quiet: ``**Why:**`` followed by text on the same line or the lines below."""
    for note in notes:
        if note.fm is None or note.note_type not in NEEDS_WHY_HOW:
            continue
        body = note.fm.body
        labels = _labels(note)
        line_no, counted = note.fm.body_line, 0  # counted forward, label by label: linear
        for i, (word, start, end) in enumerate(labels):
            end_of_line = body.find("\n", end)
            end_of_line = len(body) if end_of_line < 0 else end_of_line
            if _has_content(body[end:end_of_line]):
                continue
            stop = labels[i + 1][1] if i + 1 < len(labels) else len(body)
            content = False
            for line in body[end_of_line:stop].split("\n"):
                if _HEADING_LINE.match(line):
                    break
                if _has_content(line):
                    content = True
                    break
            if not content:
                label = "Why:" if word == "why" else "How to apply:"
                line_no += body.count("\n", counted, start)
                counted = start
                yield (note.rel, line_no, f"'{label}' has nothing after it")


def _normalise(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _without_type_prefix(name: str) -> str:
    for prefix in TYPE_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


@rule(
    "name-mismatch",
    INFO,
    "name differs from the file name",
    fires=(
        Example(
            "`name: deploy-rules` in `release-checklist.md`",
            {"release-checklist.md": sample_note("deploy-rules")},
        ),
    ),
    quiet=(
        Example(
            "`name: audit-methodology` in `feedback_audit_methodology.md` (case, `_` and a "
            "type prefix are forgiven)",
            {"feedback_audit_methodology.md": sample_note("audit-methodology", "feedback")},
        ),
        Example(
            "`name: Release checklist` (a title, as Claude Code writes it) with --profile "
            "claude-native",
            {"release-checklist.md": sample_note("release-checklist", name="Release checklist")},
            flags=("--profile", "claude-native"),
        ),
    ),
    scope=NOTE,
    schema=True,
    fix="set name to the file's slug, the name [[links]] use",
    repair="name-mismatch",
)
def name_mismatch(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``name: deploy-rules`` in ``release-checklist.md``.
    Quiet: ``name: audit-methodology`` in ``feedback_audit_methodology.md`` (case, ``_``
    and a type prefix are forgiven)."""
    for note in notes:
        fields = _fields(note)
        if fields is None or not fields.get("name", "").strip():
            continue
        if fields["name"] == note.file.slug:  # the usual case, decided without normalising
            continue
        name = _normalise(fields["name"])
        slug = _normalise(note.file.slug)
        if {name, _without_type_prefix(name)} & {slug, _without_type_prefix(slug)}:
            continue
        yield (
            note.rel,
            _line_of(note, "name"),
            f"name {excerpt(fields['name'])} does not match the file name "
            f"{excerpt(note.file.name)}",
        )


@rule(
    "missing-scope",
    INFO,
    "a feedback or project note without scope (optional; these two benefit most)",
    fires=(
        Example(
            "a feedback note without `scope:`", {"x.md": sample_note("x", "feedback", scope="")}
        ),
    ),
    quiet=(
        Example("`scope: repo`", {"x.md": sample_note("x", "feedback")}),
        Example("a user note", {"x.md": sample_note("x")}),
    ),
    scope=NOTE,
    schema=True,
    fix="label feedback and project notes scope: global or scope: repo when the reach is clear",
)
def missing_scope(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: a feedback note without ``scope:``.
    Quiet: ``scope: repo``; any user or reference note."""
    for note in notes:
        fields = _fields(note)
        if fields is None or note.note_type not in NEEDS_WHY_HOW:
            continue
        if not fields.get("scope", "").strip():
            yield (
                note.rel,
                None,
                f"no scope: does this {note.note_type} note hold in every repo (global) "
                "or only this one (repo)?",
            )


@rule(
    "unknown-key",
    INFO,
    "a frontmatter key outside the protocol's set (typos such as desciption)",
    fires=(
        Example("`desciption: ...`", {"x.md": sample_note("x", desciption="typo")}),
        Example("`tags: ...`", {"x.md": sample_note("x", tags="a, b")}),
    ),
    quiet=(
        Example(
            "the protocol's keys, and the host-native `metadata`, `originSessionId`, "
            "`node_type`, `modified`",
            {
                "x.md": sample_note(
                    "x", metadata="m", originSessionId="s", node_type="n", modified="2026-01-12"
                )
            },
        ),
        Example(
            "Claude Code's nested block: `metadata:` then indented `type:` and `originSessionId:`",
            {
                "x.md": "---\nname: x\ndescription: when to open x\ncreated: 2026-01-10\n"
                "updated: 2026-01-12\nmetadata:\n  type: user\n  originSessionId: 1b2c\n---\n\n"
                "A fact.\n"
            },
        ),
    ),
    scope=NOTE,
    schema=True,
    fix="fix misspelt keys; the protocol's keys are name, description, type, scope, created, "
    "updated",
)
def unknown_key(notes: Sequence[NoteCheck]) -> Iterator[Issue]:
    """Fires: ``desciption: ...``, ``tags: ...``.
    Quiet: the protocol's keys, and the host-native ``metadata``, ``originSessionId``,
    ``node_type``, ``modified``."""
    for note in notes:
        fields = _fields(note)
        if fields is None:
            continue
        for key in fields:
            if key in KNOWN_KEYS:
                continue
            guess = difflib.get_close_matches(key.lower(), sorted(PROTOCOL_KEYS), n=1, cutoff=0.75)
            hint = f" (did you mean '{guess[0]}'?)" if guess else ""
            yield (note.rel, _line_of(note, key), f"unknown frontmatter key {excerpt(key)}{hint}")
