"""OpenCode: the guard dialect its plugin speaks and its lifecycle replies (its install spec,
the plugin file: :mod:`engramory.hosts.opencode`).

OpenCode has no shell-command hooks: a JavaScript plugin in ``.opencode/plugins/``
(``~/.config/opencode/plugins/`` with ``--global``) gates tool calls in-process
(V1 plugin API, https://opencode.ai/docs/plugins). Engramory's plugin
(``adapters/opencode/engramory-guard.js``, written by ``init --install-hooks`` with the
absolute interpreter, scripts and store baked in) runs the Python guard on
``tool.execute.before`` with the call as ``{"tool", "args", "cwd"}`` on stdin, where
``tool`` is OpenCode's tool id, ``args`` its arguments as OpenCode passes them and
``cwd`` the plugin's ``directory`` (the tools' paths are relative to it). Tools:
``write {filePath, content}``, ``edit {filePath, oldString, newString, replaceAll}``
(an empty ``oldString`` writes ``newString`` as the whole file), ``apply_patch
{patchText}`` (V4A) and ``bash`` (V1) / ``shell`` (V2) ``{command}``.

OpenCode's edit falls back to looser matches (trimmed lines, normalised
whitespace...) when ``oldString`` is not found exactly once, so only an exact
single match (or ``replaceAll`` with at least one) is predicted; any other edit
of the index passes with a "not verified" nudge, as Gemini's model-corrected
edits do.

Answers (one JSON line the plugin reads; always exit 0): a deny is
``{"deny": reason}`` (the plugin throws ``new Error(reason)``, which blocks the
call and shows the reason to the model), a nudge ``{"nudge": text}`` (OpenCode
has no channel for it before a call: the plugin ignores it), silence no output.
After a call (``--event post``, the plugin's ``tool.execute.after`` with the arguments
``tool.execute.before`` saw) what to undo is ``{"after": text}``: OpenCode's plugin adds it
to the tool's output, which the model reads; OpenClaw's (``after_tool_call``, observe-only)
logs it.

Lifecycle (``sync hook --host opencode --event E``): the plugin sends ``{"session_id",
"prompt", "trigger"}`` for ``session.created`` (SessionStart), ``chat.message``
(UserPromptSubmit) and ``experimental.session.compacting`` (PreCompact, trigger
``auto``: the hook can add context to the compaction but never stop it). Replies:
``{"context": text}`` for session context, ``{"reminder": text}`` for a warning or a
held compaction (rendered as a reminder: OpenCode cannot be told to hold it);
the plugin adds both to the compaction's context. Documented only: the V2 plugin API
(``Plugin.define``) is not supported.
"""

from engramory.dialects import fields
from engramory.dialects.rawjson import json_string
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os
    from collections.abc import Callable

    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict


# --- the guard dialect (shared with OpenClaw's plugin, which sends the same shape) -------
# (on the hook's hot path: imports nothing heavy at module level)

WRITE = "write"
EDIT = "edit"
PATCH = "patch"
SHELL = "shell"
TOOLS = {"write": WRITE, "edit": EDIT, "apply_patch": PATCH, "bash": SHELL, "shell": SHELL}
PATH_KEYS = ("filePath",)
CONTENT_KEYS = ("content",)
OLD_KEYS = ("oldString",)
NEW_KEYS = ("newString",)
REPLACE_ALL_KEYS = ("replaceAll",)


def plugin_may_concern(
    raw: bytes,
    environ: "dict[str, str] | os._Environ[str]",
    index: "str | None",
    tools: "dict[str, str]",
    path_keys: "tuple[str, ...]",
) -> bool:
    """A cheap test on a plugin's raw ``{"tool", "args", "cwd"}``: could it touch the index?

    The plugin writes ``tool`` first, so the first ``"tool"`` member is the call's.
    """
    tool = json_string(raw, b"tool")
    if tool is None or b"\\" in tool:
        return True
    kind = tools.get(tool.decode("ascii", "replace"))
    if kind == SHELL:
        return fields.shell_may_concern(raw, environ, index)
    if kind == PATCH:
        return fields.patch_may_touch_index(raw, environ, index)
    if kind in (WRITE, EDIT):
        keys = tuple(key.encode() for key in path_keys)
        return fields.path_may_be_index(raw, keys, environ, index)
    return False


def plugin_oversized(
    raw: bytes, tools: "dict[str, str]", path_keys: "tuple[str, ...]"
) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = json_string(raw, b"tool")
    kind = tools.get(tool.decode("ascii", "replace") if tool is not None else "")
    guard_kind = {WRITE: toolcall.WRITE, EDIT: toolcall.EDIT}.get(kind or "")
    return fields.oversized_call(raw, guard_kind, tuple(key.encode() for key in path_keys))


