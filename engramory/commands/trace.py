"""``engramory trace``: search what was said in Claude Code and Codex sessions (read-only).

The wiring only: flags, the three modes (search, ``--show``, ``--list``), exit
codes. The reading and searching live in :mod:`engramory.trace`.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

from engramory.commands.options import add_format_flag
from engramory.trace import render, scope
from engramory.trace.lines import ReadStats
from engramory.trace.mask import values_in
from engramory.trace.model import ROLES, TOOL, SessionFile
from engramory.trace.search import (
    READERS,
    Filters,
    Query,
    by_session,
    newest_first,
    pick_session,
    replay,
    roots,
    search,
    session_files,
    summarize,
)
from engramory.util.errors import EXIT_FINDINGS, EXIT_OK, InputMissingError, UsageError
from engramory.util.textfmt import plural, printable

DEFAULT_LIMIT = 50
HELP = "search what was said in Claude Code and Codex sessions (read-only)"
DESCRIPTION = """\
Search the host's own transcripts for what the person and the agent said: the
original words behind a note that is too terse, or something discussed and
never written down. Reads Claude Code ($CLAUDE_CONFIG_DIR/projects, each entry
of a comma-separated value, else ~/.claude/projects) and Codex
($CODEX_HOME/sessions and archived_sessions, else under ~/.codex); never writes.

By default it searches the current project (the git work tree around the
current directory, else the directory): sessions whose recorded working
directory is the project or inside it, subagents included. It searches the
person's words and the agent's replies; --tools adds tool calls and output.
Every QUERY word must occur in the same message, case folded (É finds é).
Secrets are masked in everything printed, and a call of `engramory trace`
recorded in a session (with its output) is never a hit.

Exit: 0 hits found, 1 none, 64 usage error, 66 no transcript folder."""
EPILOG = """\
examples:
  engramory trace parser rewrite                # both words in one message
  engramory trace "why not sqlite" --all-projects --since 2026-11-01
  engramory trace --regex 'time ?out' --role user --limit 10
  engramory trace deploy --tools --format json  # JSON Lines, one hit a line
  engramory trace --list                        # this project's sessions, newest first
  engramory trace --show 3f2a9c                 # replay a session (id or 6+-character prefix)"""


def _date(raw: str) -> datetime.date:
    try:
        return datetime.datetime.strptime(raw, "%Y-%m-%d").date()
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {raw!r}") from exc


