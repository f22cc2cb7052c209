"""What ``engramory archive SLUG`` (and the MCP server's ``memory_archive``) does: retire a
note to ``archive/`` and take it out of the index.

The note is moved (one ``rename``) and the index rewritten (atomically);
when the index cannot be written the note is moved back. Index pointers to
the note are found as the doctor resolves them (``slug.md``, ``./slug.md``,
``%73lug.md``, ``sub/../slug.md``, ``[[slug]]``, ``[[Slug|alias]]``): a line
that points only to it is removed, and a line that also points to other
notes keeps them, with its links to this note rewritten to the archived
path. ``--keep-pointer`` rewrites every such link to ``archive/SLUG.md``
instead of removing lines (a ``[[slug]]`` is left as it is: the doctor
resolves it to the archived note). A ``## TYPE`` heading in the form ``new``
writes that the removal leaves empty goes too, so ``new`` then ``archive`` of
one note gives back the index byte for byte.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engramory.continuity.state import locked
from engramory.doctor.context import NameTable
from engramory.store.caps import INDEX_NAME, Caps
from engramory.store.disk import (
    ANCHOR,
    ARCHIVE,
    ESCAPES,
    EXTERNAL,
    FOUND,
    LIVE,
    NOTE_READ_LIMIT,
    READ_OK,
    Walk,
    plain_notes,
    read_file,
    resolve_target,
    walk,
)
from engramory.store.frontmatter import NOTE_TYPES, parse_bytes
from engramory.store.markdown import HEADING, INLINE, WIKI, Link, body_wikilinks, classify_index
from engramory.util import fsutil
from engramory.util.errors import EngramoryError, InputMissingError, UsageError
from engramory.util.textfmt import printable
from engramory.write import indexedit, notewrite
from engramory.write.indexfile import (
    IndexState,
    ensure_unchanged,
    index_now,
    over_cap,
    read_index_for_edit,
)


def bare_slug(raw: str) -> str:
    """The slug ``raw`` names (a trailing ``.md`` dropped), or a usage error (64)."""
    slug = raw[:-3] if raw.lower().endswith(".md") else raw
    if (
        not slug.strip()
        or any(sep in raw for sep in "/\\")
        or slug in (".", "..")
        or os.path.isabs(raw)
        or (len(raw) >= 2 and raw[1] == ":")
        or any(ord(ch) < 32 or ord(ch) == 127 for ch in raw)
    ):
        raise UsageError(
            f"SLUG {printable(repr(raw))} is not a bare slug: give the note's file name without "
            "a directory, '..' or an absolute path (e.g. engramory archive old-migration)"
        )
    if (slug + ".md").casefold() == INDEX_NAME.casefold():
        raise UsageError(f"{INDEX_NAME} is the index, not a note: give the slug of a note")
    return slug


def note_identity(root: str, slug: str) -> tuple[int, int]:
    """The ``(device, inode)`` of ``<root>/SLUG.md``; refuses a missing note (66), a
    symlink (1: moving it would break or follow it) and anything not a regular file (66)."""
    path = os.path.join(root, slug + ".md")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise InputMissingError(
            f"no note {slug}.md in {root}: check the slug (ls {root})"
        ) from None
    except OSError as exc:
        raise InputMissingError(f"{path}: {fsutil.os_error_text(exc)}") from None
    if stat.S_ISLNK(info.st_mode):
        where = fsutil.escapes(path, root)
        if where is not None:
            raise EngramoryError(
                f"{path} is a symlink leading out of the store ({where}): not moved; "
                "remove the link by hand"
            )
        raise EngramoryError(
            f"{path} is a symlink: moving it would break it; archive the note it points to, "
            "or replace the link with the file"
        )
    if not stat.S_ISREG(info.st_mode):
        raise InputMissingError(f"{path} is not a regular file: nothing to archive")
    return info.st_dev, info.st_ino


def archive_dir(root: str) -> str:
    """The name of the store's archive directory (an existing ``Archive/`` is used as is)."""
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise InputMissingError(f"{root}: {fsutil.os_error_text(exc)}") from None
    found = [n for n in names if n.casefold() == ARCHIVE]
    if ARCHIVE in found or not found:
        return ARCHIVE
    return found[0]


