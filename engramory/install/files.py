"""The installer's file helpers and the containment checks ``init`` and ``uninstall`` share.

A read is bounded and refuses what cannot be merged into (not a regular file, not UTF-8,
too large); a write or a deletion is returned as a step's action, run only after every
step is planned; a write is atomic and keeps the file's mode.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from engramory.install.layout import Layout
from engramory.util import fsutil
from engramory.wiring.refusal import FlagRefusal, Refusal


def lexists(path: Path) -> bool:
    """Whether anything is at ``path``, a dangling symlink included."""
    return os.path.lexists(path)


def absent(path: Path) -> bool:
    """Nothing to uninstall at ``path``: missing, a dangling symlink, or a directory.

    Any other error (a symlink loop, a directory that may not be searched) is
    not absence: reading the file then refuses with that error.
    """
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def read_target(path: Path, what: str, limit: int = 16 * 1024 * 1024) -> str | None:
    """A target file's text (``None`` when absent); refuses non-regular or non-UTF-8 files,
    and files over ``limit`` bytes."""
    if not lexists(path):
        return None
    real = Path(os.path.realpath(path))
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return None  # a dangling symlink: written as a new file at its target
    except OSError as exc:  # a symlink loop, a name too long, a directory we may not search...
        raise Refusal(f"cannot read {path}: {exc.strerror or exc}; nothing was written") from None
    if not stat.S_ISREG(mode):
        raise Refusal(f"{path} is not a regular file; {what} cannot be written there")
    try:
        return fsutil.read_bounded(real, limit).decode("utf-8")
    except fsutil.FileTooLargeError as exc:
        raise Refusal(
            f"{path} is {exc.size} bytes, over the {limit}-byte read limit for a file that "
            f"{what} would go into; nothing was written"
        ) from None
    except UnicodeDecodeError:
        raise Refusal(f"{path} is not UTF-8 text; {what} cannot be merged into it") from None
    except OSError as exc:
        raise Refusal(f"cannot read {path}: {exc.strerror or exc}; nothing was written") from None


def writer(path: Path, text: str, mode: int | None = None) -> Callable[[], None]:
    """An atomic write of ``text`` to ``path`` (through a symlink, to its target); ``mode``
    sets the permission bits (default: the file's own, or 0644 less the umask)."""

    def run() -> None:
        real = Path(os.path.realpath(path))
        real.parent.mkdir(parents=True, exist_ok=True)
        fsutil.write_atomic(real, text.encode("utf-8"), mode)

    return run


def deleter(path: Path, stop: Path) -> Callable[[], None]:
    """Delete a file, then the directories above it that it leaves empty (up to ``stop``)."""

    def run() -> None:
        os.unlink(path)
        prune_empty(path.parent, stop)

    return run


def recorded_deleter(path: Path, folder: bool) -> Callable[[], None]:
    """Delete a file, then (``folder``: init recorded that it created it) its folder when that
    is left empty; no other folder, whatever it holds."""

    def run() -> None:
        os.unlink(path)
        if folder:
            try:
                path.parent.rmdir()
            except OSError:  # not empty (or gone): left as it is
                pass

    return run


def prune_empty(directory: Path, stop: Path) -> None:
    """Remove ``directory`` and the directories above it while they are empty, up to ``stop``."""
    stop = Path(os.path.abspath(stop))
    current = Path(os.path.abspath(directory))
    while current != stop and fsutil.is_within(str(current), str(stop)):
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


def shown_path(layout: Layout, path: Path) -> str:
    """A path for the report: relative to the project root when inside it."""
    try:
        return path.relative_to(layout.root).as_posix() or "."
    except ValueError:
        return str(path)


def check_contained(layout: Layout, path: Path | None, what: str) -> None:
    """Refuse a target that is, or passes through, a symlink leading out of the project.

    A target named outside the project on purpose (``--memory-root`` elsewhere,
    ``$CODEX_HOME``) is the user's choice and is not refused.
    """
    if path is None:
        return
    nominal = os.path.abspath(path)
    if not fsutil.is_within(nominal, os.path.abspath(layout.containment)):
        return
    real = os.path.realpath(path)
    root = os.path.realpath(layout.containment)
    if not fsutil.is_within(real, root):
        raise Refusal(
            f"{what} {path} resolves to {real}, outside {layout.containment}: it is or passes "
            "through a symlink leading out of the project; nothing was written"
        )


def overlap(a: Path, b: Path) -> bool:
    """Whether one of the two paths is inside the other (once symlinks are resolved)."""
    ra, rb = os.path.realpath(a), os.path.realpath(b)
    return fsutil.is_within(ra, rb) or fsutil.is_within(rb, ra)


def check_store_placement(layout: Layout) -> None:
    """Refuse a store where the command line put it wrongly (a usage error)."""
    if os.path.realpath(layout.store) == os.path.realpath(layout.root):
        raise FlagRefusal(
            f"the memory root {layout.store} is the project root itself: pass a directory "
            "inside or outside the project, e.g. --memory-root .engramory-memory"
        )
    if layout.rules is not None and fsutil.is_within(
        os.path.realpath(layout.rules), os.path.realpath(layout.store)
    ):
        raise FlagRefusal(f"the rules file {layout.rules} would be inside the memory store")
    refusal = layout.spec.store_refusal(layout.root, layout.store)
    if refusal is not None:
        raise FlagRefusal(refusal)
