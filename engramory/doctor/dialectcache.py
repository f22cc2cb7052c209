"""The doctor's dialect memo: each note's dialect verdict kept while the note is unchanged.

Choosing a store's profile by its notes' dialect (``profile_choice``) reads
the frontmatter of up to 2,000 notes. The doctor keeps each note's verdict
(:data:`UNREAD`: no frontmatter or not readable, :data:`OTHER`: frontmatter
in another dialect, :data:`NATIVE`: in Claude Code's) in its cache folder
(``cache.py``, never in the store), keyed by the note's path and ``lstat``
(size, mtime_ns, ctime_ns, inode, device) as the store's walk saw it; a note
whose key matches is not read again. A note the walk did not ``lstat`` is
read every time, and so is one changed within ``cache.RACY_NS`` of the read
(its verdict is not kept: a same-size change in its timestamp tick would keep
its ``lstat``). A file that is missing, foreign, not this user's, a symlink
or not exactly the expected shape is ignored and written afresh.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from engramory import __version__
from engramory.doctor import outputcache
from engramory.store.disk import NoteFile

FORMAT = 1
FILE_NAME = "dialect.json"
FILE_LIMIT = 8 * 1024 * 1024  # a larger file is not one this module wrote
UNREAD, OTHER, NATIVE = 0, 1, 2
VERDICTS = (UNREAD, OTHER, NATIVE)

# A note's key: (rel, size, mtime_ns, ctime_ns, inode, device).
Key = tuple[str, int, int, int, int, int]


def note_key(note: NoteFile) -> Key | None:
    """A walked note's key, or ``None`` when the walk did not ``lstat`` it."""
    return None if note.info is None else (note.rel, *note.info)


def settled(key: Key, now_ns: int) -> bool:
    """Whether a note's key is old enough to be kept (``cache.settled``)."""
    from engramory.doctor.cache import settled as changed_before  # noqa: PLC0415

    return changed_before(key[2], key[3], now_ns)


def load(folder: str) -> dict[Key, int]:
    """The verdicts kept in ``folder`` (nothing when the file is not one this module wrote)."""
    data = outputcache.read_private(os.path.join(folder, FILE_NAME), FILE_LIMIT)
    try:
        kept = json.loads(data) if data is not None else None
    except (ValueError, RecursionError):
        return {}
    if type(kept) is not dict or kept.get("format") != FORMAT:
        return {}
    if kept.get("version") != __version__ or type(kept.get("notes")) is not list:
        return {}
    verdicts: dict[Key, int] = {}
    for row in kept["notes"]:
        if not _valid(row):
            return {}
        verdicts[tuple(row[:6])] = row[6]  # type: ignore[assignment]
    return verdicts


def _valid(row: object) -> bool:
    """``[rel, size, mtime_ns, ctime_ns, inode, device, verdict]``."""
    if type(row) is not list or len(row) != 7 or type(row[0]) is not str:
        return False
    return all(type(value) is int for value in row[1:]) and row[6] in VERDICTS


def save(folder: str, verdicts: Mapping[Key, int]) -> None:
    """Keep ``verdicts``; quietly nothing on failure."""
    rows = [[*note, verdict] for note, verdict in verdicts.items()]
    made = {"format": FORMAT, "version": __version__, "notes": rows}
    data = json.dumps(made, ensure_ascii=True, separators=(",", ":"))
    outputcache.write_private(folder, FILE_NAME, data.encode("ascii"))
