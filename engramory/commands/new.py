"""``engramory new TYPE SLUG --description TEXT``: write a note and its index pointer.

Every check happens before the first write: the arguments (64), the store,
a note of that slug live or archived in any letter case, the index's hard
caps, secrets, and the doctor's own note rules. Then the note is written and
the index after it, each atomically; when the index cannot be written the
note is removed again.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from engramory import discovery, fsutil, secrets
from engramory.breach import limits_text
from engramory.caps import INDEX_NAME, Caps, count_lines, utf8_size
from engramory.commands.options import (
    add_cap_flags,
    add_format_flag,
    add_profile_flags,
    caps_from_args,
    profile_from_args,
    say_profile,
)
from engramory.continuity.state import locked
from engramory.doctor.model import ERROR, WARNING
from engramory.doctor.profiles import CLAUDE_NATIVE, ENGRAMORY
from engramory.doctor.rules.duplicates import likeness, text_parts
from engramory.errors import EXIT_OK, EngramoryError, InputMissingError, UsageError
from engramory.frontmatter import NOTE_TYPES, TYPES_TEXT, parse_bytes
from engramory.secrets import allow
from engramory.store import NOTE_READ_LIMIT, READ_OK, read_file, walk
from engramory.textfmt import excerpt, human_size, printable
from engramory.write import notewrite
from engramory.write.indexedit import pointer_line
from engramory.write.pointertext import title_from_slug

HELP = "write a new note and its index pointer, with the caps and checks held"
DESCRIPTION = f"""\
Write <store>/SLUG.md (frontmatter name, description, type, scope when given,
created and updated set to today; then the body; then **Why:** and **How to
apply:** for feedback and project notes) and add the pointer line
  - [Title](SLUG.md) — DESCRIPTION
at the end of the index's ## TYPE section (the section is added at the end
when missing). The note is written first and the index second, each
atomically; if the index cannot be written the note is removed again.

Refuses, writing nothing: TYPE not one of {TYPES_TEXT};
SLUG not lower-case letters, digits and dashes (at most 80); an
empty description; --why/--how missing for feedback and project or given for
the other two (all exit 64); a note of that slug already in the store or its
archive/, in any letter case; an index that would go over a hard cap; a
secret's value in the text (all exit 1).

Before writing it lists up to 5 live notes whose descriptions are alike
(word overlap >= 0.5) as "update one of these instead?", and prints as
warnings what the doctor would say about the new note (a relative date, a
near-duplicate); the note is still written.