def check_destination(root: str, directory: str, slug: str) -> str:
    """The archived note's path; refuses (1) when it exists in any letter case, or when
    the archive directory is a symlink or not a directory."""
    path = os.path.join(root, directory)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return os.path.join(path, slug + ".md")
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise EngramoryError(
            f"{path} is {'a symlink' if stat.S_ISLNK(info.st_mode) else 'not a directory'}: "
            "make it a plain directory first"
        )
    wanted = (slug + ".md").casefold()
    for name in os.listdir(path):
        if name.casefold() == wanted:
            raise EngramoryError(
                f"{directory}/{printable(name)} already exists: merge the two by hand, or rename "
                f"the archived one first"
            )
    return os.path.join(path, slug + ".md")


@dataclass
class PointerEdit:
    """How the index changes: lines removed, lines rewritten (number -> new content), and
    the ``## TYPE`` headings the removal leaves empty (number -> heading) with the blank
    lines that go with them (``spacing``)."""

    removed: list[int] = field(default_factory=list)
    rewritten: dict[int, str] = field(default_factory=dict)
    headings: dict[int, str] = field(default_factory=dict)
    spacing: list[int] = field(default_factory=list)


# The section headings ``engramory new`` adds (``## feedback``...), exactly as it writes them.
NEW_HEADINGS = frozenset(f"## {note_type}" for note_type in NOTE_TYPES)


def _blank(line: str) -> bool:
    return not line.strip()


def empty_headings(text: str, removed: Sequence[int]) -> tuple[dict[int, str], list[int]]:
    """The ``## TYPE`` headings (as ``new`` writes them) whose section held a removed line
    and holds nothing but blank lines without it, and the blank lines that go with each:
    those of its section and, for a last section, the one blank line ``new`` put before
    the heading (``new`` adds it only after a line that is not blank)."""
    lines = [line.rstrip("\r\n") for line in indexedit.split_lines(text)]
    gone = set(removed)
    starts = [entry.number for entry in classify_index(text) if entry.kind == HEADING]
    headings: dict[int, str] = {}
    spacing: list[int] = []
    for k, start in enumerate(starts):
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(lines)
        section = range(start + 1, end + 1)
        if lines[start - 1] not in NEW_HEADINGS or not any(n in gone for n in section):
            continue
        kept = [n for n in section if n not in gone]
        if any(not _blank(lines[n - 1]) for n in kept):
            continue
        headings[start] = lines[start - 1]
        spacing += kept
        at_end = end == len(lines) and start >= 3
        if at_end and _blank(lines[start - 2]) and not _blank(lines[start - 3]):
            spacing.append(start - 1)
    return headings, spacing


def strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


def pointer_edit(
    text: str,
    root: str,
    found: Walk,
    rel: str,
    identity: tuple[int, int],
    new_target: str,
    keep: bool,
) -> PointerEdit:
    """The index lines that point to the note ``rel``, resolved as the doctor resolves them,
    and what becomes of each."""
    names = NameTable(found.notes, [n.status != ESCAPES for n in found.notes])
    mine = next((i for i, n in enumerate(found.notes) if n.rel == rel), None)
    plain = plain_notes(found)
    edit = PointerEdit()
    for line in classify_index(text):
        links = line_links(line.links, root, plain, names)
        ours, others = ours_and_others(links, identity, mine)
        if not ours:
            continue
        if others or keep:
            new = rewritten_line(line.text, ours, others, new_target)
            if new is not None:
                edit.rewritten[line.number] = new
        else:
            edit.removed.append(line.number)
    return edit


# One link of an index line, as the pointer edits see it: its form, its target text, and
# what it leads to (a path: the file identity, or None; a wikilink: the note numbers).
LineLink = tuple[str, str, object]


