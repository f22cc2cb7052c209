"""``engramory init``, ``uninstall`` and ``hosts``: argparse wiring and output."""

from __future__ import annotations

import argparse
import json
import os
import sys

from engramory.continuity import state as continuity
from engramory.hosts import summary
from engramory.hosts.base import AFTER_WRITE_TEXT, CAP_ENFORCEMENT_TEXT, VERIFIED
from engramory.hosts.registry import HOSTS, host_names, resolve, rows
from engramory.install import layout
from engramory.install.apply import execute
from engramory.install.flags import check_guard_only_flags, check_native_flags
from engramory.install.init import plan_guard_only, plan_init
from engramory.install.steps import Options
from engramory.install.uninstall import plan_uninstall
from engramory.store import discovery
from engramory.util.errors import EngramoryError
from engramory.util.textfmt import printable
from engramory.wiring.refusal import FlagRefusal

FORCE_HELP = "replace an existing skill copy or a rules file Engramory did not write"


def project_root_help() -> str:
    """``--project-root``'s help: what it is, and every default, from the host table."""
    others = ", ".join(
        f"{spec.name}: {spec.default_root}" for spec in HOSTS.values() if spec.default_root != "."
    )
    return (
        "the project whose rules file is written (default: the top of the git work tree "
        f"holding the current directory, else the current directory; {others})"
    )


def install_hooks_help() -> str:
    """``--install-hooks``' help: which hosts take it and what each gets, from the host table."""
    parts = []
    for spec in HOSTS.values():
        if not spec.installs_hooks:
            continue
        what = ["the index guard"] if spec.pre_write_hook else []
        what += ["continuity hooks"] if spec.lifecycle_hooks else []
        parts.append(f"{spec.name}: {' and '.join(what)} in {shown_locations(spec.hook_locations)}")
    return "register Engramory's hooks (" + "; ".join(parts) + ")"


def shown_locations(paths: tuple[str, ...]) -> str:
    """Hook locations for help text: one file as it is, several files of a folder as the folder."""
    folders: dict[str, list[str]] = {}
    for path in paths:
        folders.setdefault(path.rpartition("/")[0], []).append(path)
    return ", ".join(
        files[0] if len(files) == 1 else f"{folder}/" for folder, files in folders.items()
    )


INIT_HELP = "wire Engramory into an agent host (rules, store, optional skill and hooks)"
INIT_DESCRIPTION = """\
Wire the Engramory discipline into an agent host: its rules go where the host
always loads them (a marked block in a shared rules file, or a dedicated rules
file), a store is created from templates/MEMORY.md if absent (an existing index
is never modified), the store is git-ignored when it sits in a git work tree,
and optionally the protocol is installed as a skill and the hooks are
registered. Every check happens before the first write; a refusal writes
nothing and exits 1 (64 when the flags themselves are the problem). The report
is printed after the last write. Re-running is byte-identical.

HOST is a write host or its read-only form HOST-reader (recall from a store
another agent owns; creates no store, no skill, no .gitignore entry)."""
INIT_EPILOG = """\
examples:
  engramory init claude --install-skill --install-hooks
  engramory init codex --project-root ~/src/app --install-skill
  engramory init codex --install-hooks --mode assisted
  engramory init cursor --memory-root ../shared-memory --dry-run
  engramory init claude --global --install-hooks
  engramory init claude --native --install-hooks
  engramory init claude --global --guard-only
  engramory init codex-reader --memory-root ~/.claude/projects/app/memory

`engramory hosts` lists every host and where its rules go."""
UNINSTALL_HELP = "remove Engramory's wiring from a host (never the memory store)"
UNINSTALL_DESCRIPTION = """\
Remove what `engramory init HOST` wrote and can prove is its own: the marked
block (a file that then holds nothing else is deleted), a dedicated rules file
that still carries Engramory's header, the skill payload, and Engramory's hook
handlers (kiro: in every agent file of .kiro/agents/, with or without
--kiro-agent). A .gitignore or a Hermes folder that init created (its marker
says so) is deleted once nothing else is in it. Other hosts' blocks, other
hooks and anything unrecognised are left byte-identical. The memory store and
its .gitignore entry are never touched. A file left untouched because its
markers are damaged makes the run exit 1."""
UNINSTALL_EPILOG = """\
examples:
  engramory uninstall claude --dry-run
  engramory uninstall claude
  engramory uninstall claude --global
  engramory uninstall codex --project-root ~/src/app --memory-root ~/notes/memory"""
