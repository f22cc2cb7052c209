"""What the planner works from (read by the command) and what it gives back."""

from __future__ import annotations

from dataclasses import dataclass, field

from engramory.doctor.model import Finding
from engramory.store.frontmatter import NOTE_TYPES, Frontmatter, decode, parse


@dataclass(frozen=True)
class Dates:
    """The dates found for a note outside its text: ``first`` and ``last`` (YYYY-MM-DD,
    either may be ``None``) and, when there are none, ``why`` in a few words."""

    first: str | None = None
    last: str | None = None
    why: str = ""


@dataclass(frozen=True)
class NoteInput:
    """One note the planner may change or index: its store-relative path and bytes.

    ``editable`` is False for a note the command will not write (a symlink, say),
    with ``why`` saying so; ``dates`` only for notes with a ``missing-date`` finding.
    """

    rel: str
    data: bytes
    editable: bool = True
    why: str = ""
    dates: Dates = field(default_factory=Dates)

    @property
    def slug(self) -> str:
        name = self.rel.rsplit("/", 1)[-1]
        return name[:-3] if name.lower().endswith(".md") else name

    def frontmatter(self) -> Frontmatter:
        return parse(decode(self.data))


def frontmatter_errors(parsed: Frontmatter) -> str:
    """Why a note's frontmatter is not good enough to index it, or ``""`` when it is."""
    if not parsed.closed:
        return "it has no closed frontmatter block"
    if parsed.problems:
        return "its frontmatter has syntax errors"
    if parsed.fields.get("type") not in NOTE_TYPES:
        return "its type is missing or not one of the four"
    if not parsed.fields.get("description", "").strip():
        return "its description is missing"
    return ""


@dataclass(frozen=True)
class IndexInput:
    """The index as read: ``text`` decoded without its BOM (``bom`` says there was one).

    ``editable`` is False when the command will not write it (a symlink, bytes
    that are not UTF-8), with ``why``.
    """

    text: str
    bom: bool = False
    editable: bool = True
    why: str = ""

    def encode(self, text: str) -> bytes:
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")


@dataclass
class Plan:
    """New contents by store-relative path (only files that change; ``sources``: the bytes
    each was worked out from), the doctor's
    findings they fix, the findings left for a person, and why fixable ones were left
    (``undated``: the notes no date was found for, by reason)."""

    changes: dict[str, bytes] = field(default_factory=dict)
    sources: dict[str, bytes] = field(default_factory=dict)
    fixed: list[Finding] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    undated: dict[str, list[str]] = field(default_factory=dict)  # why -> notes left undated
