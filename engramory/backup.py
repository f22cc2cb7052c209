"""Backups and undo for the commands that rewrite a store (``fix``, ``compact``).

A run saves every file it will change or remove under
``<store>/.engramory/backup/<ID>/`` (the ID is the UTC time), writes, and
prints the ID; ``--undo ID`` puts the saved bytes back. A run that also
creates files records each with the SHA-256 of what it wrote (in
``<ID>/.engramory-created``), so undo removes them, and refuses, changing
nothing, when one of them changed since.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from engramory import fsutil
from engramory.caps import Caps
from engramory.errors import EngramoryError, InputMissingError, UsageError
from engramory.store import NOTE_READ_LIMIT, READ_OK, read_file
from engramory.textfmt import plural, printable

BACKUP_DIR = (".engramory", "backup")
CREATED_FOLDERS_NAME = ".engramory-created-folders"  # ... and the folders it made for them
CREATED_NAME = ".engramory-created"  # inside a backup: the files the run created
READ_LIMIT = NOTE_READ_LIMIT


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


def backup_root(root: str, create: bool) -> str:
    """``<store>/.engramory/backup``, refusing a symlink or a non-folder on the way."""
    path = root
    for part in BACKUP_DIR:
        path = os.path.join(path, part)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            if not create:
                return path
            os.mkdir(path, 0o700)
            continue
        if not stat.S_ISDIR(mode):
            raise EngramoryError(
                f"{printable(path)} is {'a symlink' if stat.S_ISLNK(mode) else 'not a folder'}: "
                "backups are kept there and it will not be followed; remove it and run again"
            )
    return path


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


def apply(
    root: str,
    sources: dict[str, bytes],
    changes: dict[str, bytes],
    *,
    created: dict[str, bytes] | None = None,
    removed: Iterable[str] = (),
    command: str = "fix",
) -> str:
    """Back up, then write every change and new file atomically, then remove; the backup's ID.

    Every check comes first (each changed or removed file still holds
    ``sources``' bytes and is a regular file in a writable folder; no file to
    create exists; the backup folder is no symlink).
    """
    created = created or {}
    removed = list(removed)
    touched = [*changes, *[r for r in removed if r not in changes]]
    for rel in touched:
        ensure_unchanged(root, rel, sources[rel], command)
    targets = _targets(root, touched, command)
    _refuse_existing(root, created)
    backups = backup_root(root, create=True)
    backup_id, folder = _new_backup(backups)
    for rel, target in targets.items():
        saved = os.path.join(folder, *rel.split("/"))
        os.makedirs(os.path.dirname(saved), 0o700, exist_ok=True)
        fsutil.write_atomic(saved, sources[rel], target.mode)
    if created:
        record = {rel: digest(data) for rel, data in created.items()}
        fsutil.write_atomic(
            os.path.join(folder, CREATED_NAME), json.dumps(record, indent=1).encode(), 0o600
        )
        new_folders = sorted(_missing_folders(root, created))
        if new_folders:  # made for the new files (archive/): undo removes them when empty
            fsutil.write_atomic(
                os.path.join(folder, CREATED_FOLDERS_NAME), json.dumps(new_folders).encode(), 0o600
            )
    try:
        create_all(root, created)
        for rel, data in changes.items():
            fsutil.write_atomic(targets[rel].path, data, targets[rel].mode)
        for rel in removed:
            os.unlink(targets[rel].path)
    except OSError as exc:
        raise EngramoryError(
            f"writing the store failed ({fsutil.os_error_text(exc)}): put the files back with "
            f"engramory {command} --undo {backup_id}"
        ) from None
    return backup_id


def create_all(root: str, created: dict[str, bytes]) -> None:
    """Write the new files (each exclusively: never over a file that appeared meanwhile, never
    through a symlink), then make them durable with one ``sync`` rather than one ``fsync`` a
    file: a run may create thousands of notes. Their index is written (atomically) after."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    umask = os.umask(0)
    os.umask(umask)
    sync = getattr(os, "sync", None)
    for rel, data in created.items():
        path = os.path.join(root, *rel.split("/"))
        if not os.path.isdir(os.path.dirname(path)):
            os.mkdir(os.path.dirname(path))
        fd = os.open(path, flags, 0o644 & ~umask)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if sync is None:
                handle.flush()
                os.fsync(handle.fileno())
    if created and sync is not None:
        sync()


def check_backup_id(backup_id: str) -> None:
    """A usage error (64) for an ID that is a path."""
    if (
        not backup_id
        or "/" in backup_id
        or "\\" in backup_id
        or ".." in backup_id
        or "\0" in backup_id
    ):
        raise UsageError(
            f"--undo takes the ID that --apply printed (a timestamp such as 20261202T031500Z), "
            f"not a path: {printable(backup_id)}"
        )