def line_links(
    links: Sequence[Link], root: str, plain: frozenset[str], names: NameTable
) -> list[LineLink]:
    """A line's links resolved as the doctor resolves them; web addresses and bare
    anchors left out (they never keep or lose a line)."""
    kept: list[LineLink] = []
    for link in links:
        if link.form == INLINE:
            target = resolve_target(root, link.target, plain)
            if target.kind in (EXTERNAL, ANCHOR):
                continue
            kept.append((INLINE, link.target, target.identity if target.kind == FOUND else None))
        elif link.form == WIKI:
            slug = strip_md(link.target)
            plain_slug = "/" not in slug and "\\" not in slug
            kept.append((WIKI, link.target, tuple(names.lookup(slug)) if plain_slug else ()))
        else:
            kept.append((link.form, link.target, None))
    return kept


def ours_and_others(
    links: Sequence[LineLink], identity: tuple[int, int], mine: int | None
) -> tuple[list[str], int]:
    """A line's links to the note (a path's target text; ``""`` for a wikilink, which is
    left as it is when rewriting) and the number of its other links."""
    ours: list[str] = []
    others = 0
    for form, target, leads_to in links:
        if form == INLINE and leads_to is not None and leads_to == identity:
            ours.append(target)
        elif form == WIKI and mine in leads_to:  # type: ignore[operator]
            ours.append("")
        else:
            others += 1
    return ours, others


def rewritten_line(text: str, ours: Sequence[str], others: int, new_target: str) -> str | None:
    """A kept line with its links to the note redirected to ``new_target`` (``None``: the
    line stays as it is, e.g. only a ``[[slug]]``, which resolves to the archive)."""
    inline = [target for target in ours if target]
    if not others and not inline:
        return None
    new = notewrite.rewrite_link_targets(text, inline, new_target)
    return new if new != text else None


def apply_edit(text: str, edit: PointerEdit) -> str:
    """The index text (BOM kept) with the edit made."""
    bom, rest = notewrite.split_bom(text)
    for number, new in edit.rewritten.items():
        rest = indexedit.replace_line(rest, number, new)
    return bom + indexedit.remove_lines(rest, [*edit.removed, *edit.headings, *edit.spacing])


@dataclass
class NoteLinks:
    """Every live note's ``[[links]]`` (note numbers, as the doctor resolves them), and the
    ``path:line`` of each ``[[SLUG]]`` in another note's body."""

    links: dict[int, tuple[int, ...]]
    to_slug: list[str]


def note_links(root: str, found: Walk, names: NameTable, slug: str, rel: str) -> NoteLinks:
    """Read every live note once (bounded) for its body wikilinks."""
    wanted = slug.casefold()
    links: dict[int, tuple[int, ...]] = {}
    hits = []
    for number, note in enumerate(found.notes):
        if note.status == ESCAPES:
            continue
        links[number] = ()
        read = read_file(note.path(root), NOTE_READ_LIMIT) if note.status == READ_OK else None
        if read is None or read.data is None or b"[[" not in read.data:
            continue
        parsed = parse_bytes(read.data)
        if parsed.closed:
            body, first = parsed.body, parsed.body_line
        else:
            body, first = read.data.decode("utf-8", "replace"), 1
        targets: list[int] = []
        for target, line in body_wikilinks(body, first):
            bare = strip_md(target)
            if "/" in bare or "\\" in bare:
                continue
            targets.extend(names.lookup(bare))
            if note.rel != rel and bare.casefold() == wanted:
                hits.append(f"{note.rel}:{line}")
        links[number] = tuple(targets)
    return NoteLinks(links, hits)


