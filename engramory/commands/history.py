"""``engramory history``: list, show, diff and take snapshots of a store; prune or forget them.

Only argument parsing and printing live here; the work is in
:mod:`engramory.history`. Every history failure is an
:class:`~engramory.util.errors.EngramoryError` (git missing: exit 69; a repository
git cannot read: the message names ``engramory history forget --yes``).
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import sys
import time

from engramory.commands.options import add_format_flag
from engramory.history import diffing, gitrun, location, repo, retention, snapshot
from engramory.store import discovery
from engramory.util.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from engramory.util.textfmt import plural, printable

HELP = "list, show and diff the snapshots of a store kept in git; take, prune or forget them"
DESCRIPTION = """\
Every state of a store is kept in a bare git repository outside it
($ENGRAMORY_HISTORY_DIR, else $XDG_STATE_HOME/engramory/history, else
~/.local/state/engramory/history), one per store, mode 0700. A snapshot holds
MEMORY.md and every note (archive/ included) with their exact modes, never a
hidden folder; a secret value is kept as [redacted: <detector>]. Snapshots
are taken before and after every Engramory write, at session start, before a
compaction and after a tool call that wrote into the store; never an empty one.

  history [STORE]                       list snapshots, newest first
  history show ID [PATH]                a snapshot's files, or one file as it was
  history diff [ID [ID2]]               what changed (default: last snapshot -> now)
  history snapshot [STORE]              take a snapshot now (--reason TEXT)
  history prune [STORE] --older-than 180d   drop older snapshots
  history forget [STORE] --yes          delete the store's history

Needs git on PATH (exit 69 without it); git sees none of your configuration."""
EPILOG = """\
examples:
  engramory history
  engramory history --since 7d --format json
  engramory history diff
  engramory history show 3f2a91c MEMORY.md
  engramory restore 3f2a91c            # then --apply
  engramory history prune --older-than 180d"""

ACTIONS = ("list", "show", "diff", "snapshot", "prune", "forget")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``history`` subcommand."""
    parser = subparsers.add_parser(
        "history",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("words", nargs="*", metavar="ACTION/ARG", help="see above")
    parser.add_argument(
        "--store", metavar="DIR", help="the store (default: found as check finds it)"
    )
    parser.add_argument(
        "--since", metavar="WHEN", help="list: only snapshots since 7d, 12h or 2026-12-01"
    )
    parser.add_argument("--limit", type=int, metavar="N", help="list: at most N snapshots")
    parser.add_argument("--reason", default="manual snapshot", help="snapshot: why it was taken")
    parser.add_argument(
        "--older-than", metavar="AGE", help="prune: drop snapshots older than AGE (180d)"
    )
    parser.add_argument("--yes", action="store_true", help="forget: really delete the history")
    add_format_flag(parser)
    parser.set_defaults(run=run)


def _split(words: list[str]) -> tuple[str, list[str]]:
    if words and words[0] in ACTIONS:
        return words[0], words[1:]
    return "list", words


def _place(store: str | None) -> location.Place:
    return location.place_of(os.fspath(discovery.locate(store).root))


def _existing(place: location.Place) -> location.Place:
    gitrun.git_path()
    if not location.exists(place):
        raise UsageError(
            f"no history yet for {place.store} (looked in {place.git_dir}); "
            "`engramory history snapshot` takes the first"
        )
    return place


def run(args: argparse.Namespace) -> int:
    """Dispatch to the action named first (default: list)."""
    action, rest = _split(list(args.words))
    gitrun.git_path()
    if action in ("list", "snapshot", "prune", "forget"):
        if len(rest) > 1:
            raise UsageError(f"history {action} takes at most one STORE")
        store = rest[0] if rest else args.store
        return ACTION_RUN[action](args, _place(store))
    if action == "show":
        if not 1 <= len(rest) <= 2:
            raise UsageError("usage: engramory history show ID [PATH]")
        return show(
            args, _existing(_place(args.store)), rest[0], rest[1] if len(rest) > 1 else None
        )
    if len(rest) > 2:
        raise UsageError("usage: engramory history diff [ID [ID2]]")
    return diff(_existing(_place(args.store)), rest)


def parse_since(text: str, now: float | None = None) -> int:
    """A point in time: an age back from now (``7d``) or a UTC date (``2026-12-01``)."""
    try:
        return int(calendar.timegm(time.strptime(text.strip(), "%Y-%m-%d")))
    except ValueError:
        pass
    try:
        return int((time.time() if now is None else now) - retention.parse_age(text))
    except UsageError:
        raise UsageError(
            f"--since {text!r}: give an age (7d, 12h, 4w) or a date (2026-12-01)"
        ) from None


def snapshot_record(snap: repo.Snapshot) -> dict[str, object]:
    fields = snap.fields
    return {
        "id": snap.id,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(snap.time)),
        "reason": snap.reason,
        "host": fields.get("host"),
        "session": fields.get("session"),
        "added": snap.count("added"),
        "removed": snap.count("removed"),
        "changed": snap.count("changed"),
        "index_lines": fields.get("index"),
        "redacted": fields.get("redacted"),
    }


