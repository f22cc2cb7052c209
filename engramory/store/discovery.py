"""Find the memory store a command should work on (DESIGN §3 "Store discovery", §4 "Discovery").

Order:

1. An explicit path: a store directory, or its ``MEMORY.md``. A directory
   without ``MEMORY.md`` that holds a ``.engramory-memory/`` store (its index,
   or notes) means that store; one that holds neither and no note of its own
   is not a store at all (``engramory doctor .`` in a project root).
2. ``$ENGRAMORY_MEMORY_ROOT``; set but not an existing directory is an error,
   never a reason to fall through to the next step.
3. ``.engramory-memory/``, then a ``MEMORY.md``, in the current directory and
   then in each parent, up to the git work tree's top (the first directory
   holding ``.git``, a directory or a file; git itself is never run), or up to
   the file-system root outside a work tree.

4. The project's Claude Code auto-memory folder (:mod:`engramory.store.automemory`),
   when it holds a ``MEMORY.md``; the project is the git work tree's top, else
   the current directory.
5. Then Qwen Code's and Gemini CLI's project memory folders
   (:mod:`engramory.store.hostmemory`), in that order, when they hold a ``MEMORY.md``:
   the hosts whose memory is an index plus notes. Codex's and Hermes' folders
   are not notes stores and are never discovered (``where`` shows them).

Every :class:`Location` says how it was found, so the commands can name the
store and why.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engramory.store.caps import INDEX_NAME  # named in caps, on the hook's path; used from here
from engramory.util import fsutil
from engramory.util.errors import InputMissingError

if TYPE_CHECKING:
    from engramory.store import automemory

DEFAULT_STORE_DIR = ".engramory-memory"
ENV_MEMORY_ROOT = "ENGRAMORY_MEMORY_ROOT"
GIT_MARKER = ".git"

ARGUMENT = "argument"
NOTE_SCAN_ENTRIES = 5000  # directory entries looked at when asking "does it hold notes?"
NOTE_SCAN_FILES = 200  # .md files opened for that question, 8 bytes each
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)


@dataclass(frozen=True)
class Location:
    """Where a command's input is.

    ``root`` is the store directory; ``index`` the file to measure (normally
    ``root / "MEMORY.md"``); ``source`` says how it was found, for messages:
    ``"argument"`` for the path given as is, else a phrase such as ``"found
    under x"`` or ``"from $ENGRAMORY_MEMORY_ROOT"``.
    """

    root: Path
    index: Path
    source: str

    @property
    def discovered(self) -> bool:
        """Whether the store is not simply the path given: the output must name it and why."""
        return self.source != ARGUMENT


def _kind(path: Path) -> str:
    """``"dir"``, ``"file"``, ``"other"``, ``"missing"`` or ``"error"`` (:func:`fsutil.kind`)."""
    return fsutil.kind(path)[0]


def _entry_exists(path: Path) -> bool:
    """Whether anything (even a dangling symlink or a FIFO) is at ``path``; never raises."""
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def _opens_with_fence(path: str) -> bool:
    """Whether a regular file's first line is ``---`` (after a BOM): a frontmatter block.

    Opened non-blocking without following a symlink, and only 8 bytes read.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, 8)
    except OSError:
        return False
    finally:
        os.close(fd)
    head = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    return head.startswith(b"---") and head[3:].lstrip(b" \t\r")[:1] == b"\n"


