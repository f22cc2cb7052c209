"""The hosts whose cut Engramory knows, by the name ``check --host`` takes."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engramory.cuts.model import Cut

HOSTS = ("claude", "qwen", "gemini", "codex", "hermes")
CLAUDE_VERSION_ENV = "ENGRAMORY_CLAUDE_VERSION"


def parse_version(raw: str) -> tuple[int, ...] | None:
    """``"2.1.211"`` as ``(2, 1, 211)``; ``None`` for anything that is not dotted numbers."""
    parts = raw.strip().lstrip("vV").split(".")
    if not raw.strip() or not all(part.isdigit() and part.isascii() for part in parts):
        return None
    return tuple(int(part) for part in parts)


def claude_version(flag: str | None, environ: dict[str, str] | None = None) -> str | None:
    """The Claude Code version to measure for: the flag, else ``$ENGRAMORY_CLAUDE_VERSION``."""
    if flag:
        return flag
    env = os.environ if environ is None else environ
    return env.get(CLAUDE_VERSION_ENV, "").strip() or None


def cut(host: str, data: bytes, name: str, version: tuple[int, ...] | None = None) -> Cut:
    """``host``'s cut of the file ``name`` whose bytes are ``data``.

    The host modules load here, so ``check`` without ``--host`` starts as fast as before.
    """
    from engramory.cuts import claude, codex, gemini, hermes, qwen  # noqa: PLC0415

    if host == "codex":
        return codex.cut(data)
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    decoded = text.decode("utf-8", "replace")
    if host == "claude":
        return claude.cut(decoded, version)
    if host == "qwen":
        return qwen.cut(decoded)
    if host == "hermes":
        return hermes.cut(decoded, name)
    return gemini.cut(decoded)
