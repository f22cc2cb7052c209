"""Continuity-sync bookkeeping: which agent sessions have work the store has not absorbed yet.

The continuity sync itself is the agent's job (SKILL.md §7.2); a hook cannot
judge what deserves a note. What a hook can do is keep a little state in the
store, in ``.engramory-state.json``: per session, whether prompts arrived since
the agent last acknowledged a sync (*dirty*), whether an automatic compaction
crossed unsynced work (*needs reconcile*), and the index's size and hash at the
acknowledgement. Never a prompt, a transcript, a note or a title.

Reading is fail-closed: a record that cannot prove it is clean is dirty. A
state file that is a symlink, too large, not JSON or of a newer schema is
refused with an error and left exactly as it is, never silently reset. Every
read-modify-write runs under an OS file lock (``fcntl.flock`` / ``msvcrt``)
with a bounded wait; ``status`` reads without a lock. At most 64 sessions are
kept: clean ones are evicted first, and unsynced ones that had to go are
counted.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engramory.store import breach
from engramory.store.caps import Caps, Measurement
from engramory.store.discovery import INDEX_NAME
from engramory.util import fsutil
from engramory.util.errors import EngramoryError

STATE_NAME = ".engramory-state.json"
LOCK_NAME = ".engramory-state.lock"
SCHEMA_VERSION = 1
MAX_SESSIONS = 64
MAX_STORED_SESSIONS = 1024
STATE_LIMIT = 1024 * 1024
MAX_ID_LENGTH = 256
EXPLICIT = "explicit"  # sync when the user asks, and before a compaction
ASSISTED = "assisted"  # also at meaningful milestones
MODES = (EXPLICIT, ASSISTED)
SOURCES = ("startup", "resume", "clear", "compact")
LOCK_TIMEOUT = 2.0
LOCK_POLL = 0.025


class StateError(EngramoryError):
    """The state cannot be read or changed safely; the message says what to do."""


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def valid_session_id(value: object) -> str:
    """A session id as stored: a trimmed string of 1-256 printable characters."""
    if not isinstance(value, str):
        raise StateError("the session id is missing or not a string")
    text = value.strip()
    if not text or len(text) > MAX_ID_LENGTH or any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        raise StateError("the session id is empty, too long or holds control characters")
    return text


@dataclass
class Session:
    """One session's bookkeeping (see the module docstring)."""

    dirty: bool = False
    needs_reconcile: bool = False
    dirty_generation: int = 0
    synced_generation: int = 0
    host: str = ""
    mode: str = EXPLICIT
    source: str = ""
    unobserved: bool = False
    last_event: str = ""
    last_trigger: str = ""
    updated_at: str = ""
    dirty_at: str = ""
    synced_at: str = ""
    index_sha256: str = ""
    index_lines: int | None = None
    index_bytes: int | None = None

    @property
    def unsynced(self) -> bool:
        return self.dirty or self.needs_reconcile

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if value not in ("", None)}


@dataclass
class State:
    """The whole state file."""

    sessions: dict[str, Session] = field(default_factory=dict)
    last_session_id: str | None = None
    dropped_unsynced: int = 0
    updated_at: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "updated_at": self.updated_at or None,
            "last_session_id": self.last_session_id,
            "dropped_unsynced_sessions": self.dropped_unsynced,
            "sessions": {sid: s.as_dict() for sid, s in sorted(self.sessions.items())},
        }


# --- reading, fail-closed ----------------------------------------------------------------


def _generation(record: dict[str, Any], key: str, sid: str) -> int:
    value = record.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StateError(f"session {sid!r} has an invalid {key}: the state file was tampered with")
    return value


def _text(record: dict[str, Any], key: str, limit: int = 64) -> str:
    value = record.get(key, "")
    return value[:limit] if isinstance(value, str) else ""


def _session(sid: str, record: object) -> Session:
    if not isinstance(record, dict):
        raise StateError(f"session {sid!r} is not an object")
    dirty_gen = _generation(record, "dirty_generation", sid)
    synced_gen = _generation(record, "synced_generation", sid)
    dirty = record.get("dirty")
    needs = record.get("needs_reconcile")
    lines = record.get("index_lines")
    size = record.get("index_bytes")
    session = Session(
        # fail closed: a record that cannot prove it is clean is dirty
        dirty=dirty if isinstance(dirty, bool) else True,
        needs_reconcile=needs if isinstance(needs, bool) else False,
        dirty_generation=dirty_gen,
        synced_generation=synced_gen,
        host=_text(record, "host", 16),
        mode=_text(record, "mode", 16) if record.get("mode") in MODES else EXPLICIT,
        source=_text(record, "source", 16) if record.get("source") in (*SOURCES, "other") else "",
        unobserved=record.get("unobserved") is True,
        last_event=_text(record, "last_event", 32),
        last_trigger=_text(record, "last_trigger", 16),
        updated_at=_text(record, "updated_at"),
        dirty_at=_text(record, "dirty_at"),
        synced_at=_text(record, "synced_at"),
        index_sha256=_text(record, "index_sha256"),
        index_lines=lines if isinstance(lines, int) and not isinstance(lines, bool) else None,
        index_bytes=size if isinstance(size, int) and not isinstance(size, bool) else None,
    )
    if synced_gen < dirty_gen:
        session.dirty = True
    return session


