"""Where the transcripts are, and which sessions belong to a project.

Roots: Claude Code's ``$CLAUDE_CONFIG_DIR/projects`` (each entry of a
comma-separated value) else ``~/.claude/projects``; Codex's
``$CODEX_HOME/sessions`` and ``$CODEX_HOME/archived_sessions`` else the same
under ``~/.codex``.

A session belongs to a project when the working directory it recorded is the
project's directory or inside it. Claude Code names a project folder after the
launch directory (every character outside ``[A-Za-z0-9]`` a ``-``, cut at 200
characters plus a hash), so that name only picks candidate folders fast:
a folder is a candidate when its name starts with the project's encoded name
(a sub-directory's sessions have a longer name; a sibling sharing the prefix is
ruled out by its recorded directory). Windows paths compare with either slash
and the drive letter in any case.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from engramory.store import automemory, discovery

CLAUDE_ENV = "CLAUDE_CONFIG_DIR"
CODEX_ENV = "CODEX_HOME"


def _expand(value: str, environ: Mapping[str, str]) -> str:
    home = str(automemory.home(environ))
    if value == "~":
        return home
    if value.startswith(("~/", "~\\")):
        return os.path.join(home, value[2:])
    return value


def claude_roots(environ: Mapping[str, str]) -> list[str]:
    """Claude Code's transcript roots, in order (whether or not they exist)."""
    configured = [entry.strip() for entry in environ.get(CLAUDE_ENV, "").split(",")]
    configured = [entry for entry in configured if entry]
    if not configured:
        configured = [os.path.join(str(automemory.home(environ)), ".claude")]
    roots = [os.path.join(_expand(entry, environ), "projects") for entry in configured]
    return list(dict.fromkeys(roots))


def codex_roots(environ: Mapping[str, str]) -> list[str]:
    """Codex's transcript roots: live and archived sessions (whether or not they exist)."""
    configured = environ.get(CODEX_ENV, "").strip()
    base = (
        _expand(configured, environ)
        if configured
        else os.path.join(str(automemory.home(environ)), ".codex")
    )
    return [os.path.join(base, "sessions"), os.path.join(base, "archived_sessions")]


def project_dir(raw: str | None) -> str:
    """The project to search: ``--project DIR`` as given (made absolute), else the git
    work tree around the current directory, else the current directory."""
    if raw is not None:
        if len(raw) >= 3 and raw[0].isalpha() and raw[1:3] in (":\\", ":/"):
            return raw  # a Windows path, kept as written (transcripts copied from Windows)
        return os.path.abspath(os.path.expanduser(raw))
    return str(discovery.project_root(Path(os.getcwd())))


def normalized(path: str) -> str:
    """A path for comparison: ``/`` separators, no trailing one, a drive letter lower-cased."""
    text = path.replace("\\", "/")
    if len(text) >= 2 and text[1] == ":" and text[0].isalpha():
        text = text[0].lower() + text[1:]
    stripped = text.rstrip("/")
    return stripped or text[:1]


class Project:
    """One project directory: which recorded directories and folder names belong to it."""

    def __init__(self, directory: str) -> None:
        forms = {normalized(directory)}
        try:
            forms.add(normalized(os.path.realpath(directory)))
        except (OSError, ValueError):
            pass
        self.directory = directory
        self.forms = sorted(forms)
        self.keys = sorted(
            {automemory.sanitized(form).lower()[: automemory.KEY_LIMIT] for form in forms}
        )

    def holds(self, cwd: str | None) -> bool:
        """Whether a recorded working directory is the project or inside it."""
        if not cwd:
            return False
        path = normalized(cwd)
        return any(path == form or path.startswith(form.rstrip("/") + "/") for form in self.forms)

    def may_hold_folder(self, name: str) -> bool:
        """Whether a Claude Code project folder can hold this project's sessions (by name)."""
        lowered = name.lower()
        return any(lowered.startswith(key) for key in self.keys)
