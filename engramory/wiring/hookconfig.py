"""Engramory's handlers in a host's hook configuration (a JSON file), edited in place.

Two shapes (:class:`HookFormat`): :data:`GROUPED` (Claude Code, Codex, Gemini
CLI) keeps hooks as ``{"hooks": {"<Event>": [{"matcher": ..., "hooks":
[handler, ...]}, ...]}}``; :data:`FLAT` (Copilot, Cursor) as ``{"version": 1,
"hooks": {"<Event>": [handler, ...]}}``. Engramory's handlers are recognised by
a fixed fingerprint (:class:`Marker`): a free field holding one of our values
(``statusMessage``, ``name``) or, where a handler has none, a command that runs
one of our scripts; everything else -- other handlers, other groups, other
keys, key order -- is kept as it is. After any number of installs there is
exactly one Engramory handler per event and matcher; after an uninstall there
is none, and a group or event that only held Engramory's handlers is gone with
it (a group that was already empty is left alone).

The file is never re-serialised: :func:`load` parses it into a tree that
keeps the text between values (indentation, separators, line endings, the
final newline) and every scalar's own spelling (``1e2``, ``-0``, escapes), and
edits splice our groups in or out in the file's own style. Appending an entry
and removing it again are exact inverses, so uninstall gives back the
original bytes of a file nobody edited in between. A configuration the host
would read differently from us -- duplicate keys, nesting past
:data:`MAX_DEPTH`, anything but plain JSON -- is refused, never guessed at.
"""

from __future__ import annotations

import base64
import binascii
import gc
import json
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

MAX_DEPTH = 64
"""Deeper nesting is refused (a hook configuration needs six levels)."""
MAX_BYTES = 2 * 1024 * 1024
"""A larger hook configuration is refused (real ones hold kilobytes; parsing is pure Python)."""

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SIMPLE_KEY = re.compile(r"[A-Za-z0-9_-]{1,40}")


GROUPED = "grouped"  # {"hooks": {Event: [{"matcher": ..., "hooks": [handler, ...]}]}}
FLAT = "flat"  # {"version": 1, "hooks": {Event: [handler, ...]}}
_FLAT_VERSION = 1
_PATH_SEPARATORS = re.compile(r"[\\/]")


class HookConfigError(ValueError):
    """The configuration is not JSON of the expected shape; the message says where."""


@dataclass(frozen=True)
class Marker:
    """What makes a handler Engramory's: one of ``fields`` (each a string when present) holds
    one of ``values`` exactly, or a command line that runs one of ``scripts`` (a word whose
    file name is the script's, also inside a PowerShell ``-EncodedCommand``)."""

    fields: tuple[str, ...]
    values: frozenset[str] = frozenset()
    scripts: frozenset[str] = frozenset()

    def owns(self, handler: object) -> bool:
        """Whether ``handler`` (a plain value) is Engramory's."""
        if not isinstance(handler, dict):
            return False
        for key in self.fields:
            value = handler.get(key)
            if not isinstance(value, str):
                continue
            if value in self.values or (self.scripts and _runs_script(value, self.scripts)):
                return True
        return False


def _runs_script(line: str, scripts: frozenset[str]) -> bool:
    """Whether the command ``line`` has a word naming one of ``scripts`` (by file name)."""
    encoded = "-EncodedCommand" in line
    if not encoded and not any(script in line for script in scripts):
        return False
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: not a line Engramory wrote
        return False
    for index, word in enumerate(words):
        if _PATH_SEPARATORS.split(word)[-1] in scripts:
            return True
        if encoded and word == "-EncodedCommand" and index + 1 < len(words):
            script = _decoded_powershell(words[index + 1])
            if script is not None and _runs_script(script, scripts):
                return True
    return False


def _decoded_powershell(text: str) -> str | None:
    """A PowerShell ``-EncodedCommand`` argument's script (``None`` when it is not one)."""
    try:
        return base64.b64decode(text, validate=True).decode("utf-16-le")
    except (binascii.Error, ValueError):
        return None


@dataclass(frozen=True)
class HookFormat:
    """A host's hook configuration: its shape (:data:`GROUPED` or :data:`FLAT`), how its
    handlers of ours are marked, and how the index guard's handler alone is."""

    shape: str
    marker: Marker
    guard: Marker


# --- the tree: values plus the exact text around them -----------------------------------


