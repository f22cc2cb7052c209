"""``engramory mcp``: serve one store over the Model Context Protocol on stdin/stdout."""

from __future__ import annotations

import argparse
import os
import sys

from engramory.commands.options import (
    add_cap_flags,
    add_profile_flags,
    caps_from_args,
    profile_from_args,
    say_profile,
)
from engramory.store import discovery
from engramory.util.errors import EXIT_OK

HELP = "serve the store to an MCP client (for hosts without files or standing rules)"
DESCRIPTION = """\
Run a Model Context Protocol server on stdin/stdout (JSON-RPC 2.0, one message
a line; logs on stderr) for one store. Tools: memory_index, memory_read,
memory_search and, unless --read-only, memory_write (exactly `engramory new`),
memory_update (a live note in place) and memory_archive (exactly `engramory
archive`). The write tools hold the index caps, the note schema and the
secret refusal, and take the store's lock. The initialize answer carries the
standing rules (the writer block, or the reader block with --read-only).

Use it for hosts that have no files or no standing rules (desktop chat apps,
web agents); for Claude Code, Codex and the other file-capable hosts use
`engramory init HOST` instead. See adapters/mcp/README.md.

The store's profile (--profile, --native, else detected as for engramory
doctor) is logged on stderr with why. memory_update changes only the lines
asked for and keeps the frontmatter's layout (a metadata: block,
originSessionId); in claude-native it adds no updated: date and memory_write
names the note by its title, as the host does."""
EPILOG = """\
examples:
  engramory mcp --store ~/notes/memory
  python -m engramory mcp --store /abs/path/.engramory-memory --read-only
  engramory mcp --store ~/.claude/projects/-home-ann-app/memory --native"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``mcp`` subcommand."""
    parser = subparsers.add_parser(
        "mcp",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--store", metavar="PATH", help="the store (default: found as for check)")
    parser.add_argument(
        "--read-only", action="store_true", help="serve only memory_index, _read and _search"
    )
    add_profile_flags(parser)
    add_cap_flags(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the end of input."""
    from engramory.mcp import server, tools  # noqa: PLC0415

    caps = caps_from_args(args)
    location = discovery.locate(args.store)
    root = os.path.realpath(location.root)
    choice = profile_from_args(args, location.root)
    say_profile(choice, machine=True)
    from engramory.doctor.profiles import write_refusal  # noqa: PLC0415

    refused = write_refusal(choice.profile, "a write tool") or ""
    context = tools.Context(root, caps, args.read_only, choice.native, refused)
    server.serve(context, sys.stdin.buffer, sys.stdout.buffer)
    return EXIT_OK
