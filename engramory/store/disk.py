"""A memory store on disk: walk it, read it boundedly, resolve pointers safely.

This is the doctor's I/O edge. Everything here assumes the store is
attacker-influenceable:

* the walk never follows a symlinked directory and never enters hidden
  directories; a symlinked note is resolved first and never read when it
  leads out of the store;
* every read is bounded (the index by a parse limit, a note by 4 MiB), opens
  non-blocking and checks for a regular file with ``fstat`` first, so a FIFO
  can never hang the doctor;
* a pointer target is classified *before* any file-system call: URL schemes,
  absolute and drive paths and control characters are decided on the string,
  and containment is checked on the resolved path with a separator boundary.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from urllib.parse import unquote

from engramory.store.caps import Caps, Measurement
from engramory.store.discovery import INDEX_NAME
from engramory.store.frontmatter import decode
from engramory.util import fsutil

ARCHIVE = "archive"
TEMPLATES = "templates"
NOTE_READ_LIMIT = 4 * 1024 * 1024
_CONTROL = re.compile("[\x00-\x1f\x7f]")  # one character class: linear
REMOTE_SCHEMES = frozenset({"http", "https", "ftp", "ftps", "ssh", "mailto"})

LIVE = "live"

# What reading a file gave.
READ_OK = "ok"
MISSING = "missing"
LOOP = "loop"
ESCAPES = "escapes"
UNREADABLE = "unreadable"
NOT_REGULAR = "not-regular"
TOO_LARGE = "too-large"

# How a pointer target classifies.
EXTERNAL = "external"
ANCHOR = "anchor"
BAD_SCHEME = "bad-scheme"
SELF = "self"
FOUND = "found"
NOT_SLUG = "not-slug"  # a [[wikilink]] that names a path, not a note


def area_of(rel: str) -> str:
    """``archive``, ``templates`` or ``live``: the first path component decides, any case."""
    first = rel.split("/", 1)[0].casefold() if "/" in rel else ""
    if first in (ARCHIVE, TEMPLATES):
        return first
    return LIVE


class NoteFile:
    """A ``.md`` file found by the walk (``rel`` is ``/``-separated, store-relative).

    ``status`` is ``ok``, ``escapes`` (a symlink leading out), ``missing`` (a
    dangling symlink), ``loop`` (a symlink loop) or ``not-regular`` (FIFO,
    socket, device, directory).
    ``target`` is the resolved path of a symlinked note, else ``None`` (open
    ``<root>/<rel>``). ``info``: a regular file's ``lstat`` as the walk saw it,
    ``(size, mtime_ns, ctime_ns, inode, device)``, when the walk was asked for it.
    A slotted class: a store may hold 100,000 of these.
    """

    __slots__ = ("info", "name", "nested", "rel", "slug", "status", "target")

    def __init__(
        self,
        rel: str,
        status: str,
        target: str | None = None,
        info: tuple[int, int, int, int, int] | None = None,
    ) -> None:
        self.rel = rel
        self.status = status
        self.target = target
        self.info = info
        slash = rel.rfind("/")
        self.name = rel[slash + 1 :]
        self.slug = self.name[:-3]
        self.nested = slash >= 0

    @property
    def symlink(self) -> bool:
        return self.target is not None

    def path(self, root: str) -> str:
        """What to open: the symlink's resolved target, or the file under ``root``."""
        if self.target is not None:
            return self.target
        rel = self.rel if not self.nested or os.sep == "/" else self.rel.replace("/", os.sep)
        return root + os.sep + rel if not root.endswith(os.sep) else root + rel

    def __repr__(self) -> str:
        return f"NoteFile({self.rel!r}, {self.status!r})"


@dataclass
class Walk:
    """The store's files: live notes, archived note names, unreadable directories.

    ``dirs`` are the directories found (hidden ones are skipped; ``templates/``
    is listed but not entered); ``loose`` the files outside ``archive/`` that are not notes
    and are named like a handoff (``handoff*``, ``hand-off*``, any case): the
    content rules look for a parallel store in both. ``linked_out`` are the
    folders that are symlinks leading out of the store (never entered).
    """

    notes: list[NoteFile] = field(default_factory=list)
    archived: list[str] = field(default_factory=list)
    bad_dirs: list[tuple[str, str]] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    loose: list[str] = field(default_factory=list)
    linked_out: list[str] = field(default_factory=list)


HANDOFF_PREFIXES = ("handoff", "hand-off")


