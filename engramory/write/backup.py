"""The journal of the commands that rewrite a store (``fix``, ``compact``, ``import``).

An apply is a journal. Before its first store write, a run saves every file it
will change or remove under ``<store>/.engramory/backup/<ID>/`` (the ID is the UTC
time), then writes ``<ID>/.engramory-journal``: per file the SHA-256 before the run
and as the run will leave it, and its mode; the folders the run makes. Everything
is fsynced, then the undo command is announced (printed), then the store is
written. :mod:`engramory.write.undo` compares the store with the journal.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from engramory.secrets.excerpts import excerpt
from engramory.store.caps import INDEX_NAME
from engramory.store.disk import NOTE_READ_LIMIT, READ_OK, read_file
from engramory.util import crashpoint, fsutil
from engramory.util.errors import EngramoryError, UsageError
from engramory.util.textfmt import printable

BACKUP_DIR = (".engramory", "backup")
BACKUP_FOLDERS = tuple("/".join(BACKUP_DIR[: i + 1]) for i in range(len(BACKUP_DIR)))
JOURNAL_NAME = ".engramory-journal"  # inside a backup: what the run changes, creates, removes
INDEX_AFTER_NAME = ".engramory-index-after"  # ... and the index as the run leaves it
JOURNAL_VERSION = 1
JOURNAL_LIMIT = 64 * 1024 * 1024
STORE_ITSELF = "."  # in a journal's folders made: the run created the store folder itself
READ_LIMIT = NOTE_READ_LIMIT
ID_FORM = re.compile(r"[0-9]{8}T[0-9]{6}Z(?:-[1-9][0-9]{0,2})?")  # as _new_backup names them
ID_EXAMPLE = "20261202T031500Z"
Announce = Callable[[str], None]


def digest(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    return hashlib.sha256(data).hexdigest()


def read_plain(root: str, rel: str, limit: int = READ_LIMIT) -> tuple[bytes | None, str]:
    """The bytes of ``<root>/<rel>`` when it is a regular file reached without a symlink."""
    path = os.path.join(root, *rel.split("/"))
    if ".." in rel.split("/") or fsutil.escapes(os.path.dirname(path), root) is not None:
        return None, "it is outside the store"
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return None, "it is a symlink (fix the file it points to by hand)"
    except OSError as exc:
        return None, fsutil.os_error_text(exc)
    read = read_file(path, limit)
    if read.status != READ_OK or read.data is None:
        return None, read.error or f"it could not be read ({read.status})"
    return read.data, ""


def ensure_unchanged(root: str, rel: str, source: bytes, command: str = "fix") -> None:
    """Refuse when ``rel`` no longer holds the bytes the plan was worked out from."""
    data, _why = read_plain(root, rel, max(READ_LIMIT, len(source)))
    if data != source:
        raise EngramoryError(
            f"{printable(rel)} changed while {command} ran: nothing was written; run it again"
        )


@dataclass(frozen=True)
class _Target:
    path: str
    mode: int


@dataclass(frozen=True)
class Entry:
    """One file of a journal: its SHA-256 before the run (``None``: the run creates it) and
    as the run leaves it (``None``: the run removes it), and the mode it had (or is given)."""

    before: str | None
    after: str | None
    mode: int | None


@dataclass
class Journal:
    """What one apply does to a store, complete on disk before its first store write."""

    command: str
    files: dict[str, Entry] = field(default_factory=dict)
    made: list[str] = field(default_factory=list)  # folders it creates, store-relative

    def to_bytes(self) -> bytes:
        files = {rel: [e.before, e.after, e.mode] for rel, e in sorted(self.files.items())}
        record = {"journal": JOURNAL_VERSION, "command": self.command, "made": self.made}
        return json.dumps({**record, "files": files}, indent=1).encode()


def _safe_rel(rel: object) -> bool:
    """A store-relative path a journal may name: not absolute, no ``..``, not in ``.engramory``."""
    if not isinstance(rel, str) or "\\" in rel or "\0" in rel:
        return False
    parts = rel.split("/")
    return not {"", ".", ".."} & set(parts) and parts[0] != BACKUP_DIR[0]


def _is_digest(value: object) -> bool:
    hexdigits = "0123456789abcdef"
    return isinstance(value, str) and len(value) == 64 and all(c in hexdigits for c in value)


def parse_journal(data: bytes) -> Journal | None:
    """The journal in ``data``; ``None`` when it is not one this version wrote."""
    try:
        record = json.loads(data.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("journal") != JOURNAL_VERSION:
        return None
    files, made, command = record.get("files"), record.get("made"), record.get("command")
    if not isinstance(files, dict) or not isinstance(made, list) or not isinstance(command, str):
        return None
    ours = (STORE_ITSELF, *BACKUP_FOLDERS)
    journal = Journal(command, made=[m for m in made if m in ours or _safe_rel(m)])
    for rel, value in files.items():
        if not _safe_rel(rel) or not isinstance(value, list) or len(value) != 3:
            return None
        before, after, mode = value
        if before is None and after is None:
            return None
        if any(d is not None and not _is_digest(d) for d in (before, after)):
            return None
        if mode is not None and (not isinstance(mode, int) or isinstance(mode, bool)):
            return None
        journal.files[rel] = Entry(before, after, mode if mode is None else mode & 0o7777)
    return journal


def backup_root(root: str, create: bool) -> str:
    """``<store>/.engramory/backup``, refusing a symlink or a non-folder on the way."""
    path = root
    for part in BACKUP_DIR:
        path = os.path.join(path, part)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            if not create:
                return os.path.join(root, *BACKUP_DIR)
            os.mkdir(path, 0o700)
            continue
        if not stat.S_ISDIR(mode):
            raise EngramoryError(
                f"{printable(path)} is {'a symlink' if stat.S_ISLNK(mode) else 'not a folder'}: "
                "backups are kept there and it will not be followed; remove it and run again"
            )
    return path


def _missing_backup_folders(root: str) -> list[str]:
    """``.engramory`` and ``.engramory/backup`` where they do not exist yet (store-relative)."""
    return [r for r in BACKUP_FOLDERS if not os.path.lexists(os.path.join(root, *r.split("/")))]


def _new_backup(backups: str) -> tuple[str, str]:
    """A new backup folder named by the UTC time, unique even twice in one second."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for attempt in range(1, 1000):
        backup_id = stamp if attempt == 1 else f"{stamp}-{attempt}"
        path = os.path.join(backups, backup_id)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return backup_id, path
    raise EngramoryError(f"too many backups named {stamp}: remove some from {printable(backups)}")