def _saved_files(folder: str) -> list[tuple[str, str]]:
    """``(store-relative path, saved file)`` of each file in a backup (symlinks refused)."""
    found = []
    for directory, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = os.path.join(directory, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode) or not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                raise EngramoryError(
                    f"the backup holds {printable(path)}, which is not a plain file: "
                    "restore it by hand"
                )
        for name in files:
            if directory == folder and name in (CREATED_NAME, CREATED_FOLDERS_NAME):
                continue
            path = os.path.join(directory, name)
            found.append((os.path.relpath(path, folder).replace(os.sep, "/"), path))
    return sorted(found)


def _missing_folders(root: str, created: Iterable[str]) -> set[str]:
    """The store-relative folders of ``created`` that do not exist yet."""
    folders = {rel.rsplit("/", 1)[0] for rel in created if "/" in rel}
    return {rel for rel in folders if not os.path.isdir(os.path.join(root, *rel.split("/")))}


def _created_folders(folder: str) -> list[str]:
    """The folders the run made for its new files (none recorded, or unreadable: none)."""
    data, _why = read_plain(folder, CREATED_FOLDERS_NAME)
    try:
        record = json.loads(data.decode("utf-8")) if data is not None else []
    except ValueError:
        return []
    if not isinstance(record, list):
        return []
    return [rel for rel in record if isinstance(rel, str) and ".." not in rel.split("/")]


def _remove_empty_folders(root: str, rels: Iterable[str]) -> None:
    """Remove each folder that is still empty (deepest first); a folder something else has
    filled since stays."""
    for rel in sorted(rels, key=lambda r: -r.count("/")):
        path = os.path.join(root, *rel.split("/"))
        if fsutil.escapes(path, root) is not None:
            continue
        try:
            os.rmdir(path)
        except OSError:
            pass


def _created_files(folder: str) -> dict[str, str]:
    """The files the run created, with the digest of what it wrote (none recorded: empty)."""
    path = os.path.join(folder, CREATED_NAME)
    if not os.path.lexists(path):
        return {}
    data, why = read_plain(folder, CREATED_NAME)
    try:
        record = json.loads(data.decode("utf-8")) if data is not None else None
    except ValueError:
        record = None
    if not isinstance(record, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in record.items()
    ):
        raise EngramoryError(f"the backup's record of created files cannot be read {why}".rstrip())
    return record


def _changed_created(root: str, created: dict[str, str]) -> list[str]:
    """The created files that are no longer what the run wrote (a missing one is fine)."""
    changed = []
    for rel, wanted in sorted(created.items()):
        path = os.path.join(root, *rel.split("/"))
        if not os.path.lexists(path):
            continue
        data, _why = read_plain(root, rel, max(READ_LIMIT, Caps().read_limit()))
        if data is None or digest(data) != wanted:
            changed.append(rel)
    return changed


def undo(root: str, backup_id: str, command: str = "fix") -> int:
    """Put back the bytes saved as ``backup_id`` (atomically, their modes kept) and remove
    the files the run created; refuse, changing nothing, when one of those changed since."""
    check_backup_id(backup_id)
    folder = os.path.join(backup_root(root, create=False), backup_id)
    try:
        is_folder = stat.S_ISDIR(os.lstat(folder).st_mode)
    except OSError:
        is_folder = False
    if not is_folder:
        raise InputMissingError(
            f"no backup {printable(backup_id)} in {printable(os.path.dirname(folder))}: "
            f"give the ID engramory {command} --apply printed"
        )
    created = _created_files(folder)
    changed = _changed_created(root, created)
    if changed:
        raise EngramoryError(
            f"{plural(len(changed), 'file')} created by {command} {backup_id} changed since, "
            "so undo would lose that work; nothing was changed. Changed: "
            + ", ".join(printable(rel) for rel in changed)
            + " (copy what you need, delete them, and run --undo again)"
        )
    restore = []
    for rel, saved in _saved_files(folder):
        data, why = read_plain(folder, rel, max(READ_LIMIT, Caps().read_limit()))
        if data is None:
            raise EngramoryError(f"the saved copy of {printable(rel)} cannot be read ({why})")
        path = os.path.join(root, *rel.split("/"))
        if fsutil.escapes(os.path.dirname(path), root) is not None:
            raise EngramoryError(f"{printable(rel)} would be outside the store: restore it by hand")
        if not os.path.isdir(os.path.dirname(path)):
            raise EngramoryError(f"the folder of {printable(rel)} is gone: restore it by hand")
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                raise EngramoryError(f"{printable(rel)} is now a symlink: restore it by hand")
        except FileNotFoundError:
            pass
        restore.append((rel, path, data, stat.S_IMODE(os.lstat(saved).st_mode)))
    for rel, path, data, mode in restore:
        fsutil.write_atomic(path, data, mode)
        print(printable(f"restored {rel}"))
    removed = 0
    for rel in sorted(created):
        path = os.path.join(root, *rel.split("/"))
        if os.path.lexists(path):
            os.unlink(path)
            removed += 1
            print(printable(f"removed {rel}"))
    _remove_empty_folders(root, _created_folders(folder))
    tail = f", {plural(removed, 'created file')} removed" if created else ""
    print(printable(f"undid {command} {backup_id}: {plural(len(restore), 'file')} put back{tail}"))
    return 0
