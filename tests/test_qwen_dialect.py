"""Qwen Code's guard dialect and install (issue 38): payloads in Qwen's own tool ids, Claude
Code's answers, and the settings init writes, through the real hook process.

Pinned against Qwen Code's hooks reference (QwenLM/qwen-code ``docs/users/features/hooks.md``:
the PreToolUse payload, ``hookSpecificOutput.permissionDecision``, exit 2 blocks, any other
non-zero exit does not) and its tool pages (``write_file``, ``edit``, ``run_shell_command``).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hookkit import answer, crash_is_silent, hot_path, imported, lines, run_hook

from engramory.cuts import qwen as qwen_cut
from engramory.dialects import qwen
from engramory.guard import decision, toolcall
from engramory.hosts.registry import HOSTS


def payload(tool: str, tool_input: dict[str, object], cwd: Path) -> dict[str, object]:
    """A PreToolUse payload as Qwen Code sends it."""
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "timestamp": "2026-12-04T00:00:00Z",
        "permission_mode": "default",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }


def decision_of(output: dict | None) -> str | None:
    """``deny``, ``nudge`` (context, no decision) or ``None`` for silence."""
    if output is None:
        return None
    inner = output["hookSpecificOutput"]
    assert inner["hookEventName"] == "PreToolUse"
    assert inner.get("permissionDecision") in (None, "deny")  # never allow, never ask
    return "deny" if inner.get("permissionDecision") == "deny" else "nudge"


def hook(body: dict[str, object], *args: str, env: dict[str, str] | None = None) -> dict | None:
    return answer(run_hook("qwen", body, *args, env=env))


# --- through the real hook process -----------------------------------------------------------


def entry(i: int, width: int) -> str:
    """One pointer line ``width`` characters long (ASCII: one UTF-16 unit each)."""
    head = f"- [n{i}](n{i}.md) — "
    return head + "x" * (width - len(head))


def test_a_write_past_the_cap_is_denied_naming_what_qwen_would_drop(tmp_path: Path) -> None:
    # 200 lines over 25,000 units: Qwen keeps lines of at most 150 first, so the one long
    # line near the top falls off, not the tail
    content = "\n".join(entry(i, 160 if i == 3 else 140) for i in range(200)) + "\n"
    output = hook(payload("write_file", {"file_path": "MEMORY.md", "content": content}, tmp_path))
    assert decision_of(output) == "deny"
    reason = output["hookSpecificOutput"]["permissionDecisionReason"]
    assert "After this write Qwen Code would not load: line 4 (n3.md)" in reason
    assert "Claude Code" not in reason
    assert not (tmp_path / "MEMORY.md").exists()  # the guard never writes


def test_a_small_write_is_silent_and_another_file_too(tmp_path: Path) -> None:
    small = payload("write_file", {"file_path": "MEMORY.md", "content": lines(3)}, tmp_path)
    assert hook(small) is None
    other = payload("write_file", {"file_path": "a.py", "content": lines(900)}, tmp_path)
    assert hook(other) is None


def test_an_edit_is_played_against_the_index(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("- [a](a.md) — one\n")
    grow = {"file_path": "MEMORY.md", "old_string": "one", "new_string": lines(250)}
    assert decision_of(hook(payload("edit", grow, tmp_path))) == "deny"
    shrink = {"file_path": "MEMORY.md", "old_string": " — one", "new_string": ""}
    assert hook(payload("edit", shrink, tmp_path)) is None


def test_an_edit_qwen_may_correct_itself_is_not_checked_not_denied(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("- [a](a.md) — one\n")
    missing = {"file_path": "MEMORY.md", "old_string": "absent", "new_string": lines(250)}
    output = hook(payload("edit", missing, tmp_path))
    assert decision_of(output) == "nudge"
    assert "NOT checked" in output["hookSpecificOutput"]["additionalContext"]


def test_an_empty_old_string_creates_the_file(tmp_path: Path) -> None:
    create = {"file_path": "MEMORY.md", "old_string": "", "new_string": lines(250)}
    assert decision_of(hook(payload("edit", create, tmp_path))) == "deny"


def test_a_shell_write_of_the_index_is_denied_in_its_directory(tmp_path: Path) -> None:
    for folder in ("mem", "other"):
        (tmp_path / folder).mkdir()
    env = {"ENGRAMORY_INDEX_PATH": str(tmp_path / "mem" / "MEMORY.md")}  # only that one
    write = {"command": "echo x >> MEMORY.md", "directory": "mem", "is_background": False}
    assert decision_of(hook(payload("run_shell_command", write, tmp_path), env=env)) == "deny"
    elsewhere = {**write, "directory": "other"}
    assert hook(payload("run_shell_command", elsewhere, tmp_path), env=env) is None
    read = {"command": "cat MEMORY.md", "directory": "mem", "is_background": False}
    assert hook(payload("run_shell_command", read, tmp_path), env=env) is None


def test_after_a_write_an_index_over_its_cap_is_blocked(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(lines(260))
    body = payload("write_file", {"file_path": "MEMORY.md", "content": lines(260)}, tmp_path)
    body["hook_event_name"] = "PostToolUse"
    output = hook(body, "--event", "post")
    assert output["decision"] == "block" and "Engramory" in output["reason"]


@pytest.mark.parametrize(
    "raw", [b"", b"not json", b"[1,2]", b'{"tool_name": "write_file", "tool_input": 3}', b"\xff"]
)
def test_garbage_is_silent_with_exit_zero(raw: bytes) -> None:
    proc = run_hook("qwen", raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_a_crash_is_silent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = payload("write_file", {"file_path": "MEMORY.md", "content": lines(300)}, tmp_path)
    crash_is_silent("qwen", json.dumps(body).encode(), monkeypatch, capsys)


def test_an_unrelated_call_imports_only_the_hot_path(tmp_path: Path) -> None:
    names = imported("qwen", payload("read_file", {"path": "MEMORY.md"}, tmp_path))
    assert {n for n in names if n.startswith("engramory")} <= hot_path("qwen")


# --- the dialect's pieces ---------------------------------------------------------------------


def test_tool_calls_read_qwens_arguments(tmp_path: Path) -> None:
    [write] = qwen.tool_calls(payload("write_file", {"file_path": "M", "content": "c"}, tmp_path))
    assert (write.kind, write.path, write.content, write.cut_host) == (
        toolcall.WRITE,
        "M",
        "c",
        "qwen",
    )
    edit = {"file_path": "M", "old_string": "a", "new_string": "b", "replace_all": True}
    [counted] = qwen.tool_calls(payload("edit", edit, tmp_path))
    assert counted.kind == toolcall.COUNTED_EDIT and counted.edits == [("a", "b", None)]
    [one] = qwen.tool_calls(payload("edit", {**edit, "replace_all": False}, tmp_path))
    assert one.edits == [("a", "b", 1)]
    [other] = qwen.tool_calls(payload("Write", {"file_path": "M", "content": "c"}, tmp_path))
    assert other.kind == toolcall.UNKNOWN
    assert qwen.tool_calls([1]) == []


def test_the_cheap_test_dismisses_other_tools_and_files() -> None:
    env: dict[str, str] = {}
    assert not qwen.may_concern_index(b'{"tool_name": "read_file", "tool_input": {}}', env)
    a_py = b'{"tool_name": "write_file", "tool_input": {"file_path": "a.py"}}'
    assert not qwen.may_concern_index(a_py, env)
    index = b'{"tool_name": "write_file", "tool_input": {"file_path": "m/MEMORY.md"}}'
    assert qwen.may_concern_index(index, env)
    assert not qwen.may_concern_index(
        b'{"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}', env
    )


def test_render_writes_claude_codes_answers() -> None:
    deny = json.loads(qwen.render(decision.Verdict("deny", "no"), "pre")[0])
    assert deny["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert qwen.render(decision.silent(), "pre") == ("", 0)


def test_a_held_compaction_is_a_reminder() -> None:
    from engramory.continuity import policy

    text, code = qwen.render_lifecycle(policy.Reply(policy.BLOCK, "sync first", "PreCompact"))
    assert code == 0 and "Qwen Code only observes a compaction" in json.loads(text)["systemMessage"]


def test_qwens_cut_drops_a_long_line_on_top_first() -> None:
    text = "\n".join([entry(0, 200)] + [entry(i, 140) for i in range(1, 200)])
    cut = qwen_cut.cut(text)
    assert cut.dropped[0] == 1  # though it is the first line; shorter lines below load


# --- the install --------------------------------------------------------------------------------


def test_init_writes_the_settings_qwen_reads(cli, project: Path) -> None:
    result = cli("init", "qwen", "--install-hooks")
    assert result.code == 0, result
    data = json.loads((project / ".qwen" / "settings.json").read_text())
    assert set(data["hooks"]) == {"PreToolUse", "PostToolUse", *HOSTS["qwen"].lifecycle_hooks}
    [pre] = data["hooks"]["PreToolUse"]
    assert pre["matcher"] == "^(write_file|edit|run_shell_command)$"
    [handler] = pre["hooks"]
    assert handler["type"] == "command" and handler["timeout"] == 10_000  # milliseconds
    assert "args" not in handler  # Qwen's command hooks are one shell line
    assert handler["command"].endswith(" || true")
    assert "--host qwen --index" in handler["command"]
    assert "QWEN" in (project / "QWEN.md").read_text()
    assert cli("uninstall", "qwen").code == 0
    assert not (project / ".qwen" / "settings.json").exists()


def test_guard_only_registers_the_two_guard_groups(cli, home: Path, project: Path) -> None:
    result = cli("init", "qwen", "--global", "--guard-only")
    assert result.code == 0, result
    settings = home / ".qwen" / "settings.json"
    data = json.loads(settings.read_text())
    assert set(data["hooks"]) == {"PreToolUse", "PostToolUse"}
    for event in data["hooks"].values():
        assert "--index" not in event[0]["hooks"][0]["command"]
    assert not (home / ".qwen" / "QWEN.md").exists()
    assert cli("uninstall", "qwen", "--global").code == 0
    assert not settings.exists()


def test_the_registered_line_denies_a_shell_write(cli, project: Path) -> None:
    import shlex
    import subprocess

    assert cli("init", "qwen", "--install-hooks").code == 0
    data = json.loads((project / ".qwen" / "settings.json").read_text())
    line = data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    index = project / ".engramory-memory" / "MEMORY.md"
    body = payload(
        "run_shell_command", {"command": f"echo x >> {shlex.quote(str(index))}"}, project
    )
    proc = subprocess.run(
        ["sh", "-c", line], input=json.dumps(body).encode(), capture_output=True, check=False
    )
    assert proc.returncode == 0
    assert decision_of(json.load(io.BytesIO(proc.stdout))) == "deny"
