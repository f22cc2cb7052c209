"""The modules the guard hook loads on a call outside the store, pinned per host.

Every tool call an agent makes starts the hook, so each module it loads on a call that
cannot concern a store is paid on nearly every call (issue 35: within 1.4x of the
interpreter's own start-up). These tests run the hook as the hosts do (``python -I -S``,
``-X importtime``) on each host's own write, edit and everyday shell payloads aimed outside
any store, and pin the exact set of modules it loads beyond ``python -I -S -c pass``: the
package's hot path and no standard module at all: not ``os`` (under ``-I -S`` it is not loaded
at start-up, and costs about 15% of it) nor ``__future__``.
A module added to that path fails here, by name, instead of slowing every call unnoticed.
A store-note write is pinned too: it loads the secret scan, not ``enum`` and its friends.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hookkit import hot_path, imported

EVERYDAY_COMMANDS = ("python3 -m pytest", "git commit -m x", "npm test")
# The shell gate (engramory.guard.shellgate) is loaded only for a command that may write; every
# host's dialect runs it on the raw payload (Copilot's on its unescaped ``toolArgs``, Cline's on
# each command of its ``commands`` list), so none parses the payload for these commands.
GATED = {"python3 -m pytest", "git commit -m x"}
SHELLGATE = "engramory.guard.shellgate"
# Loaded at start-up by a normal interpreter, but not by ``python -I -S``: the dismissed path
# must not load them (``os`` alone is about 15% of the start-up, for ``_collections_abc``).
NOT_ON_THE_PATH = {"os", "posixpath", "_collections_abc", "__future__"}


def _loaded(code: str) -> set[str]:
    """The modules ``python -I -S -X importtime -c CODE`` reports loading."""
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", "-c", code],
        capture_output=True,
        timeout=60,
        check=True,
    )
    return {m.group(1).decode() for m in re.finditer(rb"\|\s+([\w.]+)\n", proc.stderr)}


@pytest.fixture(scope="module")
def floor() -> set[str]:
    return _loaded("pass")


def _payloads(cwd: str) -> dict[str, dict[str, object]]:
    """Each host's non-store write, edit and shell payloads, shaped as that host sends them."""
    app = str(Path(cwd) / "app.py")
    code = "print(1)\n" * 20

    def claude_like(tool: str, tool_input: dict[str, object]) -> dict[str, object]:
        return {
            "hook_event_name": "PreToolUse",
            "cwd": cwd,
            "tool_name": tool,
            "tool_input": tool_input,
        }

    def copilot(tool: str, args: dict[str, object]) -> dict[str, object]:
        return {"timestamp": 0, "cwd": cwd, "toolName": tool, "toolArgs": json.dumps(args)}

    def cline(tool: str, parameters: dict[str, object]) -> dict[str, object]:
        return {
            "clineVersion": "4.2.0",
            "hookName": "PreToolUse",
            "taskId": "t",
            "workspaceRoots": [cwd],
            "preToolUse": {"toolName": tool, "parameters": parameters},
        }

    def plugin(tool: str, args: dict[str, object]) -> dict[str, object]:
        return {"tool": tool, "args": args, "cwd": cwd}

    edit = {"old_string": "print(1)", "new_string": "print(2)"}
    return {
        "claude": {
            "write": claude_like("Write", {"file_path": app, "content": code}),
            "edit": claude_like("Edit", {"file_path": app, **edit}),
            "shell": claude_like("Bash", {"command": "{command}"}),
        },
        "codex": {
            "write": claude_like(
                "apply_patch",
                {"command": "*** Begin Patch\n*** Add File: app.py\n+print(1)\n*** End Patch\n"},
            ),
            "shell": claude_like("Bash", {"command": "{command}"}),
        },
        "gemini": {
            "write": claude_like("write_file", {"file_path": app, "content": code}),
            "edit": claude_like("replace", {"file_path": app, **edit}),
            "shell": claude_like("run_shell_command", {"command": "{command}"}),
        },
        "copilot": {
            "write": copilot("create", {"path": app, "file_text": code}),
            "edit": copilot("edit", {"path": app, "old_str": "print(1)", "new_str": "print(2)"}),
            "shell": copilot("bash", {"command": "{command}"}),
        },
        "cursor": {
            "write": {
                **claude_like("Write", {"file_path": app, "content": code}),
                "workspace_roots": [cwd],
            },
            "edit": claude_like("StrReplace", {"path": app, **edit}),
            "shell": {
                "hook_event_name": "beforeShellExecution",
                "cwd": cwd,
                "workspace_roots": [cwd],
                "command": "{command}",
            },
        },
        "cline": {
            "write": cline("editor", {"path": "app.py", "new_text": code}),
            "shell": cline("run_commands", {"commands": json.dumps(["{command}", "ls"])}),
        },
        "hermes": {
            "write": claude_like("write_file", {"path": app, "content": code}),
            "edit": claude_like("patch", {"mode": "replace", "path": app, **edit}),
            "shell": claude_like("terminal", {"command": "{command}"}),
        },
        "qwen": {
            "write": claude_like("write_file", {"file_path": app, "content": code}),
            "edit": claude_like("edit", {"file_path": app, **edit}),
            "shell": claude_like("run_shell_command", {"command": "{command}"}),
        },
        "kiro": {
            "write": claude_like("fs_write", {"command": "create", "path": app, "file_text": code}),
            "shell": claude_like("execute_bash", {"command": "{command}"}),
        },
        "opencode": {
            "write": plugin("write", {"filePath": app, "content": code}),
            "edit": plugin("edit", {"filePath": app, "oldString": "a", "newString": "b"}),
            "shell": plugin("bash", {"command": "{command}"}),
        },
        "openclaw": {
            "write": plugin("write", {"path": app, "content": code}),
            "edit": plugin("edit", {"path": app, "oldText": "a", "newText": "b"}),
            "shell": plugin("exec", {"command": "{command}"}),
        },
    }


