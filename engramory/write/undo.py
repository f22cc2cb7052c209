"""``--undo ID`` of ``fix``, ``compact`` and ``import``: take an apply back, never later work.

The apply's journal (:mod:`engramory.write.backup`) says, per file, its SHA-256 before
the run and as the run left it. A file is as the apply left it when it holds
either (an interrupted apply may have stopped before or after it), or, for a file
the run was creating, when it is missing or empty. Any other state is later work:
undo lists it and changes nothing, unless ``--force``, which first backs up the
current state as a new apply (so the forced undo can be undone in turn). A normal
undo then removes everything the apply made: the files it created, the temporary
files an interrupted write left, the folders it made, and its backup.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from engramory.continuity.state import locked
from engramory.secrets.excerpts import excerpt
from engramory.store.caps import INDEX_NAME, Caps
from engramory.util import fsutil
from engramory.util.errors import EngramoryError, InputMissingError
from engramory.util.textfmt import plural, printable
from engramory.write import backup, indexedit
from engramory.write.backup import STORE_ITSELF, Announce, Entry, Journal

TEMP_PREFIX, TEMP_SUFFIX = ".engramory-", ".tmp"  # as fsutil.write_atomic names them
ADDED_LINES_SHOWN = 5
MODIFIED, DELETED, CREATED_SINCE, MODE_CHANGED, REPLACED = (
    "modified",
    "deleted",
    "created since",
    "mode changed",
    "replaced by something that is not a plain readable file",
)


@dataclass(frozen=True)
class Current:
    """What is at a journal's path now: nothing, a regular file's bytes and mode, or other."""

    present: bool
    data: bytes | None = None
    mode: int | None = None


def read_current(root: str, rel: str) -> Current:
    """The file at ``rel`` now (never through a symlink, bounded)."""
    path = os.path.join(root, *rel.split("/"))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return Current(False)
    except OSError:
        return Current(True)
    if not stat.S_ISREG(info.st_mode):
        return Current(True)
    data, _why = backup.read_plain(root, rel, max(backup.READ_LIMIT, Caps().read_limit()))
    return Current(True, data, stat.S_IMODE(info.st_mode))


def later_change(entry: Entry, now: Current) -> str | None:
    """How the file changed since the apply (``None``: it is as the apply left it, or before)."""
    if not now.present:
        return DELETED if entry.before is not None and entry.after is not None else None
    if now.data is None:
        return REPLACED
    found = backup.digest(now.data)
    if entry.before is None:  # the apply created it: as written, or cut short (empty)
        return None if found == entry.after or not now.data else MODIFIED
    if found not in (entry.before, entry.after):
        return MODIFIED if entry.after is not None else CREATED_SINCE
    return MODE_CHANGED if entry.mode is not None and now.mode != entry.mode else None


def needs_restoring(entry: Entry, now: Current) -> bool:
    """Whether undo must write the saved copy back (the file is not already as it was)."""
    if entry.before is None:
        return False
    if now.data is None:
        return True
    return backup.digest(now.data) != entry.before or now.mode != entry.mode


def added_lines(after: bytes | None, now: bytes | None) -> list[str]:
    """The non-blank lines of ``now`` that the apply's ``after`` did not have (a multiset)."""
    if after is None or now is None:
        return []
    had = Counter(indexedit.split_lines(after.decode("utf-8", "replace")))
    added = []
    for line in indexedit.split_lines(now.decode("utf-8", "replace")):
        if had[line] > 0:
            had[line] -= 1
        elif line.strip():
            added.append(line.rstrip("\r\n"))
    return added


# -- the command --------------------------------------------------------------------------


def undo(
    root: str,
    backup_id: str,
    command: str,
    *,
    force: bool = False,
    announce: Announce | None = None,
) -> int:
    """Take back the apply ``backup_id`` under the store's lock; then, when the apply made
    the store folder and nothing else is in it now, remove that too."""
    backup.check_backup_id(backup_id)
    with locked(Path(root), leave_no_file=True):
        made_store = _undo_locked(root, backup_id, command, force, announce)
    if made_store:
        try:
            os.rmdir(root)
        except OSError:
            pass  # something else is in it: it stays
    return 0


def _folder(root: str, backup_id: str, command: str) -> str:
    folder = os.path.join(backup.backup_root(root, create=False), backup_id)
    try:
        is_folder = stat.S_ISDIR(os.lstat(folder).st_mode)
    except OSError:
        is_folder = False
    if not is_folder:
        raise InputMissingError(
            f"no backup {printable(backup_id)} in {printable(os.path.dirname(folder))}: "
            f"give the ID engramory {command} --apply printed"
        )
    return folder


