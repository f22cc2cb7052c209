"""``engramory precommit doctor|check FILE...``: the entry of the pre-commit hooks.

pre-commit passes the changed ``.md`` files. Each file belongs to the store of
the nearest directory, from the file's own up to the current directory (the
repository's top, where pre-commit runs hooks), that holds a ``MEMORY.md``; a
file in no store is skipped. The doctor (or check) then runs once per store,
with the flags given, and the worst exit code is the hook's.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from engramory.commands import check, doctor
from engramory.commands.options import CI_FORMATS, add_cap_flags, add_color_flag, add_format_flag
from engramory.report import working_directory
from engramory.store import discovery
from engramory.util.errors import EXIT_OK
from engramory.util.textfmt import plural, printable

HELP = "the pre-commit hooks' entry: doctor or check the stores that hold the given files"
DESCRIPTION = """\
Run `engramory doctor` (or `engramory check`) once for each store that holds
one of FILE..., the files pre-commit passes. A file's store is the nearest
directory, from the file's own up to the current directory, that holds
MEMORY.md; a file in no store is skipped. Without FILE nothing runs (exit 0).
The exit code is the worst of the runs: doctor 0/1, check 0/1/2; 64 on a
usage error."""
EPILOG = """\
examples:
  engramory precommit doctor notes/.engramory-memory/user-role.md
  engramory precommit doctor --strict a/MEMORY.md b/memory/x.md   # two stores, two runs
  engramory precommit check notes/.engramory-memory/MEMORY.md

In .pre-commit-config.yaml (hook ids engramory-doctor and engramory-check)
flags go in `args:`; pre-commit adds the changed files after them."""


def store_of(file: str, top: Path) -> Path | None:
    """The store that holds ``file``: the nearest directory from the file's up to ``top`` (or
    the filesystem root, for a file outside ``top``) that holds a ``MEMORY.md``."""
    folder = Path(os.path.abspath(file)).parent
    while True:
        if os.path.lexists(folder / discovery.INDEX_NAME) and not os.path.isdir(
            folder / discovery.INDEX_NAME
        ):
            return folder
        if folder in (top, folder.parent):
            return None
        folder = folder.parent


def stores_of(files: list[str], top: Path) -> tuple[dict[Path, list[str]], list[str]]:
    """The stores that hold ``files`` (each with its files, in first-seen order) and the files
    in no store."""
    stores: dict[Path, list[str]] = {}
    orphans: list[str] = []
    for file in files:
        store = store_of(file, top)
        if store is None:
            orphans.append(file)
        else:
            stores.setdefault(store, []).append(file)
    return stores, orphans


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``precommit`` subcommand, with ``doctor`` and ``check`` under it."""
    parser = subparsers.add_parser(
        "precommit",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    tools = parser.add_subparsers(title="tools", dest="tool", metavar="TOOL")
    tools.required = True
    doctor_parser = tools.add_parser(
        "doctor", help="validate each store (the flags of engramory doctor)"
    )
    doctor_parser.add_argument("files", nargs="*", metavar="FILE", help="a changed file")
    doctor.add_store_options(doctor_parser)
    doctor_parser.set_defaults(run=run, each=_doctor_one)
    check_parser = tools.add_parser(
        "check", help="measure each store's index against its caps (the flags of engramory check)"
    )
    check_parser.add_argument("files", nargs="*", metavar="FILE", help="a changed file")
    add_format_flag(check_parser, CI_FORMATS)
    add_color_flag(check_parser)
    add_cap_flags(check_parser)
    check_parser.set_defaults(run=run, each=_check_one)


def _doctor_one(args: argparse.Namespace, store: str) -> int:
    args.store, args.native, args.list_rules, args.explain = store, False, False, None
    return doctor.run(args)


def _check_one(args: argparse.Namespace, store: str) -> int:
    args.path = store
    return check.run(args)


def _shown(store: Path, top: Path) -> str:
    try:
        return os.path.relpath(store, top)
    except ValueError:
        return str(store)


def run(args: argparse.Namespace) -> int:
    """Run the tool once per store that holds a given file; the worst exit code."""
    top = Path(working_directory())
    stores, orphans = stores_of(args.files, top)
    text = args.format == "text"
    if orphans and text:
        print(
            printable(
                f"engramory precommit: {plural(len(orphans), 'file')} in no store skipped "
                f"(no MEMORY.md above it): {', '.join(orphans[:3])}"
                + (", ..." if len(orphans) > 3 else "")
            )
        )
    worst = EXIT_OK
    for store, files in stores.items():
        shown = _shown(store, top)
        if text:
            print(
                printable(
                    f"engramory precommit: {args.tool} on the store {shown} "
                    f"({plural(len(files), 'changed file')})"
                )
            )
        sys.stdout.flush()
        worst = max(worst, args.each(args, shown))
    return worst
