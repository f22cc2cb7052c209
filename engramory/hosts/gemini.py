"""Gemini CLI as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.gemini`)."""

from __future__ import annotations

import os

from engramory.dialects.gemini import LIFECYCLE_EVENTS
from engramory.hosts.base import (
    AFTER_TO_AGENT,
    BLOCK,
    DENY_HOOK,
    DOCUMENTED,
    IGNORE_WHILE_OURS,
    Host,
)
from engramory.wiring import hookwiring

# https://geminicli.com/docs/hooks/ and google-gemini/gemini-cli schemas/settings.schema.json:
# the matcher is an UNANCHORED regex (``new RegExp(m).test(name)``), the timeout is in
# milliseconds, and a hook that exits 2 or 127 (a missing interpreter) blocks the tool call.
GUARD_MATCHER = "^(write_file|replace|run_shell_command)$"
TIMEOUT_MS = 10_000
AFTER_DESCRIPTION = (
    "Engramory check after a write: tells the agent when the memory index is over its hard cap "
    "or a memory note now holds a secret"
)
GUARD_DESCRIPTION = (
    "Engramory index guard: denies an edit that would grow the memory index (MEMORY.md) past "
    "its hard cap, and a shell command that writes it"
)
CONTINUITY_DESCRIPTION = (
    "Engramory continuity reminders: where the memory index is, and whether work is unsynced"
)


class Gemini(Host):
    """Gemini CLI: one named BeforeTool handler that can never block by accident."""

    def hook_groups(
        self,
        python: str,
        guard: str,
        sync: str,
        store: str,
        mode: str,
        windows: bool | None = None,
    ) -> dict[str, hookwiring.Group]:
        """The index guard on Gemini's file and shell tools, and the continuity hooks
        (SessionStart, BeforeAgent, PreCompress), each a shell line that exits 0
        whatever happens (a PowerShell one on Windows): a BeforeAgent hook that exits 2
        would discard the user's prompt."""

        on_windows = os.name == "nt" if windows is None else windows

        def line(argv: list[str]) -> str:
            if on_windows:
                return hookwiring.powershell_line(argv, always_zero=True)
            return hookwiring.never_failing_line(argv)

        handler = {
            "type": "command",
            "name": hookwiring.GUARD_NAME,
            "command": line(self.guard_argv(python, guard, store)),
            "timeout": TIMEOUT_MS,
            "description": GUARD_DESCRIPTION,
        }
        after = {
            **handler,
            "command": line([*self.guard_argv(python, guard, store), "--event", "post"]),
            "description": AFTER_DESCRIPTION,
        }
        groups: dict[str, hookwiring.Group] = {
            "BeforeTool": {"matcher": GUARD_MATCHER, "hooks": [handler]},
            "AfterTool": {"matcher": GUARD_MATCHER, "hooks": [after]},
        }
        for own, event in LIFECYCLE_EVENTS.items():
            argv = hookwiring.sync_argv(python, sync, self.name, mode, store, event)
            continuity = {
                "type": "command",
                "name": hookwiring.CONTINUITY_NAME,
                "command": line(argv),
                "timeout": TIMEOUT_MS,
                "description": CONTINUITY_DESCRIPTION,
            }
            groups[own] = {"hooks": [continuity]}
        return groups

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
        return {
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
            "cwd": cwd,
        }

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        if not install_hooks:
            return ()
        return (
            "Gemini CLI skips the hooks of a settings file in a folder you have not "
            "trusted: trust this folder when Gemini asks (or with /permissions), or the "
            "guard does not run.",
        )


HOST = Gemini(
    name="gemini",
    label="Gemini CLI",
    rules="GEMINI.md",
    global_rules="~/.gemini/GEMINI.md",
    rules_kind=BLOCK,
    skill=".gemini/skills/engramory",
    global_skill="~/.gemini/skills/engramory",
    verified=DOCUMENTED,
    enforcement="pre-write deny hook (BeforeTool guard on write_file, replace and "
    "run_shell_command; Gemini CLI runs it only in trusted folders)",
    hook_config=".gemini/settings.json",
    global_hook_config="~/.gemini/settings.json",
    hook_config_ignore=IGNORE_WHILE_OURS,
    hook_format=hookwiring.NAME_FORMAT,
    cap_enforcement=DENY_HOOK,
    after_write=AFTER_TO_AGENT,
    edit_tools=("write_file", "replace"),
    lifecycle_hooks=tuple(LIFECYCLE_EVENTS),
    holds_compaction=False,
    native_memory="the private project memory the CLI keeps under ~/.gemini/tmp/",
    notes=(
        "Gemini CLI's own memory (~/.gemini/tmp/<project slug>/memory/MEMORY.md) has no size "
        "cap: the host loads it whole, so the guard denies no write of it by size (a secret "
        "written into it is still denied).",
    ),
)
