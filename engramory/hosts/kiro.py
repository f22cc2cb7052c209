"""Kiro as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.kiro`)."""

from __future__ import annotations

import json
import os
import shlex
from typing import TYPE_CHECKING

from engramory.dialects.kiro import LIFECYCLE_EVENTS, SHELL_TOOLS, WRITE_TOOLS
from engramory.hosts.base import AFTER_TO_LOG, DENY_HOOK, DOCUMENTED, FILE, Host
from engramory.store.discovery import INDEX_NAME
from engramory.util import fsutil
from engramory.wiring import hookconfig, hookwiring
from engramory.wiring.hookfiles import (
    ConfigEdit,
    EditRefusal,
    OwnedFile,
)
from engramory.wiring.refusal import FlagRefusal

if TYPE_CHECKING:
    from pathlib import Path

    from engramory.wiring.hookfiles import HookContext


AGENT_NAME = "engramory"
AGENTS_DIR = ".kiro/agents"
TIMEOUT_MS = 10_000
GUARD_MATCHERS = (*WRITE_TOOLS, *SHELL_TOOLS)  # one entry each: a matcher is one tool name
AGENT_DESCRIPTION = (
    "Kiro's default tools plus Engramory's hooks: the memory index guard and the "
    "continuity reminders"
)
# What a custom agent must name itself to read what the default agent reads.
AGENT_RESOURCES = (
    "file://AGENTS.md",
    "file://README.md",
    "file://.kiro/steering/**/*.md",
    "file://~/.kiro/steering/**/*.md",
)
AGENT_FLAG = ("--kiro-agent", "kiro_agent", "merge the hooks into .kiro/agents/NAME.json")
_AGENT_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
MAX_AGENT_FILES = 1000  # an agents folder larger than this is searched no further


def is_agent_name(name: str) -> bool:
    """Whether ``name`` can be an agent's file name (without ``.json``)."""
    return bool(name) and not name.startswith(".") and set(name) <= _AGENT_NAME_CHARS


def agent_hooks(
    python: str, guard: str, sync: str, store: str | None, mode: str, windows: bool
) -> dict[str, list[dict[str, object]]]:
    """Engramory's entries of an agent's ``hooks``, by Kiro event.

    The guard on each file-writing and shell tool (exit 2 denies, so no ``|| true``:
    a missing interpreter exits 127, which Kiro shows as a warning and lets the call
    run); the check after each of those calls (postToolUse: a warning on stderr); the
    continuity hooks at agentSpawn and userPromptSubmit when there is a store.
    """

    def line(argv: list[str]) -> str:
        return hookwiring.powershell_line(argv) if windows else shlex.join(argv)

    guard_line = line(hookwiring.guard_argv(python, guard, store, "kiro"))
    hooks: dict[str, list[dict[str, object]]] = {}
    if store is not None:
        for kiro_event, event in LIFECYCLE_EVENTS.items():
            argv = hookwiring.sync_argv(python, sync, "kiro", mode, store, event)
            hooks[kiro_event] = [{"command": line(argv), "timeout_ms": TIMEOUT_MS}]
    hooks["preToolUse"] = [
        {"matcher": matcher, "command": guard_line, "timeout_ms": TIMEOUT_MS}
        for matcher in GUARD_MATCHERS
    ]
    after_line = line([*hookwiring.guard_argv(python, guard, store, "kiro"), "--event", "post"])
    hooks["postToolUse"] = [
        {"matcher": matcher, "command": after_line, "timeout_ms": TIMEOUT_MS}
        for matcher in GUARD_MATCHERS
    ]
    return hooks


def new_agent(hooks: dict[str, object]) -> dict[str, object]:
    """The agent definition init writes as ``engramory.json``: every tool, as the default
    agent reads (steering, AGENTS.md, README.md), plus ``hooks``."""
    return {
        "name": AGENT_NAME,
        "description": AGENT_DESCRIPTION,
        "tools": ["*"],
        "resources": list(AGENT_RESOURCES),
        "hooks": hooks,
    }


