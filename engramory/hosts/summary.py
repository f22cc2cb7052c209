"""What each host gets, as one Markdown table (``engramory hosts --format markdown``).

The documents (README.md, PORTING.md, AGENT-SETUP.md, adapters/README.md)
hold this table's exact output between ``<!-- hosts-table:begin -->`` and
``<!-- hosts-table:end -->``; a test compares every copy with it, so the
documents cannot under-state (or over-state) what the registry installs.
"""

from __future__ import annotations

from engramory.hosts.base import DENY_HOOK, DENY_HOOK_UNVERIFIED, Host
from engramory.hosts.registry import HOSTS

BEGIN_MARKER = "<!-- hosts-table:begin -->"
END_MARKER = "<!-- hosts-table:end -->"
HEADER = (
    "| host | deny hook | continuity events | enforcement rung |",
    "|---|---|---|---|",
)
_DENY_HOOK_CELL = {DENY_HOOK: "yes", DENY_HOOK_UNVERIFIED: "yes (unverified payload)"}
_RUNG_DENY = "1: deny hook"
_RUNG_RULES = "2: rules + check"


def deny_hook_cell(host: Host) -> str:
    return _DENY_HOOK_CELL.get(host.cap_enforcement, "no")


def continuity_cell(host: Host) -> str:
    if not (host.lifecycle_hooks and host.installs_hooks):
        return "none"
    events = ", ".join(host.lifecycle_hooks)
    if host.holds_compaction:
        return f"{events} (holds a manual compaction)"
    return f"{events} (cannot hold a compaction)"


def rung_cell(host: Host) -> str:
    return _RUNG_DENY if host.pre_write_hook else _RUNG_RULES


def host_cell(host: Host) -> str:
    """``Claude Code (`claude`)``; a label ending in ``(dsh)`` gets the code span there."""
    plain = f"({host.name})"
    if host.label.endswith(plain):
        return host.label[: -len(plain)] + f"(`{host.name}`)"
    return f"{host.label} (`{host.name}`)"


def host_row(host: Host) -> str:
    cells = (host_cell(host), deny_hook_cell(host), continuity_cell(host))
    return "| " + " | ".join((*cells, rung_cell(host))) + " |"


def markdown_table() -> str:
    """The table, one row per host in registry order, ending with a newline."""
    rows = [host_row(host) for host in HOSTS.values()]
    return "\n".join((*HEADER, *rows)) + "\n"
