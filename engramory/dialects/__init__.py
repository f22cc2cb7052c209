"""What runs inside a host's hook: the guard hook's entry and the one registry of dialects.

``engramory.dialects.<host>`` reads the host's hook payloads into tool calls and writes the
guard's verdicts and the continuity replies back in the host's format (the
:class:`~engramory.dialects.base.Dialect` protocol); :data:`DIALECTS` names them all, and
:mod:`engramory.dialects.lifecycle` dispatches the continuity hooks to them. The installer's
side of each host is :mod:`engramory.hosts`, which this package never imports.

The hook's entry lives here, in the package itself, because the guard hook imports this
package before every tool call an agent makes: a separate entry module would cost one more
import on every call. One hook call in, the host's answer out.

``hooks/engramory_index_guard.py`` and ``engramory guard`` both run
:func:`main`. Arguments: ``--host HOST`` (default ``claude``), ``--event
pre|post`` (default ``pre``), ``--index PATH``. Before a tool call the payload
is read from stdin (at most :data:`~engramory.guard.PAYLOAD_LIMIT` plus
one byte), read by the host's dialect into tool calls, judged by
:mod:`engramory.guard.service`, and answered in the host's format. After a tool
call the same payload is read by the dialect (``after_calls(payload)`` when it has one,
else ``tool_calls``) and :mod:`engramory.guard.afterwrite` measures the index the call may
have touched (the one ``--index`` or ``ENGRAMORY_INDEX_PATH`` names, else the one the call
named or discovery finds from its ``cwd``) and scans the store notes it may have written.

A dialect (:class:`~engramory.dialects.base.Dialect`) is a module in ``engramory.dialects``,
named by :data:`engramory.dialects.DIALECTS`, with ``may_concern_index(raw,
environ, index)`` (a cheap test on the raw bytes), ``oversized_call(raw)`` (a
payload too large to parse), ``tool_calls(payload)`` (the decoded JSON) and
``render(verdict, event)`` (the text to print and the exit code; a third item
:data:`STDERR` sends the text to stderr instead of stdout, for a host that reads
a deny's reason there).

Any internal error fails open (silence, exit 0): a guard that crashed must not
stop the agent from working. The argument parser is hand-rolled: ``argparse``
costs more to import than the whole hook on a call that does not touch the index.
"""

import sys

from engramory import guard

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: the guard's path never imports typing
if TYPE_CHECKING:  # annotations only: the hook should not pay for importing them
    import os

    from engramory.dialects.base import Dialect
    from engramory.guard.decision import Verdict

# Host name -> its dialect module: the ``--host`` choices of ``engramory guard`` and of
# ``engramory sync hook``. Adding a host is one line here (and one in hosts/registry.py).
DIALECTS = {
    "claude": "engramory.dialects.claude",
    "codex": "engramory.dialects.codex",
    "gemini": "engramory.dialects.gemini",
    "qwen": "engramory.dialects.qwen",
    "copilot": "engramory.dialects.copilot",
    "cursor": "engramory.dialects.cursor",
    "cline": "engramory.dialects.cline",
    "hermes": "engramory.dialects.hermes",
    "kiro": "engramory.dialects.kiro",
    "opencode": "engramory.dialects.opencode",
    "openclaw": "engramory.dialects.openclaw",
}


def dialect(host: str) -> "Dialect | None":
    """The dialect module of ``host``, or ``None`` when it has none."""
    module = DIALECTS.get(host)
    return __import__(module, fromlist=("render",)) if module is not None else None  # type: ignore[return-value]


DEFAULT_HOST = "claude"
EVENTS = ("pre", "post")
STDERR = "stderr"  # a render's optional third item: print the text on stderr
BOM = b"\xef\xbb\xbf"  # Cursor sends one before the JSON when it runs Claude's hooks


