"""``engramory new TYPE SLUG --description TEXT``: write a note and its index pointer.

The command reads the arguments and the body, finds the store and prints the
report; :mod:`engramory.write.newnote` plans and writes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from engramory.commands.options import (
    add_cap_flags,
    add_format_flag,
    add_profile_flags,
    caps_from_args,
    profile_from_args,
    say_profile,
)
from engramory.store import discovery
from engramory.store.disk import NOTE_READ_LIMIT
from engramory.store.frontmatter import TYPES_TEXT
from engramory.util import fsutil
from engramory.util.errors import EXIT_OK, EngramoryError, InputMissingError
from engramory.util.textfmt import printable
from engramory.write import notewrite
from engramory.write.newnote import NoteRequest, check_request, create, report_text

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


def run(args: argparse.Namespace) -> int:
    """Create the note; exit 0 when written (or would be, with --dry-run)."""
    check_arguments(args)
    caps = caps_from_args(args)
    body = read_body(args)
    location = discovery.locate(args.store)
    root = os.path.realpath(location.root)
    choice = profile_from_args(args, location.root, writes="a new note")
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
