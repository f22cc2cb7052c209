"""GitHub Copilot as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.copilot`)."""

from __future__ import annotations

import json

from engramory.dialects.copilot import LIFECYCLE_EVENTS
from engramory.hosts.base import (
    AFTER_TO_AGENT,
    DENY_HOOK,
    DOCUMENTED,
    FILE,
    IGNORE_ALWAYS,
    Host,
)
from engramory.wiring import hookwiring

# https://docs.github.com/en/copilot/reference/hooks-configuration: a dedicated file under
# .github/hooks/, ``bash`` and ``powershell`` command lines, the timeout in seconds, the matcher
# anchored as ``^(?:P)$``; ANY non-zero exit blocks the tool call.
GUARD_MATCHER = "create|edit|apply_patch|bash|powershell"
CLAUDE_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")


class Copilot(Host):
    """GitHub Copilot: a flat hook file whose handlers must never exit non-zero."""

    def hook_groups(
        self, python: str, guard: str, sync: str, store: str, mode: str
    ) -> dict[str, object]:
        """One preToolUse handler, one postToolUse handler (the check after a write), and
        one per continuity event: each a bash and a PowerShell line that both exit 0."""

        def handler(argv: list[str]) -> dict[str, object]:
            return {
                "type": "command",
                "bash": hookwiring.never_failing_line(argv),
                "powershell": hookwiring.powershell_call(argv),
                "timeoutSec": hookwiring.TIMEOUT,
            }

        guard_handler = handler(self.guard_argv(python, guard, store))
        after_handler = handler([*self.guard_argv(python, guard, store), "--event", "post"])
        groups: dict[str, object] = {
            "preToolUse": [{**guard_handler, "matcher": GUARD_MATCHER}],
            "postToolUse": [{**after_handler, "matcher": GUARD_MATCHER}],
        }
        for own, event in LIFECYCLE_EVENTS.items():
            argv = hookwiring.sync_argv(python, sync, self.name, mode, store, event)
            groups[own] = [handler(argv)]
        return groups

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


HOST = Copilot(
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
    after_write=AFTER_TO_AGENT,
    edit_tools=("create", "edit"),
    lifecycle_hooks=tuple(LIFECYCLE_EVENTS),
    holds_compaction=False,
    runs_hooks_of=(
        *(("claude", path) for path in CLAUDE_SETTINGS),
        ("claude", "~/.claude/settings.json"),  # VS Code's agent reads the user's too
    ),
    notes=("Copilot's instruction files are per repository: no --global.",),
)
