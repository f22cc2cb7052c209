"""Where a store's history lives: one bare repository per store, outside the store.

``$ENGRAMORY_HISTORY_DIR`` or ``$XDG_STATE_HOME/engramory/history`` (default
``~/.local/state/engramory/history``), mode 0700, holding
``<name>-<hash of the store's real path>.git``; the store's path is recorded
in the repository (``engramory-store``), and the snapshot lock beside it.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass

from engramory.history import gitrun
from engramory.util import fsutil
from engramory.util.xdg import engramory_folder

ENV_HISTORY_DIR = "ENGRAMORY_HISTORY_DIR"
STORE_RECORD = "engramory-store"
REF = "refs/heads/history"
FORGET_HINT = "engramory history forget --yes"
_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


class HistoryBrokenError(gitrun.GitError):
    """The repository is missing pieces or corrupt: the message says how to start afresh."""


@dataclass(frozen=True)
class Place:
    """The history of one store: its real path and its repository's."""

    store: str
    git_dir: str

    @property
    def lock(self) -> str:
        return self.git_dir + ".lock"


def base_dir(environ: dict[str, str] | None = None) -> str:
    """The folder that holds every store's history repository."""
    env = os.environ if environ is None else environ
    if env.get(ENV_HISTORY_DIR, "").strip():
        return engramory_folder("STATE", env, ENV_HISTORY_DIR)
    return os.path.join(engramory_folder("STATE", env), "history")


def place_of(store: str, environ: dict[str, str] | None = None) -> Place:
    """The history of ``store`` (not created)."""
    real = fsutil.resolve(store)
    name = _NAME_CHARS.sub("-", os.path.basename(real) or "root").strip("-.")[:40] or "store"
    tag = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return Place(real, os.path.join(base_dir(environ), f"{name}-{tag}.git"))


def exists(place: Place) -> bool:
    return os.path.isdir(place.git_dir)


def ensure(place: Place) -> None:
    """Create the repository (and its 0700 folder) when missing; record the store's path."""
    base = os.path.dirname(place.git_dir)
    os.makedirs(base, mode=0o700, exist_ok=True)
    if exists(place):
        return
    temp = f"{place.git_dir}.new-{os.getpid()}"
    gitrun.run(temp, ["init", "--quiet", "--bare", "--template=", temp])
    os.chmod(temp, 0o700)
    write_private(os.path.join(temp, STORE_RECORD), place.store.encode() + b"\n")
    gitrun.run(temp, ["symbolic-ref", "HEAD", REF])
    try:
        os.rename(temp, place.git_dir)
    except OSError:  # another process made it first
        import shutil  # noqa: PLC0415

        shutil.rmtree(temp, ignore_errors=True)


def write_private(path: str, data: bytes) -> None:
    """Replace a file of the history folder (mode 0600; temp file + rename). Not the store's
    write path: these files are Engramory's own, and a lost cache is rebuilt."""
    folder = os.path.dirname(path)
    fd, temp = tempfile.mkstemp(prefix=".engramory-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, 0o600)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def broken(place: Place, reason: str) -> HistoryBrokenError:
    """The error for a repository git cannot read, naming the way to start afresh."""
    return HistoryBrokenError(
        f"the history of {place.store} at {place.git_dir} cannot be read ({reason}); "
        f"`{FORGET_HINT}` deletes it so that the next snapshot starts afresh"
    )
