"""``memory_update``: rewrite a live note in place, with the checks ``new`` makes.

Only the lines asked for change (:mod:`engramory.repair.fmedit`): the
``description`` line when one is given and, unless the store's profile is
claude-native, ``updated`` set to today; every other frontmatter byte stays
(a ``metadata:`` block, ``originSessionId``, the order and quoting of the
keys). The body, **Why:** and **How to apply:** parts are replaced one by one
when given (:func:`engramory.write.notewrite.split_body`).
Refused, before anything is written: a note that is not a live regular file
in the store, a frontmatter the parser reports problems in (writing it back
would drop what it could not read), a secret's value the note does not hold
already (as the guard judges an edit), and a result the doctor's note rules
call an error the note did not have already (a note that holds a secret, say,
can still be edited elsewhere, as the guard allows). When the description
changes, the index's pointer line for the note is updated too: a line whose
only link is to the note and which ends in ``— OLD DESCRIPTION`` (as ``new``
writes it) gets the new description; growing the index past a hard cap that
way is refused. A pointer written differently is left alone, and the result
says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from engramory import secrets
from engramory.continuity.state import locked
from engramory.doctor.profiles import CLAUDE_NATIVE, ENGRAMORY
from engramory.repair import fmedit
from engramory.secrets import allow
from engramory.store.caps import INDEX_NAME, Caps
from engramory.store.disk import NOTE_READ_LIMIT
from engramory.store.frontmatter import parse_bytes
from engramory.store.markdown import INLINE, classify_index
from engramory.util import fsutil
from engramory.util.errors import EngramoryError, UsageError
from engramory.write import indexedit, notewrite
from engramory.write.archiving import bare_slug, note_identity, refuse_growth_over_cap
from engramory.write.gate import doctor_gate
from engramory.write.indexfile import IndexState, index_now, read_index_for_edit


@dataclass(frozen=True)
class NoteChange:
    """What to change in a note (``None``: keep it)."""

    description: str | None = None
    body: str | None = None
    why: str | None = None
    how: str | None = None


@dataclass
class UpdatePlan:
    """Everything an update will write and say."""

    root: str
    rel: str
    path: str
    old: bytes
    new: bytes
    index: IndexState
    new_index: str | None
    pointer_line: int | None
    warnings: list[str] = field(default_factory=list)


def check_change(change: NoteChange) -> None:
    """Usage refusals: nothing to change, or a one-line value that is not one line."""
    if all(value is None for value in vars(change).values()):
        raise UsageError("nothing to update: give description, body, why or how")
    if change.description is not None and not change.description.strip():
        raise UsageError("description is empty: give the one-line hook that says when to open it")
    for label in ("description", "why", "how"):
        value = getattr(change, label)
        problem = notewrite.one_line_problem(label, value) if value is not None else None
        if problem:
            raise UsageError(problem)


def new_secret(old: str, new: str, root: str | None = None) -> secrets.Secret | None:
    """The first secret of ``new`` whose value ``old`` does not hold (the guard's rule); a
    value on the store's allow list (under ``root``) is none."""
    held = {old[s.start : s.end] for s in secrets.find(old)}
    allowed = allow.load(root) if root is not None else None
    return next((s for s in secrets.find(new, allowed) if new[s.start : s.end] not in held), None)


def _split_at_fence(data: bytes, closing_fence: int) -> tuple[bytes, bytes]:
    """``(frontmatter, body)``: the bytes up to and including the closing fence's line, the rest."""
    at = -1
    for _ in range(closing_fence):
        at = data.find(b"\n", at + 1)
        if at < 0:
            return data, b""
    return data[: at + 1], data[at + 1 :]


def updated_note(
    old: bytes, change: NoteChange, rel: str, today: date, native: bool = False
) -> bytes:
    """The note's new bytes: only the lines asked for changed (``native``: no ``updated``
    added); refuses a frontmatter that cannot be edited safely."""
    parsed = parse_bytes(old)
    if not parsed.present or not parsed.closed or parsed.problems:
        raise EngramoryError(
            f"{rel}: its frontmatter is missing or has problems, so it cannot be rewritten "
            f"safely: fix it first (engramory doctor; engramory fix)"
        )
    head, body_bytes = _split_at_fence(old, parsed.fence_lines[1])
    if change.description is not None:
        head = fmedit.set_field(head, "description", change.description.strip())
    if not native:
        head = fmedit.set_field(head, "updated", today.isoformat())
    if change.body is None and change.why is None and change.how is None:
        return head + body_bytes
    body, why, how = notewrite.split_body(parsed.body)
    if change.body is not None:
        body = change.body.replace("\r\n", "\n")
    tail = notewrite.body_text(
        body,
        change.why if change.why is not None else why,
        change.how if change.how is not None else how,
    )
    return head + tail.encode("utf-8")


def _hook(description: str) -> str:
    """The description as ``new`` writes it after the dash of a pointer line."""
    return indexedit.pointer_line("t", "t.md", description).split(" — ", 1)[1]


def pointer_update(index: str, rel: str, old: str, new: str) -> tuple[str, int | None]:
    """``(index, line)``: the index with the note's pointer line given the new description
    (``line``: its number; ``None`` and the index unchanged when no line qualifies)."""
    bom, rest = notewrite.split_bom(index)
    old_tail, new_tail = " — " + _hook(old), " — " + _hook(new)
    for line in classify_index(rest):
        targets = [link.target for link in line.links if link.form == INLINE]
        if len(line.links) != 1 or targets not in ([rel], [f"./{rel}"]):
            continue
        text = line.text.rstrip("\r")
        if text.endswith(old_tail):
            changed = text[: -len(old_tail)] + new_tail
            return bom + indexedit.replace_line(rest, line.number, changed), line.number
    return index, None


def make_update_plan(
    raw_slug: str, change: NoteChange, root: str, caps: Caps, native: bool = False
) -> UpdatePlan:
    """Decide what to write; raise on any refusal (nothing written yet)."""
    check_change(change)
    slug = bare_slug(raw_slug)
    note_identity(root, slug)  # a live regular file, not a symlink
    rel = slug + ".md"
    path = os.path.join(root, rel)
    try:
        old = fsutil.read_bounded_stat(path, NOTE_READ_LIMIT, follow_symlinks=False)[0]
    except OSError as exc:
        raise EngramoryError(f"{rel}: cannot read it ({fsutil.os_error_text(exc)})") from None
    today = date.today()
    new = updated_note(old, change, rel, today, native)
    old_text, new_text = old.decode("utf-8", "replace"), new.decode("utf-8", "replace")
    found = new_secret(old_text, new_text, root)
    if found is not None:
        raise EngramoryError(
            f"the update puts {found.title} ({found.shown}) into {rel}: keep secrets out of "
            "memory; write where the secret lives instead (a vault path, ${VAR})"
        )
    profile = CLAUDE_NATIVE if native else ENGRAMORY
    warnings = doctor_gate(rel, new, today, profile, allow.load(root).prefixes, before=old)
    index = read_index_for_edit(root, caps)
    new_index, number = None, None
    old_description = parse_bytes(old).fields.get("description", "")
    if change.description is not None and change.description.strip() != old_description:
        edited, number = pointer_update(index.text, rel, old_description, change.description)
        if number is None:
            warnings.append(
                f"{INDEX_NAME}: no pointer line to {rel} ending in its old description was "
                "found; update the pointer's description by hand"
            )
        else:
            refuse_growth_over_cap(index.text, edited, caps)
            new_index = edited
    return UpdatePlan(root, rel, path, old, new, index, new_index, number, warnings)


def _still_valid(plan: UpdatePlan) -> bool:
    try:
        now = fsutil.read_bounded_stat(plan.path, len(plan.old) + 1, follow_symlinks=False)[0]
    except OSError:
        return False
    return now == plan.old and index_now(plan.index) == (plan.index.exists, plan.index.text)


def update(
    raw_slug: str, change: NoteChange, root: str, caps: Caps, native: bool = False
) -> UpdatePlan:
    """Check, plan and write the update under the store's state lock (re-planned when the
    note or index changed meanwhile); the note is put back if the index cannot be written.
    ``native``: the store's profile is claude-native (no ``updated`` added)."""
    plan = make_update_plan(raw_slug, change, root, caps, native)
    with locked(Path(root), leave_no_file=True):
        if not _still_valid(plan):
            plan = make_update_plan(raw_slug, change, root, caps, native)
        write(plan)
    return plan


def write(plan: UpdatePlan) -> None:
    """The note, then the index (each atomically); the old note back if the index fails."""
    try:
        fsutil.write_atomic(plan.path, plan.new)
    except OSError as exc:
        raise EngramoryError(
            f"{plan.rel}: cannot write it ({fsutil.os_error_text(exc)}); nothing changed"
        ) from None
    if plan.new_index is None:
        return
    try:
        fsutil.write_atomic(plan.index.path, notewrite.encode_index(plan.new_index))
    except OSError as exc:
        fsutil.write_atomic(plan.path, plan.old)
        raise EngramoryError(
            f"{plan.index.path}: cannot write it ({fsutil.os_error_text(exc)}); {plan.rel} was "
            "put back, nothing changed"
        ) from None