def _journal(folder: str) -> Journal | None:
    """The backup's journal; ``None`` when the apply stopped before it was complete."""
    if not os.path.lexists(os.path.join(folder, backup.JOURNAL_NAME)):
        return None
    data, why = backup.read_plain(folder, backup.JOURNAL_NAME, backup.JOURNAL_LIMIT)
    journal = backup.parse_journal(data) if data is not None else None
    if journal is None:
        raise EngramoryError(
            f"the backup's journal {printable(os.path.join(folder, backup.JOURNAL_NAME))} cannot "
            f"be read{f' ({why})' if why else ''}: restore its files by hand"
        )
    return journal


def _undo_locked(
    root: str, backup_id: str, command: str, force: bool, announce: Announce | None
) -> bool:
    """The undo itself (the lock held); whether the apply made the store folder."""
    folder = _folder(root, backup_id, command)
    journal = _journal(folder)
    if journal is None:
        _remove_backup(root, folder, list(backup.BACKUP_FOLDERS))
        print(
            printable(
                f"{command} {backup_id} stopped before it wrote to the store: nothing to put "
                "back; removed its incomplete backup"
            )
        )
        return False
    if journal.command != command:
        raise EngramoryError(
            f"backup {backup_id} was made by {printable(journal.command)}: run engramory "
            f"{printable(journal.command)} --undo {backup_id}"
        )
    _refuse_outside(root, journal)  # before the first write, never half-way
    now = {rel: read_current(root, rel) for rel in journal.files}
    changed = {
        rel: why
        for rel, entry in sorted(journal.files.items())
        if (why := later_change(entry, now[rel])) is not None
    }
    saved = _saved_copies(folder, journal)
    if changed and not force:
        _report_changes(folder, changed, now)
        raise EngramoryError(
            f"{plural(len(changed), 'file')} changed since {command} {backup_id}, and undo would "
            "lose that work; nothing was changed. Copy what you need and run the undo again, or "
            "add --force (the current state is backed up first, so the forced undo can be undone)"
        )
    if changed:
        new_id = _forced(root, journal, now, saved, announce)
        summary = f"by force: {plural(len(changed), 'later change')} kept in backup {new_id}"
    else:
        try:
            restored, removed = _restore(root, journal, now, saved)
        except OSError as exc:  # some files back, the backup kept: the same undo finishes it
            raise EngramoryError(
                f"putting the files back failed ({fsutil.os_error_text(exc)}); some are back "
                f"already and the backup is kept: fix the cause, then run engramory {command} "
                f"--undo {backup_id} again"
            ) from None
        tail = f", {plural(removed, 'created file')} removed" if removed else ""
        summary = f"{plural(restored, 'file')} put back{tail}"
    _clean_temporary(root, journal)
    _remove_folders(root, [m for m in journal.made if m not in backup.BACKUP_FOLDERS])
    _remove_backup(root, folder, [] if changed else journal.made)
    print(printable(f"undid {command} {backup_id}: {summary}"))
    return not changed and STORE_ITSELF in journal.made


def _refuse_outside(root: str, journal: Journal) -> None:
    """Refuse when a journal's file now lies outside the store (a folder on its way swapped
    for a symlink leading out): checked for every file before the first write."""
    for rel in sorted(journal.files):
        path = os.path.join(root, *rel.split("/"))
        if fsutil.escapes(os.path.dirname(path), root) is not None:
            raise EngramoryError(
                f"{printable(rel)} would be outside the store (a folder on its way leads out): "
                "nothing was changed; make that folder a plain one again, or restore it by hand"
            )


def _saved_copies(folder: str, journal: Journal) -> dict[str, bytes]:
    """The saved bytes of every file the apply changed or removed, each checked against the
    journal's digest (a temporary file the backup may hold is never read)."""
    copies = {}
    for rel, entry in journal.files.items():
        if entry.before is None:
            continue
        data, why = backup.read_plain(folder, rel, max(backup.READ_LIMIT, Caps().read_limit()))
        if data is None or backup.digest(data) != entry.before:
            raise EngramoryError(
                f"the saved copy of {printable(rel)} in {printable(folder)} "
                f"{why or 'is not what was saved'}: nothing was changed; restore it by hand"
            )
        copies[rel] = data
    return copies


