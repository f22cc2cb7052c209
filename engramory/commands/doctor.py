"""The ``engramory doctor`` command line: flags, rule selection, and which renderer of
:mod:`engramory.report` prints the report."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path

from engramory import __version__
from engramory.commands.options import (
    CI_FORMATS,
    PROFILE_HELP,
    add_cap_flags,
    add_color_flag,
    add_format_flag,
    caps_from_args,
    positive_int_arg,
    profile_from_args,
)
from engramory.doctor import cache, engine, outputcache
from engramory.doctor.context import DEFAULT_MAX_INDEX_LINE, DEFAULT_STALE_DAYS, Options
from engramory.doctor.model import (
    ERROR,
    FINDINGS_PER_FILE,
    WARNING,
    Finding,
    Rule,
)
from engramory.doctor.profiles import PROFILES
from engramory.doctor.rules import RULES
from engramory.report import github, relocated, sarif, working_directory
from engramory.report.catalogue import catalogue_json, catalogue_text, explain_json, explain_text
from engramory.report.jsonout import render_json
from engramory.report.text import render_text
from engramory.store import discovery
from engramory.store.disk import walk
from engramory.util.console import painter, stdout_colour
from engramory.util.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from engramory.util.textfmt import printable

HELP = "validate a memory store: index, pointers, notes, frontmatter"
DESCRIPTION = f"""\
Check a memory store and report every problem, one per line:
  PATH[:LINE]: SEVERITY: MESSAGE [RULE]
then a summary and one "fix" line per rule that fired. The doctor never writes.
At most {FINDINGS_PER_FILE} findings of one rule are listed per file; one more finding of that
rule (without a line) then says how many more there are.

Exit 0 when no error remains (warnings and info do not fail, unless --strict),
1 when one does, 64 on a usage error (including an unknown rule id), 66 when
the store cannot be found.

STORE is a store directory or its MEMORY.md; a directory without MEMORY.md
that holds .engramory-memory/ means that store, and one with neither and no
note in it is not a store (exit 66). Without STORE the store is
$ENGRAMORY_MEMORY_ROOT, else the first .engramory-memory/ or MEMORY.md in the
current directory or a parent, up to the git work-tree top. When the store
is not STORE itself, the first line names it and why:
"checking the store PATH (found in ...)". --native checks the current
project's Claude Code auto-memory folder wherever it is (exit 66 when it
does not exist), in the claude-native profile; on every other store command
--native only selects that profile.

