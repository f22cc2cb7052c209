"""The user's home and the host homes an environment variable may move, as absolute paths.

``~``, ``$DSH_HOME``, ``$CODEX_HOME``, ``$HERMES_HOME`` and ``$CLAUDE_CONFIG_DIR`` in a host's
paths are expanded here, for the installer's layout (:mod:`engramory.install.layout`) and for
a host's own files (:mod:`engramory.hosts.hermes`). A home that is unset, empty or relative is
refused rather than guessed: an empty ``HOME`` would otherwise put user-wide files at the
filesystem root.
"""

from __future__ import annotations

import os
from pathlib import Path

from engramory.util.errors import EngramoryError


class EnvironmentRefusal(EngramoryError):
    """The environment (``HOME``, a host-home variable) cannot place the install; exit 1."""


def home(environ: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """The user's home: ``$HOME`` (``%USERPROFILE%`` when ``HOME`` is unset, on Windows).

    Refuses an unset, empty or relative value instead of guessing: Python
    would read an empty ``HOME`` as ``/`` and put user-wide files at the root.
    """
    env = os.environ if environ is None else environ
    variable = "HOME"
    configured = env.get("HOME")
    if configured is None and os.name == "nt":
        variable, configured = "USERPROFILE", env.get("USERPROFILE")
    if configured is None or not configured.strip():
        state = "not set" if configured is None else "empty"
        raise EnvironmentRefusal(
            f"{variable} is {state}, so the user-wide paths cannot be placed; nothing was "
            f"written. Set {variable} to your home directory's absolute path "
            f"(e.g. {variable}=/home/you), then run the command again"
        )
    if not os.path.isabs(configured):
        raise EnvironmentRefusal(
            f"{variable} is a relative path ({configured!r}), so the user-wide paths cannot be "
            f"placed; nothing was written. Set {variable} to your home directory's absolute "
            "path, then run the command again"
        )
    return Path(configured)


# Host homes that an environment variable may move, and where they are otherwise.
HOST_HOMES = {
    "DSH_HOME": ".dsh",
    "CODEX_HOME": ".codex",
    "HERMES_HOME": ".hermes",
    "CLAUDE_CONFIG_DIR": ".claude",
}


def expand(value: str, environ: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """``~``, ``$DSH_HOME``, ``$CODEX_HOME`` and ``$HERMES_HOME`` expanded; an absolute path.

    An unset or empty host-home variable means its usual folder in the home;
    a relative one is refused (the host and this command would read it
    against different directories). The home is looked up only when needed.
    """
    env = os.environ if environ is None else environ
    for variable, default in HOST_HOMES.items():
        if value.startswith("$" + variable):
            value = str(_host_home(variable, default, env)) + value[len(variable) + 1 :]
            break
    if value == "~" or value.startswith(("~/", "~\\")):
        value = str(home(env)) + value[1:]
    return Path(os.path.abspath(value))


def _host_home(variable: str, default: str, env) -> Path:  # type: ignore[no-untyped-def]
    """A host's home folder: ``$VARIABLE`` when set (absolute), else ``~/default``."""
    configured = env.get(variable, "").strip()
    if not configured:
        return home(env) / default
    if configured == "~" or configured.startswith(("~/", "~\\")):
        configured = str(home(env)) + configured[1:]
    if not os.path.isabs(configured):
        raise EnvironmentRefusal(
            f"{variable} is a relative path ({configured!r}); nothing was written. Set it to an "
            f"absolute path, or unset it to use ~/{default}"
        )
    return Path(configured)
