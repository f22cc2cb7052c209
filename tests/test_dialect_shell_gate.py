"""Every dialect that gates a shell command on its raw payload lets through what the parser denies.

Every host's shell call is gated before its payload is parsed: Claude Code's, Codex's, Gemini
CLI's, Qwen Code's, Hermes', Kiro's, Cursor's and the OpenCode and OpenClaw plugins' carry the
command and the working directory as plain members of the payload; Copilot's camelCase payload
carries them in ``toolArgs``, a JSON string that is unescaped first; Cline's ``run_commands``
carries a JSON list of commands as a string, each command gated. The raw pre-check
(``may_concern_index``) runs the gate before the shell parser
(:func:`engramory.dialects.fields.command_may_concern`) without parsing the JSON.

The reference is the dialect's full path with both gates forced open: the payload parsed, read
into tool calls by the dialect and judged by :func:`engramory.guard.service.check` with the
parser always run. On every ground-truth command of tests/data/shell_commands.txt, and on
generated ones (hypothesis), in a scratch folder holding an index, a store and aliases of the
index, with the index known by name and by ``--index``, for every host's payload shape: a call
the full path denies is denied by the gated path (the pre-check, then the service with its
gate). Where the raw payload cannot say which folder the command runs in or which command runs
(two ``cwd`` members, Gemini's ``dir_path``, Qwen's ``directory``, a second ``command``
member, a list the raw read cannot follow), it is parsed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import test_shell_groundtruth as groundtruth
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_shellgate import commands

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
# More shapes of the same hosts: the dialect is the label's part before " (".
MORE_SHAPES = {
    "qwen": claude_like("run_shell_command"),
    "copilot": lambda command, cwd: {
        "timestamp": 0,
        "cwd": cwd,
        "toolName": "bash",
        "toolArgs": json.dumps({"command": command, "description": "run it"}),
    },
    "cline": lambda command, cwd: {
        "clineVersion": "4.2.0",
        "hookName": "PreToolUse",
        "workspaceRoots": [cwd],
        "preToolUse": {
            "toolName": "run_commands",
            "parameters": {"commands": json.dumps(["ls", command])},
        },
    },
    "copilot (claude-style)": claude_like("bash"),
    "claude (devin)": lambda command, cwd: {
        "hook_event_name": "PreToolUse",
        "cwd": cwd,
        "tool_name": "exec",
        "tool_input": {"command": command, "shell_id": "main"},
    },
    "cline (one command)": lambda command, cwd: {
        "hookName": "PreToolUse",
        "workspaceRoots": [cwd],
        "preToolUse": {"toolName": "run_commands", "parameters": {"commands": command}},
    },
    "cline (execute_command)": lambda command, cwd: {
        "hookName": "PreToolUse",
        "workspaceRoots": [cwd],
        "preToolUse": {"toolName": "execute_command", "parameters": {"command": command}},
    },
    "cline (sdk)": lambda command, cwd: {
        "cwd": cwd,
        "tool_call": {"id": "1", "name": "run_commands", "input": {"commands": [command]}},
    },
}
ALL_SHAPES = {**SHAPES, **MORE_SHAPES}


def host_of(shape: str) -> str:
    return shape.split(" (", maxsplit=1)[0]


def raw(shape: str, command: str, cwd: Path) -> bytes:
    return json.dumps(ALL_SHAPES[shape](command, str(cwd))).encode()


def keeps(shape: str, command: str, cwd: Path, index: str | None) -> bool:
    """Whether the raw pre-check keeps the shell call (``False``: dismissed unparsed)."""
    return dialects.dialect(host_of(shape)).may_concern_index(raw(shape, command, cwd), {}, index)


def denies(shape: str, command: str, cwd: Path, index: str | None, gated: bool) -> bool:
    """The verdict of the dialect's path: gated (the pre-check, then the service with its gate)
    or full (every payload parsed, the gate forced open)."""
    if gated and not keeps(shape, command, cwd, index):
        return False
    dialect = dialects.dialect(host_of(shape))
    calls = dialect.tool_calls(json.loads(raw(shape, command, cwd)))
    verdicts = [service.check(call, {}, index) for call in calls]
    return service.strongest(verdicts).kind == DENY


def full_path_denies(shape: str, command: str, cwd: Path, index: str | None, monkeypatch) -> bool:
    with monkeypatch.context() as patch:
        patch.setattr(shellgate, "may_concern_store", lambda *args: True)
        return denies(shape, command, cwd, index, gated=False)


def assert_gated_path_denies_what_the_full_path_denies(command: str, cwd: Path, monkeypatch) -> int:
    """For every shape and both ways of knowing the index; how many calls were dismissed."""
    dismissed = 0
    for index in (None, str(cwd / "MEMORY.md")):
        for shape in ALL_SHAPES:
            if denies(shape, command, cwd, index, gated=True):
                continue
            if full_path_denies(shape, command, cwd, index, monkeypatch):
                pytest.fail(f"{shape} lets {command!r} through (index {index})")
            dismissed += not keeps(shape, command, cwd, index)
    return dismissed


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


def test_every_shape_denies_the_ground_truth_commands_its_full_path_denies(
    work: Path, monkeypatch
) -> None:
    dismissed = sum(
        assert_gated_path_denies_what_the_full_path_denies(command, work, monkeypatch)
        for _category, _flag, command in groundtruth.ROWS
    )
    assert dismissed > 1000  # the pre-checks did dismiss many of them: the comparison ran


# Text that JSON escapes, or that a raw read could mistake for the payload's own structure.
_TRICKS = ["", '"', "\\", "\n", "\t", "'", '", "', "]", "[", '\\"', "\u00e9", "\x7f"]


@st.composite
def tricky_commands(draw: st.DrawFn) -> str:
    """A generated command (tests/test_shellgate.py's) with escaped text spliced in."""
    command = draw(commands())
    at = draw(st.integers(0, len(command)))
    return command[:at] + draw(st.sampled_from(_TRICKS)) + command[at:]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=tricky_commands())
