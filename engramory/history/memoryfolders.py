"""Every memory folder under Claude Code's projects directory, and which ones went astray.

For each ``<config dir>/projects/<key>/memory`` folder: the project path its key
stands for (from the projects record, else from the newest session transcript
in ``<key>/``: the first record holding a ``cwd``, read with a bound), whether
that path exists now, the cwd its newest session recorded, the path's git
identity (live when the path exists, else as recorded), note count, index size
and last change. Then the flags, from identities only, never from folder names:

* ``orphaned``: the project path is known and no longer exists;
* ``split``: two or more folders whose projects share a root commit or a remote,
  or whose newest sessions recorded the same cwd;
* ``moved``: an orphan whose recorded root commit or remote is an existing
  project's (that project is named).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from engramory.history.gitidentity import GitIdentity, identity
from engramory.history.projectrecord import Project
from engramory.store import automemory
from engramory.store.caps import INDEX_NAME, count_lines
from engramory.util import fsutil

MEMORY = "memory"
TRANSCRIPT_HEAD_LIMIT = 256 * 1024
TRANSCRIPT_RECORDS = 50
INDEX_LIMIT = 4 * 1024 * 1024
CWD_LIMIT = 4096  # a longer "cwd" is no path a host recorded: not shown
ORPHANED = "orphaned"
SPLIT = "split"
MOVED = "moved"


@dataclass
class Folder:
    """One memory folder and what is known of its project (see the module docstring)."""

    key: str
    path: str
    project: str | None = None
    project_from: str | None = None  # "record" or "session"
    project_exists: bool | None = None
    session_cwd: str | None = None
    git: GitIdentity = field(default_factory=GitIdentity)
    git_from: str | None = None  # "git" or "record"
    notes: int = 0
    index_lines: int | None = None
    index_bytes: int | None = None
    last_change: str | None = None
    flags: list[str] = field(default_factory=list)
    split_with: list[str] = field(default_factory=list)
    moved_to: str | None = None


def first_cwd(transcript: str) -> str | None:
    """The ``cwd`` of the first of a transcript's first records that holds one (bounded read)."""
    try:
        fd = os.open(transcript, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, TRANSCRIPT_HEAD_LIMIT)
    except OSError:
        return None
    finally:
        os.close(fd)
    for line in head.split(b"\n")[:TRANSCRIPT_RECORDS]:
        if b'"cwd"' not in line:
            continue
        try:
            record = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        cwd = record.get("cwd") if isinstance(record, dict) else None
        if isinstance(cwd, str) and 0 < len(cwd) <= CWD_LIMIT and "\0" not in cwd:
            return cwd
    return None


def newest_session_cwd(project_folder: str) -> str | None:
    """The recorded cwd of the newest ``*.jsonl`` transcript (by modification time)."""
    try:
        with os.scandir(project_folder) as scan:
            transcripts = [
                (entry.stat(follow_symlinks=False).st_mtime, entry.path)
                for entry in scan
                if entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False)
            ]
    except OSError:
        return None
    for _mtime, path in sorted(transcripts, reverse=True):
        cwd = first_cwd(path)
        if cwd is not None:
            return cwd
    return None


def project_of_key(key: str, cwd: str) -> str:
    """The folder ``key`` stands for, given a cwd recorded under it: ``cwd`` or the nearest of
    its parents whose name the host makes ``key`` (a session may start in a sub-folder)."""
    windows = len(cwd) > 2 and cwd[1] == ":"
    parts = cwd.replace("\\", "/").rstrip("/").split("/") if windows else cwd.split("/")
    while parts:
        joined = ("\\" if windows else "/").join(parts) or "/"
        if automemory.sanitized(joined) == key:
            return joined
        parts = parts[:-1]
    return cwd


