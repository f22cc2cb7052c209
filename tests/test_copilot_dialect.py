"""GitHub Copilot's guard dialect (preToolUse, camelCase and Claude-style payloads): the decision
table through the real hook process, its failure modes (Copilot fails CLOSED on any non-zero exit),
then parsing and rendering in-process. PowerShell's check: tests/test_pwsh.py."""

from __future__ import annotations

import json
import os
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
from hypothesis import given
from hypothesis import strategies as st

from engramory import dialects
from engramory.dialects import copilot, rawjson
from engramory.guard import decision as guard
from engramory.guard import service, toolcall
from engramory.guard.decision import Verdict

GROW = "would GROW the memory index"
SHELL = "this shell command would write the memory index"
SOFT = "offer the user a compaction pass"
UNIQUE_TAIL = lines(198) + "tail\n"


def camel(tool: str, args: object, as_string: bool = False) -> Callable[[Path], dict]:
    """A camelCase payload; ``as_string``: ``toolArgs`` as a JSON string."""

    def build(d: Path) -> dict:
        resolved = {k: v.format(d=d) if k == "path" else v for k, v in args.items()}
        return {
            "sessionId": "s1",
            "timestamp": 1764583200000,
            "cwd": str(d),
            "toolName": tool,
            "toolArgs": json.dumps(resolved) if as_string else resolved,
        }

    return build


def claude_style(tool: str, tool_input: object) -> Callable[[Path], dict]:
    """A Claude-style payload: tool names mapped, argument keys as Copilot's."""
    return lambda d: {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "timestamp": "2026-12-01T10:00:00Z",
        "cwd": str(d),
        "tool_name": tool,
        "tool_input": tool_input,
    }


CREATE_BIG = {"path": "MEMORY.md", "file_text": lines(250)}
INSERT_BIG = {"command": "insert", "path": "MEMORY.md", "insert_line": 10, "new_str": lines(300)}
INSERT_SMALL = {"command": "insert", "path": "MEMORY.md", "insert_line": 0, "new_str": "# top"}
PASSWORD = "password: " + "Zx8#qL2!vR9@mT4$"
INSERT_SECRET = {"command": "insert", "path": "note.md", "insert_line": 1, "new_str": PASSWORD}
SECRET = "would put a secret"
EDIT_GROW = {"path": "MEMORY.md", "old_str": "tail\n", "new_str": lines(5)}

