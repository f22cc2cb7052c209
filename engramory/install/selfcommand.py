"""The command an agent's shell can use to run this installation of Engramory.

The rules that ``init`` writes tell the agent to run ``engramory check``. A
virtual-environment install puts the console script where the agent's shell
does not look, and the agent gets "command not found". So ``init`` decides,
once, a command that will run this installation: the bare name when the one
on ``PATH`` is this installation's console script, else that script's
absolute path, else this interpreter with ``-m engramory``. Deciding is a
pure function of what was looked up (:func:`decide`); looking up is
:func:`current`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

NAME = "engramory"
# Characters that make cmd.exe or PowerShell split or reinterpret an unquoted path.
_WINDOWS_SPECIAL = frozenset(" \t\"&|<>^()%!;,'`$@{}")


@dataclass(frozen=True)
class AgentCommand:
    """``text`` goes into the rules; ``fallback`` says why it is not the bare name ("" if it is)."""

    text: str
    fallback: str = ""
    script_dir: str = ""


def quote(path: str, windows: bool) -> str:
    """``path`` quoted for the agent's shell: POSIX ``sh``, or the Windows form."""
    if not windows:
        return shlex.quote(path)
    if any(char in _WINDOWS_SPECIAL for char in path):
        return f'"{path}"'
    return path


def decide(
    on_path: str | None,
    on_path_is_ours: bool,
    script: str | None,
    executable: str,
    windows: bool = False,
    activated_only: bool = False,
) -> AgentCommand:
    """The command to render, from what ``PATH`` holds and where this installation is.

    ``on_path``: what ``engramory`` resolves to on ``PATH`` (``None``: nothing);
    ``on_path_is_ours``: whether that is this installation's console script;
    ``script``: this installation's console script (``None``: there is none);
    ``executable``: this interpreter's absolute path;
    ``activated_only``: ``on_path`` is there only because a venv is activated.
    """
    if on_path is not None and on_path_is_ours and not activated_only:
        return AgentCommand(NAME)
    if on_path is None:
        why = f"`{NAME}` is not on PATH"
    elif on_path_is_ours:
        why = f"`{NAME}` is on PATH only while this virtual environment is activated"
    else:
        why = f"`{NAME}` on PATH is another installation ({on_path})"
    if script is not None:
        return AgentCommand(quote(script, windows), why, str(Path(script).parent))
    return AgentCommand(f"{quote(executable, windows)} -m {NAME}", why)


def _script_candidates(executable: str) -> list[Path]:
    """Where this installation's console script would be: beside the interpreter, or in scripts."""
    names = [NAME + ".exe", NAME] if os.name == "nt" else [NAME]
    folders = [Path(executable).parent]
    scripts = sysconfig.get_path("scripts")
    if scripts:
        folders.append(Path(scripts))
    return [folder / name for folder in folders for name in names]


def _same_file(a: str, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _only_while_activated(on_path: str, environ: Mapping[str, str]) -> bool:
    """Whether ``on_path`` is found only because a virtual environment is activated here.

    ``source .venv/bin/activate`` puts the venv's scripts on this shell's
    ``PATH``; the agent's shell will not have it, so the bare name would fail
    there.
    """
    active = environ.get("VIRTUAL_ENV", "").strip()
    if not active:
        return False
    folder = os.path.dirname(os.path.abspath(on_path))
    return any(_same_file(folder, Path(active) / sub) for sub in ("bin", "Scripts"))


def current(environ: Mapping[str, str] | None = None) -> AgentCommand:
    """Look up ``PATH`` and this installation, then :func:`decide`."""
    env = os.environ if environ is None else environ
    executable = os.path.abspath(sys.executable)
    candidates = [path for path in _script_candidates(executable) if path.is_file()]
    script = str(candidates[0]) if candidates else None
    on_path = shutil.which(NAME)
    ours = on_path is not None and any(_same_file(on_path, path) for path in candidates)
    activated = on_path is not None and _only_while_activated(on_path, env)
    return decide(on_path, ours, script, executable, os.name == "nt", activated)
