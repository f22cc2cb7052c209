"""The doctor's dialect memo: the notes' dialect count kept while those notes are unchanged.

Choosing a store's profile by its notes' dialect (``profile_choice``) reads
the frontmatter of up to 2,000 notes. The doctor keeps the count it found in
its cache folder (``cache.py``, never in the store) with a digest of the
notes it read: their paths, statuses and ``lstat`` (size, mtime_ns, ctime_ns,
inode, device) as the store's walk saw them. While the digest matches, the
count is taken as it was. A note the walk did not ``lstat`` (a symlink, not a
regular file) means no memo; a file that is missing, foreign, not this user's,
a symlink or not exactly the expected shape is ignored and written afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence

from engramory import __version__
from engramory.doctor import outputcache
from engramory.store.disk import READ_OK, NoteFile

FORMAT = 1
FILE_NAME = "dialect.json"
FILE_LIMIT = 4096  # a larger file is not one this module wrote


def key(notes: Sequence[NoteFile]) -> str | None:
    """The digest of the notes the count reads (``None``: one of them has no ``lstat``)."""
    rows = []
    for note in notes:
        if note.status == READ_OK and note.target is None and note.info is None:
            return None
        rows.append([note.rel, note.status, note.target, note.info])
    made = json.dumps([FORMAT, __version__, rows], ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(made.encode("ascii")).hexdigest()


def load(folder: str, digest: str) -> tuple[int, int] | None:
    """The counts kept for ``digest`` in ``folder``, or ``None``."""
    data = outputcache.read_private(os.path.join(folder, FILE_NAME), FILE_LIMIT)
    try:
        kept = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if type(kept) is not dict or kept.get("key") != digest:
        return None
    native, described = kept.get("native"), kept.get("described")
    if type(native) is not int or type(described) is not int or not 0 <= native <= described:
        return None
    return native, described


def save(folder: str, digest: str, counts: tuple[int, int]) -> None:
    """Keep ``counts`` for ``digest``; quietly nothing on failure."""
    native, described = counts
    made = json.dumps({"key": digest, "native": native, "described": described})
    outputcache.write_private(folder, FILE_NAME, made.encode("ascii"))
