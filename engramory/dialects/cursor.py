"""Cursor: its preToolUse / beforeShellExecution hook dialect for the index guard (its install
spec: :mod:`engramory.hosts.cursor`).

Every payload carries ``conversation_id, generation_id, hook_event_name,
workspace_roots, cwd``; ``cwd`` may be empty, and then a relative path is
resolved against the first of ``workspace_roots`` (none: this process's
directory). A UTF-8 BOM may precede the JSON (the hook entry drops it).

``preToolUse`` adds ``tool_name`` (sometimes absent: the tool is then told by
its fields) and ``tool_input``: ``Write`` (its field names are not settled, so
several are read), ``StrReplace {path, old_string, new_string}``,
``ApplyPatch`` (free-form input: the patch itself, or an object holding it) and
``Shell {command}``. ``beforeShellExecution`` is ``{command, cwd}``.

Answers: a deny is ``{"permission": "deny", "user_message": ...,
"agent_message": ...}``, exit 0. Cursor has no channel for a nudge: a nudge
(including "not verified") is silence.

Continuity hooks (``engramory sync hook --host cursor``; Cursor's hooks docs,
documented, not run here against Cursor): sessionStart answers with
``{"additional_context": ...}``; beforeSubmitPrompt (``prompt``) can only let
the prompt through or stop it, so it is observed (the bookkeeping) and a
warning goes to the user as ``user_message``; preCompact (``trigger``) is
observe-only, so a held compaction becomes a ``user_message`` reminder. The
session is ``conversation_id`` (common to every event), else ``session_id``.
Never ``continue: false`` (that would stop the user's prompt).
"""

from engramory.dialects import fields
from engramory.dialects.rawjson import json_string
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os

    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)

SHELL_EVENT = "beforeShellExecution"
AFTER_EDIT_EVENT = "afterFileEdit"  # {file_path, edits}: after the edit, cannot block
AFTER_SHELL_EVENT = "afterShellExecution"  # {command, output}: after the command
STDERR = "stderr"  # dialects.STDERR, spelled out: render's third item, the text goes to stderr
WRITE_TOOL = "Write"
EDIT_TOOLS = ("StrReplace", "Edit")
PATCH_TOOL = "ApplyPatch"
SHELL_TOOL = "Shell"
PATH_KEYS = ("file_path", "path", "filePath", "target_file", "targetFile")
TEXT_KEYS = ("content", "contents", "file_text", "fileText", "text", "code_edit", "codeEdit")
OLD_KEYS = ("old_string", "old_str", "oldString")
NEW_KEYS = ("new_string", "new_str", "newString")
_PATH_KEYS = tuple(key.encode() for key in PATH_KEYS)
_EDIT_TOOLS = tuple(tool.encode() for tool in (WRITE_TOOL, *EDIT_TOOLS))


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?

    Without a ``tool_name``: only a payload that names the index (or while the
    index is known by its path) or whose command may write is parsed.
    """
    tool = json_string(raw, b"tool_name")
    event = json_string(raw, b"hook_event_name")
    if event == AFTER_EDIT_EVENT.encode():
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
    if tool == SHELL_TOOL.encode() or event in (SHELL_EVENT.encode(), AFTER_SHELL_EVENT.encode()):
        return fields.shell_may_concern(raw, environ, index)
    if tool in _EDIT_TOOLS:
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
    if tool == PATCH_TOOL.encode():
        return fields.patch_may_touch_index(raw, environ, index)
    if tool is None:
        return fields.text_may_name_index(raw, environ, index) or fields.command_may_write(raw)
    return b"\\" in tool


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = json_string(raw, b"tool_name")
    name = tool.decode("ascii", "replace") if tool is not None else ""
    kind = toolcall.WRITE if name == WRITE_TOOL else toolcall.EDIT if name in EDIT_TOOLS else None
    return fields.oversized_call(raw, kind, _PATH_KEYS)


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one preToolUse or beforeShellExecution payload (decoded from JSON)."""
    if not isinstance(payload, dict):
        return []
    cwd = fields.payload_cwd(payload)
    if payload.get("hook_event_name") == SHELL_EVENT:
        return [fields.shell_call(toolcall.SHELL, payload, cwd)]
    tool_input = payload.get("tool_input")
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        tool = _inferred_tool(tool_input)
    if tool == PATCH_TOOL:
        return [ToolCall(toolcall.PATCH, cwd=cwd, command=fields.patch_text(tool_input))]
    if not isinstance(tool_input, dict):
        return []
    if tool == SHELL_TOOL:
        return [fields.shell_call(toolcall.SHELL, tool_input, cwd)]
    path = fields.path(tool_input, PATH_KEYS)
    if tool == WRITE_TOOL:
        return [ToolCall(toolcall.WRITE, path, cwd=cwd, content=fields.text(tool_input, TEXT_KEYS))]
    if tool not in EDIT_TOOLS:
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    step = (
        fields.text(tool_input, OLD_KEYS),
        fields.text(tool_input, NEW_KEYS),
        tool_input.get("replace_all", tool_input.get("replaceAll")),
    )
    return [ToolCall(toolcall.EDIT, path, cwd=cwd, edits=[step])]


