"""The index read for an edit: its text and mode kept, checked unchanged before it is written.

Shared by ``new``, ``archive``, ``compact`` and the MCP server's ``memory_update``:
the index is read bounded (never through a symlink out of the store), written
back only when nobody changed it meanwhile, and measured against the hard caps.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from engramory.store.caps import INDEX_NAME, Caps, count_lines, utf8_size
from engramory.util import fsutil
from engramory.util.errors import EngramoryError, InputMissingError
from engramory.util.textfmt import human_size
from engramory.write import notewrite


@dataclass
class IndexState:
    """The index as it is on disk: its path (resolved), text and mode (``None``: no file)."""

    path: str
    text: str
    exists: bool


def read_index_for_edit(root: str, caps: Caps) -> IndexState:
    """The index to edit, read so that writing it back changes no byte it does not touch.

    Refuses (exit 1) an index that leads out of the store, is not a regular
    file, or is too large to parse; no index at all means a new, empty one.
    """
    path = os.path.join(root, INDEX_NAME)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return IndexState(path, "", False)
    except OSError as exc:
        raise InputMissingError(f"{path}: {fsutil.os_error_text(exc)}") from None
    if stat.S_ISLNK(info.st_mode):
        if fsutil.escapes(path, root) is not None:
            raise EngramoryError(f"{path} is a symlink leading out of the store: not written")
        path = fsutil.resolve(path)
    try:
        raw = fsutil.read_bounded(path, caps.read_limit())
    except fsutil.FileTooLargeError:
        raise EngramoryError(
            f"{path} is too large to edit: compact it first (engramory check {root})"
        ) from None
    except fsutil.NotRegularFileError:
        raise EngramoryError(f"{path} is not a regular file: make it one first") from None
    except OSError as exc:
        raise InputMissingError(f"{path}: {fsutil.os_error_text(exc)}") from None
    return IndexState(path, notewrite.decode_index(raw), True)


def index_now(index: IndexState) -> tuple[bool, str | None]:
    """``(exists, text)`` of the index as it is on disk now (``None``: unreadable)."""
    try:
        raw = fsutil.read_bounded(index.path, len(notewrite.encode_index(index.text)) + 1)
    except FileNotFoundError:
        return False, ""
    except OSError:  # too large now, or unreadable: not what was planned
        return True, None
    return True, notewrite.decode_index(raw)


def ensure_unchanged(index: IndexState) -> None:
    """Exit 1 when the index is no longer what the plan was made from: writing the
    planned text would lose an edit made meanwhile."""
    if index_now(index) != (index.exists, index.text):
        raise EngramoryError(f"{index.path} changed meanwhile: nothing written; retry")


def over_cap(text: str, caps: Caps) -> tuple[int, int, list[str]]:
    """``(lines, bytes, reasons)`` of an index text; ``reasons`` says by how much a hard
    cap would be passed (empty when within)."""
    lines, size = count_lines(text), utf8_size(text)
    reasons = []
    if lines > caps.hard_lines:
        reasons.append(
            f"{lines} lines, {lines - caps.hard_lines} over the cap of {caps.hard_lines}"
        )
    if size > caps.hard_bytes:
        reasons.append(
            f"{human_size(size)}, {human_size(size - caps.hard_bytes)} over the cap of "
            f"{human_size(caps.hard_bytes)}"
        )
    return lines, size, reasons