def indexed_notes(text: str, root: str, found: Walk, names: NameTable) -> set[int]:
    """The live notes an index text points to, resolved as the doctor resolves pointers."""
    plain = plain_notes(found)
    by_rel = {n.rel: i for i, n in enumerate(found.notes)}
    by_identity: dict[tuple[int, int], list[int]] | None = None
    indexed: set[int] = set()
    for line in classify_index(text):
        for link in line.links:
            if link.form == WIKI:
                bare = strip_md(link.target)
                if "/" not in bare and "\\" not in bare:
                    indexed.update(names.lookup(bare))
                continue
            if link.form != INLINE:
                continue
            target = resolve_target(root, link.target, plain)
            if target.kind != FOUND or target.area != LIVE:
                continue
            if target.rel in by_rel:
                indexed.add(by_rel[target.rel])
                continue
            if by_identity is None:
                by_identity = {}
                for number, note in enumerate(found.notes):
                    try:
                        info = os.stat(note.path(root))
                    except OSError:
                        continue
                    by_identity.setdefault((info.st_dev, info.st_ino), []).append(number)
            indexed.update(by_identity.get(target.identity or (-1, -1), ()))
    return indexed


def unreachable(indexed: set[int], links: dict[int, tuple[int, ...]], gone: int | None) -> set[int]:
    """The live notes (``gone`` left out) reached neither from ``indexed`` nor through links."""
    reachable = set(indexed) - {gone}
    pending = list(reachable)
    while pending:
        for target in links.get(pending.pop(), ()):
            if target not in reachable and target != gone:
                reachable.add(target)
                pending.append(target)
    return set(links) - reachable - {gone}


def move(source: str, destination: str, index: IndexState, new_index: str | None) -> None:
    """Move the note, then write the index; the note moved back if the index write fails."""
    directory = os.path.dirname(destination)
    if os.path.lexists(destination):  # created by someone else since the checks
        raise EngramoryError(f"{destination} appeared meanwhile: nothing moved; retry")
    if new_index is not None:
        ensure_unchanged(index)
    made = False
    try:
        if not os.path.isdir(directory):
            os.mkdir(directory)
            made = True
        os.rename(source, destination)
    except OSError as exc:
        raise EngramoryError(
            f"cannot move {source} to {destination} ({fsutil.os_error_text(exc)}); nothing changed"
        ) from None
    if new_index is None:
        return
    try:
        fsutil.write_atomic(index.path, notewrite.encode_index(new_index))
    except OSError as exc:
        os.rename(destination, source)
        if made:
            os.rmdir(directory)
        raise EngramoryError(
            f"{index.path}: cannot write it ({fsutil.os_error_text(exc)}); the note was moved "
            "back, nothing changed"
        ) from None


def refuse_growth_over_cap(before: str, after: str, caps: Caps) -> None:
    """Exit 1 when the edit grows the index and leaves it over a hard cap."""
    lines_before, size_before, _ = over_cap(before, caps)
    lines, size, reasons = over_cap(after, caps)
    if reasons and (lines > lines_before or size > size_before):
        raise EngramoryError(
            f"rewriting the pointers would take {INDEX_NAME} over its hard cap "
            f"({'; '.join(reasons)}): compact the index first, or archive without --keep-pointer"
        )


def refuse_new_orphans(before: set[int], after: set[int], found: Walk, rel: str) -> None:
    """Exit 1 when notes reached only through the archived note would become orphans."""
    lost = sorted(found.notes[n].rel for n in after - before)
    if lost:
        shown = ", ".join(printable(r) for r in lost[:10]) + (" ..." if len(lost) > 10 else "")
        raise EngramoryError(
            f"archiving {rel} would leave {len(lost)} note(s) reached only through its [[links]] "
            f"unreachable from {INDEX_NAME} (orphans): {shown}; add an index pointer for each "
            "first (engramory fix adds them), or archive them too"
        )


@dataclass
class ArchivePlan:
    """Everything ``archive`` will do and say."""

    root: str
    slug: str
    rel: str
    archived_rel: str
    destination: str
    index: IndexState
    new_index: str | None
    edit: PointerEdit
    linking: list[str]
    identity: tuple[int, int]


