"""Qwen Code's managed auto-memory for a project, found as the host finds it.

From its source (``packages/core/src/memory/paths.ts``), first match wins:

1. ``QWEN_CODE_MEMORY_LOCAL=1``: ``<git root>/.qwen/memory`` inside the project;
2. ``$QWEN_CODE_MEMORY_BASE_DIR/projects/<key>/memory``;
3. ``$QWEN_RUNTIME_DIR/projects/<key>/memory``;
4. ``~/.qwen/projects/<key>/memory``.

The key is the project's nearest git root (a linked worktree keeps its own:
each worktree has its own memory), symlinks resolved, sanitized as Claude
Code sanitizes it. The user layer ``<base>/memories`` and the committed team
layer ``<git root>/.qwen/team-memory`` are reported beside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from engramory.store import automemory, discovery
from engramory.store.hostmemory.model import DEFAULT, ENV, LOCAL, Found, expand_home

HOST = "qwen"
LABEL = "Qwen Code"
LOCAL_ENV = "QWEN_CODE_MEMORY_LOCAL"
BASE_ENV = "QWEN_CODE_MEMORY_BASE_DIR"
RUNTIME_ENV = "QWEN_RUNTIME_DIR"
RUNTIME_ENV_RULE = "runtime-env"


def git_root(project: Path) -> Path:
    """The nearest folder holding ``.git`` (a worktree's own), symlinks resolved; else the
    project itself."""
    real = Path(os.path.realpath(project))
    return discovery.git_work_tree(real) or real


def base(environ: Mapping[str, str]) -> tuple[Path, str, str]:
    """Qwen's memory base folder, the rule that chose it and that rule in words."""
    for variable, rule in ((BASE_ENV, ENV), (RUNTIME_ENV, RUNTIME_ENV_RULE)):
        configured = environ.get(variable, "").strip()
        if configured:
            return Path(os.path.abspath(expand_home(configured, environ))), rule, f"${variable}"
    folder = automemory.home(environ) / ".qwen"  # type: ignore[arg-type]
    return folder, DEFAULT, "the host's default: ~/.qwen/projects/<project key>/memory"


def find(project: Path, environ: Mapping[str, str]) -> Found:
    """The project's Qwen Code memory folder, with the user and team layers."""
    root = git_root(project)
    team = ("team layer", root / ".qwen" / "team-memory")
    base_folder, rule, words = base(environ)
    user = ("user layer", base_folder / "memories")
    if environ.get(LOCAL_ENV, "").strip() == "1":
        folder = root / ".qwen" / "memory"
        return Found(
            HOST, LABEL, folder, LOCAL, f"${LOCAL_ENV}=1", ("MEMORY.md",), True, False, (user, team)
        )
    folder = base_folder / "projects" / automemory.sanitized(str(root)) / "memory"
    return Found(HOST, LABEL, folder, rule, words, ("MEMORY.md",), True, False, (user, team))
