"""The snapshots other code asks for, best effort: a history failure never fails the caller.

Engramory's own writes snapshot before and after (:func:`around_write`), the
continuity hooks at session start (with the mass-deletion check,
:func:`session_start`) and before a compaction, and the after-write check after
a tool call that may have written into a store (:func:`after_tool`). Without
git, or with ``ENGRAMORY_HISTORY=off``, nothing happens; any other failure is
said once on stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from engramory.store.caps import INDEX_NAME

ENV_SWITCH = "ENGRAMORY_HISTORY"
BEFORE_WAIT = 0.2
_said: list[str] = []


def enabled() -> bool:
    if os.environ.get(ENV_SWITCH, "").strip().lower() in ("off", "0", "no", "false"):
        return False
    import shutil  # noqa: PLC0415

    return shutil.which("git") is not None


def _say_once(error: BaseException) -> None:
    if _said:
        return
    from engramory.util.textfmt import printable  # noqa: PLC0415

    _said.append(str(error))
    print(printable(f"engramory: history snapshot skipped: {error}"), file=sys.stderr)


def snapshot_quietly(
    store: str, reason: str, host: str = "", session: str = "", lock_wait: float | None = None
) -> str | None:
    """Snapshot ``store``; the new id, the last one when nothing changed, ``None`` on failure
    (or when ``lock_wait`` seconds pass while another process is snapshotting it)."""
    if not enabled() or not os.path.isdir(store):
        return None
    try:
        from engramory.history import location, snapshot  # noqa: PLC0415

        context = {k: v for k, v in (("host", host), ("session", session)) if v}
        result = snapshot.take(location.place_of(store), reason, context, lock_wait)
        return result.commit or result.parent
    except snapshot.BusyError:
        return None
    except Exception as exc:
        _say_once(exc)
        return None


def command_name() -> str:
    """The Engramory command running (``new``, ``mcp``...), for a snapshot's reason."""
    cli = sys.modules.get("engramory.cli")
    return getattr(cli, "current_command", None) or "a write"


def around_write(store: str, when: str) -> None:
    """The snapshot ``before`` an Engramory write (under the store lock: it waits for no
    other snapshot, one running now keeps the same state) or ``after`` it."""
    wait = BEFORE_WAIT if when == "before" else None
    snapshot_quietly(store, f"{when} {command_name()}", "engramory", lock_wait=wait)


def session_start(store: str, host: str, session: str) -> str:
    """Check for a mass deletion since the last snapshot, then snapshot; the alarm text."""
    if not enabled():
        return ""
    try:
        from engramory.history import alarm, location  # noqa: PLC0415

        place = location.place_of(store)
        found = alarm.check(place) if location.exists(place) else None
        now = snapshot_quietly(store, "session start", host, session)
        return alarm.reminder(found, now) if found is not None else ""
    except Exception as exc:
        _say_once(exc)
        return ""


def store_of(path: str) -> str | None:
    """The store holding ``path``: the nearest folder up with an index (at most 8 up)."""
    folder = os.path.dirname(os.path.abspath(path))
    for _ in range(8):
        if os.path.isfile(os.path.join(folder, INDEX_NAME)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return None


def after_tool(paths: Iterable[str], host: str = "") -> None:
    """Snapshot each store a tool call may have written (given its index or note paths)."""
    stores = {store_of(p) for p in paths}
    for store in sorted(s for s in stores if s):
        snapshot_quietly(store, "after a tool call", host)
