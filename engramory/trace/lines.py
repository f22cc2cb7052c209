"""A transcript's lines, read in bounded chunks, optionally only the lines worth parsing.

Transcripts reach gigabytes and hold lines of many megabytes (tool output,
base64 images), so a file is never read whole: it is read in chunks of
:data:`CHUNK_SIZE`, and a line is only assembled when a *selector* points into
it. A selector gets a block of whole lines (raw bytes) and returns offsets of
interest; the lines holding them are yielded, each once, with their file
offsets (:func:`line_numbers` turns the few that matter into 1-based line
numbers). Without a selector every non-empty line is yielded.

Memory stays bounded by the chunk size plus the longest line kept: a line
longer than :data:`MAX_LINE` bytes is skipped (and counted) without ever being
held whole. Files are opened read-only and without blocking, and only when
they are regular files (a FIFO or device is refused, never read). A sparse file
that is mostly holes (:func:`mostly_holes`) is left to the caller to skip, so the
time a search takes follows a file's data, not its apparent size.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

CHUNK_SIZE = 4 << 20
MAX_LINE = 64 << 20
SPARSE_MIN = 1 << 20  # smaller files are read whatever their allocation

Selector = Callable[[bytes], Iterable[int]]


class ReadStats:
    """Lines that could not be used: too long, or not a JSON record (set by the reader)."""

    __slots__ = ("unreadable",)

    def __init__(self) -> None:
        self.unreadable = 0


def open_regular(path: str) -> int:
    """A read-only descriptor of ``path``; ``OSError`` unless it is a regular file.

    A symbolic link is not followed (where the platform can refuse one), and the
    open never blocks on a FIFO.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def mostly_holes(path: str) -> bool:
    """Whether ``path`` is a sparse file whose length is mostly holes: its allocated size
    is under an eighth of its length and (where the platform can tell) it has a hole
    before its end. Such a file is skipped rather than read for its apparent size
    (a hole reads as zero bytes, which hold no record)."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    blocks = getattr(info, "st_blocks", None)
    if blocks is None or info.st_size < SPARSE_MIN or blocks * 512 >= info.st_size // 8:
        return False
    seek_hole = getattr(os, "SEEK_HOLE", None)
    if seek_hole is None:
        return True
    try:
        fd = open_regular(path)
    except OSError:
        return False
    try:
        return os.lseek(fd, 0, seek_hole) < info.st_size
    except OSError:  # the file system cannot say: trust the allocated size
        return True
    finally:
        os.close(fd)


def _selected(block: bytes, base: int, select: Selector | None) -> Iterator[tuple[int, bytes]]:
    """The lines of ``block`` (whole lines starting at file offset ``base``) to yield."""
    if select is None:
        start = 0
        for line in block.split(b"\n"):
            if line.strip():
                yield base + start, line
            start += len(line) + 1
        return
    done = -1
    for position in sorted(set(select(block))):
        if position <= done:
            continue
        start = block.rfind(b"\n", 0, position) + 1
        end = block.find(b"\n", position)
        if end < 0:
            end = len(block)
        yield base + start, block[start:end]
        done = end


def _blocks(stream: BinaryIO, stats: ReadStats, size: int) -> Iterator[tuple[int, bytes]]:
    """``(file offset, block of whole lines)`` for a stream, in order, read ``size`` at a time.

    A line is assembled from several chunks only while it is within
    :data:`MAX_LINE`; past that its bytes are dropped as they come and it is counted.
    """
    limit = MAX_LINE
    size = min(size, limit)  # a line inside one chunk is then never over the limit
    offset = 0  # the file offset of the next byte not yet yielded or dropped
    pending: list[bytes] = []
    pending_size = 0
    while True:
        chunk = stream.read(size)
        if not chunk:
            break
        start = 0
        if pending_size:
            newline = chunk.find(b"\n")
            cut = len(chunk) if newline < 0 else newline + 1
            pending_size += cut
            if pending_size <= limit + 1:
                pending.append(chunk[:cut])
            else:
                pending = []
            if newline < 0:
                continue
            if pending:
                yield offset, b"".join(pending)
            else:
                stats.unreadable += 1
            offset += pending_size
            pending, pending_size, start = [], 0, cut
        last = chunk.rfind(b"\n")
        if last >= start:
            block = chunk[start : last + 1] if start or last + 1 < len(chunk) else chunk
            yield offset, block
            offset += len(block)
            start = last + 1
        if start < len(chunk):
            pending_size = len(chunk) - start
            pending = [chunk[start:]] if pending_size <= limit else []
    if pending:
        yield offset, b"".join(pending)
    elif pending_size:
        stats.unreadable += 1


def read_lines(
    path: str, select: Selector | None, stats: ReadStats, size: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """``(file offset, raw line)`` for the lines of ``path`` that ``select`` points into.

    Line numbers are not counted here (that would cost a pass over every byte):
    :func:`line_numbers` finds them for the few lines that become hits. Raises
    ``OSError`` when the file cannot be opened; a line over :data:`MAX_LINE`
    bytes is counted in ``stats`` and skipped. ``size``: the read size (default
    :data:`CHUNK_SIZE`; smaller to read only a file's head).
    """
    with os.fdopen(open_regular(path), "rb", buffering=0) as stream:
        for offset, block in _blocks(stream, stats, size or CHUNK_SIZE):
            yield from _selected(block, offset, select)


def line_numbers(path: str, offsets: Iterable[int]) -> dict[int, int]:
    """The 1-based line number of each line start in ``offsets`` (one pass over the file up
    to the last of them; an offset past the end, in a file that shrank, is left out)."""
    wanted = sorted(set(offsets))
    numbers: dict[int, int] = {}
    if not wanted:
        return numbers
    newlines, position, at = 0, 0, 0
    with os.fdopen(open_regular(path), "rb", buffering=0) as stream:
        while at < len(wanted):
            chunk = stream.read(CHUNK_SIZE)
            if not chunk:
                break
            counted = 0
            while at < len(wanted) and wanted[at] - position < len(chunk):
                cut = wanted[at] - position
                newlines += chunk.count(b"\n", counted, cut)
                counted = cut
                numbers[wanted[at]] = newlines + 1
                at += 1
            newlines += chunk.count(b"\n", counted)
            position += len(chunk)
    return numbers