def _dropped(value: object) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value.is_integer() and 0 <= value <= 2**53:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 0


def parse_state(text: str) -> State:
    """Validate and normalise a state document; raises :class:`StateError` when it cannot."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StateError(f"the state file is not valid JSON ({exc})") from None
    except RecursionError:  # a state file is three levels deep; thousands means tampering
        raise StateError(
            "the state file is nested far deeper than any state Engramory writes: it was "
            "tampered with"
        ) from None
    if not isinstance(data, dict):
        raise StateError("the state file is not a JSON object")
    version = data.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise StateError(
            f"the state file has schema version {version}, newer than this Engramory "
            f"({SCHEMA_VERSION}): upgrade Engramory; the file was left as it is"
        )
    if version != SCHEMA_VERSION:
        raise StateError("the state file has no valid schema_version")
    sessions = data.get("sessions", {})
    if not isinstance(sessions, dict) or len(sessions) > MAX_STORED_SESSIONS:
        raise StateError("the state file's sessions are not an object of at most 1024 entries")
    state = State(dropped_unsynced=_dropped(data.get("dropped_unsynced_sessions")))
    for key, record in sessions.items():
        if valid_session_id(key) != key:
            raise StateError("the state file holds a session id that is not in canonical form")
        state.sessions[key] = _session(key, record)
    last = data.get("last_session_id")
    if last is not None:
        last = valid_session_id(last)
    state.last_session_id = last if last in state.sessions else None
    updated = data.get("updated_at")
    state.updated_at = updated if isinstance(updated, str) else ""
    return state


def state_path(store: Path) -> Path:
    return store / STATE_NAME


def load(store: Path) -> State:
    """The store's state (empty when there is none); refuses anything it cannot trust."""
    path = state_path(store)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return State()
    except OSError as exc:
        raise StateError(f"cannot inspect {path}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise StateError(f"{path} is a symlink: refusing to read or replace it")
    try:
        raw = fsutil.read_bounded(path, STATE_LIMIT)
    except fsutil.FileTooLargeError:
        raise StateError(f"{path} is larger than 1 MiB: refusing to read it") from None
    except OSError as exc:
        raise StateError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise StateError(f"{path} is not UTF-8 text") from None
    try:
        return parse_state(text)
    except StateError as exc:
        raise StateError(f"{path}: {exc}") from None


def save(store: Path, state: State) -> None:
    """Write the state atomically, mode 0600."""
    state.updated_at = now()
    text = json.dumps(state.as_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    fsutil.write_atomic(state_path(store), text.encode("utf-8"), mode=0o600)


# --- locking ----------------------------------------------------------------------------------


@contextmanager
def locked(
    store: Path, timeout: float | None = None, *, leave_no_file: bool = False
) -> Iterator[None]:
    """Hold the store's state lock (an OS lock on ``.engramory-state.lock``).

    A holder that pauses is never displaced: the lock belongs to the open file,
    and the OS releases it when the holder exits. Waits at most ``timeout``
    (default: :data:`LOCK_TIMEOUT`, read at each call so that it can be changed).
    With ``leave_no_file`` a lock file this call had to create is removed again
    before the lock is released (the note writers leave a store as they found it
    but for what they wrote); a waiter that then gets the lock on the unlinked
    file sees that it is no longer the file at the path, and locks that one. Such a
    file holds its creator's process ID, so one left by a writer that was killed
    (a stale lock: its process is gone) is removed by the next such call.
    """
    if timeout is None:
        timeout = LOCK_TIMEOUT
    path = store / LOCK_NAME
    deadline = time.monotonic() + timeout
    while True:
        fd, created = _open_lock(path)
        if created and leave_no_file:
            _sign(fd)
        try:
            _acquire(fd, path, timeout, deadline)
        except BaseException:
            os.close(fd)
            raise
        if _still_linked(fd, path):
            created = created or (leave_no_file and _creator_gone(fd))
            break
        fsutil.release_lock(fd)
        os.close(fd)
    if leave_no_file:  # a store write: history keeps the store as it was before it
        _snapshot(store, "before")
    try:
        try:
            yield
        finally:
            if created and leave_no_file:
                try:
                    os.unlink(path)
                except OSError:
                    pass
            fsutil.release_lock(fd)
    finally:
        os.close(fd)
        if leave_no_file:  # ... and after it, once the lock is released (others may write)
            _snapshot(store, "after")


def _snapshot(store: Path, when: str) -> None:
    """A history snapshot around a store write (issue 37); best effort, never raises."""
    from engramory.history import auto  # noqa: PLC0415 - only for writes

    auto.around_write(os.fspath(store), when)


def _open_lock(path: Path) -> tuple[int, bool]:
    """The lock file's descriptor, and whether this call created the file."""
    flags = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0)
    while True:
        try:
            try:
                return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600), True
            except FileExistsError:
                return os.open(path, flags), False
        except FileNotFoundError:
            if not path.parent.is_dir():
                raise StateError(f"cannot open the lock file {path}: no such directory") from None
            # else it was removed between the two opens: try again
        except OSError as exc:
            raise StateError(f"cannot open the lock file {path}: {exc.strerror or exc}") from None


