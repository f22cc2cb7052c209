#!/usr/bin/env python3
"""Engramory continuity-sync entry point for lifecycle hooks (Codex, Claude Code).

``engramory_sync.py ARGS`` is ``engramory sync ARGS``: ``hook --host codex ...``
answers a SessionStart, UserPromptSubmit or PreCompact event; ``mark-synced``
and ``status`` are the commands the hooks tell the agent to run. The script
puts its own package on ``sys.path`` (from a checkout, ``<repo>/hooks/``, or
from an installed wheel, ``<site-packages>/engramory/_shipped/hooks/``), so the
installer can register it with an absolute interpreter path and no PATH lookup.
"""

import os
import sys


def _package_root():
    here = os.path.dirname(os.path.realpath(__file__))
    checkout = os.path.dirname(here)
    wheel = os.path.dirname(os.path.dirname(checkout))
    for root in (checkout, wheel):
        if os.path.isfile(os.path.join(root, "engramory", "__init__.py")):
            return root
    return None


_HOLD = (
    "Engramory's continuity hook could not load its package, so it cannot verify the "
    "continuity sync before this manual compaction: it is held back. Reinstall Engramory and "
    "re-run `engramory init HOST --install-hooks`, or remove the hooks with `engramory "
    "uninstall HOST`; then compact again."
)
_WARN = (
    "Engramory's continuity hook could not load its package: unsynced work is not being "
    "tracked. Reinstall Engramory and re-run `engramory init HOST --install-hooks`."
)


def _broken_install(argv):
    """Answer a hook event without the package: hold a manual compaction, warn otherwise."""
    if not argv or argv[0] != "hook":
        sys.stderr.write("engramory sync: the engramory package cannot be loaded: reinstall it\n")
        return 66
    import json  # noqa: PLC0415 - only on this path

    host = "claude"
    for i, word in enumerate(argv):
        if word == "--host" and i + 1 < len(argv):
            host = argv[i + 1]
        elif word.startswith("--host="):
            host = word[len("--host=") :]
    try:
        event = json.loads(sys.stdin.buffer.read(1024 * 1024).decode("utf-8", "replace"))
    except Exception:
        event = None
    manual = (
        isinstance(event, dict)
        and event.get("hook_event_name") == "PreCompact"
        and event.get("trigger") == "manual"
    )
    if not manual:
        answer = {"systemMessage": _WARN}
    elif host == "codex":
        answer = {"continue": False, "stopReason": _HOLD}
    else:
        answer = {"decision": "block", "reason": _HOLD}
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0


def main():
    root = _package_root()
    if root is not None:
        sys.path.insert(0, root)
    try:
        from engramory.cli import main as cli_main  # noqa: PLC0415 - after the path is set
    except Exception:  # a broken install: the hook still answers as its contract says
        return _broken_install(sys.argv[1:])
    return cli_main(["sync", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
