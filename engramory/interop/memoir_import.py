"""Reading a memoir store (seed 002, data schema 1) as Engramory notes: the mapping, pure.

:func:`map_entry` takes one entry's parsed frontmatter (``None`` for a bare
file) and body and gives a :class:`~engramory.interop.importer.Candidate` or a
:class:`~engramory.interop.importer.Skip`. It reads canonical entries and the
legacy dialect of Appendix A (``metadata.type``, ``originSessionId`` at the
top or under ``metadata``, bare files named from their first ``# H1``):

* ``engramory_type`` (written by ``engramory export memoir``) wins: the note
  comes back with its own type, its frontmatter values and its body bytes; the
  fields the export added (memoir's type fields, ``origin.tool: engramory``,
  ``project``) are dropped again.
* Otherwise lesson -> feedback (Why: the body's, else the trigger; How to
  apply: ``how_to_apply``), preference -> feedback (Why: "a stated preference
  of the user" unless the body gives one), decision -> project (Why: ``why``,
  the rejected alternative kept in the body), fact -> reference, goal and
  next_action -> project. The legacy types are Engramory's own and stay.
  Only the labels the body lacks are added, so the note passes the doctor.
* Tombstones never come back (skipped and counted): ``hidden: true``, a
  ``[purged]`` entry, a goal or next action whose ``done_at`` is not earlier
  than its ``set_on``/``added``. Unknown types are skipped and listed; an
  entry whose ``schema_version`` is newer than 1 is not interpreted.
* Lists and nested mappings are flattened into one-line values (``tags: a,
  b``; ``origin.session_id`` -> ``origin_session_id``), never dropped; a
  legacy ``originSessionId`` keeps its name.
* Dates: the entry's own (``created``, ``updated``, the host's ``modified``, a
  type's own date field), else the entry file's first and last git commit,
  else its modification date (never today's); the candidate says which.
  A note our export wrote comes back with exactly the dates it had.
* The body is kept byte for byte (a bare file's too); only the labels a
  foreign entry's Engramory type needs are appended.
"""

from __future__ import annotations

from datetime import date

from engramory.doctor.rules.schema import find_labels
from engramory.interop.importer import (
    DATES_ENTRY,
    DATES_KEPT,
    Candidate,
    DateLookup,
    Skip,
    chosen_dates,
)
from engramory.interop.memoir_export import MEMOIR_FIELDS, RENAMED_PREFIX
from engramory.store.frontmatter import NOTE_TYPES

SUPPORTED_VERSION = 1
MEMOIR_TYPES = ("fact", "preference", "decision", "lesson", "goal", "next_action")
TYPE_MAP = {
    "lesson": "feedback",
    "preference": "feedback",
    "decision": "project",
    "fact": "reference",
    "goal": "project",
    "next_action": "project",
}
PURGED = "[purged]"
# Fields the export adds to an Engramory note (dropped when ``engramory_type`` is present).
EXPORT_ADDED = frozenset(
    {"type", "engramory_type", "engramory_archived", "engramory_scope", "origin", "project"}
    | {"trigger", "how_to_apply", "source", "set_on"}
)
ENGRAMORY_TOOL = "engramory"
NATIVE_SESSION_KEY = "originSessionId"  # the key Claude Code and the doctor know
# Fields the mapping turns into the note's own fields or body (never copied as keys).
CONSUMED = frozenset(
    {"type", "name", "description", "created", "updated", "schema_version", "metadata"}
    | {"engramory_type", "engramory_archived"}
)
CONSUMED_BY_TYPE = {
    "lesson": frozenset({"trigger", "how_to_apply"}),
    "preference": frozenset({"scope"}),
    "decision": frozenset({"why", "rejected", "hidden", "hidden_at"}),
    "goal": frozenset({"set_on", "done_at"}),
    "next_action": frozenset({"added", "done_at"}),
}
PREFERENCE_WHY = "a stated preference of the user"

# Skip reasons (stable: they key the report's counts).
HIDDEN = "hidden"
PURGED_REASON = "purged"
DONE = "done"
UNKNOWN_TYPE = "unknown-type"
NEWER_VERSION = "newer-version"
INVALID = "invalid"


def one_line(value: object) -> str:
    """A scalar as one line of text: ``true``/``false``, ``""`` for null, control chars as
    spaces, trimmed."""
    if value is None:
        return ""
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return "".join(" " if ord(ch) < 32 or ord(ch) == 127 else ch for ch in text).strip()


def flat_value(value: object) -> str:
    """A list as ``a, b``; anything else as :func:`one_line`."""
    if isinstance(value, list):
        return ", ".join(one_line(item) for item in value)
    return one_line(value)


