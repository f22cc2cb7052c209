"""The ``engramory doctor`` command line: flags, rule selection, text and JSON output."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any, Callable

from engramory import __version__, secrets
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
from engramory.doctor import cache, engine
from engramory.doctor.context import DEFAULT_MAX_INDEX_LINE, DEFAULT_STALE_DAYS, Options
from engramory.doctor.model import (
    ERROR,
    FINDINGS_PER_FILE,
    INFO,
    SEVERITIES,
    WARNING,
    Example,
    Finding,
    Rule,
)
from engramory.doctor.profiles import PROFILES, Profile
from engramory.doctor.rules import RULES
from engramory.report import github, relocated, sarif, working_directory
from engramory.report import statistics as stats
from engramory.store import automemory, breach, discovery
from engramory.store.caps import Measurement
from engramory.util.console import painter, stdout_colour
from engramory.util.errors import EXIT_FINDINGS, EXIT_OK, InputMissingError, UsageError
from engramory.util.textfmt import plural, printable

JSON_BATCH = 2000  # findings encoded per json.dumps call: fast, and memory stays flat

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


QUIET = "quiet"  # a rule's "severity" under a profile that does not run it


def profile_severity(profile: Profile, rule: Rule) -> str:
    """The rule's severity under ``profile``, or ``quiet`` when the profile does not run it."""
    return QUIET if rule.id in profile.quiet else profile.severity(rule)


def _profile_marks(rule: Rule, severity: str) -> str:
    """`` [claude-native: info]`` for each profile under which the rule is not ``severity``."""
    marks = [
        f" [{p.name}: {profile_severity(p, rule)}]"
        for p in PROFILES.values()
        if profile_severity(p, rule) != severity
    ]
    return "".join(marks)


def catalogue_text(profile: Profile | None = None) -> str:
    """The catalogue, one rule a line: id, severity (under ``profile``, default the
    catalogue's), summary, then markers: schema, and the profiles where the severity differs."""
    width = max(len(rule_id) for rule_id in RULES)
    lines = []
    for rule in RULES.values():
        marker = " [schema]" if rule.schema else ""
        severity = profile_severity(profile, rule) if profile else rule.severity
        marks = _profile_marks(rule, severity)
        lines.append(f"{rule.id:<{width}}  {severity:<7}  {rule.summary}{marker}{marks}")
    return "\n".join(lines)


def catalogue_json(profile: Profile | None = None) -> str:
    """The catalogue as JSON; ``severity`` under ``profile``, ``profiles`` under each."""
    return json.dumps(
        [
            {
                "rule": r.id,
                "severity": profile_severity(profile, r) if profile else r.severity,
                "summary": r.summary,
                "schema": r.schema,
                "fix": profile.fix(r, r.fix) if profile else r.fix,
                "profiles": {p.name: profile_severity(p, r) for p in PROFILES.values()},
            }
            for r in RULES.values()
        ],
        indent=2,
        ensure_ascii=False,
    )


EXAMPLE_LINES = 14  # lines of an example file --explain shows
EXAMPLE_WIDTH = 100  # characters of an example line --explain shows


def _shown_lines(text: str) -> list[str]:
    """An example file's first lines, cut to the terminal (``text`` is our own data)."""
    lines = text.splitlines()
    if not lines:
        return ["(empty)"]
    shown = [
        line if len(line) <= EXAMPLE_WIDTH else line[:EXAMPLE_WIDTH] + "…"
        for line in lines[:EXAMPLE_LINES]
    ]
    if len(lines) > EXAMPLE_LINES:
        shown.append(f"… ({plural(len(lines) - EXAMPLE_LINES, 'more line')})")
    return shown


def _example_text(example: Example) -> Iterator[str]:
    yield f"  - {example.text}"
    if example.flags:
        yield f"      with: engramory doctor {' '.join(example.flags)}"
    for rel, text in example.tree().items():
        yield f"      {rel}:"
        yield from (f"        {line}".rstrip() for line in _shown_lines(text))
    for rel, target in example.symlinks.items():
        yield f"      {rel} -> {target} (a symlink)"
    for rel, text in example.outside.items():
        yield f"      ../{rel} (outside the store):"
        yield from (f"        {line}".rstrip() for line in _shown_lines(text))
    for rel, size in example.sizes.items():
        yield f"      {rel} ({size:,} bytes)"
    for rel, mode in example.modes.items():
        yield f"      {rel} (mode {mode:03o})"


