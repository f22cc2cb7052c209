"""``engramory archive SLUG``: retire a note to ``archive/`` and take it out of the index.

The command finds the store and prints the report; :mod:`engramory.write.archiving`
plans the move and the pointer edit and carries them out.
"""

from __future__ import annotations

import argparse
import os

from engramory.commands.options import (
    add_cap_flags,
    add_profile_flags,
    caps_from_args,
    profile_from_args,
)
from engramory.store import discovery
from engramory.util.errors import EXIT_OK
from engramory.util.textfmt import printable
from engramory.write.archiving import archive, bare_slug, report_lines

HELP = "move a note to archive/ and remove (or redirect) its index pointers"


DESCRIPTION = """\
Move <store>/SLUG.md to archive/SLUG.md (creating archive/) and remove every
index line that points to it, found as the doctor resolves pointers
(slug.md, ./slug.md, [[slug]], ...). A line that also points to other notes
is kept, with its link to this note rewritten to archive/SLUG.md. With
--keep-pointer every pointer is rewritten to archive/SLUG.md instead (a
retired-topic listing; a [[slug]] stays as it is, the doctor resolves it to
the archived note). A "## TYPE" heading as `engramory new` writes it that is
left with nothing under it is removed too (with the blank line new put before
it), so new then archive of one note gives back the index byte for byte.
Prints the notes that still link to it with [[SLUG]].

The move and the index edit are each atomic; when the index edit fails the
note is moved back. Exit 64 when SLUG is not a bare slug (a '/', '..', an
absolute path), before anything else is looked at; 66 when the note does not
exist; 1 when archive/SLUG.md already exists in any letter case, when the
note is a symlink, or when the edit would take the index over a hard cap.

The store's profile (--profile, --native, else detected as for engramory
doctor) is named with why; in every profile the note's bytes move unchanged."""


EPILOG = """\
examples:
  engramory archive old-migration
  engramory archive old-migration --keep-pointer
  engramory archive old-migration --store ~/notes/memory --dry-run
  engramory archive old-migration --native   # named as claude-native (the note moves as is)"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``archive`` subcommand."""
    parser = subparsers.add_parser(
        "archive",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("slug", metavar="SLUG", help="the note's file name, without .md")
    parser.add_argument("--store", metavar="PATH", help="the store (default: found as for check)")
    parser.add_argument(
        "--keep-pointer",
        action="store_true",
        help="rewrite the index pointers to archive/SLUG.md instead of removing them",
    )
    parser.add_argument("--dry-run", action="store_true", help="print what would change")
    add_profile_flags(parser)
    add_cap_flags(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Archive the note; exit 0 when done (or planned, with --dry-run)."""
    bare_slug(args.slug)  # a usage error (64) before the store is looked for
    caps = caps_from_args(args)
    location = discovery.locate(args.store)
    root = os.path.realpath(location.root)
    choice = profile_from_args(args, location.root, writes="archiving")
    plan = archive(args.slug, root, caps, args.keep_pointer, args.dry_run)
    out = []
    if location.discovered:
        out.append(f"store {root} ({location.source})")
    out.append(choice.line())
    out += report_lines(plan, args.dry_run)
    for line in out:
        print(printable(line))
    return EXIT_OK
