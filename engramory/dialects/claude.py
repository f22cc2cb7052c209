"""Claude Code's hook dialect for the index guard (PreToolUse and PostToolUse).

Payload (Claude Code's hooks reference, https://code.claude.com/docs/en/hooks):
``tool_name`` and ``tool_input`` -- ``Write {file_path, content}``, ``Edit
{file_path, old_string, new_string, replace_all}``, legacy ``MultiEdit
{file_path, edits[]}`` and ``Bash {command}`` -- plus ``cwd``.

Other hosts run the hooks in Claude's settings files with payloads of their
own (../shared/research/host-hooks-2026-12.md), and are read too: Copilot CLI
maps its tool names to Claude's but keeps its argument keys (``path``,
``file_text``, ``old_str``, ``new_str``; ``apply_patch`` arrives as an ``Edit``
carrying a V4A patch); VS Code sends its own tools (``create_file``,
``replace_string_in_file``, ``multi_replace_string_in_file``, ``run_in_terminal``,
camelCase keys) on EVERY tool call, whatever the matcher; Cursor sends an
empty ``cwd`` with ``workspace_roots``, ``Shell``, ``StrReplace`` and a UTF-8
BOM; Continue's ``Write`` names the path ``filepath``; Devin (Devin Desktop,
formerly Windsurf, and Devin CLI, which run the hooks in ``.claude/``) sends
lower-case ``write``, ``edit``, ``apply_patch`` (a V4A patch) and ``exec``
(its shell, ``{command, shell_id}``) and no ``cwd``: a payload without one is
read from ``$DEVIN_PROJECT_DIR`` when Devin sets it (its write/edit argument
keys are not documented: the spellings above are all read). A payload without
the new content cannot be predicted and is never denied.

Answers: a deny is exit 0 with ``hookSpecificOutput.permissionDecision:
"deny"`` and a reason; a nudge is the same object with ``additionalContext``
and no decision; silence is no output. Never ``allow`` (that would
auto-approve the call) and never ``ask``. After a tool ran (PostToolUse, the
same payload plus ``tool_response``), an index over its hard cap or a store note
now holding a secret (:mod:`engramory.guard.afterwrite`) is answered
``{"decision": "block", "reason": ...}``, which Claude Code feeds back to the agent.

The decisions are :mod:`engramory.guard.service`'s; this module only reads the
payload into :class:`~engramory.guard.toolcall.ToolCall` values and writes the
verdict back. Speed: payloads that cannot concern the index -- every tool this
dialect does not know, among them -- are recognised on the raw bytes
(:func:`may_concern_index`) and dismissed before any JSON is parsed; a payload
over the service's ``PAYLOAD_LIMIT`` is not parsed: its path is found by a
bounded scan (:func:`oversized_call`).
"""

from engramory.dialects import fields
from engramory.dialects.rawjson import decoded, json_string, json_strings
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:  # annotations only: a call dismissed early does not import the decision
    import os

    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict

