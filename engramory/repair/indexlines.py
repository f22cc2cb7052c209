"""Which index lines the index fixes may touch: a pointer line holding exactly one link."""

from __future__ import annotations

from engramory.store import markdown


def single_link_lines(text: str) -> dict[int, markdown.IndexLine]:
    """The index's lines that hold exactly one link and are not table rows, by number.

    A line with several links (or a table row) may hold a pointer that is not
    a repeat, or would break its table when moved: those are left to a person.
    """
    return {
        line.number: line
        for line in markdown.classify_index(text)
        if line.kind == markdown.TEXT
        and len(line.links) == 1
        and not line.text.lstrip().startswith("|")
    }
