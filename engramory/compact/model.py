"""The plan of ``engramory compact``: what each step changes, and the facts it needs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engramory.store.caps import Caps, count_lines, utf8_size
from engramory.store.markdown import INLINE, WIKI, Link

DUPLICATES = "duplicates"
INLINE_STEP = "inline"
LONG_LINES = "long-lines"
COLD = "cold"
SOFT = "soft"
HARD = "hard"


@dataclass(frozen=True)
class ColdCandidate:
    """A live note the cold step may archive, with what says when it last changed: its
    ``modified`` (the host's) or ``updated`` field, its last git commit (``committed``),
    its file's modification time (``mtime``, seconds; 0 unknown)."""

    rel: str
    note_type: str | None
    updated: str | None
    created: str | None
    modified: str | None = None
    committed: str | None = None
    mtime: float = 0.0


@dataclass
class StoreFacts:
    """What the steps need to know of the store (gathered by the command).

    ``resolve(link)`` is the store-relative path of the live note a link leads to
    (``None``: external, an anchor, missing); ``taken`` holds every casefolded
    slug in use in the store and ``archive/``; ``note_text(rel)`` is a live
    note's text (``None``: unreadable); ``archive_edit(text, rel)`` is the index
    text once ``rel`` is archived, as ``engramory archive`` edits it, or ``None``
    when archive would refuse.
    """

    resolve: Callable[[Link], str | None]
    taken: set[str]
    note_text: Callable[[str], str | None]
    today: str
    native: bool = False
    cold: list[ColdCandidate] = field(default_factory=list)
    archive_edit: Callable[[str, str], str | None] = lambda _text, _rel: None
    # ``archive_many(text, rels, limits)``: the same edits for ``rels`` in order, stopping
    # once the index fits ``limits``, in one pass over the index (``None``: use
    # ``archive_edit`` note by note); returns the index text and the notes archived.
    archive_many: Callable[[str, list[str], tuple[int, int]], tuple[str, list[str]]] | None = None


@dataclass
class StepResult:
    """One step: the index after it, and the notes it created, archived and touched."""

    step: str
    before: str
    after: str
    created: dict[str, str] = field(default_factory=dict)  # rel -> whole note text
    archived: list[str] = field(default_factory=list)  # live rel (moved to archive/rel)
    touched: dict[str, str] = field(default_factory=dict)  # rel -> new note text

    @property
    def lines_saved(self) -> int:
        """Index lines this step took off."""
        return count_lines(self.before) - count_lines(self.after)

    @property
    def bytes_saved(self) -> int:
        """Index bytes this step took off."""
        return utf8_size(self.before) - utf8_size(self.after)

    @property
    def changed(self) -> bool:
        """Whether the step changes anything."""
        return self.before != self.after or bool(self.created or self.archived or self.touched)


def target_caps(caps: Caps, target: str) -> tuple[int, int]:
    """``(lines, bytes)`` of the target: the soft cap or the hard one."""
    if target == HARD:
        return caps.hard_lines, caps.hard_bytes
    return caps.warn_lines, caps.warn_bytes


def within(text: str, limits: tuple[int, int]) -> bool:
    """Whether an index text fits ``(lines, bytes)``."""
    return count_lines(text) <= limits[0] and utf8_size(text) <= limits[1]


def is_note_link(link: Link) -> bool:
    """A link that may lead to a note (not a web address or a bare anchor)."""
    if link.form == WIKI:
        return True
    if link.form != INLINE:
        return False
    target = link.target.strip().lower()
    return not (target.startswith(("#", "mailto:")) or "://" in target)