def _stamp(mtime: float) -> str:
    return datetime.fromtimestamp(mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def measure(folder: Folder) -> None:
    """Note count (top-level ``.md`` files but the index), index size, last change."""
    newest = None
    try:
        with os.scandir(folder.path) as scan:
            for entry in scan:
                info = entry.stat(follow_symlinks=False)
                newest = max(newest or info.st_mtime, info.st_mtime)
                if entry.name == INDEX_NAME or not entry.name.lower().endswith(".md"):
                    continue
                folder.notes += int(entry.is_file(follow_symlinks=False))
    except OSError:
        return
    folder.last_change = None if newest is None else _stamp(newest)
    try:
        raw = fsutil.read_bounded_stat(
            os.path.join(folder.path, INDEX_NAME), INDEX_LIMIT, follow_symlinks=False
        )[0]
    except (OSError, ValueError):
        return
    folder.index_bytes = len(raw)
    folder.index_lines = count_lines(raw.decode("utf-8", "replace"))


def survey(projects_dir: Path, record: dict[str, Project], with_git: bool = True) -> list[Folder]:
    """Every memory folder under ``projects_dir`` (sorted by key), measured and flagged."""
    by_key: dict[str, Project] = {}
    for project in sorted(record.values(), key=lambda p: p.last_seen):
        by_key[project.key] = project  # the latest seen wins
    try:
        keys = sorted(entry.name for entry in os.scandir(projects_dir) if not entry.is_symlink())
    except OSError:
        return []
    folders = []
    for key in keys:
        memory = projects_dir / key / MEMORY
        if fsutil.kind(memory)[0] != "dir" or os.path.islink(memory):
            continue
        folder = Folder(key, os.fspath(memory))
        folder.session_cwd = newest_session_cwd(os.fspath(projects_dir / key))
        recorded = by_key.get(key)
        if recorded is not None:
            folder.project, folder.project_from = recorded.path, "record"
        elif folder.session_cwd is not None:
            folder.project = project_of_key(key, folder.session_cwd)
            folder.project_from = "session"
        if folder.project is not None:
            folder.project_exists = os.path.isdir(folder.project)
        if folder.project_exists and with_git:
            folder.git, folder.git_from = identity(folder.project), "git"
        if (folder.git_from is None or not folder.git.known) and recorded is not None:
            folder.git = GitIdentity(recorded.root_commit, recorded.remote)
            folder.git_from = "record" if folder.git.known else None
        measure(folder)
        folders.append(folder)
    flag(folders, record)
    return folders


def _groups(folders: list[Folder]) -> dict[tuple[str, str], list[Folder]]:
    groups: dict[tuple[str, str], list[Folder]] = {}
    for folder in folders:
        marks = [("root", folder.git.root_commit), ("remote", folder.git.remote)]
        marks.append(("cwd", folder.session_cwd))
        for kind, value in marks:
            if value:
                groups.setdefault((kind, value), []).append(folder)
    return groups


def flag(folders: list[Folder], record: dict[str, Project]) -> None:
    """Set each folder's flags, ``split_with`` and ``moved_to`` (see the module docstring)."""
    for group in _groups(folders).values():
        if len(group) < 2:
            continue
        for folder in group:
            others = [f.key for f in group if f is not folder and f.key not in folder.split_with]
            folder.split_with += others
    living = [f for f in folders if f.project_exists]
    living_record = [p for p in record.values() if os.path.isdir(p.path)]
    for folder in folders:
        folder.split_with.sort()
        if folder.project_exists is False:
            folder.flags.append(ORPHANED)
            if folder.git_from == "record":
                folder.moved_to = _moved_to(folder, living, living_record)
        if folder.split_with:
            folder.flags.append(SPLIT)
        if folder.moved_to is not None:
            folder.flags.append(MOVED)


def _same(a: GitIdentity, root_commit: str | None, remote: str | None) -> bool:
    return bool(
        (a.root_commit and a.root_commit == root_commit) or (a.remote and a.remote == remote)
    )


def _moved_to(folder: Folder, living: list[Folder], record: list[Project]) -> str | None:
    """The existing project whose identity is the orphan's recorded one, if any."""
    for other in living:
        if other is not folder and _same(folder.git, other.git.root_commit, other.git.remote):
            return other.project
    for project in record:
        if project.path != folder.project and _same(
            folder.git, project.root_commit, project.remote
        ):
            return project.path
    return None


def as_json(folder: Folder) -> dict[str, object]:
    """One folder as ``where --all --format json`` prints it."""
    return {
        "key": folder.key,
        "path": folder.path,
        "project": folder.project,
        "project_from": folder.project_from,
        "project_exists": folder.project_exists,
        "session_cwd": folder.session_cwd,
        "root_commit": folder.git.root_commit,
        "remote": folder.git.remote,
        "git_from": folder.git_from,
        "notes": folder.notes,
        "index": {"lines": folder.index_lines, "bytes": folder.index_bytes},
        "last_change": folder.last_change,
        "flags": folder.flags,
        "split_with": folder.split_with,
        "moved_to": folder.moved_to,
    }


@dataclass(frozen=True)
class Elsewhere:
    """Another memory folder of the same project: its folder, its project's path, and whether
    that path is gone (an orphan) or still there (a split)."""

    folder: str
    project: str
    orphaned: bool


def elsewhere(me: Project, record: dict[str, Project], projects_dir: Path) -> list[Elsewhere]:
    """The memory folders under ``projects_dir`` of record entries that share ``me``'s root
    commit or remote (``me``'s own key apart). Reads the listing and stats; runs no git."""
    try:
        listed = {entry.name for entry in os.scandir(projects_dir)}
    except OSError:
        return []
    found: dict[str, Elsewhere] = {}
    mine = GitIdentity(me.root_commit, me.remote)
    for other in sorted(record.values(), key=lambda p: p.path):
        if other.key == me.key or other.key not in listed or other.key in found:
            continue
        if not _same(mine, other.root_commit, other.remote):
            continue
        memory = projects_dir / other.key / MEMORY
        if fsutil.kind(memory)[0] == "dir" and not os.path.islink(memory):
            found[other.key] = Elsewhere(
                os.fspath(memory), other.path, not os.path.isdir(other.path)
            )
    return list(found.values())
