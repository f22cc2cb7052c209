"""What the doctor's rules look at: one note in memory, or the whole store.

The engine (``engine.py``) does all the I/O and fills these in; rules only
read them. A note's text lives in a :class:`NoteCheck` just long enough for
the note rules to run; what the store rules need afterwards is kept in a small
:class:`NoteSummary` (its ``[[links]]`` already resolved to note numbers), so
a 100,000-note store is never held in memory at once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from engramory.doctor.profiles import ENGRAMORY, Profile
from engramory.store.caps import Caps
from engramory.store.disk import (
    ESCAPES,
    NOTE_READ_LIMIT,
    IndexFile,
    NoteFile,
    Read,
    Target,
    Walk,
    contained,
    read_file,
)
from engramory.store.frontmatter import NOTE_TYPES, Frontmatter
from engramory.store.markdown import IndexLine

DEFAULT_MAX_INDEX_LINE = 200
DEFAULT_STALE_DAYS = 90


@dataclass(frozen=True)
class Options:
    """How the doctor runs: schema rules on or off, the long-line limit, today's date, the
    profile (the store's dialect: how loud each rule is), and the age in days past which
    a project note is stale (``0``: never); ``allowed_secrets``: the fingerprint prefixes
    of the store's ``.engramory/allow-secrets`` (read by the engine)."""

    schema: bool = True
    max_index_line: int = DEFAULT_MAX_INDEX_LINE
    today: date = field(default_factory=date.today)
    profile: Profile = ENGRAMORY
    stale_days: int = DEFAULT_STALE_DAYS
    allowed_secrets: tuple[str, ...] = ()


class NoteCheck:
    """One note while it is being checked. ``fm`` is ``None`` when it could not be read.

    Facts several rules need are worked out once per note: ``note_type`` (the
    ``type`` when it is one of the four) here; ``dates`` and ``labels`` start
    empty (``None``) and are filled by the first rule that needs them.
    """

    __slots__ = ("dates", "file", "fm", "labels", "note_type", "options", "read")

    def __init__(self, file: NoteFile, read: Read, fm: Frontmatter | None, options: Options):
        self.file = file
        self.read = read
        self.fm = fm
        self.options = options
        value = fm.fields.get("type") if fm is not None else None
        self.note_type: str | None = value if value in NOTE_TYPES else None
        self.dates: dict[str, date | None] | None = None
        self.labels: list[Any] | None = None

    @property
    def rel(self) -> str:
        return self.file.rel


class NoteSummary:
    """What the store rules need to know about a note after it was checked.

    ``links`` are the numbers (positions in ``StoreView.notes``) of the live
    notes its body links to.
    """

    __slots__ = ("file", "links", "note_type", "status")

    def __init__(
        self,
        file: NoteFile,
        status: str,
        note_type: str | None = None,
        links: tuple[int, ...] = (),
    ) -> None:
        self.file = file
        self.status = status
        self.note_type = note_type
        self.links = links

    @property
    def rel(self) -> str:
        return self.file.rel


class NameTable:
    """Live notes by file name, for ``[[slug]]`` links: exact case first, else any case.

    Sized for 100,000 notes: a name held by one note maps to its number, not
    to a list, and a name that is already case-folded is not stored twice.
    """

    def __init__(self, files: list[NoteFile], usable: list[bool]) -> None:
        self.slugs = [f.slug for f in files]
        self.by_fold: dict[str, int | list[int]] = {}
        by_fold = self.by_fold
        for number, file in enumerate(files):
            if not usable[number]:
                continue
            folded = file.slug.casefold()
            key = file.slug if folded == file.slug else folded
            held = by_fold.get(key)
            if held is None:
                by_fold[key] = number
            elif isinstance(held, int):
                by_fold[key] = [held, number]
            else:
                held.append(number)

    def clashes(self) -> Iterator[list[int]]:
        """The numbers of the notes sharing a name up to case, for each such name."""
        for held in self.by_fold.values():
            if not isinstance(held, int):
                yield held

    def lookup(self, slug: str) -> tuple[int, ...]:
        """The numbers of the notes a ``[[slug]]`` names (empty when none)."""
        held = self.by_fold.get(slug.casefold())
        if held is None:
            return ()
        if isinstance(held, int):
            return (held,)
        exact = tuple(n for n in held if self.slugs[n] == slug)
        return exact or tuple(held)


@dataclass(frozen=True)
class Pointer:
    """One link on an index line, with what it resolved to.

    ``notes`` are the numbers of the live notes it points to (normally one;
    several when a wikilink names a duplicated slug). A pointer to a note that could not be
    read still credits it: the problem is reported once, by the note rule.
    """

    line: int
    form: str
    raw: str
    target: Target
    section: str | None
    notes: tuple[int, ...] = ()


@dataclass
class StoreView:
    """The whole store, as the store rules see it.

    ``odd_links`` and ``missing_links`` hold ``(note number, target, line)``
    for body links that are paths rather than slugs, or name no note.
    ``facts`` maps the id of a store rule that gathers facts (see
    :func:`..model.rule`) to one fact per note, by note number.
    """

    root: str
    caps: Caps
    options: Options
    index: IndexFile
    walk: Walk
    lines: list[IndexLine]
    pointers: list[Pointer]
    notes: list[NoteSummary]
    names: NameTable
    odd_links: list[tuple[int, str, int]] = field(default_factory=list)
    missing_links: list[tuple[int, str, int]] = field(default_factory=list)
    facts: dict[str, list[Any]] = field(default_factory=dict)
    _reach: tuple[set[int], set[int]] | None = None
    _folders: dict[str, list[int]] | None = None

    def archived_notes(self) -> Iterator[tuple[str, bytes]]:
        """``(path, bytes)`` of each archived note that reads as a regular file, one at a
        time, bounded like a live note (a symlink, FIFO or oversized file is skipped)."""
        for rel in self.walk.archived:
            if os.path.islink(os.path.join(self.root, *rel.split("/"))):
                continue  # an archived symlink is not followed, even to a file in the store
            path = contained(self.root, rel)  # a folder swapped for a link since the walk
            read = read_file(path, NOTE_READ_LIMIT) if path is not None else None
            if read is not None and read.data is not None:
                yield rel, read.data

    @property
    def index_read(self) -> bool:
        """Whether the index was read (the reachability rules need it)."""
        return self.index.text is not None

    def reachability(self) -> tuple[set[int], set[int]]:
        """``(indexed, reachable)`` note numbers: pointed to by the index, or linked from those."""
        if self._reach is None:
            indexed = {n for pointer in self.pointers for n in pointer.notes}
            reachable = set(indexed)
            pending = list(indexed)
            while pending:
                for target in self.notes[pending.pop()].links:
                    if target not in reachable:
                        reachable.add(target)
                        pending.append(target)
            self._reach = (indexed, reachable)
        return self._reach

    def unindexed_folders(self) -> dict[str, list[int]]:
        """Each top-level folder that no index pointer resolves into, with the numbers of
        its notes that nothing reachable links to either (walk order; empty when the
        index was not read). One cause, reported once for the folder by ``nested-note``."""
        if self._folders is None:
            self._folders = {}
            if self.index_read:
                self._folders = self._find_unindexed_folders()
        return self._folders

    def _find_unindexed_folders(self) -> dict[str, list[int]]:
        pointed: set[str] = set()
        for pointer in self.pointers:
            pointed.add(pointer.target.rel.split("/", 1)[0])
            pointed.update(self.notes[n].rel.split("/", 1)[0] for n in pointer.notes)
        _indexed, reachable = self.reachability()
        folders: dict[str, list[int]] = {}
        for number, note in enumerate(self.notes):
            if not note.file.nested or note.status == ESCAPES or number in reachable:
                continue
            folder = note.rel.split("/", 1)[0]
            if folder not in pointed:
                folders.setdefault(folder, []).append(number)
        return folders
