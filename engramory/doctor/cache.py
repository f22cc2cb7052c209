"""The doctor's per-note result cache: a note that has not changed is not read again.

In the style of ruff's cache. What the per-note pass worked out about a note
(its findings, status, type, raw ``[[links]]``, allow comments and the facts
the store rules gather) is kept under the user's cache directory, never in
the store, keyed by the note's path and ``lstat`` (size, mtime_ns, ctime_ns,
inode, device). The whole file is only used when the run's *signature*
matches: the Engramory version, the rules that run, the options (today's date
among them, for the date-dependent rules), the caps and the allow state
(``MEMORY.md``-wide allow comments, ``.engramory/allow-secrets``).

The file is JSON lines: a header holding the signature, then one line per
note; one file per run signature (the four most recently written are kept).
It is read and written one line at a time. A file from another signature or
version is not used; a line that is not exactly the expected shape (corrupt,
truncated, foreign) ends the reading there, and the notes not yet taken are
checked afresh. A run that changed something (a note checked afresh, a line
dropped) writes a new file to a temporary name and renames it over the old
one, so concurrent doctors leave one whole file (the last writer's); a run
that took every note from the file unchanged leaves it as it is. The store
rules, the index parse and the link resolution run over the cached data,
unless nothing changed at all (``runcache.py``: the whole report is reused).

Location: ``$ENGRAMORY_CACHE_DIR``, else ``$XDG_CACHE_HOME/engramory``, else
``~/.cache/engramory``; then ``doctor/<sha256 of the store's real path>/``,
folders mode 0700. ``ENGRAMORY_NO_CACHE=1`` or ``--no-cache`` switch it off;
a cache folder that cannot be made or written means an uncached run, silently.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import stat
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

from engramory import __version__
from engramory.store.allowcomment import LineAllows
from engramory.util import fsutil

FORMAT = 2  # 2: a finding keeps its frontmatter key (Finding.key)
FILE_PREFIX, FILE_SUFFIX = "notes-", ".jsonl"
KEPT_FILES = 4  # run signatures kept per store (e.g. a session start's and a pre-commit's)
LINE_LIMIT = 4 * 1024 * 1024  # a longer line is not one this module wrote
OFF_VALUES = ("", "0", "false", "no", "off")
# A file changed this recently may change again within its timestamp tick (2 s on FAT,
# 1 s on HFS+ and ext3) keeping its lstat: as git does with a racily clean file, it is
# not trusted to its lstat (not cached; its content goes into the run cache's digest).
RACY_NS = 2_000_000_000
STALE_TEMP_NS = 3600 * 1_000_000_000  # a temporary file this old is no live run's

# One cached note: [rel, size, mtime_ns, ctime_ns, inode, device, status, type, links,
# findings, allows, facts]; ``Key`` is its first six fields.
Key = tuple[str, int, int, int, int, int]
Entry = list[Any]
ENTRY_FIELDS = 12


_DECODE = json.JSONDecoder().raw_decode  # a line as written: no leading space, no BOM


class Unencodable(ValueError):
    """A value the cache format cannot hold (the note is then simply not cached)."""


def cache_home(environ: Mapping[str, str]) -> str | None:
    """The cache's base folder for this user, or ``None`` when caching is switched off."""
    if environ.get("ENGRAMORY_NO_CACHE", "").strip().lower() not in OFF_VALUES:
        return None
    chosen = environ.get("ENGRAMORY_CACHE_DIR")
    if chosen:
        return os.path.abspath(chosen)
    xdg = environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return os.path.join(xdg, "engramory")
    home = os.path.expanduser("~")
    return os.path.join(home, ".cache", "engramory") if os.path.isabs(home) else None


def store_folder(home: str, root: str) -> str:
    """The cache folder of the store whose real path is ``root``."""
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()
    return os.path.join(home, "doctor", digest)


