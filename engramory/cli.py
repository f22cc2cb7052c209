"""The ``engramory`` command line: argparse wiring only.

Each subcommand lives in its own module, which provides ``register(subparsers)``
(adding its parser, with ``run`` as the default ``run`` attribute) and
``run(args) -> int``. Usage errors exit 64, not argparse's 2.

Only the module of the command being run is imported (``engramory check``
runs after every index edit, so its start-up counts); ``--help`` and an
unknown command import them all.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from engramory import __version__
from engramory.util.console import make_streams_safe
from engramory.util.errors import EXIT_USAGE, EngramoryError
from engramory.util.textfmt import printable

# Command name -> the module that registers it, in the order --help lists them.
COMMAND_MODULES = {
    "check": "engramory.commands.check",
    "doctor": "engramory.commands.doctor",
    "fix": "engramory.commands.fix",
    "new": "engramory.commands.new",
    "archive": "engramory.commands.archive",
    "compact": "engramory.commands.compact",
    "guard": "engramory.commands.guard",
    "init": "engramory.commands.install",
    "uninstall": "engramory.commands.install",
    "hosts": "engramory.commands.install",
    "sync": "engramory.commands.sync",
    "where": "engramory.commands.where",
    "trace": "engramory.commands.trace",
    "export": "engramory.commands.export",
    "import": "engramory.commands.importer",
    "merge": "engramory.commands.merge",
    "precommit": "engramory.commands.precommit",
    "mcp": "engramory.commands.mcp",
    "history": "engramory.commands.history",
    "restore": "engramory.commands.restore",
}

DESCRIPTION = """\
Engramory keeps an AI coding agent's long-term memory curated: a folder of
small markdown notes plus one always-loaded index, MEMORY.md, kept under the
size the agent's host will actually load."""
# (command, what it does), shown under "examples:" with the descriptions in one column.
EXAMPLES = (
    ("engramory check examples/store", "is the index within its caps?"),
    ("engramory doctor examples/store", "is the whole store healthy?"),
    ("engramory init claude --install-hooks", "wire the rules, a store and the guard into a host"),
    ("engramory hosts", "every host Engramory can wire"),
    ("engramory new user role --description TEXT", "write a note and its pointer, caps held"),
    ("engramory trace parser rewrite", "find what was said in past sessions"),
    ("engramory COMMAND --help", "every flag of a command, with examples"),
)


def examples_text(examples: Sequence[tuple[str, str]]) -> str:
    """The examples, one a line, each description two spaces past the longest command."""
    width = max(len(command) for command, _ in examples)
    return "\n".join(f"  {command.ljust(width)}  {what}" for command, what in examples)


EPILOG = f"""\
examples:
{examples_text(EXAMPLES)}

exit codes: 0 ok, 1 findings, 2 index over its hard cap (check),
            64 usage error, 66 input missing or unreadable"""


current_command: str | None = None  # the command main() is running


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors exit 64 (EX_USAGE)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _modules_for(command: str | None) -> list[str]:
    """The modules to register: the command's own, or every one (in order, once each)."""
    if command in COMMAND_MODULES:
        return [COMMAND_MODULES[command]]
    return list(dict.fromkeys(COMMAND_MODULES.values()))


def build_parser(command: str | None = None) -> ArgumentParser:
    """The parser with ``command``'s subcommands registered, or all of them."""
    parser = ArgumentParser(
        prog="engramory",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"engramory {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for name in _modules_for(command):
        importlib.import_module(name).register(subparsers)
    return parser


def innermost(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``args`` chose: ``engramory export memoir`` gives
    memoir's, so a usage error shows the usage of what was typed."""
    while True:
        chosen = None
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(args, action.dest, None) or "")
        if chosen is None:
            return parser
        parser = chosen


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code."""
    make_streams_safe()
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments else None)
    try:
        args, extra = parser.parse_known_args(arguments)
        if extra:  # argparse would blame the top level; the command's own usage helps
            innermost(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # --help, --version, or a usage error (64)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    global current_command  # noqa: PLW0603 - read by history snapshots for their reason
    current_command = args.command
    try:
        code = run(args)
        sys.stdout.flush()  # surface a closed pipe here, not as noise at interpreter exit
        return code
    except EngramoryError as exc:
        lines = [f"engramory {args.command}: {exc}", *getattr(exc, "details", ())]
        print("\n".join(printable(line) for line in lines), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `engramory doctor | head`: stop quietly, like other tools
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
