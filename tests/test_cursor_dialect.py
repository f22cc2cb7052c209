"""Cursor's guard dialect (preToolUse and beforeShellExecution): the decision table through the
real hook process, then parsing and rendering in-process. The decisions: tests/test_guard_service.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hookkit import (
    DENY,
    HEAVY,
    SILENT,
    answer,
    crash_is_silent,
    hot_path,
    imported,
    lines,
    run_hook,
)

from engramory import dialects
from engramory.dialects import cursor, rawjson
from engramory.guard import decision as guard
from engramory.guard import service, toolcall
from engramory.guard.decision import Verdict

GROW = "would GROW the memory index"
SHELL = "this shell command would write the memory index"
UNIQUE_TAIL = lines(198) + "tail\n"


def common(d: Path, event: str, cwd: str | None = None) -> dict:
    """The fields every Cursor hook payload carries (``cwd`` may be empty)."""
    return {
        "conversation_id": "c1",
        "generation_id": "g1",
        "hook_event_name": event,
        "workspace_roots": [str(d)],
        "cwd": str(d) if cwd is None else cwd,
    }


def tool(name: str | None, tool_input: object, cwd: str | None = None) -> Callable[[Path], dict]:
    def build(d: Path) -> dict:
        payload = common(d, "preToolUse", cwd)
        if name is not None:
            payload["tool_name"] = name
        payload["tool_input"] = tool_input
        return payload

    return build


def before_shell(command: str, cwd: str | None = None) -> Callable[[Path], dict]:
    return lambda d: {**common(d, "beforeShellExecution", cwd), "command": command}


GROW_EDIT = {"path": "MEMORY.md", "old_string": "tail\n", "new_string": lines(5)}

# (id, the index's text (None: none), payload, expected, a phrase of the message)
TABLE = [
    ("Write over the cap", None, tool("Write", {"file_path": "MEMORY.md", "content": lines(250)}), DENY, GROW),
    ("Write over the soft cap: no nudge channel", None, tool("Write", {"file_path": "MEMORY.md", "content": lines(160)}), SILENT, ""),
    ("Write within the caps", None, tool("Write", {"file_path": "MEMORY.md", "content": lines(10)}), SILENT, ""),
    ("Write without a known text field", None, tool("Write", {"file_path": "MEMORY.md", "blob": lines(250)}), SILENT, ""),
    ("Write another file", None, tool("Write", {"file_path": "app.py", "content": lines(900)}), SILENT, ""),
    ("StrReplace growing", UNIQUE_TAIL, tool("StrReplace", GROW_EDIT), DENY, GROW),
    ("StrReplace with file_path", UNIQUE_TAIL, tool("StrReplace", {**GROW_EDIT, "file_path": "MEMORY.md"}), DENY, GROW),
    ("StrReplace shrinking", lines(150) + "tail\n", tool("StrReplace", {**GROW_EDIT, "new_string": ""}), SILENT, ""),
    ("StrReplace, empty cwd: first workspace root", UNIQUE_TAIL, tool("StrReplace", GROW_EDIT, cwd=""), DENY, GROW),
    ("Shell append", None, tool("Shell", {"command": "echo x >> MEMORY.md"}), DENY, SHELL),
    ("Shell read", lines(10), tool("Shell", {"command": "cat MEMORY.md"}), SILENT, ""),
    ("beforeShellExecution append", None, before_shell("printf x | tee -a MEMORY.md"), DENY, SHELL),
    ("beforeShellExecution glob, empty cwd", lines(10), before_shell("echo x >> MEM*.md", cwd=""), DENY, SHELL),
    ("beforeShellExecution read", lines(10), before_shell("grep -n x MEMORY.md"), SILENT, ""),
    ("no tool_name: a write", None, tool(None, {"file_path": "MEMORY.md", "content": lines(250)}), DENY, GROW),
    ("no tool_name: a replace", UNIQUE_TAIL, tool(None, GROW_EDIT), DENY, GROW),
    ("no tool_name: a command", None, tool(None, {"command": "echo x > MEMORY.md"}), DENY, SHELL),
    ("another tool", lines(10), tool("Read", {"path": "MEMORY.md"}), SILENT, ""),
    ("Delete of the index", lines(10), tool("Delete", {"path": "MEMORY.md"}), SILENT, ""),
]  # fmt: skip

WRITE_FIELDS = [
    (path_key, text_key)
    for path_key in cursor.PATH_KEYS
    for text_key in ("content", "contents", "file_text", "text", "code_edit")
]


def expected_output(kind: str, message: str) -> dict | None:
    if kind == DENY:
        return {"permission": "deny", "user_message": message, "agent_message": message}
    return None


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
    output = answer(run_hook("cursor", payload(tmp_path), cwd=elsewhere))
    message = output["agent_message"] if output else ""
    assert output == expected_output(kind, message)
    assert phrase in message


def test_a_bom_before_the_json_is_accepted(tmp_path: Path) -> None:
    payload = tool("Write", {"file_path": "MEMORY.md", "content": lines(250)})(tmp_path)
    output = answer(run_hook("cursor", raw=b"\xef\xbb\xbf" + json.dumps(payload).encode()))
    assert output is not None and output["permission"] == "deny"


def test_a_bom_does_not_hide_an_oversized_payload(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("engramory.guard.PAYLOAD_LIMIT", 1000)  # the entry reads it there
    payload = tool("Write", {"file_path": "MEMORY.md", "content": "x" * 998})(tmp_path)
    raw = b"\xef\xbb\xbf" + json.dumps(payload).encode()
    cut = raw[: service.PAYLOAD_LIMIT + 1]  # what the entry reads of a longer stdin
    text, code = dialects.answer(["--host", "cursor"], cut, {})
    assert code == 0 and "too large to check" in json.loads(text)["agent_message"]


@pytest.mark.parametrize(
    ("path_key", "text_key"), WRITE_FIELDS, ids=["-".join(f) for f in WRITE_FIELDS]
)
def test_every_write_field_variant_is_read(path_key: str, text_key: str, tmp_path: Path) -> None:
    payload = tool("Write", {path_key: "MEMORY.md", text_key: lines(250)})(tmp_path)
    raw = json.dumps(payload).encode()
    assert cursor.may_concern_index(raw, {})
    text, code = dialects.answer(["--host", "cursor"], raw, {})
    assert code == 0 and json.loads(text)["permission"] == "deny"


@pytest.mark.parametrize(
    "raw",
    [b"", b"\xff\xfe MEMORY.md", b"[]", b"null", b"\xef\xbb\xbf", b'{"tool_name": "Write"}'],
    ids=["empty", "invalid utf-8", "list", "null", "a bom alone", "no input"],
)
def test_malformed_input_is_silent_exit_zero(raw: bytes) -> None:
    proc = run_hook("cursor", raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_an_alias_resolves_against_the_first_workspace_root(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    payload = tool("Write", {"file_path": "notes.md", "content": lines(300)}, cwd="")(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    output = answer(run_hook("cursor", payload, "--index", str(index), cwd=elsewhere))
    assert output is not None and output["permission"] == "deny"


def test_an_unrelated_payload_imports_only_the_hot_path(tmp_path: Path) -> None:
    for payload in (
        tool("Write", {"file_path": "/x/app.py", "content": "print(1)"})(tmp_path),
        tool("Shell", {"command": "pytest -q"})(tmp_path),
        before_shell("ls -la")(tmp_path),
        tool("Read", {"path": "MEMORY.md"})(tmp_path),
        tool("StrReplace", {"path": "a.py", "old_string": "a", "new_string": "b"}, cwd="")(
            tmp_path
        ),
    ):
        names = imported("cursor", payload)
        assert {n for n in names if n.startswith("engramory")} == hot_path("cursor"), payload
        assert not names & HEAVY


# --- in-process: payload -> ToolCall, Verdict -> output ----------------------------------

PATCH = "*** Begin Patch\n*** Update File: MEMORY.md\n@@\n+x\n*** End Patch\n"


@pytest.mark.parametrize(
    "payload",
    [
        {"tool_name": "ApplyPatch", "tool_input": PATCH},
        {"tool_name": "ApplyPatch", "tool_input": {"patch": PATCH}},
        {"tool_name": "ApplyPatch", "tool_input": {"whatever": PATCH}},
        {"tool_input": PATCH},
        {"tool_input": {"command": PATCH}},
    ],
)
def test_patches_become_patch_calls(payload: dict) -> None:
    (call,) = cursor.tool_calls({**payload, "cwd": "", "workspace_roots": ["/w"]})
    assert (call.kind, call.command, call.cwd) == (toolcall.PATCH, PATCH, "/w")
    assert cursor.may_concern_index(json.dumps(payload).encode(), {})


def test_the_cheap_test_reads_the_path_the_parse_reads(tmp_path: Path) -> None:
    def raw(tool_input: dict, cwd: str | None = None) -> bytes:
        return json.dumps(tool("Write", tool_input, cwd)(tmp_path)).encode()

    assert cursor.may_concern_index(raw({"file_path": "", "path": "MEMORY.md"}), {})
    assert not cursor.may_concern_index(raw({"file_path": "", "path": "a.md"}), {})
    alias = {"file_path": "notes.txt", "content": "x"}  # not .md: no store note either
    index = str(tmp_path / "MEMORY.md")
    (tmp_path / "MEMORY.md").write_text("x\n")
    (tmp_path / "notes.txt").symlink_to(tmp_path / "MEMORY.md")
    assert cursor.may_concern_index(raw(alias, cwd=""), {}, index)  # via workspace_roots
    assert not cursor.may_concern_index(raw({"file_path": "a.txt"}, cwd=""), {}, index)
    assert not cursor.may_concern_index(raw(alias), {})  # by name only: not the index
    # a .md beside the index is a store note: parsed, to be checked for a secret
    assert cursor.may_concern_index(raw({"file_path": "a.md"}, cwd=""), {}, index)


def test_tool_calls() -> None:
    d = Path("/w")
    (call,) = cursor.tool_calls(tool("Write", {"target_file": "M.md", "contents": "x"})(d))
    assert (call.kind, call.path, call.cwd, call.content) == (toolcall.WRITE, "M.md", "/w", "x")
    step = {"path": "M.md", "old_string": "a", "new_string": "b", "replace_all": True}
    (call,) = cursor.tool_calls(tool("StrReplace", step)(d))
    assert (call.kind, call.edits) == (toolcall.EDIT, [("a", "b", True)])
    (call,) = cursor.tool_calls(before_shell("ls", cwd="")(d))
    assert (call.kind, call.command, call.cwd) == (toolcall.SHELL, "ls", "/w")
    (call,) = cursor.tool_calls({"hook_event_name": "beforeShellExecution", "command": "ls"})
    assert call.cwd is None  # no cwd, no workspace root: the process's own
    assert cursor.tool_calls(tool("Write", "M.md")(d)) == []
    assert [c.kind for c in cursor.tool_calls(tool(None, {"pattern": "*"})(d))] == [
        toolcall.UNKNOWN
    ]
    assert cursor.tool_calls([]) == []


def test_render() -> None:
    text, code = cursor.render(Verdict(guard.DENY, "no"), "pre")
    assert code == 0
    assert json.loads(text) == {"permission": "deny", "user_message": "no", "agent_message": "no"}
    assert cursor.render(Verdict(guard.NUDGE, "hm"), "pre") == ("", 0)
    assert cursor.render(Verdict(guard.SILENT), "pre") == ("", 0)
    assert cursor.render(Verdict(guard.DENY, "no"), "post") == ("no", 0, cursor.STDERR)
    assert cursor.render(Verdict(guard.NUDGE, "hm"), "post") == ("", 0)


def test_first_string_reads_a_string_or_the_first_of_an_array() -> None:
    assert rawjson.first_string(b'{"w": ["/a", "/b"]}', b"w") == b"/a"
    assert rawjson.first_string(b'{"w": "/a"}', b"w") == b"/a"
    assert rawjson.first_string(b'{"w": [5]}', b"w") is None
    assert rawjson.first_string(b'{"w": []}', b"w") is None
    assert rawjson.first_string(b'{"x": "\\"w\\": [\\"/z\\"]", "w": ["/a"]}', b"w") == b"/a"


def test_a_crash_exits_zero_silently(monkeypatch, capsys, tmp_path: Path) -> None:
    payload = json.dumps(tool("Write", {"file_path": "MEMORY.md", "content": lines(300)})(tmp_path))
    crash_is_silent("cursor", payload.encode(), monkeypatch, capsys)


def test_the_deny_reason_is_the_same_on_every_host(tmp_path: Path) -> None:
    content = lines(250)
    payloads = {
        "claude": {
            "tool_name": "Write",
            "tool_input": {"file_path": "MEMORY.md", "content": content},
        },
        "gemini": {
            "tool_name": "write_file",
            "tool_input": {"file_path": "MEMORY.md", "content": content},
        },
        "copilot": {"toolName": "create", "toolArgs": {"path": "MEMORY.md", "file_text": content}},
        "cursor": {"tool_name": "Write", "tool_input": {"path": "MEMORY.md", "content": content}},
    }
    reasons = set()
    for host, payload in payloads.items():
        text, code = dialects.answer(
            ["--host", host], json.dumps({**payload, "cwd": str(tmp_path)}).encode(), {}
        )
        assert code == 0 and text, host
        output = json.loads(text)
        inner = output.get("hookSpecificOutput", {})
        reasons.add(
            output.get("reason")
            or output.get("permissionDecisionReason")
            or output.get("agent_message")
            or inner.get("permissionDecisionReason")
        )
    assert len(reasons) == 1 and next(iter(reasons)).startswith("Engramory: this would GROW")
