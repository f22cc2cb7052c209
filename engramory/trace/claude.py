"""Claude Code transcripts: where they are, and what one record says.

Sessions live in ``<root>/<project folder>/<session id>.jsonl``; a session's
subagents in ``<session id>/subagents/*.jsonl`` (before v2.0.65: flat
``agent-<id>.jsonl`` files beside the sessions, whose records name their
session in ``sessionId``). Research notes: transcripts-and-memoir.md §1.

Searched by default: the person's words (``user`` text that is really theirs,
with ``<system-reminder>`` blocks cut out; queued prompts from ``attachment``
records) and the agent's ``text`` blocks. A ``user`` text in a subagent's transcript
(``isSidechain: true``) is the prompt the agent wrote to it: role ``agent``. Never:
``isMeta`` and compact-summary records, slash-command/shell/IDE/notification
wrappers, interruption markers, ``thinking`` blocks, synthetic and API-error
assistant lines. With tools: tool
calls (the tool's name and the input's string values, one a line) and tool
results, role ``tool``. Each text a reader makes is built only from whole
JSON strings of the record joined by newlines, so every run of plain
characters in it is also in the raw line (the search's prefilter relies on it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator

from engramory.trace.model import AGENT, ASSISTANT, TOOL, USER, Part, SessionFile
from engramory.trace.selfcall import runs_trace

SUBAGENT_IN_HEAD = False  # each record says so instead (isSidechain)
HOST = "claude"
AGENT_PREFIX = "agent-"
SUFFIX = ".jsonl"
SUBAGENTS = "subagents"
_NOT_WORDS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<ide_opened_file>",
    "<ide_selection>",
    "<task-notification>",
    "[Request interrupted by user",
)
# Linear: a literal start, a lazy run up to the first literal end (or the text's end).
_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
_SHELL_INPUT_KEYS = ("command",)


def _entries(directory: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as scan:
            return sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def project_folders(root: str) -> list[str]:
    """The project folder names under one root (symbolic links are not followed)."""
    return [entry.name for entry in _entries(root) if _is_dir(entry)]


def session_files(folder: str) -> Iterator[SessionFile]:
    """The transcript files of one project folder; a flat subagent file's session is ``""``
    (it is read from the file's records)."""
    for entry in _entries(folder):
        if _is_file(entry) and entry.name.endswith(SUFFIX):
            stem = entry.name[: -len(SUFFIX)]
            session = "" if stem.startswith(AGENT_PREFIX) else stem
            yield SessionFile(HOST, session, entry.path)
        elif _is_dir(entry):
            for sub in _entries(os.path.join(entry.path, SUBAGENTS)):
                if _is_file(sub) and sub.name.endswith(SUFFIX):
                    yield SessionFile(HOST, entry.name, sub.path)


def find_files(root: str, folders: Callable[[str], bool] | None = None) -> list[SessionFile]:
    """The transcript files under one root, in the project folders ``folders`` accepts
    (every folder when ``None``)."""
    found: list[SessionFile] = []
    for name in project_folders(root):
        if folders is None or folders(name):
            found += session_files(os.path.join(root, name))
    return found


def head_facts(record: dict) -> tuple[str, str] | None:
    """``(cwd, session id)`` from a chain record that records its working directory."""
    cwd = record.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return None
    session = record.get("sessionId")
    return cwd, session if isinstance(session, str) else ""


def record_cwd(record: dict) -> str | None:
    """The working directory one record was written in, when it says."""
    cwd = record.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else None


def person_text(text: str) -> str | None:
    """The person's own words in a ``user`` text, or ``None`` when it is not theirs.

    ``<system-reminder>`` blocks are cut out (a newline stands in their place, so
    no new run of characters forms across the cut).
    """
    if "<system-reminder>" in text:
        text = _REMINDER.sub("\n", text)
    text = text.strip()
    if not text or text.startswith(_NOT_WORDS):
        return None
    return text


def _strings(value: object, out: list[str], depth: int = 0) -> None:
    """Every string inside a JSON value, in order (keys excluded)."""
    if isinstance(value, str):
        out.append(value)
    elif depth > 64:
        return
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out, depth + 1)


def joined_strings(value: object) -> str:
    """The string values inside a JSON value, one a line."""
    out: list[str] = []
    _strings(value, out)
    return "\n".join(out)


def _result_text(content: object) -> str:
    """A ``tool_result`` block's output: its string, or its text blocks one a line."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            block["text"]
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ]
        return "\n".join(texts)
    return ""


def _is_self_call(block: dict) -> bool:
    tool_input = block.get("input")
    if not isinstance(tool_input, dict):
        return False
    return any(
        isinstance(tool_input.get(key), str) and runs_trace(tool_input[key])
        for key in _SHELL_INPUT_KEYS
    )


def _tool_call(block: dict, key: str | None) -> Part:
    name = block.get("name") if isinstance(block.get("name"), str) else "tool"
    text = "\n".join(filter(None, [name, joined_strings(block.get("input"))]))
    call = block.get("id") if isinstance(block.get("id"), str) else None
    return Part(TOOL, text, key, call, _is_self_call(block))


def _block_key(key: str | None, index: int) -> str | None:
    return None if key is None else f"{key}:{index}"


def _user_parts(record: dict, content: object, key: str | None, tools: bool) -> list[Part]:
    if record.get("isMeta") is True or record.get("isCompactSummary") is True:
        return []
    # In a subagent's transcript (a sidechain) the "user" is the agent that delegated.
    who = AGENT if record.get("isSidechain") is True else USER
    if isinstance(content, str):
        text = person_text(content)
        return [Part(who, text, key)] if text is not None else []
    parts: list[Part] = []
    for index, block in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            text = person_text(block["text"])
            if text is not None:
                parts.append(Part(who, text, _block_key(key, index)))
        elif kind == "tool_result" and tools:
            call = block.get("tool_use_id")
            text = _result_text(block.get("content"))
            if text:
                parts.append(
                    Part(
                        TOOL, text, _block_key(key, index), call if isinstance(call, str) else None
                    )
                )
    return parts


def _assistant_parts(record: dict, message: dict, key: str | None, tools: bool) -> list[Part]:
    if record.get("isApiErrorMessage") is True or message.get("model") == "<synthetic>":
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [Part(ASSISTANT, content, key)] if content.strip() else []
    parts: list[Part] = []
    for index, block in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            parts.append(Part(ASSISTANT, block["text"], _block_key(key, index)))
        elif kind == "tool_use" and tools:
            parts.append(_tool_call(block, _block_key(key, index)))
    return parts


def _queued_prompt(record: dict, key: str | None) -> list[Part]:
    attachment = record.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return []
    if attachment.get("commandMode", "prompt") != "prompt":
        return []
    prompt = attachment.get("prompt")
    if isinstance(prompt, list):
        prompt = _result_text(prompt)
    text = person_text(prompt) if isinstance(prompt, str) else None
    return [Part(USER, text, key)] if text is not None else []


def parts(record: dict, tools: bool) -> list[Part]:
    """What one parsed record says, by role (empty for every record that is not searched)."""
    kind = record.get("type")
    uuid = record.get("uuid")
    key = f"{HOST}:{uuid}" if isinstance(uuid, str) and uuid else None
    if kind == "attachment":
        return _queued_prompt(record, key)
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    if kind == "user":
        return _user_parts(record, message.get("content"), key, tools)
    if kind == "assistant":
        return _assistant_parts(record, message, key, tools)
    return []
