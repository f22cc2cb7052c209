"""Every host Engramory can wire, in the order ``engramory hosts`` lists them.

One line per host. ``init``/``uninstall``'s host argument, ``--install-hooks``'
help and ``engramory hosts`` all read this list, so adding a host is its
module (or a :mod:`~engramory.hosts.table` entry), one line here, its dialect
(:mod:`engramory.dialects`), its adapter README and its tests.
"""

from __future__ import annotations

from engramory.hosts import (
    claude,
    cline,
    codex,
    copilot,
    cursor,
    gemini,
    hermes,
    kiro,
    openclaw,
    opencode,
    qwen,
    table,
)
from engramory.hosts.base import Host
from engramory.store.hostmemory.facts import facts_for

HOSTS: dict[str, Host] = {
    host.name: host
    for host in (
        claude.HOST,
        codex.HOST,
        gemini.HOST,
        qwen.HOST,
        cursor.HOST,
        copilot.HOST,
        table.WINDSURF,
        cline.HOST,
        kiro.HOST,
        table.CONTINUE,
        opencode.HOST,
        openclaw.HOST,
        hermes.HOST,
        table.DSH,
    )
}

READER_SUFFIX = "-reader"


def host_names() -> list[str]:
    """Write hosts and their ``-reader`` forms, in table order."""
    names = list(HOSTS)
    return names + [f"{name}{READER_SUFFIX}" for name in names]


def resolve(name: str) -> tuple[Host, bool]:
    """``(host, reader)`` for ``claude`` or ``claude-reader``; ``KeyError`` if unknown."""
    reader = name.endswith(READER_SUFFIX)
    return HOSTS[name[: -len(READER_SUFFIX)] if reader else name], reader


def hook_hosts() -> list[str]:
    """The hosts ``--install-hooks`` supports."""
    return [host.name for host in HOSTS.values() if host.installs_hooks]


def guard_hosts() -> list[str]:
    """The hosts that get the pre-write index guard (``engramory guard --host`` choices)."""
    return [host.name for host in HOSTS.values() if host.pre_write_hook]


def lifecycle_hosts() -> list[str]:
    """The hosts that get the continuity hooks (``engramory sync hook --host`` choices)."""
    return [host.name for host in HOSTS.values() if host.lifecycle_hooks and host.installs_hooks]


def rows() -> list[dict[str, object]]:
    """One row per host for ``engramory hosts``: what init does for it (the data init uses)."""
    return [
        {
            "host": host.name,
            "label": host.label,
            "rules": host.rules,
            "rules_kind": host.rules_kind,
            "global_rules": host.global_rules,
            "reader_rules": host.reader_rules or host.rules,
            "skill": host.skill,
            "global_skill": host.global_skill,
            "pre_write_hook": host.pre_write_hook,
            "cap_enforcement": host.cap_enforcement,
            "hook_config": host.hook_config,
            "hook_files": list(host.hook_files),
            "lifecycle_hooks": list(host.lifecycle_hooks) if host.installs_hooks else [],
            "compaction_gate": bool(
                host.lifecycle_hooks and host.installs_hooks and host.holds_compaction
            ),
            "after_write_check": host.after_write if host.installs_hooks else "",
            "enforcement": host.enforcement,
            "wiring": host.verified,
            "notes": list(host.notes),
            "memory": facts_for(host.name).where,
            "memory_cap": facts_for(host.name).cap,
            "memory_cap_text": facts_for(host.name).cap_text,
        }
        for host in HOSTS.values()
    ]
