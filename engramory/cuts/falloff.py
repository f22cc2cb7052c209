"""What falls off, named: the note each dropped line points to, its description, and the
corrections that fall off below the text they correct (anthropics/claude-code#92998).

A dropped pointer line *corrects or replaces* an earlier line that stays loaded
when it points to the same note, or to a note whose frontmatter says
``supersedes: <slug>`` or whose slug is ``<new>-supersedes-<old>``, where
``<slug>``/``<old>`` is the slug of the note the loaded line points to. Notes
are read only through the store's containment checks and bounded reads, and
only for the dropped lines.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from engramory import frontmatter, markdown, store
from engramory.cuts.model import Cut
from engramory.textfmt import excerpt

DESCRIPTION_SHOWN = 120
SUPERSEDES = "-supersedes-"


@dataclass(frozen=True)
class FallOff:
    """One line the host does not load: its number, note (store-relative), description,
    and the loaded line (number and note) it corrects, when it does."""

    line: int
    note: str | None
    description: str | None
    corrects_line: int | None = None
    corrects_note: str | None = None

    def as_json(self) -> dict[str, object]:
        """The JSON form (``corrects`` is null unless the line is a correction left out)."""
        corrects = (
            None
            if self.corrects_line is None
            else {"line": self.corrects_line, "note": self.corrects_note}
        )
        return {
            "line": self.line,
            "note": self.note,
            "description": self.description,
            "corrects": corrects,
        }


def slug(rel: str) -> str:
    """A note's slug: its file name without ``.md``, lower-cased."""
    name = posixpath.basename(rel.replace("\\", "/"))
    return (name[:-3] if name.lower().endswith(".md") else name).lower()


def pointed_notes(root: str, text: str) -> dict[int, str]:
    """Line number → the store-relative note its first in-store pointer names."""
    found: dict[int, str] = {}
    for line in markdown.classify_index(text):
        for link in line.links:
            if link.form == markdown.UNPARSABLE:
                continue
            target = store.resolve_target(root, link.target)
            if target.kind == store.FOUND:
                found[line.number] = target.rel
                break
    return found


def note_fields(root: str, rel: str) -> dict[str, str]:
    """The frontmatter fields of note ``rel`` (empty when it cannot be read inside the store)."""
    path = store.contained(root, rel)
    if path is None:
        return {}
    read = store.read_file(path, store.NOTE_READ_LIMIT)
    if read.data is None:
        return {}
    return frontmatter.parse_bytes(read.data).fields


def replaces(dropped: str, fields: dict[str, str], loaded: str) -> bool:
    """Whether note ``dropped`` (with its ``fields``) corrects or replaces note ``loaded``."""
    if dropped == loaded:
        return True
    old = slug(loaded)
    said = fields.get("supersedes", "").strip()
    if said and slug(said) == old:
        return True
    own = slug(dropped)
    return SUPERSEDES in own and own.rsplit(SUPERSEDES, 1)[1] == old


def _description(fields: dict[str, str]) -> str | None:
    value = fields.get("description", "").strip()
    return excerpt(value, DESCRIPTION_SHOWN)[1:-1] if value else None


def falls_off(root: str, text: str, cut: Cut) -> list[FallOff]:
    """Every dropped line of ``cut``, with its note, description and the line it corrects."""
    notes = pointed_notes(root, text) if cut.dropped else {}
    gone = set(cut.dropped)
    loaded = sorted((n, rel) for n, rel in notes.items() if n not in gone)
    result = []
    read: dict[str, dict[str, str]] = {}
    for number in cut.dropped:
        rel = notes.get(number)
        if rel is not None and rel not in read:
            read[rel] = note_fields(root, rel)
        fields = read.get(rel, {}) if rel is not None else {}
        target = next(
            (
                (n, note)
                for n, note in loaded
                if n < number and rel is not None and replaces(rel, fields, note)
            ),
            (None, None),
        )
        result.append(FallOff(number, rel, _description(fields), *target))
    return result


def unread(text: str, cut: Cut) -> list[FallOff]:
    """The dropped lines with the raw target of their first link as ``note``, reading no file
    (for the guard's deny, which must stay cheap)."""
    dropped = set(cut.dropped)
    found = []
    for line in markdown.classify_index(text):
        if line.number in dropped:
            target = next((link.target for link in line.links if link.target), None)
            found.append(FallOff(line.number, target, None))
    return found