# (id, the index's text (None: none), payload, expected, a phrase of the message)
TABLE = [
    ("create over the cap", None, camel("create", CREATE_BIG), DENY, GROW),
    ("create, toolArgs a JSON string", None, camel("create", CREATE_BIG, as_string=True), DENY, GROW),
    ("create, absolute path", None, camel("create", {"path": "{d}/MEMORY.md", "file_text": lines(250)}), DENY, GROW),
    ("create over the soft cap: no nudge channel", None, camel("create", {"path": "MEMORY.md", "file_text": lines(160)}), SILENT, ""),
    ("create another file", None, camel("create", {"path": "app.py", "file_text": lines(900)}), SILENT, ""),
    ("edit one occurrence, growing", UNIQUE_TAIL, camel("edit", EDIT_GROW), DENY, GROW),
    ("edit, toolArgs a JSON string", UNIQUE_TAIL, camel("edit", EDIT_GROW, as_string=True), DENY, GROW),
    ("edit matching twice: the tool fails", lines(199), camel("edit", {"path": "MEMORY.md", "old_str": "x\n", "new_str": lines(9)}), SILENT, ""),
    ("edit on a missing index", None, camel("edit", EDIT_GROW), SILENT, ""),
    ("bash append", None, camel("bash", {"command": "echo x >> MEMORY.md"}), DENY, SHELL),
    ("bash, toolArgs a JSON string", None, camel("bash", {"command": "cd x\ntee -a MEMORY.md"}, as_string=True), DENY, SHELL),
    ("bash read", lines(10), camel("bash", {"command": "cat MEMORY.md"}), SILENT, ""),
    ("powershell Add-Content", None, camel("powershell", {"command": "Add-Content -Path .\\MEMORY.md -Value x"}), DENY, SHELL),
    ("powershell Get-Content", lines(10), camel("powershell", {"command": "Get-Content MEMORY.md"}), SILENT, ""),
    ("powershell, the name hidden", None, camel("powershell", {"command": "sc M`EMORY.md x; ac ('MEM' + 'ORY.md') y"}, as_string=True), DENY, SHELL),
    ("powershell wildcard", lines(10), camel("powershell", {"command": "Add-Content MEM*.md x"}), DENY, SHELL),
    ("toolArgs invalid JSON text", None, lambda d: {**camel("create", {})(d), "toolArgs": '{"path": "MEMORY.md", "file_text": "x'}, SILENT, ""),
    ("another tool", lines(10), camel("view", {"path": "MEMORY.md"}), SILENT, ""),
    ("Claude-style Write", None, claude_style("Write", CREATE_BIG), DENY, GROW),
    ("Claude-style Edit", UNIQUE_TAIL, claude_style("Edit", EDIT_GROW), DENY, GROW),
    ("Claude-style Write, soft cap", None, claude_style("Write", {"path": "MEMORY.md", "file_text": lines(160)}), NUDGE, SOFT),
    ("Claude-style str_replace_editor create", None, claude_style("Edit", {"command": "create", **CREATE_BIG}), DENY, GROW),
    ("Claude-style Bash", None, claude_style("Bash", {"command": "cp /tmp/x MEMORY.md"}), DENY, SHELL),
    ("Claude-style other file", None, claude_style("Write", {"path": "a.md", "file_text": lines(300)}), SILENT, ""),
    ("insert 300 lines into a 199-line index", lines(199), camel("edit", INSERT_BIG), DENY, GROW),
    ("insert, toolArgs a JSON string", lines(199), camel("edit", INSERT_BIG, as_string=True), DENY, GROW),
    ("insert, str_replace_editor", lines(199), camel("str_replace_editor", INSERT_BIG), DENY, GROW),
    ("Claude-style insert", lines(199), claude_style("Edit", INSERT_BIG), DENY, GROW),
    ("insert, the line number a string", lines(199), camel("edit", {**INSERT_BIG, "insert_line": "10"}), DENY, GROW),
    ("insert one line under the cap", lines(10), camel("edit", INSERT_SMALL), SILENT, ""),
    ("Claude-style insert under the cap", lines(10), claude_style("Edit", INSERT_SMALL), SILENT, ""),
    ("insert one line into a full index", lines(200), claude_style("Edit", INSERT_SMALL), DENY, GROW),
    ("a password inserted into a note", lines(10), camel("edit", INSERT_SECRET), DENY, SECRET),
    ("Claude-style password inserted into a note", lines(10), claude_style("Edit", INSERT_SECRET), DENY, SECRET),
    ("Claude-style insert without a line number", lines(10), claude_style("Edit", {"command": "insert", "path": "MEMORY.md", "new_str": "x"}), NUDGE, "do not say where or what"),
]  # fmt: skip


def expected_output(payload: dict, kind: str, message: str) -> dict | None:
    claude = "tool_name" in payload
    if kind == DENY:
        flat = {"permissionDecision": "deny", "permissionDecisionReason": message}
        if not claude:
            return flat
        return {**flat, "hookSpecificOutput": {"hookEventName": "PreToolUse", **flat}}
    if kind == NUDGE and claude:
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": message}}
    return None