def snapshot_line(record: dict[str, object]) -> str:
    who = "/".join(str(record[k]) for k in ("host", "session") if record.get(k))
    line = (
        f"{str(record['id'])[:12]}  {record['time']}  +{record['added']} -{record['removed']} "
        f"~{record['changed']}  index {record['index_lines']}  {record['reason']}"
    )
    if who:
        line += f"  ({who})"
    if record.get("redacted"):
        line += f"  [redacted: {record['redacted']}]"
    return printable(line)


def list_snapshots(args: argparse.Namespace, place: location.Place) -> int:
    """Print the snapshots, newest first."""
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    since = parse_since(args.since) if args.since else None
    snaps = repo.log(place, since, args.limit) if location.exists(place) else []
    records = [snapshot_record(s) for s in snaps]
    if args.format == "json":
        print(
            json.dumps(
                {"store": place.store, "history": place.git_dir, "snapshots": records}, indent=2
            )
        )
        return EXIT_OK
    print(printable(f"history of {place.store} ({place.git_dir})"))
    if not records:
        print("no snapshots yet: `engramory history snapshot` takes the first")
    for record in records:
        print(snapshot_line(record))
    return EXIT_OK


def take(args: argparse.Namespace, place: location.Place) -> int:
    """Take a snapshot now."""
    result = snapshot.take(place, args.reason, {"host": "cli"})
    if args.format == "json":
        print(
            json.dumps({"id": result.commit, "previous": result.parent, "skipped": result.skipped})
        )
        return EXIT_OK
    if result.commit is None:
        print(f"nothing changed since snapshot {(result.parent or '')[:12]}: no snapshot taken")
    else:
        c = result.change
        counts = f"+{len(c.added)} -{len(c.removed)} ~{len(c.changed)}"
        print(f"snapshot {result.commit[:12]}: {counts} notes")
    if result.redacted:
        print(f"kept {plural(len(result.redacted), 'secret value')} as [redacted: <detector>]")
    for rel in result.skipped:
        print(printable(f"not kept (unreadable or too large): {rel}"), file=sys.stderr)
    return EXIT_OK


def show(args: argparse.Namespace, place: location.Place, ref: str, path: str | None) -> int:
    """Print a snapshot's file list, or one file as it was."""
    commit = repo.resolve(place, ref)
    files = repo.tree(place, commit)
    if path is None:
        for rel, (_sha, mode) in sorted(files.items()):
            print(printable(f"0o{mode:o}  {rel}"))
        return EXIT_OK
    rel = path.replace(os.sep, "/").strip("/")
    if rel not in files:
        raise UsageError(f"{path}: not in snapshot {commit[:12]}")
    data = repo.blobs(place, [files[rel][0]])[files[rel][0]]
    sys.stdout.write(
        printable(data.decode("utf-8", "replace"))
        if sys.stdout.isatty()
        else data.decode("utf-8", "replace")
    )
    return EXIT_OK


def diff(place: location.Place, refs: list[str]) -> int:
    """Print what changed: a summary, then a unified diff (exit 1 when anything did)."""
    if refs:
        old = diffing.snapshot_state(place, repo.resolve(place, refs[0]))
    else:
        head = repo.head(place)
        if head is None:
            raise UsageError(f"no snapshot yet in {place.git_dir}")
        old = diffing.snapshot_state(place, head)
    if len(refs) == 2:
        new = diffing.snapshot_state(place, repo.resolve(place, refs[1]))
    else:
        new = diffing.current_state(place)
    change, index_changed = diffing.changes(old, new)
    print(f"{old.label} -> {new.label}: " + "\n".join(diffing.summary(change, index_changed)))
    for line in diffing.unified(place, old, new):
        print(line)
    return EXIT_FINDINGS if old.files != new.files else EXIT_OK


def prune(args: argparse.Namespace, place: location.Place) -> int:
    if not args.older_than:
        raise UsageError("history prune needs --older-than AGE (e.g. 180d)")
    age = retention.parse_age(args.older_than)
    _existing(place)
    dropped, kept = retention.prune(place, age)
    print(f"dropped {plural(dropped, 'snapshot')}, kept {kept} (ids of the kept ones changed)")
    return EXIT_OK


def forget(args: argparse.Namespace, place: location.Place) -> int:
    if not args.yes:
        print(printable(f"would delete the history of {place.store}: {place.git_dir}"))
        print("run again with --yes to delete it")
        return EXIT_FINDINGS
    if retention.forget(place):
        print(printable(f"deleted the history of {place.store} ({place.git_dir})"))
    else:
        print(printable(f"no history for {place.store} (nothing at {place.git_dir})"))
    return EXIT_OK


ACTION_RUN = {"list": list_snapshots, "snapshot": take, "prune": prune, "forget": forget}