@dataclass
class Scalar:
    """A string, number, ``true``, ``false`` or ``null``: its source text and its value."""

    raw: str
    value: Any


@dataclass
class Entry:
    """One element of an array, or one member of an object (``key`` set)."""

    value: Node
    key: str | None = None
    key_raw: str = ""
    colon: str = ""  # the text from the end of the key to the value: ": ", ":", " : "...


@dataclass
class Container:
    """An object or array: ``seps[0]`` follows the opening bracket, ``seps[i]`` (with its
    comma) precedes entry ``i``, ``seps[-1]`` precedes the closing bracket; an empty
    container has the one separator between its brackets."""

    open: str
    entries: list[Entry] = field(default_factory=list)
    seps: list[str] = field(default_factory=lambda: [""])

    def find(self, key: str) -> int:
        """The index of the member named ``key``, or -1."""
        for index, entry in enumerate(self.entries):
            if entry.key == key:
                return index
        return -1

    def get(self, key: str) -> Node | None:
        index = self.find(key)
        return self.entries[index].value if index >= 0 else None


Node = Union[Scalar, Container]


def _quoted(key: str) -> str:
    """A key in double quotes for a message: JSON-escaped (so control characters stay
    visible) and shortened."""
    quoted = json.dumps(key)
    return quoted if len(quoted) <= 42 else quoted[:40] + '…"'


def _shown(key: str) -> str:
    """A key as a path in a message names it: plain when simple, else quoted."""
    return key if _SIMPLE_KEY.fullmatch(key) else _quoted(key)


def _place(where: str) -> str:
    """A path for a message, shortened: a deep one is cut after its first 60 characters."""
    if not where:
        return "the top-level object"
    return where if len(where) <= 60 else where[:60] + "…"


def _child(where: str, key: str) -> str:
    shown = _shown(key)
    name = shown if shown == key else f"[{shown}]"
    return f"{where}.{name}" if where and shown == key else f"{where}{name}"


def _decoded(raw: str) -> str:
    """A string token's value (the pattern has already checked it)."""
    return json.loads(raw) if "\\" in raw else raw[1:-1]


def _number(raw: str) -> int | float | str:
    """A number token's value; an integer past Python's digit limit stays its spelling."""
    try:
        return float(raw) if any(c in raw for c in ".eE") else int(raw)
    except ValueError:
        return raw


def _parse(text: str) -> tuple[str, Node, str]:
    """Parse a document with the cyclic garbage collector paused: the tree holds no
    cycles, and collecting while it grows makes a large file take super-linear time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _Parser(text).document()
    finally:
        if was_enabled:
            gc.enable()


class _Parser:
    """A strict JSON parser (RFC 8259) that builds the tree; rejects duplicate keys."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> HookConfigError:
        line = self.text.count("\n", 0, self.pos) + 1
        column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        return HookConfigError(f"is not valid JSON ({what} at line {line}, column {column})")

    def ws(self) -> str:
        match = _WS.match(self.text, self.pos)
        assert match is not None  # the pattern matches the empty string
        self.pos = match.end()
        return match.group()

    def peek(self) -> str:
        return self.text[self.pos : self.pos + 1]

    def document(self) -> tuple[str, Node, str]:
        lead = self.ws()
        root = self.value(0, "")
        trail = self.ws()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the JSON value")
        return lead, root, trail

    def value(self, depth: int, where: str) -> Node:
        char = self.peek()
        if char in ("{", "["):
            if depth >= MAX_DEPTH:
                raise HookConfigError(f"nests deeper than {MAX_DEPTH} levels (at {_place(where)})")
            return self.container(depth, where)
        if char == '"':
            raw = self.token(_STRING, "a malformed string")
            return Scalar(raw, _decoded(raw))
        if char in "tfn":
            for word, meaning in _LITERALS.items():
                if self.text.startswith(word, self.pos):
                    self.pos += len(word)
                    return Scalar(word, meaning)
        raw = self.token(_NUMBER, "expected a value")
        return Scalar(raw, _number(raw))

    def token(self, pattern: re.Pattern[str], what: str) -> str:
        match = pattern.match(self.text, self.pos)
        if match is None or not match.group():
            raise self.fail(what)
        self.pos = match.end()
        return match.group()

    def container(self, depth: int, where: str) -> Container:
        box = Container(self.text[self.pos])
        close = "}" if box.open == "{" else "]"
        self.pos += 1
        box.seps = [self.ws()]
        if self.peek() == close:
            self.pos += 1
            return box
        seen: set[str] = set()
        while True:
            if box.open == "{":
                box.entries.append(self.member(depth, where, seen))
            else:
                inner = f"{where}[{len(box.entries)}]"
                box.entries.append(Entry(self.value(depth + 1, inner)))
            after = self.ws()
            char = self.peek()
            self.pos += 1
            if char == ",":
                box.seps.append(after + "," + self.ws())
            elif char == close:
                box.seps.append(after)
                return box
            else:
                self.pos -= 1
                raise self.fail(f"expected ',' or '{close}'")

    def member(self, depth: int, where: str, seen: set[str]) -> Entry:
        if self.peek() != '"':
            raise self.fail("expected a key in double quotes")
        key_raw = self.token(_STRING, "a malformed key")
        key = _decoded(key_raw)
        if key in seen:
            raise HookConfigError(
                f"has the key {_quoted(key)} twice in {_place(where)}: "
                "JSON readers keep only one of them, so Engramory will not guess which; "
                "delete the duplicate"
            )
        seen.add(key)
        colon = self.ws()
        if self.peek() != ":":
            raise self.fail("expected ':'")
        self.pos += 1
        colon += ":" + self.ws()
        return Entry(self.value(depth + 1, _child(where, key)), key, key_raw, colon)


