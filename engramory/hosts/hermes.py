"""Hermes Agent: its ``pre_tool_call`` shell-hook dialect for the index guard, its
``pre_llm_call`` continuity replies, and the host for the installer.

The guard (verified against Hermes' ``agent/shell_hooks.py``): stdin is
``{hook_event_name, tool_name, tool_input, session_id, cwd, profile, extra}``,
``cwd`` being Hermes' own working directory. Tools: ``write_file {path,
content}``; ``patch {mode, path, old_string, new_string, replace_all, patch}``
-- ``mode: replace`` (the default) matches ``old_string`` loosely, so an edit
whose ``old_string`` is not in the index exactly is judged by its worst case (the
index growing by the whole ``new_string``), and ``mode: patch`` carries a V4A
patch in ``patch`` --; ``terminal {command}``. A deny is stdout
``{"decision": "block", "reason": ...}``; anything else prints nothing (a
``pre_tool_call`` hook has no way to add context, so a nudge is not shown) and
exits 0. Hermes runs a shell hook fail-open unless ``fail_closed: true``.

Continuity: ``on_session_start`` runs once when Hermes creates a session, before
its first model call: it is read as SessionStart and records the session's start
(Hermes discards what a session-start hook prints, so its reply reaches no one).
``pre_llm_call`` runs once per turn and its ``{"context": ...}`` is added to the
user's message: the first turn of a session (``extra.is_first_turn``) is read as
SessionStart too -- recording a start again changes nothing -- and carries the
reminder to the agent; every later turn is UserPromptSubmit
(``extra.user_message``). Hermes has no compaction hook a shell command can hold
back.

Hermes loads only the first project context file it finds (its
``candidates``), and a ``.hermes.md`` or ``HERMES.md`` in a parent folder
wins over the project's own; with no context file, ``.cursor/rules/*.mdc``
takes the place of an ``AGENTS.md`` init would create. Init refuses when the
block it writes would never be read.
"""

from __future__ import annotations

import os

from engramory.guard import service
from engramory.guard.service import ToolCall
from engramory.hosts import fields
from engramory.hosts.rawjson import json_string

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from pathlib import Path

    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict
    from engramory.hosts.base import Host
    from engramory.install.hookfiles import ConfigEdit, HookContext, OwnedFile

# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)

WRITE_TOOL = "write_file"
PATCH_TOOL = "patch"
SHELL_TOOL = "terminal"
_PATH_KEYS = (b"path",)


