"""Builders for `engramory trace` tests: small Claude Code and Codex transcript trees."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engramory.store.automemory import sanitized

CLAUDE_SESSION = "c1a0de00-1111-4222-8333-444455556666"
CODEX_SESSION = "0199f000-aaaa-4bbb-8ccc-ddddeeee0001"
CODEX_DAY = ("2026", "07", "13")


def dumps(record: object) -> str:
    """A record as the hosts write it: compact, non-ASCII kept."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write_lines(path: Path, lines: list[object]) -> Path:
    """A JSON Lines file: dicts are dumped, ``bytes`` written as they are, ``str`` as UTF-8."""
    path.parent.mkdir(parents=True, exist_ok=True)
    out = bytearray()
    for line in lines:
        if isinstance(line, bytes):
            out += line
        elif isinstance(line, str):
            out += line.encode("utf-8") + b"\n"
        else:
            out += dumps(line).encode("utf-8") + b"\n"
    path.write_bytes(bytes(out))
    return path


def user(
    uuid: str, content: object, cwd: str, ts: str, session: str = CLAUDE_SESSION, **extra: object
) -> dict:
    """A Claude Code ``user`` record."""
    record = {"type": "user", "uuid": uuid, "parentUuid": None, "isSidechain": False}
    record.update({"sessionId": session, "cwd": cwd, "timestamp": ts})
    record["message"] = {"role": "user", "content": content}
    record.update(extra)
    return record


def assistant(
    uuid: str, blocks: list[dict], cwd: str, ts: str, session: str = CLAUDE_SESSION, **extra: object
) -> dict:
    """A Claude Code ``assistant`` record."""
    record = {"type": "assistant", "uuid": uuid, "sessionId": session, "cwd": cwd, "timestamp": ts}
    record["message"] = {
        "id": f"msg_{uuid}",
        "role": "assistant",
        "model": "claude-x",
        "content": blocks,
    }
    record.update(extra)
    return record


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool_use(call: str, name: str, tool_input: dict) -> dict:
    return {"type": "tool_use", "id": call, "name": name, "input": tool_input}


def tool_result(call: str, content: object) -> dict:
    return {"type": "tool_result", "tool_use_id": call, "content": content}


def event(ts: str, kind: str, message: str) -> dict:
    """A Codex ``event_msg`` record (``user_message`` / ``agent_message``)."""
    return {"timestamp": ts, "type": "event_msg", "payload": {"type": kind, "message": message}}


def item(ts: str, payload: dict) -> dict:
    """A Codex ``response_item`` record."""
    return {"timestamp": ts, "type": "response_item", "payload": payload}


def session_meta(ts: str, session: str, cwd: str) -> dict:
    return {
        "timestamp": ts,
        "type": "session_meta",
        "payload": {"id": session, "timestamp": ts, "cwd": cwd},
    }


class Tree:
    """A throw-away home with Claude Code and Codex transcripts, and a project (a git work tree)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.claude_config = root / "claude-config"
        self.codex_home = root / "codex-home"
        self.project = root / "work" / "proj"
        self.sibling = root / "work" / "proj-x"
        for folder in (self.home, self.project / ".git", self.project / "sub", self.sibling):
            folder.mkdir(parents=True, exist_ok=True)

    @property
    def projects(self) -> Path:
        return self.claude_config / "projects"

    def folder(self, cwd: Path | str) -> Path:
        """The Claude Code project folder for a launch directory."""
        return self.projects / sanitized(str(cwd))

    def claude(self, cwd: Path | str, session: str, lines: list[object]) -> Path:
        return write_lines(self.folder(cwd) / f"{session}.jsonl", lines)

    def codex(self, session: str, lines: list[object], archived: bool = False) -> Path:
        if archived:
            folder = self.codex_home / "archived_sessions"
        else:
            folder = self.codex_home.joinpath("sessions", *CODEX_DAY)
        return write_lines(folder / f"rollout-2026-07-13T16-41-30-{session}.jsonl", lines)

    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.claude_config),
            "CODEX_HOME": str(self.codex_home),
        }

    def snapshot(self) -> dict[str, tuple[bytes, int]]:
        """Every file's bytes and mtime (ns), and every directory, under the tree."""
        found: dict[str, tuple[bytes, int]] = {}
        for base, dirs, files in os.walk(self.root):
            for name in dirs:
                found[os.path.join(base, name)] = (b"<dir>", 0)
            for name in files:
                path = os.path.join(base, name)
                found[path] = (Path(path).read_bytes(), os.stat(path).st_mtime_ns)
        return found