HOSTS_HELP = "list every host: rules file, skill directory, hooks, verified or documented"
HOSTS_EPILOG = """\
examples:
  engramory hosts
  engramory hosts --format json
  engramory hosts --format markdown
  engramory hosts --mcp --store .engramory-memory"""


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "host", choices=host_names(), metavar="HOST", help="e.g. claude, codex-reader"
    )
    parser.add_argument("--project-root", metavar="P", help=project_root_help())
    parser.add_argument(
        "--global",
        dest="global_",
        action="store_true",
        help="the user-wide rules file instead of a project's",
    )
    parser.add_argument(
        "--memory-root",
        metavar="M",
        help="the store (default: an existing .engramory-memory between the current directory "
        "and the project root, else .engramory-memory under the project root; relative = under "
        "the project root)",
    )
    parser.add_argument(
        "--native",
        action="store_true",
        help="the store is the host's own memory folder for the project (claude: its "
        "auto-memory folder, found as Claude Code finds it; no --memory-root, no --global)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    for spec in HOSTS.values():
        for flag, dest, help_text in spec.option_flags:
            parser.add_argument(flag, dest=dest, metavar="NAME", help=f"{spec.name}: {help_text}")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``init``, ``uninstall`` and ``hosts``."""
    fmt = argparse.RawDescriptionHelpFormatter
    init = subparsers.add_parser(
        "init",
        help=INIT_HELP,
        description=INIT_DESCRIPTION,
        epilog=INIT_EPILOG,
        formatter_class=fmt,
    )
    _common(init)
    init.add_argument("--install-skill", action="store_true", help="copy the protocol as a skill")
    init.add_argument("--install-hooks", action="store_true", help=install_hooks_help())
    init.add_argument(
        "--hook-python",
        metavar="PY",
        help="interpreter baked into the hooks (default: this interpreter's absolute path)",
    )
    init.add_argument("--force", action="store_true", help=FORCE_HELP)
    init.add_argument(
        "--guard-only",
        action="store_true",
        help="with --global: register ONLY the index guard in the user-wide hook settings "
        "(claude: $CLAUDE_CONFIG_DIR/settings.json, default ~/.claude/settings.json; qwen: "
        "~/.qwen/settings.json; hermes: $HERMES_HOME/config.yaml), for every project; no "
        "rules, store, skill or continuity hooks (--install-hooks is implied)",
    )
    init.add_argument(
        "--mode",
        choices=continuity.MODES,
        help="continuity hooks' policy (with --install-hooks): sync at continuity boundaries "
        f"({continuity.EXPLICIT}, the default) or also at milestones ({continuity.ASSISTED})",
    )
    init.set_defaults(run=run_init)

    uninstall = subparsers.add_parser(
        "uninstall",
        help=UNINSTALL_HELP,
        description=UNINSTALL_DESCRIPTION,
        epilog=UNINSTALL_EPILOG,
        formatter_class=fmt,
    )
    _common(uninstall)
    uninstall.set_defaults(run=run_uninstall)

    hosts = subparsers.add_parser(
        "hosts",
        help=HOSTS_HELP,
        description=HOSTS_HELP,
        epilog=HOSTS_EPILOG,
        formatter_class=fmt,
    )
    hosts.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="output format (markdown: the table of what each host gets, as the documents hold it)",
    )
    hosts.add_argument(
        "--mcp",
        action="store_true",
        help="print the mcpServers entry that runs `engramory mcp` for a store (MCP clients)",
    )
    hosts.add_argument("--store", metavar="PATH", help="with --mcp: the store (default: found)")
    hosts.set_defaults(run=run_hosts)


def _layout(args: argparse.Namespace) -> layout.Layout:
    spec, reader = resolve(args.host)
    if args.native:
        check_native_flags(spec, reader, global_=args.global_, memory_root=args.memory_root)
    return layout.resolve(
        spec,
        reader,
        global_=args.global_,
        project_root=args.project_root,
        memory_root=args.memory_root,
        native=args.native,
    )


def _say(line: str) -> None:
    """Print one report line; paths in it may hold control characters, so they are escaped."""
    print(printable(line))


def run_init(args: argparse.Namespace) -> int:
    options = Options(
        install_skill=args.install_skill,
        install_hooks=args.install_hooks,
        hook_python=args.hook_python,
        force=args.force,
        mode=args.mode,
        host_options=_host_options(args),
    )
    if args.guard_only:
        spec, reader = resolve(args.host)
        check_guard_only_flags(
            spec,
            reader,
            options,
            global_=args.global_,
            memory_root=args.memory_root,
            native=args.native,
        )
        return execute(plan_guard_only(_layout(args), options), args.dry_run, _say)
    where = _layout(args)
    plan = plan_init(where, options)
    if not where.global_ and not args.dry_run:
        from engramory.history.projectrecord import remember  # noqa: PLC0415 - best effort

        remember(where.root)
    return execute(plan, args.dry_run, _say)


def _host_options(args: argparse.Namespace) -> dict[str, str]:
    """The host-specific values a host's hook files are built from (``Host.option_flags``);
    a flag of another host is a usage error."""
    chosen, _ = resolve(args.host)
    values: dict[str, str] = {}
    for spec in HOSTS.values():
        for flag, dest, _help in spec.option_flags:
            value = getattr(args, dest, None)
            if value is None:
                continue
            if spec is not chosen:
                raise FlagRefusal(f"{flag} applies to {spec.name} only")
            values[dest] = value
    return values


def run_uninstall(args: argparse.Namespace) -> int:
    options = Options(host_options=_host_options(args))
    plan = plan_uninstall(_layout(args), options)
    code = execute(plan, args.dry_run, _say)
    _say_where_history_is()
    return code


def _say_where_history_is() -> None:
    """Uninstall never deletes a store's history (issue 37): say where it is kept."""
    from engramory.history.location import base_dir  # noqa: PLC0415

    if os.path.isdir(base_dir()):
        print(
            printable(
                f"store history kept in {base_dir()} (not deleted; "
                "`engramory history forget --yes` deletes a store's)"
            )
        )


MCP_FOOTER = (
    "MCP clients with no files or no standing rules (desktop chat apps, web agents): serve the "
    "store with `engramory mcp --store PATH`; `engramory hosts --mcp` prints the mcpServers "
    "entry (adapters/mcp/README.md). File-capable hosts above: use init instead."
)


def mcp_entry(store: str | None) -> dict[str, object]:
    """The ``mcpServers`` entry running this interpreter's ``engramory mcp`` on a store."""
    if store is not None:
        root = os.path.realpath(discovery.locate(store).root)
    else:
        try:
            root = os.path.realpath(discovery.locate().root)
        except EngramoryError:
            root = "/ABSOLUTE/PATH/TO/.engramory-memory"
    command = os.path.abspath(sys.executable) if sys.executable else "python3"
    args = ["-m", "engramory", "mcp", "--store", root]
    return {"mcpServers": {"engramory": {"command": command, "args": args}}}


def run_hosts(args: argparse.Namespace) -> int:
    if getattr(args, "mcp", False):
        print(json.dumps(mcp_entry(args.store), indent=2, ensure_ascii=False))
        return 0
    if args.format == "markdown":
        print(summary.markdown_table(), end="")
        return 0
    table = rows()
    if args.format == "json":
        print(json.dumps(table, indent=2, ensure_ascii=False))
        return 0
    for row in table:
        wiring = "verified" if row["wiring"] == VERIFIED else "documented-only"
        print(f"{row['host']} ({row['label']}) - wiring {wiring}")
        kind = "marked block" if row["rules_kind"] == "block" else "dedicated file"
        global_rules = row["global_rules"] or "not supported"
        print(f"  rules:     {row['rules']} ({kind}); --global: {global_rules}")
        print(f"  reader:    {row['reader_rules']}")
        print(f"  skill:     {row['skill'] or '-'}; --global: {row['global_skill'] or '-'}")
        hooks = "yes, the index guard (--install-hooks)" if row["pre_write_hook"] else "no"
        print(f"  pre-write deny hook: {hooks}")
        lifecycle = row["lifecycle_hooks"]
        assert isinstance(lifecycle, list)
        if lifecycle:
            gate = (
                "remind and gate"
                if row["compaction_gate"]
                else "remind; the host cannot hold a compaction back: the gate is a reminder"
            )
            print(f"  continuity hooks: {', '.join(lifecycle)} (--install-hooks; {gate})")
        else:
            print("  continuity hooks: none installed")
        print(f"  cap enforcement: {CAP_ENFORCEMENT_TEXT[str(row['cap_enforcement'])]}")
        print(f"  after-write check: {AFTER_WRITE_TEXT[str(row['after_write_check'])]}")
        print(f"  index cap: {row['enforcement']}")
        print(f"  own memory: {row['memory'] or 'none'}")
        print(f"  its cap: {row['memory_cap']}: {row['memory_cap_text']}")
        for note in row["notes"]:
            print(f"  note:      {note}")
    print()
    print(MCP_FOOTER)
    return 0
