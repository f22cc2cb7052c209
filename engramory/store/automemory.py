"""Claude Code's own auto-memory folder for a project, found the way the host finds it.

Most people who keep agent memory keep it in Claude Code's native folder,
``~/.claude/projects/<project>/memory/``. Engramory may use that folder as the
store (a plain folder of markdown files only the agent writes), so every
command that looks for a store, the installer and the guard's after-the-fact
check need the same answer the host computes (research/claude-native-memory.md
§1). First match wins:

1. ``CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`` (taken as written: ``~`` is not expanded);
2. ``autoMemoryDirectory`` from the project's ``.claude/settings.local.json``,
   then from the user's settings (``$CLAUDE_CONFIG_DIR/settings.json``, default
   ``~/.claude/settings.json``) -- never from the project's shared
   ``.claude/settings.json``, which the host ignores so that a cloned repository
   cannot redirect memory; ``~/`` is expanded, and a value the host would
   reject (relative, a bare drive, UNC, a NUL) is skipped;
3. ``<config dir>/projects/<key>/memory``: the key is the project's canonical
   git root (a linked worktree's main work tree, so every worktree and
   sub-directory shares one folder; the directory itself outside git), symlinks
   resolved, with every UTF-16 code unit outside ``[A-Za-z0-9]`` replaced by
   ``-``. Past 200 characters the host appends a hash that differs between
   builds: the existing folder whose name starts with the first 200 characters
   is taken, and all such folders are reported as candidates.

No process is started (git is never run) and at most two small settings files
are read, each bounded; anything unreadable is skipped as the host skips it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

OVERRIDE_ENV = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"
CONFIG_ENV = "CLAUDE_CONFIG_DIR"
SETTING = "autoMemoryDirectory"
LOCAL_SETTINGS = (".claude", "settings.local.json")
KEY_LIMIT = 200
SETTINGS_LIMIT = 1024 * 1024
GITDIR_LIMIT = 4096

OVERRIDE = "override"
SETTINGS = "settings"
DEFAULT = "default"
RULES = (OVERRIDE, SETTINGS, DEFAULT)


class Resolution:
    """Where a project's auto-memory folder is, and why.

    ``path``: the folder (absolute, no trailing separator). ``rule``: ``override``,
    ``settings`` or ``default``. ``settings_file``: the file that named it (``None``
    unless ``rule`` is ``settings``). ``candidates``: the folders considered when
    the project key was too long (empty otherwise).
    """

    __slots__ = ("candidates", "path", "rule", "settings_file")

    def __init__(
        self,
        path: Path,
        rule: str,
        settings_file: Path | None = None,
        candidates: tuple[Path, ...] = (),
    ) -> None:
        self.path = path
        self.rule = rule
        self.settings_file = settings_file
        self.candidates = candidates

    @property
    def exists(self) -> bool:
        """Whether the folder is an existing directory."""
        return os.path.isdir(self.path)

    def __repr__(self) -> str:
        return f"Resolution({str(self.path)!r}, {self.rule!r})"


def home(environ: dict[str, str] | os._Environ[str]) -> Path:
    """The user's home directory (``$HOME`` first, as the host's runtime reads it)."""
    value = environ.get("HOME") or environ.get("USERPROFILE")
    return Path(value) if value else Path.home()


def config_dir(environ: dict[str, str] | os._Environ[str]) -> Path:
    """Claude Code's configuration folder: ``$CLAUDE_CONFIG_DIR`` (one path), else ``~/.claude``."""
    configured = environ.get(CONFIG_ENV, "").strip()
    if configured:
        return Path(_expand_home(configured, environ))
    return home(environ) / ".claude"


def projects_dir(environ: dict[str, str] | os._Environ[str]) -> Path:
    """The folder holding one sub-folder per project (``<config dir>/projects``)."""
    return config_dir(environ) / "projects"


def _expand_home(value: str, environ: dict[str, str] | os._Environ[str]) -> str:
    if value == "~":
        return str(home(environ))
    if value.startswith(("~/", "~\\")):
        return str(home(environ) / value[2:])
    return value


# --- the project key --------------------------------------------------------------------


def sanitized(text: str) -> str:
    """``text`` as the host names a folder: every UTF-16 code unit outside ``[A-Za-z0-9]`` -> ``-``.

    A character outside the Basic Multilingual Plane is two UTF-16 code units, so two dashes.
    """
    out = []
    for char in text:
        if char.isascii() and char.isalnum():
            out.append(char)
        else:
            out.append("--" if ord(char) > 0xFFFF else "-")
    return "".join(out)


