"""GitHub Copilot (CLI, cloud agent): its preToolUse hook dialect for the index guard (its
install spec: :mod:`engramory.hosts.copilot`).

Two payload dialects. camelCase: ``{sessionId, timestamp, cwd, toolName,
toolArgs}`` where ``toolArgs`` may be a JSON STRING holding the object (or, for
``apply_patch``, the patch itself). Claude-style: ``{hook_event_name,
session_id, timestamp, cwd, tool_name, tool_input}`` with the tools renamed
(``create`` -> ``Write``, ``edit``/``str_replace_editor``/``apply_patch`` ->
``Edit``) but not their arguments. Tools: ``create {path, file_text}``, ``edit
{path, old_str, new_str}`` (exactly one occurrence), ``edit``/``str_replace_editor``
with ``command: insert`` ``{path, new_str, insert_line}`` (``new_str`` goes in as
whole lines after line ``insert_line``, 0 for the top; simulated, so an insert that
takes the index over its cap, or a secret into a note, is denied), ``apply_patch`` (a V4A
patch; an ``Edit`` without a path whose argument starts ``*** Begin Patch`` is
one too), ``bash {command}`` and ``powershell {command}`` (read by
:mod:`engramory.guard.pwsh`).

Answers: a deny is the flat ``{"permissionDecision": "deny",
"permissionDecisionReason": ...}``, plus the same in ``hookSpecificOutput``
for a Claude-style payload; a nudge is ``hookSpecificOutput.additionalContext``
for a Claude-style payload and nothing for a camelCase one (Copilot reads
nothing else). Never ``allow`` or ``ask``. Copilot fails CLOSED on a crash or
any non-zero exit, so the answer always exits 0.

Continuity hooks (``engramory sync hook --host copilot``; GitHub's hooks
reference, documented, not run here against Copilot): sessionStart
(``{sessionId, cwd, source}``) may answer ``{"additionalContext": ...}``;
userPromptSubmitted (``{sessionId, prompt}``) and preCompact (``{sessionId,
trigger}``, "notification only") read no output of a command hook, so they do
the bookkeeping and show a warning or a held compaction only as a progress
line (``{"type": "progress", "message": ...}``, which the CLI prints in its
timeline): Copilot cannot hold a compaction back. Both payload dialects are
read (``sessionId`` / ``session_id``).
"""

from engramory.dialects import fields
from engramory.dialects.rawjson import json_string, unescaped
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os

    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)

