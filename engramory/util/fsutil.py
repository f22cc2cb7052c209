"""Careful file-system primitives: bounded reads, containment, atomic writes.

The memory store is attacker-influenceable, so every read here is bounded,
never blocks on a FIFO (files are opened non-blocking and checked with
``fstat`` before a byte is read), and every containment test is done on
resolved paths with a separator boundary. Writes are atomic: a temporary file
in the same directory, flushed and fsynced, then ``os.replace``; the file's
existing permission bits are kept.
"""

from __future__ import annotations

import errno
import os
import stat
import time

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)
_CHUNK = 1 << 16


class NotRegularFileError(OSError):
    """The path exists but is a directory, FIFO, socket or device."""


class FileTooLargeError(OSError):
    """The file is larger than the caller's read bound; nothing was read."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        from engramory.util.textfmt import plural  # noqa: PLC0415 - kept off the hook's import path

        super().__init__(f"{path}: {plural(size, 'byte')} is over the {limit}-byte read limit")
        self.size = size
        self.limit = limit


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """Read a regular file of at most ``limit`` bytes.

    Raises :class:`NotRegularFileError` for anything that is not a regular
    file (without blocking on a FIFO), :class:`FileTooLargeError` when the
    file is over ``limit`` (decided from its size, before reading), and
    :class:`OSError` for everything else.
    """
    return read_bounded_stat(path, limit)[0]


def read_bounded_stat(
    path: str | os.PathLike[str], limit: int, follow_symlinks: bool = True
) -> tuple[bytes, os.stat_result]:
    """:func:`read_bounded`, also returning the ``fstat`` of what was read.

    With ``follow_symlinks=False`` a symlink in the last path component is
    refused (``O_NOFOLLOW``), closing the gap between a containment check on
    the resolved path and the open.
    """
    flags = _OPEN_FLAGS if follow_symlinks else _OPEN_FLAGS | getattr(os, "O_NOFOLLOW", 0)
    name = os.fspath(path)
    fd = os.open(name, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(f"{name}: not a regular file")
        if info.st_size > limit:
            raise FileTooLargeError(name, info.st_size, limit)
        chunks = []
        remaining = limit + 1
        want = min(info.st_size + 1, remaining)  # one read for a file that does not grow
        while remaining > 0:
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
            if len(chunk) < want and limit + 1 - remaining >= info.st_size:
                break  # a short read once the whole size is in: end of file
            want = min(_CHUNK, remaining)
    finally:
        os.close(fd)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if len(data) > limit:  # the file grew after fstat
        raise FileTooLargeError(name, len(data), limit)
    return data, info


def is_within(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or below it. Both must already be resolved.

    The comparison uses a separator boundary, so ``/data/store-old`` is not
    inside ``/data/store``, and it handles a filesystem root (``/``, ``C:\\``).
    """
    path = os.path.normcase(path)
    root = os.path.normcase(root)
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def escapes(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> str | None:
    """Where ``path`` really leads when that is outside ``root``, else ``None``.

    Both are resolved first (every symlink on the way followed), so this is
    the one containment test for "a file of the store": the doctor's index
    and notes, and the index ``check`` measures.
    """
    real = resolve(path)
    return None if is_within(real, resolve(root)) else real


# Reasons worded for what the user can do, for the errors whose strerror misleads.
PERMISSION_DENIED = "Permission denied"
NAME_TOO_LONG = "the name is too long for the file system (ENAMETOOLONG): shorten the path"
SYMLINK_LOOP = "a symlink loop (ELOOP)"


def os_error_text(exc: OSError) -> str:
    """A short reason for a failed file-system call, saying what is wrong and what to do."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        return PERMISSION_DENIED
    if exc.errno == errno.ENAMETOOLONG:
        return NAME_TOO_LONG
    if exc.errno == errno.ELOOP:
        return SYMLINK_LOOP
    return exc.strerror or str(exc)


def kind(path: str | os.PathLike[str]) -> tuple[str, OSError | None]:
    """What is at ``path`` (symlinks followed, nothing opened), and never an exception.

    ``"dir"``, ``"file"`` (regular), ``"other"``, ``"missing"`` (no such entry,
    a dangling symlink, or a parent that is not a directory), or ``"error"``
    with the :class:`OSError` (a directory on the way that cannot be searched,
    a symlink loop, a name too long). ``Path.exists()`` raises for some of
    these before Python 3.12, and hides the others as "missing".
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing", None
    except OSError as exc:
        return "error", exc
    except ValueError:  # an embedded NUL byte: no such file can exist
        return "missing", None
    if stat.S_ISDIR(mode):
        return "dir", None
    if stat.S_ISREG(mode):
        return "file", None
    return "other", None


def resolve(path: str | os.PathLike[str]) -> str:
    """The absolute, symlink-free form of ``path`` (missing tails are kept as written)."""
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def write_atomic(path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its permission bits.

    A new file gets ``mode`` (default ``0o644`` less the umask). Readers see
    either the old bytes or the new ones, never a partial write.
    """
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o644 & ~umask
    import tempfile  # noqa: PLC0415 - kept off the hook's import path

    from engramory.util import crashpoint  # noqa: PLC0415 - so is the test hook (a read needs neither)

    fd, temp = tempfile.mkstemp(prefix=".engramory-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        crashpoint.reached("atomic-temp")  # a test hook, inert unless set
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    fsync_directory(directory)


def fsync_directory(directory: str) -> None:
    """Persist a rename on POSIX; a no-op where directories cannot be opened."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def try_lock(fd: int) -> None:
    """Take an exclusive lock on the open file ``fd`` without waiting (OSError when it is held)."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX
    except ImportError:  # pragma: no cover - Windows
        import msvcrt  # noqa: PLC0415

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        return
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def release_lock(fd: int) -> None:
    """Release the lock :func:`try_lock` took on ``fd``."""
    try:
        import fcntl  # noqa: PLC0415
    except ImportError:  # pragma: no cover - Windows
        import msvcrt  # noqa: PLC0415

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
        return
    fcntl.flock(fd, fcntl.LOCK_UN)


LOCK_POLL = 0.01


class FileLock:
    """An exclusive lock on the file ``path`` (created 0600, never through a symlink), held
    inside a ``with`` block; waits at most ``timeout`` seconds, then ``TimeoutError``.

    A class, not ``contextlib.contextmanager``: this module is on the guard's path, and
    contextlib costs it collections and functools.
    """

    def __init__(self, path: str, timeout: float = 2.0) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None

    def __enter__(self) -> FileLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                try_lock(fd)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise TimeoutError(
                        f"timed out after {self.timeout:g}s waiting for {self.path}"
                    ) from None
                time.sleep(LOCK_POLL)
        self._fd = fd
        return self

    def __exit__(self, *exc_info: object) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                release_lock(fd)
            finally:
                os.close(fd)
