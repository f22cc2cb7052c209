"""``orphan``: a pointer line for the note under its type's heading.

Title from the slug, the note's description as the hook. A note whose
frontmatter has errors is not indexed, nor one whose pointer would hold a
secret; the planner also leaves out a pointer that would take the index over
a hard cap.
"""

from __future__ import annotations

from engramory import indexedit, secrets
from engramory.repair import ORPHAN
from engramory.repair.model import NoteInput, frontmatter_errors

ID = ORPHAN
# Characters a link target cannot hold as written (an anchor, a query, an escape).
_TARGET_ESCAPES = {ord("%"): "%25", ord("#"): "%23", ord("?"): "%3F"}


def title_of(slug: str) -> str:
    """The slug with dashes (and underscores) as spaces, first letter upper-case (as
    ``engramory new`` does for its slugs, which hold no underscore)."""
    words = " ".join(slug.replace("_", " ").replace("-", " ").split()) or slug
    return words[:1].upper() + words[1:]


def pointer(note: NoteInput) -> tuple[str, str] | str:
    """``(section, pointer line)`` for the note, or why it is not indexed."""
    parsed = note.frontmatter()
    problem = frontmatter_errors(parsed)
    if problem:
        return f"not indexed: {problem} (fix it, then run engramory fix again)"
    note_type = parsed.fields["type"]
    target = note.rel.translate(_TARGET_ESCAPES)
    line = indexedit.pointer_line(title_of(note.slug), target, parsed.fields["description"])
    found = secrets.find(line)
    if found:
        secret = found[0]
        return (
            f"not indexed: its description holds what looks like {secret.title} "
            f"({secret.shown}): remove it from the note first"
        )
    return note_type, line
