"""Hermes Agent as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.hermes`).

The guard runs before ``write_file``, ``patch`` and ``terminal`` (the index) and before
Hermes' own ``memory`` tool (an ``add`` or ``replace`` past ``MEMORY.md``'s or ``USER.md``'s
character cap: :mod:`engramory.dialects.hermesmemory`). ``init hermes --global
--guard-only`` registers the guard alone in ``config.yaml``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import TYPE_CHECKING

from engramory.dialects.hermes import LIFECYCLE_EVENT, MEMORY_TOOL, SESSION_EVENT, SHELL_TOOL
from engramory.hosts import hermes_config
from engramory.hosts.base import AFTER_TO_LOG, BLOCK, DENY_HOOK, DOCUMENTED, Host
from engramory.store.discovery import git_work_tree
from engramory.util import fsutil
from engramory.wiring import homes, hookwiring
from engramory.wiring.hookfiles import ConfigEdit

if TYPE_CHECKING:
    from pathlib import Path

    from engramory.wiring.hookfiles import HookContext, OwnedFile


PARENT_CONTEXT_FILES = (".hermes.md", "HERMES.md")
CONFIG = "$HERMES_HOME/config.yaml"
GUARD_MATCHER = "write_file|patch|terminal"  # Hermes fullmatches it against the tool name
PRE_MATCHER = f"{GUARD_MATCHER}|{MEMORY_TOOL}"  # before a call, its own memory tool too
TIMEOUT = 10  # seconds (Hermes: default 60, max 300)


def hook_entries(context: HookContext) -> dict[str, list[dict[str, object]]]:
    """The ``hooks:`` entries init adds: the guard and the continuity hooks (the guard alone
    for ``--guard-only``), naming no store (the file is user-wide: each call finds its store
    from Hermes' working directory)."""

    guard = hookwiring.guard_argv(context.python, context.guard, None, "hermes")
    sync = hookwiring.sync_argv(context.python, context.sync, "hermes", context.mode, None)
    start = hookwiring.sync_argv(
        context.python, context.sync, "hermes", context.mode, None, "SessionStart"
    )
    entries: dict[str, list[dict[str, object]]] = {
        "pre_tool_call": [
            {
                "matcher": PRE_MATCHER,
                "command": command_line(guard, context.windows),
                "timeout": TIMEOUT,
                "fail_closed": False,
            }
        ],
        "post_tool_call": [
            {
                "matcher": GUARD_MATCHER,
                "command": command_line([*guard, "--event", "post"], context.windows),
                "timeout": TIMEOUT,
            }
        ],
    }
    if not context.guard_only:
        entries[SESSION_EVENT] = [
            {"command": command_line(start, context.windows), "timeout": TIMEOUT}
        ]
        entries[LIFECYCLE_EVENT] = [
            {"command": command_line(sync, context.windows), "timeout": TIMEOUT}
        ]
    return entries


def command_line(argv: list[str], windows: bool) -> str:
    """One command line Hermes splits itself (no shell): POSIX quoting, or Windows'."""
    if windows:
        return subprocess.list2cmdline(argv)

    return shlex.join(argv)


def config_edit(path: Path, context: HookContext) -> ConfigEdit:
    """The edit of Hermes' ``config.yaml`` that adds (or takes out) Engramory's hooks."""

    entries = hook_entries(context)
    new_folder = not os.path.lexists(path.parent)  # then init creates ~/.hermes/ too
    guard = "the index guard (pre_tool_call), the check after a write (post_tool_call)"
    return ConfigEdit(
        path=path,
        what=guard
        if context.guard_only
        else f"{guard} and the continuity hooks (on_session_start, pre_llm_call)",
        install=lambda text: hermes_config.install(text, entries, new_folder),
        remove=hermes_config.remove,
        is_ours=hermes_config.is_ours,
        created_folder=hermes_config.created_folder,
    )


class Hermes(Host):
    """Hermes Agent: refuses a project whose context file is not the one init writes."""

    def missing_skill(self) -> str:
        return "Hermes loads skills only from ~/.hermes/skills: add --global"

    def project_refusal(self, root: Path, candidates: tuple[Path, ...]) -> str | None:
        """Refuse when Hermes would load some other file than the one init writes."""
        tree = git_work_tree(root) or root
        for parent in root.parents:
            if not fsutil.is_within(str(parent), str(tree)):
                break
            for name in PARENT_CONTEXT_FILES:
                if (parent / name).is_file():
                    return (
                        f"Hermes will load {parent / name} (a parent folder's context file "
                        "wins), so a block in this project would never be read: add the block "
                        "there by hand, or run init with --project-root pointing at that folder"
                    )
        if any(path.is_file() for path in candidates):
            return None
        if any((root / ".cursor" / "rules").glob("*.mdc")):
            return (
                "Hermes reads .cursor/rules/*.mdc here; creating AGENTS.md would take their "
                "place. Create the context file Hermes should load (e.g. AGENTS.md) yourself, "
                "then run init again"
            )
        return None

    def hook_artifacts(self, context: HookContext) -> list[OwnedFile | ConfigEdit]:
        """Hermes' user-wide ``config.yaml``, for a project install too."""
        return [config_edit(homes.expand(CONFIG), context)]

    def guard_argv(self, python: str, guard: str, store: str | None) -> list[str]:
        """The guard as registered: no ``--index`` (the file serves every project)."""
        return [python, "-I", "-S", guard, "--host", self.name]

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
        return {
            "hook_event_name": "pre_tool_call",
            "tool_name": SHELL_TOOL,
            "tool_input": {"command": command},
            "session_id": "",
            "cwd": cwd,
            "extra": {},
        }

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        if not install_hooks:
            return ()
        return (
            "Hermes asks once before it runs a new hook: approve each of the three when it "
            "asks. A "
            "non-interactive run skips them unless started with --accept-hooks or "
            "HERMES_ACCEPT_HOOKS=1 (or `hooks_auto_accept: true` in config.yaml).",
            "The hooks are in Hermes' user-wide config.yaml: they serve every project and "
            "find each project's store from Hermes' working directory.",
        )


HOST = Hermes(
    name="hermes",
    label="Hermes Agent",
    rules="AGENTS.md",
    global_rules="$HERMES_HOME/SOUL.md",
    rules_kind=BLOCK,
    candidates=(
        ".hermes.md",
        "HERMES.md",
        "AGENTS.override.md",
        "AGENTS.md",
        "CLAUDE.md",
        ".cursorrules",
    ),
    skill=None,
    global_skill="$HERMES_HOME/skills/engramory",
    verified=DOCUMENTED,
    enforcement="pre-write deny hook (pre_tool_call shell hook on write_file, patch and "
    "terminal in Hermes' config.yaml, once approved); a loose `patch` match is judged by "
    "its worst case; its own memory tool's add/replace past MEMORY.md's 2,200 or USER.md's "
    "1,375 characters is denied too",
    hook_files=(CONFIG,),
    global_hook_files=(CONFIG,),
    cap_enforcement=DENY_HOOK,
    after_write=AFTER_TO_LOG,
    edit_tools=("write_file", "patch"),
    holds_compaction=False,  # no compaction hook a shell command can answer
    lifecycle_hooks=(SESSION_EVENT, LIFECYCLE_EVENT),
    native_memory="~/.hermes/memories/, which its memory tool manages and caps",
    guard_only=True,
    notes=(
        "Hermes loads only the first project context file it finds; the block goes into that file.",
        "Hermes loads skills only from ~/.hermes/skills: the skill needs --global.",
        "A .hermes.md or HERMES.md in a parent folder, or .cursor/rules/*.mdc with no "
        "other context file, would win over the file init writes: init refuses then.",
        "--install-hooks edits Hermes' user-wide config.yaml (also for a project install); "
        "Hermes asks for approval of each new hook once.",
        "Continuity: on_session_start records each session's start (Hermes discards what it "
        "prints); pre_llm_call adds the reminder on a session's first turn and marks later "
        "prompts as work; Hermes has no compaction hook, so nothing holds a compaction back.",
    ),
)
