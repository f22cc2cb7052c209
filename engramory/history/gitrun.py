"""Run git as a subprocess that sees none of the user's or the system's configuration.

No shell, a timeout on every call, an environment built from nothing but
``PATH`` and the settings below (no ``GIT_*`` variable of the caller gets
through), and ``-c`` for everything a config file could otherwise change:
author, hooks, excludes, line endings, fsmonitor, templates, signing, colour.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

from engramory.util.errors import EngramoryError

EXIT_UNAVAILABLE = 69  # EX_UNAVAILABLE: git is not installed
TIMEOUT = 60.0
AUTHOR = "Engramory"
EMAIL = "history@engramory.invalid"
NO_GIT = (
    "git is not installed (not found on PATH): history needs git; "
    "nothing else in Engramory depends on it"
)
SETTINGS = (
    f"user.name={AUTHOR}",
    f"user.email={EMAIL}",
    f"core.hooksPath={os.devnull}",
    f"core.excludesFile={os.devnull}",
    f"core.attributesFile={os.devnull}",
    "core.autocrlf=false",
    "core.fsmonitor=false",
    "core.pager=cat",
    "init.templateDir=",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "color.ui=never",
    "gc.auto=0",
    "maintenance.auto=false",
)


class GitMissingError(EngramoryError):
    """git is not on PATH."""

    exit_code = EXIT_UNAVAILABLE

    def __init__(self) -> None:
        super().__init__(NO_GIT)


class GitError(EngramoryError):
    """A git call failed; the message says which and why (never a traceback)."""


def git_path() -> str:
    """The git executable on PATH, or raise :class:`GitMissingError`."""
    found = shutil.which("git")
    if found is None:
        raise GitMissingError
    return found


def environment(home: str) -> dict[str, str]:
    """The whole environment a git process gets: nothing of the caller's but PATH."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": home,  # holds no .gitconfig: only our repositories
        "XDG_CONFIG_HOME": os.path.join(home, ".no-config"),  # never created
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "LC_ALL": "C",
        "LANG": "C",
        "TZ": "UTC",
    }


def command(git_dir: str, args: Sequence[str]) -> list[str]:
    """The argument vector of ``git args`` on the bare repository ``git_dir``."""
    settings = [part for setting in SETTINGS for part in ("-c", setting)]
    return [git_path(), "--no-pager", *settings, f"--git-dir={git_dir}", *args]


def run(
    git_dir: str,
    args: Sequence[str],
    *,
    data: bytes | None = None,
    check: bool = True,
    timeout: float = TIMEOUT,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git on ``git_dir`` (never in a work tree); raise :class:`GitError` when it fails."""
    argv = command(git_dir, args)
    env = environment(os.path.dirname(os.path.abspath(git_dir)))
    env.update(extra_env or {})
    try:
        done = subprocess.run(
            argv,
            input=data,
            stdin=None if data is not None else subprocess.DEVNULL,
            capture_output=True,
            env=env,
            cwd=os.path.dirname(os.path.abspath(git_dir)),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not finish within {timeout:g}s") from None
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    if check and done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {reason[-1] if reason else done.returncode}")
    return done
