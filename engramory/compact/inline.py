"""Step 2: an index block holding no pointer becomes a note and one pointer line."""

from __future__ import annotations

from dataclasses import dataclass

from engramory.compact import naming
from engramory.compact.model import INLINE_STEP, StepResult, StoreFacts
from engramory.store.frontmatter import NOTE_TYPES, render
from engramory.store.markdown import BLANK, COMMENT, HEADING, RULE, classify_index, heading_title
from engramory.write import indexedit
from engramory.write.pointertext import fitted_pointer_line

NEEDS_WHY = ("feedback", "project")
_CONTENT_KINDS_LEFT = (BLANK, COMMENT, RULE)


@dataclass
class Block:
    """Index lines ``first..last`` (1-based) that become a note; ``heading`` is its title."""

    first: int
    last: int
    heading: str | None
    section: str | None


def find_blocks(entries) -> list[Block]:
    """The blocks without a pointer, past the preamble, in order (linear)."""
    blocks: list[Block] = []
    started = False
    start = None  # index into entries of the block's first line
    heading: str | None = None
    section: str | None = None
    has_link = False

    def close(end: int) -> None:
        if start is None or has_link:
            return
        last = end
        while last > start and entries[last].kind in _CONTENT_KINDS_LEFT:
            last -= 1
        content = [e for e in entries[start : last + 1] if e.kind != HEADING]
        if not any(e.kind not in _CONTENT_KINDS_LEFT for e in content):
            return
        first = start
        if heading is not None and heading.strip().lower() in NOTE_TYPES:
            first = start + 1  # a type heading stays: only its prose moves
            while entries[first].kind in _CONTENT_KINDS_LEFT:
                first += 1
        title = heading if first == start else None
        blocks.append(Block(entries[first].number, entries[last].number, title, section))

    for i, entry in enumerate(entries):
        is_heading = entry.kind == HEADING
        title = heading_title(entry.text) if is_heading else None
        if is_heading and not started and not entry.text.lstrip().startswith("# "):
            started = True
        if not started:
            continue
        if is_heading or entry.kind == RULE:
            close(i - 1)
            start, has_link = (i, False) if is_heading else (None, False)
            heading = title
            if is_heading and entry.section is not None:
                section = entry.section
            elif is_heading and title is not None and entry.text.lstrip().startswith("## "):
                section = None
            continue
        if start is None and entry.kind not in _CONTENT_KINDS_LEFT:
            start, heading = i, None
        if entry.links:
            has_link = True
    close(len(entries) - 1)
    return blocks


def note_type(section: str | None, body: str) -> str:
    """The section's type; feedback and project only with their **Why:**/**How to apply:**."""
    kind = section if section in NOTE_TYPES else "reference"
    if kind in NEEDS_WHY and not ("**Why:**" in body and "**How to apply:**" in body):
        return "reference"
    return kind


def plan(text: str, facts: StoreFacts, max_line: int) -> StepResult:
    """Every pointer-free block past the preamble becomes a note; its pointer line goes
    under the ``##`` section of the note's type (added in the canonical order when the
    index has none), within ``max_line`` characters."""
    entries = classify_index(text)
    lines = indexedit.split_lines(text)
    result = StepResult(INLINE_STEP, text, text)
    removed: set[int] = set()
    pointers: list[tuple[str, str]] = []
    for block in find_blocks(entries):
        raw = lines[block.first - 1 : block.last]
        body = "".join(raw)
        inner = entries[block.first - 1 : block.last]
        plain = [e.text for e in inner if e.kind != HEADING]
        source = block.heading or naming.first_words(plain)
        title = " ".join(source.split()) or "Note"
        slug = naming.unique_slug(naming.slug_for(source, body), facts.taken)
        below = [e.text for e in inner if not (block.heading and e.number == block.first)]
        description = naming.description_for(below, title)
        kind = note_type(block.section, body)
        fields = {
            "name": title if facts.native else slug,
            "description": description,
            "type": kind,
            "created": facts.today,
            "updated": facts.today,
        }
        if not body.endswith("\n"):
            body += "\n"
        result.created[slug + ".md"] = render(fields) + "\n" + body
        removed.update(range(block.first, block.last + 1))
        pointers.append((kind, fitted_pointer_line(title, slug + ".md", description, max_line)))
    if not pointers:
        return result
    by_kind: dict[str, list[str]] = {}
    for kind, pointer in pointers:
        by_kind.setdefault(kind, []).append(pointer)
    after = _without(lines, entries, removed, set(by_kind))
    for kind, kind_pointers in by_kind.items():
        after = add_in_type_order(after, kind, kind_pointers)
    if text and not text.endswith("\n") and after.endswith("\n"):  # as it was: no final one
        after = after[: -len(indexedit.line_ending(text))]
    result.after = after
    return result