def private_folder(folder: str, root: str) -> str | None:
    """Make ``folder`` (each new level mode 0700); ``None`` when it cannot be made, is
    not a folder of this user's that only they can write, or lies inside the store.

    The two levels above it (``doctor/`` and the cache's base folder) must not be
    writable by others either (another user could move ``folder`` away and put a symlink
    in its place once it is checked); the base, this user's or root's, may be a sticky
    one such as ``/tmp``."""
    real = os.path.realpath(folder)
    if fsutil.is_within(real, root):
        return None
    try:
        parent = os.path.dirname(folder)
        os.makedirs(os.path.dirname(parent), mode=0o700, exist_ok=True)
        for level in (parent, folder):
            try:
                os.mkdir(level, 0o700)
            except FileExistsError:
                pass
        info = os.lstat(folder)
        above, base = os.lstat(parent), os.stat(os.path.dirname(parent))
    except OSError:
        return None
    if not _private(info) or not _private(above):
        return None
    if not stat.S_ISDIR(base.st_mode) or base.st_uid not in (_uid(), 0):
        return None
    if base.st_mode & 0o022 and not base.st_mode & stat.S_ISVTX:
        return None  # others may write the base, and it is not sticky
    return folder


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def _private(info: os.stat_result) -> bool:
    """A folder (not a symlink) of this user's that only they can write."""
    mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return stat.S_ISDIR(info.st_mode) and mine and not info.st_mode & 0o022


def settled(mtime_ns: int, ctime_ns: int, now_ns: int) -> bool:
    """Whether a file last changed at ``mtime_ns`` and ``ctime_ns`` changed longer than
    :data:`RACY_NS` before ``now_ns`` (taken before it was read): a later change then
    gives it another lstat."""
    return max(mtime_ns, ctime_ns) < now_ns - RACY_NS