def options(argv: "list[str]") -> "tuple[str, str, str | None]":
    """``(host, event, index)`` from the hook's arguments (unknown ones are ignored)."""
    found: dict[str, str] = {}
    for i, arg in enumerate(argv):
        for flag in ("--host", "--event", "--index"):
            if arg == flag and i + 1 < len(argv):
                found[flag] = argv[i + 1]
            elif arg.startswith(flag + "="):
                found[flag] = arg.split("=", 1)[1]
    return found.get("--host", DEFAULT_HOST), found.get("--event", "pre"), found.get("--index")


def _read_stdin() -> bytes:
    return sys.stdin.buffer.read(guard.PAYLOAD_LIMIT + 1)


def answer(
    argv: "list[str]", raw: "bytes | None", environ: "dict[str, str] | os._Environ[str]"
) -> "tuple[str, int] | tuple[str, int, str]":
    """What the hook prints (maybe nothing) and its exit code, for ``argv`` and stdin's bytes
    (and :data:`STDERR` when the dialect prints it there).

    ``raw`` is read lazily (``None``): the check after a tool call does not need it.
    """
    host, event, index = options(argv)
    host_dialect = dialect(host)
    if host_dialect is None:
        return "", 0
    payload_bytes = _read_stdin() if raw is None else raw
    if event == "post":
        after = _after_call(host_dialect, payload_bytes, environ, index)
        return ("", 0) if after is None else host_dialect.render(after, event)
    if len(payload_bytes) > guard.PAYLOAD_LIMIT:
        from engramory.guard import service  # noqa: PLC0415 - only for a call to judge

        call = host_dialect.oversized_call(payload_bytes)
        return host_dialect.render(service.check_oversized(call, environ, index), event)
    if payload_bytes.startswith(BOM):  # measured with it: a cut-off payload is still too large
        payload_bytes = payload_bytes[len(BOM) :]
    if not host_dialect.may_concern_index(payload_bytes, environ, index):
        return "", 0
    from engramory.util import fastjson  # noqa: PLC0415 - only when the index may be involved

    try:
        payload = fastjson.loads(payload_bytes.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return "", 0
    from engramory.guard import service  # noqa: PLC0415 - only for a call to judge

    calls = host_dialect.tool_calls(payload)
    verdict = service.strongest([service.check(call, environ, index) for call in calls])
    return host_dialect.render(verdict, event)


def _after_call(
    host_dialect: "Dialect",
    payload_bytes: bytes,
    environ: "dict[str, str] | os._Environ[str]",
    index: "str | None",
) -> "Verdict | None":
    """The check after a call (:mod:`engramory.guard.afterwrite`): what the call may have
    touched, read by the host's dialect, is measured and scanned (``None``: nothing to say).

    A payload the dialect dismisses on its raw bytes (a read, an edit of another file) costs
    nothing more, unless it may be a shell call: whatever the command, the index is measured
    after it (a script the guard could not follow may have written it). One over the bound,
    that is not a JSON object or that names no tool call the dialect can read, is answered
    with silence.
    """
    if len(payload_bytes) > guard.PAYLOAD_LIMIT:
        return None
    if payload_bytes.startswith(BOM):
        payload_bytes = payload_bytes[len(BOM) :]
    if not host_dialect.may_concern_index(payload_bytes, environ, index) and (
        b"command" not in payload_bytes  # any shell call (a script, make...) may write it
    ):
        return None
    from engramory.guard import afterwrite  # noqa: PLC0415
    from engramory.util import fastjson  # noqa: PLC0415 - only when the store may be involved

    try:
        payload = fastjson.loads(payload_bytes.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(payload, dict):
        return None
    calls = getattr(host_dialect, "after_calls", host_dialect.tool_calls)(payload)
    return afterwrite.check(calls, environ, index) if calls else None


def main(argv: "list[str] | None" = None) -> int:
    """Run one hook call: print the host's answer; never a traceback (fails open, exit 0)."""
    try:
        reply = answer(sys.argv[1:] if argv is None else argv, None, guard.process_environ())
    except Exception:
        return 0
    text, code = reply[0], reply[1]
    if text:
        stream = sys.stderr if reply[2:] == (STDERR,) else sys.stdout
        stream.write(text + "\n")
        stream.flush()
    return code
