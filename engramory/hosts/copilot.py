"""GitHub Copilot (CLI, cloud agent): its preToolUse hook dialect for the index guard, and the
host for the installer."""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from engramory.hosts.base import Host


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)


# --- GitHub Copilot for the installer ---
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).


def host() -> Host:
    """GitHub Copilot as ``engramory init`` and ``engramory hosts`` see it."""
    from engramory.hosts.base import DOCUMENTED, FILE, Host  # noqa: PLC0415

    return Host(
        name="copilot",
        label="GitHub Copilot",
        rules=".github/instructions/engramory.instructions.md",
        global_rules=None,
        rules_kind=FILE,
        frontmatter=('applyTo: "**"',),
        reader_rules=".github/instructions/engramory-recall.instructions.md",
        reader_frontmatter=('applyTo: "**"',),
        skill=".github/skills/engramory",
        global_skill=None,
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit",
        notes=("Copilot's instruction files are per repository: no --global.",),
    )
