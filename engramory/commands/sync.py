"""``engramory sync``: lifecycle hooks for Codex and Claude Code, ``mark-synced`` and ``status``.

``sync hook`` reads one hook event (JSON) on stdin and answers in the host's
format; what it answers is :mod:`engramory.continuity.policy`, how it is
written is the host module's ``render_lifecycle``. This module holds the
argparse wiring and the I/O: stdin, the store's discovery, printing.
Any internal error fails open, except before a manual compaction, which fails
closed with instructions. The hook always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from engramory import dialects
from engramory.commands.options import add_cap_flags, add_format_flag, caps_from_args
from engramory.continuity import policy
from engramory.continuity import state as continuity
from engramory.continuity.policy import HookInputError, Reply
from engramory.dialects import lifecycle
from engramory.store import breach, discovery
from engramory.store.caps import Measurement
from engramory.util.errors import EXIT_OK, EXIT_USAGE, EngramoryError
from engramory.util.textfmt import printable

INPUT_LIMIT = 1024 * 1024


class OversizedEvent(HookInputError):
    """An event over :data:`INPUT_LIMIT`; ``data`` holds its first bytes (one past the limit)."""

    def __init__(self, data: bytes) -> None:
        super().__init__("the event is larger than 1 MiB")
        self.data = data


def _read_payload() -> object:
    data = sys.stdin.buffer.read(INPUT_LIMIT + 1)
    if len(data) > INPUT_LIMIT:
        raise OversizedEvent(data)
    text = data.decode("utf-8", "replace")
    if not text.strip():
        raise HookInputError("the event is empty")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise HookInputError(f"the event is not JSON ({exc})") from None


# --- the command line -------------------------------------------------------------------------

HELP = "continuity sync: lifecycle hooks, mark-synced, status"
DESCRIPTION = """\
Bookkeeping for the continuity sync (SKILL.md section 7.2). The sync itself is
the agent's work; these commands remember which sessions have work the store
may not hold yet, and hold back a manual compaction until the agent has synced
and acknowledged it. State lives in STORE/.engramory-state.json (mode 0600):
flags, counters and timestamps only, never prompts or note contents."""
EPILOG = """\
examples:
  engramory sync status .engramory-memory
  engramory sync status --format json
  engramory sync mark-synced --session-id=abc123 .engramory-memory
  engramory sync hook --host codex --mode explicit .engramory-memory < event.json"""


STATUS_EPILOG = """\
examples:
  engramory sync status
  engramory sync status --format json

