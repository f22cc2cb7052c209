"""Gemini CLI: its BeforeTool hook dialect for the index guard, and the host for the installer."""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from engramory.hosts.base import Host


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)


# --- Gemini CLI for the installer ---
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).

# https://geminicli.com/docs/hooks/ and google-gemini/gemini-cli schemas/settings.schema.json:
# the matcher is an UNANCHORED regex (``new RegExp(m).test(name)``), the timeout is in
# milliseconds, and a hook that exits 2 or 127 (a missing interpreter) blocks the tool call.
GUARD_MATCHER = "^(write_file|replace|run_shell_command)$"
TIMEOUT_MS = 10_000
GUARD_DESCRIPTION = (
    "Engramory index guard: denies an edit that would grow the memory index (MEMORY.md) past "
    "its hard cap, and a shell command that writes it"
)


def host() -> Host:
    """Gemini CLI as ``engramory init`` and ``engramory hosts`` see it: a BeforeTool guard in
    its settings file (shared with the user's other settings), run only in trusted folders."""
    import os  # noqa: PLC0415

    from engramory.hosts.base import (  # noqa: PLC0415
        BLOCK,
        DENY_HOOK,
        DOCUMENTED,
        IGNORE_WHILE_OURS,
        Host,
    )
    from engramory.install import hookwiring  # noqa: PLC0415

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
            """The index guard on Gemini's file and shell tools, as a shell line that exits 0
            whatever happens (a PowerShell one on Windows)."""
            argv = self.guard_argv(python, guard, store)
            on_windows = os.name == "nt" if windows is None else windows
            if on_windows:
                command = hookwiring.powershell_line(argv, always_zero=True)
            else:
                command = hookwiring.never_failing_line(argv)
            handler = {
                "type": "command",
                "name": hookwiring.GUARD_NAME,
                "command": command,
                "timeout": TIMEOUT_MS,
                "description": GUARD_DESCRIPTION,
            }
            return {"BeforeTool": {"matcher": GUARD_MATCHER, "hooks": [handler]}}

        def guard_argv(self, python: str, guard: str, store: str) -> list[str]:
            return hookwiring.guard_argv(python, guard, store, self.name)

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

    return Gemini(
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
        edit_tools=("write_file", "replace"),
        native_memory="the private project memory the CLI keeps under ~/.gemini/tmp/",
    )
