"""Hook wiring that is not a JSON hook configuration: whole files init owns, and edits of a
host's own config file.

Some hosts take hooks as an executable file named after the event (Cline), as
a plugin file (OpenCode, OpenClaw), inside an agent definition (Kiro CLI) or
in a YAML settings file shared with everything else (Hermes). A host returns
its pieces from ``Host.hook_artifacts(context)``:

* :class:`OwnedFile` -- a file init writes whole. It is Engramory's while one
  of its first lines carries :data:`OWNED_MARKER`: init refuses to replace a
  file without it, and uninstall deletes it only while it still carries it.
* :class:`ConfigEdit` -- an edit of a file the user owns: ``install`` returns
  the new text (``None`` in: the file is absent), ``remove`` the text without
  Engramory's parts (``None``: nothing else is left, delete the file), and
  ``is_ours`` says whether Engramory's parts are there. Either raises
  :class:`EditRefusal` when the file's structure is not one it can edit
  safely; its message says what to add or remove by hand.

The installer (:mod:`engramory.install`) reads, refuses, writes and
reports; the host modules stay pure text transforms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

OWNED_MARKER = "engramory-managed-hook"
MARKER_LINES = 5  # the marker must be on one of a file's first lines


class EditRefusal(ValueError):
    """The file cannot be edited safely; the message says what to do by hand."""


@dataclass(frozen=True)
class HookContext:
    """What a host needs to build its hook files.

    ``python``, ``guard`` and ``sync`` are absolute paths (the interpreter, the
    guard script, the sync script); ``store`` is the store's absolute path
    (``None`` for a user-wide hook that finds the store from each call's
    working directory); ``mode`` the continuity policy; ``root`` the project
    root; ``home`` the user's home folder; ``global_`` whether the install is
    user-wide; ``windows`` whether the files are for Windows; ``options`` the
    host-specific command-line values (``kiro_agent``...); ``guard_only`` whether only the
    index guard is registered (``init --global --guard-only``: no continuity hooks).
    """

    python: str
    guard: str
    sync: str
    store: str | None
    mode: str
    root: Path
    home: Path
    global_: bool = False
    windows: bool = False
    options: dict[str, str] = field(default_factory=dict)
    guard_only: bool = False


@dataclass(frozen=True)
class OwnedFile:
    """A file init writes whole. ``what`` says what it registers, for the report;
    ``ignore``: a project install git-ignores it (it names machine-local paths)."""

    path: Path
    text: str
    what: str
    executable: bool = False
    ignore: bool = False


@dataclass(frozen=True)
class ConfigEdit:
    """An edit of a file the user owns (see the module docstring). ``searched``: uninstall
    found the file by looking (not named by the host table or a flag), so a file without
    Engramory's parts is passed over without a word. ``created_folder``: whether the file's
    text records that init created its folder; when it is given, uninstall removes the
    folder (once empty) only then, never on emptiness alone."""

    path: Path
    what: str
    install: Callable[[str | None], str]
    remove: Callable[[str], str | None]
    is_ours: Callable[[str], bool]
    searched: bool = False
    created_folder: Callable[[str], bool] | None = None


Artifact = "OwnedFile | ConfigEdit"


def is_owned(text: str) -> bool:
    """Whether a file's first lines carry :data:`OWNED_MARKER`."""
    return any(OWNED_MARKER in line for line in text.splitlines()[:MARKER_LINES])