def agent_name(context: HookContext) -> str | None:
    """The ``--kiro-agent`` value, refused (64) when it is not an agent's name."""

    name = context.options.get("kiro_agent")
    if name is not None and not is_agent_name(name):
        raise FlagRefusal(
            f"--kiro-agent {name!r} is not an agent name (letters, digits, '.', '_', "
            "'-'): give the name of a file in .kiro/agents/ without .json"
        )
    return name


def agents_folder(context: HookContext) -> Path:
    return (context.home if context.global_ else context.root) / AGENTS_DIR


def agent_files(folder: Path) -> list[Path]:
    """The agent definitions in ``folder`` (``NAME.json``: a file, or a link to one), by
    name; none when the folder is missing, unreadable or itself a link."""
    names: list[str] = []
    try:
        if os.path.islink(folder):
            return []
        with os.scandir(folder) as entries:
            for entry in entries:
                if len(names) >= MAX_AGENT_FILES:
                    break
                stem = entry.name[: -len(".json")]
                if entry.name.endswith(".json") and is_agent_name(stem):
                    names.append(entry.name)
    except OSError:
        return []
    return [folder / name for name in sorted(names) if os.path.isfile(folder / name)]


form = hookwiring.SCRIPT_FORMAT  # ours: a command that runs the guard or sync script


def document(text: str | None, path: Path) -> hookconfig.Document:
    try:
        return hookconfig.load(text, form)
    except hookconfig.HookConfigError as exc:
        raise EditRefusal(
            f"{exc}: Kiro would not read it as an agent definition with hooks; fix it, "
            "or add the hooks by hand"
        ) from None