def after_calls(payload: object) -> "list[ToolCall]":
    """The call an after-event reports: afterFileEdit's file (the edit is done: only its path
    matters), afterShellExecution's command; any other payload as :func:`tool_calls` reads it."""
    if not isinstance(payload, dict):
        return []
    event = payload.get("hook_event_name")
    cwd = fields.payload_cwd(payload)
    if event == AFTER_EDIT_EVENT:
        edits = payload.get("edits")
        steps = [
            (edit.get("old_string"), edit.get("new_string"), False)
            for edit in (edits if isinstance(edits, list) else [])
            if isinstance(edit, dict)
        ]
        path = fields.path(payload, PATH_KEYS)
        return [ToolCall(toolcall.EDIT, path, cwd=cwd, edits=steps if steps else None)]
    if event == AFTER_SHELL_EVENT:
        return [fields.shell_call(toolcall.SHELL, payload, cwd)]
    return tool_calls(payload)


def _inferred_tool(tool_input: object) -> "str | None":
    """The tool a payload without ``tool_name`` is for, told by its input's fields."""
    if isinstance(tool_input, str):
        return PATCH_TOOL
    if not isinstance(tool_input, dict):
        return None
    patch = fields.patch_text(tool_input)
    if patch is not None and patch.lstrip().startswith(fields.PATCH_START):
        return PATCH_TOOL
    if isinstance(tool_input.get("command"), str):
        return SHELL_TOOL
    if fields.path(tool_input, PATH_KEYS) is None:
        return None
    if fields.text(tool_input, OLD_KEYS) is not None:
        return EDIT_TOOLS[0]
    return WRITE_TOOL


def render(verdict: "Verdict", event: str) -> "tuple[str, int] | tuple[str, int, str]":
    """What to print for a verdict (only a deny says anything) and the exit code (always 0);
    after a call, the warning goes to stderr (:data:`STDERR`)."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind != decision.DENY:
        return "", 0
    message = verdict.message
    if event == "post":  # afterFileEdit has no channel to the agent: Cursor's hook log only
        return message, 0, STDERR
    return fields.dumps(
        {"permission": "deny", "user_message": message, "agent_message": message}
    ), 0


# --- lifecycle hooks (``engramory sync hook --host cursor``) -----------------------------

LABEL = "Cursor"
# Cursor's lifecycle events -> Claude Code's, in the order they are installed.
LIFECYCLE_EVENTS = {
    "sessionStart": "SessionStart",
    "beforeSubmitPrompt": "UserPromptSubmit",
    "preCompact": "PreCompact",
}
SESSION_KEYS = ("conversation_id", "session_id")


def lifecycle_payload(payload: object, event: "str | None") -> object:
    """A sessionStart / beforeSubmitPrompt / preCompact payload as Claude Code's shape."""
    from engramory.dialects import lifecycle_io  # noqa: PLC0415 - not on the guard's path

    return lifecycle_io.claude_shape(payload, event, LIFECYCLE_EVENTS, SESSION_KEYS)


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A continuity reply as Cursor's hook output; always exit 0 (exit 2 would stop the prompt).

    Context (and a warning at session start) is ``additional_context``; any
    other warning, and a held compaction (a reminder: preCompact only
    observes), is a ``user_message``.
    """
    from engramory.continuity import policy  # noqa: PLC0415 - not on the guard's path
    from engramory.dialects import lifecycle_io  # noqa: PLC0415

    if reply.kind == policy.QUIET:
        return "", 0
    if reply.kind == policy.CONTEXT or reply.event == "SessionStart":
        return fields.dumps({"additional_context": reply.text}), 0
    text = reply.text
    if reply.kind == policy.BLOCK:
        text = lifecycle_io.observed_compaction(LABEL, text)
    return fields.dumps({"user_message": text}), 0
