"""What the guard dialects of Gemini CLI, GitHub Copilot and Cursor share.

Each of those hosts names a tool's fields its own way, and some names are not
settled (research: host-hooks-2026-12.md), so a dialect lists the field names
it accepts and these helpers read them: cheaply on the raw payload bytes
(before any JSON is parsed: the hook's hot path), then on the parsed payload.
On the hot path: imports only :mod:`engramory.guard` (the raw pre-check's names, not
:mod:`~engramory.guard.service`), :mod:`~engramory.guard.toolcall` and
:mod:`~engramory.dialects.rawjson` at module level.
"""

from engramory import guard
from engramory.dialects.rawjson import (
    decoded,
    first_string,
    json_string,
    json_string_start,
    json_strings,
    string_at,
    unescaped,
)
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os

PATCH_START = "*** Begin Patch"
# Devin's hooks carry no ``cwd``; Devin sets this to the project's folder instead.
DEVIN_PROJECT_DIR = "DEVIN_PROJECT_DIR"
# Where a patch tool's object argument keeps the patch text, most likely first.
PATCH_KEYS = ("input", "patch", "command", "patchText", "patch_text", "content", "text")


# --- on the raw bytes -------------------------------------------------------------------


def raw_cwd(raw: bytes) -> "str | None":
    """The payload's working directory, read cheaply (``None``: not known without parsing).

    An empty or missing ``cwd`` means the first of ``workspace_roots`` (Cursor),
    then ``$DEVIN_PROJECT_DIR`` (Devin), then this process's directory. Two ``cwd``
    members (a tool argument of that name, before or after the payload's own) are not
    told apart without parsing: ``None``.
    """
    at = json_string_start(raw, b"cwd")
    if at >= 0 and json_string_start(raw, b"cwd", at) >= 0:
        return None
    value = string_at(raw, at) if at >= 0 else None
    if not value:
        value = first_string(raw, b"workspace_roots")
        if value is None:
            return default_cwd() if b'"workspace_roots"' not in raw else None
    return decoded(value) if value else None


def default_cwd() -> str:
    """The directory of a call whose payload names none: Devin's project, else this process's."""
    return guard.process_environ().get(DEVIN_PROJECT_DIR) or guard.getcwd()


def path_may_be_index(
    raw: bytes,
    keys: "tuple[bytes, ...]",
    environ: "dict[str, str] | os._Environ[str]",
    index: "str | None",
    cwd_raw: "bytes | None" = None,
) -> bool:
    """Could the edit in ``raw`` concern the guard? By every value of every one of ``keys``:
    the index, or a markdown file of a store (where a secret is refused).

    ``cwd_raw``: where the ``cwd`` member is (default: ``raw``); read only when the
    index is known by its path (else the name decides). ``True`` whenever that cannot
    be told cheaply (no path, a path that is not a plain string, no ``cwd`` found).
    """
    values = [value for key in keys for value in json_strings(raw, key)]
    if not any(values):
        return True
    paths = [decoded(value) if value is not None else None for value in values]
    if None in paths:
        return True
    known = index is not None or guard.index_path(environ) is not None
    notes = any(path and path.lower().endswith(".md") for path in paths)
    cwd = raw_cwd(raw if cwd_raw is None else cwd_raw) if known or notes else ""
    if cwd is None:
        return True
    return any(
        path
        and (
            guard.is_index(path, cwd, environ, index)
            or guard.is_store_note(path, cwd, environ, index)
        )
        for path in paths
    )


def command_may_write(raw: bytes) -> bool:
    """Could the shell command in ``raw`` (its ``command`` member) write a file?"""
    command = json_string(raw, b"command")
    return command is None or guard.shell_may_write(command)


def shell_may_concern(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None"
) -> bool:
    """:func:`command_may_concern` for a payload whose shell call runs in the payload's own
    ``cwd`` (read as :func:`payload_cwd` reads it) with its ``command`` member."""
    return command_may_concern(raw, json_string(raw, b"command"), environ, index)


def command_may_concern(
    raw: bytes,
    command: "bytes | None",
    environ: "dict[str, str] | os._Environ[str]",
    index: "str | None",
) -> bool:
    """Could the shell command ``command`` (the raw value of ``raw``'s ``command``) concern a
    store? It must be able to write (:func:`~engramory.guard.guard.shell_may_write`) and
    pass the gate before the parser (:mod:`engramory.guard.shellgate`), both without parsing
    the payload; ``True`` whenever that cannot be told cheaply (a ``\\u`` escape, no cwd)."""
    if command is None or not guard.shell_may_write(command):
        return command is None
    text = unescaped(command)
    cwd = raw_cwd(raw) if text is not None else None
    if text is None or cwd is None:
        return True
    from engramory.guard.shellgate import may_concern_store  # noqa: PLC0415

    return may_concern_store(text.decode("utf-8", "replace"), cwd, environ, index)


def sole_command_may_concern(
    arguments: bytes,
    cwd_raw: bytes,
    environ: "dict[str, str] | os._Environ[str]",
    index: "str | None",
) -> bool:
    """:func:`command_may_concern` for the one ``command`` member of ``arguments``, run in the
    ``cwd`` read off ``cwd_raw``; ``True`` (parse it) unless there is exactly one, a string."""
    values = json_strings(arguments, b"command")
    if len(values) != 1:
        return True
    return command_may_concern(cwd_raw, values[0], environ, index)


