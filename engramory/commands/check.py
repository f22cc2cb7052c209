"""``engramory check``: is the index within its caps? (DESIGN §3.2)

Prints one line starting ``OK:``, ``WARN:`` or ``OVER:`` and exits 0, 1 or 2.
A file over the hard byte cap is OVER without being read, so a runaway index
answers at once.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from engramory.commands.options import (
    CI_FORMATS,
    add_cap_flags,
    add_color_flag,
    add_format_flag,
    add_profile_flags,
    caps_from_args,
    profile_from_args,
    say_profile,
)
from engramory.cuts import registry as cut_registry
from engramory.report.check import ci_report, describe, verdict_json
from engramory.store import caps as capsmod
from engramory.store import discovery
from engramory.store.caps import Caps, Measurement
from engramory.util import fsutil
from engramory.util.console import painter, stdout_colour
from engramory.util.errors import EXIT_FINDINGS, EXIT_OK, EXIT_OVER, InputMissingError, UsageError
from engramory.util.textfmt import printable

if TYPE_CHECKING:
    from engramory.doctor.profile_choice import Choice

HOST_NAMES = cut_registry.HOSTS
EXIT_CODES = {capsmod.OK: EXIT_OK, capsmod.WARN: EXIT_FINDINGS, capsmod.OVER: EXIT_OVER}

HELP = "measure MEMORY.md against its line and byte caps"
DESCRIPTION = """\
Measure the index against its caps and print one verdict line:
  OK:   within the soft caps                                        (exit 0)
  WARN: over a soft cap (150 lines / 20,480 bytes): plan a compaction (exit 1)
  OVER: over a hard cap (200 lines / 25,000 bytes): compact now       (exit 2)
A missing, unreadable or non-regular file exits 66; a bad flag exits 64.

PATH is an index file or a store directory (its MEMORY.md is measured); a
directory without MEMORY.md that holds .engramory-memory/ means that store.
Without PATH the store is $ENGRAMORY_MEMORY_ROOT, else the first
.engramory-memory/ or MEMORY.md in the current directory or a parent, up to
the git work-tree top. When the store is not PATH itself, the verdict line
says why, after the index path: "OK: PATH (found in ...) is ...".

A second line names the store's profile and why (--profile, --native, else
detected as for engramory doctor; on stderr for json, github and sarif, and
as "profile" and "profile_reason" in the JSON). The caps are the same in
every profile."""
EPILOG = """\
examples:
  engramory check examples/store
  engramory check ~/notes/memory/MEMORY.md --format json
  ENGRAMORY_HARD=120 engramory check          # a tighter line cap for this run
  engramory check --hard-bytes 16384 .engramory-memory
  engramory check --format github             # a GitHub Actions annotation when WARN or OVER
  engramory check --format sarif > check.sarif
  engramory check ~/notes/memory --native     # named as claude-native

--format github and sarif report WARN and OVER as the doctor's rules
index-over-soft-cap (warning) and index-over-hard-cap (error), with the
index's path relative to the current directory; OK reports nothing."""
# The doctor's rule ids for check's verdicts, so CI shows one name for one problem.


def measure(path: str, caps: Caps, real: str | None = None) -> Measurement:
    """Measure an index file; over the hard byte cap it is not read at all.

    ``real`` is the already-resolved, checked path to open: it is opened without
    following a symlink, so a link swapped in after the containment check is
    refused rather than followed.
    """
    try:
        if real is None:
            data = fsutil.read_bounded(path, caps.hard_bytes)
        else:
            data = fsutil.read_bounded_stat(real, caps.hard_bytes, follow_symlinks=False)[0]
    except fsutil.FileTooLargeError as exc:
        return Measurement(None, exc.size)
    except fsutil.NotRegularFileError as exc:
        raise InputMissingError(f"{path} is not a regular file; nothing to measure") from exc
    except FileNotFoundError as exc:
        raise InputMissingError(f"{path} does not exist") from exc
    except OSError as exc:
        raise InputMissingError(f"cannot read {path}: {fsutil.os_error_text(exc)}") from exc
    return Measurement.of_raw(data)


