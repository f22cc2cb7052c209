#!/usr/bin/env python3
"""Engramory index guard for Claude Code (and hosts that read Claude's settings).

Registered as a PreToolUse hook on Write|Edit|MultiEdit|Bash, it denies an
edit that would grow MEMORY.md past its hard cap, and a shell command that
would write it at all; registered as a PostToolUse hook with
``--event post --index /abs/path/MEMORY.md``, it tells the agent to compact
when the index ended up over the cap anyway. See hooks/INSTALL.md.

Run it as ``python -I -S engramory_index_guard.py``: an isolated interpreter
without site-packages starts several times faster, and this script puts its
own package on ``sys.path`` -- from a checkout (``<repo>/hooks/``) or from an
installed wheel (``<site-packages>/engramory/_shipped/hooks/``).
"""

import os
import sys

_BROKEN = (
    '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": '
    '"Engramory: the index guard could not load its package, so edits of MEMORY.md are NOT '
    "being checked against the cap. Reinstall Engramory and re-run "
    '`engramory init claude --install-hooks`."}}'
)


def _package_root():
    here = os.path.dirname(os.path.realpath(__file__))
    checkout = os.path.dirname(here)
    wheel = os.path.dirname(os.path.dirname(checkout))
    for root in (checkout, wheel):
        if os.path.isfile(os.path.join(root, "engramory", "__init__.py")):
            return root
    return None


def main():
    root = _package_root()
    if root is not None:
        sys.path.insert(0, root)
    try:
        from engramory.hosts.claude import hook_main  # noqa: PLC0415 - after the path is set
    except Exception:  # a broken install: say so when the index is involved, never crash
        if "--event" not in sys.argv and b"memory.md" in sys.stdin.buffer.read().lower():
            sys.stdout.write(_BROKEN + "\n")
        return 0
    return hook_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