def message_of(output: dict | None) -> str:
    if output is None:
        return ""
    if "permissionDecisionReason" in output:
        return output["permissionDecisionReason"]
    return output["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    ("index", "payload", "kind", "phrase"), [r[1:] for r in TABLE], ids=[r[0] for r in TABLE]
)
def test_decision_table_through_the_real_hook(
    tmp_path: Path, index: str | None, payload: Callable[[Path], dict], kind: str, phrase: str
) -> None:
    elsewhere = tmp_path / "elsewhere"  # the process's cwd: not where the files are
    elsewhere.mkdir()
    if index is not None:
        (tmp_path / "MEMORY.md").write_text(index)
    (tmp_path / "note.md").write_text("---\nname: note\n---\nA note.\n")
    sent = payload(tmp_path)
    output = answer(run_hook("copilot", sent, cwd=elsewhere))
    message = message_of(output)
    assert output == expected_output(sent, kind, message)
    assert phrase in message


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\x01 garbage bytes MEMORY.md",
        b'{"toolName": "create", "toolArgs": {"path": "MEMORY.md", "file_text": "\xff\xfe"}}',
        b"[]",
        b"null",
        b'{"toolName": "create", "toolArgs": "not json MEMORY.md"}',
        b'{"toolName": "create", "toolArgs": null}',
        b'{"toolName": "bash", "toolArgs": "{\\"command\\": 5}"}',
    ],
    ids=["empty", "garbage", "invalid utf-8", "list", "null", "args not json", "args null", "bad"],
)
def test_malformed_input_exits_zero_without_a_deny(raw: bytes) -> None:
    proc = run_hook("copilot", raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files without permission")
def test_an_unreadable_index_is_not_denied(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(10))
    index.chmod(0)
    try:
        camel_out = answer(run_hook("copilot", camel("create", CREATE_BIG)(tmp_path)))
        claude_out = answer(run_hook("copilot", claude_style("Write", CREATE_BIG)(tmp_path)))
    finally:
        index.chmod(0o644)
    assert camel_out is None  # a "not verified" nudge: Copilot has no channel for it
    assert "NOT checked" in claude_out["hookSpecificOutput"]["additionalContext"]
    assert "permissionDecision" not in claude_out


def test_an_unreadable_index_is_not_denied_in_process(tmp_path: Path, monkeypatch) -> None:
    """The same as above, also as root: the index read fails."""

    def unreadable(*_: object) -> tuple[str, None]:
        return "unreadable", None

    monkeypatch.setattr(service, "read_index", unreadable)
    payload = json.dumps(claude_style("Write", CREATE_BIG)(tmp_path)).encode()
    text, code = dialects.answer(["--host", "copilot"], payload, {})
    assert code == 0 and "NOT checked" in text and "deny" not in text
    payload = json.dumps(camel("create", CREATE_BIG)(tmp_path)).encode()
    assert dialects.answer(["--host", "copilot"], payload, {}) == ("", 0)


def test_an_oversized_payload_is_judged_by_its_target(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("engramory.guard.PAYLOAD_LIMIT", 1000)  # the entry reads it there
    for as_string in (False, True):
        big = camel("create", {"path": "MEMORY.md", "file_text": "x" * 2000}, as_string)(tmp_path)
        text, code = dialects.answer(["--host", "copilot"], json.dumps(big).encode(), {})
        assert code == 0, as_string
        assert json.loads(text)["permissionDecision"] == "deny", as_string
        assert "too large to check" in json.loads(text)["permissionDecisionReason"]
        big["toolArgs"] = (
            big["toolArgs"].replace("MEMORY.md", "app.py")
            if as_string
            else {**big["toolArgs"], "path": "app.py"}
        )
        assert dialects.answer(["--host", "copilot"], json.dumps(big).encode(), {}) == ("", 0)
    big = claude_style("Write", {"path": "MEMORY.md", "file_text": "x" * 2000})(tmp_path)
    output = json.loads(dialects.answer(["--host", "copilot"], json.dumps(big).encode(), {})[0])
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_an_oversized_payload_through_the_real_hook(tmp_path: Path) -> None:
    head = json.dumps(camel("create", {"path": "MEMORY.md"})(tmp_path))[:-2].encode()
    raw = head + b', "file_text": "' + b"x" * (service.PAYLOAD_LIMIT + 1) + b'"}}'
    output = answer(run_hook("copilot", raw=raw))
    assert output is not None and output["permissionDecision"] == "deny"


def test_the_post_tool_use_event_reports_an_index_over_the_cap(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(300))
    payload = {
        "toolName": "bash",
        "toolArgs": json.dumps({"command": "cat draft >> MEMORY.md"}),
        "toolResult": {"resultType": "success", "textResultForLlm": ""},
        "cwd": str(tmp_path),
    }
    output = answer(run_hook("copilot", payload, "--event", "post", "--index", str(index)))
    assert list(output) == ["additionalContext"]
    assert "lines (300 > 200)" in output["additionalContext"]
    index.write_text(lines(20))
    assert answer(run_hook("copilot", payload, "--event", "post", "--index", str(index))) is None


def test_an_unrelated_payload_imports_only_the_hot_path(tmp_path: Path) -> None:
    for payload in (
        camel("create", {"path": "/x/app.py", "file_text": "print(1)"})(tmp_path),
        camel("create", {"path": "/x/app.py", "file_text": "a\nb"}, as_string=True)(tmp_path),
        camel("bash", {"command": "pytest -q"}, as_string=True)(tmp_path),
        camel("view", {"path": "MEMORY.md"})(tmp_path),
        claude_style("Edit", {"path": "a.py", "old_str": "a", "new_str": "b"})(tmp_path),
    ):
        names = imported("copilot", payload)
        assert {n for n in names if n.startswith("engramory")} == hot_path("copilot"), payload
        assert not names & HEAVY


def test_a_powershell_read_imports_only_the_small_powershell_check(tmp_path: Path) -> None:
    names = imported("copilot", camel("powershell", {"command": "Get-Content MEMORY.md"})(tmp_path))
    ours = {n for n in names if n.startswith("engramory")}
    assert ours == hot_path("copilot") | {"engramory.guard.pwsh"}
    assert not names & HEAVY


# --- in-process: payload -> ToolCall, Verdict -> output ----------------------------------


def test_tool_calls() -> None:
    d = Path("/w")
    (call,) = copilot.tool_calls(camel("create", {"path": "M.md", "file_text": "x"})(d))
    assert (call.kind, call.path, call.cwd, call.content) == (toolcall.WRITE, "M.md", "/w", "x")
    (call,) = copilot.tool_calls(camel("edit", {"path": "M.md", "old_str": "a", "new_str": "b"})(d))
    assert (call.kind, call.edits) == (toolcall.EDIT, [("a", "b", None)])
    for action in ("view", "undo_edit"):
        (call,) = copilot.tool_calls(claude_style("Edit", {"command": action, "path": "M.md"})(d))
        assert call.kind == toolcall.UNKNOWN
    (call,) = copilot.tool_calls(claude_style("Edit", {"command": "insert", "path": "M.md"})(d))
    assert (call.kind, call.transform) == (toolcall.TRANSFORM, None)  # cannot be predicted
    insert = {"command": "insert", "path": "M.md", "insert_line": 1, "new_str": "x"}
    (call,) = copilot.tool_calls(claude_style("Edit", insert)(d))
    assert call.kind == toolcall.TRANSFORM
    assert call.transform is not None and call.transform("a\nb\n") == "a\nx\nb\n"
    (call,) = copilot.tool_calls(camel("edit", {**insert, "insert_line": -1})(d))
    assert (call.kind, call.transform) == (toolcall.TRANSFORM, None)
    (call,) = copilot.tool_calls(camel("powershell", {"command": "sc M.md x"})(d))
    assert (call.kind, call.command) == (toolcall.POWERSHELL, "sc M.md x")
    assert copilot.tool_calls({"toolName": "bash"}) == []
    assert copilot.tool_calls(None) == []


PATCH = "*** Begin Patch\n*** Add File: MEMORY.md\n+x\n*** End Patch\n"


@pytest.mark.parametrize(
    "payload",
    [
        {"toolName": "apply_patch", "toolArgs": PATCH},
        {"toolName": "apply_patch", "toolArgs": {"input": PATCH}},
        {"toolName": "apply_patch", "toolArgs": json.dumps({"patch": PATCH})},
        {"tool_name": "Edit", "tool_input": {"input": PATCH}},
        {"tool_name": "Edit", "tool_input": PATCH},
        {"tool_name": "apply_patch", "tool_input": {"command": PATCH}},
    ],
)
def test_patches_become_patch_calls(payload: dict) -> None:
    (call,) = copilot.tool_calls({**payload, "cwd": "/w"})
    assert (call.kind, call.command, call.cwd) == (toolcall.PATCH, PATCH, "/w")
    assert copilot.may_concern_index(json.dumps(payload).encode(), {})


def test_render_follows_the_payload_dialect() -> None:
    deny = Verdict(guard.DENY, "no")
    nudge = Verdict(guard.NUDGE, "hm")
    copilot.tool_calls({"toolName": "create", "toolArgs": {}})
    assert copilot.render(deny, "pre") == (
        '{"permissionDecision": "deny", "permissionDecisionReason": "no"}',
        0,
    )
    assert copilot.render(nudge, "pre") == ("", 0)
    copilot.tool_calls({"tool_name": "Write", "tool_input": {}})
    assert json.loads(copilot.render(deny, "pre")[0]) == {
        "permissionDecision": "deny",
        "permissionDecisionReason": "no",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        },
    }
    assert json.loads(copilot.render(nudge, "pre")[0]) == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "hm"}
    }
    assert copilot.render(Verdict(guard.SILENT), "pre") == ("", 0)
    assert json.loads(copilot.render(deny, "post")[0]) == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "no"}
    }
    assert copilot.render(nudge, "post") == ("", 0)


