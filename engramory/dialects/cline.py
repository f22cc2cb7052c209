"""Cline: its PreToolUse file-hook dialect for the index guard and its lifecycle replies (its
install spec: :mod:`engramory.hosts.cline`).

Payload (VS Code extension): ``{clineVersion, hookName, timestamp, taskId,
workspaceRoots, userId, model, preToolUse: {toolName, parameters}}`` where
every parameter value is a STRING (``insert_line`` is ``"3"``, a list is its
JSON text). The CLI/SDK also sends ``tool_call: {id, name, input}``, whose
input may hold real JSON values. Paths are relative to ``workspaceRoots[0]``.

Tools (Cline >= 4.0): ``editor {path, old_text, new_text, insert_line}``,
``apply_patch {input}`` (a V4A patch, for GPT/Codex models) and ``run_commands
{commands}`` (a list, maybe as JSON text: each command is a shell call). The
legacy tools ``write_to_file {path, content}`` and ``execute_command
{command}`` are read too; ``replace_in_file {path, diff}`` (fuzzy
SEARCH/REPLACE blocks) is not simulated: a "not verified" nudge.

``editor``: with ``insert_line`` it inserts ``new_text`` at that line; with a
non-empty ``old_text`` it replaces it by ``new_text``; without ``old_text`` it
creates the file. Which line ``insert_line`` counts from is not settled, but an
insertion leaves the same number of lines and bytes wherever it lands, so the
guard measures it exactly by appending. Without ``old_text`` on a file that
exists, Cline's result is not documented (overwrite or failure): the guard
takes the worst case, the index growing by the whole ``new_text``.

Answers: a deny is ``{"cancel": true, "errorMessage": ...}`` (Cline ignores
the exit code: always 0); a nudge is ``{"cancel": false,
"contextModification": ...}`` (added to the conversation for the agent's next
step); silence prints nothing. After a call (the ``PostToolUse`` hook file, payload
``postToolUse: {toolName, parameters, result}``), what to undo is a
``contextModification``.
"""

from engramory.dialects import fields
from engramory.dialects.rawjson import (
    first_string,
    json_string,
    json_string_start,
    json_strings,
    string_list,
    unescaped,
)
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os

    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)

EDITOR_TOOL = "editor"
WRITE_TOOL = "write_to_file"
REPLACE_TOOL = "replace_in_file"
PATCH_TOOL = "apply_patch"
COMMANDS_TOOL = "run_commands"
COMMAND_TOOL = "execute_command"
_FILE_TOOLS = (EDITOR_TOOL.encode(), WRITE_TOOL.encode(), REPLACE_TOOL.encode())
_SHELL_TOOLS = (COMMANDS_TOOL.encode(), COMMAND_TOOL.encode())
_PATH_KEYS = (b"path",)


def _raw_tool(raw: bytes) -> "bytes | None":
    """The tool's name off the raw bytes: ``preToolUse.toolName``, else ``tool_call.name``."""
    tool = json_string(raw, b"toolName")
    if tool is None and b'"tool_call"' in raw:
        tool = json_string(raw[raw.find(b'"tool_call"') :], b"name")
    return tool


def _cwd_raw(raw: bytes) -> bytes:
    """A ``"cwd"`` member for :mod:`~engramory.dialects.fields`: the first of ``workspaceRoots``."""
    root = first_string(raw, b"workspaceRoots")
    if root is None:
        return raw if b'"cwd"' in raw else b'"workspace_roots": null'
    return b'"cwd": "' + root + b'"'


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    tool = _raw_tool(raw)
    if tool is None or b"\\" in tool:
        return True
    if tool in _SHELL_TOOLS:
        return _commands_may_concern(raw, environ, index)
    if tool in _FILE_TOOLS:
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index, _cwd_raw(raw))
    if tool == PATCH_TOOL.encode():
        return fields.patch_may_touch_index(raw, environ, index, _cwd_raw(raw))
    return False


def _commands_may_concern(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None"
) -> bool:
    """Could a shell tool's command(s) concern a store? Each must pass the gate before the
    shell parser (:func:`~engramory.dialects.fields.command_may_concern`), as Claude Code's
    command does.

    The commands are read as :func:`_commands` reads them: ``commands`` (a JSON list of
    strings carried as a string, else one command), else ``command``. The payload is parsed
    whenever that cannot be told off the raw bytes for sure: both keys or either twice, a value
    that is not a string (the SDK's real list), a list that is not plainly strings, a ``\\u``
    escape, a working directory that is not one plain root.
    """
    commands, command = json_strings(raw, b"commands"), json_strings(raw, b"command")
    values = commands + command
    cwd_raw = _shell_cwd_raw(raw)
    if len(values) != 1 or values[0] is None or cwd_raw is None:
        return True
    value = values[0]
    if commands:
        text = unescaped(value)
        if text is None:
            return True
        if text.decode("utf-8", "replace").lstrip().startswith("["):  # as _commands tests it
            listed = string_list(text)
            if listed is None or not all(_plain_json(item) for item in listed):
                return True  # the parser may read it otherwise: it decides
            return any(fields.command_may_concern(cwd_raw, c, environ, index) for c in listed)
    return fields.command_may_concern(cwd_raw, value, environ, index)


