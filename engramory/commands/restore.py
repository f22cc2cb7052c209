"""``engramory restore ID [PATH...] [--apply] [--exact]``: bring a store back to a snapshot.

A plan by default; ``--apply`` writes under the store lock, each file
atomically with its exact mode, after refusing any unsafe target before the
first write, with a snapshot before and after, and prints the undo: a restore
of the snapshot taken just before, ``--exact``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
from pathlib import Path

from engramory.commands.options import (
    add_cap_flags,
    add_format_flag,
    caps_from_args,
    profile_from_args,
)
from engramory.continuity.state import locked
from engramory.history import gitrun, location, repo, snapshot
from engramory.history import restore as restoring
from engramory.history.auto import command_name
from engramory.store import discovery
from engramory.util import fsutil
from engramory.util.errors import EXIT_OK, EngramoryError
from engramory.util.textfmt import plural, printable

HELP = "bring a store (or some of its notes) back to a snapshot of its history"
DESCRIPTION = """\
Plan a return to snapshot ID (see `engramory history`): the notes that come
back, those overwritten, those added since (kept and listed; removed too with
--exact). PATH limits it to those files or folders. Without --exact the index
keeps its current lines and gets back the snapshot's pointer lines to the
notes that come back, while it stays within its hard caps; a note whose
pointer does not fit stays out and is listed. With --exact (or when MEMORY.md
is named) the index comes back as it was.

--apply writes it: under the store lock, each file atomically with its exact
mode, after checking every target (no symlink, nothing outside the store)
before the first write. A snapshot is taken before and after; the undo is
printed: `engramory restore <the snapshot before> --exact --apply`."""
EPILOG = """\
examples:
  engramory restore 3f2a91c                 # what would come back
  engramory restore 3f2a91c --apply
  engramory restore 3f2a91c feedback-testing.md --apply
  engramory restore 3f2a91c --exact --apply # the store exactly as it was"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``restore`` subcommand."""
    parser = subparsers.add_parser(
        "restore",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("id", metavar="ID", help="the snapshot (an id or its first characters)")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="only these files or folders")
    parser.add_argument(
        "--store", metavar="DIR", help="the store (default: found as check finds it)"
    )
    parser.add_argument("--apply", action="store_true", help="write it (default: only the plan)")
    parser.add_argument("--exact", action="store_true", help="also remove notes added since")
    add_format_flag(parser)
    add_cap_flags(parser)
    parser.set_defaults(run=run)


def plan_lines(made: restoring.Plan) -> list[str]:
    """The plan in words, one file a line."""
    lines = [f"restore of snapshot {made.snapshot[:12]}:"]
    groups = (
        ("comes back", made.back),
        ("overwritten", made.overwritten),
        ("mode put back", sorted(made.modes)),
        ("removed (added since, --exact)", made.removed),
        ("kept (added since; --exact removes it)", made.kept),
        ("left out (its pointer would take the index over its hard cap)", made.left_out),
    )
    for what, rels in groups:
        lines += [f"  {what}: {printable(rel)}" for rel in rels]
    if made.index is not None:
        lines.append("  MEMORY.md: rewritten")
    if made.empty:
        lines.append("  nothing to do: the store already matches it")
    return lines


def plan_record(made: restoring.Plan) -> dict[str, object]:
    return {
        "snapshot": made.snapshot,
        "back": made.back,
        "overwritten": made.overwritten,
        "modes": sorted(made.modes),
        "removed": made.removed,
        "kept": made.kept,
        "left_out": made.left_out,
        "index": made.index is not None,
    }


def run(args: argparse.Namespace) -> int:
    """Print the plan, or apply it (exit 1 when notes were left out for the cap)."""
    gitrun.git_path()
    root = os.path.realpath(discovery.locate(args.store).root)
    place = location.place_of(root)
    if not location.exists(place):
        raise EngramoryError(f"no history for {root} (nothing at {place.git_dir})")
    commit = repo.resolve(place, args.id)
    caps = caps_from_args(args)
    if not args.apply:
        made = restoring.plan(place, commit, args.paths, args.exact, caps)
        _report(args, made, None, None)
        return 1 if made.left_out else EXIT_OK
    profile_from_args(args, root, writes="the restore")  # a folder its host manages: refused
    with locked(Path(root), leave_no_file=True):
        before = snapshot.take(place, f"before {command_name()} of {commit[:12]}", {"host": "cli"})
        made = restoring.plan(place, commit, args.paths, args.exact, caps)
        try:
            restoring.apply(root, made)
        except OSError as exc:  # part of it written: the snapshot before gives the store back
            back = _undo_command(args, root, before.commit or before.parent) or "no snapshot"
            raise EngramoryError(
                f"writing the restore failed ({fsutil.os_error_text(exc)}); some files may be "
                f"restored already. Put the store back as it was with: {back}"
            ) from None
        after = snapshot.take(place, f"after restore of {commit[:12]}", {"host": "cli"})
    _report(args, made, before.commit or before.parent, after.commit or after.parent, root)
    return 1 if made.left_out else EXIT_OK


def _undo_command(args: argparse.Namespace, root: str, before: str | None) -> str | None:
    """The restore of the snapshot taken before, naming the store when ``--store`` did (run
    from elsewhere, the command as printed must act on the same store)."""
    if not before:
        return None
    store = f" --store {shlex.quote(root)}" if args.store is not None else ""
    return f"engramory restore {before[:12]} --exact --apply{store}"


def _report(
    args: argparse.Namespace,
    made: restoring.Plan,
    before: str | None,
    after: str | None,
    root: str = "",
) -> None:
    undo = _undo_command(args, root, before)
    if args.format == "json":
        record = plan_record(made)
        record.update(applied=bool(args.apply), before=before, after=after, undo=undo)
        print(json.dumps(record, indent=2))
        return
    for line in plan_lines(made):
        print(line)
    if made.left_out:
        left = plural(len(made.left_out), "note")
        print(f"{left} left out: make room in MEMORY.md, then restore them by path")
    if not args.apply:
        if not made.empty:
            print("nothing written: add --apply to restore")
        return
    print(f"restored; snapshot before: {(before or '')[:12]}, after: {(after or '')[:12]}")
    if undo:
        print(printable(f"undo: {undo}"))
