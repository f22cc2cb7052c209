"""Claude Code's hook dialect for the index guard (PreToolUse and PostToolUse).

Payload (Claude Code's hooks reference, https://code.claude.com/docs/en/hooks):
``tool_name`` and ``tool_input`` -- ``Write {file_path, content}``, ``Edit
{file_path, old_string, new_string, replace_all}``, legacy ``MultiEdit
{file_path, edits[]}`` and ``Bash {command}`` -- plus ``cwd``. Hosts that read
Claude's settings files send the same shape with small differences, which are
accepted too: Continue's ``Write`` names the path ``filepath``; a payload
without the new content cannot be predicted and is never denied.

Answers: a deny is exit 0 with ``hookSpecificOutput.permissionDecision:
"deny"`` and a reason; a nudge is the same object with ``additionalContext``
and no decision; silence is no output. Never ``allow`` (that would
auto-approve the call) and never ``ask``. After a tool ran (PostToolUse), an
index over its hard cap is answered ``{"decision": "block", "reason": ...}``,
which Claude Code feeds back to the agent.

The decisions are :mod:`engramory.guard.service`'s; this module only reads the
payload into :class:`~engramory.guard.service.ToolCall` values and writes the
verdict back. Speed: payloads that cannot concern the index are recognised on
the raw bytes (:func:`may_concern_index`) and dismissed before any JSON is
parsed; a payload over the service's ``PAYLOAD_LIMIT`` is not parsed: its
``file_path`` is found by a bounded scan (:func:`oversized_call`).
"""

from __future__ import annotations

import os

from engramory.guard import service
from engramory.guard.service import ToolCall
from engramory.hosts.rawjson import decoded, json_string

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:  # annotations only: a call dismissed early does not import the decision
    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict
    from engramory.hosts.base import Host

KINDS = {"Write": service.WRITE, "Edit": service.EDIT, "MultiEdit": service.MULTIEDIT}
SHELL_TOOL = "Bash"
_EDIT_KEYS = (b"file_path", b"filepath")


def may_concern_index(
    raw: bytes, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?

    A Bash call: only when the command may write something. An edit: when
    its ``file_path`` is the index (by name, or by identity when ``index`` or
    ``ENGRAMORY_INDEX_PATH`` names it). Anything that cannot be read cheaply
    (escapes, an unusual shape) is parsed in full.
    """
    tool = json_string(raw, b"tool_name")
    if tool == b"Bash":
        command = json_string(raw, b"command")
        return command is None or service.shell_may_write(command)
    if tool is None or tool not in (b"Write", b"Edit", b"MultiEdit"):
        return tool is None or b"\\" in tool
    for key in _EDIT_KEYS:
        value = json_string(raw, key)
        if value is None:
            continue
        path = decoded(value)
        if path is None:
            return True
        cwd = json_string(raw, b"cwd")
        cwd_text = decoded(cwd) if cwd is not None else os.getcwd()
        return cwd_text is None or service.is_index(path, cwd_text, environ, index)
    return True


def oversized_call(raw: bytes) -> ToolCall:
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = json_string(raw, b"tool_name")
    kind = KINDS.get(tool.decode("ascii", "replace")) if tool is not None else None
    if kind is None:
        return ToolCall(service.UNKNOWN)
    for key in _EDIT_KEYS:
        value = json_string(raw, key)
        path = decoded(value) if value is not None else None
        if path:
            cwd = json_string(raw, b"cwd")
            return ToolCall(kind, path, cwd=decoded(cwd) if cwd is not None else None)
    return ToolCall(kind)


def tool_calls(payload: object) -> list[ToolCall]:
    """The tool call in one PreToolUse payload (already decoded from JSON)."""
    if not isinstance(payload, dict):
        return []
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return []
    cwd = payload.get("cwd")
    cwd = cwd if isinstance(cwd, str) and cwd else None
    if tool == SHELL_TOOL:
        command = tool_input.get("command")
        return [
            ToolCall(service.SHELL, cwd=cwd, command=command if isinstance(command, str) else None)
        ]
    kind = KINDS.get(tool) if isinstance(tool, str) else None
    if kind is None:
        return [ToolCall(service.UNKNOWN, cwd=cwd)]
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not path:
        path = tool_input.get("filepath")  # Continue's Write
    call = ToolCall(kind, path if isinstance(path, str) and path else None, cwd=cwd)
    if kind == service.WRITE:
        content = tool_input.get("content")
        if content is None:
            content = tool_input.get("file_text")
        call.content = content if isinstance(content, str) else None
    elif kind == service.EDIT:
        call.edits = [_step(tool_input)]
    else:
        edits = tool_input.get("edits")
        if isinstance(edits, list):
            call.edits = [_step(edit) for edit in edits if isinstance(edit, dict)]
    return [call]


def _step(edit: dict[str, object]) -> tuple[object, object, object]:
    return edit.get("old_string"), edit.get("new_string"), edit.get("replace_all")


def render(verdict: Verdict, event: str) -> tuple[str, int]:
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


def _dumps(output: dict[str, object]) -> str:
    from engramory import fastjson  # noqa: PLC0415 - only when there is something to say

    return fastjson.dumps(output)


# --- lifecycle hooks (``engramory sync hook --host claude``) -------------------------------------


def lifecycle_output(reply: Reply) -> dict[str, object] | None:
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


def render_lifecycle(reply: Reply) -> tuple[str, int]:
    """A lifecycle reply as Claude Code's hook output and exit code ("" prints nothing)."""
    return dump_lifecycle(lifecycle_output(reply))


def dump_lifecycle(output: dict[str, object] | None) -> tuple[str, int]:
    """One hook output object as its JSON text; a hook always exits 0 (it fails open)."""
    import json  # noqa: PLC0415 - not on the guard's path

    return ("" if output is None else json.dumps(output)), 0


# --- Claude Code for the installer ------------------------------------------------------
# Built on demand by the registry: the hook above imports this module before every
# edit the agent makes and must not pay for the installer's imports (dataclasses...).


def host() -> Host:
    """Claude Code as ``engramory init`` and ``engramory hosts`` see it.

    Its hooks are the default form (exec-form handlers in its settings file):
    the index guard and the continuity hooks.
    """
    from engramory.hosts.base import (  # noqa: PLC0415
        BLOCK,
        DENY_HOOK,
        IGNORE_ALWAYS,
        VERIFIED,
        Host,
    )
    from engramory.install import hookwiring  # noqa: PLC0415

    return Host(
        name="claude",
        label="Claude Code",
        rules="CLAUDE.md",
        global_rules="~/.claude/CLAUDE.md",
        rules_kind=BLOCK,
        skill=".claude/skills/engramory",
        global_skill="~/.claude/skills/engramory",
        verified=VERIFIED,
        enforcement="pre-write deny hook (PreToolUse guard on Write|Edit|MultiEdit|Bash) "
        "plus a PostToolUse size check",
        hook_config=".claude/settings.local.json",
        global_hook_config="~/.claude/settings.json",
        hook_config_ignore=IGNORE_ALWAYS,
        cap_enforcement=DENY_HOOK,
        lifecycle_hooks=hookwiring.LIFECYCLE_EVENTS,
        native_memory="auto-memory in ~/.claude/projects/<project>/memory/ (plain files)",
        store_may_be_native=True,
    )
