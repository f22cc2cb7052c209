"""Take a snapshot: commit the store as it is now, when it differs from the last one.

Git never touches the store: the files are read here (see :mod:`capture`) and
streamed to ``git fast-import`` as inline blobs, which writes the objects and
moves the history ref in one process, with no work tree and no index file.
A run holds the history lock (beside the repository, never in the store), so
two processes snapshotting at once make two commits or one, never a broken ref.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from engramory.history import capture, gitrun, location, repo
from engramory.history.location import REF, Place
from engramory.store.caps import INDEX_NAME, count_lines
from engramory.util import fsutil

CACHE_NAME = "engramory-cache.json"
CACHE_LIMIT = 256 * 1024 * 1024
LOCK_TIMEOUT = 30.0


@dataclass
class Change:
    """How two states of a store differ, in notes (the index counted apart)."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)


@dataclass
class Result:
    """What a snapshot run did: the new id, or ``None`` when nothing had changed."""

    commit: str | None
    parent: str | None
    change: Change
    redacted: list[str]
    skipped: list[str]


def compare(before: dict[str, tuple[str, int]], after: dict[str, tuple[str, int]]) -> Change:
    """Notes added, removed and changed (content or mode) from ``before`` to ``after``."""
    notes_before = {rel for rel in before if rel != INDEX_NAME}
    notes_after = {rel for rel in after if rel != INDEX_NAME}
    return Change(
        sorted(notes_after - notes_before),
        sorted(notes_before - notes_after),
        sorted(r for r in notes_before & notes_after if before[r] != after[r]),
    )


class BusyError(gitrun.GitError):
    """Another process held the history lock for longer than the caller would wait."""


@contextmanager
def history_lock(place: Place, timeout: float | None = None) -> Iterator[None]:
    """Hold the lock on a store's history (a file beside its repository)."""
    timeout = LOCK_TIMEOUT if timeout is None else timeout
    try:
        lock = fsutil.FileLock(place.lock, timeout).__enter__()
    except TimeoutError:
        raise BusyError(
            f"timed out after {timeout:g}s waiting for {place.lock}: another "
            "Engramory process is taking a snapshot; try again"
        ) from None
    try:
        yield
    finally:
        lock.__exit__()


# --- the cache of what was read -------------------------------------------------------------


def read_cache(place: Place) -> dict | None:
    """The cache as stored (``head``, ``index_lines``, ``files``), or ``None`` when unreadable."""
    try:
        raw = json.loads(fsutil.read_bounded(os.path.join(place.git_dir, CACHE_NAME), CACHE_LIMIT))
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("files"), dict):
        return None
    return raw


def unchanged(raw: dict | None, head: str | None, paths: list[tuple[str, os.stat_result]]) -> bool:
    """Whether every kept file still has the stamp the cache of ``head`` holds (the hot path:
    a session start with nothing changed reads no file and runs no git)."""
    if head is None or raw is None or raw.get("head") != head or len(raw["files"]) != len(paths):
        return False
    files = raw["files"]
    for rel, info in paths:
        known = files.get(rel)
        if not isinstance(known, list) or len(known) != 4 or known[3] != capture.stamp_list(info):
            return False
    return True


def load_cache(raw: dict | None, head: str | None) -> tuple[dict[str, capture.Entry], int | None]:
    """The entries read for ``head`` and its index lines; empty when stale or unreadable."""
    if raw is None or raw.get("head") != head:
        return {}, None
    try:
        entries = {
            rel: capture.Entry(
                str(sha), int(mode), [str(d) for d in redacted], capture.Stamp(*map(int, stamp))
            )
            for rel, (sha, mode, redacted, stamp) in raw["files"].items()
        }
    except (ValueError, TypeError):
        return {}, None  # a corrupt cache is ignored and rebuilt, never trusted
    lines = raw.get("index_lines")
    return entries, lines if isinstance(lines, int) else None


def save_cache(place: Place, head: str, taken: capture.Capture, index_lines: int | None) -> None:
    files = {
        rel: [
            e.sha,
            e.mode,
            e.redacted,
            [e.stamp.size, e.stamp.mtime_ns, e.stamp.inode, e.stamp.mode],
        ]
        for rel, e in taken.files.items()
        if e.stamp is not None
    }
    complete = len(files) == len(taken.files)  # then it gives the whole tree of ``head``
    text = json.dumps(
        {"head": head, "index_lines": index_lines, "complete": complete, "files": files}
    )
    location.write_private(os.path.join(place.git_dir, CACHE_NAME), text.encode())


# --- the commit -----------------------------------------------------------------------------


def quote_path(rel: str) -> bytes:
    """``rel`` C-quoted as fast-import reads it (every byte outside plain ASCII in octal)."""
    out = bytearray(b'"')
    for byte in os.fsencode(rel):
        if 0x20 <= byte < 0x7F and byte not in (0x22, 0x5C):
            out.append(byte)
        else:
            out += b"\\%03o" % byte
    return bytes(out + b'"')


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def modes_blob(taken: capture.Capture) -> bytes:
    modes = {rel: f"0o{entry.mode:o}" for rel, entry in sorted(taken.files.items())}
    return json.dumps(modes, indent=0, sort_keys=True).encode() + b"\n"


