"""An Engramory note as a memoir entry: the mapping, pure (no disk, no output).

``engramory export memoir`` (engramory/commands/export.py) reads the notes;
:func:`to_entry` turns one into the frontmatter mapping and body of a memoir
entry (seed 002 §3), or says why it cannot; :func:`entry_text` renders it in
memoir's YAML subset (:mod:`engramory.interop.memoir_yaml`).

The mapping (issue 18, DESIGN §4 "memoir export"):

* ``feedback`` -> ``lesson``: ``trigger`` <- the description, ``how_to_apply``
  <- the text of the body's "How to apply:" paragraph (one line); the body is
  kept whole. A lesson without both is an anecdote to memoir (both are
  schema-required), so such a note becomes a ``fact`` instead (its
  ``engramory_type`` still says ``feedback``).
* ``user`` -> ``fact``; ``reference`` -> ``fact`` with ``source`` <- the first
  URL or path in the body; ``project`` -> ``goal`` with ``set_on`` <- created.
* Every entry: ``name``, ``description``, ``created``, ``updated`` (the dates
  only when the note has them: nothing is made up), ``engramory_type``,
  ``origin: {tool: engramory}`` (plus ``session_id`` from the host's
  ``originSessionId``); ``scope: repo`` -> ``project: NAME``, ``scope:
  global`` -> no ``project``. Archived notes carry ``engramory_archived: true``.
* Other fields are unknown to memoir and kept as they are (memoir writers
  preserve unknown fields), except: ``metadata`` (the empty parent line of
  Claude Code's nested dialect, whose children are read as plain fields),
  ``tags``/``aliases`` (``a, b`` becomes a list, as memoir wants, when the
  list joined with ``", "`` gives the value back exactly), and a field whose
  name memoir defines for something else, which is kept as
  ``engramory_<name>`` so that memoir does not misread it.
* Skipped, with the reason: every frontmatter error the doctor reports (no
  frontmatter, a syntax error, a repeated key, a missing or empty ``name``,
  ``description`` or ``type``, an invalid type, an impossible or malformed
  date: memoir-cli would roll 2026-02-30 over into March), a field name
  memoir's YAML cannot hold, or a value no quoting makes YAML and memoir-cli
  read alike. A note missing only its dates or scope (the host's dialect) is
  exported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from engramory.doctor.rules.schema import REQUIRED, find_labels
from engramory.interop.memoir_yaml import UnwritableValue, render_entry, write_string
from engramory.secrets.excerpts import excerpt
from engramory.store.frontmatter import NOTE_TYPES, Frontmatter

TYPE_MAP = {"feedback": "lesson", "user": "fact", "reference": "fact", "project": "goal"}
DATE_FIELDS = ("created", "updated")
TOOL = "engramory"
# Fields the exporter sets itself from a note's protocol fields.
PROTOCOL = frozenset({"name", "description", "type", "scope", "created", "updated"})
# The host's nested dialect: ``metadata:`` is an empty parent line.
DROPPED = frozenset({"metadata"})
SESSION_KEY = "originSessionId"
ORIGIN_KEYS = {"origin_machine_id": "machine_id"}
LIST_KEYS = frozenset({"tags", "aliases"})
# Every field memoir gives a meaning (seed 002 §3 and the entry schema), and ours.
MEMOIR_FIELDS = frozenset(
    {
        "type", "name", "description", "created", "updated", "schema_version", "project",
        "tags", "aliases", "origin", "source", "scope", "date", "why", "rejected", "hidden",
        "hidden_at", "superseded_by", "text", "text_hash", "trigger", "how_to_apply",
        "fired_count", "last_fired", "set_on", "done_at", "added", "machine_id",
        "engramory_type", "engramory_archived",
    }
)  # fmt: skip
RENAMED_PREFIX = "engramory_"
URL_SCHEMES = ("https://", "http://", "ftp://", "ftps://", "file://")
PATH_STARTS = ("/", "~/", "./", "../")
TOKEN_TRIM = "<>()[]{}\"'`*_,.;:!?"


@dataclass(frozen=True)
class SourceNote:
    """A note as read: ``rel`` in the store, its parsed frontmatter, whether archived."""

    rel: str
    parsed: Frontmatter
    archived: bool = False

    @property
    def slug(self) -> str:
        name = self.rel.rsplit("/", 1)[-1]
        return name[:-3] if name.lower().endswith(".md") else name


@dataclass
class Entry:
    """A memoir entry: file name, frontmatter mapping, body; ``notes`` say what changed."""

    file_name: str
    mapping: dict[str, object]
    body: str
    engramory_type: str
    notes: list[str] = field(default_factory=list)

    @property
    def memoir_type(self) -> str:
        return str(self.mapping["type"])


@dataclass(frozen=True)
class Skip:
    """A note not exported, and why (a sentence that names the fix)."""

    rel: str
    reason: str


def iso_date(value: str) -> bool:
    """A real calendar date written exactly ``YYYY-MM-DD`` in ASCII digits."""
    if len(value) != 10 or value[4] != "-" or value[7] != "-" or not value.isascii():
        return False
    if not (value[:4].isdigit() and value[5:7].isdigit() and value[8:].isdigit()):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def frontmatter_error(note: SourceNote) -> str | None:
    """Why the note's frontmatter cannot be exported, else ``None``: each frontmatter error
    the doctor reports (no frontmatter, syntax, a repeated key, a missing or empty required
    field, an invalid type or date), with the doctor's rule id."""
    parsed = note.parsed
    if not parsed.present:
        return (
            "no frontmatter [no-frontmatter]: add a '---' block with name, description and "
            "type (engramory doctor says how), then export again"
        )
    if parsed.problems:
        first = parsed.problems[0]
        more = len(parsed.problems) - 1 + sum(parsed.dropped.values())
        also = f" (and {more} more)" if more else ""
        return f"frontmatter line {first.line}: {first.message}{also}"
    fields = parsed.fields
    missing = [key for key in REQUIRED if not fields.get(key, "").strip()]
    if missing:
        return (
            f"{' and '.join(missing)} missing or empty [missing-field]: fill "
            f"{'it' if len(missing) == 1 else 'them'} in, then export again"
        )
    kind = fields.get("type", "")
    if kind not in NOTE_TYPES:
        return (
            f"its type {excerpt(kind)} is not one of {', '.join(NOTE_TYPES)}: fix the type "
            "(engramory doctor names it), then export again"
        )
    for key in DATE_FIELDS:
        value = fields.get(key, "")
        if value.strip() and not iso_date(value):
            return (
                f"'{key}' is {excerpt(value)}, not a real date in YYYY-MM-DD form (memoir would "
                "misread it): fix the date, then export again"
            )
    return None


