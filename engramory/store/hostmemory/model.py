"""What finding a host's memory returns, and the small helpers every host's rules share."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from engramory.store import automemory

ENV = "env"
SETTINGS = "settings"
REGISTRY = "registry"
COMPUTED = "computed"
LOCAL = "local"
DEFAULT = "default"


@dataclass(frozen=True)
class Found:
    """One host's memory folder for a project.

    ``rule`` is the id of the host's rule that chose it (``env``, ``settings``,
    ``registry``, ``computed``, ``local``, ``default``, or automemory's own) and
    ``rule_text`` that rule in words. ``loaded`` names the files the host loads
    from the folder; ``notes_store``: the folder is an index plus notes
    (``MEMORY.md`` and topic files) a store command may work on; ``read_only``:
    the host manages the folder and Engramory never writes it. ``layers`` are
    the host's other memory folders for the project, ``(what, folder)``.
    """

    host: str
    label: str
    path: Path
    rule: str
    rule_text: str
    loaded: tuple[str, ...]
    notes_store: bool
    read_only: bool = False
    layers: tuple[tuple[str, Path], ...] = ()

    @property
    def owner(self) -> str:
        """The label as an owner: ``Qwen Code's``, ``Hermes'``."""
        return f"{self.label}'" if self.label.endswith("s") else f"{self.label}'s"

    @property
    def exists(self) -> bool:
        """Whether the folder is an existing directory."""
        return os.path.isdir(self.path)


def home_folder(variable: str, default: str, environ: Mapping[str, str]) -> tuple[Path, bool]:
    """A host home: ``$variable`` when set (``~`` expanded, made absolute), else ``~/default``;
    and whether the variable chose it."""
    configured = environ.get(variable, "").strip()
    if not configured:
        return automemory.home(environ) / default, False  # type: ignore[arg-type]
    return Path(os.path.abspath(expand_home(configured, environ))), True


def expand_home(value: str, environ: Mapping[str, str]) -> str:
    """``~`` and ``~/...`` with the user's home put in; any other value as written."""
    if value == "~":
        return str(automemory.home(environ))  # type: ignore[arg-type]
    if value.startswith(("~/", "~\\")):
        return str(automemory.home(environ) / value[2:])  # type: ignore[arg-type]
    return value
