"""The ``engramory`` command line: argparse wiring only.

Each subcommand lives in its own module, which provides ``register(subparsers)``
(adding its parser, with ``run`` as the default ``run`` attribute) and
``run(args) -> int``. Usage errors exit 64, not argparse's 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from engramory import __version__, check, guard_cli, install_cli, sync_cli
from engramory.console import make_streams_safe
from engramory.doctor import command as doctor
from engramory.errors import EXIT_USAGE, EngramoryError

COMMANDS = (check, doctor, guard_cli, install_cli, sync_cli)

DESCRIPTION = """\
Engramory keeps an AI coding agent's long-term memory curated: a folder of
small markdown notes plus one always-loaded index, MEMORY.md, kept under the
size the agent's host will actually load."""
EPILOG = """\
examples:
  engramory check examples/store       is the index within its caps?
  engramory doctor examples/store      is the whole store healthy?
  engramory init claude --install-hooks wire the rules, a store and the guard into a host
  engramory hosts                      every host Engramory can wire
  engramory COMMAND --help              every flag of a command, with examples

exit codes: 0 ok, 1 findings, 2 index over its hard cap (check),
            64 usage error, 66 input missing or unreadable"""


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors exit 64 (EX_USAGE)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> ArgumentParser:
    """The full parser, with every subcommand registered."""
    parser = ArgumentParser(
        prog="engramory",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"engramory {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code."""
    make_streams_safe()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (64)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        code = run(args)
        sys.stdout.flush()  # surface a closed pipe here, not as noise at interpreter exit
        return code
    except EngramoryError as exc:
        print(f"engramory {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `engramory doctor | head`: stop quietly, like other tools
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
