"""Gemini CLI's guard dialect (BeforeTool): the decision table through the real hook process,
then payload parsing and rendering in-process. The decisions: tests/test_guard_service.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hookkit import (
    DENY,
    HEAVY,
    NUDGE,
    SILENT,
    answer,
    crash_is_silent,
    hot_path,
    imported,
    lines,
    run_hook,
)

from engramory import dialects
from engramory.dialects import gemini
from engramory.guard import decision as guard
from engramory.guard import toolcall
from engramory.guard.decision import Verdict

GROW = "would GROW the memory index"
SHELL = "this shell command would write the memory index"
SOFT = "offer the user a compaction pass"
STILL = "is still over"
UNVERIFIED = "was NOT checked against its cap"
UNIQUE_TAIL = lines(198) + "tail\n"


def base(d: Path, tool: str, tool_input: dict) -> dict:
    """A BeforeTool payload exactly as the research shows it."""
    return {
        "session_id": "s1",
        "transcript_path": str(d / "t.json"),
        "cwd": str(d),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-01T10:00:00Z",
        "tool_name": tool,
        "tool_input": tool_input,
        "mcp_context": None,
        "original_request_name": tool,
    }


def write_file(path: str, content: str) -> Callable[[Path], dict]:
    return lambda d: base(d, "write_file", {"file_path": path.format(d=d), "content": content})


def replace(path: str, old: str, new: str, **extra: object) -> Callable[[Path], dict]:
    tool_input = {"file_path": path, "instruction": "edit", "old_string": old, "new_string": new}
    return lambda d: base(d, "replace", {**tool_input, "file_path": path.format(d=d), **extra})


def shell(command: str, dir_path: str | None = None) -> Callable[[Path], dict]:
    tool_input: dict[str, object] = {"command": command, "is_background": False}
    if dir_path is not None:
        tool_input["dir_path"] = dir_path
    return lambda d: base(d, "run_shell_command", tool_input)


# (id, the index's text (None: no index), payload, expected, a phrase of the message)
TABLE = [
    ("write new index over the cap", None, write_file("{d}/MEMORY.md", lines(250)), DENY, GROW),
    ("write relative to cwd", None, write_file("MEMORY.md", lines(250)), DENY, GROW),
    ("write over the soft cap", None, write_file("MEMORY.md", lines(160)), NUDGE, SOFT),
    ("write within the caps", None, write_file("MEMORY.md", lines(10)), SILENT, ""),
    ("write shrinks an over-cap index", lines(260), write_file("MEMORY.md", lines(230)), NUDGE, STILL),
    ("write another file", None, write_file("{d}/app.py", lines(900)), SILENT, ""),
    ("write another store's index", None, write_file("/elsewhere/MEMORY.md", lines(250)), DENY, GROW),
    ("replace one occurrence, growing", UNIQUE_TAIL, replace("MEMORY.md", "tail\n", lines(5)), DENY, GROW),
    ("replace one occurrence, shrinking", lines(150) + "tail\n", replace("MEMORY.md", "tail\n", ""), SILENT, ""),
    ("replace all (allow_multiple)", lines(150), replace("MEMORY.md", "x\n", "x\ny\n", allow_multiple=True), DENY, GROW),
    ("replace matching nothing", lines(150), replace("MEMORY.md", "nope", lines(300)), NUDGE, UNVERIFIED),
    ("replace matching twice, one expected", lines(150), replace("MEMORY.md", "x\n", "y\n"), NUDGE, UNVERIFIED),
    ("expected_replacements matches", "a\n" + lines(150) + "a\n", replace("MEMORY.md", "a\n", lines(30), expected_replacements=2), DENY, GROW),
    ("expected_replacements differs", "a\n" + lines(150) + "a\n", replace("MEMORY.md", "a\n", lines(30), expected_replacements=3), NUDGE, UNVERIFIED),
    ("replace with empty old_string creates", None, replace("MEMORY.md", "", lines(250)), DENY, GROW),
    ("replace another file", None, replace("{d}/notes.md", "a", lines(300)), SILENT, ""),
    ("shell append to the index", None, shell("echo x >> MEMORY.md"), DENY, SHELL),
    ("shell read of the index", lines(10), shell("cat MEMORY.md | wc -l"), SILENT, ""),
    ("shell glob in dir_path", None, shell("echo x >> MEM*.md", dir_path="store"), DENY, SHELL),
    ("shell glob without dir_path", None, shell("echo x >> MEM*.md"), SILENT, ""),
    ("another tool", lines(10), lambda d: base(d, "read_file", {"file_path": "MEMORY.md"}), SILENT, ""),
    ("an MCP tool", lines(10), lambda d: {**base(d, "mcp_fs_write", {"path": "MEMORY.md", "content": lines(300)}), "mcp_context": {"server_name": "fs", "tool_name": "write"}}, SILENT, ""),
]  # fmt: skip


def expected_output(kind: str, message: str) -> dict | None:
    if kind == DENY:
        return {"decision": "deny", "reason": message}
    if kind == NUDGE:
        return {"systemMessage": message}
    return None


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
    output = answer(run_hook("gemini", payload(tmp_path), cwd=elsewhere))
    message = (output.get("reason") or output.get("systemMessage", "")) if output else ""
    assert output == expected_output(kind, message)
    assert phrase in message


@pytest.mark.parametrize(
    "raw",
    [b"", b"\xff\xfe garbage MEMORY.md", b"[]", b"null", b'{"tool_name": "write_file"}', b"{"],
    ids=["empty", "invalid utf-8", "list", "null", "no input", "cut off"],
)
def test_malformed_input_is_silent_exit_zero(raw: bytes) -> None:
    proc = run_hook("gemini", raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_the_index_named_by_path_through_the_real_hook(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    payload = write_file("notes.md", lines(300))(tmp_path)
    output = answer(run_hook("gemini", payload, "--index", str(index)))
    assert output is not None and output["decision"] == "deny"
    assert answer(run_hook("gemini", payload)) is None  # without --index: only the name counts


def test_the_after_tool_event_reports_an_index_over_the_cap(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(300))
    after = {
        "tool_name": "run_shell_command",
        "tool_input": {"command": "cat draft >> MEMORY.md"},
        "cwd": str(tmp_path),
    }
    output = answer(run_hook("gemini", after, "--event", "post", "--index", str(index)))
    assert output["decision"] == "deny" and "lines (300 > 200)" in output["reason"]
    index.write_text(lines(20))
    assert answer(run_hook("gemini", after, "--event", "post", "--index", str(index))) is None


def test_an_unrelated_payload_imports_only_the_hot_path(tmp_path: Path) -> None:
    for payload in (
        write_file("/x/app.py", "print(1)")(tmp_path),
        shell("pytest -q tests/")(tmp_path),
        base(tmp_path, "read_file", {"file_path": "MEMORY.md"}),
        {**write_file("app.py", "x")(tmp_path), "cwd": "C:\\proj"},  # escapes, never decoded
    ):
        names = imported("gemini", payload)
        assert {n for n in names if n.startswith("engramory")} == hot_path("gemini"), payload
        assert not names & HEAVY


# --- in-process: payload -> ToolCall, Verdict -> output ----------------------------------


def test_tool_calls() -> None:
    d = Path("/w")
    (call,) = gemini.tool_calls(write_file("M.md", "x")(d))
    assert (call.kind, call.path, call.cwd, call.content) == (toolcall.WRITE, "M.md", "/w", "x")
    (call,) = gemini.tool_calls(replace("M.md", "a", "b")(d))
    assert (call.kind, call.edits) == (toolcall.COUNTED_EDIT, [("a", "b", 1)])
    (call,) = gemini.tool_calls(replace("M.md", "a", "b", allow_multiple=True)(d))
    assert call.edits == [("a", "b", None)]
    (call,) = gemini.tool_calls(replace("M.md", "a", "b", expected_replacements=3)(d))
    assert call.edits == [("a", "b", 3)]
    (call,) = gemini.tool_calls(replace("M.md", "a", "b", expected_replacements=True)(d))
    assert call.edits == [("a", "b", 1)]  # a boolean is not a count
    (call,) = gemini.tool_calls(replace("M.md", "", "new")(d))
    assert (call.kind, call.content) == (toolcall.WRITE, "new")
    (call,) = gemini.tool_calls(shell("ls", dir_path="sub")(d))
    assert (call.kind, call.command, call.cwd) == (toolcall.SHELL, "ls", "/w/sub")
    (call,) = gemini.tool_calls(shell("ls", dir_path="/abs")(d))
    assert call.cwd == "/abs"
    (call,) = gemini.tool_calls(base(d, "write_file", {"file_path": "M.md", "content": 5}))
    assert call.content is None
    assert gemini.tool_calls(base(d, "write_file", "M.md")) == []
    assert gemini.tool_calls([1]) == []
    (call,) = gemini.tool_calls(base(d, "glob", {"pattern": "*"}))
    assert call.kind == toolcall.UNKNOWN


def test_render() -> None:
    assert gemini.render(Verdict(guard.DENY, "no"), "pre") == (
        '{"decision": "deny", "reason": "no"}',
        0,
    )
    assert gemini.render(Verdict(guard.NUDGE, "hm"), "pre") == ('{"systemMessage": "hm"}', 0)
    assert gemini.render(Verdict(guard.SILENT), "pre") == ("", 0)
    assert gemini.render(Verdict(guard.DENY, "no"), "post") == (
        '{"decision": "deny", "reason": "no"}',
        0,
    )
    assert gemini.render(Verdict(guard.NUDGE, "hm"), "post") == ("", 0)


def test_the_cheap_test_agrees_with_the_parse(tmp_path: Path) -> None:
    def raw(payload: dict) -> bytes:
        return json.dumps(payload).encode()

    assert not gemini.may_concern_index(raw(write_file("/x/a.py", "x")(tmp_path)), {})
    assert gemini.may_concern_index(raw(write_file("/x/MEMORY.md", "x")(tmp_path)), {})
    assert gemini.may_concern_index(raw(replace("mem/memory.MD", "a", "b")(tmp_path)), {})
    assert not gemini.may_concern_index(raw(shell("ls -la")(tmp_path)), {})
    assert gemini.may_concern_index(raw(shell("tee MEM*.md")(tmp_path)), {})
    assert not gemini.may_concern_index(raw(base(tmp_path, "glob", {"pattern": "MEMORY.md"})), {})
    assert gemini.may_concern_index(b'{"tool_input": {}}', {})  # no tool name: parsed


def test_an_oversized_payload_is_judged_by_its_target(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("engramory.guard.PAYLOAD_LIMIT", 1000)  # the entry reads it there
    big = write_file("MEMORY.md", "x" * 2000)(tmp_path)
    text, code = dialects.answer(["--host", "gemini"], json.dumps(big).encode(), {})
    assert code == 0 and json.loads(text)["decision"] == "deny"
    assert "too large to check" in json.loads(text)["reason"]
    other = write_file("app.py", "x" * 2000)(tmp_path)
    assert dialects.answer(["--host", "gemini"], json.dumps(other).encode(), {}) == ("", 0)


def test_a_crash_never_exits_non_zero(monkeypatch, capsys, tmp_path: Path) -> None:
    """Gemini CLI BLOCKS on exit 2 and up (and allows on 1): the entry must exit 0."""
    payload = json.dumps(write_file("MEMORY.md", lines(300))(tmp_path)).encode()
    crash_is_silent("gemini", payload, monkeypatch, capsys)
