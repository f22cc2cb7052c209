"""``orphan``: a pointer line for the note under its type's heading.

Title from the slug (acronyms kept), the note's description as the hook, cut at a
word with ``…`` so the line stays within the doctor's line limit. A note whose
frontmatter has errors is not indexed, nor one whose pointer would hold a
secret; the planner also leaves out a pointer that would take the index over
a hard cap.
"""

from __future__ import annotations

from engramory import secrets
from engramory.doctor.context import DEFAULT_MAX_INDEX_LINE
from engramory.repair import ORPHAN
from engramory.repair.model import NoteInput, frontmatter_errors
from engramory.write.pointertext import fitted_pointer_line, title_from_slug

ID = ORPHAN
# Characters a link target cannot hold as written (an anchor, a query, an escape).
_TARGET_ESCAPES = {ord("%"): "%25", ord("#"): "%23", ord("?"): "%3F"}


def pointer(note: NoteInput, limit: int = DEFAULT_MAX_INDEX_LINE) -> tuple[str, str] | str:
    """``(section, pointer line)`` for the note (at most ``limit`` characters), or why it
    is not indexed."""
    parsed = note.frontmatter()
    problem = frontmatter_errors(parsed)
    if problem:
        return f"not indexed: {problem} (fix it, then run engramory fix again)"
    note_type = parsed.fields["type"]
    target = note.rel.translate(_TARGET_ESCAPES)
    title = title_from_slug(note.slug)
    line = fitted_pointer_line(title, target, parsed.fields["description"], limit)
    found = secrets.find(line)
    if found:
        secret = found[0]
        return (
            f"not indexed: its description holds what looks like {secret.title} "
            f"({secret.shown}): remove it from the note first"
        )
    return note_type, line