def _text(node: Node) -> str:
    if isinstance(node, Scalar):
        return node.raw
    parts = [node.open, node.seps[0]]
    for index, entry in enumerate(node.entries):
        if index:
            parts.append(node.seps[index])
        if entry.key is not None:
            parts += [entry.key_raw, entry.colon]
        parts.append(_text(entry.value))
    if node.entries:
        parts.append(node.seps[-1])
    parts.append("}" if node.open == "{" else "]")
    return "".join(parts)


def _data(node: Node) -> Any:
    if isinstance(node, Scalar):
        return node.value
    if node.open == "{":
        return {entry.key: _data(entry.value) for entry in node.entries}
    return [_data(entry.value) for entry in node.entries]


# --- the file's own style, for the text we add -----------------------------------------


@dataclass(frozen=True)
class Style:
    """How the file writes JSON: what new entries are formatted with."""

    newline: str = "\n"
    unit: str = "  "  # one level of indentation
    multiline: bool = True  # one entry per line, or everything on one line
    colon: str = ": "
    comma: str = ", "  # between entries on one line


def _separators(node: Node) -> Iterator[str]:
    """Every separator between two entries, in document order."""
    if isinstance(node, Container):
        yield from node.seps[1:-1]
        for entry in node.entries:
            yield from _separators(entry.value)


def _style(text: str, root: Container) -> Style:
    counts: dict[str, int] = {"\n": 0, "\r\n": 0, "\r": 0}
    for match in _LINE_BREAK.finditer(text):
        counts[match.group()] += 1
    newline = max(counts, key=lambda ending: counts[ending])
    if not root.entries:
        return Style(newline=newline)
    first = root.seps[0]
    multiline = _LINE_BREAK.search(first) is not None
    unit = _LINE_BREAK.split(first)[-1] if multiline else "  "
    colon = root.entries[0].colon
    if _LINE_BREAK.search(colon):
        colon = ": "
    comma = next(
        (sep for sep in _separators(root) if not _LINE_BREAK.search(sep)),
        "," if colon == ":" else ", ",
    )
    return Style(newline, unit, multiline, colon, comma)


def _render(value: Any, style: Style, depth: int) -> str:
    """``value`` as JSON text in ``style``, for a position ``depth`` levels deep."""
    if isinstance(value, Mapping):
        items = [
            json.dumps(key, ensure_ascii=False) + style.colon + _render(item, style, depth + 1)
            for key, item in value.items()
        ]
        brackets = "{}"
    elif isinstance(value, (list, tuple)):
        items = [_render(item, style, depth + 1) for item in value]
        brackets = "[]"
    else:
        return json.dumps(value, ensure_ascii=False)
    if not items:
        return brackets
    if not style.multiline:
        return brackets[0] + style.comma.join(items) + brackets[1]
    inner = style.newline + style.unit * (depth + 1)
    return (
        brackets[0] + inner + ("," + inner).join(items) + style.newline + style.unit * depth
    ) + brackets[1]


# --- edits: appending an entry and removing it again are exact inverses ----------------


