"""Where each registered host keeps its own memory and how strongly it holds that memory's
cap: the ``memory`` and ``memory_cap`` fields of ``engramory hosts`` (field-2026-12.md §1.1).

``memory_cap`` is one of :data:`CAP_HOLDS`: ``cut-at-load`` (over the cap the host silently
loads only part), ``refused-at-write`` (the host refuses the write that would pass it),
``none`` (no cap: everything loads), ``unknown`` (not settled by the sources), ``no-memory``.
"""

from __future__ import annotations

from typing import NamedTuple

CUT_AT_LOAD = "cut-at-load"
REFUSED_AT_WRITE = "refused-at-write"
NO_CAP = "none"
UNKNOWN = "unknown"
NO_MEMORY = "no-memory"
CAP_HOLDS = (CUT_AT_LOAD, REFUSED_AT_WRITE, NO_CAP, UNKNOWN, NO_MEMORY)


class MemoryFacts(NamedTuple):
    """Where the host's own memory is (``None``: it keeps none), how its cap holds, in words."""

    where: str | None
    cap: str
    cap_text: str


FACTS = {
    "claude": MemoryFacts(
        "~/.claude/projects/<sanitized git root>/memory/ (engramory where claude)",
        CUT_AT_LOAD,
        "MEMORY.md cut at load past 200 lines, then 25,000 UTF-16 units: the newest lines "
        "fall off silently (a write past it gets an error since 2.1.210)",
    ),
    "codex": MemoryFacts(
        "$CODEX_HOME/memories/, managed by Codex (engramory where codex)",
        CUT_AT_LOAD,
        "memory_summary.md cut silently in the middle past 2,500 tokens; MEMORY.md has no "
        "cap and is not injected",
    ),
    "qwen": MemoryFacts(
        "~/.qwen/projects/<project key>/memory/ (engramory where qwen)",
        CUT_AT_LOAD,
        "MEMORY.md cut at load past 200 lines or 25,000 UTF-16 units, short lines kept "
        "first: a long line near the top can fall off while shorter ones below it load",
    ),
    "gemini": MemoryFacts(
        "~/.gemini/tmp/<project slug>/memory/ (engramory where gemini)",
        NO_CAP,
        "no cap: Gemini CLI loads the whole MEMORY.md",
    ),
    "hermes": MemoryFacts(
        "$HERMES_HOME/memories/MEMORY.md and USER.md (engramory where hermes)",
        REFUSED_AT_WRITE,
        "its memory tool refuses an add past 2,200 (MEMORY.md) / 1,375 (USER.md) characters; "
        "nothing is cut at load",
    ),
    "windsurf": MemoryFacts(
        "Cascade's own memory store (not a file)", UNKNOWN, "no cap documented"
    ),
    "kiro": MemoryFacts(
        "Kiro Memory, stored per user account (path unverified)", UNKNOWN, "no cap documented"
    ),
    "copilot": MemoryFacts(
        "Copilot Memory, on GitHub's servers",
        UNKNOWN,
        "no size cap documented; a memory unused for 28 days is deleted",
    ),
    "openclaw": MemoryFacts(
        "the workspace MEMORY.md and memory/YYYY-MM-DD*.md",
        CUT_AT_LOAD,
        "the bootstrap file is cut at load; the cap is unverified",
    ),
}
NONE = MemoryFacts(None, NO_MEMORY, "keeps no memory of its own")


def facts_for(host: str) -> MemoryFacts:
    """The memory facts of a registered host (:data:`NONE` for one that keeps no memory)."""
    return FACTS.get(host, NONE)