def as_date(value: object) -> str | None:
    """``YYYY-MM-DD`` from an ISO date or date-time that names a real day, else ``None``."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    head = value[:10]
    if not (head[:4].isdigit() and head[4] == "-" and head[7] == "-"):
        return None
    try:
        date.fromisoformat(head)
    except ValueError:
        return None
    if len(value) > 10 and value[10] not in "Tt ":
        return None
    return head


def moment(value: object) -> tuple[str, str]:
    """A comparable ``(day, rest)`` of an ISO date or date-time; the epoch when unreadable
    (memoir: a missing or unparseable date loses to any real one)."""
    day = as_date(value)
    if day is None or not isinstance(value, str):
        return ("0000-00-00", "")
    return (day, value[11:])


def first_heading(body: str) -> str | None:
    """The text of the first ``# H1`` line of ``body``, else ``None``."""
    for line in body.split("\n"):
        stripped = line.strip()
        if stripped.startswith("# "):
            return stripped[2:].strip() or None
    return None


def normalized(meta: dict[str, object]) -> dict[str, object]:
    """Appendix A read as canonical: the ``metadata`` keys (``type``, ``originSessionId``,
    ``modified``...) to the top, each under its own name."""
    meta = dict(meta)
    nested = meta.pop("metadata", None)
    if isinstance(nested, dict):
        for key, value in nested.items():
            meta.setdefault(key, value)
    elif nested not in (None, ""):
        meta["metadata"] = nested
    return meta


def tombstone(meta: dict[str, object], body: str) -> str | None:
    """The skip reason when memoir says the entry is gone, else ``None``."""
    if "text_hash" in meta or PURGED in (meta.get("name"), meta.get("description"), body.strip()):
        return PURGED_REASON
    if meta.get("hidden") is True:
        return HIDDEN
    kind = meta.get("type")
    if kind in ("goal", "next_action") and meta.get("done_at") is not None:
        start = meta.get("set_on" if kind == "goal" else "added")
        if not moment(meta["done_at"]) < moment(start):  # a later re-add is a revival
            return DONE
    return None


def version_problem(meta: dict[str, object]) -> tuple[str, str] | None:
    """``(reason, detail)`` when ``schema_version`` is newer than 1 or not a number."""
    if "schema_version" not in meta:
        return None
    version = meta["schema_version"]
    if isinstance(version, bool) or not isinstance(version, (int, str)):
        return INVALID, "schema_version is not a whole number"
    try:
        number = int(version)
    except ValueError:
        return INVALID, "schema_version is not a whole number"
    if number > SUPPORTED_VERSION:
        return NEWER_VERSION, f"schema_version {number}: not interpreted"
    return None


def flattened(meta: dict[str, object], skip: frozenset[str]) -> dict[str, str]:
    """Every field not in ``skip`` as one-line values: lists joined, mappings as
    ``key_sub`` keys (``origin.session_id`` -> ``origin_session_id``)."""
    out: dict[str, str] = {}
    for key, value in meta.items():
        if key in skip:
            continue
        if isinstance(value, dict):
            for sub, inner in value.items():
                out.setdefault(f"{key}_{sub}", flat_value(inner))
        else:
            out.setdefault(key, flat_value(value))
    return out


def with_labels(body: str, why: str | None, how: str | None, extra: str = "") -> str:
    """``body`` with ``**Why:**``/``**How to apply:**`` lines added where it has none (and
    ``extra`` lines before them)."""
    words = {word for word, _start, _end in find_labels(body)}
    added = extra
    if why is not None and "why" not in words:
        added += f"**Why:** {one_line(why) or PREFERENCE_WHY}\n"
    if how is not None and "how" not in words:
        added += f"**How to apply:** {one_line(how)}\n"
    if not added:
        return body
    trimmed = body.rstrip("\n")
    return (trimmed + "\n\n" if trimmed.strip() else "\n") + added.replace("\n**", "\n\n**")


def _labels_for(kind: str, meta: dict[str, object], body: str) -> str:
    """The body of a memoir entry of type ``kind`` with the labels its Engramory type needs."""
    description = one_line(meta.get("description")) or one_line(meta.get("name"))
    if kind == "lesson":
        return with_labels(
            body, one_line(meta.get("trigger")) or description, meta.get("how_to_apply") or ""
        )
    if kind == "preference":
        return with_labels(body, PREFERENCE_WHY, f"follow it: {description}")
    if kind == "decision":
        rejected = one_line(meta.get("rejected"))
        extra = f"**Rejected:** {rejected}\n" if rejected else ""
        return with_labels(
            body,
            one_line(meta.get("why")) or "not recorded in the memoir entry",
            "keep to this decision; revisit it only on new evidence",
            extra,
        )
    if kind == "goal":
        return with_labels(
            body,
            f"the standing goal the work is for: {description}",
            "orient each session toward it",
        )
    if kind == "next_action":
        return with_labels(body, f"work to resume: {description}", "pick it up where the body says")
    return body


def _dates(kind: str, meta: dict[str, object], lookup: DateLookup) -> tuple[dict[str, str], str]:
    """``({"created", "updated"} or {}, where from)``: the entry's own dates (its type's date
    field for created, the host's ``modified`` for updated), else the file's (``lookup``)."""
    own = {"decision": "date", "goal": "set_on", "next_action": "added"}.get(kind)
    created = as_date(meta.get("created")) or (as_date(meta.get(own)) if own else None)
    updated = as_date(meta.get("updated")) or as_date(meta.get("modified"))
    return chosen_dates(created, updated, lookup)


