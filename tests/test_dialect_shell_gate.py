"""Every dialect that gates a shell command on its raw payload lets through what the parser denies.

Claude Code's, Codex's, Gemini CLI's, Hermes', Kiro's, Cursor's and the OpenCode and OpenClaw
plugins' shell calls carry the command and the working directory as plain members of the
payload, so their raw pre-check (``may_concern_index``) runs the gate before the shell parser
(:func:`engramory.dialects.fields.command_may_concern`) without parsing the JSON. The full
parser (:func:`engramory.guard.service.check_shell`, the gate forced open) is the reference:
on every ground-truth command of tests/data/shell_commands.txt, in a scratch folder holding an
index, a store and aliases of the index, with the index known by name and by ``--index``, a
command it denies is one each dialect's pre-check keeps. Where the raw payload cannot say
which folder the command runs in (two ``cwd`` members, Gemini's ``dir_path``), it is parsed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import test_shell_groundtruth as groundtruth

from engramory import dialects
from engramory.guard import service, shellgate
from engramory.guard.decision import DENY


def claude_like(tool: str) -> object:
    return lambda command, cwd: {
        "hook_event_name": "PreToolUse",
        "cwd": cwd,
        "tool_name": tool,
        "tool_input": {"command": command},
    }


def plugin(tool: str) -> object:
    return lambda command, cwd: {"tool": tool, "args": {"command": command}, "cwd": cwd}


SHAPES = {
    "claude": claude_like("Bash"),
    "codex": claude_like("Bash"),
    "gemini": claude_like("run_shell_command"),
    "hermes": claude_like("terminal"),
    "kiro": claude_like("execute_bash"),
    "cursor": lambda command, cwd: {
        "hook_event_name": "beforeShellExecution",
        "cwd": "",
        "workspace_roots": [cwd],
        "command": command,
    },
    "opencode": plugin("bash"),
    "openclaw": plugin("exec"),
}


def raw(host: str, command: str, cwd: Path) -> bytes:
    return json.dumps(SHAPES[host](command, str(cwd))).encode()


def keeps(host: str, command: str, cwd: Path, index: str | None) -> bool:
    """Whether ``host``'s raw pre-check keeps the shell call (``False``: dismissed unparsed)."""
    return dialects.dialect(host).may_concern_index(raw(host, command, cwd), {}, index)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = groundtruth.scratch(tmp_path_factory.mktemp("gate"))
    os.symlink("MEMORY.md", root / "shortcut")
    os.link(root / "MEMORY.md", root / "hardcopy")
    os.symlink("gone", root / "dangling")
    if groundtruth.shutil.which("git") is not None:
        groundtruth.make_repository(root)
    return root


def full_parser_denies(command: str, cwd: Path, index: str | None, monkeypatch) -> bool:
    with monkeypatch.context() as patch:
        patch.setattr(shellgate, "may_concern_store", lambda *args: True)
        return service.check_shell(command, str(cwd), {}, index).kind == DENY


def test_no_dialect_dismisses_a_ground_truth_command_the_parser_denies(
    work: Path, monkeypatch
) -> None:
    checked = 0
    for _category, _flag, command in groundtruth.ROWS:
        for index in (None, str(work / "MEMORY.md")):
            dismissing = [host for host in SHAPES if not keeps(host, command, work, index)]
            if dismissing and full_parser_denies(command, work, index, monkeypatch):
                pytest.fail(f"{dismissing} dismiss {command!r} (index {index})")
            checked += bool(dismissing)
    assert checked > 100  # the gate did dismiss many of them: the comparison ran


@pytest.mark.parametrize("host", sorted(SHAPES))
def test_everyday_commands_are_dismissed_on_the_raw_payload(host: str, work: Path) -> None:
    index = str(work / "MEMORY.md")
    for command in ("python3 -m pytest", "git commit -m 'say \"hi\"'", "npm test"):
        assert not keeps(host, command, work, index), command
    assert keeps(host, "rm -rf store", work, index)
    assert keeps(host, "echo x >> shortcut", work, index)  # an alias, looked up from the cwd
    assert not keeps(host, "echo x >> shortcut", work / "sub", index)  # no such file there
    assert keeps(host, "git commit -m caf\u00e9", work, index)  # a \\u escape: parsed


@pytest.mark.parametrize("host", sorted(set(SHAPES) - {"cursor"}))  # Cursor's has no arguments
def test_a_second_cwd_member_is_parsed(host: str, work: Path) -> None:
    """A tool argument named ``cwd`` may come before the payload's own: not told apart."""
    payload = SHAPES[host]("python3 -m pytest", str(work))
    arguments = payload["tool_input"] if "tool_input" in payload else payload["args"]
    arguments["cwd"] = str(work / "sub")
    text = json.dumps(payload).encode()
    assert dialects.dialect(host).may_concern_index(text, {}, str(work / "MEMORY.md"))


def test_gemini_dir_path_is_parsed(work: Path) -> None:
    """Gemini's ``dir_path`` moves the command below the cwd: the payload is parsed."""
    payload = SHAPES["gemini"]("python3 -m pytest", str(work))
    payload["tool_input"]["dir_path"] = "sub"
    text = json.dumps(payload).encode()
    assert dialects.dialect("gemini").may_concern_index(text, {}, str(work / "MEMORY.md"))