def note_key(rel: str, info: os.stat_result) -> Key:
    return (rel, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def signature(fields: Mapping[str, Any]) -> str:
    """The run signature: ``fields`` with the version and format, as canonical JSON."""
    made = {"format": FORMAT, "version": __version__, **fields}
    return json.dumps(made, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def encode(value: Any) -> Any:
    """``value`` (plain data: None, bool, int, float, str, bytes, tuple, list, dict) as
    JSON data that :func:`decode` turns back into an equal value of the same types."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if type(value) is bytes:
        return {"b": base64.b64encode(value).decode("ascii")}
    if type(value) is tuple:
        return {"t": [encode(item) for item in value]}
    if type(value) is list:
        return [encode(item) for item in value]
    if type(value) is dict:
        return {"d": [[encode(k), encode(v)] for k, v in value.items()]}
    raise Unencodable(type(value).__name__)


def decode(value: Any) -> Any:
    """The inverse of :func:`encode`; :class:`ValueError` on anything it did not make."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if type(value) is list:
        return [decode(item) for item in value]
    if type(value) is dict and len(value) == 1:
        ((tag, inner),) = value.items()
        if tag == "b" and type(inner) is str:
            return _from_base64(inner)
        if tag == "t" and type(inner) is list:
            return tuple(decode(item) for item in inner)
        if tag == "d" and type(inner) is list:
            return {_hashable(decode(k)): decode(v) for k, v in map(_pair, inner)}
    raise ValueError("not a cached value")


def _from_base64(text: str) -> bytes:
    """The bytes of ``text`` when it is base64 as :func:`encode` writes it (canonical,
    padded, no newline); else :class:`ValueError`. The round trip checks it in C, where
    ``b64decode(validate=True)`` runs a regular expression."""
    raw = text.encode("ascii")  # UnicodeError (a ValueError) on anything else
    data = binascii.a2b_base64(raw)
    if binascii.b2a_base64(data, newline=False) != raw:
        raise ValueError("not cached base64")
    return data


def _pair(item: Any) -> tuple[Any, Any]:
    if type(item) is not list or len(item) != 2:
        raise ValueError("not a cached pair")
    return item[0], item[1]


def _hashable(key: Any) -> Any:
    hash(key)  # TypeError (a list) is a corrupt file too
    return key


def encode_allows(allows: LineAllows) -> list[list[Any]]:
    return [[line, sorted(rules)] for line, rules in allows.items()]


def decode_allows(raw: Any) -> LineAllows:
    if type(raw) is not list:
        raise ValueError("not cached allows")
    allows: LineAllows = {}
    if not raw:
        return allows
    for item in raw:
        line, rules = _pair(item)
        if type(line) is not int or type(rules) is not list or not _all_str(rules):
            raise ValueError("not cached allows")
        allows[line] = frozenset(rules)
    return allows


def _all_str(items: list[Any]) -> bool:
    return all(type(item) is str for item in items)


def valid_entry(entry: Any) -> bool:
    """Whether a parsed line has the shape of a cached note (the values of its facts
    are checked by :func:`decode` when used). Plain loops: it runs once per note."""
    if type(entry) is not list or len(entry) != ENTRY_FIELDS:
        return False
    rel, size, mtime, ctime, inode, device, status, note_type, links, found, allows, facts = entry
    if not (
        type(rel) is str
        and type(size) is int
        and type(mtime) is int
        and type(ctime) is int
        and type(inode) is int
        and type(device) is int
        and type(status) is str
        and (note_type is None or type(note_type) is str)
        and type(links) is list
        and type(found) is list
        and type(allows) is list
        and type(facts) is list
    ):
        return False
    for link in links:
        if type(link) is not list or len(link) != 2:
            return False
        if type(link[0]) is not str or type(link[1]) is not int:
            return False
    for finding in found:
        if not _valid_finding(finding):
            return False
    for fact in facts:
        if type(fact) is not list or len(fact) != 2 or type(fact[0]) is not str:
            return False
    return True


def _valid_finding(finding: Any) -> bool:
    """``[rule id, line or None, message, detector or None, number left out, key or None]``."""
    if type(finding) is not list or len(finding) != 6:
        return False
    rule_id, line, message, detector, more, key = finding
    return (
        type(rule_id) is str
        and (line is None or type(line) is int)
        and type(message) is str
        and (detector is None or type(detector) is str)
        and type(more) is int
        and (key is None or type(key) is str)
    )


def dumps(entry: Entry) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


class Store:
    """One store's cache file: :meth:`entries` reads the old one, :meth:`write` and
    :meth:`commit` make its replacement (:meth:`discard` drops it)."""

    def __init__(self, folder: str, run_signature: str) -> None:
        self.folder = folder
        self.path = os.path.join(folder, file_name(run_signature))
        self.signature = run_signature
        self._out: IO[str] | None = None
        self._temp: str | None = None
        self.changed = False  # whether the file written differs from the old one
        self._open_output()

    def _open_output(self) -> None:
        import tempfile  # noqa: PLC0415 - only when the cache is used

        try:
            fd, self._temp = tempfile.mkstemp(prefix=".notes-", suffix=".tmp", dir=self.folder)
            self._out = os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape")
            self._out.write(json.dumps({"signature": self.signature}) + "\n")
        except OSError:
            self.discard()

    def entries(self) -> Iterator[tuple[Entry, str]]:
        """Each cached note of the old file with its line, one at a time; nothing when the
        file is missing, unsafe, from another run signature or not wholly well formed.

        A bad line found part way raises :class:`ValueError` (the caller drops what it
        took from the earlier ones)."""
        handle = self._open_input()
        if handle is None:
            self.changed = True
            return
        with handle:
            header = handle.readline(LINE_LIMIT)
            try:
                if json.loads(header) != {"signature": self.signature}:
                    self.changed = True
                    return
            except ValueError:
                self.changed = True
                return
            for line in iter(lambda: handle.readline(LINE_LIMIT), ""):
                if not line.endswith("\n"):
                    raise ValueError("a truncated cache line")
                entry, end = _DECODE(line)
                if end != len(line) - 1:
                    raise ValueError("more than one value on a cache line")
                if not valid_entry(entry):
                    raise ValueError("a cache line of the wrong shape")
                yield entry, line

    def _open_input(self) -> IO[str] | None:
        return open_text(self.path)

    def keep(self, line: str) -> None:
        """Add a line :meth:`entries` gave, in the order it gave them."""
        changed = self.changed
        self.write(line)
        self.changed = changed

    def write(self, line: str) -> None:
        """Add one note's line (``dumps`` of its entry): the file changes."""
        self.changed = True
        if self._out is None:
            return
        try:
            self._out.write(line if line.endswith("\n") else line + "\n")
        except OSError:
            self.discard()

    def restart(self) -> None:
        """Drop what was written (the old file turned out corrupt part way)."""
        self.discard()
        self._open_output()

    def commit(self) -> None:
        """Replace the old file with the one written (nothing when writing failed or when
        it holds just what the old one did)."""
        out, temp = self._out, self._temp
        if out is None or temp is None:
            return
        if not self.changed:
            self.discard()
            return
        self._out = self._temp = None
        try:
            out.flush()
            os.fsync(out.fileno())
            out.close()
            os.replace(temp, self.path)
        except OSError:
            drop_temp(out, temp)
            return
        prune(self.folder, FILE_PREFIX, FILE_SUFFIX)

    def discard(self) -> None:
        out, temp = self._out, self._temp
        self._out = self._temp = None
        drop_temp(out, temp)


def open_text(path: str, limit: int | None = None) -> IO[str] | None:
    """``path`` opened for reading text when it is a regular file of this user's (not a
    symlink, not over ``limit`` bytes), without blocking on a FIFO; else ``None``."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
        too_large = limit is not None and info.st_size > limit
        if not stat.S_ISREG(info.st_mode) or not mine or too_large:
            os.close(fd)
            return None
    except OSError:
        os.close(fd)
        return None
    return os.fdopen(fd, "r", encoding="utf-8", errors="surrogateescape")


def write_lines(folder: str, path: str, lines: Iterable[str]) -> bool:
    """Write ``lines`` to a temporary file in ``folder`` renamed to ``path`` (mode 0600);
    ``False``, and nothing left behind, when that fails (an error making a line too)."""
    import tempfile  # noqa: PLC0415 - only when the cache is used

    try:
        fd, temp = tempfile.mkstemp(prefix=".report-", suffix=".tmp", dir=folder)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as out:
            out.writelines(lines)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except (OSError, ValueError):
        _unlink(temp)
        return False
    return True


def file_name(run_signature: str) -> str:
    """One file per run signature, so runs with other rules or options do not evict it."""
    digest = hashlib.sha256(run_signature.encode("utf-8")).hexdigest()[:24]
    return f"{FILE_PREFIX}{digest}{FILE_SUFFIX}"


def prune(folder: str, prefix: str, suffix: str) -> None:
    """Delete all but the :data:`KEPT_FILES` most recently written cache files named
    ``prefix...suffix`` (yesterday's signature, a one-off ``--select``), and any temporary
    file (``.*.tmp``) written over :data:`STALE_TEMP_NS` ago: what a run killed part way
    (a hook's timeout) left behind, never a live run's."""
    stale = time.time_ns() - STALE_TEMP_NS
    found: list[tuple[int, str]] = []
    left: list[tuple[int, str]] = []
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                name = entry.name
                if name.startswith(prefix) and name.endswith(suffix):
                    found.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
                elif name.startswith(".") and name.endswith(".tmp"):
                    left.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
    except OSError:
        return
    for _mtime, path in sorted(found, reverse=True)[KEPT_FILES:]:
        _unlink(path)
    for mtime, path in left:
        if mtime < stale:
            _unlink(path)


def drop_temp(out: IO[Any] | None, temp: str | None) -> None:
    """Close a half-written cache file and remove it (what a write that failed leaves)."""
    if out is not None:
        try:
            out.close()
        except OSError:
            pass
    if temp is not None:
        _unlink(temp)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def folder_of(home: str | None, root: str) -> str | None:
    """The cache folder of the store at ``root`` (made if need be), or ``None`` (uncached)."""
    if home is None:
        return None
    return private_folder(store_folder(home, root), root)


def open_store(folder: str | None, run_signature: str) -> Store | None:
    """The cache of a store for this run in its ``folder``, or ``None`` (run uncached)."""
    if folder is None:
        return None
    cache = Store(folder, run_signature)
    return cache if cache._out is not None else None
