"""Step 1: several index lines pointing to the same note keep one, with the longest hook."""

from __future__ import annotations

from engramory.compact.model import DUPLICATES, StepResult, StoreFacts, is_note_link
from engramory.store.markdown import classify_index
from engramory.write import indexedit


def line_note(links, facts: StoreFacts) -> str | None:
    """The one live note every note link of a line leads to, else ``None``."""
    notes = {facts.resolve(link) for link in links if is_note_link(link)}
    if len(notes) != 1:
        return None
    return next(iter(notes))


def plan(text: str, facts: StoreFacts) -> StepResult:
    """Keep the first line of each group, holding the group's longest line; drop the rest."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for line in classify_index(text):
        if not line.links:
            continue
        note = line_note(line.links, facts)
        if note is not None:
            groups.setdefault(note, []).append((line.number, line.text))
    removed: list[int] = []
    lines = indexedit.split_lines(text)
    for group in groups.values():
        if len(group) < 2:
            continue
        first, first_text = group[0]
        longest = max(group, key=lambda entry: len(entry[1]))[1]  # first of the longest
        lines[first - 1] = longest + lines[first - 1][len(first_text) :]
        removed.extend(number for number, _text in group[1:])
    if not removed:
        return StepResult(DUPLICATES, text, text)
    return StepResult(DUPLICATES, text, indexedit.remove_lines("".join(lines), removed))
