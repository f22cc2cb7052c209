"""The installer's plan as values: a :class:`Step` per target, the :class:`Plan` of one run,
the :class:`Options` of ``init``, and the skill's shipped files."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engramory.install import selfcommand

SKILL_FILES = ("SKILL.md", "rules-snippet.md", "PORTING.md", "AGENT-SETUP.md", "LICENSE")
SKILL_DIRS = ("templates",)
SKILL_FINGERPRINT = ("SKILL.md", "rules-snippet.md", "AGENT-SETUP.md")


PAST = {
    "create": "created",
    "update": "updated",
    "keep": "kept",
    "skip": "skipped",
    "remove": "removed",
    "leave": "left",
    "replace": "replaced",
    "use": "using",
    "check": "checked",
}


@dataclass
class Step:
    """One line of the plan: what happens to ``target`` and why, and how to do it.

    ``problem`` marks a step that leaves something for the user to fix by hand
    (the run then exits 1, after doing everything else).
    """

    verb: str
    target: str
    why: str = ""
    run: Callable[[], None] | None = None
    problem: bool = False
    fix: str = ""  # for a problem that is not a file left by hand: what to do (closing line)

    def line(self, dry_run: bool) -> str:
        verb = f"would {self.verb}" if dry_run else PAST.get(self.verb, self.verb)
        why = f" ({self.why})" if self.why else ""
        return f"  {verb:<15} {self.target}{why}"


@dataclass
class Plan:
    """The steps of one run, and what to tell the user afterwards."""

    title: str
    steps: list[Step] = field(default_factory=list)
    closing: list[str] = field(default_factory=list)


HookRunner = Callable[[list[str], bytes, Path, float], "subprocess.CompletedProcess[bytes]"]


@dataclass(frozen=True)
class Options:
    """The command-line choices of ``init`` (``hook_runner``: how the installed guard is run
    once to check it; default :func:`run_hook`; ``host_options``: host-specific values such
    as ``kiro_agent``)."""

    install_skill: bool = False
    install_hooks: bool = False
    hook_python: str | None = None
    force: bool = False
    mode: str | None = None
    guard_only: bool = False
    command: selfcommand.AgentCommand | None = None  # decided by plan_init when not given
    hook_runner: HookRunner | None = None
    host_options: dict[str, str] = field(default_factory=dict)