def test_a_crash_exits_zero_silently(monkeypatch, capsys, tmp_path: Path) -> None:
    """Copilot denies the call on any non-zero exit: a crash must not block the agent."""
    payload = json.dumps(camel("create", CREATE_BIG)(tmp_path)).encode()
    crash_is_silent("copilot", payload, monkeypatch, capsys)


# --- the cheap unescape of a JSON string argument ------------------------------------------


@given(st.text())
def test_unescaped_matches_the_json_parser_or_declines(text: str) -> None:
    for ensure_ascii in (False, True):
        escaped = json.dumps(text, ensure_ascii=ensure_ascii)[1:-1].encode("utf-8", "surrogatepass")
        result = rawjson.unescaped(escaped)
        assert result is None or result == text.encode("utf-8", "surrogatepass")


def test_unescaped_examples() -> None:
    assert rawjson.unescaped(b'{\\"a\\": \\"b\\\\\\"c\\"}') == b'{"a": "b\\"c"}'
    assert rawjson.unescaped(b"a\\\\nb\\nc") == b"a\\nb\nc"
    assert rawjson.unescaped(b"\\u0041") is None
    assert rawjson.unescaped(b"\\\\u0041") == b"\\u0041"


@pytest.mark.parametrize(
    ("text", "line", "new", "expected"),
    [
        ("a\nb\n", 0, "x", "x\na\nb\n"),
        ("a\nb\n", 1, "x", "a\nx\nb\n"),
        ("a\nb\n", 2, "x", "a\nb\nx\n"),
        ("a\nb", 2, "x", "a\nb\nx"),
        ("a\nb\n", 99, "x\ny", "a\nb\n\nx\ny"),
        ("", 0, "x", "x\n"),
        ("a\n", 1, "x\n", "a\nx\n\n"),
    ],
)
def test_insert_puts_the_new_lines_after_the_line(
    text: str, line: int, new: str, expected: str
) -> None:
    assert copilot.inserted(text, line, new) == expected


@given(
    st.text(alphabet="ab\n", max_size=30), st.integers(0, 12), st.text(alphabet="xy\n", max_size=8)
)
def test_insert_keeps_every_line_and_adds_the_new_ones(text: str, line: int, new: str) -> None:
    result = copilot.inserted(text, line, new)
    assert result.count("\n") == text.count("\n") + new.count("\n") + 1
    assert sorted(result.replace("\n", "")) == sorted(
        text.replace("\n", "") + new.replace("\n", "")
    )
