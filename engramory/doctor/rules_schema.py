"""Schema rules: each note's frontmatter and the body lines its type requires.

All of these are skipped by ``--no-schema`` (adopting an existing store starts
with structure only). They run only on notes that could be read.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from datetime import date, timedelta

from engramory import frontmatter as fm
from engramory.doctor.context import NOTE_TYPES, NoteCheck
from engramory.doctor.model import ERROR, INFO, NOTE, WARNING, rule
from engramory.textfmt import excerpt

NoteIssue = tuple["int | None", str]

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

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

# A label: at a line start, after any list/quote/heading markers and bold, the
# words "Why" or "How to apply" (any case), optional bold, then ':' or '：'.
_LABEL_PREFIX = r"^[ \t#>*\-+]*"
_LABEL_TAIL = r"[ \t]*\*{0,2}[ \t]*[:：]"
WHY = re.compile(_LABEL_PREFIX + r"why" + _LABEL_TAIL, re.IGNORECASE | re.MULTILINE)
HOW = re.compile(
    _LABEL_PREFIX + r"how[ \t]+to[ \t]+apply" + _LABEL_TAIL, re.IGNORECASE | re.MULTILINE
)
ANY_LABEL = re.compile(
    _LABEL_PREFIX + r"(?:why|how[ \t]+to[ \t]+apply)" + _LABEL_TAIL, re.IGNORECASE | re.MULTILINE
)
# Near misses: the word at a line start in a form the grammar does not accept.
_NEAR_WHY = re.compile(r"^[ \t#>*\-+_|0-9.)]*\**_?why\b", re.IGNORECASE | re.MULTILINE)
_NEAR_HOW = re.compile(r"^[ \t#>*\-+_|0-9.)]*\**_?how\b", re.IGNORECASE | re.MULTILINE)
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}([ \t]|$)")


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
    scope=NOTE,
    schema=True,
    fix="start each note with a '---' block holding name, description, type, created and "
    "updated",
)
def no_frontmatter(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: a note whose first line is ``# Title``.
    Quiet: a note starting with ``---``, ``name: ...`` ... ``---``."""
    if note.fm is not None and not note.fm.present:
        yield (
            1,
            "no frontmatter: start the note with a '---' line, then name, description, type, "
            "created and updated, then '---'",
        )


