"""Hermes Agent's ``config.yaml``: Engramory's shell hooks put in and taken out as text.

Hermes reads its hooks from the ``hooks:`` mapping of ``$HERMES_HOME/config.yaml``
(default ``~/.hermes/config.yaml``), a file that holds all of the user's other
settings. It is edited line by line, stdlib only (no YAML parser): Engramory's
lines sit between two marker comments (:data:`BEGIN`, :data:`END`) and every
other byte of the file stays as it was. What can be edited safely:

* no file (it is created; the begin marker says so, and uninstall deletes the
  file only then, and only when nothing else is left; when init also created the
  folder, the marker says that too, and uninstall removes the folder once it is
  empty -- never a folder that was there before);
* a file without a top-level ``hooks:`` key (a ``hooks:`` block is appended);
* a block-style ``hooks:`` mapping (the new event keys are inserted first in it;
  an event the user already has, as a block-style list, gets Engramory's item
  first in its list).

Anything else -- flow style (``hooks: {...}``), tabs in indentation, anchors,
aliases, tags or merge keys, several documents, odd indentation, an event whose
value is not a block list -- raises :class:`~engramory.wiring.hookfiles.EditRefusal`
with the lines to add by hand. Every pattern here is anchored and linear.
"""

from __future__ import annotations

import json
import re

from engramory.wiring.hookfiles import OWNED_MARKER, EditRefusal

BEGIN = f"# {OWNED_MARKER} begin"
END = f"# {OWNED_MARKER} end"
CREATED = "(init created this file)"
CREATED_WITH_FOLDER = "(init created this file and its folder)"
ADDED_BREAK = "(init added the line break before this line)"

Entries = "dict[str, list[dict[str, object]]]"  # event -> its hook items, in order

_TOP_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]|$)")
_HOOKS_LINE = re.compile(r"""(["']?)hooks\1[ \t]*:(.*)$""")
_CHILD_KEY = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_]*)[ \t]*:(.*)$")
# A node's start after any list dashes and key: an anchor, alias or tag starts with & * !
_NODE = re.compile(r" *(?:- +)*(?:[A-Za-z_][A-Za-z0-9_-]*[ \t]*:[ \t]*)?(.?)")


def scalar(value: object) -> str:
    """A YAML scalar: JSON text (a double-quoted string, a number, true/false)."""
    return json.dumps(value)


def render_entries(entries: dict[str, list[dict[str, object]]], indent: int, nl: str) -> list[str]:
    """The event keys and their list items at ``indent`` (each line ends with ``nl``)."""
    lines = []
    pad = " " * indent
    for event, items in entries.items():
        lines.append(f"{pad}{event}:{nl}")
        lines += render_items(items, indent + 2, nl)
    return lines


def render_items(items: list[dict[str, object]], indent: int, nl: str) -> list[str]:
    """Block-list items (``- key: value``) at ``indent``."""
    lines = []
    pad = " " * indent
    for item in items:
        for number, (key, value) in enumerate(item.items()):
            lead = "- " if number == 0 else "  "
            lines.append(f"{pad}{lead}{key}: {scalar(value)}{nl}")
    return lines


def by_hand(entries: dict[str, list[dict[str, object]]]) -> str:
    """What to add by hand when the file cannot be edited safely."""
    block = "".join(render_entries(entries, 2, "\n"))
    return (
        "add these lines under its top-level `hooks:` mapping by hand (block style, spaces "
        f"only), or give Engramory a config it can edit:\nhooks:\n{block.rstrip()}"
    )


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _content(line: str) -> bool:
    """Whether a line holds YAML content (not blank, not only a comment)."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _value(rest: str) -> str:
    """A key line's value after the colon, without a trailing comment."""
    text = rest.strip()
    if text.startswith("#"):
        return ""
    return text.split(" #", 1)[0].strip()


