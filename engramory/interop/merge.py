"""Merging one memory folder into another: the plan, pure but for reading both folders.

A project's memory split across two folders (moved, cloned twice, opened from
two paths) comes back together here. Every top-level note of FROM is copied
byte for byte (the native dialect kept: no field is rewritten) unless TO holds
a note with exactly the same bytes (a duplicate, skipped) or it holds a secret's
value (never copied: skipped and listed). A name TO already uses (any case, live
or archived) gets the first free ``-2``, ``-3``... suffix, and the report says
so. Each note copied gets a pointer: FROM's index line's title and hook when it
has one, else its ``name`` and ``description``; under its type's section when
TO's index has type sections, else at the end, as Claude Code writes its own.
The caps, ``--archive-overflow`` and the write itself are the import core's
(:mod:`engramory.interop.importer`), so backup and undo are the same.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from engramory import secrets
from engramory.interop import claude_import
from engramory.interop.importer import (
    NOT_READ,
    Candidate,
    ImportPlan,
    Planned,
    Skip,
    SourceFolder,
    existing_names,
    is_flat,
    name_key,
    name_problem,
    place,
    read_folder,
)
from engramory.secrets import allow
from engramory.store.caps import Caps
from engramory.store.disk import NOTE_READ_LIMIT, walk
from engramory.util import fsutil
from engramory.write.filedates import FileDates

DUPLICATE = "duplicate"
SECRET = "secret"
MERGED_SUFFIX = ".merged-"
MAX_SUFFIX = 1000


@dataclass
class MergePlan:
    """What a merge copies and says; nothing written yet. ``plan`` is the import core's."""

    source: str
    plan: ImportPlan
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (FROM file, TO note)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # (FROM file, name in TO)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def contents(root: str) -> dict[str, str]:
    """SHA-256 -> store-relative path of every note of ``root``, live and archived (read with a
    bound, never through a symlink; a note that cannot be read is not a duplicate of anything)."""
    if not os.path.isdir(root):
        return {}
    found = walk(root)
    rels = [note.rel for note in found.notes if note.status == "ok" and note.target is None]
    seen: dict[str, str] = {}
    for rel in [*rels, *found.archived]:
        try:
            data = fsutil.read_bounded_stat(
                os.path.join(root, *rel.split("/")), NOTE_READ_LIMIT, follow_symlinks=False
            )[0]
        except OSError:
            continue
        seen.setdefault(digest(data), rel)
    return seen


def free_name(stem: str, taken: dict[str, str]) -> str | None:
    """``stem.md``, else the first ``stem-N.md`` no entry of ``taken`` holds (by
    :func:`name_key`)."""
    for number in range(1, MAX_SUFFIX):
        name = f"{stem}.md" if number == 1 else f"{stem}-{number}.md"
        if name_key(name) not in taken and name_problem(name[:-3]) is None:
            return name
    return None


def _day(mtime: float) -> str:
    return datetime.fromtimestamp(mtime, timezone.utc).strftime("%Y-%m-%d")


def _no_dates() -> FileDates:
    return FileDates()


def read_raw(folder: str, name: str) -> bytes | None:
    """A FROM note's bytes as they are on disk (``read_folder`` gives its decoded text)."""
    try:
        return fsutil.read_bounded_stat(
            os.path.join(folder, name), NOTE_READ_LIMIT, follow_symlinks=False
        )[0]
    except OSError:
        return None


def screen(
    source: str, folder: SourceFolder, target: str
) -> tuple[list[Planned], list[Skip], MergePlan]:
    """FROM's notes as files to write in TO, the ones skipped, and the duplicates and renames
    (in a :class:`MergePlan` whose ``plan`` is filled in by :func:`make_plan`)."""
    hooks = claude_import.index_hooks(folder.index.text) if folder.index is not None else {}
    taken = existing_names(target)
    known = contents(target)
    allowed = allow.load(target) if os.path.isdir(target) else None
    kept: list[Planned] = []
    skipped = list(folder.skipped)
    merge = MergePlan(source, ImportPlan(target, False, False, b"", "", [], [], []))
    for note in folder.files:
        data = read_raw(source, note.name)
        if data is None:
            skipped.append(Skip(note.name, NOT_READ, "could not be read again"))
            continue
        same = known.get(digest(data))
        if same is not None:
            merge.duplicates.append((note.name, same))
            continue
        mapped = claude_import.map_note(note, hooks, _no_dates)
        if isinstance(mapped, Skip):
            skipped.append(mapped)
            continue
        found = secrets.find(f"{note.text}\n{mapped.title}\n{mapped.hook}", allowed)
        if found:
            skipped.append(Skip(note.name, SECRET, f"{found[0].title}: never copied"))
            continue
        name = free_name(note.stem, taken)
        if name is None:
            skipped.append(Skip(note.name, "collision", "no free name with a suffix"))
            continue
        if name != note.name:
            merge.renamed.append((note.name, name))
        taken[name_key(name)] = name
        known[digest(data)] = name
        candidate: Candidate = replace(mapped, name=name[:-3], recency=_day(note.mtime))
        kept.append(Planned(name, data, candidate))
    return kept, skipped, merge


def make_plan(
    source: str,
    target: str,
    index: str | None,
    index_source: bytes,
    caps: Caps,
    archive_overflow: bool,
) -> MergePlan:
    """Decide the merge of ``source`` into ``target``; raise (exit 1) on a refusal.

    ``index``: TO's index text (``None``: TO has none; one is created, flat as the host's).
    """
    kept, skipped, merge = screen(source, read_folder(source), target)
    base = "" if index is None else index
    plan = place(target, kept, base, caps, archive_overflow, flat=is_flat(base))
    plan.index_exists, plan.index_source, plan.skipped = index is not None, index_source, skipped
    merge.plan = plan
    return merge


SOURCE_RECORD = "merge-source.json"  # in the merge's backup folder: where FROM was renamed to
SOURCE_RECORD_LIMIT = 64 * 1024


def source_record(source: str, renamed_to: str) -> bytes:
    """What ``--remove-source`` records for the undo: FROM's path and where it went."""
    return json.dumps({"from": source, "renamed_to": renamed_to}, ensure_ascii=False).encode()


def read_source_record(data: bytes) -> tuple[str, str] | None:
    """``(FROM, where it went)`` from a record, or ``None`` when it is not one that
    ``--remove-source`` could have written: the backup sits in the store, which anyone
    may have edited, so the undo only ever renames ``<X>.merged-<...>`` back to ``X``,
    both absolute and in one folder."""
    try:
        record = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    source, renamed_to = record.get("from"), record.get("renamed_to")
    if not isinstance(source, str) or not isinstance(renamed_to, str):
        return None
    if not os.path.isabs(source) or os.path.normpath(source) != source or "\0" in source:
        return None
    parent, name = os.path.split(source)
    moved_parent, moved_name = os.path.split(renamed_to)
    if moved_parent != parent or not name or not moved_name.startswith(name + MERGED_SUFFIX):
        return None
    if os.sep in moved_name or moved_name in (".", ".."):
        return None
    return source, renamed_to


def merged_name(source: str, day: str) -> str:
    """Where ``--remove-source`` puts FROM: ``<FROM>.merged-<day>`` (``-2``... when taken)."""
    base = f"{source.rstrip(os.sep)}{MERGED_SUFFIX}{day}"
    candidate, number = base, 1
    while os.path.lexists(candidate):
        number += 1
        candidate = f"{base}-{number}"
    return candidate
