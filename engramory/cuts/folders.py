"""What a found memory folder holds: each memory file's size and, for the files the host
loads, the host's cut (:mod:`engramory.cuts`).

Bounded: at most :data:`FILES_LISTED` top-level ``.md`` files, none larger than
the cut reader's limit read; symlinks are listed as such and never followed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from engramory.cuts import measure as cutmeasure
from engramory.store.caps import count_lines
from engramory.store.hostmemory.model import Found
from engramory.util import fsutil
from engramory.util.errors import InputMissingError

FILES_LISTED = 500


@dataclass(frozen=True)
class FileSize:
    """One file: ``lines``/``chars`` are ``None`` when it was not read (``problem`` says why);
    ``cut`` is the host's measure of a file it loads (``None`` for the others)."""

    name: str
    bytes: int
    lines: int | None
    chars: int | None
    problem: str = ""
    cut: dict[str, object] | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "bytes": self.bytes,
            "lines": self.lines,
            "chars": self.chars,
            "problem": self.problem or None,
            "cut": self.cut,
        }


def memory_files(found: Found) -> list[str]:
    """The files to list: the loaded ones first, then the folder's other top-level ``.md``."""
    names = list(found.loaded)
    try:
        with os.scandir(found.path) as scan:
            others = sorted(
                entry.name
                for _, entry in zip(range(FILES_LISTED * 4), scan)
                if entry.name.lower().endswith(".md") and not entry.name.startswith(".")
            )
    except OSError:
        others = []
    names += [name for name in others if name not in names]
    return names[:FILES_LISTED]


def cut_json(host: str, path: str, root: str) -> dict[str, object]:
    """The host's cut of one loaded file, as JSON (``error`` when it cannot be measured)."""
    try:
        cut, falling = cutmeasure.measure(host, path, root)
    except InputMissingError as exc:
        return {"error": str(exc)}
    return {
        "measure": cut.measure,
        "used": cut.used,
        "limit": cut.limit,
        "loads_all": cut.loads_all,
        "over_by": cut.over_by,
        "lines_not_loaded": len(cut.dropped),
        "first_not_loaded": [f.line for f in falling[:5]],
    }


def size_of(found: Found, name: str) -> FileSize | None:
    """One file's size (``None`` when absent); a loaded file with the host's cut."""
    path = os.path.join(found.path, name)
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if os.path.islink(path):
        return FileSize(name, info.st_size, None, None, "a symlink: not followed")
    try:
        data = fsutil.read_bounded_stat(path, cutmeasure.READ_LIMIT, follow_symlinks=False)[0]
    except fsutil.FileTooLargeError:
        return FileSize(name, info.st_size, None, None, "over the read limit: not read")
    except OSError as exc:
        return FileSize(name, info.st_size, None, None, fsutil.os_error_text(exc))
    text = (data[3:] if data.startswith(b"\xef\xbb\xbf") else data).decode("utf-8", "replace")
    cut = cut_json(found.host, path, os.fspath(found.path)) if name in found.loaded else None
    return FileSize(name, len(data), count_lines(data), len(text), cut=cut)


def sizes(found: Found) -> list[FileSize]:
    """Every memory file of an existing folder, measured (empty when the folder is absent)."""
    if not found.exists:
        return []
    listed = (size_of(found, name) for name in memory_files(found))
    return [size for size in listed if size is not None]
