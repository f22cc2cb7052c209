"""Claude Code's hook dialect for the index guard (PreToolUse and PostToolUse).

Payload (research/hosts.md §1): ``tool_name`` and ``tool_input`` --
``Write {file_path, content}``, ``Edit {file_path, old_string, new_string,
replace_all}``, legacy ``MultiEdit {file_path, edits[]}`` and
``Bash {command}`` -- plus ``cwd``. Hosts that read Claude's settings files send
the same shape with small differences, which are accepted too: Continue's
``Write`` names the path ``filepath``; a payload without the new content
cannot be predicted and is never denied.

Answers: a deny is exit 0 with ``hookSpecificOutput.permissionDecision:
"deny"`` and a reason; a nudge is the same object with ``additionalContext``
and no decision; silence is no output. Never ``allow`` (that would
auto-approve the call) and never ``ask``. After a tool ran (PostToolUse), an
index over its hard cap is answered ``{"decision": "block", "reason": ...}``,
which Claude Code feeds back to the agent.

Which file is the index: ``ENGRAMORY_INDEX_PATH`` (that exact file, symlinks
and ``..`` resolved) when set, else any file named ``ENGRAMORY_INDEX_NAME``
(default ``MEMORY.md``, compared case-insensitively; an empty value means the
default, never "off").

Speed: this runs before every edit the agent makes. Payloads that cannot
concern the index are recognised on the raw bytes and dismissed before any
JSON is parsed; the rest are parsed by :mod:`engramory.fastjson`, which skips
the standard ``json`` package's import of ``re``.
"""

from __future__ import annotations

import os
import sys

from engramory import guard
from engramory.caps import Caps, caps_from
from engramory.guard import Size, Verdict

DEFAULT_INDEX_NAME = "MEMORY.md"
PAYLOAD_LIMIT = 64 * 1024 * 1024
EDIT_TOOLS = ("Write", "Edit", "MultiEdit")
SHELL_TOOL = "Bash"


def index_name(environ: dict[str, str] | os._Environ[str]) -> str:
    """The index file name to guard (an empty setting means the default)."""
    return environ.get("ENGRAMORY_INDEX_NAME", "").strip() or DEFAULT_INDEX_NAME


