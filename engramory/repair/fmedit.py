"""Edit one ``key: value`` line of a note's frontmatter, leaving every other byte alone.

Works on the note's bytes, not on decoded text, so a BOM, the line endings,
comments, the order of the other keys, bytes that are not UTF-8 and the body
all stay exactly as they were. Line numbers come from
:func:`engramory.store.frontmatter.parse` (they count ``\\n`` only, like the bytes).
"""

from __future__ import annotations

from engramory.store.frontmatter import decode, parse, render_value

# Where a missing key goes: before the first of these keys present, else after
# the last of the "after" keys present, else at the end of the block.
_PLACE = {
    "name": ((), ()),  # right after the opening fence
    "created": (("updated",), ("name", "description", "type", "scope")),
    "updated": ((), ("created", "name", "description", "type", "scope")),
}


class FrontmatterEditError(ValueError):
    """The note has no closed frontmatter block to edit."""


def _line_ending(lines: list[bytes]) -> bytes:
    """The block's own line ending, from its opening fence."""
    return b"\r\n" if lines[0].endswith(b"\r\n") else b"\n"


def _field_line(key: str, value: str, indent: bytes, ending: bytes) -> bytes:
    return indent + f"{key}: {render_value(value)}".encode() + ending


def set_field(data: bytes, key: str, value: str) -> bytes:
    """``data`` with ``key`` set to ``value``: its line replaced, or a new line inserted.

    Raises :class:`FrontmatterEditError` when there is no closed frontmatter,
    ``ValueError`` for a value the format cannot hold.
    """
    parsed = parse(decode(data))
    if not parsed.closed:
        raise FrontmatterEditError("the note has no closed frontmatter block")
    lines = data.split(b"\n")
    # every line but the last had a "\n"; keep it on the line so endings survive
    kept = [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    line_no = parsed.key_lines.get(key)
    if line_no is not None:
        old = kept[line_no - 1]
        ending = b"\r\n" if old.endswith(b"\r\n") else b"\n" if old.endswith(b"\n") else b""
        body = old[: len(old) - len(ending)]
        indent = body[: len(body) - len(body.lstrip(b" \t"))]
        kept[line_no - 1] = _field_line(key, value, indent, ending)
        return b"".join(kept)
    position = _insert_at(parsed.key_lines, parsed.fence_lines[1], key) - 1
    # never inside a nested block (Claude Code's metadata:): after its last indented line
    while position < parsed.fence_lines[1] - 1 and kept[position][:1] in (b" ", b"\t"):
        position += 1
    kept.insert(position, _field_line(key, value, b"", _line_ending(kept)))
    return b"".join(kept)


def _insert_at(key_lines: dict[str, int], closing_fence: int, key: str) -> int:
    """The line number the new ``key`` line takes (the line now there moves down)."""
    if key not in _PLACE or key == "name":
        return 2
    before, after = _PLACE[key]
    for other in before:
        if other in key_lines:
            return key_lines[other]
    present = [key_lines[other] for other in after if other in key_lines]
    if present:
        return max(present) + 1
    return closing_fence
