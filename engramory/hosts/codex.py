"""Codex CLI as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.codex`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from engramory.hosts.base import (
    AFTER_TO_AGENT,
    BLOCK,
    DENY_HOOK,
    IGNORE_WHILE_OURS,
    VERIFIED,
    Host,
)
from engramory.wiring import hookwiring

if TYPE_CHECKING:
    from engramory.wiring.hookconfig import Document


# https://developers.openai.com/codex/hooks: the matcher is a regex on the tool name; file
# edits go through apply_patch, shell commands through Bash.
GUARD_MATCHER = "^(apply_patch|Bash)$"


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


HOST = Codex(
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
