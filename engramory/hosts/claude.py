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

Which file is the index: with ``ENGRAMORY_INDEX_PATH`` set, that file and no
other (by resolved path, or the same device and inode: a hard link). Else any
file named ``ENGRAMORY_INDEX_NAME`` (default ``MEMORY.md``, compared
case-insensitively; an empty value means the default, never "off") and, when
the handler was registered with ``--index PATH`` (``engramory init`` does
that), also that file under any name (a symlink or hard link to it).

Speed: this runs before every edit the agent makes. Payloads that cannot
concern the index are recognised on the raw bytes and dismissed before any
JSON is parsed: an edit whose ``file_path`` is not the index (one ``stat``
when the index is known), a shell command that cannot write anything (no
``>``, no substitution or ANSI-C quote, no word that names a program able
to write a file: :data:`SHELL_WRITERS`). The rest are parsed by
:mod:`engramory.fastjson`, which skips the standard ``json`` package's
import of ``re``. A payload over :data:`PAYLOAD_LIMIT` is not parsed: its
``file_path`` is found by a bounded scan, and an edit of the index that large
is denied as too large to check.
"""

from __future__ import annotations

import os
import sys

from engramory.caps import INDEX_NAME, Caps, Measurement, caps_from
from engramory.guard import decision as guard
from engramory.guard.decision import Verdict

PAYLOAD_LIMIT = 64 * 1024 * 1024
EDIT_TOOLS = ("Write", "Edit", "MultiEdit")
SHELL_TOOL = "Bash"


def index_name(environ: dict[str, str] | os._Environ[str]) -> str:
    """The index file name to guard (an empty setting means the default)."""
    return environ.get("ENGRAMORY_INDEX_NAME", "").strip() or INDEX_NAME


def index_path(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """The one index file to guard, when ``ENGRAMORY_INDEX_PATH`` pins it."""
    pinned = environ.get("ENGRAMORY_INDEX_PATH", "").strip()
    return os.path.expanduser(pinned) if pinned else None


# Programs (and shell words) that can write a file: a Bash command holding none
# of them, and no ``>``, ``$(``, backtick or ``$'``, cannot write the index.
# Wrappers (sudo, env, nice...) are not listed: they write only through one of these.
SHELL_WRITERS = frozenset(
    b"""sh bash zsh dash ksh mksh ash yash posh fish eval source . exec env busybox
    tee sed perl ruby python pypy node nodejs bun deno php awk gawk mawk nawk cp mv install
    ln rsync dd truncate touch rm unlink shred srm sponge sort shuf uniq patch curl wget git
    find xargs vi vim nvim gvim ex vimdiff view rview rvim nano pico micro joe jed mg kak hx
    helix ed red emacs emacsclient strace ltrace watch flock uv coproc script su read""".split()
)
_WORD_BYTES = bytes(
    c if chr(c).isalnum() or chr(c) in "._+-" else 32 for c in range(256)
)  # everything else separates words
_EDIT_KEYS = (b"file_path", b"filepath")


def json_string(raw: bytes, key: bytes) -> bytes | None:
    """The raw (still escaped) string value of the first ``"key":`` member, or ``None``.

    A key inside a string value is escaped (``\\"key\\"``), so a quote not
    preceded by a backslash starts a real key. One left-to-right pass.
    """
    needle = b'"' + key + b'"'
    at = raw.find(needle)
    while at >= 0:
        j = at + len(needle)
        if at == 0 or raw[at - 1] != 0x5C:
            while raw[j : j + 1] in (b" ", b"\t", b"\r", b"\n"):
                j += 1
            if raw[j : j + 1] == b":":
                j += 1
                while raw[j : j + 1] in (b" ", b"\t", b"\r", b"\n"):
                    j += 1
                return _string_at(raw, j)
        at = raw.find(needle, j)
    return None


def _string_at(raw: bytes, start: int) -> bytes | None:
    if raw[start : start + 1] != b'"':
        return None
    k = start + 1
    while True:
        end = raw.find(b'"', k)
        if end < 0:
            return None
        slashes = 0
        while raw[end - 1 - slashes] == 0x5C:
            slashes += 1
        if slashes % 2 == 0:
            return raw[start + 1 : end]
        k = end + 1


def _decoded(value: bytes) -> str | None:
    if b"\\" not in value:
        return value.decode("utf-8", "replace")
    from engramory import fastjson  # noqa: PLC0415 - only for escaped strings

    try:
        decoded = fastjson.loads('"' + value.decode("utf-8", "replace") + '"')
    except (ValueError, RecursionError):
        return None
    return decoded if isinstance(decoded, str) else None


def shell_may_write(command: bytes) -> bool:
    """Could this (JSON-escaped) command write any file? ``False`` only when it surely cannot.

    Quotes and backslashes are removed before words are cut, so ``t'e'e`` and
    ``\\tee`` are seen as ``tee``.
    """
    low = command.lower()
    if any(marker in low for marker in (b">", b"`", b"$(", b"$'", b"\\u")):
        return True
    low = low.replace(b"\\\\", b"").replace(b"\\n", b" ").replace(b"\\t", b" ")
    low = low.replace(b"\\r", b" ").translate(None, b"\\'\"")
    for word in low.translate(_WORD_BYTES).split():
        if word in SHELL_WRITERS or word.rstrip(b"0123456789.") in SHELL_WRITERS:
            return True
    return False


def may_concern_index(
    raw: bytes, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> bool:
    """A cheap test on the raw payload: could this call touch the index at all?

    A Bash call: only when the command may write something. An edit: when
    its ``file_path`` is the index (by name, or by identity when ``index`` or
    ``ENGRAMORY_INDEX_PATH`` names it). Anything that cannot be read cheaply
    (escapes, an unusual shape) is parsed in full.
    """
    tool = json_string(raw, b"tool_name")
    if tool == b"Bash":
        command = json_string(raw, b"command")
        return command is None or shell_may_write(command)
    if tool is None or tool not in (b"Write", b"Edit", b"MultiEdit"):
        return tool is None or b"\\" in tool
    for key in _EDIT_KEYS:
        value = json_string(raw, key)
        if value is None:
            continue
        path = _decoded(value)
        if path is None:
            return True
        cwd = json_string(raw, b"cwd")
        cwd_text = _decoded(cwd) if cwd is not None else os.getcwd()
        return cwd_text is None or is_index(path, cwd_text, environ, index)
    return True


def is_index(
    path: str, cwd: str, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> bool:
    """Whether ``path`` (relative to ``cwd``) is the file the guard protects."""
    pinned = index_path(environ)
    if pinned is None:
        name = index_name(environ).lower()
        if os.path.basename(path.replace("\\", "/").rstrip("/")).lower() == name:
            return True
        if index is None:
            return False
        pinned = index
    return same_file(os.path.join(cwd, os.path.expanduser(path)), os.path.expanduser(pinned))


def same_file(target: str, index: str) -> bool:
    """Whether ``target`` is ``index``: one file (device and inode) or one resolved path.

    The same rule as :class:`engramory.guard.indexmatch.IndexMatcher`, without its
    import: this runs on every edit once the index is known, so an existing
    target costs two ``stat`` calls and only a missing one is resolved.
    """
    try:
        st = os.stat(target)
    except (OSError, ValueError):
        try:
            return os.path.normcase(os.path.realpath(target)) == os.path.normcase(
                os.path.realpath(index)
            )
        except (OSError, ValueError):
            return False
    try:
        wanted = os.stat(index)
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) == (wanted.st_dev, wanted.st_ino)


def too_large(path: str) -> Verdict:
    """The deny for an edit of the index whose payload is too large to read."""
    return Verdict(
        guard.DENY,
        f"Engramory: this edit of the memory index ({path}) is over "
        f"{PAYLOAD_LIMIT // (1024 * 1024)} MiB, too large to check against the index's cap. "
        "The index must stay small: write a short pointer line instead.",
    )


def oversized(raw: bytes, environ: dict[str, str] | os._Environ[str], index: str | None) -> Verdict:
    """A payload over the bound: deny when its edit target is the index, else stay silent."""
    tool = json_string(raw, b"tool_name")
    if tool not in (b"Write", b"Edit", b"MultiEdit"):
        return Verdict(guard.SILENT)
    for key in _EDIT_KEYS:
        value = json_string(raw, key)
        path = _decoded(value) if value is not None else None
        if path:
            cwd = json_string(raw, b"cwd")
            cwd_text = (_decoded(cwd) if cwd is not None else None) or os.getcwd()
            if is_index(path, cwd_text, environ, index):
                return too_large(path)
            return Verdict(guard.SILENT)
    return Verdict(guard.SILENT)


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
    from engramory.guard import edits  # noqa: PLC0415

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
    from engramory.guard.edits import decode_index  # noqa: PLC0415

    status, raw = read_index(path, caps)
    if status == "unreadable":
        return guard.unverified("the memory index exists but could not be read in full")
    current = decode_index(raw) if raw is not None else ""
    predicted = _predict(tool, tool_input, current)
    if predicted is None:
        return guard.unverified("the tool call does not carry the new content")
    before = Measurement.of_raw(raw) if raw is not None else None
    return guard.decide(before, Measurement.of_text(predicted), caps)


def check_shell(
    command: object,
    cwd: str,
    environ: dict[str, str] | os._Environ[str],
    index: str | None = None,
) -> Verdict:
    """Deny a shell command that would write the index."""
    if not isinstance(command, str):
        return Verdict(guard.SILENT)
    from engramory.guard import shellwrite  # noqa: PLC0415

    pinned = index_path(environ)
    matcher = (
        shellwrite.IndexMatcher(None, pinned)
        if pinned is not None
        else shellwrite.IndexMatcher(index_name(environ), index)
    )
    target = shellwrite.index_write(command, matcher, cwd)
    if target in (shellwrite.TOO_DEEP, shellwrite.TOO_LONG):
        return Verdict(
            guard.DENY,
            f"Engramory: this shell command is {target.strip('()')}"
            ": the guard cannot tell whether it writes the memory index, so it is denied. "
            "Split it into simpler commands (and use the Edit or Write tool for the index).",
        )
    return guard.shell_write(target) if target is not None else Verdict(guard.SILENT)


def pre_tool_use(
    payload: object, environ: dict[str, str] | os._Environ[str], index: str | None = None
) -> Verdict:
    """The verdict for one PreToolUse payload (already decoded from JSON).

    ``index``: the store's index, when the handler was registered with ``--index``.
    """
    if not isinstance(payload, dict):
        return Verdict(guard.SILENT)
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return Verdict(guard.SILENT)
    cwd = payload.get("cwd")
    cwd = cwd if isinstance(cwd, str) and cwd else os.getcwd()
    if tool == SHELL_TOOL:
        return check_shell(tool_input.get("command"), cwd, environ, index)
    if tool not in EDIT_TOOLS:
        return Verdict(guard.SILENT)
    path = tool_input.get("file_path")
    if not isinstance(path, str) or not path:
        path = tool_input.get("filepath")  # Continue's Write
    if not isinstance(path, str) or not path or not is_index(path, cwd, environ, index):
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
        return guard.after_the_fact(Measurement(None, size), caps)
    status, raw = read_index(path, caps)
    if status != "ok" or raw is None:
        return Verdict(guard.SILENT)
    return guard.after_the_fact(Measurement.of_raw(raw), caps)


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
    return sys.stdin.buffer.read(PAYLOAD_LIMIT + 1)


def answer(argv: list[str], raw: bytes | None, environ: dict[str, str] | os._Environ[str]) -> str:
    """What the hook prints (maybe nothing) for ``argv`` and the raw stdin payload.

    ``raw`` is read lazily (``None``): the PostToolUse check does not need it.
    """
    event, index = _options(argv)
    if event == "post":
        verdict = post_tool_use(index or index_path(environ), environ)
    else:
        payload_bytes = _read_stdin() if raw is None else raw
        if len(payload_bytes) > PAYLOAD_LIMIT:
            verdict = oversized(payload_bytes, environ, index)
            output = render(verdict, event)
            from engramory import fastjson  # noqa: PLC0415

            return fastjson.dumps(output) if output is not None else ""
        if not may_concern_index(payload_bytes, environ, index):
            return ""
        from engramory import fastjson  # noqa: PLC0415 - only when the index may be involved

        try:
            payload = fastjson.loads(payload_bytes.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            return ""
        verdict = pre_tool_use(payload, environ, index)
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
