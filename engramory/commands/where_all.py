"""``engramory where claude --all``: every memory folder of Claude Code, and which went astray.

The survey is :mod:`engramory.history.memoryfolders`; this module prints it (text
or JSON) and names the merge command for a folder flagged orphaned, split or moved.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from engramory.history import projectrecord
from engramory.history.memoryfolders import MOVED, ORPHANED, SPLIT, Folder, as_json, survey
from engramory.store import automemory
from engramory.util.errors import EXIT_OK
from engramory.util.textfmt import plural, printable


def merge_hint(folder: Folder, folders: list[Folder]) -> str | None:
    """The ``engramory merge`` that brings a flagged folder's notes where they belong."""
    if not folder.flags:
        return None
    by_key = {f.key: f for f in folders}
    target = None
    if folder.moved_to is not None:
        target = os.fspath(automemory.resolve(Path(folder.moved_to)).path)
    elif SPLIT in folder.flags:
        living = [by_key[k] for k in folder.split_with if by_key[k].project_exists]
        target = living[0].path if living and ORPHANED in folder.flags else None
    if target is None or target == folder.path:
        return None
    return f"engramory merge {shlex.quote(folder.path)} {shlex.quote(target)}"


def folder_lines(folder: Folder, folders: list[Folder]) -> list[str]:
    """One folder's block of the text report."""
    flags = f" [{', '.join(folder.flags)}]" if folder.flags else ""
    lines = [f"{folder.path}{flags}"]
    if folder.project is None:
        lines.append("  project: unknown (no record, no session transcript with a cwd)")
    else:
        state = "exists" if folder.project_exists else "no longer exists"
        lines.append(f"  project: {folder.project} ({state}; from the {folder.project_from})")
    if folder.session_cwd is not None:
        lines.append(f"  newest session's cwd: {folder.session_cwd}")
    if folder.git_from is not None:
        lines.append(
            f"  git ({'as recorded' if folder.git_from == 'record' else 'now'}): root commit "
            f"{folder.git.root_commit or 'unknown'}, remote {folder.git.remote or 'none'}"
        )
    index = (
        "no index"
        if folder.index_bytes is None
        else f"index {plural(folder.index_lines or 0, 'line')}, "
        f"{plural(folder.index_bytes, 'byte')}"
    )
    lines.append(
        f"  {plural(folder.notes, 'note')}, {index}, last change {folder.last_change or 'unknown'}"
    )
    if folder.split_with:
        also = ", ".join(folder.split_with)
        lines.append(f"  split: the same project's memory is also in {also}")
    if folder.moved_to is not None:
        lines.append(f"  moved: the project is now at {folder.moved_to}")
    hint = merge_hint(folder, folders)
    if hint is not None:
        lines.append(f"  merge it: {hint}")
    return lines


def run_all(json_format: bool) -> int:
    """Print every memory folder under Claude Code's projects directory; exit 0."""
    projects = automemory.projects_dir(os.environ)
    folders = survey(projects, projectrecord.load())
    if json_format:
        print(
            json.dumps(
                {
                    "host": "claude",
                    "projects_dir": os.fspath(projects),
                    "record": projectrecord.record_path(),
                    "folders": [{**as_json(f), "merge": merge_hint(f, folders)} for f in folders],
                },
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    flagged = sum(1 for f in folders if f.flags)
    lines = [
        f"Claude Code's memory folders under {projects}: {len(folders)}, "
        f"{flagged} flagged ({ORPHANED}, {SPLIT} or {MOVED})"
    ]
    for folder in folders:
        lines += folder_lines(folder, folders)
    for line in lines:
        print(printable(line))
    return EXIT_OK