def is_ours(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and hookconfig.count_ours(data, form) > 0


def own_agent(path: Path, hooks: dict[str, object]) -> ConfigEdit:
    """``engramory.json``: written whole when absent, its hooks merged when present."""

    def install(text: str | None) -> str:
        if text is None:
            return json.dumps(new_agent(hooks), indent=2, ensure_ascii=False) + "\n"
        doc = document(text, path)
        doc.merge(hooks)
        return doc.text()

    def remove(text: str) -> str | None:
        doc = document(text, path)
        doc.remove()
        left = doc.data()
        untouched = {k: v for k, v in new_agent({}).items() if k != "hooks"}
        return None if left == untouched else doc.text()

    return ConfigEdit(
        path, "the Kiro CLI agent 'engramory' with the hooks", install, remove, is_ours
    )


def user_agent(
    path: Path, name: str, hooks: dict[str, object], searched: bool = False
) -> ConfigEdit:
    """The user's agent ``NAME.json``: the hooks merged in, everything else kept."""

    def install(text: str | None) -> str:
        if text is None:
            raise EditRefusal(
                f"the Kiro agent file {path} does not exist: create the agent first "
                f"(kiro-cli agent create {name}), or leave out --kiro-agent to get the "
                "'engramory' agent"
            )
        if not text.strip():
            raise EditRefusal(f"{path} is empty, not a JSON object: fix the agent file")
        doc = document(text, path)
        doc.merge(hooks)
        return doc.text()

    def remove(text: str) -> str | None:
        doc = document(text, path)
        doc.remove()
        return doc.text()

    what = f"the hooks in the Kiro CLI agent '{name}'"
    return ConfigEdit(path, what, install, remove, is_ours, searched)


class Kiro(Host):
    """Kiro: an index include in the rules, no store under ``.kiro/steering/``; the Kiro
    CLI's hooks in an agent definition, which run only while that agent is in use."""

    def store_refusal(self, root: Path, store: Path) -> str | None:
        if fsutil.is_within(os.path.realpath(store), os.path.realpath(root / ".kiro" / "steering")):
            return (
                "the memory store must not be under .kiro/steering/: Kiro loads every file "
                "there into every request"
            )
        return None

    def rules_addendum(self, memory: str) -> str:
        return f"The live index: #[[file:{memory}/{INDEX_NAME}]]"

    def hooks_trust_note(self) -> str:
        return (
            "Kiro CLI runs these hooks and the guard only in the agent that holds them "
            "(the `engramory` agent, unless init named another); in any other agent, and "
            "in Kiro IDE, nothing enforces the cap: check the index after each edit."
        )

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
        return {
            "hook_event_name": "preToolUse",
            "cwd": cwd,
            "session_id": "engramory-init-check",
            "tool_name": "execute_bash",
            "tool_input": {"command": command},
        }

    def hook_artifacts(self, context: HookContext) -> list[OwnedFile | ConfigEdit]:
        folder = agents_folder(context)
        hooks = agent_hooks(
            context.python,
            context.guard,
            context.sync,
            context.store,
            context.mode,
            context.windows,
        )
        name = agent_name(context)
        if name is None:
            return [own_agent(folder / f"{AGENT_NAME}.json", dict(hooks))]
        return [user_agent(folder / f"{name}.json", name, dict(hooks))]

    def uninstalled_artifacts(self, context: HookContext) -> list[OwnedFile | ConfigEdit]:
        """``engramory.json``, the agent ``--kiro-agent`` names, and every other agent
        file in the folder that holds Engramory's hooks (an agent init merged them into
        is found without the flag)."""
        folder = agents_folder(context)
        own = folder / f"{AGENT_NAME}.json"
        named = [own_agent(own, {})]  # deleted when only Engramory's parts are left
        named += [artifact for artifact in self.hook_artifacts(context) if artifact.path != own]
        base = os.path.realpath(context.home if context.global_ else context.root)
        known = {artifact.path for artifact in named}
        found: list[OwnedFile | ConfigEdit] = []
        for path in agent_files(folder):
            if path in known or not fsutil.is_within(os.path.realpath(path), base):
                continue
            found.append(user_agent(path, path.name[: -len(".json")], {}, searched=True))
        return [*named, *found]

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        if not install_hooks:
            return ()
        return (
            "Kiro CLI runs an agent's hooks only while that agent is in use: start it with "
            "`kiro-cli chat --agent engramory` (or the agent named by --kiro-agent), or "
            "make it the default with `kiro-cli agent set-default engramory`. The agent "
            "file names absolute paths on this machine. Kiro CLI has no compaction event "
            "(no compaction gate), and Kiro IDE's hooks are not wired (their payload is "
            "undocumented).",
        )


HOST = Kiro(
    name="kiro",
    label="Kiro",
    rules=".kiro/steering/engramory.md",
    global_rules="~/.kiro/steering/engramory.md",
    rules_kind=FILE,
    frontmatter=("inclusion: always",),
    reader_rules=".kiro/steering/engramory-recall.md",
    reader_frontmatter=("inclusion: always",),
    skill=".kiro/skills/engramory",
    global_skill="~/.kiro/skills/engramory",
    verified=DOCUMENTED,
    enforcement="pre-write deny hook (Kiro CLI 2.x: preToolUse guard on fs_write and "
    "execute_bash in the agent definition, run only while that agent is in use); rules "
    "plus `engramory check` in Kiro IDE",
    hook_files=(f"{AGENTS_DIR}/{AGENT_NAME}.json",),
    global_hook_files=(f"~/{AGENTS_DIR}/{AGENT_NAME}.json",),
    option_flags=(AGENT_FLAG,),
    cap_enforcement=DENY_HOOK,
    after_write=AFTER_TO_LOG,
    edit_tools=("fs_write",),
    holds_compaction=False,  # Kiro CLI has no compaction hook
    lifecycle_hooks=tuple(LIFECYCLE_EVENTS.values()),  # at agentSpawn, userPromptSubmit
    notes=(
        "The steering file pulls in the live index with #[[file:...]]; notes must never "
        "go under .kiro/steering/, where every file loads into every request.",
        "Kiro IDE's hooks (.kiro/hooks/*.json, trigger PreToolUse) get a payload that is "
        "not documented: documented only, nothing installed; the cap rests on the rules "
        "and `engramory check` there.",
        "Kiro CLI has no compaction event: the reminders are at agentSpawn and "
        "userPromptSubmit only.",
    ),
)
