"""Codex CLI transcripts ("rollouts"): where they are, and what one record says.

Sessions live in ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``
and, once archived, flat in ``$CODEX_HOME/archived_sessions/``. Each line is
``{"timestamp", "type", "payload"}``. Research notes: transcripts-and-memoir.md §2.

Searched by default: ``event_msg`` records of type ``user_message`` (the
person) and ``agent_message`` (the agent), except injected context
(``<environment_context>``, ``<user_instructions>``, AGENTS.md text). The
``response_item`` copies of the same turns are not read (each turn counts
once). With tools: ``response_item`` function, custom-tool and shell calls
(name, then the arguments as recorded) and their outputs, role ``tool``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator

from engramory.trace.claude import joined_strings
from engramory.trace.model import ASSISTANT, TOOL, USER, Part, SessionFile
from engramory.trace.selfcall import runs_trace, runs_trace_words

SUBAGENT_IN_HEAD = True  # whether a subagent session says so in its head record
HOST = "codex"
SUFFIX = ".jsonl"
MAX_DEPTH = 4  # sessions/YYYY/MM/DD
_SESSION_ID = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\Z"
)
_INJECTED = (
    "<environment_context>",
    "<user_instructions>",
    "<user_shell_command>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
)
_EVENT_ROLES = {"user_message": USER, "agent_message": ASSISTANT}
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def session_id(path: str) -> str:
    """The session id a rollout file's name ends with (its name when it has none)."""
    stem = os.path.basename(path)[: -len(SUFFIX)]
    match = _SESSION_ID.search(stem)
    return match.group(1).lower() if match else stem


def session_files(root: str, depth: int = 0) -> Iterator[SessionFile]:
    """Every rollout file under ``root`` (date folders walked; symbolic links not followed)."""
    try:
        with os.scandir(root) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=False) and entry.name.endswith(SUFFIX):
                yield SessionFile(HOST, session_id(entry.path), entry.path)
            elif depth < MAX_DEPTH and entry.is_dir(follow_symlinks=False):
                yield from session_files(entry.path, depth + 1)
        except OSError:
            continue


def find_files(root: str, folders: Callable[[str], bool] | None = None) -> list[SessionFile]:
    """The rollout files under one root (Codex has no project folders: ``folders`` is unused)."""
    return list(session_files(root))


def head_facts(record: dict) -> tuple[str, str] | None:
    """``(cwd, session id)`` from a ``session_meta`` or ``turn_context`` record."""
    payload = record.get("payload")
    if record.get("type") not in ("session_meta", "turn_context") or not isinstance(payload, dict):
        return None
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return None
    session = payload.get("id")
    return cwd, session if isinstance(session, str) else ""


def delegated(record: dict) -> bool:
    """Whether a ``session_meta`` record opens a subagent's session (``"source":
    {"subagent": ...}``): its user messages are the prompts the agent wrote."""
    payload = record.get("payload")
    if record.get("type") != "session_meta" or not isinstance(payload, dict):
        return False
    source = payload.get("source")
    return isinstance(source, dict) and "subagent" in source


def record_cwd(record: dict) -> str | None:
    """A record's own working directory: Codex records do not carry one (the session's is used)."""
    return None


def words(text: str) -> str | None:
    """A user or agent message's text, or ``None`` when it is injected context."""
    if not text.strip() or text.lstrip().startswith(_INJECTED):
        return None
    return text


def _self_call(payload: dict) -> bool:
    """Whether a shell call runs ``engramory trace`` (its command as a string or a word list)."""
    arguments = payload.get("arguments")
    if isinstance(arguments, str) and "engramory" in arguments:
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return runs_trace(arguments)
    action = payload.get("action")
    for holder in (arguments, action):
        if not isinstance(holder, dict):
            continue
        for key in ("command", "cmd"):
            command = holder.get(key)
            if isinstance(command, str) and runs_trace(command):
                return True
            if (
                isinstance(command, list)
                and all(isinstance(word, str) for word in command)
                and runs_trace_words(command)
            ):
                return True
    return False


def _output_text(output: object) -> str:
    if isinstance(output, str):
        return output
    return joined_strings(output)


def _tool_parts(payload: dict) -> list[Part]:
    kind = payload.get("type")
    call = payload.get("call_id")
    call = call if isinstance(call, str) else None
    if kind in _CALLS:
        name = payload.get("name") if isinstance(payload.get("name"), str) else kind
        body = payload.get("arguments", payload.get("input", payload.get("action")))
        body_text = body if isinstance(body, str) else joined_strings(body)
        text = "\n".join(filter(None, [name, body_text]))
        return [Part(TOOL, text, None, call, _self_call(payload))]
    if kind in _OUTPUTS:
        text = _output_text(payload.get("output"))
        return [Part(TOOL, text, None, call)] if text else []
    return []


def parts(record: dict, tools: bool) -> list[Part]:
    """What one parsed record says, by role (empty for every record that is not searched)."""
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return []
    kind = record.get("type")
    if kind == "event_msg":
        event = payload.get("type")
        role = _EVENT_ROLES.get(event) if isinstance(event, str) else None
        message = payload.get("message")
        if role is None or not isinstance(message, str):
            return []
        text = words(message)
        return [Part(role, text)] if text is not None else []
    if kind == "response_item" and tools:
        return _tool_parts(payload)
    return []
