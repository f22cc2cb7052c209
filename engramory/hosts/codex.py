"""Codex CLI: its PreToolUse hook dialect for the index guard, and the host for the installer.

Codex runs a hook's command through a login shell (``$SHELL -lc``), so its
hooks are one POSIX-quoted line each, plus a PowerShell line for
``commandWindows`` when installed on Windows (``cmd.exe /C`` would expand
``%VAR%`` and ``&`` in a plain one). Codex runs new or changed hooks only
after the user trusts them in ``/hooks``. Its ``hooks.json`` allows only
``hooks`` at the top level.
"""

from __future__ import annotations

import os

from engramory.guard import service
from engramory.guard.service import ToolCall
from engramory.hosts import fields
from engramory.hosts.rawjson import json_string

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict
    from engramory.hosts.base import Host
    from engramory.install.hookconfig import Document


# --- the guard dialect ------------------------------------------------------------------
# PreToolUse payload: session_id, turn_id, transcript_path, cwd, hook_event_name, model,
# permission_mode, tool_name, tool_use_id, tool_input. ``apply_patch`` carries the V4A patch
# in ``tool_input.command`` (paths relative to ``cwd``); ``Bash`` the command line. The answer
# is Claude Code's (:func:`engramory.hosts.claude.render`): Codex reads the same
# ``hookSpecificOutput`` and needs exit 0 (it reads exit 2 only with a non-empty stderr).

PATCH_TOOLS = frozenset({"apply_patch", "Edit", "Write"})  # Edit/Write: Codex's matcher aliases
SHELL_TOOLS = frozenset({"Bash", "shell", "exec_command"})
_PATCH_TOOLS = frozenset(name.encode() for name in PATCH_TOOLS)
_SHELL_TOOLS = frozenset(name.encode() for name in SHELL_TOOLS)


def may_concern_index(
    raw: bytes, environ: dict[str, str] | os._Environ[str], index: str | None = None
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


def render(verdict: Verdict, event: str) -> tuple[str, int]:
    """Claude Code's answer (:func:`engramory.hosts.claude.render`), imported only to answer."""
    from engramory.hosts import claude  # noqa: PLC0415 - not needed to dismiss a call

    return claude.render(verdict, event)


def oversized_call(raw: bytes) -> ToolCall:
    """A payload too large to parse: a patch that big is judged by what it names."""
    return ToolCall(service.UNKNOWN)


def tool_calls(payload: object) -> list[ToolCall]:
    """The tool call in one PreToolUse payload (already decoded from JSON)."""
    request = fields.tool_request(payload)
    if request is None:
        return []
    tool, tool_input, cwd = request
    command = tool_input.get("command", tool_input.get("cmd"))
    if tool in SHELL_TOOLS:
        return [ToolCall(service.SHELL, cwd=cwd, command=_command_line(command))]
    if tool in PATCH_TOOLS:
        patch = command if isinstance(command, str) else tool_input.get("input")
        return [ToolCall(service.PATCH, cwd=cwd, command=patch if isinstance(patch, str) else None)]
    return [ToolCall(service.UNKNOWN, cwd=cwd)]


def _command_line(command: object) -> str | None:
    """A shell call's command line: a string, or an argv list (``["bash", "-lc", script]``)."""
    if isinstance(command, str):
        return command
    if not isinstance(command, list) or not all(isinstance(word, str) for word in command):
        return None
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


def render_lifecycle(reply: Reply) -> tuple[str, int]:
    """A lifecycle reply as Codex's hook output and exit code ("" prints nothing).

    Codex reads Claude Code's shapes for context and warnings, but holds a
    compaction back with ``{"continue": false, "stopReason": ...}``.
    """
    from engramory.continuity import policy  # noqa: PLC0415
    from engramory.hosts import claude  # noqa: PLC0415

    if reply.kind == policy.BLOCK:
        return claude.dump_lifecycle({"continue": False, "stopReason": reply.text})
    return claude.render_lifecycle(reply)


# --- Codex CLI for the installer ---------------------------------------------------------
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).

