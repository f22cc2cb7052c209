"""``engramory import memoir DIR`` and ``engramory import claude-memory [DIR]``.

Both read a folder of notes (never modifying it), turn each into an Engramory
note (:mod:`engramory.interop.memoir_import`, :mod:`engramory.interop.claude_import`)
and hand them to the import core (:mod:`engramory.interop.importer`), which
plans everything -- collisions, pointers, caps, overflow -- before the first
write. ``engramory import --undo ID`` takes an import back.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import stat
from functools import partial
from pathlib import Path

from engramory.commands.options import (
    add_cap_flags,
    add_format_flag,
    add_profile_flags,
    caps_from_args,
    profile_from_args,
    say_profile,
)
from engramory.interop import claude_import, importer, memoir_import
from engramory.interop.importer import Candidate, ImportPlan, Skip, SourceFolder
from engramory.store import automemory, discovery
from engramory.store.breach import limits_text
from engramory.store.caps import INDEX_NAME, Caps
from engramory.util import fsutil
from engramory.util.errors import EXIT_OK, EngramoryError, InputMissingError, UsageError
from engramory.util.textfmt import plural, printable
from engramory.write import backup, undo
from engramory.write.filedates import FileHistory

HELP = "bring notes in: a memoir store, or Claude Code's own memory folder"
DESCRIPTION = """\
Import notes into an Engramory store (created from templates/MEMORY.md when it
does not exist yet), each with its pointer under its type's heading. The source
folder is only read, never modified.

  memoir DIR          a memoir store (entry files; the legacy dialect too)
  claude-memory [DIR] Claude Code's auto-memory folder (default: this project's)
  --undo ID           take back an import (the ID it printed); refused when a
                      file changed since, unless --force (which backs it up first)

Every refusal writes nothing: an index that the pointers would take over its
hard cap (unless --archive-overflow), a store that is the source folder.

Nothing is made up. A note's dates are its own (created, updated, or the
host's modified), else its file's first and last git commit, else the file's
modification date, never today's; the report says which, per note. Bodies
are copied byte for byte, every frontmatter key keeps its name and value
(originSessionId included). A store the import creates inside a git work
tree gets the .gitignore entry engramory init adds."""
EPILOG = """\
examples:
  engramory import memoir ~/memoir/memory --dry-run
  engramory import memoir ./export --store .engramory-memory --archive-overflow
  engramory import claude-memory
  engramory import claude-memory ~/.claude/projects/-home-ann-app/memory --format json
  engramory import --undo 20261202T031500Z --store .engramory-memory