def plugin_request(payload: object) -> "tuple[object, dict[str, object], str | None] | None":
    """``(tool id, its arguments, cwd)`` of a plugin's payload (``None``: not one)."""
    if not isinstance(payload, dict):
        return None
    arguments = payload.get("args")
    if not isinstance(arguments, dict):
        return None
    return payload.get("tool"), arguments, fields.payload_cwd(payload)


def edit_call(
    path: "str | None", cwd: "str | None", old: object, new: object, replace_all: object
) -> "ToolCall":
    """One string replacement of a tool that matches loosely when the exact text is not found
    once: an empty ``old`` writes ``new`` as the file; else a counted edit (exactly one
    occurrence, or with ``replace_all`` at least one), which is "not verified" otherwise."""
    if old == "":
        return ToolCall(
            toolcall.WRITE, path, cwd=cwd, content=new if isinstance(new, str) else None
        )
    count = None if replace_all is True else 1
    return ToolCall(toolcall.COUNTED_EDIT, path, cwd=cwd, edits=[(old, new, count)])


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    return plugin_may_concern(raw, environ, index, TOOLS, PATH_KEYS)


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    return plugin_oversized(raw, TOOLS, PATH_KEYS)


def plain_call(
    kind: "str | None",
    arguments: "dict[str, object]",
    cwd: "str | None",
    path_keys: "tuple[str, ...]",
    content_keys: "tuple[str, ...]",
) -> "ToolCall | None":
    """The call of a shell, patch or write tool, which both plugins' hosts shape alike
    (``None``: an edit or an unknown tool, which each dialect reads its own way)."""
    if kind == SHELL:
        return fields.shell_call(toolcall.SHELL, arguments, cwd)
    if kind == PATCH:
        return ToolCall(toolcall.PATCH, cwd=cwd, command=fields.patch_text(arguments))
    if kind == WRITE:
        path = fields.path(arguments, path_keys)
        return ToolCall(toolcall.WRITE, path, cwd=cwd, content=fields.text(arguments, content_keys))
    return None


def plugin_calls(
    payload: object,
    tools: "dict[str, str]",
    path_keys: "tuple[str, ...]",
    content_keys: "tuple[str, ...]",
    read_edit: "Callable[[str | None, dict[str, object], str | None], ToolCall]",
) -> "list[ToolCall]":
    """The tool call in one plugin payload (already decoded from JSON); an edit is read by
    ``read_edit(path, arguments, cwd)``, each host's own way."""
    request = plugin_request(payload)
    if request is None:
        return []
    tool, arguments, cwd = request
    kind = tools.get(tool) if isinstance(tool, str) else None
    call = plain_call(kind, arguments, cwd, path_keys, content_keys)
    if call is not None:
        return [call]
    if kind != EDIT:
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    return [read_edit(fields.path(arguments, path_keys), arguments, cwd)]


def _edit(path: "str | None", arguments: "dict[str, object]", cwd: "str | None") -> "ToolCall":
    """OpenCode's ``edit{filePath, oldString, newString, replaceAll}``."""
    old, new = arguments.get(OLD_KEYS[0]), arguments.get(NEW_KEYS[0])
    return edit_call(path, cwd, old, new, arguments.get(REPLACE_ALL_KEYS[0]))


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one plugin payload (already decoded from JSON)."""
    return plugin_calls(payload, TOOLS, PATH_KEYS, CONTENT_KEYS, _edit)


def render(verdict: "Verdict", event: str) -> "tuple[str, int]":
    """One JSON line for the plugin (maybe nothing) and the exit code (always 0)."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind == decision.SILENT or (event == "post" and verdict.kind != decision.DENY):
        return "", 0
    if event == "post":  # the call ran: the plugin tells the agent (OpenCode) or logs (OpenClaw)
        return fields.dumps({"after": verdict.message}), 0
    if verdict.kind == decision.DENY:
        return fields.dumps({"deny": verdict.message}), 0
    return fields.dumps({"nudge": verdict.message}), 0


# --- lifecycle (``engramory sync hook --host opencode``) ----------------------------------


def lifecycle_payload(payload: object, event: "str | None") -> object:
    """The plugin's ``{"session_id", "prompt", "trigger"}`` as Claude Code's shape; ``event``
    (the plugin passes ``--event``) names it."""
    if not isinstance(payload, dict):
        return payload
    shaped: dict[str, object] = {"hook_event_name": event or payload.get("event")}
    for key in ("session_id", "prompt", "trigger", "source"):
        if key in payload:
            shaped[key] = payload[key]
    return shaped


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A lifecycle reply as one JSON line for the plugin: ``{"context"}`` or ``{"reminder"}``.

    A held compaction (BLOCK) is a reminder too: the plugin can only add context.
    """
    import json  # noqa: PLC0415 - not on the guard's path

    from engramory.continuity import policy  # noqa: PLC0415

    if reply.kind == policy.QUIET or not reply.text:
        return "", 0
    key = "context" if reply.kind == policy.CONTEXT else "reminder"
    return json.dumps({key: reply.text}), 0