def _classify_file_entry(
    entry: os.DirEntry[str], rel: str, root: str, with_stat: bool = False
) -> NoteFile:
    if with_stat:  # the common case first: a regular file, known by its one lstat
        info = _lstat_key(entry)
        if info is not None:
            return NoteFile(rel, READ_OK, info=info)
    if entry.is_symlink():
        target = os.path.realpath(entry.path)
        if not fsutil.is_within(target, root):
            return NoteFile(rel, ESCAPES, target)
        try:
            mode = os.stat(target).st_mode
        except OSError as exc:
            return NoteFile(rel, LOOP if exc.errno == errno.ELOOP else MISSING, target)
        return NoteFile(rel, READ_OK if stat.S_ISREG(mode) else NOT_REGULAR, target)
    try:
        regular = entry.is_file(follow_symlinks=False)
    except OSError:
        regular = False
    if regular and with_stat:
        return NoteFile(rel, READ_OK, info=_lstat_key(entry))
    return NoteFile(rel, READ_OK if regular else NOT_REGULAR)


def _lstat_key(entry: os.DirEntry[str]) -> tuple[int, int, int, int, int] | None:
    """A regular file's identity and version from its entry (one ``lstat``, kept by the
    entry), or ``None`` when it is gone or no longer a regular file."""
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def _shared_ints(
    info: tuple[int, int, int, int, int], shared: dict[int, int]
) -> tuple[int, int, int, int, int]:
    """``info`` with one int object for each size and device seen in the walk, and the
    mtime's for a ctime equal to it: about 9 MB less at 100,000 notes (an int over 256
    is an object of its own)."""
    size, mtime, ctime, inode, device = info
    same_ctime = mtime if ctime == mtime else ctime
    size, device = shared.setdefault(size, size), shared.setdefault(device, device)
    return (size, mtime, same_ctime, inode, device)


def _folder_out(path: str, root: str) -> bool:
    """Whether the symlink ``path`` leads to a folder outside the store ``root``."""
    target = os.path.realpath(path)
    return not fsutil.is_within(target, root) and os.path.isdir(target)


def _not_a_note(found: Walk, entry: os.DirEntry[str], rel: str, live: bool, root: str) -> None:
    """Record a walked entry that is not a note: a symlinked folder leading out of the
    store, a loose handoff file outside ``archive/``."""
    if entry.is_symlink() and _folder_out(entry.path, root):
        found.linked_out.append(rel)
    if live and entry.name.casefold().startswith(HANDOFF_PREFIXES):
        found.loose.append(rel)


def walk(root: str, with_stat: bool = False) -> Walk:
    """Walk a resolved store root: hidden entries skipped, symlinked directories not followed.

    ``templates/`` is not walked at all; ``archive/`` only for the names of
    the notes it holds. Entries are visited in sorted order, so the result is
    deterministic. ``with_stat``: keep each regular note's ``lstat`` (``NoteFile.info``).
    """
    found = Walk()
    shared: dict[int, int] = {}
    pending: list[tuple[str, str]] = [(root, "")]
    while pending:
        directory, rel_dir = pending.pop()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError as exc:
            found.bad_dirs.append((rel_dir or ".", fsutil.os_error_text(exc)))
            continue
        area = area_of(rel_dir + "/x") if rel_dir else LIVE
        subdirs = []
        entries.reverse()
        while entries:  # each entry (and the stat it keeps) let go once it is classified
            entry = entries.pop()
            name = entry.name
            if name.startswith("."):
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                found.dirs.append(rel)
                if area_of(rel + "/x") != TEMPLATES:
                    subdirs.append((entry.path, rel))
                continue
            if not name.lower().endswith(".md"):
                _not_a_note(found, entry, rel, area != ARCHIVE, root)
                continue
            if not rel_dir and name == INDEX_NAME:
                continue
            if area == ARCHIVE:
                found.archived.append(rel)
            else:
                note = _classify_file_entry(entry, rel, root, with_stat)
                if note.info is not None:
                    note.info = _shared_ints(note.info, shared)
                found.notes.append(note)
        pending.extend(reversed(subdirs))
    found.notes.sort(key=lambda n: n.rel)
    return found


class Read:
    """The outcome of a bounded read: ``data`` is set only when ``status`` is ``ok``."""

    __slots__ = ("data", "error", "identity", "size", "status")

    def __init__(
        self,
        status: str,
        data: bytes | None = None,
        size: int | None = None,
        identity: tuple[int, int] | None = None,
        error: str = "",
    ) -> None:
        self.status = status
        self.data = data
        self.size = size
        self.identity = identity
        self.error = error