def text_may_name_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None"
) -> bool:
    """Could ``raw`` name the index at all? (for a patch, or a payload without a tool name)

    By the index's name, case-insensitively; ``True`` when the index is known by its
    path (an alias may have any name) or a ``\\u`` escape could hide the name.
    """
    if index is not None or guard.index_path(environ) is not None or b"\\u" in raw:
        return True
    name = guard.index_name(environ)
    return not name.isascii() or name.lower().encode() in raw.lower()


# The V4A lines that name a file a patch writes (Delete only shrinks: it cannot grow an index).
_PATCH_TARGETS = (b"*** Add File: ", b"*** Update File: ", b"*** Move to: ")
_LINE_ENDS = (b"\\n", b"\\r", b'"', b"\n", b"\r")


def patch_may_touch_index(
    raw: bytes,
    environ: "dict[str, str] | os._Environ[str]",
    index: "str | None",
    cwd_raw: "bytes | None" = None,
) -> bool:
    """Could the V4A patch in ``raw`` concern the guard? By the files its lines name.

    Every ``Add File``, ``Update File`` and ``Move to`` target is read off the raw
    bytes and tested as an edit's path is (the index, or a markdown file of a store);
    ``True`` whenever a target cannot be read cheaply (:func:`_patch_targets`) or the
    ``cwd`` cannot be found.
    ``cwd_raw``: where the ``cwd`` member is (default: ``raw``).
    """
    targets = _patch_targets(raw)
    if targets is None:
        return True  # a target the raw scan cannot read: the parser decides
    notes = any(target.lower().endswith(".md") for target in targets)
    if not notes and not text_may_name_index(raw, environ, index):
        return False
    known = index is not None or guard.index_path(environ) is not None
    cwd = raw_cwd(raw if cwd_raw is None else cwd_raw) if known or notes else ""
    if cwd is None:
        return True
    return any(
        guard.is_index(target, cwd, environ, index)
        or guard.is_store_note(target, cwd, environ, index)
        for target in targets
    )


def _patch_targets(raw: bytes) -> "list[str] | None":
    """The files a patch's Add/Update/Move lines name, read off the raw bytes.

    ``None`` when one cannot be read cheaply (an escape or a non-ASCII byte in it,
    whitespace at its ends -- the host trims Unicode whitespace too --, no end of line).
    """
    targets = []
    for marker in _PATCH_TARGETS:
        at = raw.find(marker)
        while at >= 0:
            start = at + len(marker)
            ends = [end for end in (raw.find(e, start) for e in _LINE_ENDS) if end >= 0]
            if not ends:
                return None
            end = min(ends)
            target = raw[start:end]
            if not target or not target.isascii() or b"\\" in target or target != target.strip():
                return None
            targets.append(target.decode("ascii"))
            at = raw.find(marker, end)
    return targets


def oversized_call(
    raw: bytes, kind: "str | None", keys: "tuple[bytes, ...]", cwd_raw: "bytes | None" = None
) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse (a bounded scan of ``raw``).

    ``cwd_raw``: where the ``cwd`` member is (default: ``raw``).
    """
    if kind not in toolcall.EDIT_KINDS:
        return ToolCall(toolcall.UNKNOWN)
    for key in keys:
        value = json_string(raw, key)
        path = decoded(value) if value is not None else None
        if path:
            return ToolCall(kind, path, cwd=raw_cwd(raw if cwd_raw is None else cwd_raw))
    return ToolCall(kind)


# --- on the parsed payload --------------------------------------------------------------


def text(mapping: "dict[str, object]", keys: "tuple[str, ...]") -> "str | None":
    """The first of ``keys`` whose value is a string (``None``: none is)."""
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, str):
            return value
    return None


def path(mapping: "dict[str, object]", keys: "tuple[str, ...]") -> "str | None":
    """The first non-empty string among ``keys``: a tool's target file."""
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def payload_cwd(payload: "dict[str, object]") -> "str | None":
    """The call's working directory: ``cwd``, else the first of ``workspace_roots``, else
    ``$DEVIN_PROJECT_DIR`` (``None``: this process's)."""
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        return cwd
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0]:
        return roots[0]
    return guard.process_environ().get(DEVIN_PROJECT_DIR) or None


def tool_request(payload: object) -> "tuple[object, dict[str, object], str | None] | None":
    """``(tool name, its arguments, cwd)`` of a ``{tool_name, tool_input, cwd}`` payload.

    ``None`` when the payload is not an object or its ``tool_input`` is not one.
    """
    if not isinstance(payload, dict):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    return payload.get("tool_name"), tool_input, payload_cwd(payload)


def patch_text(value: object) -> "str | None":
    """A patch tool's patch: the argument itself, or its object's patch member."""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return None
    found = text(value, PATCH_KEYS)
    if found is not None:
        return found
    return next(
        (v for v in value.values() if isinstance(v, str) and v.lstrip().startswith(PATCH_START)),
        None,
    )


def shell_call(kind: str, arguments: "dict[str, object]", cwd: "str | None") -> "ToolCall":
    """A shell tool's call: its ``command`` (``None`` when not a string)."""
    command = arguments.get("command")
    return ToolCall(kind, cwd=cwd, command=command if isinstance(command, str) else None)


def dumps(output: "dict[str, object]") -> str:
    """One answer object as JSON text (fastjson: only once there is something to say)."""
    from engramory.util import fastjson  # noqa: PLC0415

    return fastjson.dumps(output)
