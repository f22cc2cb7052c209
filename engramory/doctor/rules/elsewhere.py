"""The doctor's rule on a project's memory kept in another folder too (issue 39).

A project moved, renamed or cloned twice gets a second Claude Code memory folder
(the host keys it by the project's path), and the agent loads only one. The
projects record (:mod:`engramory.history.projectrecord`) knows each project's
git identity; this rule names the other folders whose project shares the
store's project's root commit or remote. Cheap: the record and the projects
directory's listing are read, git is not run. Quiet when the store's project is
not in the record, or has no git identity recorded.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from pathlib import Path

from engramory.doctor.context import StoreView
from engramory.doctor.model import INFO, STORE, Example, Issue, rule, sample_note
from engramory.history.memoryfolders import Elsewhere, elsewhere
from engramory.store import automemory, discovery
from engramory.store.discovery import INDEX_NAME

_RECORD = (
    '{"schema_version": 1, "projects": ['
    '{"path": "{root}", "key": "-here", "root_commit": "%s", "remote": null},'
    '{"path": "{root}/gone/app", "key": "-gone-app", "root_commit": "%s", "remote": null}]}'
)
_ONE = "a" * 40
_ENV = {"CLAUDE_CONFIG_DIR": "{root}/claude", "ENGRAMORY_STATE_DIR": "{root}/state"}
_OTHER_FOLDER = {"claude/projects/-gone-app/memory/MEMORY.md": "- [a](a.md) — why\n"}


def found_elsewhere(root: str) -> list[Elsewhere]:
    """The other folders of the store's project (see the module docstring); never raises."""
    try:
        from engramory.history import projectrecord  # noqa: PLC0415

        record = projectrecord.load()
        if not record:
            return []
        store = Path(root)
        projects = automemory.projects_dir(os.environ)
        if automemory.is_auto_memory(store):
            mine = [p for p in record.values() if p.key == store.parent.name]
        else:
            project = automemory.canonical_root(discovery.project_root(store.parent))
            mine = [p for p in record.values() if p.path == os.fspath(project)]
        if not mine:
            return []
        return elsewhere(max(mine, key=lambda p: p.last_seen), record, projects)
    except Exception:
        return []


@rule(
    "memory-elsewhere",
    INFO,
    "the project's memory is also in another Claude Code folder (orphaned or split)",
    fires=(
        Example(
            "the record says a folder whose project path is gone has the same root commit",
            {"n0.md": sample_note("n0")},
            outside={"state/projects.json": _RECORD % (_ONE, _ONE), **_OTHER_FOLDER},
            environ=_ENV,
        ),
    ),
    quiet=(
        Example("a store whose project is not in the record", {"n0.md": sample_note("n0")}),
        Example(
            "the other folder's project has another root commit",
            {"n0.md": sample_note("n0")},
            outside={"state/projects.json": _RECORD % (_ONE, "b" * 40), **_OTHER_FOLDER},
            environ=_ENV,
        ),
    ),
    scope=STORE,
    fix="bring its notes here with `engramory merge FOLDER` (a plan; add --apply), after "
    "`engramory where claude --all` shows both",
)
def memory_elsewhere(view: StoreView) -> Iterator[Issue]:
    """Fires: a recorded project with the same root commit or remote has a memory folder of its
    own. Quiet: the project is not recorded, or no other folder shares its identity."""
    for other in found_elsewhere(view.root):
        state = "orphaned: its project" if other.orphaned else "split: the same project at"
        yield (
            INDEX_NAME,
            None,
            f"this project's memory is also in {other.folder} ({state} {other.project}"
            f"{' no longer exists' if other.orphaned else ''}): "
            f"`engramory merge {shlex.quote(other.folder)} {shlex.quote(view.root)}` "
            "brings its notes here",
        )