def _scope(kind: str, meta: dict[str, object]) -> str:
    """Engramory's scope: a preference's own; else ``repo`` with a ``project``, ``global``
    without (memoir: absent means global)."""
    scope = meta.get("scope")
    if kind == "preference" and scope in ("global", "project"):
        return "global" if scope == "global" else "repo"
    if kind in NOTE_TYPES and scope in ("global", "repo"):
        return str(scope)
    return "repo" if one_line(meta.get("project")) else "global"


def exported_key(key: str) -> str:
    """A note's own key as it was before the export renamed it (``engramory_source`` ->
    ``source``: the export prefixes a key memoir gives another meaning)."""
    if key.startswith(RENAMED_PREFIX) and key[len(RENAMED_PREFIX) :] in MEMOIR_FIELDS:
        return key[len(RENAMED_PREFIX) :]
    return key


def engramory_fields(meta: dict[str, object], note_type: str) -> dict[str, str]:
    """The frontmatter of an exported Engramory note, in the entry's key order, without what
    the export added; ``origin.session_id`` back as ``originSessionId``, ``scope`` from
    ``engramory_scope`` or, failing that, ``repo`` when the entry names a ``project``."""
    fields: dict[str, str] = {}
    for key, value in meta.items():
        if key == "type":
            fields["type"] = note_type
        elif key == "origin" and isinstance(value, dict):
            for sub, inner in value.items():
                if sub == "session_id":
                    fields.setdefault(NATIVE_SESSION_KEY, one_line(inner))
                elif not (sub == "tool" and inner == ENGRAMORY_TOOL):
                    fields.setdefault(f"origin_{sub}", flat_value(inner))
        elif key not in EXPORT_ADDED:
            fields.setdefault(exported_key(key), flat_value(value))
    fields.setdefault("type", note_type)
    scope = one_line(meta.get("engramory_scope"))
    if scope:
        fields["scope"] = scope
    elif "scope" not in fields and one_line(meta.get("project")):
        fields["scope"] = "repo"
    return fields


def from_engramory(link: str, meta: dict[str, object], body: str, source: str) -> Candidate:
    """An entry ``engramory export memoir`` wrote: the note as it was, type and all."""
    note_type = str(meta["engramory_type"])
    fields = engramory_fields(meta, note_type)
    name = fields.get("name") or link
    dated = bool(fields.get("created") or fields.get("updated"))
    return Candidate(
        name=link,
        note_type=note_type,
        fields=fields,
        body=body,
        title=name,
        hook=fields.get("description", ""),
        recency=fields.get("updated") or fields.get("created") or "",
        source=source,
        archived=meta.get("engramory_archived") is True,
        dates_from=DATES_ENTRY if dated else DATES_KEPT,
    )


def map_entry(
    link: str, meta: dict[str, object] | None, body: str, lookup: DateLookup, source: str
) -> Candidate | Skip:
    """One memoir entry (``meta``: its parsed frontmatter, ``None`` for a bare file) as a
    note to import, or why it is skipped. ``lookup``: the entry file's dates (git, else its
    modification date), asked only when the entry has none."""
    if meta is None:
        heading = first_heading(body)
        dates, dates_from = chosen_dates(None, None, lookup)
        fields = {"name": link, "description": heading or link, "type": "reference", **dates}
        return Candidate(
            link,
            "reference",
            fields,
            body,
            heading or link,
            heading or link,
            dates.get("updated", ""),
            source,
            ("a bare file (no frontmatter): imported as reference",),
            dates_from=dates_from,
        )
    meta = normalized(meta)
    problem = version_problem(meta)
    if problem is not None:
        return Skip(source, problem[0], problem[1])
    gone = tombstone(meta, body)
    if gone is not None:
        return Skip(source, gone)
    if meta.get("engramory_type") in NOTE_TYPES:
        return from_engramory(link, meta, body, source)
    kind = one_line(meta.get("type"))
    if kind in NOTE_TYPES:
        note_type = kind
    elif kind in TYPE_MAP:
        note_type = TYPE_MAP[kind]
    else:
        return Skip(source, UNKNOWN_TYPE, f"type {kind!r} is not a memoir type: kept opaque")
    name = one_line(meta.get("name")) or link
    description = one_line(meta.get("description")) or (
        one_line(meta.get("trigger")) if kind == "lesson" else ""
    )
    dates, dates_from = _dates(kind, meta, lookup)
    fields = {
        "name": name,
        "description": description or name,
        "type": note_type,
        "scope": _scope(kind, meta),
        **dates,
    }
    skip = CONSUMED | CONSUMED_BY_TYPE.get(kind, frozenset()) | frozenset(fields)
    for key, value in flattened(meta, skip).items():
        if not (key == "origin_tool" and value == ENGRAMORY_TOOL):  # our own export's mark
            fields.setdefault(key, value)
    return Candidate(
        link,
        note_type,
        fields,
        _labels_for(kind, meta, body),
        name,
        fields["description"],
        dates.get("updated", ""),
        source,
        dates_from=dates_from,
    )
