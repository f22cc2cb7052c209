"""The pieces of the hook handlers ``engramory init --install-hooks`` registers, and their
fingerprints.

Each host says which groups it wants (``Host.hook_groups``) from these
pieces: the index guard (PreToolUse, PostToolUse) and the continuity hooks
(SessionStart, UserPromptSubmit, PreCompact); a handler is in exec form
(``command`` is the interpreter and ``args`` the script and its arguments, so
no shell parses a path) or, for a host that runs hooks through a login shell,
one POSIX-quoted line plus a PowerShell line for ``commandWindows`` when
installed on Windows (``cmd.exe /C`` would expand ``%VAR%`` and ``&`` in a
plain one).

A handler is Engramory's when its ``statusMessage`` is one of the
fingerprints below, including the ones the earlier script-based installer
wrote, so its installs upgrade and uninstall cleanly (:data:`STATUS_FORMAT`);
in Gemini CLI's settings, where a handler has no ``statusMessage``, when its
``name`` is :data:`GUARD_NAME` or :data:`CONTINUITY_NAME` (:data:`NAME_FORMAT`);
in the flat hook files of hosts whose handlers have no free field at all, when
its command runs one of our scripts (:data:`SCRIPT_FORMAT`).
"""

from __future__ import annotations

import base64
import json
import os
import shlex
from collections.abc import Callable

from engramory.store.discovery import INDEX_NAME
from engramory.wiring.hookconfig import FLAT, GROUPED, HookFormat, Marker

GUARD_SCRIPT = "hooks/engramory_index_guard.py"
SYNC_SCRIPT = "hooks/engramory_sync.py"

GUARD_STATUS = "Engramory: checking the memory index cap"
MEASURE_STATUS = "Engramory: measuring the memory index"
START_STATUS = "Engramory: load continuity context"
PROMPT_STATUS = "Engramory: track sync state"
COMPACT_STATUS = "Engramory: check continuity before compaction"

LEGACY_STATUSES = frozenset(
    {
        "Engramory: load continuity context (managed v1)",
        "Engramory: track sync state (managed v1)",
        "Engramory: check continuity before compaction (managed v1)",
        "Loading Engramory continuity context",
        "Tracking Engramory sync state",
        "Checking Engramory before compaction",
    }
)
FINGERPRINTS = (
    frozenset({GUARD_STATUS, MEASURE_STATUS, START_STATUS, PROMPT_STATUS, COMPACT_STATUS})
    | LEGACY_STATUSES
)

GUARD_NAME = "engramory-index-guard"  # the ``name`` of a Gemini CLI handler of ours
CONTINUITY_NAME = "engramory-continuity"  # the ``name`` of a Gemini CLI continuity handler
COMMAND_FIELDS = ("command", "bash", "powershell")  # where a flat handler names its command

STATUS_FORMAT = HookFormat(
    GROUPED,
    Marker(("statusMessage",), values=FINGERPRINTS),
    Marker(("statusMessage",), values=frozenset({GUARD_STATUS})),
)
NAME_FORMAT = HookFormat(
    GROUPED,
    Marker(("name",), values=frozenset({GUARD_NAME, CONTINUITY_NAME})),
    Marker(("name",), values=frozenset({GUARD_NAME})),
)
SCRIPT_FORMAT = HookFormat(
    FLAT,
    Marker(
        COMMAND_FIELDS,
        scripts=frozenset({os.path.basename(GUARD_SCRIPT), os.path.basename(SYNC_SCRIPT)}),
    ),
    Marker(COMMAND_FIELDS, scripts=frozenset({os.path.basename(GUARD_SCRIPT)})),
)

GUARD_EVENTS = ("PreToolUse", "PostToolUse")
LIFECYCLE_EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact")
SESSION_MATCHER = "startup|resume|clear|compact"
TIMEOUT = 10

Group = dict[str, object]


def exec_handler(python: str, args: list[str], status: str) -> dict[str, object]:
    """An exec-form handler: the interpreter in ``command``, the script and its arguments in
    ``args``, so no shell parses a path."""
    return {
        "type": "command",
        "command": python,
        "args": ["-I", "-S", *args],
        "timeout": TIMEOUT,
        "statusMessage": status,
    }


def _index_args(store: str | None) -> list[str]:
    """``--index STORE/MEMORY.md``, or nothing for a handler that serves every project."""
    return [] if store is None else ["--index", os.path.join(store, INDEX_NAME)]


def guard_groups(python: str, guard: str, store: str | None) -> dict[str, Group]:
    """The index guard's groups (PreToolUse, PostToolUse), in exec form.

    Both handlers name the store's index (``--index``), so the guard also
    knows it under another name (a symlink or hard link to it). Without a
    ``store`` (a user-wide guard alone, serving every project) they name none:
    the guard then knows the index by its name, and the check after a call
    finds it from the call's working directory.
    """
    index = _index_args(store)
    return {
        "PreToolUse": {
            "matcher": "Write|Edit|MultiEdit|Bash",
            "hooks": [exec_handler(python, [guard, *index], GUARD_STATUS)],
        },
        "PostToolUse": {
            "matcher": "Write|Edit|MultiEdit|Bash",
            "hooks": [exec_handler(python, [guard, "--event", "post", *index], MEASURE_STATUS)],
        },
    }


