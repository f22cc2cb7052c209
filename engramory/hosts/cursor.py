"""Cursor: its preToolUse / beforeShellExecution hook dialect for the index guard, and the host
for the installer."""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from engramory.hosts.base import Host


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)


# --- Cursor for the installer ---
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).


def host() -> Host:
    """Cursor as ``engramory init`` and ``engramory hosts`` see it."""
    from engramory.hosts.base import DOCUMENTED, FILE, Host  # noqa: PLC0415

    return Host(
        name="cursor",
        label="Cursor",
        rules=".cursor/rules/engramory.mdc",
        global_rules=None,
        rules_kind=FILE,
        frontmatter=("description: Engramory memory discipline (always on)", "alwaysApply: true"),
        reader_rules=".cursor/rules/engramory-recall.mdc",
        reader_frontmatter=(
            "description: Engramory read-only memory recall (always on)",
            "alwaysApply: true",
        ),
        skill=".cursor/skills/engramory",
        global_skill=None,
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit",
        notes=("Cursor's user-wide rules live in its settings, not in a file: no --global.",),
    )
