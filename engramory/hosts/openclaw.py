"""OpenClaw as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.openclaw`)."""

from __future__ import annotations

from engramory.hosts.base import (
    AFTER_TO_LOG,
    BLOCK,
    DENY_HOOK_UNVERIFIED,
    DOCUMENTED,
    Host,
)
from engramory.hosts.opencode import plugin_config, plugin_text
from engramory.util.resources import shipped_path
from engramory.wiring.hookfiles import HookContext, OwnedFile

PLUGIN_ID = "engramory-guard"
TEMPLATE_DIR = "adapters/openclaw/engramory-guard"
PLUGIN_DIR = ".openclaw/extensions/engramory-guard"
GLOBAL_PLUGIN_DIR = "~/.openclaw/extensions/engramory-guard"
PLUGIN_FILES = ("index.js", "openclaw.plugin.json", "package.json")


class OpenClaw(Host):
    """OpenClaw: a plugin folder of three files, written whole and owned by Engramory."""

    def hook_artifacts(self, context: HookContext) -> list[OwnedFile]:
        """The manifest, the package file and the entry (configuration baked in)."""
        folder = (
            context.home / GLOBAL_PLUGIN_DIR[2:] if context.global_ else context.root / PLUGIN_DIR
        )
        argv = self.guard_argv(context.python, context.guard, context.store)
        config = plugin_config(
            argv, context.python, context.sync, self.name, context.mode, context.store or ""
        )
        artifacts = []
        for name in PLUGIN_FILES:
            text = shipped_path(f"{TEMPLATE_DIR}/{name}").read_text(encoding="utf-8")
            if name == "index.js":
                text = plugin_text(text, config)
            what = f"the Engramory plugin's {name} (index guard, continuity reminders)"
            artifacts.append(OwnedFile(folder / name, text, what, ignore=name == "index.js"))
        return artifacts

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
        return {"tool": "exec", "args": {"command": command}, "cwd": cwd}

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        if not install_hooks:
            return ()
        return (
            f"OpenClaw does not load a workspace plugin until it is enabled: run `openclaw "
            f"plugins enable {PLUGIN_ID}`, then restart the gateway. OpenClaw's write and "
            "edit parameter names are not documented: also run `engramory check` after an "
            "index edit.",
        )


HOST = OpenClaw(
    name="openclaw",
    label="OpenClaw",
    rules="AGENTS.md",
    global_rules="~/.openclaw/workspace/AGENTS.md",
    rules_kind=BLOCK,
    skill="skills/engramory",
    global_skill="~/.openclaw/skills/engramory",
    default_root="~/.openclaw/workspace",
    verified=DOCUMENTED,
    enforcement="pre-write deny hook on an unverified payload (a plugin's before_tool_call "
    "runs the guard on write, edit, apply_patch and exec), plus `engramory check` after "
    "each index edit",
    hook_files=tuple(f"{PLUGIN_DIR}/{name}" for name in PLUGIN_FILES),
    global_hook_files=tuple(f"{GLOBAL_PLUGIN_DIR}/{name}" for name in PLUGIN_FILES),
    holds_compaction=False,
    cap_enforcement=DENY_HOOK_UNVERIFIED,
    after_write=AFTER_TO_LOG,
    edit_tools=("edit", "write"),
    lifecycle_hooks=("before_prompt_build", "before_compaction"),
    native_memory="the workspace MEMORY.md and daily memory files OpenClaw writes",
)