def _report_changes(folder: str, changed: dict[str, str], now: dict[str, Current]) -> None:
    """One line a file (and, for the index, the lines added since) on stderr."""
    print("changed since the apply:", file=sys.stderr)
    for rel, why in changed.items():
        print(printable(f"  {rel}: {why}"), file=sys.stderr)
        if rel != INDEX_NAME or why != MODIFIED:
            continue
        after, _why = backup.read_plain(folder, backup.INDEX_AFTER_NAME, Caps().read_limit())
        lines = added_lines(after, now[rel].data)
        for line in lines[:ADDED_LINES_SHOWN]:
            print(f"    added since: {excerpt(line, 120)}", file=sys.stderr)
        if len(lines) > ADDED_LINES_SHOWN:
            print(f"    and {len(lines) - ADDED_LINES_SHOWN} more added lines", file=sys.stderr)


def _restore(
    root: str, journal: Journal, now: dict[str, Current], saved: dict[str, bytes]
) -> tuple[int, int]:
    """Put every saved copy back (atomically, with its mode) and remove the created files;
    ``(files put back, files removed)``. Every file is as the apply left it."""
    restored = removed = 0
    for rel, entry in sorted(journal.files.items()):
        path = os.path.join(root, *rel.split("/"))
        if fsutil.escapes(os.path.dirname(path), root) is not None:
            raise EngramoryError(f"{printable(rel)} would be outside the store: restore it by hand")
        if needs_restoring(entry, now[rel]):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fsutil.write_atomic(path, saved[rel], entry.mode)
            restored += 1
            print(printable(f"restored {rel}"))
        elif entry.before is None and now[rel].present:
            os.unlink(path)
            removed += 1
            print(printable(f"removed {rel}"))
    return restored, removed


def _forced(
    root: str,
    journal: Journal,
    now: dict[str, Current],
    saved: dict[str, bytes],
    announce: Announce | None,
) -> str:
    """The undo as a new apply (its own backup of the current state, its own undo ID)."""
    sources: dict[str, bytes] = {}
    changes: dict[str, bytes] = {}
    created: dict[str, bytes] = {}
    removed: list[str] = []
    modes: dict[str, int] = {}
    for rel, entry in journal.files.items():
        current = now[rel]
        if current.present and current.data is None:
            raise EngramoryError(
                f"{printable(rel)} is {REPLACED}: nothing was changed; restore it by hand"
            )
        if needs_restoring(entry, current):
            modes[rel] = entry.mode if entry.mode is not None else 0o644
            if current.data is None:
                created[rel] = saved[rel]
            else:
                sources[rel], changes[rel] = current.data, saved[rel]
        elif entry.before is None and current.data is not None:
            sources[rel] = current.data
            removed.append(rel)
    return backup.apply(
        root,
        sources,
        changes,
        created=created,
        removed=removed,
        command=journal.command,
        modes=modes,
        inherited=[m for m in journal.made if m in backup.BACKUP_FOLDERS],
        announce=announce,
    )


def _clean_temporary(root: str, journal: Journal) -> None:
    """Remove the temporary files (``.engramory-*.tmp``) an interrupted write left in the
    folders the apply wrote in."""
    folders = {rel.rsplit("/", 1)[0] if "/" in rel else "" for rel in journal.files}
    for rel in sorted(folders):
        folder = os.path.join(root, *rel.split("/")) if rel else root
        try:
            if stat.S_ISLNK(os.lstat(folder).st_mode) or fsutil.escapes(folder, root) is not None:
                continue
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not (name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)):
                continue
            path = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
                print(printable(f"removed {os.path.join(rel, name) if rel else name}"))


def _remove_folders(root: str, rels: list[str]) -> None:
    """Remove each folder that is still empty (deepest first); one filled since stays."""
    for rel in sorted(rels, key=lambda r: -r.count("/")):
        if rel == STORE_ITSELF:
            continue
        path = os.path.join(root, *rel.split("/"))
        if fsutil.escapes(path, root) is not None:
            continue
        try:
            os.rmdir(path)
        except OSError:
            pass


def _remove_backup(root: str, folder: str, made: list[str]) -> None:
    """Remove the backup, then the backup folders the apply made when nothing else is in them."""
    shutil.rmtree(folder)
    _remove_folders(root, [m for m in made if m in backup.BACKUP_FOLDERS])