exit codes: 0 imported (or would be, with --dry-run), 1 refused (nothing
written), 64 usage error, 66 source folder missing or unreadable"""

MEMOIR_DESCRIPTION = """\
Read a memoir store (memoir format v0.1, data schema 1): canonical entries and
the legacy dialect (metadata.type, originSessionId, bare files named from their
# heading, imported as reference). lesson and preference -> feedback, decision,
goal and next_action -> project, fact -> reference; an entry written by
`engramory export memoir` (engramory_type) comes back as the note it was:
the same keys, values, dates (none added) and body bytes, so exporting it
again gives the same files.
Never brought back: hidden decisions, [purged] entries, goals and next actions
done (done_at not earlier than set_on/added). Unknown types are listed; an
entry or session.json with a schema version newer than 1 is not interpreted.
session.json is otherwise ignored: Engramory keeps no separate working set.
Lists and mappings become one-line values (tags: a, b; origin.session_id ->
origin_session_id); a legacy originSessionId keeps its name.
Name collisions with notes of the store (live or archived, any case) are
skipped and listed, never overwritten."""
MEMOIR_EPILOG = """\
examples:
  engramory import memoir ~/memoir/memory --dry-run
  engramory import memoir ./export --store .engramory-memory --archive-overflow --format json
  engramory import memoir ./export --store ~/crm-memory --native   # the target store's profile"""

CLAUDE_DESCRIPTION = """\
Adopt Claude Code's auto-memory folder (default: the current project's, under
$CLAUDE_CONFIG_DIR or ~/.claude, projects/<encoded project path>/memory/):
each note copied with metadata.type flattened to type, originSessionId,
modified and every other key kept (engramory trace --show opens that
session), the body byte for byte, created/updated from the note's modified
when it has no dates (the host records none), else the file's first and
last git commit, else its modification date (never today's: then none), and
a pointer per note (the host index's title and hook kept). The folder is
never modified. Refused when the store is that folder itself (adopted
already with engramory init claude --native)."""
CLAUDE_EPILOG = """\
examples:
  engramory import claude-memory --dry-run
  engramory import claude-memory ~/.claude/projects/-home-ann-app/memory \\
      --store .engramory-memory"""

SESSION_NAME = "session.json"
SESSION_LIMIT = 4 * 1024 * 1024
MEMOIR_SYNTAX = "syntax"
NEXT_STEP = "engramory doctor"


def _add_common(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: ``import --store PATH memoir DIR`` sets the store on import's own parser, and a
    # default here would overwrite it with None when the action's parser runs.
    parser.add_argument(
        "--store",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="the store (default: found as for check, else created)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="say what would be done, write nothing"
    )
    parser.add_argument(
        "--archive-overflow",
        action="store_true",
        help="when the pointers would pass the hard cap: the most recently updated notes get "
        "pointers up to the soft cap, the rest go to archive/ unindexed",
    )
    parser.add_argument(
        "--skip-secrets",
        action="store_true",
        help="leave out a note holding a secret's value (default: write it with each value "
        "replaced by [redacted: <detector>])",
    )
    add_format_flag(parser)
    add_profile_flags(parser)
    add_cap_flags(parser)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``import`` subcommand and its actions."""
    parser = subparsers.add_parser(
        "import",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--undo", metavar="ID", help="take back the import that printed ID")
    parser.add_argument(
        "--store", metavar="PATH", help="the store (before or after ACTION; with --undo: the store)"
    )
    parser.add_argument(
        "--force", action="store_true", help="with --undo: even over later changes (backed up)"
    )
    parser.set_defaults(run=run_undo)
    actions = parser.add_subparsers(title="actions", dest="action", metavar="ACTION")
    memoir = actions.add_parser(
        "memoir",
        help="a memoir store",
        description=MEMOIR_DESCRIPTION,
        epilog=MEMOIR_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    memoir.add_argument("folder", metavar="DIR", help="the memoir store (its entry files)")
    _add_common(memoir)
    memoir.set_defaults(run=run_memoir)
    claude = actions.add_parser(
        "claude-memory",
        help="Claude Code's auto-memory folder",
        description=CLAUDE_DESCRIPTION,
        epilog=CLAUDE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    claude.add_argument(
        "folder", metavar="DIR", nargs="?", help="the folder (default: this project's)"
    )
    _add_common(claude)
    claude.set_defaults(run=run_claude)


def store_root(explicit: str | None) -> tuple[str, str]:
    """``(store, how it was found)``. An explicit path that does not exist, or no store found
    (``$ENGRAMORY_MEMORY_ROOT`` unset), means a new store: there, else ``.engramory-memory/``
    at the project's top. Claude Code's folder is never chosen by discovery here."""
    if explicit is not None:
        path = Path(explicit)
        if path.name == INDEX_NAME and not path.is_dir():
            path = path.parent
        if not os.path.lexists(path):
            return os.path.realpath(path), "a new store"
        if not path.is_dir():
            raise InputMissingError(f"{explicit} is not a folder: give the store's folder")
        try:
            return os.path.realpath(discovery.locate(str(path)).root), discovery.ARGUMENT
        except InputMissingError:
            return os.path.realpath(path), "a new store in an existing folder"
    try:
        location = discovery.locate(None)
    except InputMissingError:
        if os.environ.get(discovery.ENV_MEMORY_ROOT, "").strip():
            raise
    else:
        if not automemory.is_auto_memory(location.root):
            return os.path.realpath(location.root), location.source
    root = discovery.project_root(Path.cwd()) / discovery.DEFAULT_STORE_DIR
    return os.path.realpath(root), "a new store at the project's top"


def make_plan(
    args: argparse.Namespace,
    root: str,
    candidates: list[Candidate],
    skipped: list[Skip],
    caps: Caps,
) -> ImportPlan:
    """The import's plan (raises on a refusal: nothing written)."""
    index, raw = importer.read_index(root, caps) if os.path.isdir(root) else (None, b"")
    return importer.make_plan(
        root,
        candidates,
        skipped,
        index,
        raw,
        caps,
        bool(args.archive_overflow),
        bool(getattr(args, "skip_secrets", False)),
    )


def memoir_candidates(
    folder: SourceFolder, history: FileHistory
) -> tuple[list[Candidate], list[Skip]]:
    """Every entry file of a memoir store mapped (or skipped); ``history`` dates the entry
    files that carry no date of their own."""
    from engramory.interop.memoir_yaml import (  # noqa: PLC0415 - only for memoir
        MemoirSyntaxError,
        parse_frontmatter,
        split_entry,
    )

    candidates: list[Candidate] = []
    skipped = list(folder.skipped)
    if folder.index is not None:
        skipped.append(Skip(INDEX_NAME, importer.INDEX_FILE, "an index, not an entry"))
    for source in folder.files:
        try:
            head, body, _line = split_entry(source.text)
            meta = None if head is None else parse_frontmatter(head)
        except MemoirSyntaxError as exc:
            skipped.append(Skip(source.name, MEMOIR_SYNTAX, f"line {exc.line}: {exc}"))
            continue
        mapped = memoir_import.map_entry(
            source.stem, meta, body, partial(history.dates, source.name), source.name
        )
        if isinstance(mapped, Skip):
            skipped.append(mapped)
        else:
            candidates.append(mapped)
    return candidates, skipped


def session_state(folder: str) -> tuple[str | None, bool]:
    """What to say about the store's ``session.json`` (``None``: there is none), and whether
    its version is newer than this reader understands. It is never modified."""
    path = os.path.join(folder, SESSION_NAME)
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None, False
    if not stat.S_ISREG(mode):
        return f"{SESSION_NAME}: not read (a symlink or not a regular file)", False
    try:
        data = json.loads(fsutil.read_bounded(path, SESSION_LIMIT).decode("utf-8"))
    except (OSError, ValueError):
        return (
            f"{SESSION_NAME} could not be parsed: quarantined (left as it is in the source, "
            "not read)",
            False,
        )
    version = data.get("version") if isinstance(data, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > 1:
        return f"{SESSION_NAME} has version {version}: not interpreted", True
    return (
        f"{SESSION_NAME} ignored: Engramory keeps no separate working set (goals and next "
        "actions come in as project notes from their entry files)",
        False,
    )


def run_memoir(args: argparse.Namespace) -> int:
    """Import a memoir store."""
    caps = caps_from_args(args)
    source = importer.source_folder(args.folder)
    root, how = store_root(args.store)
    if root == source:
        raise EngramoryError(
            f"the store {root} is the memoir folder to import: give another --store"
        )
    folder = importer.read_folder(source)
    candidates, skipped = memoir_candidates(folder, FileHistory(source))
    session, newer_session = session_state(source)
    plan = make_plan(args, root, candidates, skipped, caps)
    newer = sum(1 for s in plan.skipped if s.reason == memoir_import.NEWER_VERSION)
    if newer or newer_session:
        what = [plural(newer, "entry", "entries")] if newer else []
        what += [SESSION_NAME] if newer_session else []
        plan.warnings.insert(
            0,
            f"{' and '.join(what)} written by a newer memoir (schema version over 1): not "
            "interpreted; upgrade Engramory to read them",
        )
    return finish(args, plan, how, [session] if session else [])


def claude_folder(explicit: str | None) -> str:
    """The folder to adopt: the one given, else this project's auto-memory folder."""
    if explicit is not None:
        return importer.source_folder(explicit)
    project = discovery.project_root(Path.cwd())
    resolution = automemory.resolve(project)
    if not resolution.exists:
        raise InputMissingError(
            f"Claude Code's auto-memory folder for {project} is not there ({resolution.path}): "
            "give the folder as DIR"
        )
    return importer.source_folder(str(resolution.path))


def run_claude(args: argparse.Namespace) -> int:
    """Adopt a Claude Code auto-memory folder."""
    caps = caps_from_args(args)
    source = claude_folder(args.folder)
    root, how = store_root(args.store)
    if root == source:
        raise EngramoryError(
            f"the store {root} is the folder to import: it was adopted as the store already "
            "(engramory init claude --native); nothing to import. Give another --store to copy it"
        )
    folder = importer.read_folder(source)
    hooks = claude_import.index_hooks(folder.index.text) if folder.index is not None else {}
    candidates: list[Candidate] = []
    skipped = list(folder.skipped)
    history = FileHistory(source)
    for note in folder.files:
        mapped = claude_import.map_note(note, hooks, partial(history.dates, note.name))
        if isinstance(mapped, Skip):
            skipped.append(mapped)
        else:
            candidates.append(mapped)
    plan = make_plan(args, root, candidates, skipped, caps)
    return finish(args, plan, how, [f"source {source}: read only, not modified"])


def note_tally(plan: ImportPlan) -> list[str]:
    """What the readers did to the notes written, once per kind with a count."""
    tally = importer.counts(note for p in plan.live + plan.archived for note in p.candidate.notes)
    return [f"{plural(n, 'note')}: {what}" for what, n in tally.items()]


def finish(args: argparse.Namespace, plan: ImportPlan, how: str, said: list[str]) -> int:
    """Write the plan (unless --dry-run), then the new store's ignore entry, and report it,
    with the target store's profile (as it was before the import)."""
    choice = profile_from_args(args, plan.root, writes="" if args.dry_run else "the import")
    if args.format == "json":
        say_profile(choice, machine=True)
    announce = backup.announcer(
        "import", f" --store {shlex.quote(plan.root)}", to_stderr=args.format == "json"
    )
    backup_id = None if args.dry_run else importer.execute(plan, announce)
    wrote = bool(plan.live or plan.archived) if args.dry_run else backup_id is not None
    if plan.ignore is not None and wrote:
        plan.ignored = importer.add_ignore(plan.ignore, write=not args.dry_run)
    said = said + note_tally(plan)
    if args.format == "json":
        data = importer.summary(plan)
        data.update(
            {
                "dry_run": bool(args.dry_run),
                "backup": backup_id,
                "found": how,
                **choice.as_json(),
                "notes_said": said,
                "next": f"{NEXT_STEP} {plan.root}",
            }
        )
        print(json.dumps(data, ensure_ascii=False))
        return EXIT_OK
    lines = report_lines(plan, how, said, bool(args.dry_run))
    for line in [*lines[:1], choice.line(), *lines[1:]]:
        print(printable(line))
    return EXIT_OK


def report_lines(plan: ImportPlan, how: str, said: list[str], dry_run: bool) -> list[str]:
    """The text report: store, imported per type, archived, skipped per reason, next step (the
    undo command was printed before the first write)."""
    verb = "would import" if dry_run else "imported"
    out = [f"store {plan.root} ({how})"]
    out.append(f"{verb} {importer.type_counts_text(plan)}")
    if plan.archived:
        out.append(
            f"{'would put' if dry_run else 'put'} {plural(len(plan.archived), 'note')} in "
            "archive/ without a pointer (over the soft cap, or archived in the source):"
        )
        out += [f"  {p.rel}" for p in plan.archived]
    if plan.skipped:
        reasons = importer.counts(s.reason for s in plan.skipped)
        out.append(
            f"skipped {len(plan.skipped)}: " + ", ".join(f"{n} {r}" for r, n in reasons.items())
        )
        out += [
            f"  {s.source}: {s.reason}" + (f" ({s.detail})" if s.detail else "")
            for s in plan.skipped
        ]
    out += [f"warning: {w}" for w in plan.warnings]
    out += said
    out += importer.redaction_lines(plan)
    out += importer.dates_lines(plan)
    if plan.ignored:
        out.append(f".gitignore: {plan.ignored}")
    size = limits_text(plan.lines, plan.size)
    out.append(f"{INDEX_NAME} {'would be' if dry_run else 'now'} {size}")
    if dry_run:
        out.append("nothing written: --dry-run")
    out.append(f"next: {NEXT_STEP} {plan.root}")
    return out


def run_undo(args: argparse.Namespace) -> int:
    """``import --undo ID``: take back an import (without --undo: the usage, exit 64)."""
    if args.undo is None:
        raise UsageError("give an action: memoir DIR or claude-memory [DIR] (or --undo ID)")
    backup.check_backup_id(args.undo)
    root, _how = store_root(args.store)
    if not os.path.isdir(root):
        raise InputMissingError(f"{root}: no store there")
    announce = backup.announcer("import", f" --store {shlex.quote(root)}")
    return undo.undo(root, args.undo, "import", force=args.force, announce=announce)
