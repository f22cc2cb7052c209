"""The projects record: every project Engramory has seen, with the git identity of its path.

A memory folder is keyed by its project's path; once the path is gone (moved,
renamed, deleted) nothing on disk says which repository it was. So whenever a
command sees a project (``where``, ``doctor``, ``init``, the session-start hook)
it records the project's path, git root commit, remote URL and memory-folder
key in ``$XDG_STATE_HOME/engramory/projects.json`` (``$ENGRAMORY_STATE_DIR``
overrides the folder; default ``~/.local/state/engramory``). The folder is mode
0700, the file 0600, replaced atomically under the folder's lock.

Best effort and cheap: :func:`remember` never raises, and a project already
recorded today is not looked at again (git is not run, nothing is written). A
record that cannot be read (not JSON, another shape, too large, a symlink) is
ignored and rebuilt; an entry of the wrong shape (a path that is not absolute
included) is dropped.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from engramory.util import fsutil
from engramory.util.xdg import engramory_folder

ENV_STATE_DIR = "ENGRAMORY_STATE_DIR"
LOCK_NAME = ".projects.lock"
RECORD_NAME = "projects.json"
SCHEMA_VERSION = 1
RECORD_LIMIT = 4 * 1024 * 1024
MAX_PROJECTS = 2000
FIELD_LIMIT = 4096
FIELDS = ("path", "key", "root_commit", "remote", "last_seen")


@dataclass(frozen=True)
class Project:
    """One project as last seen: its path, memory-folder key, git identity and the day."""

    path: str
    key: str
    root_commit: str | None = None
    remote: str | None = None
    last_seen: str = ""


def state_dir(environ: dict[str, str] | os._Environ[str] | None = None) -> str:
    """``$ENGRAMORY_STATE_DIR``, else ``$XDG_STATE_HOME/engramory`` (``~/.local/state``)."""
    return engramory_folder("STATE", os.environ if environ is None else environ, ENV_STATE_DIR)


def record_path(environ: dict[str, str] | os._Environ[str] | None = None) -> str:
    return os.path.join(state_dir(environ), RECORD_NAME)


def today() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d")


def _entry(value: object) -> Project | None:
    """An entry as recorded, or ``None`` when it is not of the record's shape."""
    if not isinstance(value, dict):
        return None
    fields = {}
    for name in FIELDS:
        item = value.get(name)
        if item is not None and (not isinstance(item, str) or len(item) > FIELD_LIMIT):
            return None
        fields[name] = item
    if not fields["path"] or not fields["key"]:
        return None
    if not os.path.isabs(fields["path"]) or "\0" in fields["path"]:
        return None  # recorded paths are absolute: a relative one would be read from the cwd
    fields["last_seen"] = fields["last_seen"] or ""
    return Project(**fields)


def parse(data: bytes) -> dict[str, Project]:
    """Path -> project from the record's bytes; ``{}`` for anything that is not a record."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return {}
    if not isinstance(document, dict) or not isinstance(document.get("projects"), list):
        return {}
    found: dict[str, Project] = {}
    for value in document["projects"]:
        project = _entry(value)
        if project is not None:
            found[project.path] = project
    return found


def render(projects: dict[str, Project]) -> bytes:
    """The record's bytes: the newest ``MAX_PROJECTS`` entries, sorted by path."""
    kept = sorted(projects.values(), key=lambda p: p.last_seen, reverse=True)[:MAX_PROJECTS]
    entries = [asdict(p) for p in sorted(kept, key=lambda p: p.path)]
    document = {"schema_version": SCHEMA_VERSION, "projects": entries}
    return (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def load(environ: dict[str, str] | os._Environ[str] | None = None) -> dict[str, Project]:
    """The record (``{}`` when there is none or it cannot be read); never raises."""
    path = record_path(environ)
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return {}
        data = fsutil.read_bounded_stat(path, RECORD_LIMIT, follow_symlinks=False)[0]
    except (OSError, ValueError):
        return {}
    return parse(data)


def _private_folder(folder: str) -> None:
    os.makedirs(folder, mode=0o700, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise OSError(f"{folder}: not a folder")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(folder, 0o700)


def update(seen: Project, environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """Put ``seen`` in the record under the lock (re-read inside it); whether it was written."""
    folder = state_dir(environ)
    _private_folder(folder)
    with fsutil.FileLock(os.path.join(folder, LOCK_NAME)):
        projects = load(environ)
        if projects.get(seen.path) == seen:
            return False
        projects[seen.path] = seen
        fsutil.write_atomic(os.path.join(folder, RECORD_NAME), render(projects), 0o600)
    return True


def observe(project: Path, key: str) -> Project:
    """``project`` as seen now: its git identity looked up (git runs here)."""
    from engramory.history.gitidentity import identity  # noqa: PLC0415 - runs git

    found = identity(project)
    return Project(os.fspath(project), key, found.root_commit, found.remote, today())


def remember(
    project: Path, environ: dict[str, str] | os._Environ[str] | None = None
) -> Project | None:
    """Record ``project`` (its canonical git root) unless it was recorded today; never raises.

    The project as recorded, or ``None`` when recording failed.
    """
    try:
        from engramory.store import automemory  # noqa: PLC0415

        root = automemory.canonical_root(project)
        known = load(environ).get(os.fspath(root))
        if known is not None and known.last_seen == today():
            return known
        seen = observe(root, automemory.sanitized(os.fspath(root)))
        update(seen, environ)
        return seen
    except Exception:  # best effort: recording never fails the command that sees a project
        return None
