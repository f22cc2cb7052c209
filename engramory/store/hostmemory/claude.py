"""Claude Code's auto-memory folder as a :class:`~.model.Found` (the rules stay in
:mod:`engramory.store.automemory`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engramory.store import automemory, discovery
from engramory.store.hostmemory.model import Found

HOST = "claude"
LABEL = "Claude Code"


def find(project: Path, environ: Mapping[str, str]) -> Found:
    """The project's Claude Code auto-memory folder and the rule that chose it."""
    resolution = automemory.resolve(project, environ)  # type: ignore[arg-type]
    return Found(
        HOST,
        LABEL,
        resolution.path,
        resolution.rule,
        discovery.native_reason(resolution, project),
        ("MEMORY.md",),
        notes_store=True,
    )
