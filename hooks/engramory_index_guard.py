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
POSIX, unless this file is a symbolic link, its folder is found with ``posix`` and string
operations (``os.path.realpath`` otherwise).
"""

import sys


def main():
    try:  # posix is built in and loaded at start-up, unlike os: no realpath unless a link
        from posix import lstat, stat  # noqa: PLC0415

        linked = lstat(__file__).st_mode & 0o170000 == 0o120000
    except Exception:  # Windows
        linked = True
    if linked:
        from os import path, stat  # noqa: PLC0415

    here = path.realpath(__file__).replace("\\", "/") if linked else __file__
    for up in (2, 4):  # <repo>/hooks/, <site-packages>/engramory/_shipped/hooks/
        root = here.rsplit("/", up)[0] or "/"
        try:
            if stat(root + "/engramory/__init__.py").st_mode & 0o170000 == 0o100000:
                sys.path.insert(0, root)
                break
        except (OSError, ValueError):
            pass
    try:
        from engramory.dialects import main as entry_main  # noqa: PLC0415 - after the path
    except Exception:  # a broken install: never crash, never block
        try:
            sys.path.insert(0, here.rsplit("/", 1)[0])
            from engramory_guard_fallback import main as fallback  # noqa: PLC0415

            return fallback(sys.argv)
        except Exception:
            return 0
    return entry_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