The profile is the dialect the store is judged in, named with why it was
chosen at the end of the summary line (and as "profile" and
"profile_reason" in JSON; on stderr for github and sarif). --profile
decides; else a Claude Code auto-memory folder (the store's real path is
that of a <config dir>/projects/*/memory folder of any project, or of the
folder Claude Code uses for the current project) gets claude-native; else
a store most of whose notes with frontmatter are in the host's dialect
(no created/updated, and a title as name, a metadata: block or an
originSessionId) gets claude-native; else engramory. Under claude-native
the host writes no dates (missing ones are info, to add at the next edit)
and titles as names (name-mismatch is quiet); every other rule applies
unchanged."""
EPILOG = """\
examples:
  engramory doctor examples/store
  engramory doctor ~/notes/memory --format json
  engramory doctor --no-schema              # structure only, when adopting a store
  engramory doctor --select orphan,pointer-missing
  engramory doctor --native                 # this project's Claude Code memory folder,
                                            # judged as claude-native
  engramory doctor ~/notes/memory --profile claude-native
  engramory doctor --ignore missing-scope,name-mismatch --strict
  engramory doctor big-store --jobs 1       # one process, no workers
  engramory doctor --stale-days 30          # project notes untouched for 30+ days are stale
  engramory doctor --stale-days 0           # stale-project off
  engramory doctor --list-rules
  engramory doctor --statistics             # one line per rule that fired, most frequent first
  engramory doctor --max-findings 50        # at most 50 finding lines, then how many more
  engramory doctor --format github          # annotations in a GitHub Actions log
  engramory doctor --format sarif > engramory.sarif   # for GitHub code scanning
  engramory doctor --explain pointer-missing   # what it checks, examples, the fix
  engramory doctor --no-cache               # check every note afresh (also: ENGRAMORY_NO_CACHE=1)

Results of unchanged notes are cached under $ENGRAMORY_CACHE_DIR, else
$XDG_CACHE_HOME/engramory, else ~/.cache/engramory (never in the store)."""


def _rule_ids(raw: list[str] | None) -> set[str] | None:
    if raw is None:
        return None
    ids = {part.strip() for chunk in raw for part in chunk.split(",") if part.strip()}
    unknown = sorted(ids - set(RULES))
    if unknown:
        raise UsageError(
            f"unknown rule id(s): {', '.join(unknown)} (engramory doctor --list-rules shows them)"
        )
    return ids


def selection(select: list[str] | None, ignore: list[str] | None) -> set[str]:
    """The rule ids to run: ``--select`` (default all) minus ``--ignore``."""
    chosen = _rule_ids(select)
    ignored = _rule_ids(ignore) or set()
    return (set(RULES) if chosen is None else chosen) - ignored


def explained(rule_id: str) -> Rule:
    """The rule ``--explain`` names; an unknown id is a usage error."""
    if rule_id not in RULES:
        raise UsageError(
            f"unknown rule id: {printable(rule_id)} (engramory doctor --list-rules shows them)"
        )
    return RULES[rule_id]


def render_sarif(report: engine.Report, cwd: str) -> str:
    """The SARIF log: every rule of the catalogue (its level under the report's profile),
    one result per finding, paths relative to ``cwd``."""
    profile = report.profile
    rules = [(rule, profile.severity(rule)) for rule in RULES.values()]
    findings = relocated(report.findings, report.root, cwd)
    return json.dumps(sarif.document(findings, rules, __version__, cwd), ensure_ascii=False)


def write_report(
    report: engine.Report,
    args: argparse.Namespace,
    header: str | None,
    profile_reason: str | None = None,
) -> None:
    """Print the report in ``args.format``; ``header`` (text only) says how the store was found;
    ``profile_reason`` why the report's profile was chosen (github and sarif: on stderr)."""
    say_reason(args, report.profile.name, profile_reason)
    sys.stdout.writelines(rendered(report, args, header, profile_reason))


def say_reason(args: argparse.Namespace, profile: str, reason: str | None) -> None:
    """The line naming the profile and why, on stderr for the CI formats."""
    if reason is not None and args.format in CI_FORMATS:
        print(printable(f"profile {profile}: {reason}"), file=sys.stderr)


def rendered(
    report: engine.Report,
    args: argparse.Namespace,
    header: str | None,
    profile_reason: str | None = None,
) -> Iterator[str]:
    """What :func:`write_report` prints on standard output, in pieces."""
    if args.format == "json":
        yield from render_json(report, profile_reason)
        yield "\n"
    elif args.format == "github":
        findings = relocated(report.findings, report.root, working_directory())
        yield from (line + "\n" for line in github.render(findings))
    elif args.format == "sarif":
        yield render_sarif(report, working_directory()) + "\n"
    else:
        if header is not None:
            yield printable(header) + "\n"
        paint = painter(stdout_colour(args.color))
        lines = render_text(report, paint, args.max_findings, args.statistics, profile_reason)
        yield from (line + "\n" for line in lines)


def exit_code(findings: list[Finding], strict: bool) -> int:
    failing = {ERROR, WARNING} if strict else {ERROR}
    return EXIT_FINDINGS if any(f.severity in failing for f in findings) else EXIT_OK


def non_negative_int_arg(raw: str) -> int:
    """argparse ``type=`` for ``--stale-days``: ``0`` or a positive integer in ASCII digits."""
    text = raw.strip()
    if text and text.isascii() and text.isdigit():
        return int(text)
    raise argparse.ArgumentTypeError(f"expected 0 or a positive integer, got {raw!r}")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``doctor`` subcommand."""
    parser = subparsers.add_parser(
        "doctor",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "store", nargs="?", metavar="STORE", help="store directory or its MEMORY.md"
    )
    parser.add_argument(
        "--native",
        action="store_true",
        help="check the current project's Claude Code auto-memory folder, wherever it is, in "
        "the claude-native profile (not with STORE: for another store, --profile claude-native)",
    )
    catalogue = parser.add_mutually_exclusive_group()
    catalogue.add_argument(
        "--list-rules", action="store_true", help="print the rule catalogue and exit"
    )
    catalogue.add_argument(
        "--explain",
        metavar="RULE",
        help="print one rule's severity, summary, examples (a store it fires on and one it "
        "does not) and fix, and exit",
    )
    add_store_options(parser)
    parser.set_defaults(run=run)


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """The flags that say how to check a store and print the report (``engramory precommit
    doctor`` takes them too)."""
    parser.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        metavar="|".join(PROFILES),
        help=PROFILE_HELP + "; with --list-rules, the severities under it",
    )
    add_format_flag(parser, CI_FORMATS)
    add_color_flag(parser)
    parser.add_argument(
        "--statistics",
        action="store_true",
        help="instead of the findings, one line per rule that fired: count, severity, rule id, "
        "its fix (most frequent first; text only)",
    )
    parser.add_argument(
        "--max-findings",
        type=non_negative_int_arg,
        metavar="N",
        help="list at most N findings, then say how many were left out (text only: json, "
        "github and sarif stay complete)",
    )
    parser.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    parser.add_argument(
        "--no-schema",
        action="store_true",
        help="structure only: skip the frontmatter and per-type rules",
    )
    parser.add_argument(
        "--select", action="append", metavar="RULES", help="run only these rules (comma-separated)"
    )
    parser.add_argument(
        "--ignore", action="append", metavar="RULES", help="skip these rules (comma-separated)"
    )
    parser.add_argument(
        "--max-index-line",
        type=positive_int_arg,
        default=DEFAULT_MAX_INDEX_LINE,
        metavar="N",
        help=f"longest pointer line before index-line-too-long (default: {DEFAULT_MAX_INDEX_LINE})",
    )
    parser.add_argument(
        "--stale-days",
        type=non_negative_int_arg,
        default=DEFAULT_STALE_DAYS,
        metavar="N",
        help="a project note whose 'updated' is more than N days before today is "
        f"stale-project (default: {DEFAULT_STALE_DAYS}; 0: off)",
    )
    parser.add_argument(
        "--jobs",
        type=positive_int_arg,
        default=0,
        metavar="N",
        help="worker processes for stores of 4,000 notes or more, on Linux (default: one per "
        "CPU, up to 8; 1: none); the report is the same whatever N is",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="do not use or update the result cache (ENGRAMORY_NO_CACHE=1 does the same)",
    )
    add_cap_flags(parser)


def run(args: argparse.Namespace) -> int:
    """Validate the store; exit 1 when an error (or, with --strict, a warning) remains."""
    chosen = selection(args.select, args.ignore)
    if args.explain is not None:
        rule = explained(args.explain)
        print(explain_json(rule) if args.format == "json" else explain_text(rule))
        return EXIT_OK
    if args.list_rules:
        shown = PROFILES[args.profile] if args.profile else None
        print(catalogue_json(shown) if args.format == "json" else catalogue_text(shown))
        return EXIT_OK
    if args.statistics and args.format != "text":
        raise UsageError(
            f"--statistics is a text view; --format {args.format} always lists every finding"
        )
    caps = caps_from_args(args)
    if args.native and args.store is not None:
        raise UsageError(
            "--native checks the current project's Claude Code auto-memory folder: give STORE "
            "or --native, not both (--profile claude-native judges STORE in the host's dialect)"
        )
    location = discovery.native_location() if args.native else discovery.locate(args.store)
    from engramory.history.projectrecord import remember  # noqa: PLC0415 - best effort

    remember(discovery.project_root(Path.cwd()))
    home = None if args.no_cache else cache.cache_home(os.environ)
    root = os.path.realpath(location.root)
    folder = cache.folder_of(home, root)
    walked = walk(root, with_stat=folder is not None) if os.path.isdir(root) else None
    choice = profile_from_args(args, location.root, walked=walked, memo=folder)
    profile = choice.profile
    options = Options(
        schema=not args.no_schema,
        max_index_line=args.max_index_line,
        today=date.today(),
        profile=profile,
        stale_days=args.stale_days,
    )
    prepared = engine.prepare(str(location.root), caps, options, chosen, home, walked)
    header = f"checking the store {location.root} ({location.source})"
    shown = header if location.discovered else None
    state = prepared.state()
    run_slot = output_slot(args, prepared, shown, choice.reason) if state is not None else ""
    printed = outputcache.load(folder, run_slot, state) if folder and state else None
    if printed is not None:
        say_reason(args, profile.name, choice.reason)
        printed.write(sys.stdout)
        return printed.code
    report = engine.run(str(location.root), caps, options, chosen, args.jobs, home, prepared)
    say_reason(args, report.profile.name, choice.reason)
    code = exit_code(report.findings, args.strict)
    recorder = outputcache.Recorder(folder, run_slot, state) if folder and state else None
    print_recorded(rendered(report, args, shown, choice.reason), recorder)
    if recorder is not None:
        recorder.commit(code)
    return code


def print_recorded(pieces: Iterable[str], recorder: outputcache.Recorder | None) -> None:
    """Print ``pieces`` on standard output, each kept by ``recorder`` too (if any); what it
    kept is dropped when printing fails part way (a closed pipe)."""
    if recorder is None:
        sys.stdout.writelines(pieces)
        return
    try:
        for piece in pieces:
            sys.stdout.write(piece)
            recorder.write(piece)
    except BaseException:
        recorder.discard()
        raise


def output_slot(
    args: argparse.Namespace, prepared: engine.Prepared, header: str | None, reason: str
) -> str:
    """Everything the printed output depends on besides the store (``outputcache.slot``)."""
    colour = args.format == "text" and stdout_colour(args.color)
    cwd = working_directory() if args.format in CI_FORMATS else None
    return outputcache.slot(
        {
            "report": prepared.report_signature,
            "root": prepared.root,
            "format": args.format,
            "colour": colour,
            "statistics": args.statistics,
            "max_findings": args.max_findings,
            "strict": args.strict,
            "header": header,
            "profile": prepared.options.profile.name,
            "reason": reason,
            "cwd": cwd,
        }
    )
