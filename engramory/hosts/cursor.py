"""Cursor as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.cursor`)."""

from __future__ import annotations

import os
import shlex

from engramory.dialects.cursor import AFTER_EDIT_EVENT, AFTER_SHELL_EVENT, LIFECYCLE_EVENTS
from engramory.hosts.base import (
    AFTER_TO_LOG,
    DENY_HOOK_UNVERIFIED,
    DOCUMENTED,
    FILE,
    IGNORE_WHILE_OURS,
    Host,
)
from engramory.wiring import hookwiring

# https://cursor.com/docs/agent/hooks: ``{"version": 1, "hooks": {event: [{"command",
# "matcher"}]}}``; exit 2 denies, any other failure lets the call through. Whether the matcher
# is a regex is undocumented, so each write tool gets its own handler with an exact name.
WRITE_TOOLS = ("Write", "StrReplace", "ApplyPatch")
CLAUDE_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")


class Cursor(Host):
    """Cursor: a flat hook file; one handler per write tool, one for the shell."""

    def hook_groups(
        self,
        python: str,
        guard: str,
        sync: str,
        store: str,
        mode: str,
        windows: bool | None = None,
    ) -> dict[str, object]:
        """The guard on each write tool (preToolUse) and on the shell
        (beforeShellExecution), the check after a write (afterFileEdit,
        afterShellExecution: a warning in Cursor's hook output), and the continuity
        hooks (sessionStart, beforeSubmitPrompt, preCompact), each a shell line (a
        PowerShell one on Windows). A failure (127: no interpreter) lets Cursor go on;
        only exit 2 stops."""

        on_windows = os.name == "nt" if windows is None else windows

        def line(argv: list[str]) -> str:
            return hookwiring.powershell_line(argv) if on_windows else shlex.join(argv)

        guard_line = line(self.guard_argv(python, guard, store))
        after_line = line([*self.guard_argv(python, guard, store), "--event", "post"])
        groups: dict[str, object] = {
            "preToolUse": [{"command": guard_line, "matcher": tool} for tool in WRITE_TOOLS],
            "beforeShellExecution": [{"command": guard_line}],
            AFTER_EDIT_EVENT: [{"command": after_line}],
            AFTER_SHELL_EVENT: [{"command": after_line}],
        }
        for own, event in LIFECYCLE_EVENTS.items():
            argv = hookwiring.sync_argv(python, sync, self.name, mode, store, event)
            groups[own] = [{"command": line(argv)}]
        return groups

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
        return {"hook_event_name": "beforeShellExecution", "command": command, "cwd": cwd}

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        if not install_hooks:
            return ()
        return (
            "Cursor does not document the fields of its Write tool's payload: the guard "
            "reads the known ones, so also run `engramory check` after an index edit.",
        )


HOST = Cursor(
    name="cursor",
    label="Cursor",
    rules=".cursor/rules/engramory.mdc",
    global_rules=None,
    rules_kind=FILE,
    frontmatter=("description: Engramory memory discipline (always on)", "alwaysApply: true"),
    reader_rules=".cursor/rules/engramory-recall.mdc",
    reader_frontmatter=(
        "description: Engramory read-only memory recall (always on)",
        "alwaysApply: true",
    ),
    skill=".cursor/skills/engramory",
    global_skill=None,
    verified=DOCUMENTED,
    enforcement="pre-write deny hook on an undocumented payload (preToolUse guard on Write, "
    "StrReplace and ApplyPatch; beforeShellExecution for the shell), plus `engramory "
    "check` after each index edit",
    hook_config=".cursor/hooks.json",
    hook_config_ignore=IGNORE_WHILE_OURS,
    hook_format=hookwiring.SCRIPT_FORMAT,
    cap_enforcement=DENY_HOOK_UNVERIFIED,
    after_write=AFTER_TO_LOG,
    edit_tools=("Write", "StrReplace"),
    lifecycle_hooks=tuple(LIFECYCLE_EVENTS),
    holds_compaction=False,
    runs_hooks_of=tuple(("claude", path) for path in CLAUDE_SETTINGS),
    double_guard_hint='or leave Cursor\'s "include third-party configs" setting off',
    notes=("Cursor's user-wide rules live in its settings, not in a file: no --global.",),
)
