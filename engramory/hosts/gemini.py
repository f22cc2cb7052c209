"""Gemini CLI: its BeforeTool hook dialect for the index guard, and the host for the installer."""

from __future__ import annotations

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:
    from engramory.hosts.base import Host


# --- the guard dialect ------------------------------------------------------------------
# (on the hook's hot path: imports nothing heavy at module level)


# --- Gemini CLI for the installer ---
# Built on demand by the registry: the guard hook imports this module before every
# tool call and must not pay for the installer's imports (dataclasses...).


def host() -> Host:
    """Gemini CLI as ``engramory init`` and ``engramory hosts`` see it."""
    from engramory.hosts.base import BLOCK, DOCUMENTED, Host  # noqa: PLC0415

    return Host(
        name="gemini",
        label="Gemini CLI",
        rules="GEMINI.md",
        global_rules="~/.gemini/GEMINI.md",
        rules_kind=BLOCK,
        skill=".gemini/skills/engramory",
        global_skill="~/.gemini/skills/engramory",
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit (Gemini CLI has a "
        "BeforeTool hook; Engramory does not install one yet)",
        native_memory="the private project memory the CLI keeps under ~/.gemini/tmp/",
    )
