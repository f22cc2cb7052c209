"""Qwen Code as ``engramory init`` and ``engramory hosts`` see it (its hook dialect, what
runs inside the hook, is :mod:`engramory.dialects.qwen`).

Sources (QwenLM/qwen-code; the notes: ../shared/research/qwen-hooks-2026-12.md):

- ``docs/users/features/hooks.md``: hooks live in the settings files, ``.qwen/settings.json``
  in the project and ``~/.qwen/settings.json`` for the user, under ``hooks`` in Claude Code's
  grouped shape (``{"PreToolUse": [{"matcher", "hooks": [{"type": "command", "command",
  "timeout", "statusMessage"}]}]}``). The matcher is a regular expression on the runtime
  tool id; ``timeout`` is in milliseconds (default 60000); a command hook is one shell line
  (no ``args``). Exit 0 with ``hookSpecificOutput.permissionDecision: "deny"`` blocks the
  call and returns the reason to the model; exit 2 blocks with stderr; any other code is a
  non-blocking error. ``disableAllHooks: true`` turns every hook off.
- ``docs/developers/tools/file-system.md`` and ``shell.md``: the tools ``write_file``,
  ``edit`` and ``run_shell_command`` and their arguments (see the dialect).
- ``QWEN.md`` is the context file Qwen Code loads (project, and ``~/.qwen/QWEN.md``).

Qwen Code's own managed auto-memory (``~/.qwen/projects/<sanitized git root>/memory/``) is
rebuilt by Qwen itself after each extraction; whether that background writer goes
through the hooks is not documented. The guard holds what the agent writes with its tools.
Not run against a real Qwen Code here: "documented", not verified.
"""

from __future__ import annotations

import os

from engramory.hosts.base import (
    AFTER_TO_AGENT,
    BLOCK,
    DENY_HOOK,
    DOCUMENTED,
    IGNORE_WHILE_OURS,
    Host,
)
from engramory.wiring import hookwiring

GUARD_MATCHER = "^(write_file|edit|run_shell_command)$"
TIMEOUT_MS = 10_000


def _handler(argv: list[str], status: str, windows: bool) -> dict[str, object]:
    """One command handler: a shell line that exits 0 whatever happens (a PowerShell one on
    Windows), so a missing interpreter never blocks a call; Qwen's timeout is in ms."""
    line = (
        hookwiring.powershell_line(argv, always_zero=True)
        if windows
        else hookwiring.never_failing_line(argv)
    )
    return {"type": "command", "command": line, "timeout": TIMEOUT_MS, "statusMessage": status}


def _guard_groups(argv: list[str], windows: bool) -> dict[str, hookwiring.Group]:
    """The guard before a call and the check after it, on Qwen's file and shell tools."""
    return {
        "PreToolUse": {
            "matcher": GUARD_MATCHER,
            "hooks": [_handler(argv, hookwiring.GUARD_STATUS, windows)],
        },
        "PostToolUse": {
            "matcher": GUARD_MATCHER,
            "hooks": [_handler([*argv, "--event", "post"], hookwiring.MEASURE_STATUS, windows)],
        },
    }


class Qwen(Host):
    """Qwen Code: Claude Code's settings form, with shell-line handlers and Qwen's tool ids."""

    def hook_groups(
        self,
        python: str,
        guard: str,
        sync: str,
        store: str,
        mode: str,
        windows: bool | None = None,
    ) -> dict[str, hookwiring.Group]:
        """The index guard (PreToolUse) and the check after a write (PostToolUse) on Qwen's
        file and shell tools, naming the store's index, and the continuity hooks
        (SessionStart, UserPromptSubmit, PreCompact)."""
        on_windows = os.name == "nt" if windows is None else windows
        groups = _guard_groups(self.guard_argv(python, guard, store), on_windows)
        argv = hookwiring.sync_argv(python, sync, self.name, mode, store)
        groups.update(
            hookwiring.lifecycle_groups(lambda status: _handler(argv, status, on_windows))
        )
        return groups

    def guard_only_groups(self, python: str, guard: str) -> dict[str, hookwiring.Group]:
        """``init qwen --global --guard-only``: the guard's two handlers, naming no index."""
        return _guard_groups(self.guard_argv(python, guard, None), os.name == "nt")

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
        return {
            "hook_event_name": "PreToolUse",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command, "is_background": False},
            "cwd": cwd,
        }

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        if not install_hooks:
            return ()
        return (
            "Qwen Code runs no hook while `disableAllHooks` is true in its settings; `/hooks` "
            "in a Qwen Code session lists the ones it loaded.",
        )


HOST = Qwen(
    name="qwen",
    label="Qwen Code",
    rules="QWEN.md",
    global_rules="~/.qwen/QWEN.md",
    rules_kind=BLOCK,
    skill=".qwen/skills/engramory",
    global_skill="~/.qwen/skills/engramory",
    verified=DOCUMENTED,
    enforcement="pre-write deny hook (PreToolUse guard on write_file, edit and "
    "run_shell_command in Qwen Code's settings) plus a PostToolUse check on the same tools",
    hook_config=".qwen/settings.json",
    global_hook_config="~/.qwen/settings.json",
    hook_config_ignore=IGNORE_WHILE_OURS,
    cap_enforcement=DENY_HOOK,
    after_write=AFTER_TO_AGENT,
    edit_tools=("write_file", "edit"),
    native_memory="managed auto-memory in ~/.qwen/projects/<git root>/memory/, which Qwen "
    "rebuilds itself (200 lines / 25,000 UTF-16 units, shortest lines kept first)",
    lifecycle_hooks=hookwiring.LIFECYCLE_EVENTS,
    holds_compaction=False,  # PreCompact documents no way to hold a compaction back
    guard_only=True,
    notes=(
        "The guard's deny names the index entries Qwen Code's own cut would not load.",
        "PreCompact cannot hold a compaction back: the continuity gate is a reminder.",
        "Documented from Qwen Code's hooks reference; not run against a real Qwen Code.",
    ),
)
