"""A test hook: end this process with SIGKILL at a named phase of a store write.

Inert unless ``ENGRAMORY_TEST_CRASH_AT`` is set. ``ENGRAMORY_TEST_CRASH_AT=PHASE`` kills
the process the first time :func:`reached` is called with ``PHASE``;
``ENGRAMORY_TEST_CRASH_AT=PHASE:N`` the N-th time. The tests use it to prove that an apply
interrupted at any phase is undone, byte for byte, by the command it printed. The phases are
named where :func:`reached` is called (``engramory.write.backup``, ``engramory.util.fsutil``).
"""

from __future__ import annotations

import os
import sys

ENV = "ENGRAMORY_TEST_CRASH_AT"
_seen: dict[str, int] = {}


def reached(phase: str) -> None:
    """Kill this process here when ``ENGRAMORY_TEST_CRASH_AT`` names ``phase``."""
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    name, _, count = wanted.partition(":")
    if name != phase:
        return
    _seen[phase] = _seen.get(phase, 0) + 1
    if _seen[phase] < (int(count) if count.isdigit() else 1):
        return
    import signal  # noqa: PLC0415 - it loads enum: not on the guard hook's path (fsutil)

    sys.stdout.flush()
    sys.stderr.flush()
    os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))