def _plain_json(item: bytes) -> bool:
    """Whether ``item`` is the contents of a string strict JSON reads: no control character,
    only valid escapes (a ``\\u`` one is kept: the gate parses what holds one)."""
    if len(item.translate(None, _CONTROLS)) != len(item):
        return False
    rest = item.replace(b"\\\\", b"")
    at = rest.find(b"\\")
    while at >= 0:
        if rest[at + 1 : at + 2] not in _ESCAPED:
            return False
        at = rest.find(b"\\", at + 2)
    return True


_CONTROLS = bytes(range(32))
_ESCAPED = frozenset(bytes([c]) for c in b'"/bfnrtu')


def _shell_cwd_raw(raw: bytes) -> "bytes | None":
    """A ``"cwd"`` member holding the folder a shell call runs in, as :func:`_request` finds it
    (the first of one ``workspaceRoots``, else the payload's own ``cwd``); ``None``: parse."""
    at = json_string_start(raw, b"workspaceRoots")
    if at < 0:
        return raw
    root = first_string(raw, b"workspaceRoots")
    if not root or json_string_start(raw, b"workspaceRoots", at) >= 0:
        return None
    return b'"cwd": "' + root + b'"'


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = _raw_tool(raw) or b""
    kind = {
        EDITOR_TOOL.encode(): toolcall.WRITE,
        WRITE_TOOL.encode(): toolcall.WRITE,
        REPLACE_TOOL.encode(): toolcall.EDIT,
    }.get(tool)
    return fields.oversized_call(raw, kind, _PATH_KEYS, cwd_raw=_cwd_raw(raw))


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call(s) in one PreToolUse payload (already decoded from JSON)."""
    request = _request(payload)
    if request is None:
        return []
    tool, params, cwd = request
    if tool in (COMMANDS_TOOL, COMMAND_TOOL):
        return [ToolCall(toolcall.SHELL, cwd=cwd, command=c) for c in _commands(params)]
    if tool == PATCH_TOOL:
        patch = fields.patch_text(params.get("input", params))
        return [ToolCall(toolcall.PATCH, cwd=cwd, command=patch)]
    path = fields.path(params, ("path",))
    if tool == WRITE_TOOL:
        return [ToolCall(toolcall.WRITE, path, cwd=cwd, content=fields.text(params, ("content",)))]
    if tool == REPLACE_TOOL:
        return [ToolCall(toolcall.EDIT, path, cwd=cwd)]  # fuzzy blocks: not verified
    if tool == EDITOR_TOOL and path is not None:
        return [_editor_call(params, path, cwd)]
    return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]


def after_calls(payload: object) -> "list[ToolCall]":
    """The tool call(s) a PostToolUse payload reports (``postToolUse: {toolName, parameters,
    result, ...}``), read as :func:`tool_calls` reads a PreToolUse one."""
    if isinstance(payload, dict) and isinstance(payload.get("postToolUse"), dict):
        payload = {**payload, "preToolUse": payload["postToolUse"]}
    return tool_calls(payload)


def _request(payload: object) -> "tuple[object, dict[str, object], str | None] | None":
    """``(tool, parameters, cwd)`` of either payload shape (``None``: not a tool call)."""
    if not isinstance(payload, dict):
        return None
    call = payload.get("preToolUse")
    keys = ("toolName", "parameters")
    if not isinstance(call, dict):
        call, keys = payload.get("tool_call"), ("name", "input")
        if not isinstance(call, dict):
            return None
    params = call.get(keys[1])
    if isinstance(params, str):
        params = _json(params)
    if not isinstance(params, dict):
        return None
    roots = payload.get("workspaceRoots")
    cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    return call.get(keys[0]), params, cwd or fields.payload_cwd(payload)


def _json(text: str) -> object:
    """``text`` decoded as JSON (``None`` when it is not JSON)."""
    from engramory.util import fastjson  # noqa: PLC0415 - the payload is being parsed anyway

    try:
        return fastjson.loads(text)
    except (ValueError, RecursionError):
        return None


def _commands(params: "dict[str, object]") -> "list[str | None]":
    """Each shell command of ``run_commands`` (a list, or its JSON text) or ``execute_command``."""
    value = params.get("commands", params.get("command"))
    if isinstance(value, str):
        decoded = _json(value) if value.lstrip().startswith("[") else None
        value = decoded if isinstance(decoded, list) else [value]
    if not isinstance(value, list):
        return [None]
    return [item if isinstance(item, str) else _command_of(item) for item in value] or [None]


def _command_of(item: object) -> "str | None":
    """A command given as an object (``{"command": ...}``), else ``None`` (not followed)."""
    if isinstance(item, dict):
        command = item.get("command")
        return command if isinstance(command, str) else None
    return None


def _editor_call(params: "dict[str, object]", path: str, cwd: "str | None") -> "ToolCall":
    """The ``editor`` call as the guard judges it: a replace, a creation or an insertion."""
    new = params.get("new_text")
    new_text = new if isinstance(new, str) else ""
    old = params.get("old_text")
    inserting = params.get("insert_line") not in (None, "")
    if not inserting and isinstance(old, str) and old:
        return ToolCall(toolcall.EDIT, path, cwd=cwd, edits=[(old, new_text, False)])
    import os  # noqa: PLC0415 - not on the path of a dismissed call

    target = os.path.join(cwd or os.getcwd(), os.path.expanduser(path))
    from engramory.guard import service  # noqa: PLC0415 - only for an edit that may matter
    from engramory.store.caps import caps_from  # noqa: PLC0415

    status, raw = service.read_index(target, caps_from(dict(os.environ)))
    if status == "unreadable":
        return ToolCall(toolcall.EDIT, path, cwd=cwd)  # cannot be predicted: not verified
    if raw is None and not inserting:
        return ToolCall(toolcall.WRITE, path, cwd=cwd, content=new_text)  # a new file
    from engramory.guard.edits import decode_index  # noqa: PLC0415

    current = decode_index(raw) if raw is not None else ""
    return ToolCall(toolcall.WRITE, path, cwd=cwd, content=inserted(current, new_text))


def inserted(current: str, new_text: str) -> str:
    """``current`` with ``new_text`` inserted as whole lines: the same size wherever it goes."""
    if not new_text:
        return current
    gap = "\n" if current and not current.endswith("\n") else ""
    end = "" if new_text.endswith("\n") else "\n"
    return current + gap + new_text + end


def render(verdict: "Verdict", event: str) -> "tuple[str, int]":
    """What to print for a verdict (maybe nothing) and the exit code (always 0)."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind == decision.SILENT or (event == "post" and verdict.kind != decision.DENY):
        return "", 0
    if event == "post":  # the call ran: what to undo goes into the agent's next step
        return fields.dumps({"cancel": False, "contextModification": verdict.message}), 0
    if verdict.kind == decision.DENY:
        return fields.dumps({"cancel": True, "errorMessage": verdict.message}), 0
    return fields.dumps({"cancel": False, "contextModification": verdict.message}), 0