def _inside_the_store(path: str, root: str) -> str:
    """The resolved index path; refuses one that leads outside its store, as the doctor does."""
    outside = fsutil.escapes(path, root)
    if outside is not None:
        raise InputMissingError(
            f"{path} resolves to {outside}, outside the store {root}: check measures only an "
            "index inside its store (the doctor reports index-escapes-store); replace the "
            "symlink with the index file itself"
        )
    return fsutil.resolve(path)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    parser = subparsers.add_parser(
        "check",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", nargs="?", metavar="PATH", help="index file or store directory")
    add_format_flag(parser, CI_FORMATS)
    add_color_flag(parser)
    add_profile_flags(parser)
    add_cap_flags(parser)
    parser.add_argument(
        "--host",
        choices=HOST_NAMES,
        help="also measure as this host loads its memory and list what falls off; the exit "
        "code then follows the host (0 all loads, 2 something falls off). "
        "Example: --host qwen",
    )
    parser.add_argument(
        "--host-version",
        metavar="VERSION",
        help="Claude Code version for --host claude (default $ENGRAMORY_CLAUDE_VERSION); "
        "2.1.211 and later do not count frontmatter and HTML block comments. "
        "Example: --host-version 2.1.211",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Measure, print the verdict, return 0 (OK), 1 (WARN) or 2 (OVER)."""
    caps = caps_from_args(args)
    location = discovery.locate(args.path, any_file=True)
    path = os.fspath(location.index)
    real = _inside_the_store(path, os.fspath(location.root))
    found, error = fsutil.kind(path)
    if found == "missing" and fsutil.kind(location.root)[0] == "dir":
        raise InputMissingError(
            f"{location.root} has no MEMORY.md: nothing to measure "
            "(create the index, or pass the index file itself)"
        )
    if error is not None:
        reason = fsutil.os_error_text(error)
        if reason == fsutil.PERMISSION_DENIED:
            reason += " (a directory on the way cannot be searched: fix its permissions)"
        raise InputMissingError(f"cannot reach {path}: {reason}")
    m = measure(path, caps, real)
    verdict, dims = m.verdict(caps)
    choice = profile_from_args(args, location.root)
    if getattr(args, "host", None) is not None:  # precommit calls run() without --host
        return _run_host(args, path, os.fspath(location.root), (m, caps, verdict, dims), choice)
    if args.format == "json":
        print(json.dumps({**verdict_json(m, caps, verdict, dims), **choice.as_json()}))
    elif args.format in CI_FORMATS:
        print(ci_report(args.format, path, describe(path, m, caps, verdict), verdict), end="")
    else:
        origin = location.source if location.discovered else ""
        line = printable(describe(path, m, caps, verdict, origin))
        word, rest = line.split(":", 1)
        print(painter(stdout_colour(args.color))(word) + ":" + rest)
    sys.stdout.flush()
    say_profile(choice, machine=True)  # stdout keeps its one verdict line (DESIGN 3.2)
    return EXIT_CODES[verdict]


def _claude_version(args: argparse.Namespace) -> tuple[int, ...] | None:
    """The ``--host-version`` (or ``$ENGRAMORY_CLAUDE_VERSION``) as numbers; a bad one is 64."""
    raw = cut_registry.claude_version(args.host_version)
    if raw is None:
        return None
    version = cut_registry.parse_version(raw)
    if version is None:
        raise UsageError(f"--host-version {printable(raw)!r} is not a version such as 2.1.211")
    return version


def _run_host(
    args: argparse.Namespace,
    index: str,
    root: str,
    measured: tuple[Measurement, Caps, str, list[str]],
    choice: Choice,
) -> int:
    """``check --host``: the usual verdict, then the host's own cut; exit 0 or 2 by the host."""
    if args.format not in ("text", "json"):
        raise UsageError("--host reports in --format text or json only")
    from engramory.cuts import measure as cut_measure  # noqa: PLC0415
    from engramory.cuts import report as cut_report  # noqa: PLC0415

    m, caps, verdict, dims = measured
    version = _claude_version(args)
    path = cut_registry.loaded_file(args.host, index)
    cut, falls_off = cut_measure.measure(args.host, path, root, version)
    if args.format == "json":
        body = {**verdict_json(m, caps, verdict, dims), **choice.as_json()}
        body["host"] = cut_report.as_json(cut, falls_off)
        print(json.dumps(body))
    else:
        print(printable(describe(index, m, caps, verdict)))
        print("\n".join(cut_report.text_lines(cut, falls_off, path)))
    sys.stdout.flush()
    say_profile(choice, machine=True)
    return EXIT_OK if cut.loads_all else EXIT_OVER