def message(
    reason: str, context: dict[str, str], change: Change, lines: tuple, redacted: list[str]
) -> str:
    """The commit message: the reason, then one ``key: value`` a line."""
    fields = dict(context)
    fields.update(
        added=str(len(change.added)),
        removed=str(len(change.removed)),
        changed=str(len(change.changed)),
        index=f"{_lines_text(lines[0])} -> {_lines_text(lines[1])}",
    )
    if redacted:
        fields["redacted"] = f"{len(redacted)} ({', '.join(sorted(set(redacted)))})"
    body = "\n".join(f"{key}: {' '.join(value.split())[:200]}" for key, value in fields.items())
    return f"{' '.join(reason.split())[:200] or 'snapshot'}\n\n{body}\n"


def _lines_text(lines: int | None) -> str:
    return "-" if lines is None else str(lines)


def stream(
    parent: str | None,
    before: dict[str, tuple[str, int]],
    taken: capture.Capture,
    text: str,
    known: dict[str, bytes],
) -> bytes:
    """The fast-import input of one commit from ``before`` to ``taken``."""
    parts = [
        b"commit " + REF.encode() + b"\n",
        f"committer {gitrun.AUTHOR} <{gitrun.EMAIL}> {int(time.time())} +0000\n".encode(),
        _data(text.encode("utf-8")),
    ]
    if parent is not None:
        parts.append(f"from {parent}\n".encode())
    for rel in sorted(set(before) - set(taken.files)):
        parts.append(b"D " + quote_path(rel) + b"\n")
    for rel, entry in sorted(taken.files.items()):
        if before.get(rel) == (entry.sha, entry.mode):
            continue
        data = entry.data if entry.data is not None else known[entry.sha]
        git_mode = b"100755" if entry.mode & 0o100 else b"100644"
        parts.append(b"M " + git_mode + b" inline " + quote_path(rel) + b"\n" + _data(data))
    parts.append(
        b"M 100644 inline " + quote_path(repo.MODES_NAME) + b"\n" + _data(modes_blob(taken))
    )
    parts.append(b"done\n")
    return b"".join(parts)


def take(
    place: Place,
    reason: str,
    context: dict[str, str] | None = None,
    lock_wait: float | None = None,
) -> Result:
    """Snapshot the store of ``place`` now (creating its history when needed), waiting at
    most ``lock_wait`` seconds for another snapshot of it (default: 30)."""
    gitrun.git_path()
    location.ensure(place)
    with history_lock(place, lock_wait):
        return _take_locked(place, reason, context or {})


def _take_locked(place: Place, reason: str, context: dict[str, str]) -> Result:
    parent = repo.head(place)
    raw = read_cache(place)
    paths = capture.kept_paths(place.store)
    if raw is not None and unchanged(raw, parent, paths):
        redacted = [str(d) for known in raw["files"].values() for d in known[2]]
        return Result(None, parent, Change(), redacted, [])
    cache, lines_before = load_cache(raw, parent)
    taken = capture.capture(place.store, cache, paths)
    redacted = [d for e in taken.files.values() for d in e.redacted]
    before = {rel: (e.sha, e.mode) for rel, e in cache.items()}
    if parent is not None and not (cache and raw is not None and raw.get("complete") is True):
        before = repo.tree(place, parent)
    if parent is not None and before == taken.manifest():
        save_cache(place, parent, taken, lines_before)
        return Result(None, parent, Change(), redacted, taken.skipped)
    change = compare(before, taken.manifest())
    index_entry = taken.files.get(INDEX_NAME)
    if index_entry is not None and index_entry.data is None and lines_before is not None:
        lines_after: int | None = lines_before  # the index is as the cache knew it
    else:
        lines_after = _index_lines(place, taken)
    if parent is not None and lines_before is None and INDEX_NAME in before:
        lines_before = count_lines(
            repo.blobs(place, [before[INDEX_NAME][0]])[before[INDEX_NAME][0]]
        )
    missing = [
        e.sha
        for rel, e in taken.files.items()
        if e.data is None and before.get(rel) != (e.sha, e.mode)
    ]
    known = repo.blobs(place, missing) if missing else {}
    context = {**context, "notes": str(sum(1 for rel in taken.files if rel != INDEX_NAME))}
    text = message(reason, context, change, (lines_before, lines_after), redacted)
    feed = stream(parent, before, taken, text, known)
    gitrun.run(place.git_dir, ["fast-import", "--quiet", "--done"], data=feed)
    commit = repo.head(place)
    if commit is None or commit == parent:
        raise location.broken(place, "fast-import did not move the history ref")
    save_cache(place, commit, taken, lines_after)
    return Result(commit, parent, change, redacted, taken.skipped)


def _index_lines(place: Place, taken: capture.Capture) -> int | None:
    entry = taken.files.get(INDEX_NAME)
    if entry is None:
        return None
    if entry.data is not None:
        return count_lines(entry.data)
    return count_lines(repo.blobs(place, [entry.sha])[entry.sha])