# --- lifecycle hooks (``engramory sync hook --host cline``) ------------------------------
# TaskStart/TaskResume -> SessionStart, UserPromptSubmit, PreCompact. Cline's PreCompact only
# observes the compaction (it cannot hold it back), so a held compaction is a reminder.

EVENTS = {
    "TaskStart": "SessionStart",
    "TaskResume": "SessionStart",
    "UserPromptSubmit": "UserPromptSubmit",
    "PreCompact": "PreCompact",
}
SOURCES = {"TaskStart": "startup", "TaskResume": "resume"}


def lifecycle_payload(payload: object, event: "str | None") -> object:
    """A Cline hook event as Claude Code's shape: ``taskId`` is the session id."""
    if not isinstance(payload, dict):
        return payload
    hook = payload.get("hookName")
    name = event or (EVENTS.get(hook) if isinstance(hook, str) else None)
    prompt_data = payload.get("userPromptSubmit")
    prompt = prompt_data.get("prompt") if isinstance(prompt_data, dict) else None
    converted: dict[str, object] = {
        "session_id": payload.get("taskId"),
        "prompt": prompt if isinstance(prompt, str) else "",
        "trigger": "auto",  # Cline compacts on its own; no manual compaction it could hold
        "source": SOURCES.get(hook, "startup") if isinstance(hook, str) else "startup",
    }
    if name is not None:
        converted["hook_event_name"] = name
    return converted


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A lifecycle reply as Cline's hook output: every message is ``contextModification``.

    Cline shows a hook's output and adds ``contextModification`` to the
    conversation; its PreCompact cannot cancel, so a held compaction becomes a
    reminder (never ``cancel``: on UserPromptSubmit it would drop the user's prompt).
    """
    from engramory.continuity import policy  # noqa: PLC0415
    from engramory.dialects import claude  # noqa: PLC0415

    if reply.kind == policy.QUIET:
        return "", 0
    text = reply.text
    if reply.kind == policy.BLOCK:
        text = "Cline cannot hold this compaction back; do this now: " + text
    return claude.dump_lifecycle({"cancel": False, "contextModification": text})
