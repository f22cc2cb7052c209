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
It does not import ``os`` (under ``-I -S`` that alone costs about 15% of the start-up): on
POSIX, unless this file is a symbolic link, the package is found with ``posix`` and string
operations, and ``os.path.realpath`` is used only when that finds none (a folder above is
a link, Windows).
"""

import sys


def main():
    posix = sys.modules.get("posix")  # built in and loaded at start-up, unlike os
    if posix is None or not _found(__file__, posix.stat, posix.lstat):
        from os import path, stat  # noqa: PLC0415 - a link, Windows, a broken install

        _found(path.realpath(__file__).replace("\\", "/"), stat, None)
    try:
        from engramory.dialects import main as entry_main  # noqa: PLC0415 - after the path
    except Exception:  # a broken install: never crash, never block
        try:
            from os.path import dirname, realpath  # noqa: PLC0415

            sys.path.insert(0, dirname(realpath(__file__)))
            from engramory_guard_fallback import main as fallback  # noqa: PLC0415

            return fallback(sys.argv)
        except Exception:
            return 0
    return entry_main(sys.argv[1:])


def _found(script, stat, lstat):
    # The package beside <repo>/hooks/ or <site>/engramory/_shipped/hooks/ goes on sys.path
    for root in (script.rsplit("/", 2)[0] or "/", script.rsplit("/", 4)[0] or "/"):
        try:
            if lstat is not None and lstat(script).st_mode & 0o170000 == 0o120000:
                return False  # a symbolic link: the package is beside the real script
            if stat(root + "/engramory/__init__.py").st_mode & 0o170000 == 0o100000:
                sys.path.insert(0, root)
                return True
        except (OSError, ValueError):
            pass
    return False


if __name__ == "__main__":
    sys.exit(main())
