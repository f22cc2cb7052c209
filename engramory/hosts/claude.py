"""Claude Code as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.claude`).

Its hooks are the default form (exec-form handlers in its settings file):
the index guard and the continuity hooks. Its auto-memory folder may be the
store (``init claude --native``), and the guard alone may be registered in
the user's settings (``$CLAUDE_CONFIG_DIR/settings.json``, default
``~/.claude/settings.json``: ``init claude --global --guard-only``).
"""

from __future__ import annotations

from engramory.hosts.base import (
    AFTER_TO_AGENT,
    BLOCK,
    DENY_HOOK,
    IGNORE_ALWAYS,
    VERIFIED,
    Host,
)
from engramory.store import automemory
from engramory.wiring import hookwiring

HOST = Host(
    name="claude",
    label="Claude Code",
    rules="CLAUDE.md",
    global_rules="~/.claude/CLAUDE.md",
    rules_kind=BLOCK,
    skill=".claude/skills/engramory",
    global_skill="~/.claude/skills/engramory",
    verified=VERIFIED,
    enforcement="pre-write deny hook (PreToolUse guard on Write|Edit|MultiEdit|Bash) "
    "plus a PostToolUse check on the same tools (the index's size, secrets in the notes "
    "written)",
    hook_config=".claude/settings.local.json",
    global_hook_config="$CLAUDE_CONFIG_DIR/settings.json",
    hook_config_ignore=IGNORE_ALWAYS,
    cap_enforcement=DENY_HOOK,
    after_write=AFTER_TO_AGENT,
    lifecycle_hooks=hookwiring.LIFECYCLE_EVENTS,
    native_memory="auto-memory in ~/.claude/projects/<project>/memory/ (plain files)",
    store_may_be_native=True,
    native_folder=automemory.resolve,
    guard_only=True,
)
