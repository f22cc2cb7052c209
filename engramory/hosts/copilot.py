"""GitHub Copilot (CLI, cloud agent): its preToolUse hook dialect for the index guard, and the
host for the installer."""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from engramory.hosts.base import Host


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)


# --- GitHub Copilot for the installer ---
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).

# https://docs.github.com/en/copilot/reference/hooks-configuration: a dedicated file under
# .github/hooks/, ``bash`` and ``powershell`` command lines, the timeout in seconds, the matcher
# anchored as ``^(?:P)$``; ANY non-zero exit blocks the tool call.
GUARD_MATCHER = "create|edit|apply_patch|bash|powershell"
CLAUDE_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")


def host() -> Host:
    """GitHub Copilot as ``engramory init`` and ``engramory hosts`` see it: a preToolUse guard
    in its own machine-local hook file, for the Copilot CLI (and VS Code's agent)."""
    import json  # noqa: PLC0415

    from engramory.hosts.base import (  # noqa: PLC0415
        DENY_HOOK,
        DOCUMENTED,
        FILE,
        IGNORE_ALWAYS,
        Host,
    )
    from engramory.install import hookwiring  # noqa: PLC0415

    class Copilot(Host):
        """GitHub Copilot: a flat hook file whose handlers must never exit non-zero."""

        def hook_groups(
            self, python: str, guard: str, sync: str, store: str, mode: str
        ) -> dict[str, object]:
            """One preToolUse handler: a bash and a PowerShell line that both exit 0."""
            argv = self.guard_argv(python, guard, store)
            handler = {
                "type": "command",
                "bash": hookwiring.never_failing_line(argv),
                "powershell": hookwiring.powershell_call(argv),
                "timeoutSec": hookwiring.TIMEOUT,
                "matcher": GUARD_MATCHER,
            }
            return {"preToolUse": [handler]}

        def guard_argv(self, python: str, guard: str, store: str) -> list[str]:
            return hookwiring.guard_argv(python, guard, store, self.name)

        def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
            return {"toolName": "bash", "toolArgs": json.dumps({"command": command}), "cwd": cwd}

        def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
            if not install_hooks:
                return ()
            return (
                "the guard in .github/hooks/engramory.json runs in the Copilot CLI (and VS "
                "Code's agent) on this machine: it names absolute paths and is git-ignored. "
                "The cloud agent reads only hooks committed on the default branch; it needs a "
                "committed hook with paths valid on its runner, which this does not provide.",
            )

    return Copilot(
        name="copilot",
        label="GitHub Copilot",
        rules=".github/instructions/engramory.instructions.md",
        global_rules=None,
        rules_kind=FILE,
        frontmatter=('applyTo: "**"',),
        reader_rules=".github/instructions/engramory-recall.instructions.md",
        reader_frontmatter=('applyTo: "**"',),
        skill=".github/skills/engramory",
        global_skill=None,
        verified=DOCUMENTED,
        enforcement="pre-write deny hook (preToolUse guard on create, edit, apply_patch, bash "
        "and powershell) in the Copilot CLI on this machine; rules plus `engramory check` in "
        "the cloud agent",
        hook_config=".github/hooks/engramory.json",
        hook_config_ignore=IGNORE_ALWAYS,
        hook_format=hookwiring.SCRIPT_FORMAT,
        cap_enforcement=DENY_HOOK,
        edit_tools=("create", "edit"),
        runs_hooks_of=(
            *(("claude", path) for path in CLAUDE_SETTINGS),
            ("claude", "~/.claude/settings.json"),  # VS Code's agent reads the user's too
        ),
        notes=("Copilot's instruction files are per repository: no --global.",),
    )
