"""``engramory fix``: repair what is mechanical in a store, with a backup and an undo.

The doctor finds; :mod:`engramory.repair.plan` decides every change from its
findings; this module does the I/O around that: reading the notes and the
index (bounded, never through a symlink), finding dates in git or the file's
modification time, printing the diff, and with ``--apply`` the backup, the
atomic writes and ``--undo``.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shlex
import sys
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path

from engramory import secrets
from engramory.commands.options import (
    add_cap_flags,
    add_profile_flags,
    caps_from_args,
    profile_from_args,
    say_profile,
)
from engramory.continuity.state import locked
from engramory.doctor import engine
from engramory.doctor.context import Options
from engramory.doctor.model import Finding
from engramory.repair import FIX_IDS, INDEX_FIX_IDS, MISSING_DATE, POINTER_SECTION_MISMATCH
from engramory.repair.model import Dates, IndexInput, NoteInput, Plan
from engramory.repair.plan import decoded_index, fix_of, plan
from engramory.store import discovery, markdown
from engramory.store.caps import INDEX_NAME, Caps
from engramory.store.disk import (
    FOUND,
    LIVE,
    NAME_NOT_UTF8,
    NOTE_READ_LIMIT,
    plain_notes,
    resolve_target,
    utf8_name,
    walk,
)
from engramory.store.frontmatter import NOTE_TYPES, parse_bytes
from engramory.util.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from engramory.util.textfmt import plural, printable
from engramory.write import backup, filedates, indexedit, undo
from engramory.write.filedates import FileHistory

HELP = "repair what is mechanical in a store (orphans, dates, names, pointers), with undo"
DESCRIPTION = f"""\
Fix the doctor's findings that need no judgement, and list the rest:
  orphan                    a pointer line under the note's type heading (title from
                            the slug, the description as the hook), unless the index
                            would pass a hard cap; notes with frontmatter errors are
                            not indexed
  duplicate-pointer         the first pointer line is kept, later ones dropped
  pointer-section-mismatch  the line moves under the heading of the note's type
  missing-date              created/updated from the first/last git commit of the note
                            (--dates-from mtime: its modification date); never today's
  invalid-date              only an unambiguous year-first date (2026/03/01, 2026-3-1,
                            20260301, 2026.03.01), rewritten as YYYY-MM-DD
  name-mismatch             name (also a missing one) set to the file's slug
Only the frontmatter lines and index lines concerned change; every other byte stays.

The profile (--profile, --native, else detected as for engramory doctor) is
named with why before the diff. In the claude-native profile the host owns
the frontmatter (titles as names, no dates, metadata: blocks), so only the
index is repaired (orphan, duplicate-pointer, pointer-section-mismatch) and no
note is rewritten; --select of a frontmatter fix there is a usage error.

