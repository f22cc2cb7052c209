"""Helpers for the history tests: a store of notes with pointers, and a picture of a folder."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from engramory.history import location

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def make_store(root: Path, notes: int, prefix: str = "note") -> Path:
    """A store: ``notes`` notes (every third one private, mode 0600) and one pointer each."""
    root.mkdir(parents=True, exist_ok=True)
    pointers = ["# Memory index", "", "## project"]
    for i in range(notes):
        slug = f"{prefix}-{i:03d}"
        path = root / f"{slug}.md"
        path.write_text(
            f"---\nname: {slug}\ndescription: fact {i}\ntype: project\n---\nThe fact {i}.\n"
        )
        if i % 3 == 0:
            path.chmod(0o600)
        pointers.append(f"- [{slug}]({slug}.md) — fact {i}")
    (root / "MEMORY.md").write_text("\n".join(pointers) + "\n")
    return root


def picture(root: Path) -> dict[str, tuple[int, int, bytes | str]]:
    """Every entry under ``root`` (hidden ones included): mode, mtime and bytes (or link)."""
    found: dict[str, tuple[int, int, bytes | str]] = {}
    for folder, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):
                content: bytes | str = Path(path).read_bytes()
            else:
                content = "dir" if stat.S_ISDIR(info.st_mode) else os.readlink(path)
            found[os.path.relpath(path, root)] = (info.st_mode, info.st_mtime_ns, content)
    return found


def place(store: Path) -> location.Place:
    return location.place_of(str(store))