def index_path(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """The one index file to guard, when ``ENGRAMORY_INDEX_PATH`` pins it."""
    pinned = environ.get("ENGRAMORY_INDEX_PATH", "").strip()
    return os.path.expanduser(pinned) if pinned else None


def may_concern_index(raw: bytes, environ: dict[str, str] | os._Environ[str]) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?

    False only when the index's name cannot appear in the decoded payload:
    it is absent from the bytes and no ``\\u`` escape could spell it. With
    ``ENGRAMORY_INDEX_PATH`` set, a symlink of any name may lead to the index,
    so every payload is parsed.
    """
    if index_path(environ) is not None:
        return True
    name = index_name(environ).lower()
    if not name.isascii():
        return True
    return name.encode("ascii") in raw.lower() or b"\\u" in raw


def is_index(path: str, cwd: str, environ: dict[str, str] | os._Environ[str]) -> bool:
    """Whether ``path`` (relative to ``cwd``) is the file the guard protects."""
    pinned = index_path(environ)
    if pinned is None:
        return (
            os.path.basename(path.replace("\\", "/").rstrip("/")).lower()
            == index_name(environ).lower()
        )
    full = os.path.join(cwd, os.path.expanduser(path))
    return os.path.normcase(os.path.realpath(full)) == os.path.normcase(os.path.realpath(pinned))


def read_index(path: str, caps: Caps) -> tuple[str, bytes | None]:
    """``("absent", None)``, ``("ok", raw)`` or ``("unreadable", None)``."""
    from engramory import fsutil  # noqa: PLC0415 - only for payloads that target the index

    try:
        return "ok", fsutil.read_bounded(path, caps.read_limit())
    except (FileNotFoundError, NotADirectoryError):
        return "absent", None
    except (OSError, MemoryError, OverflowError):
        return "unreadable", None


def _predict(tool: str, tool_input: dict[str, object], current: str) -> str | None:
    from engramory import edits  # noqa: PLC0415

    if tool == "Write":
        content = tool_input.get("content")
        if content is None:
            content = tool_input.get("file_text")
        return content if isinstance(content, str) else None
    if tool == "Edit":
        return edits.apply_edit(
            current,
            tool_input.get("old_string"),
            tool_input.get("new_string"),
            tool_input.get("replace_all"),
        )
    edit_list = tool_input.get("edits")
    return edits.apply_edits(current, edit_list) if isinstance(edit_list, list) else None


def check_edit(tool: str, tool_input: dict[str, object], path: str, caps: Caps) -> Verdict:
    """The verdict for an Edit/Write/MultiEdit of the index at ``path``."""
    from engramory.edits import decode_index  # noqa: PLC0415

    status, raw = read_index(path, caps)
    if status == "unreadable":
        return guard.unverified("the memory index exists but could not be read in full")
    current = decode_index(raw) if raw is not None else ""
    predicted = _predict(tool, tool_input, current)
    if predicted is None:
        return guard.unverified("the tool call does not carry the new content")
    before = Size.of_raw(raw) if raw is not None else None
    return guard.decide(before, Size.of_text(predicted), caps)


def check_shell(command: object, cwd: str, environ: dict[str, str] | os._Environ[str]) -> Verdict:
    """Deny a shell command that would write the index."""
    if not isinstance(command, str):
        return Verdict(guard.SILENT)
    from engramory import shellwrite  # noqa: PLC0415

    pinned = index_path(environ)
    matcher = (
        shellwrite.path_matcher(pinned)
        if pinned is not None
        else shellwrite.name_matcher(index_name(environ))
    )
    target = shellwrite.index_write(command, matcher, cwd)
    return guard.shell_write(target) if target is not None else Verdict(guard.SILENT)


def pre_tool_use(payload: object, environ: dict[str, str] | os._Environ[str]) -> Verdict:
    """The verdict for one PreToolUse payload (already decoded from JSON)."""
    if not isinstance(payload, dict):
        return Verdict(guard.SILENT)
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return Verdict(guard.SILENT)
    cwd = payload.get("cwd")
    cwd = cwd if isinstance(cwd, str) and cwd else os.getcwd()
    if tool == SHELL_TOOL:
        return check_shell(tool_input.get("command"), cwd, environ)
    if tool not in EDIT_TOOLS:
        return Verdict(guard.SILENT)
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not path:
        path = tool_input.get("filepath")  # Continue's Write
    if not isinstance(path, str) or not path or not is_index(path, cwd, environ):
        return Verdict(guard.SILENT)
    return check_edit(tool, tool_input, os.path.join(cwd, path), caps_from(dict(environ)))


def post_tool_use(path: str | None, environ: dict[str, str] | os._Environ[str]) -> Verdict:
    """After a tool ran: is the index at ``path`` over a hard cap now?"""
    if not path:
        return Verdict(guard.SILENT)
    caps = caps_from(dict(environ))
    try:
        size = os.stat(path).st_size
    except OSError:
        return Verdict(guard.SILENT)
    if guard.over_bytes_only(size, caps):
        return guard.after_the_fact(None, size, caps)
    status, raw = read_index(path, caps)
    if status != "ok" or raw is None:
        return Verdict(guard.SILENT)
    measured = Size.of_raw(raw)
    return guard.after_the_fact(measured.lines, measured.bytes_, caps)


def render(verdict: Verdict, event: str) -> dict[str, object] | None:
    """The JSON object to print for a verdict, or ``None`` for silence."""
    if verdict.kind == guard.SILENT:
        return None
    if event == "post":
        if verdict.kind != guard.DENY:
            return None
        return {"decision": "block", "reason": verdict.message}
    output: dict[str, object] = {"hookEventName": "PreToolUse"}
    if verdict.kind == guard.DENY:
        output["permissionDecision"] = "deny"
        output["permissionDecisionReason"] = verdict.message
    else:
        output["additionalContext"] = verdict.message
    return {"hookSpecificOutput": output}


def _options(argv: list[str]) -> tuple[str, str | None]:
    event, index = "pre", None
    for i, arg in enumerate(argv):
        if arg == "--event" and i + 1 < len(argv):
            event = argv[i + 1]
        elif arg.startswith("--event="):
            event = arg.split("=", 1)[1]
        elif arg == "--index" and i + 1 < len(argv):
            index = argv[i + 1]
        elif arg.startswith("--index="):
            index = arg.split("=", 1)[1]
    return event, index


def _read_stdin() -> bytes:
    data = sys.stdin.buffer.read(PAYLOAD_LIMIT + 1)
    return b"" if len(data) > PAYLOAD_LIMIT else data


def answer(argv: list[str], raw: bytes | None, environ: dict[str, str] | os._Environ[str]) -> str:
    """What the hook prints (maybe nothing) for ``argv`` and the raw stdin payload.

    ``raw`` is read lazily (``None``): the PostToolUse check does not need it.
    """
    event, index = _options(argv)
    if event == "post":
        verdict = post_tool_use(index or index_path(environ), environ)
    else:
        payload_bytes = _read_stdin() if raw is None else raw
        if not may_concern_index(payload_bytes, environ):
            return ""
        from engramory import fastjson  # noqa: PLC0415 - only when the index may be involved

        try:
            payload = fastjson.loads(payload_bytes.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            return ""
        verdict = pre_tool_use(payload, environ)
    output = render(verdict, event)
    if output is None:
        return ""
    from engramory import fastjson  # noqa: PLC0415

    return fastjson.dumps(output)


def hook_main(argv: list[str] | None = None) -> int:
    """Entry point of ``hooks/engramory_index_guard.py``: always exit 0, never a traceback.

    Any internal error fails open (silently allows the call): a guard that
    crashed must not stop the agent from working.
    """
    try:
        text = answer(sys.argv[1:] if argv is None else argv, None, os.environ)
    except Exception:
        return 0
    if text:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    return 0
