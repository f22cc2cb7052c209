"""Gemini CLI: its BeforeTool hook dialect for the index guard (install: engramory.hosts.gemini).

Payload: ``session_id, transcript_path, cwd, hook_event_name, timestamp,
tool_name, tool_input, mcp_context, original_request_name``. Tools:
``write_file {file_path, content}``, ``replace {file_path, instruction,
old_string, new_string, allow_multiple}`` (older builds: ``expected_replacements``
N, exactly N occurrences, all replaced) and ``run_shell_command {command,
dir_path, is_background}``; paths may be relative to ``cwd`` (``dir_path`` too).

Gemini CLI's own private memory (``~/.gemini/tmp/<project slug>/memory/MEMORY.md``,
field-2026-12.md §1.1, read at gemini-cli @5411f113) has no size cap: the host loads it
whole. A write or edit of it is checked for secrets only -- nothing to deny by size --
unless ``--index`` or ``ENGRAMORY_INDEX_PATH`` names it as the store's index.

A ``replace`` with an empty ``old_string`` creates the file (``new_string`` is
its text; when the file exists the tool fails, so any answer is moot). When
``old_string`` matches the wrong number of times Gemini may have a model
correct it, so the result cannot be predicted: a "not verified" nudge.

Answers: a deny is ``{"decision": "deny", "reason": ...}``, a nudge a
``systemMessage`` (BeforeTool has no field for the agent's context), silence
no output; always exit 0 (exit 1 would let the call run, but 2 and up BLOCK).

Continuity hooks (``engramory sync hook --host gemini``, Gemini CLI's hooks
reference): SessionStart (``source``) answers with
``hookSpecificOutput.additionalContext``; BeforeAgent (``prompt``) is Claude
Code's UserPromptSubmit: the bookkeeping, quiet unless the state cannot be
updated (a ``systemMessage``; never a ``decision``: a deny there discards the
user's prompt); PreCompress (``trigger``) is advisory and asynchronous, so a held
compaction becomes a ``systemMessage`` reminder. Every payload carries
``session_id``.
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

WRITE_TOOL = "write_file"
REPLACE_TOOL = "replace"
SHELL_TOOL = "run_shell_command"
_EDIT_TOOLS = (WRITE_TOOL.encode(), REPLACE_TOOL.encode())
_PATH_KEYS = (b"file_path",)


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    tool = json_string(raw, b"tool_name")
    if tool == SHELL_TOOL.encode():
        if b'"dir_path"' in raw:  # runs in a folder below the cwd: the gate is not told it
            return fields.command_may_write(raw)
        return fields.shell_may_concern(raw, environ, index)
    if tool in _EDIT_TOOLS:
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
    return tool is None or b"\\" in tool


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = json_string(raw, b"tool_name")
    kind = {WRITE_TOOL.encode(): toolcall.WRITE, REPLACE_TOOL.encode(): toolcall.EDIT}.get(
        tool or b""
    )
    return fields.oversized_call(raw, kind, _PATH_KEYS)


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one BeforeTool payload (already decoded from JSON)."""
    request = fields.tool_request(payload)
    if request is None:
        return []
    tool, tool_input, cwd = request
    if tool == SHELL_TOOL:
        dir_path = tool_input.get("dir_path")
        if isinstance(dir_path, str) and dir_path:
            import os  # noqa: PLC0415 - not on the path of a dismissed call

            cwd = os.path.join(cwd or os.getcwd(), dir_path)
        return [fields.shell_call(toolcall.SHELL, tool_input, cwd)]
    path = fields.path(tool_input, ("file_path",))
    if tool == WRITE_TOOL:
        content = fields.text(tool_input, ("content",))
        return [_uncapped_if_own(ToolCall(toolcall.WRITE, path, cwd=cwd, content=content))]
    if tool != REPLACE_TOOL:
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    if old == "":
        content = new if isinstance(new, str) else None
        return [_uncapped_if_own(ToolCall(toolcall.WRITE, path, cwd=cwd, content=content))]
    edits = [(old, new, _count(tool_input))]
    return [_uncapped_if_own(ToolCall(toolcall.COUNTED_EDIT, path, cwd=cwd, edits=edits))]


# Gemini CLI's private project memory: ~/.gemini/tmp/<project slug>/memory/MEMORY.md.
OWN_MEMORY_PARTS = (".gemini", "tmp", None, "memory", "memory.md")  # None: any slug