def how_to_apply(body: str) -> str:
    """The text of the body's first "How to apply:" paragraph, on one line ("" when none).

    The paragraph runs from the label to a blank line or the next Why:/How to
    apply: label; bold markers around the label are dropped.
    """
    labels = find_labels(body)
    for index, (word, _start, end) in enumerate(labels):
        if word != "how":
            continue
        stop = labels[index + 1][1] if index + 1 < len(labels) else len(body)
        text = body[end:stop]
        blank = _blank_line(text)
        if blank >= 0:
            text = text[:blank]
        return " ".join(text.lstrip("*").split())
    return ""


def _blank_line(text: str) -> int:
    """Where the first blank line of ``text`` starts (after its first line), or -1."""
    start = text.find("\n")
    while start >= 0:
        end = text.find("\n", start + 1)
        line = text[start + 1 : len(text) if end < 0 else end]
        if not line.strip():
            return start
        start = end
    return -1


def curly_quotes(text: str) -> str:
    """``text`` with each straight double quote made typographic, opening and closing in turn."""
    parts = text.split('"')
    out = [parts[0]]
    for index, part in enumerate(parts[1:]):
        out.append("\u201c" if index % 2 == 0 else "\u201d")
        out.append(part)
    return "".join(out)


def _writable(how: str, said: list[str]) -> str:
    """``how`` (derived from the body), its straight double quotes made typographic when
    otherwise no quoting would make YAML and memoir-cli read it alike."""
    try:
        write_string(how)
    except UnwritableValue:
        said.append(
            "how_to_apply: straight double quotes written as \u201c \u201d so that YAML and "
            "memoir-cli read it alike (the body keeps the original)"
        )
        return curly_quotes(how)
    return how


def first_source(body: str) -> str | None:
    """The first URL (``https://...``) or path (``/x``, ``~/x``, ``./x``, ``../x``, or a
    ``/``-holding code span) in the body, else ``None``."""
    for raw in body.split():
        url = _url_in(raw)
        if url:
            return url
        token = raw.strip(TOKEN_TRIM)
        in_code = raw.startswith("`") and "`" in raw[1:]
        if len(token) > 1 and (token.startswith(PATH_STARTS) or (in_code and "/" in token)):
            return token
    return None


