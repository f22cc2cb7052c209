"""Qwen Code: its PreToolUse / PostToolUse hook dialect for the index guard (install:
:mod:`engramory.hosts.qwen`; the research: ../shared/research/qwen-hooks-2026-12.md).

Qwen Code's hooks are Claude Code's in shape (QwenLM/qwen-code
``docs/users/features/hooks.md``): stdin is ``{session_id, transcript_path, cwd,
hook_event_name, timestamp, permission_mode, tool_name, tool_input, tool_use_id}``, but
``tool_name`` is Qwen's own runtime tool id (``docs/developers/tools/file-system.md``,
``shell.md``): ``write_file {file_path, content}``; ``edit {file_path, old_string,
new_string, replace_all}`` -- an empty ``old_string`` creates the file, and an
``old_string`` found zero or several times may be corrected by the model itself, so such
an edit cannot be predicted (a "not verified" nudge, as for Gemini CLI's ``replace``) --;
``run_shell_command {command, directory, is_background}``, ``directory`` relative to the
project root.

Answers are Claude Code's (:func:`engramory.dialects.claude.render`): a deny is exit 0 with
``hookSpecificOutput.permissionDecision: "deny"`` and its reason, which Qwen returns to the
model as the tool's error; a nudge is ``additionalContext`` without a decision; after a
call, ``{"decision": "block", "reason": ...}``. Never ``allow`` (it would skip Qwen's
approval prompt) and never exit 2 (a blocking error whose stdout Qwen ignores); any other
exit code is a non-blocking error, so a guard that crashed lets the call run.

A deny of an index edit names the entries Qwen Code's own cut would not load
(:mod:`engramory.cuts.qwen`: the shortest lines first, not a tail cut).

Continuity: SessionStart (``source``: startup, resume, clear, compact), UserPromptSubmit
(``prompt``) and PreCompact (``trigger``) carry Claude Code's fields and read Claude Code's
answers (:func:`render_lifecycle`).
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

HOST = "qwen"
WRITE_TOOL = "write_file"
EDIT_TOOL = "edit"
SHELL_TOOL = "run_shell_command"
_EDIT_TOOLS = (WRITE_TOOL.encode(), EDIT_TOOL.encode())
_PATH_KEYS = (b"file_path",)


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    tool = json_string(raw, b"tool_name")
    if tool == SHELL_TOOL.encode():
        if b'"directory"' in raw:  # runs in a folder below the cwd: the gate is not told it
            return fields.command_may_write(raw)
        return fields.shell_may_concern(raw, environ, index)
    if tool in _EDIT_TOOLS:
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
    return tool is None or b"\\" in tool


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = json_string(raw, b"tool_name")
    kind = {WRITE_TOOL.encode(): toolcall.WRITE, EDIT_TOOL.encode(): toolcall.EDIT}.get(tool or b"")
    return fields.oversized_call(raw, kind, _PATH_KEYS)


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one PreToolUse payload (already decoded from JSON)."""
    request = fields.tool_request(payload)
    if request is None:
        return []
    tool, tool_input, cwd = request
    if tool == SHELL_TOOL:
        directory = tool_input.get("directory")
        if isinstance(directory, str) and directory:
            import os  # noqa: PLC0415 - not on the path of a dismissed call

            cwd = os.path.join(cwd or os.getcwd(), directory)
        return [fields.shell_call(toolcall.SHELL, tool_input, cwd)]
    path = fields.path(tool_input, ("file_path",))
    if tool == WRITE_TOOL:
        content = fields.text(tool_input, ("content",))
        return [ToolCall(toolcall.WRITE, path, cwd=cwd, content=content, cut_host=HOST)]
    if tool != EDIT_TOOL:
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    if old == "":
        content = new if isinstance(new, str) else None
        return [ToolCall(toolcall.WRITE, path, cwd=cwd, content=content, cut_host=HOST)]
    count = None if tool_input.get("replace_all") is True else 1
    return [
        ToolCall(toolcall.COUNTED_EDIT, path, cwd=cwd, edits=[(old, new, count)], cut_host=HOST)
    ]


def render(verdict: "Verdict", event: str) -> "tuple[str, int]":
    """Claude Code's answers, which Qwen Code reads (always exit 0)."""
    from engramory.dialects import claude  # noqa: PLC0415 - only once there is a verdict

    return claude.render(verdict, event)


# --- lifecycle hooks (``engramory sync hook --host qwen``) -------------------------------

LABEL = "Qwen Code"


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A continuity reply as Qwen Code's hook output (always exit 0).

    Qwen's SessionStart, UserPromptSubmit and PreCompact payloads are Claude Code's, and so
    are its answers: context goes in ``hookSpecificOutput.additionalContext``, a warning is a
    ``systemMessage``. PreCompact documents no way to hold a compaction back, so a held one
    is a ``systemMessage`` reminder.
    """
    from engramory.continuity import policy  # noqa: PLC0415 - not on the guard's path
    from engramory.dialects import claude, lifecycle_io  # noqa: PLC0415

    if reply.kind == policy.BLOCK:
        text = lifecycle_io.observed_compaction(LABEL, reply.text)
        return fields.dumps({"systemMessage": text}), 0
    return claude.render_lifecycle(reply)
