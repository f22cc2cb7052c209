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


def main():
    root = _package_root()
    if root is not None:
        sys.path.insert(0, root)
    from engramory.cli import main as cli_main  # noqa: PLC0415 - after the path is set

    return cli_main(["sync", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
