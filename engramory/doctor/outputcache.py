"""The doctor's printed-output cache: an unchanged store gets the last run's output back.

Beside the per-note cache (``cache.py``) and the report cache
(``runcache.py``), in the same folder, one file per *slot* (the Engramory
version, the options, the rules that run, today's date, the profile and its
reason, the output format, colour, the header line, the current directory:
everything the printed text depends on besides the store) holds what the last
run of that slot printed on standard output and its exit code, with the
*state* it was printed from (``engine.Prepared.state``: the report's
signature, the digest of every note's ``lstat`` (and content, for a note
changed within ``cache.RACY_NS``), the index, the allow state, and the
findings of the rules that read outside the store, run now).

When slot and state match, the text is printed as it was: no note is read,
no rule but those outside rules runs, nothing is rendered. Anything else
about the file (missing, foreign, truncated, corrupt, over
:data:`FILE_LIMIT`, a symlink, not this user's, of another slot or state)
means a full run, which writes the file afresh. The file is a JSON header
line of :data:`HEADER_SIZE` bytes, padded with spaces (the SHA-256 of the
slot, the state, the exit code, the length and SHA-256 of the text) followed
by the text in UTF-8 (lone surrogates kept, ``surrogatepass``). A full run
writes it as it prints (:class:`Recorder`): the text to a temporary file,
then the header in place, flushed to disk and renamed over the old file.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping
from typing import IO, Any, NamedTuple

from engramory import __version__

FORMAT = 1
FILE_PREFIX, FILE_SUFFIX = "output-", ".txt"
FILE_LIMIT = 256 * 1024 * 1024  # a larger file is not read
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_ERRORS = "surrogatepass"
PIECE = 1024 * 1024  # bytes of a saved text decoded and printed at a time
HEADER_SIZE = 320  # the header line, padded with spaces (written last, in place)


class Printed(NamedTuple):
    """What a run printed on standard output (its UTF-8 as kept), and its exit code."""

    text: bytes | memoryview
    code: int

    def write(self, out: IO[str]) -> None:
        """Print the text on ``out`` as the run did, a piece at a time (a large report is
        never held as one string besides its bytes)."""
        decoder = codecs.getincrementaldecoder("utf-8")(_ERRORS)
        view = memoryview(self.text)
        for start in range(0, len(view), PIECE):
            out.write(decoder.decode(view[start : start + PIECE]))
        out.write(decoder.decode(b"", final=True))


def slot(fields: Mapping[str, Any]) -> str:
    """The slot of a run: ``fields`` with the version and format, as canonical JSON."""
    made = {"format": FORMAT, "version": __version__, **fields}
    return json.dumps(made, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def file_path(folder: str, run_slot: str) -> str:
    digest = hashlib.sha256(run_slot.encode("ascii")).hexdigest()[:24]
    return os.path.join(folder, f"{FILE_PREFIX}{digest}{FILE_SUFFIX}")


def load(folder: str, run_slot: str, state: str) -> Printed | None:
    """The text kept for this slot and state, or ``None`` (run in full)."""
    data = read_private(file_path(folder, run_slot), FILE_LIMIT)
    if data is None:
        return None
    return parse(data, run_slot, state)


def parse(data: bytes, run_slot: str, state: str) -> Printed | None:
    """The text of a file's ``data`` when it is whole and of this slot and state."""
    header, newline = data[:HEADER_SIZE], data[HEADER_SIZE : HEADER_SIZE + 1]
    if newline != b"\n":
        return None
    try:
        kept = json.loads(header)
    except (ValueError, RecursionError):
        return None
    if type(kept) is not dict or kept.get("format") != FORMAT:
        return None
    if kept.get("slot") != _sha256(run_slot) or kept.get("state") != state:
        return None
    code, length, digest = kept.get("code"), kept.get("length"), kept.get("sha256")
    if type(code) is not int or not 0 <= code <= 255:  # an exit status (exit(256) is 0)
        return None
    if type(length) is not int or length != len(data) - HEADER_SIZE - 1:
        return None
    body = memoryview(data)[HEADER_SIZE + 1 :]  # not a copy of a report of many megabytes
    if digest != hashlib.sha256(body).hexdigest():
        return None
    return Printed(body, code) if _decodes(body) else None


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", _ERRORS)).hexdigest()


