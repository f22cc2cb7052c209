"""``engramory where HOST``: where a host keeps its own memory folder for a project, and why.

Today one host has a folder Engramory can use in place: Claude Code's
auto-memory (:mod:`engramory.store.automemory`). The answer names the folder, the
rule that chose it (an override, a settings file, or the host's default
naming), whether it exists, the folders considered when the project's key was
too long, and its index measured against the caps, as ``check`` measures it.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from engramory.commands.check import measure
from engramory.commands.options import add_cap_flags, add_format_flag, caps_from_args
from engramory.history import projectrecord
from engramory.hosts.base import Host
from engramory.hosts.registry import HOSTS
from engramory.report.check import describe, verdict_json
from engramory.store import automemory, discovery
from engramory.store.caps import INDEX_NAME, Caps, Measurement
from engramory.store.hostmemory import registry as hostmemory
from engramory.util import fsutil
from engramory.util.errors import EXIT_OK, InputMissingError, UsageError
from engramory.util.textfmt import printable

HELP = (
    "show where each host keeps its own memory for a project (claude, qwen, gemini, codex, hermes)"
)
DESCRIPTION = """\
Print the folder a host keeps its own memory in for a project, found the way
the host finds it, with the rule that chose it, whether it exists, and its
MEMORY.md measured against the caps. For Claude Code (the one host whose
memory folder Engramory can use in place) the order is:
$CLAUDE_COWORK_MEMORY_PATH_OVERRIDE; autoMemoryDirectory in the project's
.claude/settings.local.json, then in $CLAUDE_CONFIG_DIR/settings.json
(~/.claude/settings.json); else <config dir>/projects/<key>/memory, where the
key is the project's main git root with every character outside A-Z, a-z and
0-9 replaced by '-'. The project is --project-root, else the git work tree
around the current directory, else the current directory."""
EPILOG = """\
examples:
  engramory where claude
  engramory where claude --project-root ~/code/app --format json
  engramory where claude --hard-lines 150   # measure the index against a tighter cap
  engramory where claude --all              # every folder: orphaned, split, moved
  engramory where gemini
  engramory where --all --format json     # every host's memory for this project"""

RULE_TEXT = {
    automemory.OVERRIDE: f"${automemory.OVERRIDE_ENV}",
    automemory.SETTINGS: "autoMemoryDirectory in {settings}",
    automemory.DEFAULT: "the host's default: <config dir>/projects/<project key>/memory",
}


def native_hosts() -> list[str]:
    """The hosts whose own memory folder can be found (``where``'s choices)."""
    return [name for name, host in HOSTS.items() if host.native_folder is not None]


def _where_hosts() -> list[str]:
    """Every host ``where`` finds memory for: the native ones, then the other memory hosts."""
    return native_hosts() + [h for h in hostmemory.HOSTS if h not in native_hosts()]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``where`` subcommand."""
    parser = subparsers.add_parser(
        "where",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "host",
        metavar="HOST",
        nargs="?",
        help=f"one of: {', '.join(_where_hosts())} (none with --all)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="without HOST: every host's memory for the project, with sizes against each cut; "
        "with claude: every memory folder of the host, flagged orphaned, split or moved",
    )
    parser.add_argument(
        "--project-root",
        metavar="DIR",
        help="the project (default: the git work tree around the current directory, else it)",
    )
    add_format_flag(parser)
    add_cap_flags(parser)
    parser.set_defaults(run=run)


def _host(name: str) -> Host:
    host = HOSTS.get(name)
    if host is None or host.native_folder is None:
        raise UsageError(
            f"no memory folder to find for {name!r}: `engramory where` knows "
            f"{', '.join(_where_hosts())}"
        )
    return host


def _project(raw: str | None) -> Path:
    if raw is None:
        return discovery.project_root(Path(os.getcwd()))
    project = Path(os.path.abspath(os.path.expanduser(raw)))
    if not os.path.isdir(project):
        raise InputMissingError(f"--project-root {raw}: not an existing directory")
    return project


def _index(folder: Path, caps: Caps) -> tuple[Measurement | None, str]:
    """The folder's index measured (``None`` when there is none to measure) and what to say."""
    index = folder / INDEX_NAME
    found, error = fsutil.kind(index)
    if found == "missing" or error is not None:
        return None, f"no {INDEX_NAME}" if found == "missing" else fsutil.os_error_text(error)
    if found != "file":
        return None, f"{INDEX_NAME} is not a regular file"
    if fsutil.escapes(os.fspath(index), os.fspath(folder)) is not None:
        return None, f"{INDEX_NAME} leads outside the folder: not measured"
    try:
        return measure(os.fspath(index), caps, fsutil.resolve(os.fspath(index))), ""
    except InputMissingError as exc:
        return None, str(exc)


