"""Kiro: the Kiro CLI 2.x preToolUse dialect for the index guard and its lifecycle replies (its
install spec, steering rules and hooks in an agent definition: :mod:`engramory.hosts.kiro`).

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

WRITE_TOOLS = ("fs_write", "write")
SHELL_TOOLS = ("execute_bash", "shell")
CREATE, STR_REPLACE, INSERT, APPEND = "create", "str_replace", "insert", "append"
_WRITE_TOOLS = tuple(tool.encode() for tool in WRITE_TOOLS)
_SHELL_TOOLS = tuple(tool.encode() for tool in SHELL_TOOLS)
_PATH_KEYS = (b"path",)
STDERR = "stderr"  # dialects.STDERR, spelled out: render's third item, the deny goes to stderr
DENY_EXIT = 2
WARN_EXIT = 1  # after a call (postToolUse): Kiro shows stderr to the user as a warning


def may_concern_index(
    raw: bytes, environ: "dict[str, str] | os._Environ[str]", index: "str | None" = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?"""
    tool = json_string(raw, b"tool_name")
    if tool in _SHELL_TOOLS:
        return fields.shell_may_concern(raw, environ, index)
    if tool in _WRITE_TOOLS:
        return fields.path_may_be_index(raw, _PATH_KEYS, environ, index)
    return tool is None or b"\\" in tool


def oversized_call(raw: bytes) -> "ToolCall":
    """The kind, target and cwd of a payload too large to parse, by a bounded scan."""
    kind = None
    if json_string(raw, b"tool_name") in _WRITE_TOOLS:
        kind = toolcall.WRITE if json_string(raw, b"command") == CREATE.encode() else toolcall.EDIT
    call = fields.oversized_call(raw, kind, _PATH_KEYS)
    call.path = home_path(call.path)
    return call


def home_path(path: "str | None") -> "str | None":
    """``path`` with a leading ``~`` (alone, or before a separator) as the hook's HOME."""
    import os  # noqa: PLC0415 - not on the path of a dismissed call

    if path is not None and (path == "~" or path.startswith(("~/", "~" + os.sep))):
        return os.path.expanduser(path)
    return path


def tool_calls(payload: object) -> "list[ToolCall]":
    """The tool call in one preToolUse payload (already decoded from JSON)."""
    request = fields.tool_request(payload)
    if request is None:
        return []
    tool, tool_input, cwd = request
    if tool in SHELL_TOOLS:
        return [fields.shell_call(toolcall.SHELL, tool_input, cwd)]
    if tool not in WRITE_TOOLS:
        return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]
    path = home_path(fields.path(tool_input, ("path",)))
    command = tool_input.get("command")
    new = tool_input.get("new_str")
    if command == CREATE:
        text = fields.text(tool_input, ("file_text", "new_str"))
        return [ToolCall(toolcall.WRITE, path, cwd=cwd, content=ended(text or ""))]
    if command == STR_REPLACE:
        old = tool_input.get("old_str")
        return [ToolCall(toolcall.COUNTED_EDIT, path, cwd=cwd, edits=[(old, new, 1)])]
    if command == INSERT:
        line = tool_input.get("insert_line")
        if isinstance(new, str) and isinstance(line, int) and not isinstance(line, bool):
            transform = (lambda text: inserted(text, line, new)) if line >= 0 else None
            return [ToolCall(toolcall.TRANSFORM, path, cwd=cwd, transform=transform)]
        return [ToolCall(toolcall.TRANSFORM, path, cwd=cwd)]  # the tool rejects it: unverified
    if command == APPEND:
        transform = (lambda text: appended(text, new)) if isinstance(new, str) else None
        return [ToolCall(toolcall.TRANSFORM, path, cwd=cwd, transform=transform)]
    return [ToolCall(toolcall.UNKNOWN, cwd=cwd)]  # not a command the tool takes: it fails


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


def render(verdict: "Verdict", event: str) -> "tuple[str, int] | tuple[str, int, str]":
    """A deny: its reason on stderr, exit 2. After a call (postToolUse, which cannot block and
    has no channel to the agent) the same text is a warning: stderr, exit 1, which Kiro shows
    the user. Anything else: nothing, exit 0."""
    from engramory.guard import decision  # noqa: PLC0415 - only once there is a verdict

    if verdict.kind != decision.DENY:
        return "", 0
    return verdict.message, WARN_EXIT if event == "post" else DENY_EXIT, STDERR


# --- lifecycle (continuity) replies ---------------------------------------------------------

LIFECYCLE_EVENTS = {"agentSpawn": "SessionStart", "userPromptSubmit": "UserPromptSubmit"}


def lifecycle_payload(payload: object, event: "str | None") -> object:
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
        import os  # noqa: PLC0415 - not on the path of a dismissed call

        session = f"kiro:{cwd if isinstance(cwd, str) and cwd else os.getcwd()}"[:256]
    return {**payload, "hook_event_name": canonical, "session_id": session}


def render_lifecycle(reply: "Reply") -> "tuple[str, int]":
    """A lifecycle reply as plain text on stdout, which Kiro adds to the agent's context.

    A context, a warning and (were one ever asked for) a held compaction are all text;
    Kiro has no compaction event, so nothing is ever held back. Always exit 0.
    """
    from engramory.continuity import policy  # noqa: PLC0415

    if reply.kind == policy.QUIET or not reply.text:
        return "", 0
    return reply.text, 0