def test_every_shape_denies_the_generated_commands_its_full_path_denies(
    work: Path, command: str, monkeypatch
) -> None:
    assert_gated_path_denies_what_the_full_path_denies(command, work, monkeypatch)


@pytest.mark.parametrize("host", sorted(set(ALL_SHAPES) - {"cline (sdk)"}))  # a real list
def test_everyday_commands_are_dismissed_on_the_raw_payload(host: str, work: Path) -> None:
    index = str(work / "MEMORY.md")
    for command in ("python3 -m pytest", "git commit -m 'say \"hi\"'", "npm test"):
        assert not keeps(host, command, work, index), command
    assert keeps(host, "rm -rf store", work, index)
    assert keeps(host, "echo x >> shortcut", work, index)  # an alias, looked up from the cwd
    assert not keeps(host, "echo x >> shortcut", work / "sub", index)  # no such file there
    assert keeps(host, "git commit -m caf\u00e9", work, index)  # a \\u escape: parsed
    assert denies(host, "echo x >> MEMORY.md", work, index, gated=True)  # the calls are read


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


def test_qwen_directory_is_parsed(work: Path) -> None:
    """Qwen's ``directory`` moves the command below the cwd: the payload is parsed."""
    payload = ALL_SHAPES["qwen"]("python3 -m pytest", str(work))
    payload["tool_input"]["directory"] = "sub"
    text = json.dumps(payload).encode()
    assert dialects.dialect("qwen").may_concern_index(text, {}, str(work / "MEMORY.md"))


def test_a_second_copilot_command_member_is_parsed(work: Path) -> None:
    """JSON keeps the last of two members: the raw read, which sees the first, does not guess."""
    arguments = '{"command": "python3 -m pytest", "command": "python3 -m pytest"}'
    payload = {"cwd": str(work), "toolName": "bash", "toolArgs": arguments}
    text = json.dumps(payload).encode()
    assert dialects.dialect("copilot").may_concern_index(text, {}, str(work / "MEMORY.md"))


@pytest.mark.parametrize(
    "parameters",
    [
        {"commands": json.dumps(["ls"]), "command": "ls"},  # both keys
        {"commands": json.dumps(["python3 -m pytest", 1])},  # not only strings
        {"commands": json.dumps([])},  # no command
        {"commands": '["python3 -m pytest"] x'},  # not one JSON list
        {"commands": '["python3 -m pytest\\x"]'},  # an escape strict JSON refuses
        {"commands": ["python3 -m pytest"]},  # the SDK's real list
    ],
)
def test_cline_commands_the_raw_read_cannot_follow_are_parsed(
    parameters: dict[str, object], work: Path
) -> None:
    payload = {
        "hookName": "PreToolUse",
        "workspaceRoots": [str(work)],
        "preToolUse": {"toolName": "run_commands", "parameters": parameters},
    }
    text = json.dumps(payload).encode()
    assert dialects.dialect("cline").may_concern_index(text, {}, str(work / "MEMORY.md"))


@pytest.mark.parametrize("roots", [[], [""], "twice"])
def test_a_cline_root_the_raw_read_cannot_follow_is_parsed(roots: object, work: Path) -> None:
    call = {"toolName": "run_commands", "parameters": {"commands": '["python3 -m pytest"]'}}
    payload: dict[str, object] = {"workspaceRoots": roots, "preToolUse": call}
    if roots == "twice":
        payload["workspaceRoots"] = [str(work)]
        call["parameters"] = {**call["parameters"], "workspaceRoots": [str(work / "sub")]}
    text = json.dumps(payload).encode()
    assert dialects.dialect("cline").may_concern_index(text, {}, str(work / "MEMORY.md"))
