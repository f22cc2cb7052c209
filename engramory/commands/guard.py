"""``engramory guard``: the index guard as a command (the same entry as the hook script)."""

from __future__ import annotations

import argparse

from engramory import dialects

HELP = "answer one agent-host hook call that may touch MEMORY.md (reads JSON on stdin)"
DESCRIPTION = """\
Read one hook payload (JSON) on stdin and answer in the host's format. Before a
tool call (--event pre), an edit that would grow the index past its hard cap is
denied, and so is a shell command that would write the index at all; a call
that does not touch the index gets no output. After a tool call (--event post),
an index over its hard cap produces feedback telling the agent to compact now.
Always exits 0: a guard that fails must not stop the agent (it fails open).

The hook script hooks/engramory_index_guard.py is the fast way to run the same
code (registered with `python -I -S`); this command is for testing and for hosts
that run commands through a shell."""
EPILOG = """\
examples:
  echo '{"tool_name":"Write","tool_input":{"file_path":"MEMORY.md","content":"x"}}' \\
    | engramory guard --host claude
  engramory guard --event post --index ~/notes/memory/MEMORY.md < payload.json
  ENGRAMORY_INDEX_PATH=~/notes/memory/MEMORY.md engramory guard < payload.json

environment: ENGRAMORY_INDEX_PATH (guard exactly this file), ENGRAMORY_INDEX_NAME
(guard files with this name, default MEMORY.md), and the cap variables."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``guard`` subcommand."""
    parser = subparsers.add_parser(
        "guard",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host",
        choices=tuple(dialects.DIALECTS),
        default=dialects.DEFAULT_HOST,
        help="hook dialect",
    )
    parser.add_argument(
        "--event", choices=dialects.EVENTS, default="pre", help="before or after the tool call"
    )
    parser.add_argument(
        "--index",
        metavar="PATH",
        help="the store's index: measured after a tool call (--event post); before one, "
        "also guarded under any other name (a symlink or hard link to it)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the host's answer (or nothing); the host's exit code (0 when the guard fails)."""
    argv = ["--host", args.host, "--event", args.event]
    return dialects.main(argv + (["--index", args.index] if args.index else []))
