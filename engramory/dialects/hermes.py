"""Hermes Agent: its ``pre_tool_call`` shell-hook dialect for the index guard and its
``pre_llm_call`` continuity replies (its install spec: :mod:`engramory.hosts.hermes`).

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

from engramory.dialects import fields
from engramory.dialects.rawjson import json_string
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    import os

    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict

# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)

WRITE_TOOL = "write_file"
PATCH_TOOL = "patch"
SHELL_TOOL = "terminal"
MEMORY_TOOL = "memory"  # Hermes' own memory: judged by engramory.dialects.hermesmemory
_PATH_KEYS = (b"path",)


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    tool = json_string(raw, b"tool_name")
    if tool == SHELL_TOOL.encode():
        return fields.shell_may_concern(raw, environ, index)
    if tool == MEMORY_TOOL.encode():  # only an add or a replace can grow the file
        return any(word in raw for word in (b'"add"', b'"replace"', b"\\u"))
    if tool == WRITE_TOOL.encode():
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
    if tool == PATCH_TOOL.encode():
        if json_string(raw, b"mode") != b"patch":
            return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
        named = b'"path"' in raw and fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
        return named or fields.patch_may_touch_index(raw, environ, index)
    return tool is None or b"\\" in tool


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    tool = json_string(raw, b"tool_name")
    if tool == PATCH_TOOL.encode() and json_string(raw, b"mode") == b"patch":
        return ToolCall(toolcall.UNKNOWN)
    kind = {WRITE_TOOL.encode(): toolcall.WRITE, PATCH_TOOL.encode(): toolcall.EDIT}.get(
        tool or b""
    )
    return fields.oversized_call(raw, kind, _PATH_KEYS)


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one ``pre_tool_call`` payload (already decoded from JSON)."""
    request = fields.tool_request(payload)
    if request is None:
        return []
    tool, tool_input, cwd = request
    if tool == SHELL_TOOL:
        return [fields.shell_call(toolcall.SHELL, tool_input, cwd)]
    if tool == MEMORY_TOOL:
        from engramory.dialects import hermesmemory  # noqa: PLC0415 - only for a memory call

        return [hermesmemory.memory_call(tool_input, cwd)]
    path = fields.path(tool_input, ("path",))
    if tool == WRITE_TOOL:
        return [
            ToolCall(toolcall.WRITE, path, cwd=cwd, content=fields.text(tool_input, ("content",)))
        ]
    if tool != PATCH_TOOL:
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    if tool_input.get("mode") == "patch":
        patch = tool_input.get("patch")
        return [
            ToolCall(toolcall.PATCH, cwd=cwd, command=patch if isinstance(patch, str) else None)
        ]
    if tool_input.get("mode", "replace") != "replace":
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    replace_all = tool_input.get("replace_all") is True
    return [ToolCall(toolcall.FUZZY_EDIT, path, cwd=cwd, edits=[(old, new, replace_all)])]


def render(verdict: "Verdict", event: str) -> "tuple[str, int] | tuple[str, int, str]":
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


def lifecycle_payload(payload: object, event: "str | None") -> object:
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


def oversized_lifecycle_payload(raw: bytes) -> "dict[str, object] | None":
    """A ``pre_llm_call`` too large to read (``extra.conversation_history`` holds the whole
    conversation): a later turn, read off the raw bytes -- Hermes writes ``session_id`` and
    ``cwd`` before ``extra`` --, so that the prompt still counts as work."""
    from engramory.dialects.rawjson import decoded  # noqa: PLC0415

    found = {key: json_string(raw, key.encode()) for key in ("session_id", "cwd")}
    values = {key: decoded(value) if value is not None else None for key, value in found.items()}
    if not values["session_id"]:
        return None
    return {**values, "hook_event_name": LIFECYCLE_EVENT, "extra": {"is_first_turn": False}}


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A lifecycle reply as Hermes' ``pre_llm_call`` output: ``{"context": ...}``, added to the
    user's message. A warning or a held compaction can only be shown that way too: Hermes
    has no compaction hook, so the gate is a reminder here."""
    from engramory.continuity import policy  # noqa: PLC0415
    from engramory.dialects import claude  # noqa: PLC0415

    if reply.kind == policy.QUIET or not reply.text:
        return "", 0
    return claude.dump_lifecycle({"context": reply.text})


STDERR = "stderr"  # dialects.STDERR, spelled out: render's third item, the text goes to stderr