--format json prints one object; every path in it is absolute:
  {"store": "/abs/store", "state_path": "/abs/store/.engramory-state.json",
   "last_session_id": "s1" | null, "session_count": 1, "unsynced": ["s1"],
   "dropped_unsynced_sessions": 0,
   "sessions": {"s1": {"dirty": true, "needs_reconcile": false, "dirty_at": "...",
                       "synced_at": "...", ...the state file's fields}},
   "index": {"path": "/abs/store/MEMORY.md", "loadable": true, "lines": 12,
             "bytes": 840, "error": null}}"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``sync`` with ``hook``, ``mark-synced`` and ``status``."""
    fmt = argparse.RawDescriptionHelpFormatter
    sync = subparsers.add_parser(
        "sync", help=HELP, description=DESCRIPTION, epilog=EPILOG, formatter_class=fmt
    )
    actions = sync.add_subparsers(title="actions", dest="action", metavar="ACTION")

    hook = actions.add_parser(
        "hook",
        help="answer one lifecycle hook event (JSON on stdin); always exits 0",
        description="Answer one SessionStart, UserPromptSubmit or PreCompact event in the "
        "host's format.",
        epilog="example:\n  engramory sync hook --host claude .engramory-memory < event.json",
        formatter_class=fmt,
    )
    hook.add_argument(
        "--host", choices=tuple(dialects.DIALECTS), required=True, help="hook dialect"
    )
    hook.add_argument(
        "--event",
        choices=lifecycle.LIFECYCLE_EVENTS,
        help="the event this hook is registered for, when the host's payload does not name "
        "it in Claude Code's terms (file hooks named after their event, plugins)",
    )
    hook.add_argument(
        "--mode", choices=continuity.MODES, default=continuity.EXPLICIT, help="sync policy"
    )
    hook.add_argument("store", nargs="?", metavar="STORE", help="the memory store")
    hook.set_defaults(run=run_hook)

    synced = actions.add_parser(
        "mark-synced",
        help="record that the continuity sync is done (touches no note)",
        description="Record that the agent finished the continuity sync for a session. "
        "Refuses when MEMORY.md is missing, a symlink, outside the store or over a hard cap, "
        "and, without --session-id, when more than one session is unsynced.",
        epilog="examples:\n  engramory sync mark-synced .engramory-memory\n"
        "  engramory sync mark-synced --session-id=abc123 .engramory-memory",
        formatter_class=fmt,
    )
    synced.add_argument("--session-id", metavar="ID", help="the session the sync was for")
    synced.add_argument("store", nargs="?", metavar="STORE", help="the memory store")
    add_cap_flags(synced)
    synced.set_defaults(run=run_mark_synced)

    status = actions.add_parser(
        "status",
        help="show the sessions, their sync state and the index (reads without a lock)",
        description="Show the recorded sessions, whether each has unsynced work, and the index.",
        epilog=STATUS_EPILOG,
        formatter_class=fmt,
    )
    add_format_flag(status)
    status.add_argument("store", nargs="?", metavar="STORE", help="the memory store")
    add_cap_flags(status)
    status.set_defaults(run=run_status)
    sync.set_defaults(run=_needs_action(sync))


def _needs_action(parser: argparse.ArgumentParser):  # type: ignore[no-untyped-def]
    def run(_args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return EXIT_USAGE

    return run


def hook_reply(store_arg: str | None, host: str, mode: str, event_arg: str | None = None) -> Reply:
    """The reply to the event on stdin, whatever goes wrong (no store, bad input, a bug).

    The payload is read first, so that a failure after it (no store found, a
    damaged state file) still knows whether a manual compaction must be held.
    """
    event, trigger = event_arg or "", "unknown"
    store: Path | None = None
    try:
        payload = lifecycle.lifecycle_payload(host, _event(host), event_arg)
        event, trigger = policy.event_and_trigger(payload)
        if not store_arg and lifecycle.store_per_call(host):
            found = _store_from(payload)
            if found is None:  # not an Engramory project: nothing to remind of
                if event in ("SessionStart", "UserPromptSubmit"):
                    return Reply(policy.QUIET, event=event)
                found = Path(discovery.locate(None).root)  # raises: the reply says why
            store = found
        else:
            store = Path(store_arg) if store_arg else Path(discovery.locate(None).root)
        return policy.handle(payload, store, host, mode)
    except (EngramoryError, HookInputError, OSError) as exc:
        return policy.failure(store, event, trigger, str(exc))
    except Exception as exc:
        return policy.failure(store, event, trigger, f"internal error: {type(exc).__name__}")


def _event(host: str) -> object:
    """The event on stdin; one too large to read in full, as much as the host can tell of it."""
    try:
        return _read_payload()
    except OversizedEvent as exc:
        cut = lifecycle.oversized_lifecycle_payload(host, exc.data)
        if cut is None:
            raise
        return cut


def _store_from(payload: object) -> Path | None:
    """The store for a hook registered without one (a user-wide config serving every project):
    found from the event's ``cwd`` (else this process's directory); ``None`` when there is none.
    """
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    where = (
        Path(cwd) if isinstance(cwd, str) and os.path.isabs(cwd) and os.path.isdir(cwd) else None
    )
    try:
        return Path(discovery.locate(cwd=where).root)
    except EngramoryError:
        return None


def run_hook(args: argparse.Namespace) -> int:
    """Answer one hook event in the host's format; exit 0 whatever happens."""
    text, code = lifecycle.render_lifecycle(
        args.host, hook_reply(args.store, args.host, args.mode, args.event)
    )
    if text:
        print(text)
    return code


def run_mark_synced(args: argparse.Namespace) -> int:
    store = discovery.locate(args.store).root
    result = continuity.mark_synced(Path(store), caps_from_args(args), args.session_id)
    verb = "acknowledgement recorded" if result.changed else "acknowledgement already current"
    print(
        printable(
            f"{verb} for session {result.session_id!r}: the index is "
            f"{breach.size_text(result.index.measured or Measurement(0, 0))}"
        )
    )
    return EXIT_OK


def run_status(args: argparse.Namespace) -> int:
    store = Path(discovery.locate(args.store).root)
    report = policy.status_report(store, caps_from_args(args))
    if args.format == "json":
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return EXIT_OK
    for line in policy.status_lines(report):
        print(printable(line))
    return EXIT_OK