def is_own_memory(path: "str | None", cwd: "str | None") -> bool:
    """Whether ``path`` (relative to ``cwd``) is Gemini CLI's own private memory index."""
    if not path:
        return False
    import os  # noqa: PLC0415 - not on the path of a dismissed call

    full = os.path.normpath(os.path.join(cwd or os.getcwd(), os.path.expanduser(path)))
    parts = full.replace("\\", "/").lower().split("/")[-len(OWN_MEMORY_PARTS) :]
    return len(parts) == len(OWN_MEMORY_PARTS) and all(
        want is None or part == want for part, want in zip(parts, OWN_MEMORY_PARTS)
    )


def _uncapped_if_own(call: "ToolCall") -> "ToolCall":
    """A write or edit of Gemini CLI's own memory index, which the host loads whole with no
    size cap (field-2026-12.md §1.1): judged for secrets only, not against Engramory's caps,
    unless ``--index`` or ``ENGRAMORY_INDEX_PATH`` names it (then it is the store's index)."""
    if not is_own_memory(call.path, call.cwd):
        return call
    return ToolCall(
        toolcall.JUDGED,
        call.path,
        cwd=call.cwd,
        judge=lambda environ, index: _judge_own_memory(call, environ, index),
    )


def _judge_own_memory(
    call: "ToolCall", environ: "dict[str, str] | os._Environ[str]", index: "str | None"
) -> "Verdict":
    import os  # noqa: PLC0415 - not on the path of a dismissed call

    from engramory.guard import index_path, service  # noqa: PLC0415 - once a call is judged
    from engramory.guard.secretcheck import check_secrets  # noqa: PLC0415

    target = os.path.join(call.cwd or os.getcwd(), os.path.expanduser(call.path or ""))
    pinned = index_path(environ) or index
    if pinned is not None and service.same_file(target, os.path.expanduser(pinned)):
        return service.check(call, environ, index)
    return check_secrets(call, target)


def _count(tool_input: "dict[str, object]") -> "int | None":
    """How many occurrences the replace expects (``None``: every one, at least one)."""
    expected = tool_input.get("expected_replacements")
    if isinstance(expected, int) and not isinstance(expected, bool) and expected >= 1:
        return expected
    return None if tool_input.get("allow_multiple") is True else 1


def render(verdict: "Verdict", event: str) -> "tuple[str, int]":
    """What to print for a verdict (maybe nothing) and the exit code (always 0)."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind == decision.SILENT or (event == "post" and verdict.kind != decision.DENY):
        return "", 0
    if verdict.kind == decision.DENY:  # after a call (AfterTool) the reason replaces the result
        return fields.dumps({"decision": "deny", "reason": verdict.message}), 0
    return fields.dumps({"systemMessage": verdict.message}), 0


# --- lifecycle hooks (``engramory sync hook --host gemini``) -----------------------------

LABEL = "Gemini CLI"
# Gemini CLI's lifecycle events -> Claude Code's, in the order they are installed.
LIFECYCLE_EVENTS = {
    "SessionStart": "SessionStart",
    "BeforeAgent": "UserPromptSubmit",
    "PreCompress": "PreCompact",
}


def lifecycle_payload(payload: object, event: "str | None") -> object:
    """A SessionStart / BeforeAgent / PreCompress payload as Claude Code's shape."""
    from engramory.dialects import lifecycle_io  # noqa: PLC0415 - not on the guard's path

    return lifecycle_io.claude_shape(payload, event, LIFECYCLE_EVENTS, ("session_id",))


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A continuity reply as Gemini CLI's hook output; always exit 0 (2 and up would block).

    Context goes to the agent (``hookSpecificOutput.additionalContext`` under the
    event's own name); a warning, and a held compaction (which PreCompress cannot
    hold: a reminder), to the user (``systemMessage``).
    """
    from engramory.continuity import policy  # noqa: PLC0415 - not on the guard's path
    from engramory.dialects import lifecycle_io  # noqa: PLC0415

    if reply.kind == policy.QUIET:
        return "", 0
    if reply.kind == policy.CONTEXT:
        context = {"hookEventName": _own_event(reply.event), "additionalContext": reply.text}
        return fields.dumps({"hookSpecificOutput": context}), 0
    text = reply.text
    if reply.kind == policy.BLOCK:
        text = lifecycle_io.observed_compaction(LABEL, text)
    return fields.dumps({"systemMessage": text}), 0


def _own_event(event: str) -> str:
    """Gemini CLI's name for one of Claude Code's lifecycle events."""
    own = {claude: gemini for gemini, claude in LIFECYCLE_EVENTS.items()}
    return own.get(event, "SessionStart")