def _limit(raw: str) -> int:
    if not raw.isdigit() or not raw.isascii() or int(raw) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {raw!r}")
    return int(raw)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``trace`` subcommand."""
    parser = subparsers.add_parser(
        "trace",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "query", nargs="*", metavar="QUERY", help="words that must all occur in one message"
    )
    parser.add_argument(
        "--host", choices=sorted(READERS), help="search one host only (default: both)"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--all-projects", action="store_true", help="search every project's sessions"
    )
    where.add_argument(
        "--project", metavar="DIR", help="search this project instead of the current one"
    )
    parser.add_argument(
        "--role",
        choices=ROLES,
        help="only the person's words, the agent's, tools' (tool implies --tools), or the "
        "prompts the agent wrote to subagents (agent)",
    )
    parser.add_argument("--since", type=_date, metavar="YYYY-MM-DD", help="from this UTC date on")
    parser.add_argument("--until", type=_date, metavar="YYYY-MM-DD", help="up to this UTC date")
    parser.add_argument(
        "--tools", action="store_true", help="also search tool calls and their output"
    )
    parser.add_argument("--case-sensitive", action="store_true", help="match case exactly")
    parser.add_argument(
        "--regex", action="store_true", help="QUERY is one Python regular expression"
    )
    parser.add_argument(
        "--limit",
        type=_limit,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"show the N most recent hits (default: {DEFAULT_LIMIT}; the summary counts all)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--show", metavar="SESSION", help="replay one session (any project)")
    mode.add_argument(
        "--list", action="store_true", help="list the sessions in scope, newest first"
    )
    add_format_flag(parser)
    parser.set_defaults(run=run)


def _check_mode(args: argparse.Namespace) -> None:
    if (args.show is not None or args.list) and args.query:
        raise UsageError("--show and --list take no QUERY")
    if args.show is not None and (args.all_projects or args.project is not None):
        raise UsageError("--show finds a session in any project: drop --all-projects/--project")
    if args.since and args.until and args.since > args.until:
        raise UsageError(f"--since {args.since} is after --until {args.until}")


def _files(args: argparse.Namespace, everywhere: bool) -> list[SessionFile]:
    hosts = [args.host] if args.host else sorted(READERS)
    found = roots(os.environ, hosts)
    if not found.found:
        tried = ", ".join(found.tried)
        raise InputMissingError(
            f"no transcript folder found (tried {tried}); set CLAUDE_CONFIG_DIR or CODEX_HOME "
            "if your host keeps them elsewhere"
        )
    project = None
    if not (everywhere or args.all_projects):
        project = scope.Project(scope.project_dir(args.project))
    sparse: list[str] = []
    files = session_files(found.found, project, sparse)
    for path in sparse:
        print(
            printable(f"engramory trace: skipped {path}: a sparse file, mostly holes"),
            file=sys.stderr,
        )
    return files


def _report_unreadable(stats: ReadStats) -> None:
    if stats.unreadable:
        print(
            f"engramory trace: {plural(stats.unreadable, 'unreadable line')} skipped",
            file=sys.stderr,
        )


def _show(args: argparse.Namespace, stats: ReadStats) -> int:
    sessions = by_session(_files(args, everywhere=True))
    chosen = pick_session(list(sessions), args.show)
    if len(args.show) < 6 and not chosen:
        raise UsageError(
            f"--show {args.show!r}: give the session id or at least 6 of its first characters"
        )
    if len(chosen) > 1:
        raise UsageError(
            f"--show {args.show!r} matches {len(chosen)} sessions; give more characters:",
            tuple(f"  {session}" for session in chosen),
        )
    if not chosen:
        print(
            printable(f"engramory trace: no session {args.show!r} in any transcript folder"),
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    said = replay(sessions[chosen[0]], args.tools, stats)
    known = values_in(m.text for m in replay(sessions[chosen[0]], True, ReadStats()))
    for message in said:
        if args.format == "json":
            print(render.json_line(message, known))
        else:
            print("\n".join(render.replay_block(message, known)))
    return EXIT_OK


def _list(args: argparse.Namespace, stats: ReadStats) -> int:
    sessions = by_session(_files(args, everywhere=False))
    summaries = newest_first(
        summarize(session, files, stats) for session, files in sessions.items()
    )
    for found in summaries:
        print(render.summary_json(found) if args.format == "json" else render.summary_line(found))
    return EXIT_OK if summaries else EXIT_FINDINGS


def _colour() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _secrets_of(
    wanted: set[str], files: list[SessionFile], stats: ReadStats
) -> dict[str, frozenset[str]]:
    """The values the detector matches anywhere in each wanted session (tool output too),
    so an unlabelled repeat of one is masked as well."""
    sessions = by_session([file for file in files if file.session in wanted])
    quiet = ReadStats()  # a second read: its unreadable lines were counted by the search
    return {
        session: values_in(m.text for m in replay(group, True, quiet))
        for session, group in sessions.items()
    }


def _search(args: argparse.Namespace, stats: ReadStats) -> int:
    if not args.query:
        raise UsageError("give a QUERY (or --show SESSION, or --list)")
    query = Query(args.query, regex=args.regex, case_sensitive=args.case_sensitive)
    filters = Filters(frozenset([args.role]) if args.role else None, args.since, args.until)
    tools = args.tools or args.role == TOOL  # tool hits exist only when tools are searched
    files = _files(args, everywhere=False)
    hits = search(files, query, tools, filters, stats)
    shown = hits[-args.limit :]
    known = _secrets_of({hit.session for hit in shown}, files, stats)
    if args.format == "json":
        for hit in shown:
            print(render.json_line(hit, known.get(hit.session, ())))
    else:
        colour = _colour()
        for hit in shown:
            print("\n".join(render.hit_block(hit, query, colour, known.get(hit.session, ()))))
            print()
        if hits:
            print(render.summary(hits, len(shown)))
        else:
            print("no hits")
    return EXIT_OK if hits else EXIT_FINDINGS


def run(args: argparse.Namespace) -> int:
    """Search, replay or list; 0 when something was found, 1 when nothing was."""
    _check_mode(args)
    stats = ReadStats()
    try:
        if args.show is not None:
            return _show(args, stats)
        if args.list:
            return _list(args, stats)
        return _search(args, stats)
    finally:
        _report_unreadable(stats)