def guard_argv(python: str, guard: str, store: str | None, host: str | None = None) -> list[str]:
    """The index guard's command: ``python -I -S GUARD [--host HOST] [--index STORE/MEMORY.md]``.

    Without ``host`` the guard speaks Claude Code's dialect (its default).
    """
    where = ["--host", host] if host is not None else []
    return [python, "-I", "-S", guard, *where, *_index_args(store)]


def never_failing_line(argv: list[str]) -> str:
    """A POSIX shell line that runs ``argv`` and exits 0 whatever happens (``|| true``).

    For hosts that block the tool call when a hook exits non-zero: a missing
    interpreter (127) must not block every edit the agent makes.
    """
    return shlex.join(argv) + " || true"


def powershell_call(argv: list[str]) -> str:
    """A PowerShell line that runs ``argv`` (each word single-quoted) and always exits 0."""
    quoted = " ".join(powershell_quote(arg) for arg in argv)
    return f"try {{ & {quoted} }} catch {{ }}; exit 0"


def verification_command(argv: list[str], payload: dict[str, object], windows: bool) -> str:
    """A ready-to-paste line that pipes ``payload`` (JSON) into the command ``argv``."""
    text = json.dumps(payload, ensure_ascii=False)
    if windows:
        words = " ".join(powershell_quote(arg) for arg in argv)
        return f"{powershell_quote(text)} | & {words}"
    return f"printf '%s\\n' {shlex.quote(text)} | {shlex.join(argv)}"


def sync_args(
    sync: str, host: str, mode: str, store: str | None, event: str | None = None
) -> list[str]:
    """The sync script's arguments for a continuity hook of ``host``.

    ``event``: the canonical event the hook answers, for a host whose payload
    does not name it (``--event``). ``store`` ``None``: the hook names no store
    and finds one from each event's working directory (a user-wide config).
    """
    named = ["--event", event] if event is not None else []
    where = ["--", store] if store is not None else []
    return [sync, "hook", "--host", host, *named, "--mode", mode, *where]


def sync_argv(
    python: str, sync: str, host: str, mode: str, store: str | None, event: str | None = None
) -> list[str]:
    """A continuity hook's whole command: ``python -I -S`` and :func:`sync_args`."""
    return [python, "-I", "-S", *sync_args(sync, host, mode, store, event)]


def lifecycle_groups(handler: Callable[[str], dict[str, object]]) -> dict[str, Group]:
    """The continuity hooks' groups (SessionStart, UserPromptSubmit, PreCompact).

    ``handler`` makes the one handler of a group from its status message.
    """
    return {
        "SessionStart": {"matcher": SESSION_MATCHER, "hooks": [handler(START_STATUS)]},
        "UserPromptSubmit": {"hooks": [handler(PROMPT_STATUS)]},
        "PreCompact": {"hooks": [handler(COMPACT_STATUS)]},
    }


def powershell_quote(word: str) -> str:
    """One PowerShell word, single-quoted: nothing inside is expanded."""
    return "'" + word.replace("'", "''") + "'"


def powershell_line(argv: list[str], always_zero: bool = False) -> str:
    """A Windows command line that ``cmd.exe /C`` passes through untouched.

    The real command is a PowerShell script (``& 'arg' 'arg' ...``, each
    argument single-quoted) sent base64-encoded, so no path appears in clear
    text where ``cmd.exe`` could expand ``%VAR%`` or split on ``&``. It exits
    with the command's exit code, or with 0 whatever happens (``always_zero``:
    a missing interpreter is caught too) for a host that blocks on a failure.
    """
    quoted = " ".join(powershell_quote(arg) for arg in argv)
    script = (
        "$ErrorActionPreference='Stop'; $env:PYTHONUTF8='1'; $env:PYTHONIOENCODING='utf-8'; "
        "[Console]::InputEncoding=[Text.UTF8Encoding]::new($false); "
        "[Console]::OutputEncoding=[Text.UTF8Encoding]::new($false); "
        f"$OutputEncoding=[Text.UTF8Encoding]::new($false); & {quoted}"
    )
    script = (
        f"try {{ {script} }} catch {{ }}; exit 0"
        if always_zero
        else f"{script}; exit $LASTEXITCODE"
    )
    encoded = base64.b64encode(script.encode("utf-16-le")).decode("ascii")
    return f"powershell.exe -NoLogo -NoProfile -NonInteractive -EncodedCommand {encoded}"


def shell_handler(argv: list[str], status: str, windows: bool) -> dict[str, object]:
    """A login-shell handler: a POSIX-quoted ``command`` line, plus a PowerShell one on Windows."""
    handler: dict[str, object] = {
        "type": "command",
        "command": shlex.join(argv),
        "timeout": TIMEOUT,
        "statusMessage": status,
    }
    if windows:
        handler["commandWindows"] = powershell_line(argv)
    return handler
