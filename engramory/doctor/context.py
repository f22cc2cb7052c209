"""What the doctor's rules look at: one note in memory, or the whole store.

The engine (``engine.py``) does all the I/O and fills these in; rules only
read them. A note's text lives in a :class:`NoteCheck` just long enough for
the note rules to run; what the store rules need afterwards is kept in a small
:class:`NoteSummary`, so a 100,000-note store is never held in memory at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from engramory.caps import Caps
from engramory.frontmatter import Frontmatter
from engramory.markdown import IndexLine
from engramory.store import READ_OK, IndexFile, NoteFile, Read, Target, Walk

NOTE_TYPES = ("user", "feedback", "project", "reference")
DEFAULT_MAX_INDEX_LINE = 200


@dataclass(frozen=True)
class Options:
    """How the doctor runs: schema rules on or off, the long-line limit, today's date."""

    schema: bool = True
    max_index_line: int = DEFAULT_MAX_INDEX_LINE
    today: date = field(default_factory=date.today)


@dataclass(frozen=True)
class NoteCheck:
    """One note while it is being checked. ``fm`` is ``None`` when it could not be read."""

    file: NoteFile
    read: Read
    fm: Frontmatter | None
    options: Options

    @property
    def rel(self) -> str:
        return self.file.rel

    @property
    def note_type(self) -> str | None:
        """The note's ``type`` when it is exactly one of the four, else ``None``."""
        if self.fm is None:
            return None
        value = self.fm.fields.get("type")
        return value if value in NOTE_TYPES else None


@dataclass
class NoteSummary:
    """What the store rules need to know about a note after it was checked."""

    file: NoteFile
    status: str
    identity: tuple[int, int] | None = None
    note_type: str | None = None
    wikilinks: list[tuple[str, int]] = field(default_factory=list)

    @property
    def rel(self) -> str:
        return self.file.rel

    @property
    def readable(self) -> bool:
        return self.status == READ_OK


@dataclass(frozen=True)
class Pointer:
    """One link on an index line, with what it resolved to.

    ``notes`` are the live notes it points to (normally one; several when a
    wikilink names a duplicated slug). A pointer to a note that could not be
    read still credits it: the problem is reported once, by the note rule.
    """

    line: int
    form: str
    raw: str
    target: Target
    section: str | None
    notes: tuple[NoteSummary, ...] = ()


@dataclass
class StoreView:
    """The whole store, as the store rules see it."""

    root: str
    caps: Caps
    options: Options
    index: IndexFile
    walk: Walk
    lines: list[IndexLine]
    pointers: list[Pointer]
    notes: list[NoteSummary]
    archived_slugs: frozenset[str]
    _by_slug: dict[str, list[NoteSummary]] = field(default_factory=dict)
    _reach: tuple[set[str], set[str]] | None = None

    @property
    def index_read(self) -> bool:
        """Whether the index was read (the reachability rules need it)."""
        return self.index.text is not None

    def notes_named(self, slug: str) -> list[NoteSummary]:
        """Live notes whose file name is ``slug`` (+ ``.md``), exact case first, else any case."""
        if not self._by_slug:
            for note in self.notes:
                self._by_slug.setdefault(note.file.slug.casefold(), []).append(note)
        candidates = self._by_slug.get(slug.casefold(), [])
        exact = [n for n in candidates if n.file.slug == slug]
        return exact or candidates

    def reachability(self) -> tuple[set[str], set[str]]:
        """``(indexed, reachable)`` note paths: pointed to by the index, or linked from those."""
        if self._reach is None:
            indexed = {note.rel for pointer in self.pointers for note in pointer.notes}
            by_rel = {note.rel: note for note in self.notes}
            reachable = set(indexed)
            pending = list(indexed)
            while pending:
                note = by_rel[pending.pop()]
                for slug, _line in note.wikilinks:
                    for target in self.notes_named(slug):
                        if target.rel not in reachable:
                            reachable.add(target.rel)
                            pending.append(target.rel)
            self._reach = (indexed, reachable)
        return self._reach