NAME_NOT_UTF8 = "its file name is not valid UTF-8: rename it to a UTF-8 name"


def utf8_name(rel: str) -> bool:
    """Whether a walked path is valid UTF-8 (the bytes of one that is not come back from
    the file system as lone surrogates, which no note, index or JSON text can hold)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def contained(root: str, rel: str) -> str | None:
    """The real path of store-relative ``rel`` (``/``-separated) under the resolved ``root``,
    or ``None`` when it leads out of the store.

    Every folder on the way is resolved, not only the last name: a symlinked
    ``archive/`` (or any sub-folder, or the file itself) that leads out, or a
    ``..`` that climbs out, gives ``None``. The one containment test for a file
    a command or the MCP server opens by name; what :func:`walk` found is
    inside already (it never enters a symlinked folder).
    """
    real = os.path.realpath(os.path.join(root, *rel.split("/")))
    return real if fsutil.is_within(real, root) else None


def read_file(path: str, limit: int) -> Read:
    """Read one in-store file (already resolved) without following a last-moment symlink."""
    try:
        data, info = fsutil.read_bounded_stat(path, limit, follow_symlinks=False)
    except fsutil.FileTooLargeError as exc:
        return Read(TOO_LARGE, size=exc.size)
    except fsutil.NotRegularFileError:
        return Read(NOT_REGULAR, error="not a regular file")
    except FileNotFoundError:
        return Read(MISSING, error="it disappeared during the check")
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink swapped in after the walk
            return Read(UNREADABLE, error="it became a symlink during the check; not followed")
        return Read(UNREADABLE, error=fsutil.os_error_text(exc))
    return Read(READ_OK, data, len(data), (info.st_dev, info.st_ino))


@dataclass(frozen=True)
class IndexFile:
    """The store's ``MEMORY.md``: ``text`` (BOM stripped) only when ``status`` is ``ok``.

    ``measured`` is set when it was read, and (bytes only) when it was too large.
    """

    status: str
    symlink: bool = False
    measured: Measurement | None = None
    text: str | None = None
    error: str = ""


def read_index(root: str, caps: Caps) -> IndexFile:
    """Find and read ``<root>/MEMORY.md``, never outside the store, never past the parse limit."""
    path = os.path.join(root, INDEX_NAME)
    try:
        is_link = stat.S_ISLNK(os.lstat(path).st_mode)
    except FileNotFoundError:
        return IndexFile(MISSING)
    except OSError as exc:
        return IndexFile(UNREADABLE, error=fsutil.os_error_text(exc))
    if is_link:
        if fsutil.escapes(path, root) is not None:
            return IndexFile(ESCAPES, symlink=True)
        path = fsutil.resolve(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        loop = exc.errno == errno.ELOOP
        return IndexFile(
            MISSING, symlink=is_link, error=fsutil.SYMLINK_LOOP if loop else "a dangling symlink"
        )
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        return IndexFile(MISSING, symlink=is_link, error=kind)
    result = read_file(path, caps.read_limit())
    if result.status == TOO_LARGE:
        return IndexFile(TOO_LARGE, is_link, Measurement(None, result.size or 0))
    if result.data is None:
        return IndexFile(UNREADABLE, is_link, error=result.error)
    raw = result.data
    return IndexFile(READ_OK, is_link, Measurement.of_raw(raw), decode(raw))


@dataclass(frozen=True)
class Target:
    """A classified pointer target.

    ``kind`` is ``external``, ``anchor``, ``bad-scheme``, ``escapes``,
    ``missing``, ``self`` (the index itself) or ``found``; for ``found``,
    ``rel`` is the store-relative path, ``area`` its area and ``identity``
    the file's ``(device, inode)``.
    """

    kind: str
    path: str = ""
    rel: str = ""
    area: str = ""
    identity: tuple[int, int] | None = None
    reason: str = ""


def _scheme(path: str) -> str | None:
    colon = path.find(":")
    if colon < 2:  # no scheme, or a one-letter Windows drive
        return None
    scheme = path[:colon]
    if not (scheme[0].isascii() and scheme[0].isalpha()):
        return None
    if all(c.isascii() and (c.isalnum() or c in "+.-") for c in scheme):
        return scheme.lower()
    return None


def classify_text(target: str) -> Target | None:
    """Classify a target from its text alone; ``None`` means "resolve it on disk".

    Order (DESIGN §4): drop ``?query``/``#anchor``, percent-decode, ``\\`` -> ``/``;
    Windows drive and UNC forms and absolute paths escape; then the URL scheme.
    """
    return _classify(target.strip())[0]


def _classify(raw: str) -> tuple[Target | None, str]:
    """:func:`classify_text` on a stripped target, with its path part (``""`` when none)."""
    if not raw:
        return Target(MISSING, reason="the link has an empty target"), ""
    if raw.startswith("#"):
        return Target(ANCHOR, raw), ""
    path = _local_path(raw)
    return _classify_path(raw, path), path


def _local_path(raw: str) -> str:
    """A target's path part: ``?query``/``#anchor`` dropped, percent-decoded, ``/``-separated."""
    cut = min((i for i in (raw.find("?"), raw.find("#")) if i >= 0), default=len(raw))
    return unquote(raw[:cut], errors="replace").replace("\\", "/")


