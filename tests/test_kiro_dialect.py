"""Kiro CLI 2.x: the preToolUse guard dialect through the real hook process (a deny is exit 2
with the reason on stderr, anything else silence and exit 0), the fs_write simulation against
the CLI's own semantics, the agentSpawn/userPromptSubmit replies through the real sync hook, and
the agent-definition install (engramory.json, or --kiro-agent NAME merged and given back)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hookkit import HEAVY, crash_is_silent, hot_path, imported, lines, run_hook
from installkit import digest, refused

from conftest import REPO
from engramory import dialects
from engramory.continuity import policy
from engramory.dialects import kiro
from engramory.guard import decision as guard
from engramory.guard import toolcall
from engramory.guard.decision import Verdict
from engramory.hosts import kiro as kiro_host
from engramory.hosts import registry
from engramory.install import blocks
from engramory.wiring import hookconfig, hookwiring

DENY, PASS = "deny", "pass"  # Kiro shows nothing of a nudge: a pass is silence, exit 0
GROW = "would GROW the memory index"
SHELL = "this shell command would write the memory index"
TOO_LARGE = "too large to check"
UNIQUE_TAIL = lines(198) + "tail\n"


def base(d: Path, tool: str, tool_input: object) -> dict:
    """A preToolUse payload exactly as the research shows it."""
    return {
        "hook_event_name": "preToolUse",
        "cwd": str(d),
        "session_id": "s1",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def fs_write(command: str, path: str, tool: str = "fs_write", **fields: object) -> Callable:
    return lambda d: base(d, tool, {"command": command, "path": path.format(d=d), **fields})


def bash(command: str, tool: str = "execute_bash") -> Callable:
    return lambda d: base(d, tool, {"command": command})


def outcome(proc: subprocess.CompletedProcess[bytes]) -> tuple[str, str]:
    """``(DENY, reason)`` for exit 2 with the reason on stderr; ``(PASS, "")`` for silence."""
    assert proc.stdout == b"", proc
    if proc.returncode == 2:
        reason = proc.stderr.decode()
        assert reason.endswith("\n") and reason.strip()
        return DENY, reason
    assert (proc.returncode, proc.stderr) == (0, b""), proc
    return PASS, ""


# (id, the index's text (None: no index), payload, expected, a phrase of the reason)
TABLE = [
    ("create a new index over the cap", None, fs_write("create", "{d}/MEMORY.md", file_text=lines(250)), DENY, GROW),
    ("create through the write alias", None, fs_write("create", "MEMORY.md", tool="write", file_text=lines(250)), DENY, GROW),
    ("create carrying new_str", None, fs_write("create", "MEMORY.md", new_str=lines(250)), DENY, GROW),
    ("create: file_text wins over new_str", None, fs_write("create", "MEMORY.md", file_text="x\n", new_str=lines(250)), PASS, ""),
    ("create: the added final newline is line 201", None, fs_write("create", "MEMORY.md", file_text=lines(200) + "\n"), DENY, GROW),
    ("create within the caps", None, fs_write("create", "MEMORY.md", file_text=lines(10)), PASS, ""),
    ("create over the soft cap (a nudge: silent)", None, fs_write("create", "MEMORY.md", file_text=lines(160)), PASS, ""),
    ("create shrinking an over-cap index", lines(260), fs_write("create", "MEMORY.md", file_text=lines(230)), PASS, ""),
    ("create another file", None, fs_write("create", "{d}/app.py", file_text=lines(900)), PASS, ""),
    ("create another store's index", None, fs_write("create", "/elsewhere/MEMORY.md", file_text=lines(250)), DENY, GROW),
    ("str_replace once, growing", UNIQUE_TAIL, fs_write("str_replace", "MEMORY.md", old_str="tail\n", new_str=lines(5)), DENY, GROW),
    ("str_replace once, shrinking", lines(150) + "tail\n", fs_write("str_replace", "MEMORY.md", old_str="tail\n", new_str=""), PASS, ""),
    ("str_replace under ~ (the hook's HOME)", UNIQUE_TAIL, fs_write("str_replace", "~/MEMORY.md", old_str="tail\n", new_str=lines(5)), DENY, GROW),
    ("str_replace matching twice (the tool fails)", lines(150), fs_write("str_replace", "MEMORY.md", old_str="x\n", new_str=lines(300)), PASS, ""),
    ("str_replace matching nothing (the tool fails)", lines(150), fs_write("str_replace", "MEMORY.md", old_str="nope", new_str=lines(300)), PASS, ""),
    ("insert lines, growing", lines(199), fs_write("insert", "MEMORY.md", insert_line=5, new_str=lines(5)), DENY, GROW),
    ("insert at line 0", lines(199), fs_write("insert", "MEMORY.md", insert_line=0, new_str="y\ny\n"), DENY, GROW),
    ("insert past the end is clamped", lines(199), fs_write("insert", "MEMORY.md", insert_line=999, new_str="y\ny\n"), DENY, GROW),
    ("insert text without a newline joins a line", lines(200), fs_write("insert", "MEMORY.md", insert_line=1, new_str="y"), PASS, ""),
    ("insert text without a newline at the end", lines(200), fs_write("insert", "MEMORY.md", insert_line=200, new_str="tail"), DENY, GROW),
    ("insert with a string line (the tool fails)", lines(199), fs_write("insert", "MEMORY.md", insert_line="5", new_str=lines(9)), PASS, ""),
    ("insert with a negative line (the tool fails)", lines(199), fs_write("insert", "MEMORY.md", insert_line=-1, new_str=lines(9)), PASS, ""),
    ("append after an unterminated last line", lines(199) + "last", fs_write("append", "MEMORY.md", new_str="z"), DENY, GROW),
    ("append within the cap", lines(150), fs_write("append", "MEMORY.md", new_str=lines(5)), PASS, ""),
    ("append to a missing index, judged as empty", None, fs_write("append", "MEMORY.md", new_str=lines(250)), DENY, GROW),
    ("an fs_write command the tool does not take", lines(199), fs_write("view", "MEMORY.md", new_str=lines(9)), PASS, ""),
    ("execute_bash append to the index", None, bash("echo x >> MEMORY.md"), DENY, SHELL),
    ("shell alias append to the index", None, bash("echo x >> MEMORY.md", tool="shell"), DENY, SHELL),
    ("execute_bash read of the index", lines(10), bash("cat MEMORY.md | wc -l"), PASS, ""),
    ("fs_read of the index", lines(10), lambda d: base(d, "fs_read", {"operations": [{"mode": "Line", "path": "MEMORY.md"}]}), PASS, ""),
    ("an MCP tool", lines(10), lambda d: base(d, "@fs/write", {"path": "MEMORY.md", "content": lines(300)}), PASS, ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("index", "payload", "kind", "phrase"), [r[1:] for r in TABLE], ids=[r[0] for r in TABLE]
)
def test_decision_table_through_the_real_hook(
    tmp_path: Path, index: str | None, payload: Callable[[Path], dict], kind: str, phrase: str
) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "MEMORY.md").write_text("- [a](a.md)\n")
    elsewhere = tmp_path / "elsewhere"  # the process's cwd: not where the files are
    elsewhere.mkdir()
    if index is not None:
        (tmp_path / "MEMORY.md").write_text(index)
    proc = run_hook("kiro", payload(tmp_path), cwd=elsewhere, env={"HOME": str(tmp_path)})
    found, reason = outcome(proc)
    assert found == kind, proc
    assert phrase in reason


@pytest.mark.parametrize(
    "raw",
    [b"", b"\xff\xfe garbage MEMORY.md", b"[]", b"null", b'{"tool_name": "fs_write"}', b"{"],
    ids=["empty", "invalid utf-8", "list", "null", "no input", "cut off"],
)
def test_malformed_input_is_silent_exit_zero(raw: bytes) -> None:
    proc = run_hook("kiro", raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_the_index_named_by_path_through_the_real_hook(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    payload = fs_write("create", "notes.md", file_text=lines(300))(tmp_path)
    assert outcome(run_hook("kiro", payload, "--index", str(index)))[0] == DENY
    assert outcome(run_hook("kiro", payload))[0] == PASS  # without --index: only the name counts


def test_a_secret_written_into_a_store_note_is_denied(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("- [a](a.md)\n")
    (tmp_path / "a.md").write_text("a note\n")
    key = "AKIA" + "QZ7Y" * 4
    payload = fs_write("append", "a.md", new_str=f"aws_access_key_id = {key}\n")(tmp_path)
    found, reason = outcome(run_hook("kiro", payload))
    assert found == DENY and "secret" in reason and key not in reason


def test_an_unrelated_payload_imports_only_the_hot_path(tmp_path: Path) -> None:
    for payload in (
        fs_write("create", "/x/app.py", file_text="print(1)")(tmp_path),
        fs_write("append", "~/notes.txt", tool="write", new_str="x")(tmp_path),
        bash("pytest -q tests/")(tmp_path),
        bash("ls", tool="shell")(tmp_path),
        base(tmp_path, "fs_read", {"operations": [{"mode": "Line", "path": "MEMORY.md"}]}),
    ):
        names = imported("kiro", payload)
        assert {n for n in names if n.startswith("engramory")} == hot_path("kiro"), payload
        assert not names & HEAVY


def test_a_crash_never_denies(monkeypatch, capsys, tmp_path: Path) -> None:
    payload = json.dumps(fs_write("create", "MEMORY.md", file_text=lines(300))(tmp_path)).encode()
    crash_is_silent("kiro", payload, monkeypatch, capsys)


# --- in-process: the CLI's fs_write semantics, payload -> ToolCall, Verdict -> output ----------


@pytest.mark.parametrize(
    ("text", "line", "new", "after"),
    [
        ("a\nb\n", 0, "X\n", "X\na\nb\n"),
        ("a\nb\n", 1, "X\n", "a\nX\nb\n"),
        ("a\nb\n", 2, "X", "a\nb\nX\n"),  # at the end: the final newline is added
        ("a\nb\n", 9, "X\n", "a\nb\nX\n"),  # clamped to the line count
        ("a\nb", 2, "X", "a\nbX\n"),  # no newline before: X joins the last line
        ("a\nb", 1, "X", "a\nXb\n"),
        ("", 0, "X", "X\n"),
        ("", 3, "X\n", "X\n"),  # an empty file counts as one line
        ("\n\n", 1, "X", "\nX\n"),
        ("a\r\nb\r\n", 1, "X\r\n", "a\r\nX\r\nb\r\n"),
    ],
)
def test_insert_is_simulated_as_the_cli_does_it(text: str, line: int, new: str, after: str) -> None:
    assert kiro.inserted(text, line, new) == after


@pytest.mark.parametrize(
    ("text", "new", "after"),
    [
        ("a", "b", "a\nb\n"),
        ("a\n", "b\n", "a\nb\n"),
        ("a\n", "b", "a\nb\n"),
        ("", "b", "\nb\n"),  # an empty file does not end with a newline
        ("a\r", "b", "a\rb\n"),  # a carriage return counts as one
    ],
)
def test_append_is_simulated_as_the_cli_does_it(text: str, new: str, after: str) -> None:
    assert kiro.appended(text, new) == after


def test_tool_calls(tmp_path: Path) -> None:
    d = Path("/w")
    (call,) = kiro.tool_calls(fs_write("create", "M.md", file_text="x")(d))
    assert (call.kind, call.path, call.cwd, call.content) == (toolcall.WRITE, "M.md", "/w", "x\n")
    (call,) = kiro.tool_calls(fs_write("create", "M.md")(d))
    assert call.content == "\n"  # no content: an empty file, ended by the tool's newline
    (call,) = kiro.tool_calls(fs_write("str_replace", "M.md", old_str="a", new_str="b")(d))
    assert (call.kind, call.edits) == (toolcall.COUNTED_EDIT, [("a", "b", 1)])
    (call,) = kiro.tool_calls(fs_write("insert", "M.md", insert_line=1, new_str="X")(d))
    assert call.kind == toolcall.TRANSFORM and call.transform("a\nb\n") == "a\nXb\n"
    (call,) = kiro.tool_calls(fs_write("insert", "M.md", insert_line=True, new_str="X")(d))
    assert call.kind == toolcall.TRANSFORM and call.transform is None  # a boolean is no line
    (call,) = kiro.tool_calls(fs_write("append", "M.md", new_str=5)(d))
    assert call.kind == toolcall.TRANSFORM and call.transform is None
    (call,) = kiro.tool_calls(fs_write("create", "~/M.md", file_text="x")(d))
    assert call.path == os.path.join(os.path.expanduser("~"), "M.md")
    (call,) = kiro.tool_calls(fs_write("create", "~bob/M.md", file_text="x")(d))
    assert call.path == "~bob/M.md"  # the CLI expands only a leading ~ alone or before a slash
    (call,) = kiro.tool_calls(bash("ls", tool="shell")(d))
    assert (call.kind, call.command, call.cwd) == (toolcall.SHELL, "ls", "/w")
    assert kiro.tool_calls(base(d, "fs_write", "M.md")) == []
    assert kiro.tool_calls([1]) == []
    (call,) = kiro.tool_calls(base(d, "fs_read", {"path": "M.md"}))
    assert call.kind == toolcall.UNKNOWN


def test_render() -> None:
    assert kiro.render(Verdict(guard.DENY, "no"), "pre") == ("no", 2, dialects.STDERR)
    assert kiro.render(Verdict(guard.NUDGE, "hm"), "pre") == ("", 0)
    assert kiro.render(Verdict(guard.SILENT), "pre") == ("", 0)
    assert kiro.render(Verdict(guard.DENY, "no"), "post") == ("no", 1, "stderr")
    assert kiro.render(Verdict(guard.NUDGE, "hm"), "post") == ("", 0)
    assert kiro.STDERR == dialects.STDERR


def test_the_cheap_test_agrees_with_the_parse(tmp_path: Path) -> None:
    def raw(payload: dict) -> bytes:
        return json.dumps(payload).encode()

    assert not kiro.may_concern_index(raw(fs_write("create", "/x/a.py")(tmp_path)), {})
    assert kiro.may_concern_index(
        raw(fs_write("append", "~/MEMORY.md", tool="write")(tmp_path)), {}
    )
    assert not kiro.may_concern_index(raw(bash("ls -la")(tmp_path)), {})
    assert kiro.may_concern_index(raw(bash("tee MEM*.md", tool="shell")(tmp_path)), {})
    assert not kiro.may_concern_index(raw(base(tmp_path, "fs_read", {"path": "MEMORY.md"})), {})
    assert kiro.may_concern_index(b'{"tool_input": {}}', {})  # no tool name: parsed


def test_an_oversized_payload_is_judged_by_its_target(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("engramory.guard.PAYLOAD_LIMIT", 1000)  # the entry reads it there
    big = fs_write("append", "MEMORY.md", new_str="x" * 2000)(tmp_path)
    text, code, stream = dialects.answer(["--host", "kiro"], json.dumps(big).encode(), {})
    assert (code, stream) == (2, dialects.STDERR) and TOO_LARGE in text
    home = fs_write("create", "~/MEMORY.md", file_text="x" * 2000)(tmp_path)
    assert dialects.answer(["--host", "kiro"], json.dumps(home).encode(), {})[1] == 2
    other = fs_write("create", "app.py", file_text="x" * 2000)(tmp_path)
    assert dialects.answer(["--host", "kiro"], json.dumps(other).encode(), {}) == ("", 0)


def test_other_dialects_still_answer_on_stdout(tmp_path: Path) -> None:
    """The stderr marker is Kiro's alone: Claude Code's deny is still JSON on stdout."""
    payload = {
        "hook_event_name": "PreToolUse",
        "cwd": str(tmp_path),
        "tool_name": "Write",
        "tool_input": {"file_path": "MEMORY.md", "content": lines(300)},
    }
    proc = run_hook("claude", payload)
    assert proc.returncode == 0 and proc.stderr == b""
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


# --- lifecycle: agentSpawn and userPromptSubmit through the real sync hook ------------------

SYNC = REPO / "hooks" / "engramory_sync.py"


def run_sync(store: Path, payload: object, event: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-I", "-S", str(SYNC), "hook", "--host", "kiro", "--event", event]
    return subprocess.run(
        [*argv, "--", str(store)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    path.mkdir()
    (path / "MEMORY.md").write_text("# Memory index\n")
    return path


def test_agent_spawn_context_and_prompt_tracking_through_the_real_hook(
    store: Path, tmp_path: Path
) -> None:
    spawn = {"hook_event_name": "agentSpawn", "cwd": str(tmp_path), "session_id": "k1"}
    start = run_sync(store, spawn, "SessionStart")
    assert (start.returncode, start.stderr) == (0, "")
    assert start.stdout.startswith("Engramory continuity") and "{" not in start.stdout[:1]
    assert "No unsynced work is recorded." in start.stdout
    assert "--session-id=k1" in start.stdout
    prompt = {**spawn, "hook_event_name": "userPromptSubmit", "prompt": "fix the bug"}
    submitted = run_sync(store, prompt, "UserPromptSubmit")
    assert (submitted.returncode, submitted.stdout, submitted.stderr) == (0, "", "")
    again = run_sync(store, spawn, "SessionStart")
    assert "unsynced" in again.stdout and "No unsynced work" not in again.stdout


def test_a_payload_without_a_session_id_is_the_working_directorys_session(
    store: Path, tmp_path: Path
) -> None:
    spawn = {"hook_event_name": "agentSpawn", "cwd": str(tmp_path)}
    start = run_sync(store, spawn, "SessionStart")
    assert start.returncode == 0 and f"--session-id=kiro:{tmp_path}" in start.stdout


def test_lifecycle_payload_and_render() -> None:
    read = kiro.lifecycle_payload({"hook_event_name": "agentSpawn", "cwd": "/p"}, None)
    assert read == {"hook_event_name": "SessionStart", "cwd": "/p", "session_id": "kiro:/p"}
    read = kiro.lifecycle_payload(
        {"hook_event_name": "userPromptSubmit", "session_id": "s", "prompt": "p"}, None
    )
    assert (read["hook_event_name"], read["session_id"]) == ("UserPromptSubmit", "s")
    assert kiro.lifecycle_payload({"hook_event_name": "x"}, "SessionStart")["hook_event_name"] == (
        "SessionStart"
    )
    assert kiro.lifecycle_payload([1], None) == [1]
    for kind in (policy.CONTEXT, policy.WARN, policy.BLOCK):
        assert kiro.render_lifecycle(policy.Reply(kind, "text", "SessionStart")) == ("text", 0)
    assert kiro.render_lifecycle(policy.Reply(policy.QUIET, event="UserPromptSubmit")) == ("", 0)


# --- install: the agent definition ---------------------------------------------------------

AGENT = Path(".kiro/agents/engramory.json")
USER_AGENT = {
    "name": "dev",
    "description": "my agent",
    "tools": ["fs_read", "fs_write", "execute_bash"],
    "allowedTools": ["fs_read"],
    "hooks": {
        "agentSpawn": [{"command": "git status"}],
        "preToolUse": [{"matcher": "execute_bash", "command": "./audit.sh"}],
    },
    "model": "claude-sonnet-4",
}
STYLES = {
    "indent2": lambda data: json.dumps(data, indent=2) + "\n",
    "compact-crlf": lambda data: json.dumps(data).replace("{", "{\r\n", 1) + "\r\n",
    "no-hooks": lambda data: json.dumps({k: v for k, v in data.items() if k != "hooks"}, indent=4),
}


def ours(config: dict) -> int:
    return hookconfig.count_ours(config, hookwiring.SCRIPT_FORMAT)


def test_init_writes_a_complete_agent_and_uninstall_deletes_it(cli, project: Path) -> None:
    before = digest(project)
    first = cli("init", "kiro", "--install-hooks")
    assert first.code == 0, first
    text = (project / AGENT).read_text()
    agent = json.loads(text)
    assert (agent["name"], agent["tools"]) == ("engramory", ["*"])
    assert "file://.kiro/steering/**/*.md" in agent["resources"]
    hooks = agent["hooks"]
    assert [h["matcher"] for h in hooks["preToolUse"]] == [
        "fs_write",
        "write",
        "execute_bash",
        "shell",
    ]
    guard_line = hooks["preToolUse"][0]["command"]
    assert "--host kiro" in guard_line and "|| true" not in guard_line  # exit 2 must get through
    assert all(h["timeout_ms"] == kiro_host.TIMEOUT_MS for h in hooks["preToolUse"])
    assert "--event SessionStart" in hooks["agentSpawn"][0]["command"]
    assert "--event UserPromptSubmit" in hooks["userPromptSubmit"][0]["command"]
    assert "kiro-cli chat --agent engramory" in first.out
    again = cli("init", "kiro", "--install-hooks")
    assert again.code == 0 and (project / AGENT).read_text() == text
    assert "already registered" in again.out
    assert cli("uninstall", "kiro").code == 0
    after = digest(project, skip=(".git", ".engramory-memory"))
    assert {k: v for k, v in after.items() if k != ".gitignore"} == before


def test_the_registered_guard_denies_what_the_verification_line_sends(cli, project: Path) -> None:
    result = cli("init", "kiro", "--install-hooks")
    assert "checked         .kiro/agents/engramory.json" in result.out
    agent = json.loads((project / AGENT).read_text())
    payload = kiro_host.HOST.shell_payload(f"echo x >> {project}/.engramory-memory/MEMORY.md", ".")
    proc = subprocess.run(
        ["bash", "-c", agent["hooks"]["preToolUse"][2]["command"]],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert outcome(proc)[0] == DENY


def test_uninstall_keeps_what_the_user_added_to_the_engramory_agent(cli, project: Path) -> None:
    assert cli("init", "kiro", "--install-hooks").code == 0
    agent = json.loads((project / AGENT).read_text())
    agent["model"] = "claude-sonnet-4"
    (project / AGENT).write_text(json.dumps(agent, indent=2) + "\n")
    assert cli("uninstall", "kiro").code == 0
    left = json.loads((project / AGENT).read_text())
    assert left["model"] == "claude-sonnet-4" and ours(left) == 0 and not left["hooks"]


@pytest.mark.parametrize("style", list(STYLES))
def test_merge_into_the_users_agent_and_give_back_its_bytes(cli, project: Path, style: str) -> None:
    path = project / ".kiro" / "agents" / "dev.json"
    path.parent.mkdir(parents=True)
    original = STYLES[style](USER_AGENT).encode()
    path.write_bytes(original)
    first = cli("init", "kiro", "--install-hooks", "--kiro-agent", "dev")
    assert first.code == 0, first
    installed = path.read_bytes()
    assert not (project / AGENT).exists()
    for _ in range(2):
        again = cli("init", "kiro", "--install-hooks", "--kiro-agent", "dev")
        assert again.code == 0 and path.read_bytes() == installed
    config = json.loads(installed)
    assert ours(config) == 10  # 4 tools x (preToolUse, postToolUse), agentSpawn, userPromptSubmit
    for key, value in json.loads(original).items():
        if key != "hooks":
            assert config[key] == value
    for event, entries in json.loads(original).get("hooks", {}).items():
        assert all(entry in config["hooks"][event] for entry in entries)  # theirs, untouched
    assert (b"\r\n" in installed) == (b"\r\n" in original)
    assert cli("uninstall", "kiro", "--kiro-agent", "dev").code == 0
    assert path.read_bytes() == original


@pytest.mark.parametrize("style", list(STYLES))
def test_uninstall_without_the_flag_finds_the_merged_agent(cli, project: Path, style: str) -> None:
    path = project / ".kiro" / "agents" / "dev.json"
    path.parent.mkdir(parents=True)
    original = STYLES[style](USER_AGENT).encode()
    path.write_bytes(original)
    assert cli("init", "kiro", "--install-hooks", "--kiro-agent", "dev").code == 0
    assert path.read_bytes() != original
    result = cli("uninstall", "kiro")
    assert result.code == 0, result
    assert path.read_bytes() == original
    assert "removed the hooks in the Kiro CLI agent 'dev', kept the rest" in result.out


def test_uninstall_takes_the_hooks_out_of_every_agent_and_passes_the_others_over(
    cli, project: Path
) -> None:
    folder = project / ".kiro" / "agents"
    folder.mkdir(parents=True)
    originals = {
        name: json.dumps({**USER_AGENT, "name": name}, indent=2).encode() + b"\n"
        for name in ("dev", "ops", "plain")
    }
    for name, data in originals.items():
        (folder / f"{name}.json").write_bytes(data)
    (folder / "broken.json").write_bytes(b"\xff not utf-8")
    (folder / "notes.txt").write_text("not an agent")
    outside = project.parent / "elsewhere.json"
    outside.write_text(json.dumps(USER_AGENT))
    (folder / "linked.json").symlink_to(outside)
    for name in ("dev", "ops"):
        assert cli("init", "kiro", "--install-hooks", "--kiro-agent", name).code == 0
    assert cli("init", "kiro", "--install-hooks").code == 0  # and the engramory agent
    result = cli("uninstall", "kiro")
    assert result.code == 0, result
    assert {name: (folder / f"{name}.json").read_bytes() for name in originals} == originals
    assert not (project / AGENT).exists()
    assert "plain" not in result.out and "linked" not in result.out  # nothing of ours there
    assert "left            .kiro/agents/broken.json (not searched" in result.out
    assert outside.read_text() == json.dumps(USER_AGENT)


def test_uninstall_with_the_flag_also_takes_back_the_engramory_agent(cli, project: Path) -> None:
    path = project / ".kiro" / "agents" / "dev.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(USER_AGENT, indent=2) + "\n")
    original = path.read_bytes()
    assert cli("init", "kiro", "--install-hooks").code == 0
    assert cli("init", "kiro", "--install-hooks", "--kiro-agent", "dev").code == 0
    assert cli("uninstall", "kiro", "--kiro-agent", "dev").code == 0
    assert path.read_bytes() == original and not (project / AGENT).exists()


def test_a_global_uninstall_finds_the_merged_global_agent_and_leaves_the_project(
    cli, project: Path, home: Path
) -> None:
    user = home / ".kiro" / "agents" / "dev.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps(USER_AGENT, indent=2) + "\n")
    original = user.read_bytes()
    assert cli("init", "kiro", "--global", "--install-hooks", "--kiro-agent", "dev").code == 0
    assert cli("init", "kiro", "--install-hooks").code == 0
    project_agent = (project / AGENT).read_bytes()
    assert cli("uninstall", "kiro", "--global").code == 0
    assert user.read_bytes() == original
    assert (project / AGENT).read_bytes() == project_agent  # a project install is its own
    assert cli("uninstall", "kiro").code == 0
    assert user.read_bytes() == original and not (project / AGENT).exists()


def test_uninstall_refuses_an_agent_name_that_is_not_a_file_name(cli, project: Path) -> None:
    refused(cli, project, "uninstall", "kiro", "--kiro-agent", "../x", match="", code=64)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (None, "does not exist: create the agent first (kiro-cli agent create dev)"),
        ("[]", "is not a JSON object"),
        ("", "is empty"),
        ("{not json", "dev.json"),
        ('{"hooks": []}', "dev.json"),
        ('{"hooks": {"preToolUse": [5]}}', "dev.json"),
    ],
    ids=["missing", "a list", "empty", "not json", "hooks a list", "a handler not an object"],
)
def test_a_missing_or_unusable_agent_file_is_refused(
    cli, project: Path, content: str | None, match: str
) -> None:
    path = project / ".kiro" / "agents" / "dev.json"
    if content is not None:
        path.parent.mkdir(parents=True)
        path.write_text(content)
    refused(cli, project, "init", "kiro", "--install-hooks", "--kiro-agent", "dev", match=match)
    assert match in cli("init", "kiro", "--install-hooks", "--kiro-agent", "dev").err
    assert "dev.json" in cli("init", "kiro", "--install-hooks", "--kiro-agent", "dev").err


@pytest.mark.parametrize("name", ["../x", ".hidden", "a/b", ""])
def test_an_agent_name_that_is_not_a_file_name_is_a_usage_error(
    cli, project: Path, name: str
) -> None:
    refused(
        cli, project, "init", "kiro", "--install-hooks", "--kiro-agent", name, match="", code=64
    )


def test_the_agent_flag_is_kiros_alone(cli, project: Path) -> None:
    refused(
        cli,
        project,
        *("init", "gemini", "--install-hooks", "--kiro-agent", "dev"),
        match="--kiro-agent applies to kiro only",
        code=64,
    )


def test_dry_run_writes_nothing(cli, project: Path) -> None:
    before = digest(project)
    result = cli("init", "kiro", "--install-hooks", "--dry-run")
    assert result.code == 0 and ".kiro/agents/engramory.json" in result.out
    assert digest(project) == before


def test_a_global_install_writes_the_users_agent(cli, project: Path, home: Path) -> None:
    assert cli("init", "kiro", "--global", "--install-hooks").code == 0
    agent = json.loads((home / AGENT).read_text())
    assert ours(agent) == 10 and not (project / AGENT).exists()
    assert cli("uninstall", "kiro", "--global").code == 0
    assert not (home / AGENT).exists()


def test_windows_lines_keep_the_deny_exit_code() -> None:
    scripts = ("C:/e/engramory_index_guard.py", "C:/e/engramory_sync.py")
    hooks = kiro_host.agent_hooks("C:/py.exe", *scripts, "C:/st", "explicit", True)
    line = hooks["preToolUse"][0]["command"]
    assert line.startswith("powershell.exe ") and "-EncodedCommand" in line
    script = base64.b64decode(line.split()[-1]).decode("utf-16-le")
    assert "'--host' 'kiro'" in script and "exit $LASTEXITCODE" in script
    assert hookwiring.SCRIPT_FORMAT.marker.owns(hooks["agentSpawn"][0])


def test_the_hosts_table_shows_kiros_hooks(cli) -> None:
    row = next(r for r in json.loads(cli("hosts", "--format", "json").out) if r["host"] == "kiro")
    assert row["cap_enforcement"] == "deny-hook" and row["pre_write_hook"] is True
    assert row["lifecycle_hooks"] == ["SessionStart", "UserPromptSubmit"]
    assert row["hook_files"] == [".kiro/agents/engramory.json"]
    assert "kiro" in registry.guard_hosts() and "kiro" in registry.lifecycle_hosts()


def test_the_rules_promise_no_compaction_gate_and_name_the_agent() -> None:
    note = blocks.host_note(registry.HOSTS["kiro"], False, ".engramory-memory", hooks=True)
    assert (
        "A manual compaction waits" not in note
        and "Kiro offers no way to hold a compaction back" in note
    )
    assert "only in the agent that holds them" in note and "(use fs_write)" in note
    claude = blocks.host_note(registry.HOSTS["claude"], False, ".engramory-memory", hooks=True)
    assert "A manual compaction waits for that record. They remind and gate;" in claude


def test_uninstall_naming_the_engramory_agent_still_deletes_it(cli, project: Path) -> None:
    assert cli("init", "kiro", "--install-hooks").code == 0
    assert cli("uninstall", "kiro", "--kiro-agent", "engramory").code == 0
    assert not (project / AGENT).exists()