# Tool names, as Claude Code sends them and as the hosts that run Claude's settings hooks do
# (Copilot CLI maps its own names to Claude's but keeps its argument keys; VS Code sends its own
# tool names, on every tool, whatever the matcher says; Cursor names its shell ``Shell``; Devin
# uses lower-case ``write``, ``edit``, ``apply_patch`` and ``exec``).
KINDS = {
    "Write": toolcall.WRITE,
    "write": toolcall.WRITE,
    "create_file": toolcall.WRITE,
    "create": toolcall.WRITE,
    "Edit": toolcall.EDIT,
    "replace_string_in_file": toolcall.EDIT,
    "edit": toolcall.EDIT,
    "StrReplace": toolcall.EDIT,
    "str_replace_editor": toolcall.EDIT,
    "MultiEdit": toolcall.MULTIEDIT,
    "multi_replace_string_in_file": toolcall.MULTIEDIT,
    "apply_patch": toolcall.PATCH,
    "ApplyPatch": toolcall.PATCH,
    "insert_edit_into_file": toolcall.EDIT,
}
# Edit tools whose result cannot be predicted (VS Code merges a sketch with "...existing code...").
UNPREDICTABLE = frozenset({"insert_edit_into_file"})
SHELL_TOOLS = frozenset({"Bash", "Shell", "runTerminalCommand", "run_in_terminal", "bash", "exec"})
# Argument keys, in the order they are tried: Claude's first, then the other hosts' spellings.
PATH_KEYS = ("file_path", "filePath", "path", "filepath")
CONTENT_KEYS = ("content", "file_text")
OLD_KEYS = ("old_string", "oldString", "old_str")
NEW_KEYS = ("new_string", "newString", "new_str")
ALL_KEYS = ("replace_all", "replaceAll")
_EDIT_TOOLS = frozenset(name.encode() for name in KINDS)
_SHELL_TOOLS = frozenset(name.encode() for name in SHELL_TOOLS)
_PATH_KEYS = tuple(key.encode() for key in PATH_KEYS)


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?

    A shell call: only when the command may write something and its text could concern a
    store (:mod:`engramory.guard.shellgate`). An edit: when
    any of its path members is the index (by name, or by identity when
    ``index`` or ``ENGRAMORY_INDEX_PATH`` names it); a patch: when the index
    could be among its files. A tool this dialect does not know is dismissed;
    anything that cannot be read cheaply (escapes, no tool name) is parsed in full.
    """
    tool = json_string(raw, b"tool_name")
    if tool is None or b"\\" in tool:
        return True
    if tool in _SHELL_TOOLS:
        return fields.command_may_concern(raw, json_string(raw, b"command"), environ, index)
    if tool not in _EDIT_TOOLS:
        return False
    if KINDS[tool.decode("ascii")] == toolcall.PATCH:
        return fields.patch_may_touch_index(raw, environ, index)
    if b'"replacements"' in raw:
        return True  # each replacement names its own file: the first path says nothing of the rest
    if not any(value for key in _PATH_KEYS for value in json_strings(raw, key)):
        return fields.patch_may_touch_index(raw, environ, index)  # an Edit carrying a patch
    return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)


def _first(mapping: "dict[str, object]", keys: "tuple[str, ...]") -> object:
    """The value of the first of ``keys`` that ``mapping`` holds (``None`` if none)."""
    for key in keys:
        if key in mapping:
            return mapping[key]
    return None


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = json_string(raw, b"tool_name")
    kind = KINDS.get(tool.decode("ascii", "replace")) if tool is not None else None
    if kind is None:
        return ToolCall(toolcall.UNKNOWN)
    for key in _PATH_KEYS:
        value = json_string(raw, key)
        path = decoded(value) if value is not None else None
        if path:
            cwd = json_string(raw, b"cwd")
            return ToolCall(kind, path, cwd=decoded(cwd) if cwd else fields.payload_cwd({}))
    return ToolCall(kind)


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one PreToolUse payload (already decoded from JSON)."""
    if not isinstance(payload, dict):
        return []
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    cwd = fields.payload_cwd(payload)
    if isinstance(tool_input, str) and tool_input.lstrip().startswith(fields.PATCH_START):
        return [ToolCall(toolcall.PATCH, cwd=cwd, command=tool_input)]
    if not isinstance(tool_input, dict):
        return []
    if tool in SHELL_TOOLS:
        command = tool_input.get("command")
        return [
            ToolCall(toolcall.SHELL, cwd=cwd, command=command if isinstance(command, str) else None)
        ]
    kind = KINDS.get(tool) if isinstance(tool, str) else None
    if kind is None:
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    replacements = tool_input.get("replacements")
    if isinstance(replacements, list):
        return _replacement_calls(replacements, cwd)
    if tool in UNPREDICTABLE:
        return [
            ToolCall(kind, fields.path(tool_input, PATH_KEYS), cwd=cwd)
        ]  # no edits: not predicted
    return [_edit_call(kind, tool_input, cwd)]


