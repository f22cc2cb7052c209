"""OpenCode as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.opencode`)."""

from __future__ import annotations

import json

from engramory.hosts.base import (
    AFTER_TO_AGENT,
    BLOCK,
    DENY_HOOK,
    DOCUMENTED,
    Host,
)
from engramory.util.resources import shipped_path
from engramory.wiring import hookwiring
from engramory.wiring.hookfiles import HookContext, OwnedFile

CONFIG_PLACEHOLDER = "/*@ENGRAMORY_CONFIG@*/ null"


def plugin_text(template: str, config: dict[str, object]) -> str:
    """A plugin template with its configuration baked in as one JSON literal.

    ``json.dumps`` with ASCII escapes is a valid JavaScript expression (no raw
    U+2028/U+2029, no ``</``-style surprises), so no path can break out of it.
    """

    if template.count(CONFIG_PLACEHOLDER) != 1:
        raise ValueError("the plugin template must hold its configuration placeholder once")
    return template.replace(CONFIG_PLACEHOLDER, json.dumps(config, ensure_ascii=True))


def plugin_config(
    guard_argv: list[str], python: str, sync: str, host: str, mode: str, store: str
) -> dict[str, object]:
    """What a plugin needs: the guard's argv and the sync hook's argv without its event."""

    return {
        "guard": guard_argv,
        "sync": hookwiring.sync_argv(python, sync, host, mode, None),
        "store": store,
    }


# --- OpenCode for the installer ---

PLUGIN_TEMPLATE = "adapters/opencode/engramory-guard.js"
PLUGIN_FILE = ".opencode/plugins/engramory-guard.js"
GLOBAL_PLUGIN_FILE = "~/.config/opencode/plugins/engramory-guard.js"


class OpenCode(Host):
    """OpenCode: an in-process plugin file, written whole and owned by Engramory."""

    def hook_artifacts(self, context: HookContext) -> list[OwnedFile]:
        """The plugin, with the interpreter, the scripts and the store baked in."""
        store = context.store or ""
        argv = self.guard_argv(context.python, context.guard, context.store)
        config = plugin_config(argv, context.python, context.sync, self.name, context.mode, store)
        template = shipped_path(PLUGIN_TEMPLATE).read_text(encoding="utf-8")
        place = (
            context.home / GLOBAL_PLUGIN_FILE[2:] if context.global_ else context.root / PLUGIN_FILE
        )
        what = "the Engramory plugin (index guard, continuity reminders)"
        return [OwnedFile(place, plugin_text(template, config), what, ignore=True)]

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
        return {"tool": "bash", "args": {"command": command}, "cwd": cwd}

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        if not install_hooks:
            return ()
        return (
            "OpenCode loads the plugin when it starts: restart OpenCode. The plugin is for "
            "OpenCode 1.x (the V1 plugin API); OpenCode 2 does not load it.",
        )


HOST = OpenCode(
    name="opencode",
    label="opencode",
    rules="AGENTS.md",
    global_rules="~/.config/opencode/AGENTS.md",
    rules_kind=BLOCK,
    candidates=("AGENTS.md", "CLAUDE.md"),
    skill=".opencode/skills/engramory",
    global_skill="~/.config/opencode/skills/engramory",
    verified=DOCUMENTED,
    enforcement="pre-write deny hook (a plugin's tool.execute.before runs the guard on "
    "write, edit, apply_patch and bash/shell)",
    hook_files=(PLUGIN_FILE,),
    global_hook_files=(GLOBAL_PLUGIN_FILE,),
    holds_compaction=False,
    cap_enforcement=DENY_HOOK,
    after_write=AFTER_TO_AGENT,
    edit_tools=("edit", "write"),
    lifecycle_hooks=("session.created", "chat.message", "experimental.session.compacting"),
)