def holds_notes(directory: Path) -> bool:
    """Whether ``directory`` holds a note at its top level: a ``.md`` file opening with ``---``.

    Bounded (:data:`NOTE_SCAN_ENTRIES` entries, :data:`NOTE_SCAN_FILES` files
    opened); hidden entries and symlinks are skipped, never followed.
    """
    opened = 0
    try:
        with os.scandir(directory) as scan:
            for seen, entry in enumerate(scan):
                if seen >= NOTE_SCAN_ENTRIES or opened >= NOTE_SCAN_FILES:
                    return False
                name = entry.name
                if name.startswith(".") or not name.lower().endswith(".md"):
                    continue
                try:
                    if not entry.is_file(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                opened += 1
                if _opens_with_fence(entry.path):
                    return True
    except OSError:
        return False
    return False


def _nested_store(directory: Path) -> Path | None:
    """``directory/.engramory-memory`` when it is a store (holds its index, or notes)."""
    nested = directory / DEFAULT_STORE_DIR
    if _kind(nested) != "dir":
        return None
    if _entry_exists(nested / INDEX_NAME) or holds_notes(nested):
        return nested
    return None


def _from_directory(raw: str, path: Path) -> Location:
    """An explicit directory: the store itself, the store below it, or not a store.

    A directory that cannot be searched is taken as the store, so the command
    reports the permission problem on it rather than "not a store".
    """
    if _entry_exists(path / INDEX_NAME) or fsutil.kind(path / INDEX_NAME)[0] == "error":
        return Location(path, path / INDEX_NAME, ARGUMENT)
    nested = _nested_store(path)
    if nested is not None:
        return Location(nested, nested / INDEX_NAME, f"found under {raw}")
    if holds_notes(path):
        return Location(path, path / INDEX_NAME, ARGUMENT)
    nested_state = "no index and no notes" if _kind(path / DEFAULT_STORE_DIR) == "dir" else "absent"
    raise InputMissingError(
        f"{raw} is not a memory store: pass the store directory, or create one with "
        f"engramory init (tried {path / INDEX_NAME}: absent; {path / DEFAULT_STORE_DIR}/: "
        f"{nested_state}; notes in {raw}: none, no .md file opens with a frontmatter block)"
    )


def _from_explicit(raw: str, any_file: bool) -> Location:
    path = Path(raw)
    kind = _kind(path)
    if kind == "dir":
        return _from_directory(raw, path)
    if kind == "file":
        if any_file or path.name == INDEX_NAME:
            return Location(path.parent, path, ARGUMENT)
        raise InputMissingError(
            f"{raw} is a file, not a store: pass the store directory or its {INDEX_NAME}"
        )
    if kind == "other":
        raise InputMissingError(f"{raw} is not a regular file or a directory")
    raise InputMissingError(f"{raw} does not exist")


def _from_environment(configured: str, here: Path) -> Location:
    root = here / configured
    if _kind(root) != "dir":
        raise InputMissingError(
            f"${ENV_MEMORY_ROOT} is set to {configured}, which is not an existing "
            f"directory: create the store there or unset the variable"
        )
    return Location(root, root / INDEX_NAME, f"from ${ENV_MEMORY_ROOT}")


def _absolute(here: Path) -> Path | None:
    """``here`` made absolute without resolving symlinks; ``None`` when the cwd is gone."""
    if here.is_absolute():
        return here
    try:
        return Path.cwd() / here
    except OSError:
        return None


def _ancestors(here: Path) -> tuple[list[Path], bool]:
    """The directories to search, ``here`` first; and whether the last is a git work-tree top."""
    start = _absolute(here)
    searched = []
    for directory in (here, *(start.parents if start is not None else ())):
        searched.append(directory)
        if _entry_exists(directory / GIT_MARKER):
            return searched, True
    return searched, False


def _found_in(directory: Path, depth: int) -> Location | None:
    """The store in one searched directory: its ``.engramory-memory/``, or itself with an index."""
    where = "the current directory" if depth == 0 else f"{directory}, a parent of the current one"
    nested = directory / DEFAULT_STORE_DIR
    if _kind(nested) == "dir":
        return Location(nested, nested / INDEX_NAME, f"found in {where}")
    if _kind(directory / INDEX_NAME) == "file":
        return Location(directory, directory / INDEX_NAME, f"found in {where}")
    return None


def git_work_tree(path: Path) -> Path | None:
    """The top of the git work tree holding ``path`` (the nearest folder with ``.git``), if any."""
    searched, at_git_top = _ancestors(Path(os.path.abspath(path)))
    return searched[-1] if at_git_top else None


def _from_ancestors(here: Path, environ: Mapping[str, str]) -> tuple[Location | None, str]:
    """Search ``here`` and its parents up to the work-tree top; the store, or what was tried."""
    searched, at_git_top = _ancestors(here)
    for depth, directory in enumerate(searched):
        found = _found_in(directory, depth)
        if found is not None:
            return found, ""
    top = searched[-1] if len(searched) > 1 else _absolute(here) or here
    limit = (
        f"up to {top}, the git work-tree top"
        if at_git_top
        else f"up to {top} (no git work tree around it)"
    )
    start = _absolute(here) or here
    return None, f"./{DEFAULT_STORE_DIR}/ or {INDEX_NAME} in {start} and each parent {limit}: none"


def project_root(here: Path) -> Path:
    """The project a directory belongs to: its git work tree's top, else the directory itself."""
    start = _absolute(here) or here
    return git_work_tree(start) or start


def _from_claude_auto_memory(here: Path, environ: Mapping[str, str]) -> tuple[Location | None, str]:
    """The project's Claude Code auto-memory folder, when it holds an index (DESIGN §4)."""
    from engramory.store import automemory  # noqa: PLC0415 - only when the steps before found nothing

    project = project_root(here)
    resolution = automemory.resolve(project, environ)
    folder = resolution.path
    if _kind(folder / INDEX_NAME) == "file":
        source = f"Claude Code's auto-memory folder ({native_reason(resolution, project)})"
        return Location(folder, folder / INDEX_NAME, source), ""
    return None, f"Claude Code's auto-memory folder {folder}: no {INDEX_NAME}"


def _from_other_hosts(here: Path, environ: Mapping[str, str]) -> tuple[Location | None, str]:
    """Qwen Code's, then Gemini CLI's memory folder for the project, when it holds an index."""
    from engramory.store.hostmemory import registry  # noqa: PLC0415 - only when nothing else was found

    project = project_root(here)
    tried = []
    for host in registry.NOTES_FALLBACK:
        found = registry.find(host, Path(os.path.abspath(project)), environ)
        if _kind(found.path / INDEX_NAME) == "file":
            source = f"{found.owner} memory folder ({found.rule_text})"
            return Location(found.path, found.path / INDEX_NAME, source), ""
        tried.append(f"{found.owner} memory folder {found.path}: no {INDEX_NAME}")
    return None, "; ".join(tried)


def native_reason(resolution: automemory.Resolution, project: Path) -> str:
    """Which of the host's rules chose a project's auto-memory folder, in words."""
    from engramory.store import automemory  # noqa: PLC0415 - only for the auto-memory folder

    return {
        automemory.OVERRIDE: f"${automemory.OVERRIDE_ENV}",
        automemory.SETTINGS: f"autoMemoryDirectory in {resolution.settings_file}",
        automemory.DEFAULT: f"the host's folder for {project}",
    }[resolution.rule]


def current_project() -> Path:
    """The project of the current directory (its git work tree's top, else itself)."""
    try:
        here = Path.cwd()
    except OSError as exc:
        raise InputMissingError(
            f"the current directory is gone ({exc.strerror or exc}): cd into the project"
        ) from None
    return project_root(here)


def native_location() -> Location:
    """``--native``: the current project's Claude Code auto-memory folder, which must exist."""
    project = current_project()
    from engramory.store import automemory  # noqa: PLC0415 - only for the auto-memory folder

    resolution = automemory.resolve(project)
    reason = native_reason(resolution, project)
    if not resolution.exists:
        raise InputMissingError(
            f"Claude Code's auto-memory folder for {project} is {resolution.path} ({reason}), "
            "which does not exist or is not a folder: Claude Code creates it when it first saves "
            "a memory (run the doctor from inside the project, or pass the store's path)"
        )
    folder = resolution.path
    return Location(folder, folder / INDEX_NAME, f"Claude Code's auto-memory folder ({reason})")


Step = Callable[[Path, Mapping[str, str]], "tuple[Location | None, str]"]
FALLBACK_STEPS: tuple[Step, ...] = (_from_ancestors, _from_claude_auto_memory, _from_other_hosts)
"""The steps after ``$ENGRAMORY_MEMORY_ROOT``, in order: each gives the store, or what it tried."""


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
        return _from_environment(configured, here)
    tried = [f"${ENV_MEMORY_ROOT}: unset"]
    for step in FALLBACK_STEPS:
        found, attempt = step(here, env)
        if found is not None:
            return found
        tried.append(attempt)
    raise InputMissingError(
        f"no memory store found: pass a store path, set ${ENV_MEMORY_ROOT}, or create one "
        f"with engramory init (tried {'; '.join(tried)})"
    )
