"""Keeping history bounded: prune snapshots older than a cut, forget a store's history.

Prune keeps the snapshots newer than the cut: the oldest of them becomes a new
root (``git commit-tree`` with no parent), each newer one is committed again on
top with its own tree, message and time, the ref moves, and ``gc`` drops the
rest. Forget deletes the repository (only when told ``--yes``).
"""

from __future__ import annotations

import os
import re
import shutil
import time

from engramory.history import gitrun, repo
from engramory.history.location import REF, Place
from engramory.history.snapshot import CACHE_NAME, history_lock
from engramory.util import fsutil
from engramory.util.errors import UsageError

_AGE = re.compile(r"([1-9][0-9]{0,5})([dhw])")
_UNIT = {"h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> int:
    """Seconds in an age such as ``180d``, ``12h`` or ``4w``."""
    matched = _AGE.fullmatch(text.strip())
    if matched is None:
        raise UsageError(f"--older-than {text!r}: give a number and a unit, e.g. 180d, 12h, 4w")
    return int(matched.group(1)) * _UNIT[matched.group(2)]


def _commit(place: Place, tree: str, parent: str | None, message: str, when: int) -> str:
    args = ["commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"]
    date = f"@{when} +0000"  # the snapshot keeps its time
    dates = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    done = gitrun.run(place.git_dir, args, data=message.encode("utf-8"), extra_env=dates)
    return done.stdout.decode("ascii").strip()


def prune(place: Place, older_than: int, now: float | None = None) -> tuple[int, int]:
    """Drop the snapshots older than ``older_than`` seconds; (dropped, kept)."""
    cut = (time.time() if now is None else now) - older_than
    with history_lock(place):
        snapshots = repo.log(place)
        kept = [s for s in snapshots if s.time >= cut]
        dropped = len(snapshots) - len(kept)
        if not dropped:
            return 0, len(kept)
        if not kept:
            kept = snapshots[:1]  # the newest stays: it is what the store looked like last
            dropped -= 1
            if not dropped:
                return 0, 1
        parent = None
        rewritten: dict[str, str] = {}
        for snap in reversed(kept):
            tree = gitrun.run(place.git_dir, ["rev-parse", f"{snap.id}^{{tree}}"]).stdout
            text = gitrun.run(place.git_dir, ["log", "-1", "--format=%B", snap.id]).stdout
            parent = _commit(
                place, tree.decode().strip(), parent, text.decode("utf-8", "replace"), snap.time
            )
            rewritten[snap.id] = parent
        _save_renamed(place, rewritten)
        gitrun.run(place.git_dir, ["update-ref", REF, parent or "", snapshots[0].id])
        gitrun.run(place.git_dir, ["reflog", "expire", "--expire=now", "--all"])
        gitrun.run(place.git_dir, ["gc", "--prune=now", "--quiet"], timeout=600)
        try:
            os.unlink(os.path.join(place.git_dir, CACHE_NAME))
        except OSError:
            pass
        return dropped, len(kept)


def _save_renamed(place: Place, rewritten: dict[str, str]) -> None:
    """Record which id each kept snapshot had, so the ids printed before (in a deletion
    alarm, a terminal, a note) still name it; ids an earlier prune recorded follow along,
    those of dropped snapshots are left out (they name nothing now)."""
    earlier = repo.renamed_ids(place)
    renamed = {old: rewritten[now] for old, now in earlier.items() if now in rewritten}
    renamed.update(rewritten)
    text = "".join(f"{old} {now}\n" for old, now in renamed.items() if old != now)
    fsutil.write_atomic(os.path.join(place.git_dir, repo.RENAMED_NAME), text.encode("ascii"))


def forget(place: Place) -> bool:
    """Delete the store's history; whether there was one."""
    if not os.path.isdir(place.git_dir):
        return False
    shutil.rmtree(place.git_dir)
    try:
        os.unlink(place.lock)
    except OSError:
        pass
    return True
