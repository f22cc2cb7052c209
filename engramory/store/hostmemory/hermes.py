"""Hermes' memories folder: ``$HERMES_HOME/memories`` (default ``~/.hermes/memories``).

One folder for every project, holding ``MEMORY.md`` and ``USER.md``: entries
separated by ``§`` lines, not an index of notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engramory.store.hostmemory.model import DEFAULT, ENV, Found, home_folder

HOST = "hermes"
LABEL = "Hermes"
HOME_ENV = "HERMES_HOME"
FILES = ("MEMORY.md", "USER.md")


def find(project: Path, environ: Mapping[str, str]) -> Found:
    """Hermes' memories folder (the same for every project)."""
    home, from_env = home_folder(HOME_ENV, ".hermes", environ)
    rule, words = (ENV, f"${HOME_ENV}") if from_env else (DEFAULT, "the host's default: ~/.hermes")
    return Found(
        HOST,
        LABEL,
        home / "memories",
        rule,
        f"{words}/memories (one folder for every project)",
        FILES,
        notes_store=False,
    )
