"""What ``engramory new`` (and the MCP server's ``memory_write``) does: plan a note and its
index pointer, then create both.

Every check happens before the first write: the request (usage, 64), a note of
that slug live or archived in any letter case, the index's hard caps, secrets,
and the doctor's own note rules (:mod:`.gate`). Then the note is written and the
index after it, each atomically, under the store's lock; when the index cannot
be written the note is removed again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from engramory import secrets
from engramory.continuity.state import locked
from engramory.doctor.profiles import CLAUDE_NATIVE, ENGRAMORY
from engramory.secrets import allow
from engramory.store.breach import limits_text
from engramory.store.caps import INDEX_NAME, Caps
from engramory.store.disk import walk
from engramory.store.frontmatter import NOTE_TYPES, TYPES_TEXT
from engramory.util import fsutil
from engramory.util.errors import EngramoryError, UsageError
from engramory.util.textfmt import printable
from engramory.write import notewrite
from engramory.write.gate import doctor_gate, live_notes, near_duplicates
from engramory.write.indexedit import pointer_line
from engramory.write.indexfile import (
    IndexState,
    ensure_unchanged,
    index_now,
    over_cap,
    read_index_for_edit,
)
from engramory.write.pointertext import title_from_slug

WHY_LABEL = "--why"
HOW_LABEL = "--how"


@dataclass(frozen=True)
class NoteRequest:
    """What ``new`` is asked to write, as plain values (from the command line or a tool call)."""

    note_type: str
    slug: str
    description: str
    scope: str | None = None
    title: str | None = None
    why: str | None = None
    how: str | None = None
    native: bool = False  # the claude-native profile: the name is the title, as the host writes


def check_request(request: NoteRequest, labels: dict[str, str] | None = None) -> None:
    """Every usage refusal of a request (raised as :class:`UsageError`); ``labels`` renames
    the options in messages (``{"--why": "why"}`` for a tool's argument names)."""
    name = {WHY_LABEL: WHY_LABEL, HOW_LABEL: HOW_LABEL, "--description": "--description",
            "--title": "--title", "TYPE": "TYPE", **(labels or {})}  # fmt: skip
    if request.note_type not in NOTE_TYPES:
        raise UsageError(f"{name['TYPE']} {request.note_type!r} is not one of {TYPES_TEXT}")
    if request.scope is not None and request.scope not in notewrite.SCOPES:
        raise UsageError(f"scope {request.scope!r} is not one of {', '.join(notewrite.SCOPES)}")
    problem = notewrite.slug_problem(request.slug)
    if problem:
        raise UsageError(problem)
    if not request.description.strip():
        raise UsageError(
            f"{name['--description']} is empty: give the one-line hook that says when to open it"
        )
    needs = request.note_type in notewrite.TYPES_NEEDING_WHY
    for label, value in ((WHY_LABEL, request.why), (HOW_LABEL, request.how)):
        if needs and (value is None or not value.strip()):
            raise UsageError(f"a {request.note_type} note needs {name[label]} TEXT")
        if not needs and value is not None:
            raise UsageError(
                f"{name[label]} is for feedback and project notes, not {request.note_type}"
            )
    for label, value in (
        ("--description", request.description),
        ("--title", request.title),
        (WHY_LABEL, request.why),
        (HOW_LABEL, request.how),
    ):
        problem = notewrite.one_line_problem(name[label], value) if value is not None else None
        if problem:
            raise UsageError(problem)


def existing_slug(root: str, slug: str) -> str | None:
    """The store-relative path of a note (live, archived, or any entry at ``SLUG.md``)
    whose name equals ``slug`` in any letter case, else ``None``."""
    if os.path.lexists(os.path.join(root, slug + ".md")):
        return slug + ".md"
    wanted = (slug + ".md").casefold()
    found = walk(root)
    for rel in [note.rel for note in found.notes] + list(found.archived):
        if rel.rsplit("/", 1)[-1].casefold() == wanted:
            return rel
    try:
        names = os.listdir(root)
    except OSError:
        names = []
    for name in names:
        if name.casefold() == wanted:
            return name
    return None


def refuse_secrets(texts: dict[str, str], root: str | None = None) -> None:
    """Exit 1 when any text holds a credential's value (only its kind and shown form said);
    a value on the store's allow list (``root``'s ``.engramory/allow-secrets``) passes."""
    allowed = allow.load(root) if root is not None else None
    for where, text in texts.items():
        found = secrets.find(text, allowed)
        if found:
            first = found[0]
            raise EngramoryError(
                f"{where} holds {first.title} ({first.shown}, line {first.line}): keep secrets "
                "out of memory; write where the secret lives instead (a vault path, ${VAR})"
            )


@dataclass
class Plan:
    """Everything ``new`` will write and say."""

    root: str
    note_path: str
    note_rel: str
    note_data: bytes
    index: IndexState
    new_index: str
    pointer: str
    lines: int
    size: int
    similar: list[tuple[str, float]]
    warnings: list[str]


def make_plan(request: NoteRequest, body: str, root: str, caps: Caps) -> Plan:
    """Decide what to write; raise on any refusal (nothing written yet)."""
    rel = request.slug + ".md"
    clash = existing_slug(root, request.slug)
    if clash is not None:
        raise EngramoryError(
            f"a note named {printable(clash)} already exists in {root}: update it, or pick another "
            "slug"
        )
    note = notewrite.NewNote(
        request.note_type,
        request.slug,
        request.description,
        request.scope,
        body,
        request.why,
        request.how,
    )
    title = request.title.strip() if request.title and request.title.strip() else None
    title = title or title_from_slug(request.slug)
    if request.native:
        note = replace(note, name=title)
    today = date.today()
    text = notewrite.note_text(note, today)
    data = text.encode("utf-8")
    pointer = pointer_line(title, rel, note.description)
    index = read_index_for_edit(root, caps)
    new_index = notewrite.index_with_pointer(index.text, request.note_type, pointer)
    lines, size, reasons = over_cap(new_index, caps)
    if reasons:
        raise EngramoryError(
            f"adding the pointer would take {INDEX_NAME} over its hard cap ({'; '.join(reasons)}): "
            f"compact the index first (merge or archive notes: engramory archive SLUG), then retry"
        )
    refuse_secrets({rel: text, f"the pointer line for {INDEX_NAME}": pointer}, root)
    profile = CLAUDE_NATIVE if request.native else ENGRAMORY
    warnings = doctor_gate(rel, data, today, profile, allow.load(root).prefixes)
    neighbours = list(live_notes(root))
    warnings += [
        f"{rel}: nearly the same as {other}: merge them instead [near-duplicate]"
        for other in near_duplicates(data, neighbours)
    ]
    if len(pointer) > 200:
        warnings.append(
            f"{INDEX_NAME}: the pointer line is {len(pointer)} characters (over 200): "
            "shorten the description [index-line-too-long]"
        )
    similar = notewrite.similar(note.description, ((n.rel, n.description) for n in neighbours))
    return Plan(
        root,
        os.path.join(root, rel),
        rel,
        data,
        index,
        new_index,
        pointer,
        lines,
        size,
        similar,
        warnings,
    )


def write(plan: Plan) -> None:
    """The note (new file, atomically), then the index; the note removed if the index fails."""
    if os.path.lexists(plan.note_path):  # created by someone else since the checks
        raise EngramoryError(f"{plan.note_path} appeared meanwhile: nothing written; retry")
    ensure_unchanged(plan.index)
    try:
        fsutil.write_atomic(plan.note_path, plan.note_data)
    except OSError as exc:
        raise EngramoryError(
            f"{plan.note_path}: cannot write it ({fsutil.os_error_text(exc)}); nothing changed"
        ) from None
    try:
        fsutil.write_atomic(plan.index.path, notewrite.encode_index(plan.new_index))
    except OSError as exc:
        try:
            os.unlink(plan.note_path)
        except OSError:
            pass
        raise EngramoryError(
            f"{plan.index.path}: cannot write it ({fsutil.os_error_text(exc)}); "
            f"{plan.note_rel} was removed again, nothing changed"
        ) from None


def still_valid(plan: Plan) -> bool:
    """Whether the plan still holds: the index as it was read and no file at the note's path."""
    return not os.path.lexists(plan.note_path) and index_now(plan.index) == (
        plan.index.exists,
        plan.index.text,
    )


def create(request: NoteRequest, body: str, root: str, caps: Caps, dry_run: bool = False) -> Plan:
    """Check, plan and (unless ``dry_run``) write the note and its pointer; the plan made.

    The refusals come from a plan made without the lock (a refused write takes none);
    then, under the store's state lock, the plan is checked against the disk again and
    made anew when another writer changed the index meanwhile, so that two writers
    (CLI or MCP server) never lose each other's pointer.
    """
    check_request(request)
    plan = make_plan(request, body, root, caps)
    if dry_run:
        return plan
    with locked(Path(root), leave_no_file=True):
        if not still_valid(plan):
            plan = make_plan(request, body, root, caps)
        write(plan)
    return plan


def report_text(plan: Plan, dry_run: bool) -> list[str]:
    """The text report."""
    out = []
    if plan.similar:
        out.append("update one of these instead?")
        out += [f"  {rel} (word overlap {score:.2f})" for rel, score in plan.similar]
    out += [f"warning: {w}" for w in plan.warnings]
    size = f"{INDEX_NAME} now {limits_text(plan.lines, plan.size)}"
    if dry_run:
        out.append(f"would write {plan.note_path}:")
        out += ["  " + line for line in plan.note_data.decode("utf-8").split("\n")[:-1]]
        out.append(f"would add to {INDEX_NAME}: {plan.pointer}")
        out.append(f"({size.replace('now', 'would be')}; nothing written: --dry-run)")
    else:
        out.append(f"created {plan.note_path}")
        out.append(f"added to {INDEX_NAME}: {plan.pointer} ({size})")
    return out