def may_concern_index(
    raw: bytes, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    tool = json_string(raw, b"tool_name")
    if tool == SHELL_TOOL.encode():
        return fields.command_may_write(raw)
    if tool == WRITE_TOOL.encode():
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
    if tool == PATCH_TOOL.encode():
        if json_string(raw, b"mode") != b"patch":
            return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
        named = b'"path"' in raw and fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
        return named or fields.patch_may_touch_index(raw, environ, index)
    return tool is None or b"\\" in tool


def oversized_call(raw: bytes) -> ToolCall:
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = json_string(raw, b"tool_name")
    if tool == PATCH_TOOL.encode() and json_string(raw, b"mode") == b"patch":
        return ToolCall(service.UNKNOWN)
    kind = {WRITE_TOOL.encode(): service.WRITE, PATCH_TOOL.encode(): service.EDIT}.get(tool or b"")
    return fields.oversized_call(raw, kind, _PATH_KEYS)


def tool_calls(payload: object) -> list[ToolCall]:
    """The tool call in one ``pre_tool_call`` payload (already decoded from JSON)."""
    request = fields.tool_request(payload)
    if request is None:
        return []
    tool, tool_input, cwd = request
    if tool == SHELL_TOOL:
        return [fields.shell_call(service.SHELL, tool_input, cwd)]
    path = fields.path(tool_input, ("path",))
    if tool == WRITE_TOOL:
        return [
            ToolCall(service.WRITE, path, cwd=cwd, content=fields.text(tool_input, ("content",)))
        ]
    if tool != PATCH_TOOL:
        return [ToolCall(service.UNKNOWN, cwd=cwd)]
    if tool_input.get("mode") == "patch":
        patch = tool_input.get("patch")
        return [ToolCall(service.PATCH, cwd=cwd, command=patch if isinstance(patch, str) else None)]
    if tool_input.get("mode", "replace") != "replace":
        return [ToolCall(service.UNKNOWN, cwd=cwd)]
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    replace_all = tool_input.get("replace_all") is True
    return [ToolCall(service.FUZZY_EDIT, path, cwd=cwd, edits=[(old, new, replace_all)])]


def render(verdict: Verdict, event: str) -> tuple[str, int] | tuple[str, int, str]:
    """What to print for a verdict (a deny, or nothing) and the exit code (always 0); after a
    call (post_tool_call), the warning goes to stderr (:data:`STDERR`)."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind != decision.DENY:
        return "", 0
    if event == "post":  # post_tool_call's output reaches no one: a warning in Hermes' log
        return verdict.message, 0, STDERR
    return fields.dumps({"decision": "block", "reason": verdict.message}), 0


# --- lifecycle hooks (``engramory sync hook --host hermes``) -----------------------------

# The hook is in the user-wide config.yaml: each event finds its store from its ``cwd``.
LIFECYCLE_STORE_PER_CALL = True
SESSION_EVENT = "on_session_start"
LIFECYCLE_EVENT = "pre_llm_call"


def lifecycle_payload(payload: object, event: str | None) -> object:
    """An ``on_session_start`` or ``pre_llm_call`` event as Claude Code's shape: the session's
    start and a session's first turn are SessionStart, every later turn UserPromptSubmit
    (``--event`` overrides)."""
    if not isinstance(payload, dict):
        return payload
    extra = payload.get("extra")
    extra = extra if isinstance(extra, dict) else {}
    first = extra.get("is_first_turn") is True or payload.get("hook_event_name") == SESSION_EVENT
    name = event or ("SessionStart" if first else "UserPromptSubmit")
    return {
        "hook_event_name": name,
        "session_id": payload.get("session_id"),
        "prompt": extra.get("user_message"),
        "source": "startup",
        "cwd": payload.get("cwd"),
    }


def oversized_lifecycle_payload(raw: bytes) -> dict[str, object] | None:
    """A ``pre_llm_call`` too large to read (``extra.conversation_history`` holds the whole
    conversation): a later turn, read off the raw bytes -- Hermes writes ``session_id`` and
    ``cwd`` before ``extra`` --, so that the prompt still counts as work."""
    from engramory.hosts.rawjson import decoded  # noqa: PLC0415

    found = {key: json_string(raw, key.encode()) for key in ("session_id", "cwd")}
    values = {key: decoded(value) if value is not None else None for key, value in found.items()}
    if not values["session_id"]:
        return None
    return {**values, "hook_event_name": LIFECYCLE_EVENT, "extra": {"is_first_turn": False}}


def render_lifecycle(reply: Reply) -> tuple[str, int]:
    """A lifecycle reply as Hermes' ``pre_llm_call`` output: ``{"context": ...}``, added to the
    user's message. A warning or a held compaction can only be shown that way too: Hermes
    has no compaction hook, so the gate is a reminder here."""
    from engramory.continuity import policy  # noqa: PLC0415
    from engramory.hosts import claude  # noqa: PLC0415

    if reply.kind == policy.QUIET or not reply.text:
        return "", 0
    return claude.dump_lifecycle({"context": reply.text})


# --- Hermes Agent for the installer ------------------------------------------------------
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).

PARENT_CONTEXT_FILES = (".hermes.md", "HERMES.md")
CONFIG = "$HERMES_HOME/config.yaml"
STDERR = "stderr"  # entry.STDERR, spelled out: render's third item, the text goes to stderr
GUARD_MATCHER = "write_file|patch|terminal"  # Hermes fullmatches it against the tool name
TIMEOUT = 10  # seconds (Hermes: default 60, max 300)


def hook_entries(context: HookContext) -> dict[str, list[dict[str, object]]]:
    """The ``hooks:`` entries init adds: the guard and the continuity hooks, naming no store
    (the file is user-wide: each call finds its store from Hermes' working directory)."""
    from engramory.install import hookwiring  # noqa: PLC0415 - not on the guard's path

    guard = hookwiring.guard_argv(context.python, context.guard, None, "hermes")
    sync = hookwiring.sync_argv(context.python, context.sync, "hermes", context.mode, None)
    start = hookwiring.sync_argv(
        context.python, context.sync, "hermes", context.mode, None, "SessionStart"
    )
    return {
        "pre_tool_call": [
            {
                "matcher": GUARD_MATCHER,
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
        SESSION_EVENT: [{"command": command_line(start, context.windows), "timeout": TIMEOUT}],
        LIFECYCLE_EVENT: [{"command": command_line(sync, context.windows), "timeout": TIMEOUT}],
    }


def command_line(argv: list[str], windows: bool) -> str:
    """One command line Hermes splits itself (no shell): POSIX quoting, or Windows'."""
    if windows:
        import subprocess  # noqa: PLC0415

        return subprocess.list2cmdline(argv)
    import shlex  # noqa: PLC0415

    return shlex.join(argv)


def config_edit(path: Path, context: HookContext) -> ConfigEdit:
    """The edit of Hermes' ``config.yaml`` that adds (or takes out) Engramory's hooks."""
    from engramory.hosts import hermes_config  # noqa: PLC0415
    from engramory.install.hookfiles import ConfigEdit  # noqa: PLC0415

    entries = hook_entries(context)
    new_folder = not os.path.lexists(path.parent)  # then init creates ~/.hermes/ too
    return ConfigEdit(
        path=path,
        what="the index guard (pre_tool_call), the check after a write (post_tool_call) and "
        "the continuity hooks (on_session_start, "
        "pre_llm_call)",
        install=lambda text: hermes_config.install(text, entries, new_folder),
        remove=hermes_config.remove,
        is_ours=hermes_config.is_ours,
        created_folder=hermes_config.created_folder,
    )


def host() -> Host:
    """Hermes Agent as ``engramory init`` and ``engramory hosts`` see it."""
    from engramory.hosts.base import AFTER_TO_LOG, BLOCK, DENY_HOOK, DOCUMENTED, Host  # noqa: PLC0415
    from engramory.install import layout  # noqa: PLC0415
    from engramory.store.discovery import git_work_tree  # noqa: PLC0415
    from engramory.util import fsutil  # noqa: PLC0415

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
            return [config_edit(layout.expand(CONFIG), context)]

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

    return Hermes(
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
        "its worst case",
        hook_files=(CONFIG,),
        global_hook_files=(CONFIG,),
        cap_enforcement=DENY_HOOK,
        after_write=AFTER_TO_LOG,
        edit_tools=("write_file", "patch"),
        holds_compaction=False,  # no compaction hook a shell command can answer
        lifecycle_hooks=(SESSION_EVENT, LIFECYCLE_EVENT),
        native_memory="~/.hermes/memories/, which its memory tool manages and caps",
        notes=(
            "Hermes loads only the first project context file it finds; the block goes into "
            "that file.",
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