def _url_in(raw: str) -> str | None:
    """The URL inside a whitespace-free token (a bare URL, ``<URL>``, ``[t](URL)``)."""
    lowered = raw.lower()
    for scheme in URL_SCHEMES:
        at = lowered.find(scheme)
        if at >= 0:
            url = raw[at:]
            for stop in ")]>\"'`":
                cut = url.find(stop)
                if cut >= 0:
                    url = url[:cut]
            url = url.rstrip(".,;:!?*_")
            return url if len(url) > len(scheme) else None
    return None


def _base_mapping(note: SourceNote, project: str | None) -> dict[str, object]:
    """The common fields: name, description, dates (when the note has them), project."""
    fields = note.parsed.fields
    mapping: dict[str, object] = {
        "name": fields["name"].strip(),
        "description": fields["description"].strip(),
    }
    for key in DATE_FIELDS:
        value = fields.get(key, "").strip()
        if value:
            mapping[key] = value
    scope = fields.get("scope", "").strip()
    if scope == "repo" and project:
        mapping["project"] = project
    elif scope:  # global (no project in memoir), repo without a project name, or another value
        mapping[RENAMED_PREFIX + "scope"] = scope
    return mapping


def _typed_fields(
    note: SourceNote, base: dict[str, object], said: list[str]
) -> tuple[str, dict[str, object]]:
    """The memoir type and its own fields (trigger, how_to_apply, source, set_on)."""
    kind = note.parsed.fields.get("type", "")
    typed: dict[str, object] = {}
    if kind == "feedback":
        trigger = str(base.get("description", ""))
        how = _writable(how_to_apply(note.parsed.body), said)
        if trigger and how:
            return "lesson", {"trigger": trigger, "how_to_apply": how}
        missing = "a description" if not trigger else "a 'How to apply:' line"
        said.append(f"a feedback note without {missing}: exported as a fact (a lesson needs both)")
        return "fact", typed
    if kind == "reference":
        source = first_source(note.parsed.body)
        if source:
            typed["source"] = source
    elif kind == "project" and "created" in base:
        typed["set_on"] = base["created"]
    return TYPE_MAP[kind], typed


def _extra_fields(note: SourceNote) -> tuple[dict[str, object], dict[str, str]]:
    """``(fields kept, origin fields)`` from the note's fields beyond the protocol's."""
    kept: dict[str, object] = {}
    origin: dict[str, str] = {}
    for key, value in note.parsed.fields.items():
        if key in PROTOCOL or key in DROPPED:
            continue
        if key == SESSION_KEY and value.strip():
            origin["session_id"] = value.strip()
            continue
        if key in ORIGIN_KEYS:
            if value.strip():
                origin[ORIGIN_KEYS[key]] = value.strip()
            continue
        if key in LIST_KEYS:
            items = [item.strip() for item in value.split(",")]
            if all(items) and ", ".join(items) == value:
                kept[key] = items
                continue
        kept[RENAMED_PREFIX + key if key in MEMOIR_FIELDS else key] = value
    return kept, origin


def to_entry(note: SourceNote, project: str | None) -> Entry | Skip:
    """The memoir entry for ``note`` (``project``: the name ``scope: repo`` maps to)."""
    problem = frontmatter_error(note)
    if problem is not None:
        return Skip(note.rel, problem)
    base = _base_mapping(note, project)
    said: list[str] = []
    memoir_type, typed = _typed_fields(note, base, said)
    kind = note.parsed.fields["type"]
    extra, origin = _extra_fields(note)
    entry: dict[str, object] = {"type": memoir_type, **base, **typed}
    entry["engramory_type"] = kind
    if note.archived:
        entry["engramory_archived"] = True
    entry["origin"] = {"tool": TOOL, **origin}
    for key, value in extra.items():
        entry.setdefault(key, value)
    return Entry(note.slug + ".md", entry, note.parsed.body, kind, said)


def entry_text(entry: Entry) -> str:
    """The entry file's text; raises :class:`UnwritableValue` for a value the subset
    cannot hold so that YAML and memoir-cli read it alike."""
    return render_entry(entry.mapping, entry.body)


def unwritable_reason(error: UnwritableValue) -> str:
    """The skip reason for a value :func:`entry_text` could not write."""
    return f"the field {excerpt(error.key)}: {error.message}; fix it in the note, then export again"