The profile (--profile, --native, else detected as for engramory doctor) is
named with why after the store (on stderr with --format json, and as
"profile" and "profile_reason" in it). In claude-native the note's name is
its title (--title, else the slug's words), as Claude Code writes names;
created and updated are still set, the note being new."""
EPILOG = """\
examples:
  engramory new feedback test-style --description "How tests are written here" \\
      --why "the team reviews tests first" --how "one behaviour per test" --scope repo
  engramory new user role --description "The user's role and expertise" --body "Backend dev."
  engramory new reference dashboards --description "Where the dashboards are" --body-file -
  engramory new project migration --description "DB migration status" --why "..." \\
      --how "..." --dry-run
  engramory new user editor --description "Editor setup" --format json
  engramory new user role --description "The user's role" --body "..." --native"""

WHY_LABEL = "--why"
HOW_LABEL = "--how"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``new`` subcommand."""
    parser = subparsers.add_parser(
        "new",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("note_type", metavar="TYPE", help=f"one of: {TYPES_TEXT}")
    parser.add_argument("slug", metavar="SLUG", help="the file name without .md (a-z, 0-9, -)")
    parser.add_argument("--description", required=True, help="the one-line hook (required)")
    parser.add_argument("--store", metavar="PATH", help="the store (default: found as for check)")
    parser.add_argument("--scope", choices=notewrite.SCOPES, help="global or repo")
    parser.add_argument(
        "--title",
        help="the pointer's title (default: the slug, dashes as spaces, capitalised, "
        "acronyms such as API in capitals)",
    )
    parser.add_argument("--why", help="why it matters (required for feedback and project)")
    parser.add_argument("--how", help="how to apply it (required for feedback and project)")
    body = parser.add_mutually_exclusive_group()
    body.add_argument("--body", help="the note's body text")
    body.add_argument("--body-file", metavar="PATH", help="read the body from PATH ('-': stdin)")
    parser.add_argument("--dry-run", action="store_true", help="print what would be written")
    add_format_flag(parser)
    add_profile_flags(parser)
    add_cap_flags(parser)
    parser.set_defaults(run=run)


@dataclass(frozen=True)
class NoteRequest:
    """What ``new`` is asked to write, as plain values (from the command line or a tool call)."""

    note_type: str
    slug: str
    description: str
    scope: str | None = None
    title: str | None = None
    why: str | None = None
    how: str | None = None
    native: bool = False  # the claude-native profile: the name is the title, as the host writes


def request_from_args(args: argparse.Namespace, native: bool = False) -> NoteRequest:
    """The request the command line makes (``native``: the store's profile is claude-native)."""
    return NoteRequest(
        args.note_type,
        args.slug,
        args.description,
        args.scope,
        args.title,
        args.why,
        args.how,
        native,
    )


def check_arguments(args: argparse.Namespace) -> None:
    """Every usage refusal (64), before anything is read."""
    check_request(request_from_args(args))


def check_request(request: NoteRequest, labels: dict[str, str] | None = None) -> None:
    """Every usage refusal of a request (raised as :class:`UsageError`); ``labels`` renames
    the options in messages (``{"--why": "why"}`` for a tool's argument names)."""
    name = {WHY_LABEL: WHY_LABEL, HOW_LABEL: HOW_LABEL, "--description": "--description",
            "--title": "--title", "TYPE": "TYPE", **(labels or {})}  # fmt: skip
    if request.note_type not in NOTE_TYPES:
        raise UsageError(f"{name['TYPE']} {request.note_type!r} is not one of {TYPES_TEXT}")
    if request.scope is not None and request.scope not in notewrite.SCOPES:
        raise UsageError(f"scope {request.scope!r} is not one of {', '.join(notewrite.SCOPES)}")
    problem = notewrite.slug_problem(request.slug)
    if problem:
        raise UsageError(problem)
    if not request.description.strip():
        raise UsageError(
            f"{name['--description']} is empty: give the one-line hook that says when to open it"
        )
    needs = request.note_type in notewrite.TYPES_NEEDING_WHY
    for label, value in ((WHY_LABEL, request.why), (HOW_LABEL, request.how)):
        if needs and (value is None or not value.strip()):
            raise UsageError(f"a {request.note_type} note needs {name[label]} TEXT")
        if not needs and value is not None:
            raise UsageError(
                f"{name[label]} is for feedback and project notes, not {request.note_type}"
            )
    for label, value in (
        ("--description", request.description),
        ("--title", request.title),
        (WHY_LABEL, request.why),
        (HOW_LABEL, request.how),
    ):
        problem = notewrite.one_line_problem(name[label], value) if value is not None else None
        if problem:
            raise UsageError(problem)


def read_body(args: argparse.Namespace) -> str:
    """The body from --body, --body-file PATH or stdin (``-``), bounded."""
    if args.body is not None:
        return args.body.replace("\r\n", "\n")
    if args.body_file is None:
        return ""
    if args.body_file == "-":
        data = sys.stdin.buffer.read(NOTE_READ_LIMIT + 1)
        if len(data) > NOTE_READ_LIMIT:
            raise EngramoryError(f"the body on stdin is over {NOTE_READ_LIMIT} bytes")
    else:
        try:
            data = fsutil.read_bounded(args.body_file, NOTE_READ_LIMIT)
        except fsutil.FileTooLargeError:
            raise EngramoryError(
                f"--body-file {args.body_file}: over {NOTE_READ_LIMIT} bytes"
            ) from None
        except OSError as exc:
            raise InputMissingError(
                f"--body-file {args.body_file}: {fsutil.os_error_text(exc)}"
            ) from None
    return data.decode("utf-8", "replace").replace("\r\n", "\n")


@dataclass
class IndexState:
    """The index as it is on disk: its path (resolved), text and mode (``None``: no file)."""

    path: str
    text: str
    exists: bool


def read_index_for_edit(root: str, caps: Caps) -> IndexState:
    """The index to edit, read so that writing it back changes no byte it does not touch.

    Refuses (exit 1) an index that leads out of the store, is not a regular
    file, or is too large to parse; no index at all means a new, empty one.
    """
    path = os.path.join(root, INDEX_NAME)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return IndexState(path, "", False)
    except OSError as exc:
        raise InputMissingError(f"{path}: {fsutil.os_error_text(exc)}") from None
    if stat.S_ISLNK(info.st_mode):
        if fsutil.escapes(path, root) is not None:
            raise EngramoryError(f"{path} is a symlink leading out of the store: not written")
        path = fsutil.resolve(path)
    try:
        raw = fsutil.read_bounded(path, caps.read_limit())
    except fsutil.FileTooLargeError:
        raise EngramoryError(
            f"{path} is too large to edit: compact it first (engramory check {root})"
        ) from None
    except fsutil.NotRegularFileError:
        raise EngramoryError(f"{path} is not a regular file: make it one first") from None
    except OSError as exc:
        raise InputMissingError(f"{path}: {fsutil.os_error_text(exc)}") from None
    return IndexState(path, notewrite.decode_index(raw), True)


def existing_slug(root: str, slug: str) -> str | None:
    """The store-relative path of a note (live, archived, or any entry at ``SLUG.md``)
    whose name equals ``slug`` in any letter case, else ``None``."""
    if os.path.lexists(os.path.join(root, slug + ".md")):
        return slug + ".md"
    wanted = (slug + ".md").casefold()
    found = walk(root)
    for rel in [note.rel for note in found.notes] + list(found.archived):
        if rel.rsplit("/", 1)[-1].casefold() == wanted:
            return rel
    try:
        names = os.listdir(root)
    except OSError:
        names = []
    for name in names:
        if name.casefold() == wanted:
            return name
    return None


@dataclass
class Neighbour:
    """A live note read for the similarity list and the near-duplicate check."""

    rel: str
    description: str
    data: bytes


def live_notes(root: str) -> list[Neighbour]:
    """Every readable live note of the store (bounded reads, never outside it)."""
    found = []
    for note in walk(root).notes:
        if note.status != READ_OK:
            continue
        read = read_file(note.path(root), NOTE_READ_LIMIT)
        if read.status != READ_OK or read.data is None:
            continue
        description = parse_bytes(read.data).fields.get("description", "")
        found.append(Neighbour(note.rel, description, read.data))
    return found


def near_duplicates(data: bytes, neighbours: list[Neighbour]) -> list[str]:
    """The live notes the doctor's ``near-duplicate`` rule would pair with the new note."""
    mine = text_parts(data)
    return [n.rel for n in neighbours if likeness(mine, text_parts(n.data)) is not None]


def over_cap(text: str, caps: Caps) -> tuple[int, int, list[str]]:
    """``(lines, bytes, reasons)`` of an index text; ``reasons`` says by how much a hard
    cap would be passed (empty when within)."""
    lines, size = count_lines(text), utf8_size(text)
    reasons = []
    if lines > caps.hard_lines:
        reasons.append(
            f"{lines} lines, {lines - caps.hard_lines} over the cap of {caps.hard_lines}"
        )
    if size > caps.hard_bytes:
        reasons.append(
            f"{human_size(size)}, {human_size(size - caps.hard_bytes)} over the cap of "
            f"{human_size(caps.hard_bytes)}"
        )
    return lines, size, reasons


def refuse_secrets(texts: dict[str, str], root: str | None = None) -> None:
    """Exit 1 when any text holds a credential's value (only its kind and shown form said);
    a value on the store's allow list (``root``'s ``.engramory/allow-secrets``) passes."""
    allowed = allow.load(root) if root is not None else None
    for where, text in texts.items():
        found = secrets.find(text, allowed)
        if found:
            first = found[0]
            raise EngramoryError(
                f"{where} holds {first.title} ({first.shown}, line {first.line}): keep secrets "
                "out of memory; write where the secret lives instead (a vault path, ${VAR})"
            )


@dataclass
class Plan:
    """Everything ``new`` will write and say."""

    root: str
    note_path: str
    note_rel: str
    note_data: bytes
    index: IndexState
    new_index: str
    pointer: str
    lines: int
    size: int
    similar: list[tuple[str, float]]
    warnings: list[str]


def make_plan(request: NoteRequest, body: str, root: str, caps: Caps) -> Plan:
    """Decide what to write; raise on any refusal (nothing written yet)."""
    rel = request.slug + ".md"
    clash = existing_slug(root, request.slug)
    if clash is not None:
        raise EngramoryError(
            f"a note named {printable(clash)} already exists in {root}: update it, or pick another "
            "slug"
        )
    note = notewrite.NewNote(
        request.note_type,
        request.slug,
        request.description,
        request.scope,
        body,
        request.why,
        request.how,
    )
    title = request.title.strip() if request.title and request.title.strip() else None
    title = title or title_from_slug(request.slug)
    if request.native:
        note = replace(note, name=title)
    today = date.today()
    text = notewrite.note_text(note, today)
    data = text.encode("utf-8")
    pointer = pointer_line(title, rel, note.description)
    index = read_index_for_edit(root, caps)
    new_index = notewrite.index_with_pointer(index.text, request.note_type, pointer)
    lines, size, reasons = over_cap(new_index, caps)
    if reasons:
        raise EngramoryError(
            f"adding the pointer would take {INDEX_NAME} over its hard cap ({'; '.join(reasons)}): "
            f"compact the index first (merge or archive notes: engramory archive SLUG), then retry"
        )
    refuse_secrets({rel: text, f"the pointer line for {INDEX_NAME}": pointer}, root)
    profile = CLAUDE_NATIVE if request.native else ENGRAMORY
    issues = notewrite.note_issues(rel, data, today, profile, allow.load(root).prefixes)
    errors = [i for i in issues if i.severity == ERROR]
    if errors:
        raise EngramoryError(
            f"{rel} would not pass the doctor: "
            + "; ".join(f"{excerpt(i.message, 200)} [{i.rule}]" for i in errors)
        )
    warnings = [
        f"{rel}{'' if i.line is None else f':{i.line}'}: {i.message} [{i.rule}]"
        for i in issues
        if i.severity == WARNING
    ]
    neighbours = live_notes(root)
    warnings += [
        f"{rel}: nearly the same as {other}: merge them instead [near-duplicate]"
        for other in near_duplicates(data, neighbours)
    ]
    if len(pointer) > 200:
        warnings.append(
            f"{INDEX_NAME}: the pointer line is {len(pointer)} characters (over 200): "
            "shorten the description [index-line-too-long]"
        )
    similar = notewrite.similar(note.description, ((n.rel, n.description) for n in neighbours))
    return Plan(
        root,
        os.path.join(root, rel),
        rel,
        data,
        index,
        new_index,
        pointer,
        lines,
        size,
        similar,
        warnings,
    )


def index_now(index: IndexState) -> tuple[bool, str | None]:
    """``(exists, text)`` of the index as it is on disk now (``None``: unreadable)."""
    try:
        raw = fsutil.read_bounded(index.path, len(notewrite.encode_index(index.text)) + 1)
    except FileNotFoundError:
        return False, ""
    except OSError:  # too large now, or unreadable: not what was planned
        return True, None
    return True, notewrite.decode_index(raw)


def ensure_unchanged(index: IndexState) -> None:
    """Exit 1 when the index is no longer what the plan was made from: writing the
    planned text would lose an edit made meanwhile."""
    if index_now(index) != (index.exists, index.text):
        raise EngramoryError(f"{index.path} changed meanwhile: nothing written; retry")


def write(plan: Plan) -> None:
    """The note (new file, atomically), then the index; the note removed if the index fails."""
    if os.path.lexists(plan.note_path):  # created by someone else since the checks
        raise EngramoryError(f"{plan.note_path} appeared meanwhile: nothing written; retry")
    ensure_unchanged(plan.index)
    try:
        fsutil.write_atomic(plan.note_path, plan.note_data)
    except OSError as exc:
        raise EngramoryError(
            f"{plan.note_path}: cannot write it ({fsutil.os_error_text(exc)}); nothing changed"
        ) from None
    try:
        fsutil.write_atomic(plan.index.path, notewrite.encode_index(plan.new_index))
    except OSError as exc:
        try:
            os.unlink(plan.note_path)
        except OSError:
            pass
        raise EngramoryError(
            f"{plan.index.path}: cannot write it ({fsutil.os_error_text(exc)}); "
            f"{plan.note_rel} was removed again, nothing changed"
        ) from None


def still_valid(plan: Plan) -> bool:
    """Whether the plan still holds: the index as it was read and no file at the note's path."""
    return not os.path.lexists(plan.note_path) and index_now(plan.index) == (
        plan.index.exists,
        plan.index.text,
    )


def create(request: NoteRequest, body: str, root: str, caps: Caps, dry_run: bool = False) -> Plan:
    """Check, plan and (unless ``dry_run``) write the note and its pointer; the plan made.

    The refusals come from a plan made without the lock (a refused write takes none);
    then, under the store's state lock, the plan is checked against the disk again and
    made anew when another writer changed the index meanwhile, so that two writers
    (CLI or MCP server) never lose each other's pointer.
    """
    check_request(request)
    plan = make_plan(request, body, root, caps)
    if dry_run:
        return plan
    with locked(Path(root), leave_no_file=True):
        if not still_valid(plan):
            plan = make_plan(request, body, root, caps)
        write(plan)
    return plan


def report_text(plan: Plan, dry_run: bool) -> list[str]:
    """The text report."""
    out = []
    if plan.similar:
        out.append("update one of these instead?")
        out += [f"  {rel} (word overlap {score:.2f})" for rel, score in plan.similar]
    out += [f"warning: {w}" for w in plan.warnings]
    size = f"{INDEX_NAME} now {limits_text(plan.lines, plan.size)}"
    if dry_run:
        out.append(f"would write {plan.note_path}:")
        out += ["  " + line for line in plan.note_data.decode("utf-8").split("\n")[:-1]]
        out.append(f"would add to {INDEX_NAME}: {plan.pointer}")
        out.append(f"({size.replace('now', 'would be')}; nothing written: --dry-run)")
    else:
        out.append(f"created {plan.note_path}")
        out.append(f"added to {INDEX_NAME}: {plan.pointer} ({size})")
    return out


def run(args: argparse.Namespace) -> int:
    """Create the note; exit 0 when written (or would be, with --dry-run)."""
    check_arguments(args)
    caps = caps_from_args(args)
    body = read_body(args)
    location = discovery.locate(args.store)
    root = os.path.realpath(location.root)
    choice = profile_from_args(args, location.root)
    if args.format == "json":
        say_profile(choice, machine=True)
    plan = create(request_from_args(args, choice.native), body, root, caps, args.dry_run)
    if args.format == "json":
        print(
            json.dumps(
                {
                    **choice.as_json(),
                    "created": plan.note_rel,
                    "path": plan.note_path,
                    "dry_run": bool(args.dry_run),
                    "index": {"lines": plan.lines, "bytes": plan.size},
                    "similar": [{"path": rel, "score": round(s, 3)} for rel, s in plan.similar],
                    "warnings": plan.warnings,
                },
                ensure_ascii=False,
            )
        )
    else:
        if location.discovered:
            print(printable(f"store {root} ({location.source})"))
        say_profile(choice)
        for line in report_text(plan, args.dry_run):
            print(printable(line))
    return EXIT_OK
