"""The Dialect protocol: what a host's hook module provides, for the type checker and readers.

A dialect is a module (``engramory/dialects/<host>.py``), not a class: the guard hook imports
only the module of the host it runs for, and pays for nothing else. The module provides the
functions below; the hook entry and :mod:`engramory.dialects.lifecycle` call them.
Imported only for annotations (``typing`` is not on the guard's path).

Optional, read with ``getattr`` where a host needs them: ``after_calls(payload)`` (the tool
calls of an after-tool payload, when they differ from ``tool_calls``),
``lifecycle_payload(payload, event)`` (a lifecycle event in Claude Code's shape),
``oversized_lifecycle_payload(raw)`` (what a lifecycle event too large to parse still says)
and ``LIFECYCLE_STORE_PER_CALL`` (the lifecycle hook names no store: each event finds its own).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engramory.continuity.policy import Reply
    from engramory.guard.decision import Verdict
    from engramory.guard.toolcall import ToolCall


class Dialect(Protocol):
    """One host's hook format: its payloads read into tool calls, verdicts and replies written."""

    def may_concern_index(
        self, raw: bytes, environ: dict[str, str] | os._Environ[str], index: str | None = None
    ) -> bool:
        """A cheap test on the raw payload: could this call touch the index at all?"""

    def oversized_call(self, raw: bytes) -> ToolCall:
        """The kind, target and cwd of a payload too large to parse, by a bounded scan."""

    def tool_calls(self, payload: object) -> list[ToolCall]:
        """The tool calls in one decoded payload."""

    def render(self, verdict: Verdict, event: str) -> tuple[str, int] | tuple[str, int, str]:
        """What to print for a verdict and the exit code (a third item ``"stderr"``: print the
        text on stderr)."""

    def render_lifecycle(self, reply: Reply) -> tuple[str, int]:
        """A continuity reply as the host's hook output and exit code ("" prints nothing)."""
