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

from engramory.cuts.model import Cut
from engramory.secrets.excerpts import excerpt
from engramory.store import disk as store
from engramory.store import frontmatter, markdown

DESCRIPTION_SHOWN = 120
SUPERSEDES = "-supersedes-"
NAMED_AT_MOST = 1000  # dropped lines whose note is looked up (each costs a resolution)


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


def pointed_notes(root: str, lines: list[str], wanted: list[int]) -> dict[int, str]:
    """Line number → the store-relative note its first in-store pointer names, for the
    ``wanted`` lines only (each costs a path resolution)."""
    found: dict[int, str] = {}
    for number in wanted:
        for link in markdown.find_links(lines[number - 1]):
            if link.form == markdown.UNPARSABLE:
                continue
            target = store.resolve_target(root, link.target)
            if target.kind == store.FOUND:
                found[number] = target.rel
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


def _description(fields: dict[str, str]) -> str | None:
    value = fields.get("description", "").strip()
    return excerpt(value, DESCRIPTION_SHOWN)[1:-1] if value else None


def _earliest(notes: dict[int, str]) -> tuple[dict[str, int], dict[str, int]]:
    """For the loaded lines: note → its first line, and slug → the first line of such a note."""
    by_note: dict[str, int] = {}
    by_slug: dict[str, int] = {}
    for number in sorted(notes):
        by_note.setdefault(notes[number], number)
        by_slug.setdefault(slug(notes[number]), number)
    return by_note, by_slug


def corrected_line(
    rel: str, fields: dict[str, str], by_note: dict[str, int], by_slug: dict[str, int]
) -> int | None:
    """The first loaded line whose note ``rel`` (with its ``fields``) corrects or replaces."""
    candidates = [by_note.get(rel)]
    said = fields.get("supersedes", "").strip()
    if said:
        candidates.append(by_slug.get(slug(said)))
    own = slug(rel)
    if SUPERSEDES in own:
        candidates.append(by_slug.get(own.rsplit(SUPERSEDES, 1)[1]))
    found = [n for n in candidates if n is not None]
    return min(found) if found else None


def falls_off(root: str, text: str, cut: Cut) -> list[FallOff]:
    """Every dropped line of ``cut``, with its note, description and the loaded line it
    corrects. Notes are looked up for the first :data:`NAMED_AT_MOST` dropped lines and the
    first as many loaded lines above them; later dropped lines are listed by number only, so a
    huge index costs bounded work."""
    if not cut.dropped:
        return []
    lines = text.split("\n")
    named = cut.dropped[:NAMED_AT_MOST]
    gone = set(cut.dropped)
    above = [
        n
        for n in range(1, min(named[-1], len(lines) + 1))
        if n not in gone and ("](" in lines[n - 1] or "[[" in lines[n - 1])
    ][:NAMED_AT_MOST]
    loaded = pointed_notes(root, lines, [n for n in above if n not in gone])
    dropped_notes = pointed_notes(root, lines, list(named))
    by_note, by_slug = _earliest(loaded)
    read: dict[str, dict[str, str]] = {}
    result = []
    for number in cut.dropped:
        rel = dropped_notes.get(number)
        if rel is None:
            result.append(FallOff(number, None, None))
            continue
        if rel not in read:
            read[rel] = note_fields(root, rel)
        fields = read[rel]
        target = corrected_line(rel, fields, by_note, by_slug)
        corrected = (
            (target, loaded[target]) if target is not None and target < number else (None, None)
        )
        result.append(FallOff(number, rel, _description(fields), *corrected))
    return result


def unread(text: str, cut: Cut, limit: int) -> list[FallOff]:
    """The first ``limit`` dropped lines with the raw target of their first link as ``note``,
    reading no file (for the guard's deny, which must stay cheap)."""
    lines = text.split("\n")
    found = []
    for number in cut.dropped[:limit]:
        links = markdown.find_links(lines[number - 1]) if number <= len(lines) else []
        found.append(
            FallOff(number, next((link.target for link in links if link.target), None), None)
        )
    return found
