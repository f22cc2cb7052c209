"""Kiro: its steering file includes the live index, and the store must stay out of steering/.

Every file under ``.kiro/steering/`` loads into every request, so the store
may not go there; the steering file pulls the index in with Kiro's
``#[[file:...]]`` include instead.
"""

from __future__ import annotations

import os
from pathlib import Path

from engramory import fsutil
from engramory.discovery import INDEX_NAME
from engramory.hosts.base import DOCUMENTED, FILE, Host


class Kiro(Host):
    """Kiro: an index include in the rules, no store under ``.kiro/steering/``."""

    def store_refusal(self, root: Path, store: Path) -> str | None:
        if fsutil.is_within(os.path.realpath(store), os.path.realpath(root / ".kiro" / "steering")):
            return (
                "the memory store must not be under .kiro/steering/: Kiro loads every file "
                "there into every request"
            )
        return None

    def rules_addendum(self, memory: str) -> str:
        return f"The live index: #[[file:{memory}/{INDEX_NAME}]]"


HOST = Kiro(
    name="kiro",
    label="Kiro",
    rules=".kiro/steering/engramory.md",
    global_rules="~/.kiro/steering/engramory.md",
    rules_kind=FILE,
    frontmatter=("inclusion: always",),
    reader_rules=".kiro/steering/engramory-recall.md",
    reader_frontmatter=("inclusion: always",),
    skill=".kiro/skills/engramory",
    global_skill="~/.kiro/skills/engramory",
    verified=DOCUMENTED,
    enforcement="rules plus `engramory check` after each index edit",
    notes=(
        "The steering file pulls in the live index with #[[file:...]]; notes must never "
        "go under .kiro/steering/, where every file loads into every request.",
    ),
)