def make_archive_plan(slug: str, root: str, caps: Caps, keep_pointer: bool) -> ArchivePlan:
    """Decide what to move and rewrite; raise on any refusal (nothing changed yet)."""
    identity = note_identity(root, slug)
    directory = archive_dir(root)
    destination = check_destination(root, directory, slug)
    rel = slug + ".md"
    archived_rel = f"{directory}/{rel}"
    index = read_index_for_edit(root, caps)
    found = walk(root)
    names = NameTable(found.notes, [n.status != ESCAPES for n in found.notes])
    mine = next((i for i, n in enumerate(found.notes) if n.rel == rel), None)
    graph = note_links(root, found, names, slug, rel)
    new_index = None
    edit = PointerEdit()
    if index.exists:
        text = notewrite.split_bom(index.text)[1]
        edit = pointer_edit(text, root, found, rel, identity, archived_rel, keep_pointer)
        edit.headings, edit.spacing = empty_headings(text, edit.removed)
        new_index = apply_edit(index.text, edit)
        refuse_growth_over_cap(index.text, new_index, caps)
        refuse_new_orphans(
            unreachable(indexed_notes(text, root, found, names), graph.links, None),
            unreachable(
                indexed_notes(notewrite.split_bom(new_index)[1], root, found, names),
                graph.links,
                mine,
            ),
            found,
            rel,
        )
    return ArchivePlan(
        root, slug, rel, archived_rel, destination, index, new_index, edit, graph.to_slug, identity
    )


def _plan_still_valid(plan: ArchivePlan) -> bool:
    """Whether the note, its destination and the index are as the plan saw them."""
    try:
        info = os.lstat(os.path.join(plan.root, plan.rel))
    except OSError:
        return False
    if (info.st_dev, info.st_ino) != plan.identity or os.path.lexists(plan.destination):
        return False
    if plan.new_index is None:
        return not os.path.lexists(plan.index.path)
    return index_now(plan.index) == (plan.index.exists, plan.index.text)


def archive(
    raw_slug: str, root: str, caps: Caps, keep_pointer: bool = False, dry_run: bool = False
) -> ArchivePlan:
    """Check, plan and (unless ``dry_run``) archive the note; the plan made.

    As for ``new``: refusals come from a plan made without the lock; under the store's
    state lock the plan is checked against the disk again (made anew if another writer
    changed the note or the index meanwhile) and carried out.
    """
    slug = bare_slug(raw_slug)
    plan = make_archive_plan(slug, root, caps, keep_pointer)
    if dry_run:
        return plan
    with locked(Path(root), leave_no_file=True):
        if not _plan_still_valid(plan):
            plan = make_archive_plan(slug, root, caps, keep_pointer)
        move(os.path.join(root, plan.rel), plan.destination, plan.index, plan.new_index)
    return plan


def report_lines(plan: ArchivePlan, dry_run: bool) -> list[str]:
    """What was done (or would be, with ``dry_run``), one line each."""
    out = []
    verb = "would " if dry_run else ""
    rel, archived_rel, edit = plan.rel, plan.archived_rel, plan.edit
    out.append(f"{verb}{'move' if verb else 'moved'} {rel} -> {archived_rel}")
    for number in edit.removed:
        out.append(f"{INDEX_NAME}:{number}: {verb}{'remove' if verb else 'removed'} the pointer")
    for number, heading in sorted(edit.headings.items()):
        out.append(
            f"{INDEX_NAME}:{number}: {verb}{'remove' if verb else 'removed'} the heading "
            f'"{heading}" (nothing is left under it)'
        )
    for number, new in sorted(edit.rewritten.items()):
        out.append(
            f"{INDEX_NAME}:{number}: {verb}{'point' if verb else 'points'} to {archived_rel}: {new}"
        )
    if plan.index.exists and not edit.removed and not edit.rewritten:
        out.append(f"{INDEX_NAME}: no pointer to {rel} found")
    if plan.linking:
        out.append(
            f"still linking to it with [[{plan.slug}]] (it resolves to the archived note now; "
            "update the links if the topic moved): " + ", ".join(plan.linking)
        )
    if dry_run:
        out.append("nothing changed: --dry-run")
    return out
