"""Cursor: its preToolUse / beforeShellExecution hook dialect for the index guard, and the host
for the installer."""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from engramory.hosts.base import Host


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)


# --- Cursor for the installer ---
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).

# https://cursor.com/docs/agent/hooks: ``{"version": 1, "hooks": {event: [{"command",
# "matcher"}]}}``; exit 2 denies, any other failure lets the call through. Whether the matcher
# is a regex is undocumented, so each write tool gets its own handler with an exact name.
WRITE_TOOLS = ("Write", "StrReplace", "ApplyPatch")
CLAUDE_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")


def host() -> Host:
    """Cursor as ``engramory init`` and ``engramory hosts`` see it: a preToolUse guard per
    write tool and a beforeShellExecution one, on payloads whose write fields are undocumented."""
    import os  # noqa: PLC0415
    import shlex  # noqa: PLC0415

    from engramory.hosts.base import (  # noqa: PLC0415
        DENY_HOOK_UNVERIFIED,
        DOCUMENTED,
        FILE,
        IGNORE_WHILE_OURS,
        Host,
    )
    from engramory.install import hookwiring  # noqa: PLC0415

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
            (beforeShellExecution), as a shell line (a PowerShell one on Windows)."""
            argv = self.guard_argv(python, guard, store)
            on_windows = os.name == "nt" if windows is None else windows
            line = hookwiring.powershell_line(argv) if on_windows else shlex.join(argv)
            return {
                "preToolUse": [{"command": line, "matcher": tool} for tool in WRITE_TOOLS],
                "beforeShellExecution": [{"command": line}],
            }

        def guard_argv(self, python: str, guard: str, store: str) -> list[str]:
            return hookwiring.guard_argv(python, guard, store, self.name)

        def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
            return {"hook_event_name": "beforeShellExecution", "command": command, "cwd": cwd}

        def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
            if not install_hooks:
                return ()
            return (
                "Cursor does not document the fields of its Write tool's payload: the guard "
                "reads the known ones, so also run `engramory check` after an index edit.",
            )

    return Cursor(
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
        edit_tools=("Write", "StrReplace"),
        runs_hooks_of=tuple(("claude", path) for path in CLAUDE_SETTINGS),
        double_guard_hint='or leave Cursor\'s "include third-party configs" setting off',
        notes=("Cursor's user-wide rules live in its settings, not in a file: no --global.",),
    )
