"""OpenClaw: the guard dialect its plugin speaks, its lifecycle replies, and the host for the
installer.

OpenClaw gates tool calls only in-process: a native plugin's ``before_tool_call``
handler may return ``{block: true, blockReason}``; a handler that throws or takes
longer than 15 s blocks the call (fails CLOSED), so Engramory's plugin
(``adapters/openclaw/engramory-guard/``) catches everything and gives the guard 5 s.
A native plugin is a folder with ``openclaw.plugin.json`` (``id``, ``configSchema``)
and a ``package.json`` whose ``openclaw.extensions`` names the entry; init writes
it to ``<workspace>/.openclaw/extensions/engramory-guard/`` (``~/.openclaw/extensions/``
with ``--global``). Workspace plugins are not loaded until enabled
(``openclaw plugins enable engramory-guard``). Sources: docs.openclaw.ai
/plugins/hooks, /plugins/manifest, /plugins/manifest/package-json (discovery).

The plugin sends the Python guard ``{"tool", "args", "cwd"}`` (``event.toolName``,
``event.params``, the workspace). Tools: ``apply_patch {input}`` (V4A, documented),
``exec``/``bash {command}``; ``write`` and ``edit`` parameter keys are UNVERIFIED, so
every spelling seen in OpenClaw's tools is read: ``path``/``file_path``/``filePath``,
``content``, ``oldText``/``old_string``/``oldString``, ``newText``/``new_string``/
``newString``, and an ``edits`` list of ``{oldText, newText}``. An edit is predicted
only when its old text occurs exactly once (the tool may match loosely otherwise: a
"not verified" nudge).

Answers and lifecycle replies are the OpenCode plugin's (:mod:`engramory.hosts.opencode`):
``{"deny"}``/``{"nudge"}`` lines, ``{"context"}``/``{"reminder"}`` lines. Lifecycle:
``before_prompt_build`` runs SessionStart once per session (its context is prepended
to the prompt) and UserPromptSubmit on every prompt; ``before_compaction`` only
observes, so a dirty compaction's reminder (a held manual one too) is logged, never
enforced. The session id the plugin reads (``ctx.sessionId``/``ctx.sessionKey``) is
unverified.
"""

from __future__ import annotations

import os

from engramory.guard import service
from engramory.guard.service import ToolCall
from engramory.hosts.opencode import (
    EDIT,
    PATCH,
    SHELL,
    WRITE,
    edit_call,
    lifecycle_payload,
    plugin_calls,
    plugin_may_concern,
    plugin_oversized,
    render,
    render_lifecycle,
)

# The dialect's interface (the answers and the lifecycle are the OpenCode plugin's).
__all__ = [
    "lifecycle_payload",
    "may_concern_index",
    "oversized_call",
    "render",
    "render_lifecycle",
    "tool_calls",
]

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from engramory.hosts.base import Host


# --- the guard dialect (on the hook's hot path) -------------------------------------------

TOOLS = {"write": WRITE, "edit": EDIT, "apply_patch": PATCH, "exec": SHELL, "bash": SHELL}
PATH_KEYS = ("path", "file_path", "filePath")
CONTENT_KEYS = ("content",)
OLD_KEYS = ("oldText", "old_string", "oldString")
NEW_KEYS = ("newText", "new_string", "newString")


def may_concern_index(
    raw: bytes, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    return plugin_may_concern(raw, environ, index, TOOLS, PATH_KEYS)


def oversized_call(raw: bytes) -> ToolCall:
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    return plugin_oversized(raw, TOOLS, PATH_KEYS)


def _first(mapping: dict[str, object], keys: tuple[str, ...]) -> object:
    """The value of the first of ``keys`` present (``None``: none is)."""
    return next((mapping[key] for key in keys if key in mapping), None)


def _edit(path: str | None, arguments: dict[str, object], cwd: str | None) -> ToolCall:
    """OpenClaw's ``edit``: one old/new pair, or an ``edits`` list (keys unverified: every
    spelling seen is read)."""
    edits = arguments.get("edits")
    if isinstance(edits, list):
        steps = [
            (_first(step, OLD_KEYS), _first(step, NEW_KEYS), False)
            if isinstance(step, dict)
            else (None, None, False)
            for step in edits
        ]
        return ToolCall(service.MULTIEDIT, path, cwd=cwd, edits=steps)
    old, new = _first(arguments, OLD_KEYS), _first(arguments, NEW_KEYS)
    return edit_call(path, cwd, old, new, arguments.get("replace_all"))


def tool_calls(payload: object) -> list[ToolCall]:
    """The tool call in one plugin payload (already decoded from JSON)."""
    return plugin_calls(payload, TOOLS, PATH_KEYS, CONTENT_KEYS, _edit)


# --- OpenClaw for the installer ---
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).

PLUGIN_ID = "engramory-guard"
TEMPLATE_DIR = "adapters/openclaw/engramory-guard"
PLUGIN_DIR = ".openclaw/extensions/engramory-guard"
GLOBAL_PLUGIN_DIR = "~/.openclaw/extensions/engramory-guard"
PLUGIN_FILES = ("index.js", "openclaw.plugin.json", "package.json")


def host() -> Host:
    """OpenClaw as ``engramory init`` and ``engramory hosts`` see it: a native plugin folder
    that runs the index guard and the continuity hooks."""
    from engramory.hosts.base import (  # noqa: PLC0415
        AFTER_TO_LOG,
        BLOCK,
        DENY_HOOK_UNVERIFIED,
        DOCUMENTED,
        Host,
    )
    from engramory.hosts.opencode import plugin_config, plugin_text  # noqa: PLC0415
    from engramory.install.hookfiles import HookContext, OwnedFile  # noqa: PLC0415
    from engramory.util.resources import shipped_path  # noqa: PLC0415

    class OpenClaw(Host):
        """OpenClaw: a plugin folder of three files, written whole and owned by Engramory."""

        def hook_artifacts(self, context: HookContext) -> list[OwnedFile]:
            """The manifest, the package file and the entry (configuration baked in)."""
            folder = (
                context.home / GLOBAL_PLUGIN_DIR[2:]
                if context.global_
                else context.root / PLUGIN_DIR
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

    return OpenClaw(
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