def _decodes(body: bytes | memoryview) -> bool:
    """Whether ``body`` is whole UTF-8 (checked before a byte of it is printed), decoded a
    piece at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")(_ERRORS)
    view = memoryview(body)
    try:
        for start in range(0, len(view), PIECE):
            decoder.decode(view[start : start + PIECE])
        decoder.decode(b"", final=True)
    except UnicodeError:
        return False
    return True


class Recorder:
    """Keeps what a run prints, as it prints it: each piece goes to a temporary file in
    the cache folder (after a blank header of :data:`HEADER_SIZE` bytes) and into a
    running SHA-256; :meth:`commit` writes the header, flushes the file to disk and
    renames it over the old one, :meth:`discard` drops it (the run failed part way)."""

    def __init__(self, folder: str, run_slot: str, state: str) -> None:
        import tempfile  # noqa: PLC0415 - only when the cache is written

        self.folder, self.slot, self.state = folder, run_slot, state
        self.digest, self.length = hashlib.sha256(), 0
        self._temp: str | None = None
        self._out: IO[bytes] | None = None
        try:
            fd, self._temp = tempfile.mkstemp(prefix=".output-", suffix=".tmp", dir=folder)
            self._out = os.fdopen(fd, "wb")
            self._out.write(b" " * HEADER_SIZE + b"\n")
        except OSError:
            self.discard()

    def write(self, piece: str) -> None:
        if self._out is None:
            return
        data = piece.encode("utf-8", _ERRORS)
        self.digest.update(data)
        self.length += len(data)
        try:
            self._out.write(data)
        except OSError:
            self.discard()

    def commit(self, code: int) -> None:
        """Keep the text written and the run's exit ``code``; quietly nothing on failure."""
        out, temp = self._out, self._temp
        if out is None or temp is None:
            return
        header = {
            "format": FORMAT,
            "slot": _sha256(self.slot),
            "state": self.state,
            "code": code,
            "length": self.length,
            "sha256": self.digest.hexdigest(),
        }
        line = json.dumps(header, ensure_ascii=True, separators=(",", ":")).encode("ascii")
        if len(line) > HEADER_SIZE:  # not a header this module could read back
            self.discard()
            return
        try:
            out.seek(0)
            out.write(line.ljust(HEADER_SIZE))
            out.flush()
            os.fsync(out.fileno())
            out.close()
            self._out = None
            os.replace(temp, file_path(self.folder, self.slot))
        except (OSError, ValueError):
            self.discard()
            return
        self._temp = None
        from engramory.doctor.cache import prune  # noqa: PLC0415

        prune(self.folder, FILE_PREFIX, FILE_SUFFIX)

    def discard(self) -> None:
        from engramory.doctor.cache import drop_temp  # noqa: PLC0415

        out, temp = self._out, self._temp
        self._out = self._temp = None
        drop_temp(out, temp)


def read_private(path: str, limit: int) -> bytes | None:
    """The bytes of ``path`` when it is a regular file of this user's (not a symlink, not
    over ``limit`` bytes), opened without blocking on a FIFO; else ``None``."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
        if not stat.S_ISREG(info.st_mode) or not mine or info.st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


def write_private(folder: str, name: str, data: bytes | Iterable[bytes]) -> bool:
    """Write ``data`` (or its pieces) to ``folder/name`` atomically: a temporary file (mode
    0600) flushed to disk, then renamed over it; ``False``, and nothing left behind, when
    that fails."""
    import tempfile  # noqa: PLC0415 - only when the cache is written

    try:
        fd, temp = tempfile.mkstemp(prefix=f".{name}-", suffix=".tmp", dir=folder)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.writelines([data] if isinstance(data, bytes) else data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, os.path.join(folder, name))
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass
        return False
    return True