WRITE_TOOLS = ("create", "Write")
EDIT_TOOLS = ("edit", "str_replace_editor", "str_replace", "Edit")
PATCH_TOOLS = ("apply_patch",)
SHELL_TOOLS = ("bash", "Bash")
POWERSHELL_TOOLS = ("powershell", "PowerShell")
PATH_KEYS = ("path", "file_path", "filePath")
TEXT_KEYS = ("file_text", "content")
_PATH_KEYS = tuple(key.encode() for key in PATH_KEYS)
CAMEL = "camel"  # {toolName, toolArgs}
CLAUDE_STYLE = "claude"  # {tool_name, tool_input}
_answering = [CAMEL]  # the style of the payload this process answers (one per hook call)


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?

    A string ``toolArgs`` is unescaped (without a parser) and read the same way. A ``bash``
    command must be able to write and pass the gate before the shell parser
    (:func:`~engramory.dialects.fields.command_may_concern`, in the payload's ``cwd``), as
    Claude Code's is; a second ``command`` member, or a ``\\u`` escape, is parsed.
    """
    tool = json_string(raw, b"toolName")
    if tool is None:
        tool = json_string(raw, b"tool_name")
    if tool is None or b"\\" in tool:
        return True
    arguments = _raw_arguments(raw)
    if arguments is None:
        return True
    name = tool.decode("ascii", "replace")
    if name in SHELL_TOOLS:  # the gate, on the command once toolArgs is unescaped
        return fields.sole_command_may_concern(arguments, raw, environ, index)
    if name in POWERSHELL_TOOLS:
        return _powershell_may_write(arguments)
    if name in PATCH_TOOLS:
        return fields.patch_may_touch_index(arguments, environ, index, raw)
    if name in WRITE_TOOLS or name in EDIT_TOOLS:
        return fields.path_may_be_index(arguments, _PATH_KEYS, environ, index, raw)
    return False


def _powershell_may_write(arguments: bytes) -> bool:
    """Could the PowerShell command in ``arguments`` write any file? (its index test needs more)

    A wildcard, a backtick or a concatenation can hide the index's name from a test
    on the bytes, so only a command that uses no writer at all is dismissed here.
    """
    command = json_string(arguments, b"command")
    plain = unescaped(command) if command is not None else None
    if plain is None:
        return True
    from engramory.guard import pwsh  # noqa: PLC0415 - small, and only for PowerShell

    return pwsh.command_may_write(plain.decode("utf-8", "replace"))


def _raw_arguments(raw: bytes) -> "bytes | None":
    """The raw bytes that hold the tool's arguments: a string ``toolArgs`` unescaped, else ``raw``.

    ``None`` when a string ``toolArgs`` cannot be unescaped cheaply.
    """
    inner = json_string(raw, b"toolArgs")
    return raw if inner is None else unescaped(inner)


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    camel = json_string(raw, b"toolName")
    _answering[0] = CAMEL if camel is not None else CLAUDE_STYLE
    tool = camel if camel is not None else json_string(raw, b"tool_name")
    name = tool.decode("ascii", "replace") if tool is not None else ""
    kind = toolcall.WRITE if name in WRITE_TOOLS else toolcall.EDIT if name in EDIT_TOOLS else None
    arguments = _raw_arguments(raw)
    return fields.oversized_call(arguments or b"", kind, _PATH_KEYS, cwd_raw=raw)


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one preToolUse payload (already decoded from JSON), either dialect."""
    if not isinstance(payload, dict):
        return []
    camel = "toolName" in payload
    _answering[0] = CAMEL if camel else CLAUDE_STYLE
    tool = payload.get("toolName" if camel else "tool_name")
    arguments = _arguments(payload.get("toolArgs" if camel else "tool_input"))
    cwd = fields.payload_cwd(payload)
    if tool in PATCH_TOOLS or (tool in EDIT_TOOLS and _is_patch(arguments)):
        return [ToolCall(toolcall.PATCH, cwd=cwd, command=fields.patch_text(arguments))]
    if not isinstance(arguments, dict):
        return []
    if tool in SHELL_TOOLS:
        return [fields.shell_call(toolcall.SHELL, arguments, cwd)]
    if tool in POWERSHELL_TOOLS:
        return [fields.shell_call(toolcall.POWERSHELL, arguments, cwd)]
    path = fields.path(arguments, PATH_KEYS)
    action = arguments.get("command")  # str_replace_editor: create, str_replace, insert, view...
    if tool in WRITE_TOOLS or (tool in EDIT_TOOLS and action == "create"):
        return [ToolCall(toolcall.WRITE, path, cwd=cwd, content=fields.text(arguments, TEXT_KEYS))]
    if tool not in EDIT_TOOLS or action in ("view", "undo_edit"):
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    if action == "insert":
        return [_insert_call(arguments, path, cwd)]
    call = ToolCall(toolcall.EDIT, path, cwd=cwd)
    if action in (None, "str_replace"):
        old = fields.text(arguments, ("old_str", "old_string"))
        call.edits = [(old, fields.text(arguments, ("new_str", "new_string")), None)]
    return [call]  # another action: no prediction, a "not verified" nudge


def _insert_call(
    arguments: "dict[str, object]", path: "str | None", cwd: "str | None"
) -> "ToolCall":
    """``command: insert``: the file with ``new_str`` inserted after line ``insert_line``."""
    new = fields.text(arguments, ("new_str", "new_string"))
    line = arguments.get("insert_line", arguments.get("insertLine"))
    if isinstance(line, str) and line.strip().isdigit():
        line = int(line)
    if not isinstance(new, str) or not isinstance(line, int) or isinstance(line, bool):
        return ToolCall(toolcall.TRANSFORM, path, cwd=cwd)  # the tool rejects it: unverified
    if line < 0:
        return ToolCall(toolcall.TRANSFORM, path, cwd=cwd)
    return ToolCall(toolcall.TRANSFORM, path, cwd=cwd, transform=lambda t: inserted(t, line, new))


def inserted(text: str, line: int, new: str) -> str:
    """``text`` with ``new``'s lines after line ``line`` (clamped to the line count), as the
    str_replace_editor tool does it: the file and ``new`` split on newlines, joined again."""
    lines = text.split("\n")
    at = min(line, len(lines))
    return "\n".join(lines[:at] + new.split("\n") + lines[at:])


def _arguments(value: object) -> object:
    """A tool's arguments: a JSON string decoded when it holds an object, else as sent."""
    if not isinstance(value, str):
        return value
    from engramory.util import fastjson  # noqa: PLC0415 - the payload is being parsed anyway

    try:
        decoded = fastjson.loads(value)
    except (ValueError, RecursionError):
        return value
    return decoded if isinstance(decoded, dict) else value


def _is_patch(arguments: object) -> bool:
    """A Claude-style ``Edit`` that is really ``apply_patch``: no path, a V4A patch argument."""
    if isinstance(arguments, dict):
        if fields.path(arguments, PATH_KEYS) is not None:
            return False
        arguments = fields.patch_text(arguments)
    return isinstance(arguments, str) and arguments.lstrip().startswith(fields.PATCH_START)


def render(verdict: "Verdict", event: str) -> "tuple[str, int]":
    """What to print for a verdict (maybe nothing) and the exit code (always 0)."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind == decision.SILENT or (event == "post" and verdict.kind != decision.DENY):
        return "", 0
    claude_style = _answering[0] == CLAUDE_STYLE
    if event == "post":
        return render_after(verdict.message, claude_style), 0
    if verdict.kind != decision.DENY:
        if not claude_style:
            return "", 0
        context = {"hookEventName": "PreToolUse", "additionalContext": verdict.message}
        return fields.dumps({"hookSpecificOutput": context}), 0
    deny = {"permissionDecision": "deny", "permissionDecisionReason": verdict.message}
    output: dict[str, object] = dict(deny)
    if claude_style:
        output["hookSpecificOutput"] = {"hookEventName": "PreToolUse", **deny}
    return fields.dumps(output), 0


def render_after(message: str, claude_style: bool) -> str:
    """The answer after a call (postToolUse): ``additionalContext``, which Copilot hands the
    agent (in the Claude-style payload's ``hookSpecificOutput``); it cannot un-write."""
    if claude_style:
        context = {"hookEventName": "PostToolUse", "additionalContext": message}
        return fields.dumps({"hookSpecificOutput": context})
    return fields.dumps({"additionalContext": message})


# --- lifecycle hooks (``engramory sync hook --host copilot``) ----------------------------

LABEL = "GitHub Copilot"
# Copilot's lifecycle events (camelCase, as installed; PascalCase too) -> Claude Code's.
LIFECYCLE_EVENTS = {
    "sessionStart": "SessionStart",
    "userPromptSubmitted": "UserPromptSubmit",
    "preCompact": "PreCompact",
}
SESSION_KEYS = ("sessionId", "session_id")


def lifecycle_payload(payload: object, event: "str | None") -> object:
    """A sessionStart / userPromptSubmitted / preCompact payload as Claude Code's shape."""
    from engramory.dialects import lifecycle_io  # noqa: PLC0415 - not on the guard's path

    return lifecycle_io.claude_shape(payload, event, LIFECYCLE_EVENTS, SESSION_KEYS)


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A continuity reply as Copilot's hook output; always exit 0.

    Context is ``{"additionalContext": ...}`` (read at sessionStart). A warning
    or a held compaction is first a progress line the user sees, then the same
    ``additionalContext`` (ignored where Copilot reads no output).
    """
    from engramory.continuity import policy  # noqa: PLC0415 - not on the guard's path
    from engramory.dialects import lifecycle_io  # noqa: PLC0415

    if reply.kind == policy.QUIET:
        return "", 0
    text = reply.text
    if reply.kind == policy.BLOCK:
        text = lifecycle_io.observed_compaction(LABEL, text)
    context = fields.dumps({"additionalContext": text})
    if reply.kind == policy.CONTEXT:
        return context, 0
    return fields.dumps({"type": "progress", "message": text}) + "\n" + context, 0
