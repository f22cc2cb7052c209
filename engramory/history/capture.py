"""What a snapshot keeps of a store: the index and every note, with exact modes.

Walks the store without following a symlink and without entering a hidden
folder (``.engramory/``, ``.git/``, ...); keeps every regular ``.md`` file
(the archive included), each read with a bound and never from a FIFO. A
secret value in a file is replaced by ``[redacted: <detector>]`` before it is
hashed, so history never holds it. Unchanged files (same size, mtime, inode
and mode as when last read) come from the cache instead of being read again.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass, field

from engramory.store.caps import INDEX_NAME
from engramory.store.disk import NOTE_READ_LIMIT
from engramory.util import fsutil

MAX_FILES = 100_000
RACY_SECONDS = 2.0  # a file changed this recently may change again within its mtime tick


@dataclass(frozen=True)
class Stamp:
    """What says a file is unchanged since it was last read."""

    size: int
    mtime_ns: int
    inode: int
    mode: int


@dataclass
class Entry:
    """One kept file: its git blob id, exact mode, and the secrets taken out of it."""

    sha: str
    mode: int
    redacted: list[str] = field(default_factory=list)
    stamp: Stamp | None = None
    data: bytes | None = None  # only when read in this run (and so possibly new to git)


@dataclass
class Capture:
    """A store's kept files by path (``/``-separated), and what could not be kept."""

    files: dict[str, Entry] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def manifest(self) -> dict[str, tuple[str, int]]:
        return {rel: (entry.sha, entry.mode) for rel, entry in self.files.items()}


def blob_sha(data: bytes) -> str:
    """The id git gives ``data`` as a blob."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def redact(data: bytes) -> tuple[bytes, list[str]]:
    """``data`` with each secret value replaced, and the detectors that matched."""
    from engramory.secrets.gate import may_hold_secret  # noqa: PLC0415 - the detector's gate

    text = data.decode("utf-8", "surrogateescape")
    if not may_hold_secret(text):
        return data, []
    from engramory import secrets  # noqa: PLC0415 - only for a text that may hold one

    replaced, found = secrets.replace(text)
    if not found:
        return data, []
    return replaced.encode("utf-8", "surrogateescape"), [s.detector for s in found]


def kept_paths(root: str) -> list[tuple[str, os.stat_result]]:
    """Every file a snapshot keeps, as (relative path, lstat), sorted."""
    found: list[tuple[str, os.stat_result]] = []
    pending = [""]
    while pending and len(found) < MAX_FILES:
        rel_dir = pending.pop()
        try:
            with os.scandir(os.path.join(root, rel_dir) if rel_dir else root) as entries:
                listing = list(entries)
        except OSError:
            continue
        for entry in listing:
            if entry.name.startswith("."):
                continue
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                pending.append(rel)
            elif stat.S_ISREG(info.st_mode) and entry.name.lower().endswith(".md"):
                found.append((rel, info))
    return sorted(found)


def stamp_list(info: os.stat_result) -> list[int]:
    """:func:`stamp_of` as the cache stores it."""
    return [info.st_size, info.st_mtime_ns, info.st_ino, stat.S_IMODE(info.st_mode)]


def stamp_of(info: os.stat_result) -> Stamp:
    return Stamp(info.st_size, info.st_mtime_ns, info.st_ino, stat.S_IMODE(info.st_mode))


def read_entry(root: str, rel: str) -> Entry | None:
    """Read and redact one file (no symlink followed), or ``None`` when it cannot be read."""
    try:
        data, info = fsutil.read_bounded_stat(
            os.path.join(root, *rel.split("/")), NOTE_READ_LIMIT, follow_symlinks=False
        )
    except OSError:
        return None
    kept, redacted = redact(data)
    stamp = stamp_of(info)
    fresh = time.time() - info.st_mtime_ns / 1e9 > RACY_SECONDS
    return Entry(blob_sha(kept), stamp.mode, redacted, stamp if fresh else None, kept)


def capture(
    root: str, cache: dict[str, Entry], paths: list[tuple[str, os.stat_result]] | None = None
) -> Capture:
    """The store as a snapshot keeps it, reusing ``cache`` for files whose stamp matches
    (``paths``: :func:`kept_paths`, when the caller has it already)."""
    taken = Capture()
    for rel, info in kept_paths(root) if paths is None else paths:
        known = cache.get(rel)
        if known is not None and known.stamp == stamp_of(info):
            taken.files[rel] = Entry(known.sha, known.mode, known.redacted, known.stamp)
            continue
        entry = read_entry(root, rel)
        if entry is None:
            taken.skipped.append(rel)
        else:
            taken.files[rel] = entry
    return taken


def is_index(rel: str) -> bool:
    return rel == INDEX_NAME
