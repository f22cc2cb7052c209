"""Hermes Agent: it loads one context file and skills only from its home.

Hermes loads only the first project context file it finds (its
``candidates``), and a ``.hermes.md`` or ``HERMES.md`` in a parent folder
wins over the project's own; with no context file, ``.cursor/rules/*.mdc``
takes the place of an ``AGENTS.md`` init would create. Init refuses when the
block it writes would never be read.
"""

from __future__ import annotations

from pathlib import Path

from engramory import fsutil
from engramory.discovery import git_work_tree
from engramory.hosts.base import BLOCK, DOCUMENTED, Host

PARENT_CONTEXT_FILES = (".hermes.md", "HERMES.md")


class Hermes(Host):
    """Hermes Agent: refuses a project whose context file is not the one init writes."""

    def missing_skill(self) -> str:
        return "Hermes loads skills only from ~/.hermes/skills: add --global"

    def project_refusal(self, root: Path, candidates: tuple[Path, ...]) -> str | None:
        """Refuse when Hermes would load some other file than the one init writes."""
        tree = git_work_tree(root) or root
        for parent in root.parents:
            if not fsutil.is_within(str(parent), str(tree)):
                break
            for name in PARENT_CONTEXT_FILES:
                if (parent / name).is_file():
                    return (
                        f"Hermes will load {parent / name} (a parent folder's context file "
                        "wins), so a block in this project would never be read: add the block "
                        "there by hand, or run init with --project-root pointing at that folder"
                    )
        if any(path.is_file() for path in candidates):
            return None
        if any((root / ".cursor" / "rules").glob("*.mdc")):
            return (
                "Hermes reads .cursor/rules/*.mdc here; creating AGENTS.md would take their "
                "place. Create the context file Hermes should load (e.g. AGENTS.md) yourself, "
                "then run init again"
            )
        return None


HOST = Hermes(
    name="hermes",
    label="Hermes Agent",
    rules="AGENTS.md",
    global_rules="$HERMES_HOME/SOUL.md",
    rules_kind=BLOCK,
    candidates=(
        ".hermes.md",
        "HERMES.md",
        "AGENTS.override.md",
        "AGENTS.md",
        "CLAUDE.md",
        ".cursorrules",
    ),
    skill=None,
    global_skill="$HERMES_HOME/skills/engramory",
    verified=DOCUMENTED,
    enforcement="rules plus `engramory check` after each index edit",
    native_memory="~/.hermes/memories/, which its memory tool manages and caps",
    notes=(
        "Hermes loads only the first project context file it finds; the block goes into that file.",
        "Hermes loads skills only from ~/.hermes/skills: the skill needs --global.",
        "A .hermes.md or HERMES.md in a parent folder, or .cursor/rules/*.mdc with no "
        "other context file, would win over the file init writes: init refuses then.",
    ),
)
