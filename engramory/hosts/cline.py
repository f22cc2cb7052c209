"""Cline: a legacy single-file ``.clinerules`` must become a folder before init can add to it."""

from __future__ import annotations

from pathlib import Path

from engramory.hosts.base import DOCUMENTED, FILE, Host


class Cline(Host):
    """Cline: refuses a project whose ``.clinerules`` is a single file."""

    def project_refusal(self, root: Path, candidates: tuple[Path, ...]) -> str | None:
        legacy = root / ".clinerules"
        if legacy.is_file() or (legacy.is_symlink() and not legacy.is_dir()):
            return (
                ".clinerules is a single file: move its contents into .clinerules/<name>.md "
                "(a folder), then run init again"
            )
        return None


HOST = Cline(
    name="cline",
    label="Cline",
    rules=".clinerules/engramory.md",
    global_rules="~/Documents/Cline/Rules/engramory.md",
    rules_kind=FILE,
    reader_rules=".clinerules/engramory-recall.md",
    skill=".cline/skills/engramory",
    global_skill="~/.cline/skills/engramory",
    verified=DOCUMENTED,
    enforcement="rules plus `engramory check` after each index edit",
    notes=(
        "A legacy single-file .clinerules must become a folder before init can add "
        "a rule file to it.",
    ),
)