def _unsafe(line: str) -> bool:
    """Whether a line starts an anchor, alias or tag, or is a merge key."""
    if line.lstrip(" -").startswith("<<"):
        return True
    match = _NODE.match(line)
    return match is not None and match.group(1) in ("&", "*", "!")


def _marked(begin_extra: str, body: list[str], indent: int, nl: str) -> list[str]:
    pad = " " * indent
    begin = f"{pad}{BEGIN}{(' ' + begin_extra) if begin_extra else ''}{nl}"
    return [begin, *body, f"{pad}{END}{nl}"]


def _check_shape(lines: list[str], refuse: EditRefusal) -> None:
    """Refuse what a line-wise edit cannot handle safely (anywhere in the file)."""
    seen_content = False
    for line in lines:
        body = line.rstrip("\r\n")
        lead = body[: len(body) - len(body.lstrip(" \t"))]
        if "\t" in lead or body.startswith(("%", "...")):
            raise refuse
        if body.startswith("---"):
            if seen_content:
                raise refuse  # a second document
            continue
        if not _content(body):
            continue
        if not seen_content and lead:
            raise refuse  # the top level is indented
        seen_content = True
        if not lead and not _TOP_KEY.match(body) and not _HOOKS_LINE.match(body):
            raise refuse  # the top level is not a plain block mapping
        if not lead and body.startswith("<<"):
            raise refuse


def install(
    text: str | None, entries: dict[str, list[dict[str, object]]], new_folder: bool = False
) -> str:
    """``text`` with Engramory's hook entries (``None``: the file is absent: a new file;
    ``new_folder``: its folder is absent too, and the begin marker says init made both)."""
    if text is not None and is_ours(text):
        new_folder = new_folder or created_folder(text)
        text = remove(text)
    refuse = EditRefusal(by_hand(entries))
    if text is None:
        body = ["hooks:\n", *render_entries(entries, 2, "\n")]
        return "".join(_marked(CREATED_WITH_FOLDER if new_folder else CREATED, body, 0, "\n"))
    nl = _newline(text)
    lines = text.splitlines(keepends=True)
    _check_shape(lines, refuse)
    hooks_at = [i for i, line in enumerate(lines) if _HOOKS_LINE.match(line.rstrip("\r\n"))]
    if not hooks_at:
        return _append(lines, ["hooks:" + nl, *render_entries(entries, 2, nl)], nl)
    if len(hooks_at) > 1:
        raise refuse
    return _into_hooks(lines, hooks_at[0], entries, nl, refuse)


def _append(lines: list[str], body: list[str], nl: str) -> str:
    """``body`` appended between markers after the last line."""
    extra = ""
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines = [*lines[:-1], lines[-1] + nl]
        extra = ADDED_BREAK
    return "".join(lines + _marked(extra, body, 0, nl))


def _insert_after(lines: list[str], at: int, block: list[str], nl: str) -> list[str]:
    """``block`` inserted after line ``at``; a last line without a line break gets one, and
    the begin marker says so (uninstall takes it out again)."""
    if not lines[at].endswith(("\n", "\r")):
        block = [block[0].rstrip("\r\n") + " " + ADDED_BREAK + nl, *block[1:]]
        return [*lines[:at], lines[at] + nl, *block]
    return [*lines[: at + 1], *block, *lines[at + 1 :]]