def _classify_path(raw: str, path: str) -> Target | None:
    if not path:
        return Target(ANCHOR, raw)
    if _CONTROL.search(path):
        return Target(MISSING, path, reason="the target holds control characters")
    if path.startswith("/") or (len(path) >= 2 and path[1] == ":" and path[0].isalpha()):
        return Target(ESCAPES, path, reason="an absolute path is never inside it")
    scheme = _scheme(path)
    if scheme is not None:
        if scheme in REMOTE_SCHEMES or scheme.startswith("git+"):
            return Target(EXTERNAL, path)
        return Target(BAD_SCHEME, path, reason=f"the {scheme}: scheme")
    return None


def plain_notes(found: Walk) -> frozenset[str]:
    """The ``rel`` of every walked note reached without a symlink: a plain regular file.

    The walk never enters a symlinked directory and marks a symlinked note
    with its ``target``, so ``<root>/<rel>`` of these has no symlinked
    component: it is inside the store as written, no ``realpath`` needed.
    """
    return frozenset(n.rel for n in found.notes if n.target is None and n.status == READ_OK)


def _plain_rel(path: str) -> str | None:
    """``path`` (``/``-separated) without empty and ``.`` parts; ``None`` when it holds ``..``.

    A ``..`` after a symlinked directory climbs from the symlink's target, so
    only the filesystem can say where it leads.
    """
    parts = [p for p in path.split("/") if p and p != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def _resolve_plain(root: str, path: str, rel: str) -> Target | None:
    """A pointer to a plain walked note: one ``stat``; ``None`` when it changed since the walk."""
    try:
        info = os.stat(root + os.sep + rel.replace("/", os.sep))
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return Target(FOUND, path, rel, area_of(rel), (info.st_dev, info.st_ino))


def resolve_target(root: str, target: str, plain: AbstractSet[str] = frozenset()) -> Target:
    """Classify and, when it is a local path, resolve a pointer target inside ``root``.

    ``plain`` (from :func:`plain_notes`) lets a pointer that names a walked
    note exactly skip ``realpath``; any other local path (``..``, a symlink on
    the way, another case on a case-insensitive file system, a file that is
    not a note) is resolved on the file system, with the same result.
    """
    early, path = _classify(target.strip())
    if early is not None:
        return early
    if plain:
        rel = _plain_rel(path)
        if rel is not None and rel in plain:
            found = _resolve_plain(root, path, rel)
            if found is not None:
                return found
    joined = os.path.join(root, *[p for p in path.split("/") if p])
    if not fsutil.is_within(os.path.normpath(joined), root):
        return Target(ESCAPES, path, reason="'..' climbs out of it")
    resolved = os.path.realpath(joined)
    if not fsutil.is_within(resolved, root):
        return Target(ESCAPES, path, reason="a symlink on the way leads out of it")
    rel = os.path.relpath(resolved, root).replace(os.sep, "/")
    try:
        info = os.stat(resolved)
    except FileNotFoundError:
        return Target(MISSING, path, rel, reason="no such file")
    except OSError as exc:
        return Target(MISSING, path, rel, reason=fsutil.os_error_text(exc))
    if stat.S_ISDIR(info.st_mode):
        return Target(MISSING, path, rel, reason="it is a directory, not a note")
    if not stat.S_ISREG(info.st_mode):
        return Target(MISSING, path, rel, reason="it is not a regular file")
    if rel == INDEX_NAME:
        return Target(SELF, path, rel)
    return Target(FOUND, path, rel, area_of(rel), (info.st_dev, info.st_ino))
