#!/usr/bin/env python3
"""Engramory index guard for Claude Code (and, with ``--host HOST``, the other hosts).

Registered as a PreToolUse hook on Write|Edit|MultiEdit|Bash (with
``--index /abs/path/MEMORY.md``, so a symlink or hard link to the index is
known too), it denies an edit that would grow MEMORY.md past its hard cap, and
a shell command that would write it at all; registered as a PostToolUse hook
with ``--event post --index /abs/path/MEMORY.md``, it tells the agent to
compact when the index ended up over the cap anyway. See hooks/INSTALL.md.

Run it as ``python -I -S engramory_index_guard.py``: an isolated interpreter
without site-packages starts several times faster. This script only puts its
own package on ``sys.path`` -- from a checkout (``<repo>/hooks/``) or from an
installed wheel (``<site-packages>/engramory/_shipped/hooks/``) -- and runs
``engramory.dialects``. It stays this short because Python compiles a script
on every run, while the package's modules are compiled once (``__pycache__``).
When the package cannot be loaded, ``engramory_guard_fallback.py`` beside it answers.
"""

import sys
from os.path import dirname, isfile, join, realpath


def main():
    here = dirname(realpath(__file__))
    for root in (dirname(here), dirname(dirname(dirname(here)))):
        if isfile(join(root, "engramory", "__init__.py")):
            sys.path.insert(0, root)
            break
    try:
        from engramory.dialects import main as entry_main  # noqa: PLC0415 - after the path
    except Exception:  # a broken install: never crash, never block
        try:
            sys.path.insert(0, here)
            from engramory_guard_fallback import main as fallback  # noqa: PLC0415

            return fallback(sys.argv)
        except Exception:
            return 0
    return entry_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