def _append(box: Container, entry: Entry, style: Style, depth: int) -> None:
    """Add ``entry`` last, separated as the container separates its entries."""
    count = len(box.entries)
    if count == 0:
        if style.multiline:
            box.seps = [
                style.newline + style.unit * (depth + 1),
                style.newline + style.unit * depth,
            ]
        else:
            box.seps = ["", ""]
    elif count == 1:
        box.seps.insert(1, "," + box.seps[0] if box.seps[0] else style.comma)
    else:
        box.seps.insert(count, box.seps[count - 1])
    box.entries.append(entry)


def _remove(box: Container, index: int) -> None:
    """Remove entry ``index`` with the separator :func:`_append` would have added for it."""
    count = len(box.entries)
    if count == 1:
        box.seps = [""]
    elif index == count - 1:
        del box.seps[index]
    else:
        del box.seps[index + 1]
    del box.entries[index]


def _new_node(value: Any, style: Style, depth: int) -> Node:
    return _Parser(_render(value, style, depth)).value(0, "")


def _is_ours(handler: Node, marker: Marker) -> bool:
    if not isinstance(handler, Container) or handler.open != "{":
        return False
    return marker.owns(_data(handler))


def _drop_handlers(handlers: Container, marker: Marker) -> None:
    """Remove our handlers from a list of handlers."""
    for position in reversed(range(len(handlers.entries))):
        if _is_ours(handlers.entries[position].value, marker):
            _remove(handlers, position)


def _drop_ours(groups: Container, form: HookFormat) -> None:
    """Remove our handlers from an event's list: from its groups, and the groups that only
    held ours (grouped), or from the list itself (flat)."""
    if form.shape == FLAT:
        _drop_handlers(groups, form.marker)
        return
    for index in reversed(range(len(groups.entries))):
        group = groups.entries[index].value
        handlers = group.get("hooks") if isinstance(group, Container) else None
        if not isinstance(handlers, Container):
            continue
        had = len(handlers.entries)
        _drop_handlers(handlers, form.marker)
        if had and not handlers.entries:
            _remove(groups, index)


class Document:
    """A hook configuration file: edited in place, written back in its own style."""

    def __init__(self, text: str | None, form: HookFormat) -> None:
        self.form = form
        if text is None or not text.strip():
            self.lead, self.trail = "", "\n"
            self.root = Container("{")
            self.style = Style()
            return
        lead, root, trail = _parse(text)
        if not isinstance(root, Container) or root.open != "{":
            raise HookConfigError("is not a JSON object at the top level")
        self.lead, self.root, self.trail = lead, root, trail
        self.style = _style(text, root)
        _check_shape(root, form)

    def text(self) -> str:
        """The file's text: the original bytes wherever nothing was changed."""
        return self.lead + _text(self.root) + self.trail

    def data(self) -> dict[str, Any]:
        """The configuration as plain Python values."""
        return _data(self.root)

    def _add(self, box: Container, key: str, value: Any, depth: int) -> None:
        node = _new_node(value, self.style, depth + 1)
        entry = Entry(node, key, json.dumps(key, ensure_ascii=False), self.style.colon)
        _append(box, entry, self.style, depth)

    def merge(self, wanted: Mapping[str, Any]) -> None:
        """Install Engramory's handlers, replacing ours.

        ``wanted`` maps an event to its group (grouped) or to its list of
        handlers (flat). A flat file that holds nothing yet starts with
        ``"version": 1``, as the hosts of that shape require.
        """
        entries = {
            event: list(value) if self.form.shape == FLAT else [value]
            for event, value in wanted.items()
        }
        hooks = self.root.get("hooks")
        if not isinstance(hooks, Container):
            if self.form.shape == FLAT and not self.root.entries:
                self._add(self.root, "version", _FLAT_VERSION, 0)
            self._add(self.root, "hooks", entries, 0)
            return
        for event, values in entries.items():
            existing = hooks.get(event)
            if not isinstance(existing, Container):
                self._add(hooks, event, values, 1)
                continue
            _drop_ours(existing, self.form)
            for value in values:
                _append(existing, Entry(_new_node(value, self.style, 3)), self.style, 2)

    def remove(self) -> None:
        """Take out Engramory's handlers, and the groups and events that only held them.

        A ``hooks`` object emptied by this is dropped when it is the last key
        (where init adds it); one followed by other keys was there before and stays.
        """
        position = self.root.find("hooks")
        if position < 0:
            return
        hooks = self.root.entries[position].value
        if not isinstance(hooks, Container) or hooks.open != "{":
            return
        had = len(hooks.entries)
        for index in reversed(range(had)):
            groups = hooks.entries[index].value
            if not isinstance(groups, Container) or groups.open != "[":
                continue
            before = len(groups.entries)
            _drop_ours(groups, self.form)
            if before and not groups.entries:
                _remove(hooks, index)
        if had and not hooks.entries and position == len(self.root.entries) - 1:
            _remove(self.root, position)

    def drop_key(self, key: str) -> None:
        """Remove a top-level key, if present."""
        index = self.root.find(key)
        if index >= 0:
            _remove(self.root, index)