def _targets(root: str, rels: Iterable[str], command: str) -> dict[str, _Target]:
    """Where each file goes and its mode; refuses a symlink or an unwritable folder."""
    targets = {}
    for rel in rels:
        path = os.path.join(root, *rel.split("/"))
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            raise EngramoryError(
                f"{printable(rel)} is no longer a regular file: run {command} again"
            )
        if not os.access(os.path.dirname(path), os.W_OK):
            raise EngramoryError(
                f"cannot write in the folder of {printable(rel)} (permission denied): nothing "
                "was changed"
            )
        targets[rel] = _Target(path, stat.S_IMODE(info.st_mode))
    return targets


def _refuse_existing(root: str, created: Iterable[str]) -> None:
    """Refuse when a file to create exists already (in any letter case) or leaves the store."""
    for rel in created:
        path = os.path.join(root, *rel.split("/"))
        if ".." in rel.split("/") or fsutil.escapes(os.path.dirname(path), root) is not None:
            raise EngramoryError(
                f"{printable(rel)} would be outside the store: nothing was changed"
            )
        if os.path.lexists(path):
            raise EngramoryError(
                f"{printable(rel)} appeared while the plan was made: nothing was changed; run again"
            )


def _journal(
    command: str,
    targets: dict[str, _Target],
    sources: dict[str, bytes],
    changes: dict[str, bytes],
    created: dict[str, bytes],
    modes: dict[str, int],
) -> Journal:
    """The journal of one apply (pure: every digest from the bytes given)."""
    journal = Journal(command)
    for rel, target in targets.items():
        after = digest(changes[rel]) if rel in changes else None
        journal.files[rel] = Entry(digest(sources[rel]), after, modes.get(rel, target.mode))
    for rel, data in created.items():
        journal.files[rel] = Entry(None, digest(data), modes.get(rel))
    return journal


def _save(folder: str, rel: str, data: bytes, mode: int) -> None:
    """One saved copy in the backup folder, durable with every folder it needed."""
    saved = os.path.join(folder, *rel.split("/"))
    parent = os.path.dirname(saved)
    if not os.path.isdir(parent):
        os.makedirs(parent, 0o700)
        for directory in _parents(parent, folder):
            fsutil.fsync_directory(directory)
    fsutil.write_atomic(saved, data, mode)


def _parents(path: str, top: str) -> list[str]:
    """``path``'s parent folders up to ``top`` (the folders a new entry under ``top`` needs
    synced)."""
    found = []
    while path != top and len(path) > len(top):
        path = os.path.dirname(path)
        found.append(path)
    return found


