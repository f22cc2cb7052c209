"""Step 3: a pointer line over ``--max-index-line`` keeps a hook that fits; the rest of the
hook goes to the note, under ``## From the index``."""

from __future__ import annotations

from engramory.compact.duplicates import line_note
from engramory.compact.model import LONG_LINES, StepResult, StoreFacts
from engramory.store.markdown import classify_index, heading_title, mask_code_spans
from engramory.write import indexedit, pointertext

FROM_INDEX = "## From the index"
_SEPARATORS = " \t—–-:|"


def link_end(line: str) -> int | None:
    """Where the line's first link ends, when the line starts with it (after a list
    marker); ``None`` when the hook comes first or no link is found."""
    masked = mask_code_spans(line)
    start = masked.find("[")
    if start < 0:
        return None
    prefix = masked[:start].strip()
    if prefix not in ("", "-", "*", "+") and not (prefix[:-1].isdigit() and prefix[-1:] in ".)"):
        return None
    if masked.startswith("[[", start):
        end = masked.find("]]", start)
        return None if end < 0 else end + 2
    middle = masked.find("](", start)
    if middle < 0:
        return None
    close = masked.find(")", middle + 2)
    if masked.startswith("<", middle + 2):
        angle = masked.find(">", middle + 2)
        close = masked.find(")", angle) if angle >= 0 else -1
    return None if close < 0 else close + 1


def cut_line(line: str, limit: int) -> tuple[str, str] | None:
    """``(new line, cut text)`` for a line longer than ``limit``, else ``None``: the hook
    cut at a word (never inside a link or a code span) and ended with ``…``."""
    end = link_end(line)
    if end is None or len(line) <= limit:
        return None
    head, hook = line[:end], line[end:]
    cut = pointertext.word_cut(hook, limit - len(head) - len(pointertext.ELLIPSIS))
    kept, rest = hook[:cut], hook[cut:].strip()
    if not rest:
        return None
    if not kept.strip(_SEPARATORS):
        return head, hook.strip().lstrip(_SEPARATORS).strip()
    return head + kept.rstrip(_SEPARATORS + ",;") + pointertext.ELLIPSIS, rest


def with_cut_text(note: str, cut: str) -> str:
    """The note with ``cut`` appended under ``## From the index`` (the heading reused when
    it is the note's last one), unless its text already holds ``cut``."""
    if " ".join(cut.split()) in " ".join(note.split()):
        return note
    ending = indexedit.line_ending(note)
    text = note if note.endswith("\n") or not note else note + ending
    last_heading = None
    for line in text.split("\n"):
        title = heading_title(line.rstrip("\r"))
        if title is not None:
            last_heading = line.rstrip("\r")
    if last_heading is not None and last_heading.strip() == FROM_INDEX:
        return text + ending + cut + ending
    return text + ending + FROM_INDEX + ending + ending + cut + ending


def plan(text: str, facts: StoreFacts, max_line: int) -> StepResult:
    """Cut every long pointer line to a live note; the cut text goes to that note."""
    result = StepResult(LONG_LINES, text, text)
    notes: dict[str, str] = {}
    lines = indexedit.split_lines(text)
    for line in classify_index(text):
        if len(line.text) <= max_line or not line.links:
            continue
        rel = line_note(line.links, facts)
        if rel is None:
            continue
        cut = cut_line(line.text, max_line)
        if cut is None:
            continue
        if rel not in notes:
            current = facts.note_text(rel)
            if current is None:
                continue
            notes[rel] = current
        notes[rel] = with_cut_text(notes[rel], cut[1])
        raw = lines[line.number - 1]
        lines[line.number - 1] = cut[0] + raw[len(line.text) :]
    result.after = "".join(lines)
    result.touched = {rel: note for rel, note in notes.items() if note != facts.note_text(rel)}
    return result
