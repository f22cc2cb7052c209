"""Helpers for the ``engramory fix`` tests: tree digests, bodies, running fix in-process."""

from __future__ import annotations

import io
import os
import stat
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from engramory.cli import main
from engramory.store.frontmatter import decode, parse

BACKUPS = ".engramory"
FIXABLE_RULES = {
    "orphan",
    "duplicate-pointer",
    "pointer-section-mismatch",
    "missing-date",
    "invalid-date",
    "name-mismatch",
    "missing-field",
}


def digest(root: Path, skip_backups: bool = True) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and mode under ``root`` (the backup folder and .git left out)."""
    found = {}
    for directory, dirs, files in os.walk(root):
        if skip_backups and Path(directory) == root:
            dirs[:] = [d for d in dirs if d not in (BACKUPS, ".git")]
        for name in files:
            path = Path(directory) / name
            info = path.lstat()
            data = path.read_bytes() if stat.S_ISREG(info.st_mode) else b"<special>"
            found[path.relative_to(root).as_posix()] = (data, stat.S_IMODE(info.st_mode))
    return found


def bodies(root: Path) -> dict[str, str]:
    """The body of every note (text after the frontmatter), by path."""
    out = {}
    for rel, (data, _mode) in digest(root).items():
        if rel.endswith(".md") and rel != "MEMORY.md":
            parsed = parse(decode(data))
            out[rel] = parsed.body if parsed.closed else decode(data)
    return out


def fix(*args: str) -> tuple[int, str, str]:
    """Run ``engramory fix ARGS`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["fix", *args])
    return code, out.getvalue(), err.getvalue()


def undo_id(stdout: str) -> str:
    """The backup ID from ``--apply``'s "undo: engramory fix --undo ID" line."""
    (line,) = [x for x in stdout.splitlines() if x.startswith("undo: engramory fix --undo ")]
    return line.split()[4]


def fixable_counts(findings) -> Counter:
    return Counter(f.rule for f in findings if f.rule in FIXABLE_RULES)