def run(args: argparse.Namespace) -> int:
    """Print where the folder is (text or JSON); exit 0 whether or not it exists."""
    if args.host is None or (args.host in hostmemory.HOSTS and args.host not in native_hosts()):
        return _run_memory_hosts(args)
    host = _host(args.host)
    if getattr(args, "all", False):
        if host.native_folder is not automemory.resolve:  # folders under a projects directory
            raise UsageError(f"--all lists Claude Code's memory folders, not {host.label}'s")
        from engramory.commands.where_all import run_all  # noqa: PLC0415

        return run_all(args.format == "json")
    project = _project(args.project_root)
    projectrecord.remember(project)
    caps = caps_from_args(args)
    assert host.native_folder is not None
    found = host.native_folder(project, os.environ)
    measured, why_not = _index(found.path, caps) if found.exists else (None, "no such folder")
    if args.format == "json":
        index = None
        if measured is not None:
            index = verdict_json(measured, caps, *measured.verdict(caps))
        print(
            json.dumps(
                {
                    "host": host.name,
                    "project": os.fspath(project),
                    "path": os.fspath(found.path),
                    "rule": found.rule,
                    "settings_file": None
                    if found.settings_file is None
                    else os.fspath(found.settings_file),
                    "exists": found.exists,
                    "candidates": [os.fspath(c) for c in found.candidates],
                    "index": index,
                }
            )
        )
        return EXIT_OK
    lines = [
        f"{host.label}'s memory folder for {project}:",
        f"  {found.path} ({'exists' if found.exists else 'does not exist yet'})",
        "  chosen by: " + RULE_TEXT[found.rule].format(settings=found.settings_file),
    ]
    if len(found.candidates) > 1:
        lines.append(
            f"  the project key is over {automemory.KEY_LIMIT} characters and "
            f"{len(found.candidates)} folders start with it; the one whose index changed last "
            "was taken:"
        )
        lines += [f"    {candidate}" for candidate in found.candidates]
    if measured is not None:
        index_path = os.fspath(found.path / INDEX_NAME)
        lines.append(f"  index: {describe(index_path, measured, caps, measured.verdict(caps)[0])}")
    else:
        lines.append(f"  index: {why_not}")
    for line in lines:
        print(printable(line))
    return EXIT_OK


def _run_memory_hosts(args: argparse.Namespace) -> int:
    """``where qwen|gemini|codex|hermes`` and ``where --all`` (``store.hostmemory``)."""
    from engramory.report import hostmemory as report  # noqa: PLC0415 - only for these hosts

    if args.host is None and not args.all:
        raise UsageError(f"name a host ({', '.join(_where_hosts())}) or give --all")
    project = _project(args.project_root)
    hosts = hostmemory.HOSTS if args.host is None else (args.host,)
    found = [hostmemory.find(host, project, os.environ) for host in hosts]
    if args.format == "json":
        shown = [report.found_json(one, project) for one in found]
        print(
            json.dumps(shown[0] if args.host else {"project": os.fspath(project), "hosts": shown})
        )
        return EXIT_OK
    if args.host is not None:
        lines = report.found_text(found[0], project)
    else:
        lines = [f"every host's memory for {project}:"]
        for one in found:
            lines += report.found_text(one, project, heading=False)
    for line in lines:
        print(printable(line))
    return EXIT_OK