def _profile_lines(rule: Rule) -> Iterator[str]:
    """How each profile that differs from the catalogue treats the rule."""
    for profile in PROFILES.values():
        if not profile.differs(rule):
            continue
        if rule.id in profile.quiet:
            yield f"  profile {profile.name}: quiet (the rule does not run)"
        else:
            yield f"  profile {profile.name}: {profile.severity(rule)}"
        if profile.fix(rule, rule.fix) != rule.fix:
            yield f"    fix there: {profile.fix(rule, rule.fix)}"


def explain_text(rule: Rule) -> str:
    """A rule's page: id, severity, summary, how each profile differs, the stores it fires
    and stays quiet on (with the engramory profile unless an example's flags say otherwise),
    the fix."""
    lines = [f"{rule.id} ({rule.severity})", f"  {rule.summary}"]
    if rule.schema:
        lines.append("  a schema rule: --no-schema skips it")
    lines += _profile_lines(rule)
    lines += ["", "Fires:"]
    for example in rule.fires:
        lines += _example_text(example)
    lines += ["", "Quiet:"]
    for example in rule.quiet:
        lines += _example_text(example)
    if rule.details is not None:
        lines += ["", *rule.details()]
    lines += ["", f"Fix: {rule.fix}"]
    return secrets.redact("\n".join(lines))  # an example's key is shown as the doctor shows it


def _redacted(files: Mapping[str, str]) -> dict[str, str]:
    """``files`` with every secret's value cut to what the doctor's messages show."""
    return {rel: secrets.redact(text) for rel, text in files.items()}


def _example_dict(example: Example) -> dict[str, Any]:
    return {
        "text": example.text,
        "files": _redacted(example.tree()),
        "symlinks": dict(example.symlinks),
        "outside": _redacted(example.outside),
        "sizes": dict(example.sizes),
        "modes": {rel: f"{mode:03o}" for rel, mode in example.modes.items()},
        "flags": list(example.flags),
    }


def explain_json(rule: Rule) -> str:
    return json.dumps(
        {
            "rule": rule.id,
            "severity": rule.severity,
            "summary": rule.summary,
            "schema": rule.schema,
            "fix": rule.fix,
            "profiles": {p.name: profile_severity(p, rule) for p in PROFILES.values()},
            "fires": [_example_dict(example) for example in rule.fires],
            "quiet": [_example_dict(example) for example in rule.quiet],
            "details": [secrets.redact(line) for line in rule.details()] if rule.details else [],
        },
        indent=2,
        ensure_ascii=False,
    )


def explained(rule_id: str) -> Rule:
    """The rule ``--explain`` names; an unknown id is a usage error."""
    if rule_id not in RULES:
        raise UsageError(
            f"unknown rule id: {printable(rule_id)} (engramory doctor --list-rules shows them)"
        )
    return RULES[rule_id]


def counts(findings: list[Finding]) -> dict[str, int]:
    totals = dict.fromkeys(SEVERITIES, 0)
    for finding in findings:
        totals[finding.severity] += 1
    return totals


def _index_text(report: engine.Report) -> str:
    if report.index.text is None:
        return "index not read"
    caps = report.caps
    return (
        f"index {breach.size_text(report.index.measured or Measurement(0, 0))} "
        f"(hard cap {breach.limits_text(caps.hard_lines, caps.hard_bytes)})"
    )


def _plain(word: str) -> str:
    return word


def finding_lines(
    findings: list[Finding], paint: Callable[[str], str], limit: int | None
) -> Iterator[str]:
    """One line per finding, at most ``limit`` of them, then one saying how many were left out.

    File-derived text is escaped (one finding, one line); only the severity word,
    our own, goes through ``paint``."""
    shown = findings if limit is None else findings[:limit]
    for f in shown:
        where = f.path if f.line is None else f"{f.path}:{f.line}"
        yield f"{printable(where)}: {paint(f.severity)}: {printable(f'{f.message} [{f.tag}]')}"
    left = len(findings) - len(shown)
    if left:
        yield (
            f"... and {plural(left, 'more finding')} not shown (--max-findings {limit}); "
            "--statistics counts every finding by rule"
        )


