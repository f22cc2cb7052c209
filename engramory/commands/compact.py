"""``engramory compact``: bring an over-cap index back under the cut (issue 25).

The plan is made by :mod:`engramory.compact` (pure); this module gathers what
the steps need from the store, prints the plan, and with ``--apply`` writes it
through :mod:`engramory.write.backup` (every changed or removed file saved first,
created files recorded for ``--undo``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shlex
import stat
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path

from engramory.commands.options import (
    add_cap_flags,
    add_profile_flags,
    caps_from_args,
    positive_int_arg,
    profile_from_args,
    say_profile,
)
from engramory.compact import cold
from engramory.compact.model import (
    COLD,
    HARD,
    SOFT,
    ColdCandidate,
    StoreFacts,
    target_caps,
    within,
)
from engramory.compact.plan import STEPS, Plan, make_plan
from engramory.continuity.state import locked
from engramory.doctor.context import DEFAULT_MAX_INDEX_LINE, NameTable
from engramory.store import discovery
from engramory.store.breach import limits_text
from engramory.store.caps import INDEX_NAME, Caps, count_lines, utf8_size
from engramory.store.disk import (
    ESCAPES,
    FOUND,
    LIVE,
    READ_OK,
    contained,
    plain_notes,
    resolve_target,
    walk,
)
from engramory.store.frontmatter import parse_bytes
from engramory.store.markdown import INLINE, WIKI, Link, classify_index
from engramory.util.errors import EXIT_FINDINGS, EXIT_OK, EngramoryError, UsageError
from engramory.util.textfmt import human_size, printable
from engramory.write import archiving, backup, filedates, indexedit, notewrite, undo
from engramory.write.filedates import FileHistory
from engramory.write.indexfile import read_index_for_edit

HELP = "bring an over-cap index back under the cut, nothing lost, with undo"
DESCRIPTION = f"""\
Plan (or, with --apply, make) the edits that bring {INDEX_NAME} within its
soft cap (--to hard: the hard cap), in this order, each run fully. An index
already within the target is left alone unless steps are named (--step NAME,
repeatable: only those run, even within the target):
  1. duplicates  several lines pointing to one note keep one (the longest hook)
  2. inline      an index block holding no pointer becomes a note + one pointer
                 under the ## section of the note's type
  3. long-lines  a pointer line over --max-index-line keeps a short hook; the
                 rest goes to the note under '## From the index'
  4. cold        (--archive-cold) the notes last changed longest ago ('modified'
                 or 'updated', else the last git commit, else the file's
                 modification time) are archived as engramory archive does,
                 until the index fits; user and feedback notes never are, nor
                 a note the index does not point to (that saves nothing)
The preamble (title to first '##'), thematic breaks and blocks holding any
pointer are left alone. --apply backs up every file it changes or removes in
<store>/.engramory/backup/ID/, records the files it creates, and prints the
undo command; --undo ID puts every byte back and removes the created files,
the folders and the backup; it refuses, changing nothing, when a file changed
since (--force: anyway, after backing up the current state).

The profile (--profile, --native, else detected as for engramory doctor) is
named with why after the store (on stderr with --format json, and as
"profile" and "profile_reason" in it). In claude-native the notes the inline
step creates take a title as name, as the host writes them; no existing
note's frontmatter is ever changed.