def _cases(cwd: str) -> list[tuple[str, str, dict[str, object]]]:
    """``(host, case, payload)`` for every host: its write and edit, each everyday command."""
    cases = []
    for host, by_case in _payloads(cwd).items():
        for case, payload in by_case.items():
            if case != "shell":
                cases.append((host, case, payload))
                continue
            for command in EVERYDAY_COMMANDS:
                text = json.dumps(payload).replace("{command}", command)
                cases.append((host, command, json.loads(text)))
    return cases


def expected(host: str, case: str) -> set[str]:
    """The engramory modules pinned for ``host``'s dismissed ``case``."""
    names = hot_path(host) | ({"engramory.dialects.opencode"} if host == "openclaw" else set())
    return names | ({SHELLGATE} if case in GATED else set())


HOSTS = sorted(_payloads("/x"))


@pytest.mark.parametrize("host", HOSTS)
def test_a_non_store_call_loads_only_the_pinned_modules(
    host: str, tmp_path: Path, floor: set[str]
) -> None:
    index = tmp_path / "store" / "MEMORY.md"  # as `engramory init` registers it: --index
    index.parent.mkdir()
    index.write_text("- [deploy](deploy.md) — how we deploy\n")
    for name, case, payload in _cases(str(tmp_path)):
        if name != host:
            continue
        loaded = imported(host, payload, "--index", str(index)) - floor
        ours = {n for n in loaded if n.split(".")[0] == "engramory"}
        assert ours == expected(host, case), case
        assert loaded == ours, (case, sorted(loaded - ours))  # no standard module at all
        assert not loaded & NOT_ON_THE_PATH, case


def test_a_store_note_write_is_checked_for_a_secret_without_enum(
    tmp_path: Path, floor: set[str]
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "MEMORY.md").write_text("- [deploy](deploy.md) — how we deploy\n")
    note = "---\nname: deploy\ndescription: how we deploy\ntype: reference\n---\n\nUse make.\n"
    payload = {
        "cwd": str(tmp_path),
        "tool_name": "Write",
        "tool_input": {"file_path": str(store / "deploy.md"), "content": note},
    }
    loaded = imported("claude", payload, "--index", str(store / "MEMORY.md")) - floor
    assert "engramory.guard.secretcheck" in loaded  # the note is checked for a secret
    heavy = {"enum", "signal", "functools", "collections", "re", "json", "typing"}
    assert not loaded & heavy, sorted(loaded & heavy)