Without --apply nothing is written: a unified diff of every change, then a summary;
exit 1 when there is something to fix, 0 when there is nothing.
--apply first copies every file it changes into <store>/.engramory/backup/ID/
(ID: a UTC timestamp), writes each file atomically, and prints
"undo: engramory fix --undo ID"; it exits 0 even when findings it cannot fix
remain. --undo ID puts the saved bytes back and removes the backup; it refuses
(exit 1, nothing changed) when a file changed since the apply, listing them;
--force undoes anyway after backing up the current state (a new undo ID).
66 when there is no such backup.
STORE is found as for engramory doctor. Rule ids for --select: {", ".join(FIX_IDS)}."""
EPILOG = """\
examples:
  engramory fix                         # what would change, as a diff (exit 1: something to fix)
  engramory fix ~/notes/memory --apply  # fix it, with a backup
  engramory fix --select orphan,duplicate-pointer --apply
  engramory fix --dates-from mtime      # dates from the files' modification times
  engramory fix --native --apply        # a Claude Code memory copy: only the index is repaired
  engramory fix --undo 20261202T031500Z"""

BACKUP_DIR = (".engramory", "backup")
READ_LIMIT = NOTE_READ_LIMIT
DIFF_LINE_LIMIT = 400  # characters of one diff line shown


def _fix_ids(raw: list[str] | None) -> list[str]:
    """The fixes ``--select`` names (default all); an unknown id is a usage error."""
    if raw is None:
        return list(FIX_IDS)
    ids = {part.strip() for chunk in raw for part in chunk.split(",") if part.strip()}
    unknown = sorted(ids - set(FIX_IDS))
    if unknown:
        raise UsageError(
            f"unknown fix id(s): {printable(', '.join(unknown))} (the fixes are "
            f"{', '.join(FIX_IDS)})"
        )
    return [fix_id for fix_id in FIX_IDS if fix_id in ids]


def _index_only(selected: list[str], asked: bool) -> list[str]:
    """The claude-native fixes: only those of the index; naming another is a usage error."""
    owned = [fix_id for fix_id in selected if fix_id not in INDEX_FIX_IDS]
    if asked and owned:
        raise UsageError(
            f"{', '.join(owned)}: the claude-native profile leaves the host's frontmatter as it "
            f"is (only {', '.join(INDEX_FIX_IDS)} are fixed there; --profile engramory for more)"
        )
    return [fix_id for fix_id in selected if fix_id in INDEX_FIX_IDS]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``fix`` subcommand."""
    parser = subparsers.add_parser(
        "fix",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "store", nargs="?", metavar="STORE", help="store directory or its MEMORY.md"
    )
    parser.add_argument(
        "--store", dest="store_flag", metavar="PATH", help="the store (same as STORE)"
    )
    parser.add_argument("--apply", action="store_true", help="write the fixes (with a backup)")
    parser.add_argument(
        "--select", action="append", metavar="RULES", help="only these fixes (comma-separated)"
    )
    parser.add_argument(
        "--dates-from",
        choices=("git", "mtime"),
        default="git",
        help="where missing dates come from (default: git, when the store is in a work tree)",
    )
    parser.add_argument("--undo", metavar="ID", help="put back the files backed up as ID")
    parser.add_argument(
        "--force", action="store_true", help="with --undo: even over later changes (backed up)"
    )
    add_profile_flags(parser)
    add_cap_flags(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Plan the fixes; print them, or apply them; or undo an earlier --apply."""
    selected = _fix_ids(args.select)
    if args.undo is not None:
        backup.check_backup_id(args.undo)
        if args.apply:
            raise UsageError("--undo puts an earlier --apply back: give it without --apply")
    elif args.force:
        raise UsageError("--force goes with --undo ID")
    if args.store is not None and args.store_flag is not None:
        raise UsageError("give the store once: STORE or --store PATH")
    location = discovery.locate(args.store if args.store is not None else args.store_flag)
    root = os.path.realpath(location.root)
    if location.discovered:
        print(printable(f"fixing the store {location.root} ({location.source})"))
    announce = backup.announcer(
        "fix", "" if location.discovered else " " + shlex.quote(str(location.root))
    )
    if args.undo is not None:
        return undo.undo(root, args.undo, "fix", force=args.force, announce=announce)
    caps = caps_from_args(args)
    choice = profile_from_args(args, location.root, writes="--apply" if args.apply else "")
    say_profile(choice)
    if choice.native:
        selected = _index_only(selected, args.select is not None)
    options = Options(profile=choice.profile, today=date.today())
    report = engine.run(root, caps, options)
    fixes = plan_store(root, report.findings, caps, selected, args.dates_from)
    if not args.apply:
        sys.stdout.writelines(line + "\n" for line in diff_lines(fixes.sources, fixes.changes))
        sys.stdout.writelines(line + "\n" for line in summary(fixes, applied=False))
        return EXIT_FINDINGS if fixes.changes else EXIT_OK
    if not fixes.changes:
        sys.stdout.writelines(line + "\n" for line in summary(fixes, applied=True))
        return EXIT_OK
    apply(root, fixes.sources, fixes.changes, announce)
    for rel in fixes.changes:
        print(printable(f"changed {rel}"))
    sys.stdout.writelines(line + "\n" for line in summary(fixes, applied=True))
    return EXIT_OK


# -- reading --------------------------------------------------------------------------


def _read_plain(root: str, rel: str, limit: int = READ_LIMIT) -> tuple[bytes | None, str]:
    """The bytes of ``<root>/<rel>`` when it is a regular file reached without a symlink."""
    return backup.read_plain(root, rel, limit)


def plan_store(
    root: str, findings: list[Finding], caps: Caps, selected: list[str], dates_from: str
) -> Plan:
    """Read what the fixes need and plan them."""
    wanted = [f for f in findings if fix_of(f) in selected]
    paths = sorted({f.path for f in wanted if f.path != INDEX_NAME})
    need_dates = {f.path for f in wanted if f.rule == MISSING_DATE}
    history = FileHistory(root, (dates_from,))
    notes: dict[str, NoteInput] = {}
    for rel in paths:
        if not utf8_name(rel):
            why = f"{NAME_NOT_UTF8}, then run engramory fix again"
            notes[rel] = NoteInput(rel, b"", False, why)
            continue
        data, why = _read_plain(root, rel)
        if data is None:
            notes[rel] = NoteInput(rel, b"", False, why)
            continue
        dates = _dates(history, rel) if rel in need_dates else Dates()
        notes[rel] = NoteInput(rel, data, dates=dates)
    index = _index(root, caps) if any(f.rule in FIX_IDS for f in wanted) else None
    lines = sorted({f.line for f in wanted if f.rule == POINTER_SECTION_MISMATCH and f.line})
    types = _section_types(root, index, lines) if index is not None and lines else {}
    return plan(findings, notes, index, types, caps, selected)


def _index(root: str, caps: Caps) -> IndexInput | None:
    data, why = _read_plain(root, INDEX_NAME, caps.read_limit())
    if data is None:
        return IndexInput("", editable=False, why=why)
    return decoded_index(data)


def _section_types(root: str, index: IndexInput, numbers: list[int]) -> dict[int, str]:
    """The type of the note each of those index lines leads to (lines of one link only)."""
    lines = {line.number: line for line in markdown.classify_index(index.text)}
    found = walk(root)
    plain = plain_notes(found)
    by_slug: dict[str, list[str]] = {}
    for note in found.notes:
        by_slug.setdefault(note.slug.casefold(), []).append(note.rel)
    types: dict[int, str] = {}
    for number in numbers:
        line = lines.get(number)
        if line is None or len(line.links) != 1:
            continue
        link = line.links[0]
        rel = None
        if link.form == markdown.WIKI:
            slug = link.target[:-3] if link.target.lower().endswith(".md") else link.target
            hits = by_slug.get(slug.casefold(), [])
            rel = hits[0] if len(hits) == 1 else None
        elif link.form != markdown.UNPARSABLE:
            target = resolve_target(root, link.target, plain)
            rel = target.rel if target.kind == FOUND and target.area == LIVE else None
        if rel is None:
            continue
        data, _why = _read_plain(root, rel)
        note_type = parse_bytes(data).fields.get("type") if data is not None else None
        if note_type in NOTE_TYPES:
            types[number] = note_type
    return types


def _dates(history: FileHistory, rel: str) -> Dates:
    """A note's dates from its history (git or mtime, as ``--dates-from`` says)."""
    found = history.dates(rel)
    why = found.why
    if why == filedates.NOT_IN_GIT:
        why += " (--dates-from mtime uses the files' modification dates)"
    elif why == filedates.NO_COMMIT:
        why += " (--dates-from mtime uses its modification date)"
    return Dates(found.first, found.last, why)


# -- output ---------------------------------------------------------------------------


def _shown(line: str) -> str:
    """One diff line as printed: secrets hidden, cut at :data:`DIFF_LINE_LIMIT`, escaped."""
    for secret in reversed(secrets.find(line)):
        line = f"{line[: secret.start]}<{secret.kind}: secret hidden>{line[secret.end :]}"
    if len(line) > DIFF_LINE_LIMIT:
        line = line[:DIFF_LINE_LIMIT] + f"... ({len(line) - DIFF_LINE_LIMIT} more characters)"
    return printable(line)


def diff_lines(sources: dict[str, bytes], changes: dict[str, bytes]) -> Iterator[str]:
    """A unified diff of every change, control characters escaped (``\\r`` shows)."""
    for rel, new in changes.items():
        old_lines = indexedit.split_lines(sources[rel].decode("utf-8", "replace"))
        new_lines = indexedit.split_lines(new.decode("utf-8", "replace"))
        for line in difflib.unified_diff(old_lines, new_lines, f"a/{rel}", f"b/{rel}", lineterm=""):
            yield _shown(line[:-1] if line.endswith("\n") else line)


def _counts(findings: Iterable[Finding], key) -> str:
    tally: dict[str, int] = {}
    for finding in findings:
        tally[key(finding)] = tally.get(key(finding), 0) + 1
    return ", ".join(f"{name} {count}" for name, count in sorted(tally.items()))


def summary(fixes: Plan, applied: bool) -> Iterator[str]:
    """What was (or would be) fixed per fix, what remains per rule, and why some stay."""
    files = plural(len(fixes.changes), "file")
    if fixes.fixed and fixes.changes:
        verb = "fixed" if applied else "would fix"
        count = plural(len(fixes.fixed), "finding")
        yield f"{verb} {count} in {files}: {_counts(fixes.fixed, fix_of)}"
    else:
        yield "nothing to fix"
    for note in fixes.notes:
        yield f"  {note}"
    for why, rels in fixes.undated.items():
        shown = ", ".join(rels[:3]) + (", ..." if len(rels) > 3 else "")
        yield printable(f"  no date added to {plural(len(rels), 'note')} ({shown}): {why}")
    if fixes.remaining:
        count = plural(len(fixes.remaining), "finding")
        yield (
            f"left for a person: {count}: {_counts(fixes.remaining, lambda f: f.rule)} "
            "(see engramory doctor)"
        )


# -- writing ----------------------------------------------------------------------------


def apply(
    root: str,
    sources: dict[str, bytes],
    changes: dict[str, bytes],
    announce: backup.Announce | None = None,
) -> str:
    """Journal (announcing the undo command), then write every change atomically, under the
    store's lock (as `new` and the MCP server write); the backup's ID (engramory.write.backup)."""
    with locked(Path(root), leave_no_file=True):
        return backup.apply(root, sources, changes, announce=announce)