# https://developers.openai.com/codex/hooks: the matcher is a regex on the tool name; file
# edits go through apply_patch, shell commands through Bash.
GUARD_MATCHER = "^(apply_patch|Bash)$"


def host() -> Host:
    """Codex CLI as ``engramory init`` and ``engramory hosts`` see it: login-shell hooks, a
    trust step, a strict ``hooks.json`` schema."""
    import os  # noqa: PLC0415

    from engramory.hosts.base import (  # noqa: PLC0415
        AFTER_TO_AGENT,
        BLOCK,
        DENY_HOOK,
        IGNORE_WHILE_OURS,
        VERIFIED,
        Host,
    )
    from engramory.install import hookwiring  # noqa: PLC0415

    class Codex(Host):
        """Codex CLI: login-shell hooks, a trust step, a strict ``hooks.json`` schema."""

        def hook_groups(
            self,
            python: str,
            guard: str,
            sync: str,
            store: str,
            mode: str,
            windows: bool | None = None,
        ) -> dict[str, hookwiring.Group]:
            """The index guard (PreToolUse on apply_patch and Bash), the check after those
            calls (PostToolUse: ``decision: block`` feeds what to undo back to the agent) and
            the continuity hooks, as login-shell command lines."""
            on_windows = os.name == "nt" if windows is None else windows
            guard_argv = self.guard_argv(python, guard, store)
            groups: dict[str, hookwiring.Group] = {
                "PreToolUse": {
                    "matcher": GUARD_MATCHER,
                    "hooks": [
                        hookwiring.shell_handler(guard_argv, hookwiring.GUARD_STATUS, on_windows)
                    ],
                },
                "PostToolUse": {
                    "matcher": GUARD_MATCHER,
                    "hooks": [
                        hookwiring.shell_handler(
                            [*guard_argv, "--event", "post"], hookwiring.MEASURE_STATUS, on_windows
                        )
                    ],
                },
            }
            argv = [python, "-I", "-S", *hookwiring.sync_args(sync, self.name, mode, store)]
            groups.update(
                hookwiring.lifecycle_groups(
                    lambda status: hookwiring.shell_handler(argv, status, on_windows)
                )
            )
            return groups

        def clean_hook_config(self, document: Document) -> None:
            """Codex allows only ``hooks`` at the top: drop the earlier installer's note."""
            document.drop_key("description")

        def hooks_trust_note(self) -> str:
            return "Codex runs them only after you trust them in /hooks."

        def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
            if not install_hooks:
                return ()
            return (
                "the hooks are NOT active until you review and trust them in Codex's /hooks "
                "(re-running init changes them and asks for trust again).",
            )

    return Codex(
        name="codex",
        label="Codex CLI",
        rules="AGENTS.md",
        global_rules="$CODEX_HOME/AGENTS.md",
        rules_kind=BLOCK,
        candidates=("AGENTS.override.md", "AGENTS.md"),
        skill=".agents/skills/engramory",
        global_skill="~/.agents/skills/engramory",
        verified=VERIFIED,
        enforcement="pre-write deny hook (PreToolUse guard on apply_patch and Bash, active once "
        "trusted in /hooks); rules plus `engramory check` where Codex sends no hook (e.g. a "
        "function-call apply_patch)",
        hook_config=".codex/hooks.json",
        global_hook_config="$CODEX_HOME/hooks.json",
        hook_config_ignore=IGNORE_WHILE_OURS,
        cap_enforcement=DENY_HOOK,
        after_write=AFTER_TO_AGENT,
        edit_tools=("apply_patch",),
        lifecycle_hooks=hookwiring.LIFECYCLE_EVENTS,
        native_memory="Codex Memories, which Codex generates and manages",
    )