Exit 0 within the target with nothing to do (or after an --apply that reached
it); 1 something to do, still over after --apply, or a refusal; 64 usage; 66
no store or an unknown undo ID."""
EPILOG = """\
examples:
  engramory compact                          # the plan, nothing written
  engramory compact --apply                  # do it; prints the undo command
  engramory compact ~/notes/memory --to hard --archive-cold --apply
  engramory compact --step inline           # only the inline step, even within the cap
  engramory compact --format json
  engramory compact --native                 # a Claude Code folder kept under another path
  engramory compact --undo 20261202T031500Z"""
LARGEST_SHOWN = 5
DIFF_LINE_LIMIT = 400
DIFF_MAX_LINES = 3000  # index lines past which the diff is summed up


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compact`` subcommand."""
    parser = subparsers.add_parser(
        "compact",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("store", nargs="?", metavar="STORE", help="the store (found as for check)")
    parser.add_argument("--apply", action="store_true", help="make the edits (with a backup)")
    parser.add_argument(
        "--to", choices=(SOFT, HARD), default=SOFT, help="the cap to reach (default: soft)"
    )
    parser.add_argument(
        "--archive-cold", action="store_true", help="archive the coldest notes until it fits"
    )
    parser.add_argument(
        "--step",
        action="append",
        choices=STEPS,
        metavar="STEP",
        help=f"run this step (repeatable; one of {', '.join(STEPS)}), even when the index "
        "is within the target",
    )
    parser.add_argument(
        "--max-index-line",
        type=positive_int_arg,
        default=DEFAULT_MAX_INDEX_LINE,
        metavar="N",
        help=f"longest pointer line (default: {DEFAULT_MAX_INDEX_LINE}, as the doctor)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output")
    parser.add_argument("--undo", metavar="ID", help="put back what --apply ID changed")
    parser.add_argument(
        "--force", action="store_true", help="with --undo: even over later changes (backed up)"
    )
    add_profile_flags(parser)
    add_cap_flags(parser)
    parser.set_defaults(run=run)


# -- reading the store --------------------------------------------------------------


def read_index(root: str, caps: Caps) -> tuple[str, bytes]:
    """The index text and bytes; refuses (1) one not UTF-8, too large, or leading out."""
    state = read_index_for_edit(root, caps)
    if not state.exists:
        return "", b""
    if os.path.realpath(state.path) != os.path.join(root, INDEX_NAME):
        raise EngramoryError(f"{state.path}: the index is a symlink; compact the file it names")
    raw = notewrite.encode_index(state.text)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EngramoryError(
            f"{state.path} is not UTF-8: nothing written; convert it to UTF-8 first"
        ) from None
    return state.text, raw


def _taken(root: str) -> set[str]:
    """Every casefolded slug in use in the store and its archive folder (and the index's)."""
    taken = {INDEX_NAME[:-3].casefold()}
    for folder in (root, contained(root, archiving.archive_dir(root))):
        if folder is None:  # an archive folder leading out of the store is never listed
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            stem = name[:-3] if name.lower().endswith(".md") else name
            taken.add(stem.casefold())
    return taken


def _cold_candidates(root: str, found, with_history: bool) -> list[ColdCandidate]:
    """The live top-level notes with their type and dates; with ``with_history``, the
    last git commit (of a note with no ``modified`` or ``updated`` field) and the file's
    modification time too."""
    history = FileHistory(root, (filedates.GIT,)) if with_history else None
    candidates = []
    for note in found.notes:
        if note.nested or note.status != READ_OK or note.symlink:
            continue
        data, _why = backup.read_plain(root, note.rel)
        if data is None:
            continue
        fields = parse_bytes(data).fields
        modified, updated = fields.get("modified"), fields.get("updated")
        committed, mtime = None, 0.0
        if history is not None:
            if not (cold.day_of(modified) or cold.day_of(updated)):
                committed = history.dates(note.rel).last
            mtime = _mtime(root, note.rel)
        candidates.append(
            ColdCandidate(
                note.rel,
                fields.get("type"),
                updated,
                fields.get("created"),
                modified,
                committed,
                mtime,
            )
        )
    return candidates


def _mtime(root: str, rel: str) -> float:
    """The note file's modification time (0 when it cannot be read)."""
    try:
        return os.lstat(os.path.join(root, *rel.split("/"))).st_mtime
    except OSError:
        return 0.0


def gather(
    root: str, today: str, native: bool, cold_step: bool = False
) -> tuple[StoreFacts, dict[str, bytes]]:
    """The store facts the steps need, and the bytes of every note read (for the backup);
    the notes' git and file dates only when the cold step may run (``cold_step``)."""
    found = walk(root)
    plain = plain_notes(found)
    names = NameTable(found.notes, [n.status != ESCAPES for n in found.notes])
    read: dict[str, bytes] = {}
    resolved: dict[tuple[str, str], str | None] = {}

    def resolve(link: Link) -> str | None:
        key = (link.form, link.target)
        if key not in resolved:
            resolved[key] = _resolve(root, link, plain, names, found)
        return resolved[key]

    def note_text(rel: str) -> str | None:
        if rel not in read:
            data, _why = backup.read_plain(root, rel)
            if data is None:
                return None
            read[rel] = data
        return read[rel].decode("utf-8", "surrogateescape")

    graph: dict[int, tuple[int, ...]] | None = None
    indexed_at_start: set[int] | None = None

    def may_orphan(text: str, mine: int) -> bool:
        """Whether archiving note ``mine`` may leave a note reachable only through it: only
        when it links to a live note the index does not point to itself (archiving never
        takes another note's pointer away), so most notes skip the full reachability."""
        nonlocal indexed_at_start
        assert graph is not None
        if indexed_at_start is None:
            indexed_at_start = archiving.indexed_notes(text, root, found, names)
        return any(target not in indexed_at_start for target in graph.get(mine, ()))

    def archive_edit(text: str, rel: str) -> str | None:
        nonlocal graph
        slug = rel[:-3]
        try:
            identity = archiving.note_identity(root, slug)
            directory = archiving.archive_dir(root)
            archiving.check_destination(root, directory, slug)
        except EngramoryError:
            return None
        if note_text(rel) is None:
            return None
        edit = archiving.pointer_edit(text, root, found, rel, identity, f"{directory}/{rel}", False)
        edited = archiving.apply_edit(text, edit)
        if graph is None:
            graph = archiving.note_links(root, found, names, slug, rel).links
        mine = next(i for i, n in enumerate(found.notes) if n.rel == rel)
        if not may_orphan(text, mine):
            return edited
        before = archiving.unreachable(
            archiving.indexed_notes(text, root, found, names), graph, None
        )
        after = archiving.unreachable(
            archiving.indexed_notes(edited, root, found, names), graph, mine
        )
        return None if after - before else edited  # archive refuses to make orphans

    def archive_many(text: str, rels: list[str], limits: tuple[int, int]) -> tuple[str, list[str]]:
        nonlocal graph
        if graph is None and rels:
            graph = archiving.note_links(root, found, names, rels[0][:-3], rels[0]).links
        checks = (lambda rel: note_text(rel) is not None, archive_edit)
        return _archive_many(text, rels, limits, root, found, names, graph or {}, checks)

    facts = StoreFacts(
        resolve=resolve,
        taken=_taken(root),
        note_text=note_text,
        today=today,
        native=native,
        cold=_cold_candidates(root, found, cold_step),
        archive_edit=archive_edit,
        archive_many=archive_many,
    )
    return facts, read


class _LinesToNotes:
    """One reading of the index for the cold step: each line's links (as
    ``archiving.line_links`` reads them), and the lines that point to each note (by file
    identity for a path, by note number for a wikilink), so that archiving many notes
    costs one pass, not one pass per note."""

    def __init__(self, text: str, root: str, found, names: NameTable) -> None:
        plain = plain_notes(found)
        self.links: dict[int, list[archiving.LineLink]] = {}
        self.by_identity: dict[object, list[int]] = {}
        self.by_number: dict[int, list[int]] = {}
        self.text: dict[int, str] = {}
        for line in classify_index(text):
            links = archiving.line_links(line.links, root, plain, names)
            if not links:
                continue
            self.links[line.number] = links
            self.text[line.number] = line.text
            for form, _target, leads_to in links:
                if form == INLINE and leads_to is not None:
                    self.by_identity.setdefault(leads_to, []).append(line.number)
                elif form == WIKI:
                    for number in leads_to:  # type: ignore[attr-defined]
                        self.by_number.setdefault(number, []).append(line.number)

    def lines_of(self, identity: tuple[int, int], number: int) -> list[int]:
        return sorted({*self.by_identity.get(identity, ()), *self.by_number.get(number, ())})


def _archive_many(
    text: str,
    rels: list[str],
    limits: tuple[int, int],
    root: str,
    found,
    names: NameTable,
    graph: dict[int, tuple[int, ...]],
    checks: tuple[Callable[[str], bool], Callable[[str, str], str | None]],
) -> tuple[str, list[str]]:
    """The cold step's archiving in one pass (see :class:`_LinesToNotes`): each note's
    lines are removed, or rewritten to its archived path where they hold other links,
    exactly as ``engramory archive`` edits them; the index is measured as it goes. A note
    that links to a note the index does not point to is checked the slow, exact way."""
    readable, archive_edit = checks
    bom, rest = notewrite.split_bom(text)
    table = _LinesToNotes(rest, root, found, names)
    sizes = [utf8_size(line) for line in indexedit.split_lines(rest)]
    lines_now, bytes_now = count_lines(text), utf8_size(text)
    number_of = {note.rel: i for i, note in enumerate(found.notes)}
    indexed = archiving.indexed_notes(rest, root, found, names)
    directory = archiving.archive_dir(root) if rels else ""
    if rels and os.path.islink(os.path.join(root, directory)):
        return text, []  # archive refuses a symlinked archive folder: nothing to move into
    archived_names = _casefolded_entries(os.path.join(root, directory))
    edit = archiving.PointerEdit()
    done: list[str] = []
    for rel in rels:
        if lines_now <= limits[0] and bytes_now <= limits[1]:
            break
        slug, mine = rel[:-3], number_of.get(rel)
        identity = _archivable(root, slug, mine, archived_names, readable)
        if identity is None or mine is None:
            continue
        if any(target not in indexed for target in graph.get(mine, ())):
            current = bom + archiving.apply_edit(rest, edit)
            if archive_edit(current, rel) is None:
                continue  # archive would refuse: it would leave orphans
        pointing = [
            (number, *archiving.ours_and_others(table.links[number], identity, mine))
            for number in table.lines_of(identity, mine)
            if number not in edit.removed
        ]
        if not any(ours for _number, ours, _others in pointing):
            continue  # no pointer to it: archiving it would save nothing
        for number, ours, others in pointing:
            if not ours:
                continue
            line = edit.rewritten.get(number, table.text[number])
            if others:
                new = archiving.rewritten_line(line, ours, others, f"{directory}/{rel}")
                if new is not None:
                    bytes_now += utf8_size(new) - utf8_size(line)
                    edit.rewritten[number] = new
            else:
                edit.removed.append(number)
                edit.rewritten.pop(number, None)
                lines_now -= 1
                bytes_now -= sizes[number - 1] + utf8_size(line) - utf8_size(table.text[number])
        archived_names.add((slug + ".md").casefold())
        done.append(rel)
    return bom + archiving.apply_edit(rest, edit), done


def _archivable(
    root: str, slug: str, mine: int | None, archived: set[str], readable: Callable[[str], bool]
) -> tuple[int, int] | None:
    """The note's file identity when ``engramory archive`` would move it (a live, readable,
    plain note with no archived namesake), else ``None``."""
    if mine is None or (slug + ".md").casefold() in archived:
        return None
    try:
        identity = archiving.note_identity(root, slug)
    except EngramoryError:
        return None
    return identity if readable(slug + ".md") else None


def _casefolded_entries(directory: str) -> set[str]:
    """The names in ``directory``, casefolded (empty when it does not exist)."""
    try:
        return {name.casefold() for name in os.listdir(directory)}
    except OSError:
        return set()


def _resolve(root: str, link: Link, plain, names: NameTable, found) -> str | None:
    """The live note a link leads to, as the doctor resolves it."""
    if link.form == INLINE:
        target = resolve_target(root, link.target, plain)
        return target.rel if target.kind == FOUND and target.area == LIVE else None
    if link.form == WIKI:
        bare = link.target[:-3] if link.target.lower().endswith(".md") else link.target
        if "/" in bare or "\\" in bare:
            return None
        hits = names.lookup(bare)
        return found.notes[hits[0]].rel if len(hits) == 1 else None
    return None


# -- writing ------------------------------------------------------------------------


def write_set(
    plan: Plan, raw: bytes, read: dict[str, bytes], archive_folder: str = "archive"
) -> tuple[dict[str, bytes], dict[str, bytes], dict[str, bytes], list[str]]:
    """``(sources, changes, created, removed)`` of a plan, as :func:`backup.apply` takes them."""
    sources: dict[str, bytes] = {}
    changes: dict[str, bytes] = {}
    created: dict[str, bytes] = {}
    removed: list[str] = []
    if plan.after != plan.before:
        sources[INDEX_NAME] = raw
        changes[INDEX_NAME] = notewrite.encode_index(plan.after)
    for step in plan.steps:
        for rel, text in step.created.items():
            created[rel] = text.encode("utf-8", "surrogateescape")
        for rel, text in step.touched.items():
            sources[rel] = read[rel]
            changes[rel] = text.encode("utf-8", "surrogateescape")
    for step in plan.steps:
        for rel in step.archived:
            sources.setdefault(rel, read[rel])
            created[f"{archive_folder}/{rel}"] = changes.pop(rel, sources[rel])
            removed.append(rel)
    return sources, changes, created, removed


# -- output -------------------------------------------------------------------------


def _size(text: str) -> dict[str, int]:
    return {"lines": count_lines(text), "bytes": utf8_size(text)}


def _diff(plan: Plan) -> list[str]:
    """A unified diff of the index (long lines shortened, control characters escaped); past
    DIFF_MAX_LINES lines a one-line summary instead (difflib is not linear)."""
    before, after = plan.before.splitlines(), plan.after.splitlines()
    if max(len(before), len(after)) > DIFF_MAX_LINES:
        return [
            f"(diff of {INDEX_NAME} left out: {len(before)} -> {len(after)} lines, over "
            f"{DIFF_MAX_LINES}; --format json lists the notes each step creates)"
        ]
    lines = difflib.unified_diff(
        before,
        after,
        f"a/{INDEX_NAME}",
        f"b/{INDEX_NAME}",
        lineterm="",
    )
    return [
        printable(line if len(line) <= DIFF_LINE_LIMIT else line[:DIFF_LINE_LIMIT] + " ...")
        for line in lines
    ]


def largest_lines(text: str) -> list[str]:
    """The longest index lines, ``MEMORY.md:N: C characters``."""
    numbered = sorted(enumerate(text.split("\n"), 1), key=lambda item: (-len(item[1]), item[0]))[
        :LARGEST_SHOWN
    ]
    return [f"{INDEX_NAME}:{n}: {len(line)} characters" for n, line in numbered if line]


def report_json(
    root: str,
    plan: Plan,
    target: str,
    applied: bool,
    undo: str | None,
    profile: dict[str, str] | None = None,
) -> str:
    """The JSON of the issue (``profile``: the profile's fields, profile_choice.Choice.as_json)."""
    steps = [
        {
            "step": step.step,
            "lines_saved": step.lines_saved,
            "bytes_saved": step.bytes_saved,
            "created": sorted(step.created),
            "archived": list(step.archived),
            "touched": sorted(step.touched),
        }
        for step in plan.steps
    ]
    return json.dumps(
        {
            "store": root,
            **(profile or {}),
            "before": _size(plan.before),
            "after": _size(plan.after),
            "target": target,
            "steps": steps,
            "applied": applied,
            "undo": undo,
        },
        ensure_ascii=False,
    )


def report_text(plan: Plan, target: str, limits: tuple[int, int], applied: bool) -> list[str]:
    """The plan (or what was done) in words, with the diff."""
    out = [] if applied else _diff(plan)
    verb = "" if applied else "would "
    for step in plan.steps:
        out.append(f"{step.step}: {verb}save {limits_text(step.lines_saved, step.bytes_saved)}")
        out.extend(f"  {verb}create {rel}" for rel in sorted(step.created))
        out.extend(f"  {verb}archive {rel} -> archive/{rel}" for rel in step.archived)
        out.extend(f"  {verb}append to {rel} (## From the index)" for rel in sorted(step.touched))
    before, after = _size(plan.before), _size(plan.after)
    out.append(
        f"{INDEX_NAME}: {limits_text(before['lines'], before['bytes'])} -> "
        f"{limits_text(after['lines'], after['bytes'])} ({target} cap: "
        f"{limits_text(limits[0], limits[1])})"
    )
    if not within(plan.after, limits):
        over = [f"{after['lines'] - limits[0]} lines" if after["lines"] > limits[0] else ""]
        over.append(human_size(after["bytes"] - limits[1]) if after["bytes"] > limits[1] else "")
        out.append(
            f"still over the {target} cap by {', '.join(o for o in over if o)}"
            + ("" if any(s.step == COLD for s in plan.steps) else " (try --archive-cold)")
            + "; the largest lines:"
        )
        out.extend("  " + line for line in largest_lines(plan.after))
    elif not plan.steps:
        out.append(
            f"nothing to compact: {INDEX_NAME} is within the {target} cap, so no step runs "
            "(name one to run it anyway: --step inline, --step long-lines ...)"
        )
    elif not plan.changed:
        out.append(f"nothing to compact: the steps run change nothing (within the {target} cap)")
    return [printable(line) for line in out]


# -- the command --------------------------------------------------------------------


def _plan(
    root: str, args: argparse.Namespace, caps: Caps, native: bool, announce: backup.Announce | None
) -> tuple[Plan, str | None]:
    """The plan, and with ``announce`` (``--apply``) its writing: the backup's ID."""
    limits = target_caps(caps, args.to)
    text, raw = read_index(root, caps)
    named = tuple(args.step or ())
    cold_step = COLD in named or (args.archive_cold and not named and not within(text, limits))
    facts, read = gather(root, date.today().isoformat(), native, cold_step)
    plan = make_plan(text, facts, limits, args.max_index_line, args.archive_cold, named)
    if announce is None or not plan.changed:
        return plan, None
    folder = archiving.archive_dir(root)
    sources, changes, created, removed = write_set(plan, raw, read, folder)
    backup_id = backup.apply(
        root,
        sources,
        changes,
        created=created,
        removed=removed,
        command="compact",
        announce=announce,
    )
    return plan, backup_id


def run(args: argparse.Namespace) -> int:
    """Plan, apply or undo."""
    if args.undo is not None:
        backup.check_backup_id(args.undo)
        if args.apply:
            raise UsageError("--undo puts an earlier --apply back: give it without --apply")
    elif args.force:
        raise UsageError("--force goes with --undo ID")
    location = discovery.locate(args.store)
    root = os.path.realpath(location.root)
    if not stat.S_ISDIR(os.stat(root).st_mode):
        raise UsageError(f"{root} is not a folder: give the store's folder")
    tail = "" if location.discovered else " " + shlex.quote(str(location.root))
    announce = backup.announcer("compact", tail, to_stderr=args.format == "json")
    if args.undo is not None:
        return undo.undo(root, args.undo, "compact", force=args.force, announce=announce)
    caps = caps_from_args(args)
    limits = target_caps(caps, args.to)
    choice = profile_from_args(args, location.root, writes="--apply" if args.apply else "")
    if location.discovered and args.format == "text":
        print(printable(f"store {root} ({location.source})"))
    if args.format == "text":
        say_profile(choice)
    if args.apply:  # planned under the lock, so a writer between plan and write cannot void it
        with locked(Path(root), leave_no_file=True):  # as every writer of the store
            plan, backup_id = _plan(root, args, caps, choice.native, announce)
    else:
        plan, backup_id = _plan(root, args, caps, choice.native, None)
    fits = within(plan.after, limits)
    if args.format == "json":
        say_profile(choice, machine=True)
        applied = args.apply and plan.changed
        print(report_json(root, plan, args.to, applied, backup_id, choice.as_json()))
    else:
        sys.stdout.writelines(
            line + "\n" for line in report_text(plan, args.to, limits, backup_id is not None)
        )
    if args.apply:
        return EXIT_OK if fits else EXIT_FINDINGS
    return EXIT_OK if fits and not plan.changed else EXIT_FINDINGS