def apply(
    root: str,
    sources: dict[str, bytes],
    changes: dict[str, bytes],
    *,
    created: dict[str, bytes] | None = None,
    removed: Iterable[str] = (),
    command: str = "fix",
    modes: dict[str, int] | None = None,
    made_store: bool = False,
    inherited: Iterable[str] = (),
    announce: Announce | None = None,
) -> str:
    """Journal, announce, then write every change and new file, then remove; the backup's ID.

    Every check comes first (each changed or removed file still holds
    ``sources``' bytes and is a regular file in a writable folder; no file to
    create exists; the backup folder is no symlink). Then the journal: the saved
    copies and the record of every file and folder, fsynced. Then ``announce``
    gets the ID (the caller prints the undo command), then the store is written.
    ``modes`` overrides a file's mode (a forced undo puts each file back with its
    own); ``made_store`` says the caller created the store folder for this run;
    ``inherited`` names folders an earlier run made that this run's undo removes too
    (a forced undo's backup folders).
    """
    created = created or {}
    modes = modes or {}
    removed = list(removed)
    touched = [*changes, *[r for r in removed if r not in changes]]
    for rel in touched:
        ensure_unchanged(root, rel, sources[rel], command)
    targets = _targets(root, touched, command)
    _refuse_existing(root, created)
    journal = _journal(command, targets, sources, changes, created, modes)
    journal.made = [STORE_ITSELF] if made_store else []
    journal.made += _missing_backup_folders(root) + sorted(_missing_folders(root, created))
    journal.made += [rel for rel in inherited if rel not in journal.made]
    backups = backup_root(root, create=True)
    backup_id, folder = _new_backup(backups)
    for rel, target in targets.items():
        _save(folder, rel, sources[rel], target.mode)
        crashpoint.reached("backup-saved")  # a test hook, inert unless set
    if INDEX_NAME in changes:  # undo shows the lines added to the index since
        fsutil.write_atomic(os.path.join(folder, INDEX_AFTER_NAME), changes[INDEX_NAME], 0o600)
    fsutil.write_atomic(os.path.join(folder, JOURNAL_NAME), journal.to_bytes(), 0o600)
    for directory in (folder, *_parents(folder, root)):
        fsutil.fsync_directory(directory)
    crashpoint.reached("journaled")
    if announce is not None:
        announce(backup_id)
    crashpoint.reached("announced")
    try:
        create_all(root, created, modes)
        for rel, data in changes.items():
            fsutil.write_atomic(targets[rel].path, data, modes.get(rel, targets[rel].mode))
            crashpoint.reached("changed")
        for rel in removed:
            os.unlink(targets[rel].path)
            crashpoint.reached("removed")
        fsutil.fsync_directory(root)
    except OSError as exc:
        raise EngramoryError(
            f"writing the store failed ({fsutil.os_error_text(exc)}): put the files back with "
            f"engramory {command} --undo {backup_id}"
        ) from None
    crashpoint.reached("applied")
    return backup_id


def create_all(root: str, created: dict[str, bytes], modes: dict[str, int] | None = None) -> None:
    """Write the new files (each exclusively: never over a file that appeared meanwhile, never
    through a symlink), then make them durable with one ``sync`` rather than one ``fsync`` a
    file: a run may create thousands of notes. Their index is written (atomically) after."""
    modes = modes or {}
    sync = getattr(os, "sync", None)
    for rel, data in created.items():
        path = os.path.join(root, *rel.split("/"))
        if not os.path.isdir(os.path.dirname(path)):
            os.mkdir(os.path.dirname(path))
        write_new_file(path, data, modes.get(rel), durable=sync is None)
        crashpoint.reached("created")
    if created and sync is not None:
        sync()


def write_new_file(path: str, data: bytes, mode: int | None, durable: bool) -> None:
    """Create ``path`` exclusively with ``data`` (and ``mode``, else 0o644 less the umask);
    on a failure (a full disk) the partial file is removed again."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_BINARY", 0), 0o644 if mode is None else 0o600)
    crashpoint.reached("create-opened")
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), mode)  # exact, whatever the umask
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        try:
            os.unlink(path)
        except OSError:
            pass
        raise


def announcer(command: str, tail: str = "", to_stderr: bool = False) -> Announce:
    """What prints ``undo: engramory COMMAND --undo ID TAIL`` (flushed) once the journal is on
    disk (on stderr where stdout is a JSON document)."""

    def announce(backup_id: str) -> None:
        stream = sys.stderr if to_stderr else sys.stdout
        print(printable(f"undo: engramory {command} --undo {backup_id}{tail}"), file=stream)
        stream.flush()

    return announce


def check_backup_id(backup_id: str) -> None:
    """A usage error (64) for anything but the form the tool writes IDs in."""
    if ID_FORM.fullmatch(backup_id) is None:
        raise UsageError(
            f"--undo takes the ID that --apply printed: a UTC timestamp such as {ID_EXAMPLE} "
            f"(a second one in the same second: {ID_EXAMPLE}-2), not "
            f"{excerpt(backup_id) if backup_id else 'an empty value'}"
        )


def _missing_folders(root: str, created: Iterable[str]) -> set[str]:
    """The store-relative folders of ``created`` that do not exist yet."""
    folders = {rel.rsplit("/", 1)[0] for rel in created if "/" in rel}
    return {rel for rel in folders if not os.path.isdir(os.path.join(root, *rel.split("/")))}
