"""``engramory export memoir DIR``: write every live note as a memoir entry file.

The store is found as for every command (``--store``, else discovery). Each
readable live note (and, with ``--include-archive``, each archived one)
becomes ``DIR/<slug>.md`` in memoir's format (the mapping is
:mod:`engramory.interop.memoir_export`). Everything is decided first: when any
target file already exists the command refuses and writes nothing (a memoir
writer never rewrites entries it was not asked to touch); then the entries are
written, each atomically, and a failure removes the ones this run wrote.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from engramory import __version__, secrets
from engramory.commands.options import (
    add_format_flag,
    add_profile_flags,
    profile_from_args,
    say_profile,
)
from engramory.interop import memoir_export
from engramory.interop.importer import name_key
from engramory.interop.memoir_export import Entry, Skip, SourceNote
from engramory.interop.memoir_yaml import UnwritableValue
from engramory.secrets.excerpts import excerpt
from engramory.store import automemory, discovery
from engramory.store.disk import (
    ESCAPES,
    LOOP,
    MISSING,
    NOT_REGULAR,
    NOTE_READ_LIMIT,
    READ_OK,
    TOO_LARGE,
    contained,
    read_file,
    walk,
)
from engramory.store.frontmatter import parse
from engramory.util import fsutil
from engramory.util.errors import EXIT_FINDINGS, EXIT_OK, EngramoryError, UsageError
from engramory.util.textfmt import human_size, plural, printable

HELP = "write the store's notes in another format (memoir)"
DESCRIPTION = """\
Write the store's notes in another tool's format. One format so far: memoir
(https://memoir.sh), the open format for an assistant's working context."""
EPILOG = """\
examples:
  engramory export memoir ~/memoir-export
  engramory export memoir out/ --store .engramory-memory --project billing --dry-run"""

MEMOIR_HELP = "one memoir entry file per live note, into DIR"
MEMOIR_DESCRIPTION = """\
Write one memoir entry file per live note into DIR (created when absent),
keeping the note's file name so that [[wikilinks]] still resolve:
  feedback  -> lesson  (trigger <- description, how_to_apply <- the body's
                        "How to apply:" paragraph; without both: a fact)
  user      -> fact
  reference -> fact    (source <- the first URL or path in the body)
  project   -> goal    (set_on <- created)
Every entry keeps name, description, created and updated (a note without
dates is exported without them: no value is made up), every other field
under its own name (originSessionId as origin: session_id), the body byte for
byte, and carries engramory_type (the note's type) and origin: {tool:
engramory}; scope: repo becomes project: NAME, scope: global no project.
Values are written in memoir's YAML subset, quoted where YAML needs it.
Archived notes only with --include-archive (then with engramory_archived: true).
`engramory import memoir DIR` gives the notes back as they were.

Refuses, writing nothing (exit 1): a target file that already exists in DIR,
DIR inside the store, DIR not a directory, no note to export (DIR is not
even created). Skipped and listed (the rest is exported, exit 0): every note
the doctor reports with a frontmatter error (no frontmatter; a missing or
empty name, description or type; a syntax error or repeated key; an invalid
type or date such as 2026-02-30), a field memoir's YAML cannot hold, a value
holding both quote kinds where it needs quoting, a note that is not valid
UTF-8, cannot be read or leads out of the store. A note that holds what looks
like a secret is exported (it is your data) and named in a warning, its value
never shown."""
MEMOIR_EPILOG = """\
examples:
  engramory export memoir ~/memoir-export
  engramory export memoir out/ --store .engramory-memory --project billing
  engramory export memoir out/ --include-archive --dry-run
  engramory export memoir out/ --format json
  engramory export memoir out/ --store ~/crm-memory --native   # named as claude-native

exit codes: 0 exported (skipped notes are listed), 1 refused or nothing to
            export (nothing written), 64 usage error, 66 store missing or
            unreadable"""

READ_PROBLEMS = {
    ESCAPES: "it is a symlink leading out of the store: not read",
    MISSING: "it is a dangling symlink",
    LOOP: "it is a symlink loop",
    NOT_REGULAR: "it is not a regular file",
    TOO_LARGE: f"it is over {human_size(NOTE_READ_LIMIT)}",
}
TARGETS_SHOWN = 10


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``export`` with its one format, ``memoir``."""
    fmt = argparse.RawDescriptionHelpFormatter
    export = subparsers.add_parser(
        "export", help=HELP, description=DESCRIPTION, epilog=EPILOG, formatter_class=fmt
    )
    formats = export.add_subparsers(title="formats", dest="export_format", metavar="FORMAT")
    memoir = formats.add_parser(
        "memoir",
        help=MEMOIR_HELP,
        description=MEMOIR_DESCRIPTION,
        epilog=MEMOIR_EPILOG,
        formatter_class=fmt,
    )
    memoir.add_argument("directory", metavar="DIR", help="where the entry files go")
    memoir.add_argument("--store", metavar="PATH", help="the store (default: found as for check)")
    memoir.add_argument(
        "--project",
        metavar="NAME",
        help="the project a scope: repo note belongs to (default: the name of the store's "
        "project directory)",
    )
    memoir.add_argument(
        "--include-archive",
        action="store_true",
        help="export archived notes too (with engramory_archived: true)",
    )
    memoir.add_argument("--dry-run", action="store_true", help="say what would be written")
    add_format_flag(memoir)
    add_profile_flags(memoir)
    memoir.set_defaults(run=run_memoir)


# --- reading the store ------------------------------------------------------------------------


@dataclass
class Plan:
    """What the export will write and say."""

    root: Path
    directory: str
    project: str
    entries: list[tuple[Entry, str]] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    secret_notes: list[tuple[str, str]] = field(default_factory=list)
    live: int = 0
    archived: int = 0


def default_project(root: Path, cwd: Path) -> str:
    """The name of the directory holding the store's project.

    ``<project>/.engramory-memory`` -> ``project``; a store inside a git work
    tree -> the work tree's folder; the project's Claude Code auto-memory folder
    -> the current project's folder; else the folder above the store.
    """
    if root.name == discovery.DEFAULT_STORE_DIR:
        return root.parent.name
    top = discovery.git_work_tree(root)
    if top is not None:
        return top.name
    project = discovery.project_root(cwd)
    if os.path.realpath(automemory.resolve(project).path) == os.path.realpath(root):
        return project.name
    return root.parent.name or root.name


def _read_note(root: str, rel: str, path: str, archived: bool) -> SourceNote | Skip:
    """Read and parse one note boundedly; a :class:`Skip` when it cannot be read whole."""
    read = read_file(path, NOTE_READ_LIMIT)
    if read.status != READ_OK or read.data is None:
        return Skip(rel, READ_PROBLEMS.get(read.status) or f"cannot read it: {read.error}")
    raw = read.data[3:] if read.data.startswith(b"\xef\xbb\xbf") else read.data
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Skip(rel, "it is not valid UTF-8: re-save it as UTF-8, then export again")
    return SourceNote(rel, parse(text), archived)


def read_notes(root: str, include_archive: bool) -> tuple[list[SourceNote | Skip], int, int]:
    """Every live note (and archived one, when asked), read; with the live and archived counts."""
    found = walk(root)
    out: list[SourceNote | Skip] = []
    for note in found.notes:
        if note.status != READ_OK:
            out.append(Skip(note.rel, READ_PROBLEMS.get(note.status, "it cannot be read")))
            continue
        out.append(_read_note(root, note.rel, note.path(root), False))
    archived = sorted(found.archived) if include_archive else []
    for rel in archived:
        path = contained(root, rel)
        if path is None:
            out.append(Skip(rel, READ_PROBLEMS[ESCAPES]))
            continue
        out.append(_read_note(root, rel, path, True))
    return out, len(found.notes), len(archived)


# --- deciding ---------------------------------------------------------------------------------


def _directory(raw: str, root: Path) -> str:
    """The export directory, absolute; refuses one inside the store or not a directory."""
    directory = os.path.abspath(os.path.expanduser(raw))
    resolved = os.path.realpath(directory)
    if fsutil.is_within(resolved, str(root)):
        raise EngramoryError(
            f"{directory} is inside the store {root}: export to a folder outside it"
        )
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise EngramoryError(f"{directory} exists and is not a directory: pick another DIR")
    return directory


def make_plan(args: argparse.Namespace, root: Path) -> Plan:
    """Decide every entry, skip and warning; refuse (nothing written) on an existing target."""
    project = args.project if args.project is not None else default_project(root, Path.cwd())
    plan = Plan(root, _directory(args.directory, root), project)
    read, plan.live, plan.archived = read_notes(str(root), args.include_archive)
    taken: dict[str, str] = {}
    for item in read:
        if isinstance(item, Skip):
            plan.skipped.append(item)
            continue
        result = memoir_export.to_entry(item, project)
        if isinstance(result, Skip):
            plan.skipped.append(result)
            continue
        clash = taken.get(name_key(result.file_name))
        if clash is not None:
            plan.skipped.append(
                Skip(item.rel, f"{clash} is exported as {result.file_name} already: rename one")
            )
            continue
        try:
            text = memoir_export.entry_text(result)
        except UnwritableValue as error:
            plan.skipped.append(Skip(item.rel, memoir_export.unwritable_reason(error)))
            continue
        taken[name_key(result.file_name)] = item.rel
        plan.entries.append((result, text))
        found = secrets.find(text)
        if found:
            plan.secret_notes.append((item.rel, f"{found[0].title} ({found[0].shown})"))
    existing = [
        name
        for name in (entry.file_name for entry, _ in plan.entries)
        if os.path.lexists(os.path.join(plan.directory, name))
    ]
    if existing:
        shown = ", ".join(existing[:TARGETS_SHOWN])
        more = f" and {len(existing) - TARGETS_SHOWN} more" if len(existing) > TARGETS_SHOWN else ""
        raise EngramoryError(
            f"{plural(len(existing), 'file')} already exist in {plan.directory} ({shown}{more}): "
            "nothing written; export into an empty or new folder (a memoir writer never "
            "rewrites entries it was not asked to touch)"
        )
    return plan


# --- writing ----------------------------------------------------------------------------------


def write(plan: Plan) -> None:
    """Create DIR when absent, then each entry atomically; on a failure remove what was
    written (and DIR, when this run created it) and raise."""
    created_dir = not os.path.isdir(plan.directory)
    written: list[str] = []
    try:
        os.makedirs(plan.directory, exist_ok=True)
        for entry, text in plan.entries:
            path = os.path.join(plan.directory, entry.file_name)
            if os.path.lexists(path):
                raise FileExistsError(f"{path} appeared meanwhile")
            fsutil.write_atomic(path, text.encode("utf-8"))
            written.append(path)
    except OSError as exc:
        for path in written:
            try:
                os.unlink(path)
            except OSError:
                pass
        if created_dir:
            try:
                os.rmdir(plan.directory)
            except OSError:
                pass
        reason = str(exc) if isinstance(exc, FileExistsError) else fsutil.os_error_text(exc)
        raise EngramoryError(
            f"{plan.directory}: cannot write the export ({reason}); the files this run wrote "
            "were removed again"
        ) from None


# --- reporting --------------------------------------------------------------------------------


def _counts(values: list[str]) -> str:
    counted = Counter(values)
    return ", ".join(f"{n} {name}" for name, n in sorted(counted.items()))


def report_text(plan: Plan, dry_run: bool) -> list[str]:
    """The text report: what was exported per type, what was skipped and why, where."""
    entries = [entry for entry, _ in plan.entries]
    verb = "would export" if dry_run else "exported"
    where = f"{verb} {plural(len(entries), 'note')} to {plan.directory}"
    if not entries:
        where = (
            f"nothing to export from {plan.root}: no note can be written as a memoir entry; "
            f"{plan.directory} was not created or changed"
        )
    out = [f"{where}: {_counts([e.memoir_type for e in entries])}" if entries else where]
    if entries:
        kinds = [e.engramory_type for e in entries]
        out.append(f"  from {_counts(kinds)} (engramory_type keeps each note's own type)")
    archived = sum(1 for e in entries if e.mapping.get("engramory_archived") is True)
    if archived:
        out.append(f"  including {plural(archived, 'archived note')} (engramory_archived)")
    if any(e.mapping.get("project") for e in entries):
        out.append(f"  scope: repo notes carry project: {plan.project}")
    said = [(e, text) for e in entries for text in e.notes]
    if said:
        out.append("mapping notes:")
        out += [f"  {e.file_name}: {text}" for e, text in said]
    if plan.skipped:
        out.append(f"skipped {plural(len(plan.skipped), 'note')}:")
        out += [f"  {skip.rel}: {skip.reason}" for skip in plan.skipped]
    if plan.secret_notes:
        out.append(
            f"warning: {plural(len(plan.secret_notes), 'exported note')} may hold a secret "
            "(exported all the same: it is your data; review them before you share the export):"
        )
        out += [f"  {rel}: {what}" for rel, what in plan.secret_notes]
    if dry_run and entries:
        out.append("(nothing written: --dry-run)")
    return out


def report_json(plan: Plan, dry_run: bool) -> dict[str, object]:
    """The JSON report."""
    entries = [entry for entry, _ in plan.entries]
    return {
        "engramory": __version__,
        "store": str(plan.root),
        "directory": plan.directory,
        "project": plan.project,
        "dry_run": dry_run,
        "exported": dict(sorted(Counter(e.memoir_type for e in entries).items())),
        "entries": [
            {
                "file": e.file_name,
                "type": e.memoir_type,
                "engramory_type": e.engramory_type,
                "notes": e.notes,
            }
            for e in entries
        ],
        "skipped": [{"note": s.rel, "reason": s.reason} for s in plan.skipped],
        "secrets": [{"note": rel, "found": what} for rel, what in plan.secret_notes],
        "nothing_to_export": not entries,
    }


def run_memoir(args: argparse.Namespace) -> int:
    """Export the store to DIR as memoir entries."""
    if args.project is not None and (
        not args.project.strip() or any(ord(ch) < 32 or ord(ch) == 127 for ch in args.project)
    ):
        raise UsageError(f"--project {excerpt(args.project)}: give a one-line, non-empty name")
    location = discovery.locate(args.store)
    root = Path(os.path.realpath(location.root))
    choice = profile_from_args(args, location.root)
    plan = make_plan(args, root)
    if not args.dry_run and plan.entries:
        write(plan)
    code = EXIT_OK if plan.entries else EXIT_FINDINGS
    if args.format == "json":
        say_profile(choice, machine=True)
        report = {**report_json(plan, bool(args.dry_run)), **choice.as_json()}
        print(json.dumps(report, ensure_ascii=False))
        return code
    if location.discovered:
        print(printable(f"store {root} ({location.source})"))
    say_profile(choice)
    for line in report_text(plan, bool(args.dry_run)):
        print(printable(line))
    return code
