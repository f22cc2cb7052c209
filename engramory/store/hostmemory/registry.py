"""Every host whose memory Engramory can find, in the order ``where --all`` lists them and
discovery falls back to them."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path

from engramory.store.hostmemory.model import Found

HOSTS = ("claude", "qwen", "gemini", "codex", "hermes")
NOTES_FALLBACK = ("qwen", "gemini")
"""The hosts whose folder is an index plus notes, tried by discovery after Claude Code's
(Codex's and Hermes' folders are not notes stores)."""


def find(host: str, project: Path, environ: Mapping[str, str]) -> Found:
    """``host``'s memory folder for ``project`` (a :class:`KeyError` for an unknown host)."""
    if host not in HOSTS:
        raise KeyError(host)
    return importlib.import_module(f"engramory.store.hostmemory.{host}").find(project, environ)  # type: ignore[no-any-return]


def find_all(project: Path, environ: Mapping[str, str]) -> list[Found]:
    """Every host's memory folder for ``project``, in :data:`HOSTS` order."""
    return [find(host, project, environ) for host in HOSTS]
