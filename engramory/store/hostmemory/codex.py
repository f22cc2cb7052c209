"""Codex's memories folder: ``$CODEX_HOME/memories`` (default ``~/.codex/memories``).

One folder for every project (Codex has no per-project memory), written by
Codex's own consolidation job and kept as a git repository it manages: read
only for Engramory. Only ``memory_summary.md`` is injected; ``MEMORY.md`` is a
handbook of ``# Task Group:`` blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engramory.store.caps import INDEX_NAME
from engramory.store.hostmemory.model import DEFAULT, ENV, Found, home_folder

HOST = "codex"
LABEL = "Codex"
HOME_ENV = "CODEX_HOME"
SUMMARY = "memory_summary.md"
HANDBOOK = INDEX_NAME  # Codex names its handbook as we name the index


def find(project: Path, environ: Mapping[str, str]) -> Found:
    """Codex's memories folder (the same for every project)."""
    home, from_env = home_folder(HOME_ENV, ".codex", environ)
    rule, words = (ENV, f"${HOME_ENV}") if from_env else (DEFAULT, "the host's default: ~/.codex")
    return Found(
        HOST,
        LABEL,
        home / "memories",
        rule,
        f"{words}/memories (one folder for every project; enabled by [features] memories = true)",
        (SUMMARY,),
        notes_store=False,
        read_only=True,
    )
