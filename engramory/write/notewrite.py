"""What ``engramory new`` and ``engramory archive`` write, as pure functions on text.

The commands do the I/O (finding the store, reading, writing atomically);
this module decides: whether a slug and the one-line values are acceptable,
the note's text, the index text with the new pointer, how alike two
descriptions are, and how an index line is rewritten to point into
``archive/``. Nothing here touches the disk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from engramory.doctor.context import NoteCheck, Options
from engramory.doctor.model import NOTE
from engramory.doctor.profiles import ENGRAMORY, Profile
from engramory.doctor.rules import RULES
from engramory.store.disk import READ_OK, NoteFile, Read
from engramory.store.frontmatter import parse_bytes, render
from engramory.write import indexedit

SLUG = re.compile(r"[a-z0-9][a-z0-9-]*\Z")  # anchored, one class: linear
SLUG_MAX = 80
TYPES_NEEDING_WHY = ("feedback", "project")
SCOPES = ("global", "repo")
SIMILAR_AT = 0.5  # word Jaccard of two descriptions at or above which they are listed
SIMILAR_SHOWN = 5
WORD = re.compile(r"\w+")
_STOP_TEXT = """a an and are as at be by for from has have in into is it its of on or that the
this to was were when where which while who why will with how what do does not no
i we you he she they them our your my me us"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
BOM = "\ufeff"
WHY_MARK = "**Why:**"
HOW_MARK = "**How to apply:**"


def slug_problem(slug: str) -> str | None:
    """Why ``slug`` cannot name a new note, or ``None`` when it can."""
    if not SLUG.match(slug):
        return (
            f"the slug {slug!r} is not lower-case letters, digits and dashes "
            "starting with a letter or digit (e.g. feedback-test-style)"
        )
    if len(slug) > SLUG_MAX:
        return f"the slug is {len(slug)} characters long: at most {SLUG_MAX}"
    return None


def one_line_problem(label: str, value: str) -> str | None:
    """Why ``value`` cannot be a one-line field (a line break, a control character)."""
    if any((ord(ch) < 32 and ch != "\t") or ord(ch) == 127 for ch in value):
        return f"{label} must be one line of text (no line break or control character)"
    return None


@dataclass(frozen=True)
class NewNote:
    """The values of a note to create (already validated)."""

    note_type: str
    slug: str
    description: str
    scope: str | None = None
    body: str = ""
    why: str | None = None
    how: str | None = None
    name: str | None = None  # default: the slug (the claude-native profile gives a title)


def note_fields(note: NewNote, today: date) -> dict[str, str]:
    """The frontmatter, in the protocol's order: name, description, type, scope, created,
    updated."""
    fields = {
        "name": note.name or note.slug,
        "description": note.description,
        "type": note.note_type,
    }
    if note.scope:
        fields["scope"] = note.scope
    fields["created"] = today.isoformat()
    fields["updated"] = today.isoformat()
    return fields


def note_text(note: NewNote, today: date) -> str:
    """The whole note: frontmatter, a blank line, the body, then **Why:** and **How to apply:**."""
    return render(note_fields(note, today)) + body_text(note.body, note.why, note.how)


def body_text(body: str, why: str | None, how: str | None) -> str:
    """What follows the frontmatter: a blank line and the body, then **Why:** and
    **How to apply:** paragraphs (each only when given)."""
    parts = []
    body = body.strip("\n")
    if body.strip():
        parts.append("\n" + body.rstrip() + "\n")
    if why is not None:
        parts.append(f"\n{WHY_MARK} {why.strip()}\n")
    if how is not None:
        parts.append(f"\n{HOW_MARK} {how.strip()}\n")
    return "".join(parts)


def split_body(body: str) -> tuple[str, str | None, str | None]:
    """``(body, why, how)`` of a note's text after the frontmatter, the inverse of
    :func:`body_text`: the first line opening with **Why:** and the first later one opening
    with **How to apply:** start those parts (``None`` when absent)."""
    lines = body.split("\n")
    why_at = next((i for i, line in enumerate(lines) if line.startswith(WHY_MARK)), None)
    start = 0 if why_at is None else why_at
    how_at = next((i for i in range(start, len(lines)) if lines[i].startswith(HOW_MARK)), None)
    cuts = [i for i in (why_at, how_at) if i is not None]
    main = "\n".join(lines[: min(cuts)] if cuts else lines)

    def part(at: int | None, mark: str, end: int | None) -> str | None:
        if at is None:
            return None
        text = "\n".join(lines[at:end])[len(mark) :]
        return text.strip()

    why = part(why_at, WHY_MARK, how_at)
    how = part(how_at, HOW_MARK, None)
    return main, why, how


