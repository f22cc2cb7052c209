"""Kiro: the Kiro CLI 2.x preToolUse dialect for the index guard, its lifecycle replies, and the
host for the installer (steering rules with an index include, hooks in an agent definition).

Payload (Kiro CLI 2.x, ``preToolUse`` in an agent's ``hooks``): ``{hook_event_name,
cwd, session_id, tool_name, tool_input}``. Tools: ``fs_write`` (alias ``write``)
``{command, path, file_text, old_str, new_str, insert_line}`` and ``execute_bash``
(alias ``shell``) ``{command}``. A path may start with ``~``: the hook's HOME. The
four ``fs_write`` commands are simulated as the CLI's own code does them
(aws/amazon-q-developer-cli ``fs_write.rs``, the open-source ancestor of Kiro CLI):

* ``create``: the file becomes ``file_text`` (else ``new_str``, else empty);
* ``str_replace``: ``old_str`` must occur exactly once, and is replaced once;
* ``insert``: ``new_str`` goes in after line ``insert_line`` (0: at the start;
  clamped to the file's line count) as it is, with no newline added;
* ``append``: a newline is added first when the file does not end with one, then
  ``new_str``.

``create``, ``insert`` and ``append`` then end the file with a newline when it does
not end with one (``str_replace`` writes as it is). On a file that does not exist,
``insert`` and ``append`` fail in the CLI; the guard judges them as if the file were
empty (never a wrongly passed growth).

Answers: a deny exits 2 with the reason on stderr (Kiro returns stderr to the model
and does not run the tool); anything else prints nothing and exits 0 -- a nudge
too, as Kiro shows nothing a preToolUse hook prints on stdout. Any other exit code
is a warning and the tool runs (Kiro fails open).

Lifecycle (continuity): ``agentSpawn`` (as SessionStart) and ``userPromptSubmit``
(as UserPromptSubmit), whose stdout Kiro adds to the agent's context: a reply is
plain text. Kiro CLI has no compaction event, so there is no compaction gate.

Kiro IDE (``.kiro/hooks/*.json``, trigger ``PreToolUse``) runs hooks whose payload is
not documented: nothing is installed for it (documented only).
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
    from engramory.install.hookfiles import HookContext


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)

WRITE_TOOLS = ("fs_write", "write")
SHELL_TOOLS = ("execute_bash", "shell")
CREATE, STR_REPLACE, INSERT, APPEND = "create", "str_replace", "insert", "append"
_WRITE_TOOLS = tuple(tool.encode() for tool in WRITE_TOOLS)
_SHELL_TOOLS = tuple(tool.encode() for tool in SHELL_TOOLS)
_PATH_KEYS = (b"path",)
STDERR = "stderr"  # entry.STDERR, spelled out: render's third item, the deny goes to stderr
DENY_EXIT = 2
WARN_EXIT = 1  # after a call (postToolUse): Kiro shows stderr to the user as a warning


def may_concern_index(
    raw: bytes, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    tool = json_string(raw, b"tool_name")
    if tool in _SHELL_TOOLS:
        return fields.command_may_write(raw)
    if tool in _WRITE_TOOLS:
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
    return tool is None or b"\\" in tool


def oversized_call(raw: bytes) -> ToolCall:
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    kind = None
    if json_string(raw, b"tool_name") in _WRITE_TOOLS:
        kind = service.WRITE if json_string(raw, b"command") == CREATE.encode() else service.EDIT
    call = fields.oversized_call(raw, kind, _PATH_KEYS)
    call.path = home_path(call.path)
    return call


def home_path(path: str | None) -> str | None:
    """``path`` with a leading ``~`` (alone, or before a separator) as the hook's HOME."""
    if path is not None and (path == "~" or path.startswith(("~/", "~" + os.sep))):
        return os.path.expanduser(path)
    return path


def tool_calls(payload: object) -> list[ToolCall]:
    """The tool call in one preToolUse payload (already decoded from JSON)."""
    request = fields.tool_request(payload)
    if request is None:
        return []
    tool, tool_input, cwd = request
    if tool in SHELL_TOOLS:
        return [fields.shell_call(service.SHELL, tool_input, cwd)]
    if tool not in WRITE_TOOLS:
        return [ToolCall(service.UNKNOWN, cwd=cwd)]
    path = home_path(fields.path(tool_input, ("path",)))
    command = tool_input.get("command")
    new = tool_input.get("new_str")
    if command == CREATE:
        text = fields.text(tool_input, ("file_text", "new_str"))
        return [ToolCall(service.WRITE, path, cwd=cwd, content=ended(text or ""))]
    if command == STR_REPLACE:
        old = tool_input.get("old_str")
        return [ToolCall(service.COUNTED_EDIT, path, cwd=cwd, edits=[(old, new, 1)])]
    if command == INSERT:
        line = tool_input.get("insert_line")
        if isinstance(new, str) and isinstance(line, int) and not isinstance(line, bool):
            transform = (lambda text: inserted(text, line, new)) if line >= 0 else None
            return [ToolCall(service.TRANSFORM, path, cwd=cwd, transform=transform)]
        return [ToolCall(service.TRANSFORM, path, cwd=cwd)]  # the tool rejects it: unverified
    if command == APPEND:
        transform = (lambda text: appended(text, new)) if isinstance(new, str) else None
        return [ToolCall(service.TRANSFORM, path, cwd=cwd, transform=transform)]
    return [ToolCall(service.UNKNOWN, cwd=cwd)]  # not a command the tool takes: it fails