def _sign(fd: int) -> None:
    """Write this process's ID into a lock file it created (see :func:`_creator_gone`)."""
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError:
        pass  # unsigned: never taken for stale


def _creator_gone(fd: int) -> bool:
    """Whether the lock file (locked by this process now) names a process that no longer
    exists: a writer killed before it could remove it (POSIX; elsewhere never)."""
    if os.name != "posix":
        return False
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return False
    if not text.isdigit() or int(text) == os.getpid():
        return False
    try:
        os.kill(int(text), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False
    return False


def _still_linked(fd: int, path: Path) -> bool:
    """Whether the locked descriptor is still the file at ``path`` (not one removed meanwhile)."""
    try:
        here, there = os.fstat(fd), os.lstat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _acquire(fd: int, path: Path, timeout: float, deadline: float) -> None:
    while True:
        try:
            fsutil.try_lock(fd)
            return
        except OSError:
            if time.monotonic() >= deadline:
                raise StateError(
                    f"timed out after {timeout:g}s waiting for the state lock {path}: another "
                    "Engramory process is updating it; try again"
                ) from None
            time.sleep(LOCK_POLL)


# --- pruning --------------------------------------------------------------------------------


def prune(state: State, current: str | None) -> None:
    """Keep at most 64 sessions: the current one, then unsynced ones, then the newest."""
    if len(state.sessions) <= MAX_SESSIONS:
        return

    def newest_first(items: list[tuple[str, Session]]) -> list[tuple[str, Session]]:
        return sorted(items, key=lambda item: (item[1].updated_at, item[0]), reverse=True)

    others = [(sid, s) for sid, s in state.sessions.items() if sid != current]
    protected = newest_first([(sid, s) for sid, s in others if s.unsynced])
    clean = newest_first([(sid, s) for sid, s in others if not s.unsynced])
    room = MAX_SESSIONS - (1 if current in state.sessions else 0)
    kept = protected[:room]
    state.dropped_unsynced += len(protected) - len(kept)
    kept += clean[: max(room - len(kept), 0)]
    keep_ids = {sid for sid, _ in kept} | ({current} if current in state.sessions else set())
    state.sessions = {sid: s for sid, s in state.sessions.items() if sid in keep_ids}
    if state.last_session_id not in state.sessions:
        state.last_session_id = current if current in state.sessions else None


# --- the index ------------------------------------------------------------------------------


INDEX_MISSING = "MEMORY.md does not exist in the store"


@dataclass(frozen=True)
class IndexInfo:
    """The index as ``mark-synced`` and ``status`` see it."""

    ok: bool
    path: Path
    measured: Measurement | None = None
    sha256: str = ""
    error: str = ""


def inspect_index(store: Path, caps: Caps) -> IndexInfo:
    """Measure ``MEMORY.md``: a regular file, not a symlink, inside the store, within the caps."""
    path = store / INDEX_NAME
    if os.path.islink(path):
        return IndexInfo(False, path, error="MEMORY.md is a symlink")
    if not os.path.isfile(path):
        return IndexInfo(False, path, error=INDEX_MISSING)
    if fsutil.escapes(path, store) is not None:
        return IndexInfo(False, path, error="MEMORY.md resolves outside the store")
    try:
        raw = fsutil.read_bounded(path, caps.hard_bytes)
    except fsutil.FileTooLargeError as exc:
        return _over_cap(path, Measurement(None, exc.size), caps)
    except OSError as exc:
        return IndexInfo(False, path, error=f"cannot read MEMORY.md ({exc.strerror or exc})")
    measured = Measurement.of_raw(raw)
    if measured.over(caps.hard_lines, caps.hard_bytes):
        return _over_cap(path, measured, caps)
    return IndexInfo(True, path, measured, hashlib.sha256(raw).hexdigest())


def _over_cap(path: Path, measured: Measurement, caps: Caps) -> IndexInfo:
    over_hard = breach.words(measured, caps)[0]
    error = f"MEMORY.md is {breach.size_text(measured)}, {over_hard}"
    return IndexInfo(False, path, measured, error=error)


# --- operations ----------------------------------------------------------------------------


def _check_store(store: Path) -> None:
    if not store.is_dir():
        raise StateError(f"{store} is not an existing memory store directory")


@contextmanager
def _session_update(
    store: Path, sid: str, host: str, mode: str, event: str
) -> Iterator[tuple[Session, bool]]:
    """One hook event's read-modify-write, under the lock.

    Yields the session (created if new, stamped with the host, mode, event and
    time) and whether it is new; prunes and saves when the body succeeds.
    """
    _check_store(store)
    with locked(store):
        state = load(store)
        session = state.sessions.get(sid)
        new = session is None
        if session is None:
            session = state.sessions[sid] = Session(host=host, mode=mode)
        session.host = host or session.host
        session.mode = mode
        session.updated_at = now()
        session.last_event = event
        state.last_session_id = sid
        yield session, new
        prune(state, sid)
        save(store, state)


def record_session_start(store: Path, sid: str, host: str, mode: str, source: object) -> None:
    """A session started (or resumed, cleared, compacted): never changes its sync flags."""
    with _session_update(store, sid, host, mode, "SessionStart") as (session, _new):
        session.source = source if source in SOURCES else "other"


def mark_dirty(store: Path, sid: str, host: str, mode: str) -> None:
    """A prompt arrived: the session has work the store may not hold yet."""
    with _session_update(store, sid, host, mode, "UserPromptSubmit") as (session, _new):
        session.dirty = True
        session.dirty_generation += 1
        session.dirty_at = now()


def record_precompact(store: Path, sid: str, host: str, mode: str, trigger: str) -> Session:
    """A compaction is about to happen; returns the session as it now stands.

    A session never seen before counts as dirty (unobserved): it cannot prove
    its work was synced. A non-manual compaction of a dirty session marks it as
    needing reconciliation at the next session start.
    """
    with _session_update(store, sid, host, mode, "PreCompact") as (session, new):
        if new:
            session.dirty = True
            session.unobserved = True
        session.last_trigger = trigger
        if trigger != "manual" and session.dirty:
            session.needs_reconcile = True
    return session


@dataclass(frozen=True)
class SyncResult:
    session_id: str
    changed: bool
    index: IndexInfo


def mark_synced(store: Path, caps: Caps, session_id: str | None = None) -> SyncResult:
    """Record that the agent finished the continuity sync (it never touches a note)."""
    _check_store(store)
    with locked(store):
        state = load(store)
        sid = _choose_session(state, session_id)
        index = inspect_index(store, caps)
        if not index.ok:
            raise StateError(
                f"{index.error}: compact or repair the index first, then acknowledge the sync "
                "(the session stays unsynced)"
            )
        session = state.sessions[sid]
        measured = index.measured or Measurement(0, 0)  # set on every loadable index
        current = (
            not session.unsynced
            and session.synced_generation == session.dirty_generation
            and (session.index_sha256, session.index_lines, session.index_bytes)
            == (index.sha256, measured.lines, measured.bytes)
        )
        if current:
            return SyncResult(sid, False, index)
        session.dirty = False
        session.needs_reconcile = False
        session.unobserved = False
        session.synced_generation = session.dirty_generation
        session.synced_at = session.updated_at = now()
        session.last_event = "mark-synced"
        session.index_sha256 = index.sha256
        session.index_lines = measured.lines
        session.index_bytes = measured.bytes
        state.last_session_id = sid
        prune(state, sid)
        save(store, state)
        return SyncResult(sid, True, index)


def _choose_session(state: State, session_id: str | None) -> str:
    if session_id is not None:
        sid = valid_session_id(session_id)
        if sid not in state.sessions:
            raise StateError(f"no session {sid!r} is recorded in this store")
        return sid
    unsynced = sorted(sid for sid, s in state.sessions.items() if s.unsynced)
    if len(unsynced) == 1:
        return unsynced[0]
    if len(unsynced) > 1:
        shown = ", ".join(repr(s) for s in unsynced[:5]) + (" ..." if len(unsynced) > 5 else "")
        raise StateError(
            f"{len(unsynced)} sessions are unsynced ({shown}): pass --session-id to say which "
            "one you synced"
        )
    if state.last_session_id is not None:
        return state.last_session_id
    raise StateError("no session is recorded in this store yet: there is nothing to acknowledge")