def _check_shape(root: Container, form: HookFormat) -> None:
    """Refuse a ``hooks`` tree that is not the documented shape, in any event."""
    hooks = root.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, Container) or hooks.open != "{":
        raise HookConfigError('has a "hooks" value that is not an object')
    for member in hooks.entries:
        event = _child("hooks", member.key or "")
        groups = member.value
        if not isinstance(groups, Container) or groups.open != "[":
            raise HookConfigError(f'has "{event}" that is not a list')
        if form.shape == FLAT:
            for n, entry in enumerate(groups.entries):
                _check_handler(entry.value, f"{event}[{n}]", form.marker)
            continue
        for n, entry in enumerate(groups.entries):
            group = entry.value
            handlers = group.get("hooks") if isinstance(group, Container) else None
            if (
                not isinstance(group, Container)
                or group.open != "{"
                or not (
                    handlers is None or (isinstance(handlers, Container) and handlers.open == "[")
                )
            ):
                raise HookConfigError(f'has "{event}[{n}]" that is not a matcher group')
            for m, handler in enumerate(handlers.entries if handlers is not None else []):
                _check_handler(handler.value, f"{event}[{n}].hooks[{m}]", form.marker)


def _check_handler(handler: Node, where: str, marker: Marker) -> None:
    """Refuse a handler that is not an object, or whose marker field is not a string (the
    host would not read it as we do)."""
    if not isinstance(handler, Container) or handler.open != "{":
        raise HookConfigError(f'has a handler "{where}" that is not an object')
    for key in marker.fields:
        value = handler.get(key)
        if value is not None and not (isinstance(value, Scalar) and isinstance(value.value, str)):
            raise HookConfigError(f'has a "{key}" in "{where}" that is not a string')


def load(text: str | None, form: HookFormat) -> Document:
    """Parse a hook configuration (``None`` or blank: a new, empty one) and check its shape."""
    return Document(text, form)


# --- counting, on plain values -------------------------------------------------------------


def _handlers(config: Mapping[str, Any], form: HookFormat) -> Iterator[Any]:
    """Every handler of every well-formed matcher group (or flat list), whatever its event."""
    hooks = config.get("hooks", {})
    if not isinstance(hooks, dict):
        return
    for groups in hooks.values():
        if not isinstance(groups, list):
            continue
        if form.shape == FLAT:
            yield from groups
            continue
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                yield from group["hooks"]


def count_ours(config: Mapping[str, Any], form: HookFormat, marker: Marker | None = None) -> int:
    """How many Engramory handlers (those ``marker`` owns, default the format's) the
    configuration holds, in any event."""
    owner = marker or form.marker
    return sum(1 for handler in _handlers(config, form) if owner.owns(handler))


def count_all(config: Mapping[str, Any], form: HookFormat) -> int:
    """How many handlers the configuration holds, Engramory's and others'."""
    return sum(1 for _ in _handlers(config, form))


def _own_keys(form: HookFormat) -> set[str]:
    """The top-level keys init may add: ``hooks``, and a flat file's ``version``."""
    return {"hooks", "version"} if form.shape == FLAT else {"hooks"}


def is_empty(config: Mapping[str, Any], form: HookFormat) -> bool:
    """Nothing worth keeping: ``{}``, or an empty ``hooks`` (and a flat file's ``version``)
    and no other key."""
    return not config or (set(config) <= _own_keys(form) and not config.get("hooks"))


def only_ours(config: Mapping[str, Any], form: HookFormat) -> bool:
    """Every handler is Engramory's and no other key is there: nothing of the user's."""
    return set(config) <= _own_keys(form) and count_ours(config, form) == count_all(config, form)
