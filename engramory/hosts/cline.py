"""Cline as ``engramory init`` and ``engramory hosts`` see it (its hook dialect,
what runs inside the hook, is :mod:`engramory.dialects.cline`)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from engramory.dialects.cline import COMMANDS_TOOL
from engramory.hosts.base import AFTER_TO_AGENT, DENY_HOOK, DOCUMENTED, FILE, Host
from engramory.util import fsutil
from engramory.wiring import hookwiring
from engramory.wiring.hookfiles import OWNED_MARKER, OwnedFile, is_owned
from engramory.wiring.hookwiring import powershell_quote

if TYPE_CHECKING:
    from engramory.wiring.hookfiles import ConfigEdit, HookContext


PROJECT_DIRS = (".clinerules/hooks", ".cline/hooks")  # VS Code extension, then the CLI
GLOBAL_DIRS = ("~/Documents/Cline/Hooks", "~/.cline/hooks")
GUARD_EVENT = "PreToolUse"
AFTER_EVENT = "PostToolUse"
LIFECYCLE_FILES = {  # Cline's hook file -> the canonical event it answers
    "TaskStart": "SessionStart",
    "TaskResume": "SessionStart",
    "UserPromptSubmit": "UserPromptSubmit",
    "PreCompact": "PreCompact",
}
HOOK_NAMES = (GUARD_EVENT, AFTER_EVENT, *LIFECYCLE_FILES)


def launcher(argv: list[str], what: str) -> str:
    """A POSIX sh hook file that runs ``argv`` with stdin passed through.

    Its stderr goes nowhere and ``exec`` replaces the shell, so nothing but the
    command's own output can reach stdout (a missing interpreter prints nothing:
    Cline then lets the call run).
    """

    return (
        "#!/bin/sh\n"
        f"# {OWNED_MARKER}: {what}.\n"
        "# Written by `engramory init cline --install-hooks`; `engramory uninstall cline` "
        "removes it while this header is here.\n"
        "exec 2>/dev/null\n"
        f"exec {shlex.join(argv)}\n"
    )


def powershell_launcher(argv: list[str], what: str) -> str:
    """The same launcher as a PowerShell script (``PreToolUse.ps1``) for Cline on Windows."""

    quoted = " ".join(powershell_quote(arg) for arg in argv)
    return (
        f"# {OWNED_MARKER}: {what}.\r\n"
        "# Written by `engramory init cline --install-hooks`; `engramory uninstall cline` "
        "removes it while this header is here.\r\n"
        "$ErrorActionPreference = 'SilentlyContinue'\r\n"
        "$utf8 = [Text.UTF8Encoding]::new($false)\r\n"
        "[Console]::InputEncoding = $utf8; [Console]::OutputEncoding = $utf8; "
        "$OutputEncoding = $utf8\r\n"
        "try { $payload = [Console]::In.ReadToEnd() } catch { exit 0 }\r\n"
        f"try {{ $payload | & {quoted} 2>$null }} catch {{ }}\r\n"
        "exit 0\r\n"
    )


def hook_argvs(context: HookContext) -> dict[str, tuple[list[str], str]]:
    """Each hook file's name (without extension) -> (the command it runs, what it is)."""

    store = context.store  # --global too: the user-wide store, as the other hosts' hooks do
    argvs = {
        GUARD_EVENT: (
            hookwiring.guard_argv(context.python, context.guard, store, "cline"),
            "Cline PreToolUse -> Engramory's memory index guard",
        ),
        AFTER_EVENT: (
            [
                *hookwiring.guard_argv(context.python, context.guard, store, "cline"),
                "--event",
                "post",
            ],
            "Cline PostToolUse -> Engramory's check after a write",
        ),
    }
    for name, event in LIFECYCLE_FILES.items():
        argvs[name] = (
            hookwiring.sync_argv(context.python, context.sync, "cline", context.mode, store, event),
            f"Cline {name} -> Engramory's continuity reminder",
        )
    return argvs


def users_own(path: Path) -> bool:
    """Whether a hook file is there and is not Engramory's (anything unreadable counts)."""

    if not os.path.lexists(path):
        return False
    try:
        text = fsutil.read_bounded(path, 64 * 1024).decode("utf-8", "replace")
    except OSError:
        return True
    return not is_owned(text)


class Cline(Host):
    """Cline: refuses a project whose ``.clinerules`` is a single file; hook files."""

    def project_refusal(self, root: Path, candidates: tuple[Path, ...]) -> str | None:
        legacy = root / ".clinerules"
        if legacy.is_file() or (legacy.is_symlink() and not legacy.is_dir()):
            return (
                ".clinerules is a single file: move its contents into .clinerules/<name>.md "
                "(a folder), then run init again"
            )
        return None

    def hook_artifacts(self, context: HookContext) -> list[OwnedFile | ConfigEdit]:
        """A launcher per event in each folder Cline reads hooks from; a PostToolUse file
        the user already has (one per event and folder) is left alone, without the
        check after a write."""
        if context.global_:
            dirs = [context.home / d[2:] for d in GLOBAL_DIRS]
        else:
            dirs = [context.root / d for d in PROJECT_DIRS]
        artifacts: list[OwnedFile | ConfigEdit] = []
        for folder in dirs:
            for name, (argv, what) in hook_argvs(context).items():
                if context.windows:
                    text, file = powershell_launcher(argv, what), f"{name}.ps1"
                else:
                    text, file = launcher(argv, what), name
                if name == AFTER_EVENT and users_own(Path(folder) / file):
                    continue  # the check after a write is an extra: the user's hook stays
                artifacts.append(
                    OwnedFile(
                        Path(folder) / file,
                        text,
                        what,
                        executable=True,
                        ignore=not context.global_,
                    )
                )
        return artifacts

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:

        return {
            "hookName": "PreToolUse",
            "taskId": "engramory-check",
            "workspaceRoots": [cwd],
            "preToolUse": {
                "toolName": COMMANDS_TOOL,
                "parameters": {"commands": json.dumps([command])},
            },
        }

    def hooks_trust_note(self) -> str:
        return "Cline runs them only with hooks enabled (Cline 4.0+)."

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        if not install_hooks:
            return ()
        return (
            "Cline runs these hooks only in Cline 4.0 or later with hooks enabled (the "
            '"Enable Hooks" feature setting in the VS Code extension): check it is on. '
            "The extension reads .clinerules/hooks/, the CLI .cline/hooks/: each runs its "
            "own copy once per call.",
        )


HOST = Cline(
    name="cline",
    label="Cline",
    rules=".clinerules/engramory.md",
    global_rules="~/Documents/Cline/Rules/engramory.md",
    rules_kind=FILE,
    reader_rules=".clinerules/engramory-recall.md",
    skill=".cline/skills/engramory",
    global_skill="~/.cline/skills/engramory",
    verified=DOCUMENTED,
    enforcement="pre-write deny hook (PreToolUse file hook on editor, apply_patch and "
    "run_commands; Cline 4.0+ with hooks enabled)",
    hook_files=tuple(f"{d}/{name}" for d in PROJECT_DIRS for name in HOOK_NAMES),
    global_hook_files=tuple(f"{d}/{name}" for d in GLOBAL_DIRS for name in HOOK_NAMES),
    cap_enforcement=DENY_HOOK,
    after_write=AFTER_TO_AGENT,
    edit_tools=("editor", "apply_patch"),
    holds_compaction=False,  # PreCompact is observe-only: a held compaction is a reminder
    lifecycle_hooks=tuple(LIFECYCLE_FILES),
    notes=(
        "A legacy single-file .clinerules must become a folder before init can add "
        "a rule file to it.",
    ),
)
