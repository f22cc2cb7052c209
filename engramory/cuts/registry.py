"""The hosts whose cut Engramory knows, by the name ``check --host`` takes."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
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


def host_module(host: str) -> ModuleType:
    """The module holding ``host``'s cut, imported only when asked for, so ``check`` without
    ``--host`` starts as fast as before."""
    if host not in HOSTS:
        raise KeyError(host)
    return importlib.import_module(f"engramory.cuts.{host}")


def cut(host: str, data: bytes, name: str, version: tuple[int, ...] | None = None) -> Cut:
    """``host``'s cut of the file ``name`` whose bytes are ``data``."""
    return host_module(host).measure(data, name, version)


def loaded_file(host: str, index: str) -> str:
    """The file ``host`` loads, given the located index (Codex: ``memory_summary.md`` beside
    its ``MEMORY.md`` handbook; every other host: the index itself)."""
    name = getattr(host_module(host), "LOADED_FILE", None)
    if name is None or os.path.basename(index) == name:
        return index
    return os.path.join(os.path.dirname(index), name)