def ended(text: str) -> str:
    """``text`` as the tool writes it: ending with a newline (``\\n`` or ``\\r`` counts)."""
    return text if text.endswith(("\n", "\r")) else text + "\n"


def inserted(text: str, line: int, new: str) -> str:
    """``text`` after ``insert``: ``new`` after line ``line`` (clamped to the line count)."""
    count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    at = 0
    for _ in range(min(line, count or 1)):
        end = text.find("\n", at)
        at = len(text) if end < 0 else end + 1
    return ended(text[:at] + new + text[at:])


def appended(text: str, new: str) -> str:
    """``text`` after ``append``: on a line of its own (a newline added first when needed)."""
    return ended(ended(text) + new)


def render(verdict: Verdict, event: str) -> tuple[str, int] | tuple[str, int, str]:
    """A deny: its reason on stderr, exit 2. After a call (postToolUse, which cannot block and
    has no channel to the agent) the same text is a warning: stderr, exit 1, which Kiro shows
    the user. Anything else: nothing, exit 0."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind != decision.DENY:
        return "", 0
    return verdict.message, WARN_EXIT if event == "post" else DENY_EXIT, STDERR


# --- lifecycle (continuity) replies ---------------------------------------------------------

LIFECYCLE_EVENTS = {"agentSpawn": "SessionStart", "userPromptSubmit": "UserPromptSubmit"}


def lifecycle_payload(payload: object, event: str | None) -> object:
    """A Kiro lifecycle event in Claude Code's shape (:func:`engramory.hosts.lifecycle_payload`).

    ``agentSpawn`` is SessionStart and ``userPromptSubmit`` UserPromptSubmit (``event``,
    the installed hook's ``--event``, wins). Without a ``session_id`` (an older CLI),
    the session is the working directory's: ``kiro:<cwd>``.
    """
    if not isinstance(payload, dict):
        return payload
    name = payload.get("hook_event_name")
    canonical = event or LIFECYCLE_EVENTS.get(name if isinstance(name, str) else "", name)
    session = payload.get("session_id")
    if not isinstance(session, str) or not session.strip():
        cwd = payload.get("cwd")
        session = f"kiro:{cwd if isinstance(cwd, str) and cwd else os.getcwd()}"[:256]
    return {**payload, "hook_event_name": canonical, "session_id": session}


def render_lifecycle(reply: Reply) -> tuple[str, int]:
    """A lifecycle reply as plain text on stdout, which Kiro adds to the agent's context.

    A context, a warning and (were one ever asked for) a held compaction are all text;
    Kiro has no compaction event, so nothing is ever held back. Always exit 0.
    """
    from engramory.continuity import policy  # noqa: PLC0415

    if reply.kind == policy.QUIET or not reply.text:
        return "", 0
    return reply.text, 0


# --- Kiro for the installer ---
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).

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
    import shlex  # noqa: PLC0415

    from engramory.install import hookwiring  # noqa: PLC0415

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
    from engramory.install.plan import FlagRefusal  # noqa: PLC0415

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


def host() -> Host:
    """Kiro as ``engramory init`` and ``engramory hosts`` see it: steering rules that include
    the live index, and (Kiro CLI) the guard and reminders in an agent definition."""
    import json  # noqa: PLC0415

    from engramory.hosts.base import AFTER_TO_LOG, DENY_HOOK, DOCUMENTED, FILE, Host  # noqa: PLC0415
    from engramory.install import hookconfig, hookwiring  # noqa: PLC0415
    from engramory.install.hookfiles import (  # noqa: PLC0415
        ConfigEdit,
        EditRefusal,
        OwnedFile,
    )
    from engramory.store.discovery import INDEX_NAME  # noqa: PLC0415
    from engramory.util import fsutil  # noqa: PLC0415

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
            if fsutil.is_within(
                os.path.realpath(store), os.path.realpath(root / ".kiro" / "steering")
            ):
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

    return Kiro(
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