def words(text: str) -> frozenset[str]:
    """The words of ``text``, lower-cased, stop words dropped."""
    return frozenset(w for w in WORD.findall(text.lower()) if w not in STOP_WORDS)


def jaccard(one: frozenset[str], other: frozenset[str]) -> float:
    """``|A & B| / |A | B|`` (0 when both are empty)."""
    union = len(one | other)
    return len(one & other) / union if union else 0.0


def similar(description: str, others: Iterable[tuple[str, str]]) -> list[tuple[str, float]]:
    """Up to :data:`SIMILAR_SHOWN` ``(rel, score)`` of ``others`` (``(rel, description)``)
    whose description's word Jaccard with ``description`` is at least :data:`SIMILAR_AT`,
    most alike first (then by path)."""
    mine = words(description)
    if not mine:
        return []
    found = []
    for rel, theirs in others:
        score = jaccard(mine, words(theirs))
        if score >= SIMILAR_AT:
            found.append((rel, score))
    found.sort(key=lambda item: (-item[1], item[0]))
    return found[:SIMILAR_SHOWN]


def split_bom(text: str) -> tuple[str, str]:
    """``(bom, rest)``: the index text without its leading BOM (kept to write it back)."""
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def decode_index(raw: bytes) -> str:
    """The index's bytes as text that encodes back to the very same bytes (BOM kept)."""
    return raw.decode("utf-8", "surrogateescape")


def encode_index(text: str) -> bytes:
    """The inverse of :func:`decode_index`."""
    return text.encode("utf-8", "surrogateescape")


def index_with_pointer(index: str, section: str, line: str) -> str:
    """The index text (BOM and all) with ``line`` added at the end of ``## section``."""
    bom, rest = split_bom(index)
    return bom + indexedit.add_pointer(rest, section, line)


def rewrite_link_targets(line: str, targets: Sequence[str], new_target: str) -> str:
    """``line`` with every inline link whose target is written as one of ``targets`` pointing
    to ``new_target`` instead (``[t](x.md "title")`` -> ``[t](new "title")``).

    Only the destination right after ``](`` (blanks and an angle bracket allowed) is
    rewritten; the title, other links and the rest of the line stay as they are.
    """
    out = []
    pos = done = 0
    while True:
        opener = line.find("](", pos)
        if opener < 0:
            break
        start = opener + 2
        while start < len(line) and line[start] in " \t":
            start += 1
        replaced = None
        for target in targets:
            if line.startswith("<" + target + ">", start):
                replaced = (start, start + len(target) + 2)
                break
            end = start + len(target)
            if line.startswith(target, start) and (end == len(line) or line[end] in " \t)"):
                replaced = (start, end)
                break
        if replaced is None:
            pos = start
            continue
        out.append(line[done : replaced[0]])
        out.append(new_target)
        pos = done = replaced[1]
    out.append(line[done:])
    return "".join(out)


@dataclass(frozen=True)
class DoctorIssue:
    """A finding the doctor's note rules would make on a note (line in the note, or ``None``)."""

    rule: str
    severity: str
    line: int | None
    message: str


def note_issues(
    rel: str,
    data: bytes,
    today: date,
    profile: Profile = ENGRAMORY,
    allowed_secrets: tuple[str, ...] = (),
) -> list[DoctorIssue]:
    """What every note rule of the doctor says about one note's bytes (under ``profile``,
    schema rules on, the store's allow list of secrets honoured), as the doctor's per-note
    pass would say it."""
    options = Options(today=today, profile=profile, allowed_secrets=allowed_secrets)
    check = NoteCheck(
        NoteFile(rel, READ_OK), Read(READ_OK, data, len(data)), parse_bytes(data), options
    )
    found = []
    for rule in RULES.values():
        if rule.scope != NOTE or not options.profile.runs(rule.id):
            continue
        for _path, line, message in rule.check([check]):
            found.append(DoctorIssue(rule.id, options.profile.severity(rule), line, message))
    return found