@rule(
    "frontmatter-syntax",
    ERROR,
    "a frontmatter problem (unclosed fence, malformed line, empty key, quoting)",
    scope=NOTE,
    schema=True,
    fix="each frontmatter line is 'key: value'; quote a value only as a whole, escaping inner "
    'quotes as \\"',
)
def frontmatter_syntax(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``tags:`` followed by ``  - a`` (a list item is not ``key: value``);
    ``description: "unclosed``; a frontmatter without its closing ``---``.
    Quiet: ``description: "a \\"quoted\\" word"``."""
    if note.fm is None:
        return
    for problem in note.fm.problems:
        if problem.kind != fm.DUPLICATE_KEY:
            yield (problem.line, problem.message)


@rule(
    "duplicate-key",
    ERROR,
    "a frontmatter key set twice",
    scope=NOTE,
    schema=True,
    fix="keep exactly one line per frontmatter key",
)
def duplicate_key(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``type: feedback`` and later ``type: user``.
    Quiet: each key once."""
    if note.fm is None:
        return
    for problem in note.fm.problems:
        if problem.kind == fm.DUPLICATE_KEY:
            yield (problem.line, problem.message)


@rule(
    "missing-field",
    ERROR,
    "name, description or type missing or empty",
    scope=NOTE,
    schema=True,
    fix="fill in name (the file's slug), description (a one-line hook) and type",
)
def missing_field(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: no ``description:`` line; ``name: ""``; ``type:   ``.
    Quiet: all three present and non-empty."""
    fields = _fields(note)
    if fields is None:
        return
    advice = {
        "name": f"use the file's slug, {excerpt(note.file.slug)}",
        "description": "one line saying when a future session should open this note",
        "type": "one of user, feedback, project, reference",
    }
    for key in REQUIRED:
        if not fields.get(key, "").strip():
            state = "is empty" if key in fields else "is missing"
            yield (_line_of(note, key), f"'{key}' {state}: {advice[key]}")


@rule(
    "invalid-type",
    ERROR,
    "type is not exactly one of user, feedback, project, reference",
    scope=NOTE,
    schema=True,
    fix="set type to exactly one of user, feedback, project, reference (lower-case)",
)
def invalid_type(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``type: Feedback``, ``type: handoff``, ``type: notes``.
    Quiet: ``type: feedback``, ``type: "feedback"``."""
    fields = _fields(note)
    if fields is None:
        return
    value = fields.get("type", "")
    if value.strip() and value not in NOTE_TYPES:
        hint = " (types are lower-case)" if value.strip().lower() in NOTE_TYPES else ""
        yield (
            _line_of(note, "type"),
            f"type {excerpt(value)} is not one of user, feedback, project, reference{hint}",
        )


@rule(
    "invalid-scope",
    ERROR,
    "scope present and not exactly global or repo",
    scope=NOTE,
    schema=True,
    fix="set scope to global or repo, or remove the line when the reach is unclear",
)
def invalid_scope(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``scope: Global``, ``scope: machine``.
    Quiet: ``scope: repo``, no scope line, ``scope:`` (empty counts as absent)."""
    fields = _fields(note)
    if fields is None:
        return
    value = fields.get("scope", "")
    if value.strip() and value not in SCOPES:
        yield (
            _line_of(note, "scope"),
            f"scope {excerpt(value)} is not global or repo (leave scope out when unsure)",
        )


@rule(
    "missing-date",
    ERROR,
    "created or updated missing or empty",
    scope=NOTE,
    schema=True,
    fix="add created: and updated: as YYYY-MM-DD (the dates of the fact, not of the file)",
)
def missing_date(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: no ``updated:`` line.
    Quiet: ``created: 2026-01-15`` and ``updated: 2026-02-01``."""
    fields = _fields(note)
    if fields is None:
        return
    for key in DATES:
        if not fields.get(key, "").strip():
            state = "is empty" if key in fields else "is missing"
            yield (_line_of(note, key), f"'{key}' {state}: write it as YYYY-MM-DD")


def _parse_date(value: str) -> date | None:
    if not _DATE.fullmatch(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def _dates(note: NoteCheck) -> dict[str, date]:
    fields = _fields(note) or {}
    parsed = {}
    for key in DATES:
        value = _parse_date(fields.get(key, ""))
        if value is not None:
            parsed[key] = value
    return parsed


@rule(
    "invalid-date",
    ERROR,
    "a date that is not YYYY-MM-DD in ASCII digits, or not a real calendar date",
    scope=NOTE,
    schema=True,
    fix="write dates as YYYY-MM-DD with real calendar dates, e.g. 2026-01-15",
)
def invalid_date(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``created: 2026-1-5``, ``2026-02-30``, ``15/01/2026``, full-width digits.
    Quiet: ``created: 2024-02-29``; ``created: "2026-01-15"``."""
    fields = _fields(note)
    if fields is None:
        return
    for key in DATES:
        value = fields.get(key, "")
        if value.strip() and _parse_date(value) is None:
            yield (
                _line_of(note, key),
                f"'{key}' is {excerpt(value)}, not a real date in YYYY-MM-DD form",
            )


@rule(
    "date-order",
    WARNING,
    "updated is earlier than created",
    scope=NOTE,
    schema=True,
    fix="make updated the same as or later than created",
)
def date_order(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``created: 2026-05-01`` with ``updated: 2026-04-01``.
    Quiet: equal dates, or updated later."""
    dates = _dates(note)
    if "created" in dates and "updated" in dates and dates["updated"] < dates["created"]:
        yield (
            _line_of(note, "updated"),
            f"updated {dates['updated']} is earlier than created {dates['created']}",
        )


@rule(
    "future-date",
    WARNING,
    "a date after tomorrow (local time)",
    scope=NOTE,
    schema=True,
    fix="use the date the fact was settled; dates in the future are usually typos",
)
def future_date(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``updated: 2099-01-01``.
    Quiet: today's or tomorrow's date (time zones differ)."""
    limit = note.options.today + timedelta(days=1)
    for key, value in _dates(note).items():
        if value > limit:
            yield (_line_of(note, key), f"'{key}' {value} is in the future")


def _body_line(note: NoteCheck, offset: int) -> int:
    assert note.fm is not None
    return note.fm.body_line + note.fm.body.count("\n", 0, offset)


def _label_check(note: NoteCheck, pattern: re.Pattern[str]) -> bool:
    """Whether the note's type needs the label and its body lacks it."""
    if note.note_type not in NEEDS_WHY_HOW or note.fm is None:
        return False
    return pattern.search(note.fm.body) is None


def _near_miss(note: NoteCheck, pattern: re.Pattern[str]) -> int | None:
    assert note.fm is not None
    match = pattern.search(note.fm.body)
    return None if match is None else _body_line(note, match.start())


@rule(
    "missing-why",
    ERROR,
    "a feedback or project note without a 'Why:' line in its body",
    scope=NOTE,
    schema=True,
    fix="add a line starting 'Why:' (or **Why:**) with the reason behind the note",
)
def missing_why(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: a feedback note whose body says ``## Why`` (no colon), ``_Why:_``,
    ``1. Why:``, or nothing at all.
    Quiet: ``**Why:** ...``, ``Why: ...``, ``- why : ...``, ``## Why: ...``, ``Why：...``."""
    if not _label_check(note, WHY):
        return
    message = f"a {note.note_type} note needs a 'Why:' line: the reason behind it"
    near = _near_miss(note, _NEAR_WHY)
    if near is not None:
        message += (
            f"; line {near} is close: write it at the start of a line as 'Why:' "
            "(add a colon; numbers, tables and underscores hide the label)"
        )
    yield (None, message)


@rule(
    "missing-how-to-apply",
    ERROR,
    "a feedback or project note without a 'How to apply:' line in its body",
    scope=NOTE,
    schema=True,
    fix="add a line starting 'How to apply:' (or **How to apply:**) with the concrete next "
    "action",
)
def missing_how_to_apply(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: a project note with ``How:`` or ``**How**:`` only, or no label.
    Quiet: ``**How to apply:** ...``, ``### How to apply: ...``."""
    if not _label_check(note, HOW):
        return
    message = f"a {note.note_type} note needs a 'How to apply:' line: the concrete action"
    near = _near_miss(note, _NEAR_HOW)
    if near is not None:
        message += f"; line {near} is close: use the full 'How to apply:' label, with its colon"
    yield (None, message)


def _has_content(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


@rule(
    "empty-label",
    WARNING,
    "a Why: or How to apply: label with nothing after it",
    scope=NOTE,
    schema=True,
    fix="write the reason after 'Why:' and the action after 'How to apply:'",
)
def empty_label(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``**Why:**`` followed directly by ``**How to apply:** ...`` or a heading.
    Quiet: ``**Why:**`` followed by text on the same line or the lines below."""
    if note.fm is None or note.note_type not in NEEDS_WHY_HOW:
        return
    body = note.fm.body
    matches = list(ANY_LABEL.finditer(body))
    for i, match in enumerate(matches):
        end_of_line = body.find("\n", match.end())
        end_of_line = len(body) if end_of_line < 0 else end_of_line
        if _has_content(body[match.end() : end_of_line]):
            continue
        stop = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        following = body[end_of_line:stop].split("\n")
        content = False
        for line in following:
            if _HEADING_LINE.match(line):
                break
            if _has_content(line):
                content = True
                break
        if not content:
            label = "Why:" if match.group(0).lower().rstrip(" \t*:：").endswith("why") else (
                "How to apply:"
            )
            yield (_body_line(note, match.start()), f"'{label}' has nothing after it")


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
    scope=NOTE,
    schema=True,
    fix="set name to the file's slug, the name [[links]] use",
)
def name_mismatch(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``name: deploy-rules`` in ``release-checklist.md``.
    Quiet: ``name: audit-methodology`` in ``feedback_audit_methodology.md`` (case, ``_``
    and a type prefix are forgiven)."""
    fields = _fields(note)
    if fields is None or not fields.get("name", "").strip():
        return
    name = _normalise(fields["name"])
    slug = _normalise(note.file.slug)
    if {name, _without_type_prefix(name)} & {slug, _without_type_prefix(slug)}:
        return
    yield (
        _line_of(note, "name"),
        f"name {excerpt(fields['name'])} does not match the file name {excerpt(note.file.name)}",
    )


@rule(
    "missing-scope",
    INFO,
    "a feedback or project note without scope (optional; these two benefit most)",
    scope=NOTE,
    schema=True,
    fix="label feedback and project notes scope: global or scope: repo when the reach is clear",
)
def missing_scope(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: a feedback note without ``scope:``.
    Quiet: ``scope: repo``; any user or reference note."""
    fields = _fields(note)
    if fields is None or note.note_type not in NEEDS_WHY_HOW:
        return
    if not fields.get("scope", "").strip():
        yield (None, f"no scope: does this {note.note_type} note hold in every repo (global) "
               "or only this one (repo)?")


@rule(
    "unknown-key",
    INFO,
    "a frontmatter key outside the protocol's set (typos such as desciption)",
    scope=NOTE,
    schema=True,
    fix="fix misspelt keys; the protocol's keys are name, description, type, scope, created, "
    "updated",
)
def unknown_key(note: NoteCheck) -> Iterator[NoteIssue]:
    """Fires: ``desciption: ...``, ``tags: ...``.
    Quiet: the protocol's keys, and the host-native ``metadata``, ``originSessionId``,
    ``node_type``, ``modified``."""
    fields = _fields(note)
    if fields is None:
        return
    for key in fields:
        if key in KNOWN_KEYS:
            continue
        guess = difflib.get_close_matches(key.lower(), sorted(PROTOCOL_KEYS), n=1, cutoff=0.75)
        hint = f" (did you mean '{guess[0]}'?)" if guess else ""
        yield (_line_of(note, key), f"unknown frontmatter key {excerpt(key)}{hint}")
