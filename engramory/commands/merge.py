"""``engramory merge FROM [TO]``: bring one memory folder's notes into another (issue 39).

The plan is :mod:`engramory.interop.merge`; the write, the backup and the undo
are the import's (:func:`engramory.interop.importer.execute`, :mod:`engramory.write.undo`).
FROM is only read, unless ``--remove-source``: then, after the merge is written,
it is renamed ``<FROM>.merged-<date>`` (never deleted).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import stat
import sys
from datetime import datetime, timezone
from pathlib import Path

from engramory.commands.options import (
    add_cap_flags,
    add_format_flag,
    add_profile_flags,
    caps_from_args,
    profile_from_args,
    say_profile,
)
from engramory.interop import importer, merge
from engramory.store import automemory, discovery
from engramory.store.breach import limits_text
from engramory.store.caps import INDEX_NAME
from engramory.util import fsutil
from engramory.util.errors import EXIT_OK, EngramoryError, InputMissingError
from engramory.util.textfmt import plural, printable
from engramory.write import backup, undo

COMMAND = "merge"
HELP = "bring one memory folder's notes into another (a project's memory split or orphaned)"
DESCRIPTION = """\
Copy the notes of the memory folder FROM into TO (default: the current
project's Claude Code memory folder), each with a pointer in TO's MEMORY.md.
A plan by default: nothing is written without --apply.

  - every top-level note is copied byte for byte (the host's fields kept);
  - a note whose bytes TO already holds is a duplicate: skipped;
  - a name TO already uses gets a -2, -3... suffix, and the report says so;
  - a note holding a secret's value is never copied (listed);
  - a pointer keeps FROM's index title and hook, under its type's section when
    TO's index has type sections, else at its end (the host's own layout);
  - refused when the pointers would take MEMORY.md over its hard cap, unless
    --archive-overflow (the most recently changed notes get pointers up to the
    soft cap, the rest go to archive/).

FROM is never modified; with --remove-source it is renamed to
<FROM>.merged-<date> once the merge is written (never deleted). --apply
prints an undo ID first; `engramory merge --undo ID [TO]` takes the merge back
and renames FROM back (unless something else has its name by then)."""
EPILOG = """\
examples:
  engramory where claude --all          # find orphaned and split folders
  engramory merge ~/.claude/projects/-home-ann-old-app/memory
  engramory merge ~/.claude/projects/-home-ann-old-app/memory --apply --remove-source
  engramory merge --undo 20261204T031500Z

exit codes: 0 merged (or the plan), 1 refused (nothing written), 64 usage error,
66 FROM or TO missing"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``merge`` subcommand."""
    parser = subparsers.add_parser(
        COMMAND,
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", metavar="FROM", nargs="?", help="the folder to bring in")
    parser.add_argument(
        "target", metavar="TO", nargs="?", help="the folder to merge into (default: this project's)"
    )
    parser.add_argument("--apply", action="store_true", help="write the merge (default: plan)")
    parser.add_argument(
        "--remove-source",
        action="store_true",
        help="with --apply: rename FROM to <FROM>.merged-<date> afterwards (never deleted)",
    )
    parser.add_argument(
        "--archive-overflow",
        action="store_true",
        help="when the pointers would pass the hard cap: the most recently changed notes get "
        "pointers up to the soft cap, the rest go to archive/ unindexed",
    )
    parser.add_argument("--undo", metavar="ID", help="take back the merge that printed ID")
    parser.add_argument(
        "--force", action="store_true", help="with --undo: even over later changes (backed up)"
    )
    add_format_flag(parser)
    add_profile_flags(parser)
    add_cap_flags(parser)
    parser.set_defaults(run=run)


def default_target() -> str:
    """The current project's Claude Code memory folder (it need not exist yet)."""
    project = discovery.project_root(Path.cwd())
    return os.fspath(automemory.resolve(project).path)


def target_folder(explicit: str | None) -> str:
    """TO's real path; refused when it exists and is not a folder."""
    folder = explicit if explicit is not None else default_target()
    found, error = fsutil.kind(folder)
    if error is not None or found not in ("dir", "missing"):
        why = fsutil.os_error_text(error) if error is not None else "not a folder"
        raise InputMissingError(f"{folder}: {why}: give the memory folder to merge into")
    return fsutil.resolve(folder)


def run(args: argparse.Namespace) -> int:
    """Plan, apply or undo a merge."""
    if args.undo is not None:
        return run_undo(args)
    if args.source is None:
        raise EngramoryError("give FROM, the memory folder to merge (or --undo ID)")
    source = importer.source_folder(args.source)
    target = target_folder(args.target)
    if fsutil.is_within(target, source) or fsutil.is_within(source, target):
        raise EngramoryError(
            f"FROM {source} and TO {target} are the same folder or one holds the other: "
            "nothing to merge"
        )
    caps = caps_from_args(args)
    index, raw = importer.read_index(target, caps) if os.path.isdir(target) else (None, b"")
    planned = merge.make_plan(source, target, index, raw, caps, bool(args.archive_overflow))
    return finish(args, planned)


def finish(args: argparse.Namespace, planned: merge.MergePlan) -> int:
    """Write the plan with --apply (then rename FROM with --remove-source) and report it."""
    plan = planned.plan
    choice = profile_from_args(args, plan.root, writes="the merge" if args.apply else "")
    machine = args.format == "json"
    if machine:
        say_profile(choice, machine=True)
    tail = f" {shlex.quote(plan.root)}"
    announce = backup.announcer(COMMAND, tail, to_stderr=machine)
    backup_id = importer.execute(plan, announce, COMMAND) if args.apply else None
    renamed_to = None
    if args.apply and args.remove_source:
        day = datetime.now(timezone.utc).strftime("%Y-%m-%d")
        renamed_to = merge.merged_name(planned.source, day)
        try:
            os.rename(planned.source, renamed_to)
        except OSError as exc:
            raise EngramoryError(
                f"merged, but {planned.source} could not be renamed "
                f"({fsutil.os_error_text(exc)}): it is untouched"
            ) from None
        if backup_id is not None:
            _record_rename(plan.root, backup_id, planned.source, renamed_to)
    if machine:
        data = summary(planned)
        data.update(
            {
                "applied": bool(args.apply),
                "backup": backup_id,
                "source_renamed_to": renamed_to,
                **choice.as_json(),
            }
        )
        print(json.dumps(data, ensure_ascii=False))
        return EXIT_OK
    lines = report_lines(
        planned, bool(args.apply), renamed_to, bool(args.remove_source), backup_id is not None
    )
    for line in [*lines[:1], choice.line(), *lines[1:]]:
        print(printable(line))
    return EXIT_OK


def _record_rename(root: str, backup_id: str, source: str, renamed_to: str) -> None:
    """Tell the merge's undo where FROM went, in the merge's backup folder (best effort:
    without the record the undo names nothing to rename back, as before)."""
    folder = os.path.join(backup.backup_root(root, create=False), backup_id)
    try:
        fsutil.write_atomic(
            os.path.join(folder, merge.SOURCE_RECORD), merge.source_record(source, renamed_to)
        )
    except OSError as exc:
        print(
            printable(
                f"warning: {folder}: the rename could not be recorded "
                f"({fsutil.os_error_text(exc)}); after an undo rename {renamed_to} back by hand"
            ),
            file=sys.stderr,
        )


def _renamed_source(root: str, backup_id: str) -> tuple[str, str] | None:
    """``(FROM, where it went)`` when the merge ``backup_id`` renamed its FROM."""
    folder = os.path.join(backup.backup_root(root, create=False), backup_id)
    data, _why = backup.read_plain(folder, merge.SOURCE_RECORD, merge.SOURCE_RECORD_LIMIT)
    return None if data is None else merge.read_source_record(data)


def rename_back(source: str, renamed_to: str) -> str:
    """Put a renamed FROM back under its name; the line that says what happened."""
    try:
        is_folder = stat.S_ISDIR(os.lstat(renamed_to).st_mode)  # a symlink is not what it made
    except OSError:
        is_folder = False
    if not is_folder:
        return f"FROM: {renamed_to} is no longer a folder there: nothing renamed back"
    if os.path.lexists(source):
        return f"FROM stays at {renamed_to}: {source} exists again; rename it by hand"
    try:
        os.rename(renamed_to, source)
    except OSError as exc:
        return (
            f"FROM stays at {renamed_to}: it could not be renamed back "
            f"({fsutil.os_error_text(exc)}); rename it by hand"
        )
    return f"FROM renamed back: {renamed_to} -> {source}"


def summary(planned: merge.MergePlan) -> dict[str, object]:
    """The import core's summary, with the merge's own parts."""
    data = importer.summary(planned.plan)
    data.pop("gitignore", None)
    data.pop("dates", None)
    data["source"] = planned.source
    data["duplicates"] = [{"source": s, "same_as": t} for s, t in planned.duplicates]
    data["renamed"] = [{"source": s, "as": t} for s, t in planned.renamed]
    return data


def report_lines(
    planned: merge.MergePlan,
    applied: bool,
    renamed_to: str | None,
    remove_source: bool = False,
    undoable: bool = True,
) -> list[str]:
    """The text report: what is copied, renamed, skipped, and the index after."""
    plan = planned.plan
    verb = "merged" if applied else "would merge"
    out = [f"merge {planned.source} into {plan.root}"]
    out.append(f"{verb} {importer.type_counts_text(plan)}")
    if planned.renamed:
        out.append(f"renamed {plural(len(planned.renamed), 'note')} (the name is taken in TO):")
        out += [f"  {source} -> {name}" for source, name in planned.renamed]
    if planned.duplicates:
        out.append(f"skipped {plural(len(planned.duplicates), 'duplicate')} (same bytes in TO):")
        out += [f"  {source} = {same}" for source, same in planned.duplicates]
    if plan.archived:
        out.append(f"{plural(len(plan.archived), 'note')} to archive/ without a pointer:")
        out += [f"  {p.rel}" for p in plan.archived]
    if plan.skipped:
        out.append(f"not copied: {len(plan.skipped)}")
        out += [
            f"  {s.source}: {s.reason}" + (f" ({s.detail})" if s.detail else "")
            for s in plan.skipped
        ]
    out.append(
        f"{INDEX_NAME} {'now' if applied else 'would be'} {limits_text(plan.lines, plan.size)}"
    )
    if renamed_to is not None and not undoable:  # nothing written: no backup, no undo ID
        out.append(
            f"FROM renamed to {renamed_to} (nothing was written, so there is no undo: "
            "rename it back by hand)"
        )
    elif renamed_to is not None:
        out.append(f"FROM renamed to {renamed_to} (merge --undo renames it back)")
    elif applied:
        out.append(f"FROM {planned.source}: read only, not modified")
    else:
        if remove_source:
            out.append(f"FROM would be renamed to {planned.source}{merge.MERGED_SUFFIX}<date>")
        out.append("nothing written: run again with --apply")
    return out


def run_undo(args: argparse.Namespace) -> int:
    """``merge --undo ID [TO]``: take back a merge (TO: the one positional given, if any)."""
    backup.check_backup_id(args.undo)
    given = args.target if args.target is not None else args.source
    root = target_folder(given)
    if not os.path.isdir(root):
        raise InputMissingError(f"{root}: no memory folder there")
    announce = backup.announcer(COMMAND, f" {shlex.quote(root)}")
    renamed = _renamed_source(root, args.undo)
    code = undo.undo(root, args.undo, COMMAND, force=args.force, announce=announce)
    if code == EXIT_OK and renamed is not None:
        print(printable(rename_back(*renamed)))
    return code