def render_text(
    report: engine.Report,
    paint: Callable[[str], str] = _plain,
    max_findings: int | None = None,
    statistics: bool = False,
    profile_reason: str | None = None,
) -> Iterator[str]:
    """The text report, one line at a time: the findings (at most ``max_findings``) or, with
    ``statistics``, one line per rule that fired; the summary (ending with the profile and,
    when given, why it was chosen); a fix line per rule that fired (the statistics lines
    carry their fix already)."""
    if statistics:
        yield from stats.render(stats.rows(report.findings, report.hints), paint)
    else:
        yield from finding_lines(report.findings, paint, max_findings)
    totals = counts(report.findings)
    if not report.findings:
        verdict = "clean"
    else:
        verdict = ", ".join(
            (
                plural(totals[ERROR], "error"),
                plural(totals[WARNING], "warning"),
                f"{totals[INFO]} info",
            )
        )
    yield (
        f"engramory doctor: {verdict} — {plural(report.notes, 'note')}, {_index_text(report)}, "
        f"profile {report.profile.name}"
        + (f" ({printable(profile_reason)})" if profile_reason else "")
    )
    if statistics:
        return
    for rule_id, hint in report.hints.items():
        yield f"  fix {rule_id}: {hint}"


def render_json(report: engine.Report, profile_reason: str | None = None) -> Iterator[str]:
    """The JSON report, in pieces (a 100,000-finding report is never one big string).

    The pieces join into exactly ``json.dumps(payload)``: compact and one line,
    so the C encoder does the work.
    """
    index = report.index
    read = index.text is not None
    head = {
        "engramory": __version__,
        "store": report.root,
        "profile": report.profile.name,
        "profile_reason": profile_reason,
        "index": {
            "path": discovery.INDEX_NAME,
            "lines": index.measured.lines if read and index.measured else None,
            "bytes": index.measured.bytes if read and index.measured else None,
            "caps": report.caps.as_dict(),
        },
        "notes": report.notes,
        "summary": counts(report.findings),
        "fixes": report.hints,
    }
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "findings": ['
    findings = report.findings
    for start in range(0, len(findings), JSON_BATCH):
        batch = [f.as_dict() for f in findings[start : start + JSON_BATCH]]
        yield (", " if start else "") + json.dumps(batch, ensure_ascii=False)[1:-1]
    yield "]}"


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
    if profile_reason is not None and args.format in CI_FORMATS:
        print(printable(f"profile {report.profile.name}: {profile_reason}"), file=sys.stderr)
    if args.format == "json":
        sys.stdout.writelines(render_json(report, profile_reason))
        sys.stdout.write("\n")
    elif args.format == "github":
        findings = relocated(report.findings, report.root, working_directory())
        sys.stdout.writelines(line + "\n" for line in github.render(findings))
    elif args.format == "sarif":
        sys.stdout.write(render_sarif(report, working_directory()) + "\n")
    else:
        if header is not None:
            sys.stdout.write(printable(header) + "\n")
        paint = painter(stdout_colour(args.color))
        lines = render_text(report, paint, args.max_findings, args.statistics, profile_reason)
        sys.stdout.writelines(line + "\n" for line in lines)


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
    location = native_location() if args.native else discovery.locate(args.store)
    choice = profile_from_args(args, location.root)
    profile = choice.profile
    options = Options(
        schema=not args.no_schema,
        max_index_line=args.max_index_line,
        today=date.today(),
        profile=profile,
        stale_days=args.stale_days,
    )
    home = None if args.no_cache else cache.cache_home(os.environ)
    report = engine.run(str(location.root), caps, options, chosen, args.jobs, home)
    header = f"checking the store {location.root} ({location.source})"
    write_report(report, args, header if location.discovered else None, choice.reason)
    return exit_code(report.findings, args.strict)


def _current_project() -> Path:
    """The project of the current directory (its git work tree's top, else itself)."""
    try:
        here = Path.cwd()
    except OSError as exc:
        raise InputMissingError(
            f"the current directory is gone ({exc.strerror or exc}): cd into the project"
        ) from None
    return discovery.project_root(here)


def native_location() -> discovery.Location:
    """``--native``: the current project's Claude Code auto-memory folder, which must exist."""
    project = _current_project()
    resolution = automemory.resolve(project)
    reason = discovery.native_reason(resolution, project)
    if not resolution.exists:
        raise InputMissingError(
            f"Claude Code's auto-memory folder for {project} is {resolution.path} ({reason}), "
            "which does not exist or is not a folder: Claude Code creates it when it first saves "
            "a memory (run the doctor from inside the project, or pass the store's path)"
        )
    folder = resolution.path
    return discovery.Location(
        folder, folder / discovery.INDEX_NAME, f"Claude Code's auto-memory folder ({reason})"
    )