def _into_hooks(
    lines: list[str],
    at: int,
    entries: dict[str, list[dict[str, object]]],
    nl: str,
    refuse: EditRefusal,
) -> str:
    """Entries inserted into the block-style ``hooks:`` mapping whose key is line ``at``."""
    match = _HOOKS_LINE.match(lines[at].rstrip("\r\n"))
    if match is None or match.group(1) or _value(match.group(2)):
        raise refuse  # a quoted key, flow style, a scalar, an anchor or a tag
    end = next(
        (i for i in range(at + 1, len(lines)) if _content(lines[i]) and _indent(lines[i]) == 0),
        len(lines),
    )
    block = lines[at + 1 : end]
    if any(_unsafe(line) for line in block if _content(line)):
        raise refuse
    content = [i for i, line in enumerate(block) if _content(line)]
    child = _indent(block[content[0]]) if content else 2
    events: dict[str, int] = {}
    for i in content:
        indent = _indent(block[i])
        if indent < child:
            raise refuse
        if indent > child or (events and block[i].lstrip(" ").startswith("-")):
            continue  # deeper, or an item of the previous key's list written at its indent
        key = _CHILD_KEY.match(block[i].rstrip("\r\n"))
        if key is None or key.group(2) in events:
            raise refuse
        events[key.group(2)] = i
    new_keys = {event: items for event, items in entries.items() if event not in events}
    inserts: list[tuple[int, list[str]]] = []  # (after which line of the file, the lines)
    for event, items in entries.items():
        if event in events:
            inserts.append(_into_list(block, events[event], child, items, nl, refuse, at + 1))
    if new_keys:
        inserts.append((at, _marked("", render_entries(new_keys, child, nl), child, nl)))
    for where, lines_in in sorted(inserts, key=lambda pair: pair[0], reverse=True):
        lines = _insert_after(lines, where, lines_in, nl)
    return "".join(lines)


def _into_list(
    block: list[str],
    key_at: int,
    child: int,
    items: list[dict[str, object]],
    nl: str,
    refuse: EditRefusal,
    offset: int,
) -> tuple[int, list[str]]:
    """Engramory's items first in an event's block list (line ``key_at`` of ``block``)."""
    key = _CHILD_KEY.match(block[key_at].rstrip("\r\n"))
    if key is None or _value(key.group(3)):
        raise refuse  # flow style (``[...]``), a scalar, an anchor
    first = next((line for line in block[key_at + 1 :] if _content(line)), None)
    item_indent = child + 2
    if first is not None and _indent(first) >= child:
        if _indent(first) == child and not first.lstrip(" ").startswith("-"):
            first = None  # the next key: the event's value is empty
        elif not first.lstrip(" ").startswith(("- ", "-\n", "-\r")) and first.strip() != "-":
            raise refuse
        else:
            item_indent = _indent(first)
    return offset + key_at, _marked("", render_items(items, item_indent, nl), item_indent, nl)


def is_ours(text: str) -> bool:
    """Whether Engramory's marked lines are in the file."""
    return any(line.strip().startswith(BEGIN) for line in text.splitlines())


def created_folder(text: str) -> bool:
    """Whether the begin marker says init created the file's folder too."""
    return any(
        line.strip().startswith(BEGIN) and CREATED_WITH_FOLDER in line for line in text.splitlines()
    )


def remove(text: str) -> str | None:
    """``text`` without Engramory's marked lines (``None``: init created the file and nothing
    else is left). Unbalanced markers raise :class:`EditRefusal`."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    created = False
    inside = False
    added_break = -1  # the kept line whose line break init added (-1: none)
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(BEGIN):
            if inside:
                raise EditRefusal(_unbalanced())
            inside = True
            created = created or CREATED in stripped or CREATED_WITH_FOLDER in stripped
            if ADDED_BREAK in stripped:
                added_break = len(kept) - 1
            continue
        if stripped.startswith(END):
            if not inside:
                raise EditRefusal(_unbalanced())
            inside = False
            continue
        if not inside:
            kept.append(line)
    if inside:
        raise EditRefusal(_unbalanced())
    if added_break >= 0 and added_break == len(kept) - 1:  # still the last line: as it was
        kept[-1] = kept[-1].rstrip("\r\n")
    rest = "".join(kept)
    if created and not rest.strip():
        return None
    return rest


def _unbalanced() -> str:
    return (
        f"its `{BEGIN}` / `{END}` lines do not pair up: remove the lines between them (and "
        "the markers) by hand"
    )