def _replacement_calls(replacements: "list[object]", cwd: "str | None") -> "list[ToolCall]":
    """VS Code's multi-replace: each replacement names its own file; one multi-edit per file."""
    by_path: dict[str, list[tuple[object, object, object]]] = {}
    for item in replacements:
        if isinstance(item, dict):
            path = fields.path(item, PATH_KEYS)
            if path is not None:
                by_path.setdefault(path, []).append(_step(item))
    return [
        ToolCall(toolcall.MULTIEDIT, path, cwd=cwd, edits=edits) for path, edits in by_path.items()
    ]


def _edit_call(kind: str, tool_input: "dict[str, object]", cwd: "str | None") -> "ToolCall":
    """A write, edit, multi-edit or patch call from its arguments, whatever their spelling."""
    path = fields.path(tool_input, PATH_KEYS)
    patch = fields.patch_text(tool_input)
    carries_patch = path is None and patch and patch.lstrip().startswith(fields.PATCH_START)
    if kind == toolcall.PATCH or carries_patch:
        return ToolCall(toolcall.PATCH, cwd=cwd, command=patch)
    call = ToolCall(kind, path, cwd=cwd)
    if kind == toolcall.WRITE:
        content = _first(tool_input, CONTENT_KEYS)
        call.content = content if isinstance(content, str) else None
    elif kind == toolcall.EDIT:
        call.edits = [_step(tool_input)]
    else:
        edits = _first(tool_input, ("edits", "replacements"))
        if isinstance(edits, list):
            call.edits = [_step(edit) for edit in edits if isinstance(edit, dict)]
    return call


def _step(edit: "dict[str, object]") -> "tuple[object, object, object]":
    return _first(edit, OLD_KEYS), _first(edit, NEW_KEYS), _first(edit, ALL_KEYS)


def render(verdict: "Verdict", event: str) -> "tuple[str, int]":
    """What to print for a verdict (maybe nothing) and the exit code (always 0)."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind == decision.SILENT:
        return "", 0
    if event == "post":
        if verdict.kind != decision.DENY:
            return "", 0
        return _dumps({"decision": "block", "reason": verdict.message}), 0
    output: dict[str, object] = {"hookEventName": "PreToolUse"}
    if verdict.kind == decision.DENY:
        output["permissionDecision"] = "deny"
        output["permissionDecisionReason"] = verdict.message
    else:
        output["additionalContext"] = verdict.message
    return _dumps({"hookSpecificOutput": output}), 0


def _dumps(output: "dict[str, object]") -> str:
    from engramory.util import fastjson  # noqa: PLC0415 - only when there is something to say

    return fastjson.dumps(output)


# --- lifecycle hooks (``engramory sync hook --host claude``) -------------------------------------


def lifecycle_output(reply: "Reply") -> "dict[str, object] | None":
    """The JSON object Claude Code expects for a lifecycle reply (``None``: print nothing).

    SessionStart context goes in ``hookSpecificOutput.additionalContext``; a held
    PreCompact is ``{"decision": "block", "reason": ...}``; a warning is a
    ``systemMessage``, which the user sees.
    """
    from engramory.continuity import policy  # noqa: PLC0415 - not on the guard's path

    if reply.kind == policy.QUIET:
        return None
    if reply.kind == policy.CONTEXT:
        return {
            "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": reply.text}
        }
    if reply.kind == policy.BLOCK:
        return {"decision": "block", "reason": reply.text}
    return {"systemMessage": reply.text}


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A lifecycle reply as Claude Code's hook output and exit code ("" prints nothing)."""
    return dump_lifecycle(lifecycle_output(reply))


def dump_lifecycle(output: "dict[str, object] | None") -> "tuple[str, int]":
    """One hook output object as its JSON text; a hook always exits 0 (it fails open)."""
    import json  # noqa: PLC0415 - not on the guard's path

    return ("" if output is None else json.dumps(output)), 0
