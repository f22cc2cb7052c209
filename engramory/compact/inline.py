"""Step 2: an index block holding no pointer becomes a note and one pointer line."""

from __future__ import annotations

from dataclasses import dataclass

from engramory import indexedit
from engramory.compact import naming
from engramory.compact.model import INLINE_STEP, StepResult, StoreFacts
from engramory.frontmatter import NOTE_TYPES, render
from engramory.markdown import BLANK, COMMENT, HEADING, RULE, classify_index, heading_title

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


def pointer_for(title: str, slug: str, description: str, limit: int) -> str:
    """The pointer line, its hook cut at a word boundary so the line fits ``limit``."""
    full = indexedit.pointer_line(title, slug + ".md", description)
    if len(full) <= limit:
        return full
    line = indexedit.pointer_line(title, slug + ".md", "")
    room = limit - len(line) - len(" — ")
    if room <= 0:
        return line
    hook, _rest = naming.cut_words(description, room)
    return indexedit.pointer_line(title, slug + ".md", hook)


def plan(text: str, facts: StoreFacts, max_line: int) -> StepResult:
    """Every pointer-free block past the preamble becomes a note and a pointer line."""
    entries = classify_index(text)
    lines = indexedit.split_lines(text)
    result = StepResult(INLINE_STEP, text, text)
    replaced: list[tuple[int, int, str]] = []
    for block in find_blocks(entries):
        raw = lines[block.first - 1 : block.last]
        body = "".join(raw)
        plain = [e.text for e in entries[block.first - 1 : block.last] if e.kind != HEADING]
        source = block.heading or naming.first_words(plain)
        title = " ".join(source.split()) or "Note"
        slug = naming.unique_slug(naming.slug_for(source, body), facts.taken)
        description = naming.description_for(plain, title)
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
        replaced.append((block.first, block.last, pointer_for(title, slug, description, max_line)))
    if replaced:
        result.after = _replace_blocks(lines, replaced)
    return result


def _replace_blocks(lines: list[str], replaced: list[tuple[int, int, str]]) -> str:
    """The lines with each ``first..last`` run replaced by one line (its last ending kept)."""
    out: list[str] = []
    done = 0
    for first, last, pointer in replaced:
        out.extend(lines[done : first - 1])
        last_line = lines[last - 1]
        end = "\r\n" if last_line.endswith("\r\n") else "\n" if last_line.endswith("\n") else ""
        out.append(pointer + end)
        done = last
    out.extend(lines[done:])
    return "".join(out)
