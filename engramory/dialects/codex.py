"""Codex CLI: its PreToolUse hook dialect for the index guard (install: engramory.hosts.codex).

Codex runs a hook's command through a login shell (``$SHELL -lc``), so its
hooks are one POSIX-quoted line each, plus a PowerShell line for
``commandWindows`` when installed on Windows (``cmd.exe /C`` would expand
``%VAR%`` and ``&`` in a plain one). Codex runs new or changed hooks only
after the user trusts them in ``/hooks``. Its ``hooks.json`` allows only
``hooks`` at the top level.
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
# PreToolUse payload: session_id, turn_id, transcript_path, cwd, hook_event_name, model,
# permission_mode, tool_name, tool_use_id, tool_input. ``apply_patch`` carries the V4A patch
# in ``tool_input.command`` (paths relative to ``cwd``); ``Bash`` the command line. The answer
# is Claude Code's (:func:`engramory.dialects.claude.render`): Codex reads the same
# ``hookSpecificOutput`` and needs exit 0 (it reads exit 2 only with a non-empty stderr).

PATCH_TOOLS = frozenset({"apply_patch", "Edit", "Write"})  # Edit/Write: Codex's matcher aliases
SHELL_TOOLS = frozenset({"Bash", "shell", "exec_command"})
_PATCH_TOOLS = frozenset(name.encode() for name in PATCH_TOOLS)
_SHELL_TOOLS = frozenset(name.encode() for name in SHELL_TOOLS)


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?

    A shell call: when the command may write something and its text could concern a store
    (:mod:`engramory.guard.shellgate`). A patch: when a file
    it adds, updates or moves to may be the index.
    """
    tool = json_string(raw, b"tool_name")
    if tool is None or b"\\" in tool:
        return True
    if tool in _SHELL_TOOLS:
        return fields.command_may_concern(raw, json_string(raw, b"command"), environ, index)
    if tool not in _PATCH_TOOLS:
        return False
    return fields.patch_may_touch_index(raw, environ, index)


def render(verdict: "Verdict", event: str) -> "tuple[str, int]":
    """Claude Code's answer (:func:`engramory.dialects.claude.render`), imported only to answer."""
    from engramory.dialects import claude  # noqa: PLC0415 - not needed to dismiss a call

    return claude.render(verdict, event)


def oversized_call(raw: bytes) -> "ToolCall":
    """A payload too large to parse: a patch that big is judged by what it names."""
    return ToolCall(toolcall.UNKNOWN)


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one PreToolUse payload (already decoded from JSON)."""
    request = fields.tool_request(payload)
    if request is None:
        return []
    tool, tool_input, cwd = request
    command = tool_input.get("command", tool_input.get("cmd"))
    if tool in SHELL_TOOLS:
        return [ToolCall(toolcall.SHELL, cwd=cwd, command=_command_line(command))]
    if tool in PATCH_TOOLS:
        patch = command if isinstance(command, str) else tool_input.get("input")
        return [
            ToolCall(toolcall.PATCH, cwd=cwd, command=patch if isinstance(patch, str) else None)
        ]
    return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]


def _command_line(command: object) -> "str | None":
    """A shell call's command line: a string, or an argv list (``["bash", "-lc", script]``)."""
    if isinstance(command, str):
        return command
    if not isinstance(command, list) or not all(isinstance(word, str) for word in command):
        return None
    import os  # noqa: PLC0415 - not on the path of a dismissed call

    if (
        len(command) == 3
        and command[1] in ("-c", "-lc")
        and os.path.basename(command[0])
        in (
            "bash",
            "sh",
            "zsh",
        )
    ):
        return command[2]
    import shlex  # noqa: PLC0415 - an argv list is rare

    return shlex.join(command)


# --- lifecycle hooks (``engramory sync hook --host codex``) ------------------------------


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A lifecycle reply as Codex's hook output and exit code ("" prints nothing).

    Codex reads Claude Code's shapes for context and warnings, but holds a
    compaction back with ``{"continue": false, "stopReason": ...}``.
    """
    from engramory.continuity import policy  # noqa: PLC0415
    from engramory.dialects import claude  # noqa: PLC0415

    if reply.kind == policy.BLOCK:
        return claude.dump_lifecycle({"continue": False, "stopReason": reply.text})
    return claude.render_lifecycle(reply)
