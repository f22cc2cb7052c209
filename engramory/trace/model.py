"""The records passed between the trace modules: one message, one session file."""

from __future__ import annotations

from typing import NamedTuple

USER = "user"
ASSISTANT = "assistant"
TOOL = "tool"
AGENT = "agent"  # a prompt the agent wrote to a subagent (in the subagent's transcript)
ROLES = (USER, ASSISTANT, TOOL, AGENT)


class Part(NamedTuple):
    """What a host reader makes of one record: a role, its text, and a key for dedupe.

    ``key`` is unique per record and block (``None`` when the record needs no
    dedupe); ``call`` is the tool-call id a tool call or its output carries,
    ``self_call`` marks a call that runs ``engramory trace`` itself.
    """

    role: str
    text: str
    key: str | None = None
    call: str | None = None
    self_call: bool = False


class Message(NamedTuple):
    """One message found in a transcript (the JSON Lines output's fields, in order)."""

    host: str
    session: str
    cwd: str | None
    timestamp: str | None
    role: str
    text: str
    file: str
    line: int


class SessionFile(NamedTuple):
    """One transcript file: its host, the session it belongs to, its path, and the
    working directory its session recorded first (``None`` until read)."""

    host: str
    session: str
    path: str
    cwd: str | None = None
