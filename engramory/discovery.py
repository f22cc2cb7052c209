"""Find the memory store a command should work on (DESIGN §3, "Store discovery").

Order: an explicit path (a store directory, or its ``MEMORY.md``) >
``$ENGRAMORY_MEMORY_ROOT`` > ``./.engramory-memory/`` > the current directory
when it holds a ``MEMORY.md``. Only the current directory is looked at, never
its parents. A set ``$ENGRAMORY_MEMORY_ROOT`` that does not exist is an error,
not a reason to fall through to the next candidate.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from engramory.errors import InputMissingError

INDEX_NAME = "MEMORY.md"
DEFAULT_STORE_DIR = ".engramory-memory"
ENV_MEMORY_ROOT = "ENGRAMORY_MEMORY_ROOT"


@dataclass(frozen=True)
class Location:
    """Where a command's input is.

    ``root`` is the store directory; ``index`` the file to measure (normally
    ``root / "MEMORY.md"``); ``source`` says how it was found, for messages.
    """

    root: Path
    index: Path
    source: str


def _kind(path: Path) -> str:
    """``"dir"``, ``"file"``, ``"other"`` or ``"missing"`` (follows symlinks, never opens)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "missing"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _from_explicit(raw: str, any_file: bool) -> Location:
    path = Path(raw)
    kind = _kind(path)
    if kind == "dir":
        return Location(path, path / INDEX_NAME, "argument")
    if kind == "file":
        if any_file or path.name == INDEX_NAME:
            return Location(path.parent, path, "argument")
        raise InputMissingError(
            f"{raw} is a file, not a store: pass the store directory or its {INDEX_NAME}"
        )
    if kind == "other":
        raise InputMissingError(f"{raw} is not a regular file or a directory")
    raise InputMissingError(f"{raw} does not exist")


def locate(
    explicit: str | None = None,
    *,
    any_file: bool = False,
    environ: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> Location:
    """Find the store (and its index) to work on, or raise :class:`InputMissingError`.

    With ``any_file`` an explicit path may name any regular file, which is
    then measured as the index (``engramory check notes/INDEX.md``).
    """
    if explicit is not None:
        return _from_explicit(explicit, any_file)
    env = os.environ if environ is None else environ
    here = Path() if cwd is None else cwd
    configured = env.get(ENV_MEMORY_ROOT, "").strip()
    if configured:
        root = Path(configured)
        if _kind(here / root) != "dir":
            raise InputMissingError(
                f"${ENV_MEMORY_ROOT} is set to {configured}, which is not an existing "
                f"directory: create the store there or unset the variable"
            )
        root = here / root
        return Location(root, root / INDEX_NAME, f"${ENV_MEMORY_ROOT}")
    default = here / DEFAULT_STORE_DIR
    if _kind(default) == "dir":
        return Location(default, default / INDEX_NAME, f"./{DEFAULT_STORE_DIR}/")
    if _kind(here / INDEX_NAME) == "file":
        return Location(here, here / INDEX_NAME, "the current directory")
    raise InputMissingError(
        f"no memory store found: pass a store path, or set ${ENV_MEMORY_ROOT} "
        f"(tried ${ENV_MEMORY_ROOT}: unset, ./{DEFAULT_STORE_DIR}/: absent, "
        f"./{INDEX_NAME}: absent)"
    )