def _level(text: str) -> int:
    """The level of an ATX heading line (the number of leading ``#``)."""
    stripped = text.lstrip()
    return len(stripped) - len(stripped.lstrip("#"))


def _emptied_headings(entries, removed: set[int], kept: set[str]) -> set[int]:
    """The type headings (``## project``) not in ``kept`` that held text before the blocks
    in ``removed`` were taken out and hold none after: a heading left with nothing under
    it goes too."""
    emptied: set[int] = set()
    for i, entry in enumerate(entries):
        title = heading_title(entry.text) if entry.kind == HEADING else None
        if (
            title is None
            or title.strip().lower() not in NOTE_TYPES
            or title.strip().lower() in kept
        ):
            continue
        had = has = False
        for j in range(i + 1, len(entries)):  # to the next heading: linear over all of them
            below = entries[j]
            if below.kind == HEADING and _level(below.text) <= _level(entry.text):
                break
            if below.kind != BLANK:
                had = True
                has = has or below.number not in removed
        if had and not has:
            emptied.add(entry.number)
    return emptied


def _without(lines: list[str], entries, removed: set[int], kept: set[str]) -> str:
    """The lines without those in ``removed`` (and the type headings they leave empty but
    for those of the types in ``kept``), with no run of blank lines doubled where a block
    was taken out."""
    gone = removed | _emptied_headings(entries, removed, kept)
    out: list[str] = []
    after_removal = False
    for number, line in enumerate(lines, 1):
        if number in gone:
            after_removal = True
            continue
        blank = not line.strip()
        previous_blank = not out or not out[-1].strip()
        if blank and after_removal and previous_blank:
            continue
        after_removal = after_removal and blank
        out.append(line)
    while out and not out[-1].strip() and len(out) < len(lines) and lines[-1].strip():
        out.pop()
    return "".join(out)


def _heading_style(text: str, kind: str) -> str:
    """The new section's heading text: capitalised when the index's type headings are."""
    for entry in classify_index(text):
        title = heading_title(entry.text) if entry.kind == HEADING else None
        if title is not None and title.strip().lower() in NOTE_TYPES:
            return kind.capitalize() if title.strip()[:1].isupper() else kind
    return kind.capitalize()


def add_in_type_order(text: str, kind: str, pointers: list[str]) -> str:
    """``pointers`` at the end of the ``## kind`` section (before its closing blank
    lines); without one, a section added before the first type section that comes after
    ``kind`` in the canonical order (frontmatter.NOTE_TYPES), or at the end
    after a blank line. One pass, whatever the number of pointers."""
    lines = indexedit.split_lines(text)
    ending = indexedit.line_ending(text)
    block = indexedit.section_block(text, kind)
    if block is not None:
        start, last = block
        while last > start and not lines[last - 1].strip():
            last -= 1
        return _inserted(lines, last, pointers, ending)
    later = NOTE_TYPES[NOTE_TYPES.index(kind) + 1 :] if kind in NOTE_TYPES else ()
    section = [f"## {_heading_style(text, kind)}", *pointers]
    for entry in classify_index(text):
        title = heading_title(entry.text) if entry.kind == HEADING else None
        if title is not None and title.strip().lower() in later:
            return _inserted(lines, entry.number - 1, [*section, ""], ending)
    if lines and lines[-1].strip():
        section.insert(0, "")
    return _inserted(lines, len(lines), section, ending)


def _inserted(lines: list[str], after: int, new: list[str], ending: str) -> str:
    """``new`` lines inserted after line ``after`` (0: at the top). Appended after a last
    line without a line ending, that line gets one and the new last line has none."""
    if after == len(lines) and lines and not lines[-1].endswith("\n"):
        return "".join([*lines[:-1], lines[-1] + ending, ending.join(new)])
    return "".join([*lines[:after], *(line + ending for line in new), *lines[after:]])