def _read_small(path: Path, limit: int) -> str | None:
    """A small regular file's text (``None``: missing, not regular, too large, unreadable)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > limit:
        return None
    return data.decode("utf-8", "replace")


def _main_work_tree(dot_git: Path) -> Path:
    """The work tree a ``.git`` FILE belongs to: a linked worktree's main one, else its own.

    A linked worktree's ``.git`` file points at ``<main>/.git/worktrees/<name>``,
    which holds a ``commondir`` file naming the main ``.git`` directory; a
    submodule's points at a git directory without one (its own work tree).
    """
    text = _read_small(dot_git, GITDIR_LIMIT)
    own = dot_git.parent
    if text is None or not text.startswith("gitdir:"):
        return own
    gitdir = Path(text[len("gitdir:") :].strip())
    if not gitdir.is_absolute():
        gitdir = own / gitdir
    common = _read_small(gitdir / "commondir", GITDIR_LIMIT)
    if common is None:
        return own
    main_git = Path(common.strip())
    if not main_git.is_absolute():
        main_git = gitdir / main_git
    main_git = Path(os.path.realpath(main_git))
    return main_git.parent if main_git.name == ".git" else main_git


def canonical_root(project: Path) -> Path:
    """The project's canonical git root (symlinks resolved), or the project itself outside git."""
    start = Path(os.path.realpath(project))
    for directory in (start, *start.parents):
        marker = directory / ".git"
        try:
            mode = os.stat(marker).st_mode
        except (OSError, ValueError):
            continue
        if stat.S_ISDIR(mode):
            return directory
        if stat.S_ISREG(mode):
            return Path(os.path.realpath(_main_work_tree(marker)))
    return start


def project_key(project: Path) -> str:
    """The folder name the host gives ``project``'s memory (before any hash for a long name)."""
    return sanitized(str(canonical_root(project)))


# --- the three rules ----------------------------------------------------------------------


def valid_setting(value: object, environ: dict[str, str] | os._Environ[str]) -> Path | None:
    """A configured folder as the host accepts it (``None``: the host would ignore it).

    ``~/`` expanded; absolute; at least 3 characters; not a bare drive, not UNC, no
    NUL; a trailing separator dropped; NFC-normalised.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    text = _expand_home(value.strip(), environ)
    if "\0" in text or len(text) < 3 or text.startswith(("\\\\", "//")):
        return None
    if len(text) <= 3 and text[1:2] == ":":  # C: or C:\
        return None
    if not (os.path.isabs(text) or (text[1:3] in (":\\", ":/"))):
        return None
    import unicodedata  # noqa: PLC0415 - only for a configured folder

    text = unicodedata.normalize("NFC", text.rstrip("/\\") or text)
    return Path(text)


def _setting_in(path: Path, environ: dict[str, str] | os._Environ[str]) -> Path | None:
    """``autoMemoryDirectory`` from one settings file, when it sets a valid one."""
    text = _read_small(path, SETTINGS_LIMIT)
    if text is None:
        return None
    from engramory.util import fastjson  # noqa: PLC0415 - only when a settings file exists

    try:
        settings = fastjson.loads(text.lstrip("\ufeff"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(settings, dict):
        return None
    return valid_setting(settings.get(SETTING), environ)


def settings_files(project: Path, environ: dict[str, str] | os._Environ[str]) -> tuple[Path, ...]:
    """The settings files the host reads ``autoMemoryDirectory`` from, in its order."""
    return (project.joinpath(*LOCAL_SETTINGS), config_dir(environ) / "settings.json")


def _long_key_candidates(projects: Path, prefix: str) -> tuple[Path, ...]:
    """Existing project folders whose name starts with ``prefix`` (a key cut at 200 characters)."""
    try:
        names = sorted(e.name for e in os.scandir(projects) if e.name.startswith(prefix))
    except OSError:
        return ()
    return tuple(projects / name for name in names if os.path.isdir(projects / name))


def _newest(folders: tuple[Path, ...]) -> Path:
    """The candidate whose memory index changed last (the first by name when none has one)."""

    def changed(folder: Path) -> float:
        try:
            return os.stat(folder / "memory" / "MEMORY.md").st_mtime
        except OSError:
            return -1.0

    return max(folders, key=lambda folder: (changed(folder), [-ord(c) for c in folder.name]))


def resolve(project: Path, environ: dict[str, str] | os._Environ[str] | None = None) -> Resolution:
    """Where Claude Code keeps ``project``'s auto-memory (the folder need not exist)."""
    env = os.environ if environ is None else environ
    override = env.get(OVERRIDE_ENV, "")
    if override:
        return Resolution(Path(override.rstrip("/\\") or override), OVERRIDE)
    for settings in settings_files(project, env):
        configured = _setting_in(settings, env)
        if configured is not None:
            return Resolution(configured, SETTINGS, settings_file=settings)
    projects = projects_dir(env)
    key = project_key(project)
    if len(key) <= KEY_LIMIT:
        return Resolution(projects / key / "memory", DEFAULT)
    candidates = _long_key_candidates(projects, key[:KEY_LIMIT])
    folder = _newest(candidates) if candidates else projects / key[:KEY_LIMIT]
    return Resolution(folder / "memory", DEFAULT, candidates=candidates)


def is_auto_memory(folder: Path, environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """Whether ``folder`` is a project's auto-memory folder: ``<config dir>/projects/*/memory``."""
    env = os.environ if environ is None else environ
    real = Path(os.path.realpath(folder))
    projects = Path(os.path.realpath(projects_dir(env)))
    return real.name == "memory" and real.parent.parent == projects
