"""Claude Code's guard dialect: payload parsing, the raw-bytes pre-check, rendering, and the
hook entry that runs it (argv, stdin bound, fail-open). The decisions: tests/test_guard_service.py."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from engramory import dialects
from engramory.dialects import claude, rawjson
from engramory.guard import decision as guard
from engramory.guard import service, toolcall
from engramory.guard.decision import Verdict


def lines(n: int, width: int = 1) -> str:
    return ("x" * width + "\n") * n


def say(argv: list[str], raw: bytes | None, environ: dict | os._Environ[str]) -> str:
    """What the hook entry prints for Claude Code (its exit code is always 0)."""
    text, code = dialects.answer(argv, raw, environ)
    assert code == 0
    return text


def ask(payload: dict, env: dict | None = None) -> dict | None:
    """Run the entry in-process, as the hook would; returns the printed JSON (or None)."""
    text = say([], json.dumps(payload).encode(), env or {})
    return json.loads(text) if text else None


def write(path: Path, content: str) -> dict:
    return {"tool_name": "Write", "tool_input": {"file_path": str(path), "content": content}}


def decision(output: dict | None) -> str:
    if output is None:
        return "silent"
    inner = output["hookSpecificOutput"]
    assert inner["hookEventName"] == "PreToolUse"
    assert inner.get("permissionDecision") in (None, "deny")  # never allow, never ask
    return "deny" if inner.get("permissionDecision") == "deny" else "nudge"


# --- payload -> ToolCall ------------------------------------------------------------------


def test_write_edit_multiedit_and_bash_payloads_become_tool_calls() -> None:
    (call,) = claude.tool_calls(
        {"tool_name": "Write", "cwd": "/w", "tool_input": {"file_path": "M.md", "content": "x"}}
    )
    assert (call.kind, call.path, call.cwd, call.content) == (toolcall.WRITE, "M.md", "/w", "x")
    (call,) = claude.tool_calls(
        {
            "tool_name": "Edit",
            "tool_input": {"file_path": "M.md", "old_string": "a", "new_string": "b"},
        }
    )
    assert (call.kind, call.edits, call.cwd) == (toolcall.EDIT, [("a", "b", None)], None)
    (call,) = claude.tool_calls(
        {
            "tool_name": "MultiEdit",
            "tool_input": {
                "file_path": "M.md",
                "edits": [{"old_string": "a", "new_string": "b", "replace_all": True}, "junk"],
            },
        }
    )
    assert (call.kind, call.edits) == (toolcall.MULTIEDIT, [("a", "b", True)])
    (call,) = claude.tool_calls({"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert (call.kind, call.command) == (toolcall.SHELL, "ls")


def test_payload_shapes_the_service_cannot_predict() -> None:
    (call,) = claude.tool_calls({"tool_name": "Write", "tool_input": {"file_path": "M.md"}})
    assert call.content is None
    (call,) = claude.tool_calls({"tool_name": "Write", "tool_input": {"file_text": "t"}})
    assert call.content == "t" and call.path is None
    (call,) = claude.tool_calls(
        {"tool_name": "MultiEdit", "tool_input": {"file_path": "M.md", "edits": {"a": 1}}}
    )
    assert call.edits is None
    (call,) = claude.tool_calls({"tool_name": "Bash", "tool_input": {"command": ["ls"]}})
    assert call.command is None
    (call,) = claude.tool_calls({"tool_name": "Read", "tool_input": {"file_path": "M.md"}})
    assert call.kind == toolcall.UNKNOWN
    assert claude.tool_calls({"tool_name": "Write", "tool_input": "M.md"}) == []
    assert claude.tool_calls([1, 2]) == []


def test_continue_write_uses_filepath(tmp_path: Path) -> None:
    payload = {
        "tool_name": "Write",
        "tool_input": {"filepath": str(tmp_path / "MEMORY.md"), "content": lines(250)},
    }
    assert decision(ask(payload)) == "deny"


def test_multiedit_with_failing_sub_edits_changes_nothing(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(10))
    payload = {
        "tool_name": "MultiEdit",
        "tool_input": {
            "file_path": str(index),
            "edits": [{"old_string": "nope", "new_string": "a\n" * 500}, "junk", {"old_string": 3}],
        },
    }
    assert decision(ask(payload)) == "silent"


def test_write_without_content_cannot_be_predicted(tmp_path: Path) -> None:
    payload = {"tool_name": "Write", "tool_input": {"file_path": str(tmp_path / "MEMORY.md")}}
    assert decision(ask(payload)) == "nudge"


def test_relative_path_resolves_against_payload_cwd(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(lines(210))
    payload = {
        "tool_name": "Edit",
        "cwd": str(tmp_path),
        "tool_input": {
            "file_path": "MEMORY.md",
            "old_string": "x\n",
            "new_string": "x\nmore\n",
            "replace_all": True,
        },
    }
    output = ask(payload)
    assert decision(output) == "deny"
    assert "from 210 lines" in output["hookSpecificOutput"]["permissionDecisionReason"]


# --- Verdict -> output ----------------------------------------------------------------------


def test_render_deny_nudge_and_silence() -> None:
    text, code = claude.render(Verdict(guard.DENY, "no"), "pre")
    assert code == 0
    assert json.loads(text) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no",
        }
    }
    text, code = claude.render(Verdict(guard.NUDGE, "hm"), "pre")
    assert code == 0
    assert json.loads(text) == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "hm"}
    }
    assert claude.render(Verdict(guard.SILENT), "pre") == ("", 0)


def test_render_after_the_fact() -> None:
    text, code = claude.render(Verdict(guard.DENY, "compact"), "post")
    assert code == 0 and json.loads(text) == {"decision": "block", "reason": "compact"}
    assert claude.render(Verdict(guard.NUDGE, "hm"), "post") == ("", 0)
    assert claude.render(Verdict(guard.SILENT), "post") == ("", 0)


# --- malformed and hostile payloads ---------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"not json MEMORY.md",
        b'[1, 2, "MEMORY.md"]',
        b'"MEMORY.md"',
        b"null",
        b'{"tool_name": "Write", "tool_input": "MEMORY.md"}',
        b'{"tool_name": "Write", "tool_input": {"file_path": 7, "content": "MEMORY.md"}}',
        b'{"tool_name": "Write", "tool_input": {"file_path": "MEMORY.md", "content": 42}}',
        b'{"tool_name": "MultiEdit", "tool_input": {"file_path": "MEMORY.md", "edits": {"a": 1}}}',
        b'{"tool_name": "Bash", "tool_input": {"command": ["echo", "> MEMORY.md"]}}',
        b"\xff\xfe MEMORY.md garbage",
    ],
)
def test_malformed_payloads_are_silent_or_unverified(
    raw: bytes, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = say([], raw, {})
    if text:
        assert decision(json.loads(text)) == "nudge"  # never a deny on a guess


def test_deeply_nested_payload_is_silent() -> None:
    raw = b'{"tool_name": "Write", "x": ' + b"[" * 100000 + b"]" * 100000 + b', "f": "MEMORY.md"}'
    assert say([], raw, {}) == ""


def test_prefilter_skips_json_for_unrelated_payloads() -> None:
    raw = json.dumps(
        {"tool_name": "Write", "tool_input": {"file_path": "/x/a.py", "content": "x"}}
    ).encode()
    assert not claude.may_concern_index(raw, {})
    assert claude.may_concern_index(raw.replace(b"a.py", b"MEMORY.md"), {})
    escaped = raw.replace(b"a.py", b"MEMORY\\u002emd")
    assert claude.may_concern_index(escaped, {})
    # a known index: the edit target is compared by identity (one stat), not parsed
    assert not claude.may_concern_index(raw, {"ENGRAMORY_INDEX_PATH": "/x/MEMORY.md"})


def bash(command: str, cwd: str = "/w") -> bytes:
    return json.dumps(
        {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": cwd}
    ).encode()


@pytest.mark.parametrize(
    "command",
    [
        "echo x >> MEM*.md",  # issue 10 item 1: the name is not in the bytes
        "F=MEMORY; echo x >> $F.md",
        "echo x >> 'MEMORY'.md",
        'echo x >> MEM""ORY.md',
        "echo x >> MEMORY\\.md",
        "echo x >> MEM\\\nORY.md",
        "t'e'e MEM*.md",
        "\\tee MEM*.md",
        "python3 -c \"open('MEM' 'ORY.md', 'a')\"",
        "cat $'\\x4dEMORY.md'",
        "x=`ls`",
        ". /dev/stdin <<< 'touch MEMORY.md'",
    ],
)
def test_a_shell_command_that_may_write_is_parsed(command: str) -> None:
    assert claude.may_concern_index(bash(command), {})


@pytest.mark.parametrize("command", [". /dev/stdin", "python3 -m pytest", "git commit -m x"])
def test_a_command_that_may_write_but_names_no_store_file_is_not_parsed(command: str) -> None:
    """The gate before the parser (engramory.guard.shellgate): nothing here names a store."""
    assert not claude.may_concern_index(bash(command), {})


@pytest.mark.parametrize(
    "command", ["cat MEMORY.md", "grep -n x MEMORY.md | head", "ls -la", "pytest -q tests/"]
)
def test_a_read_only_shell_command_stays_on_the_fast_path(command: str) -> None:
    assert not claude.may_concern_index(bash(command), {})


@pytest.mark.parametrize(
    "command",
    [
        "echo x >> MEM*.md",  # a glob: the folder holds MEMORY.md
        "F=MEMORY; echo x >> $F.md",
        "echo x >> 'MEMORY'.md",
        'echo x >> MEM""ORY.md',
        "echo x >> MEMORY\\.md",
        "echo x >> MEM\\\nORY.md",
    ],
)
def test_issue_10_item_1_catches_hold_through_the_hook(tmp_path: Path, command: str) -> None:
    (tmp_path / "MEMORY.md").write_text("- [a](a.md)\n")
    payload = bash(command, str(tmp_path))
    assert say([], payload, {}) != ""
    output = json.loads(say([], payload, {}))
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_an_alias_of_the_index_is_the_index(tmp_path: Path) -> None:
    store = tmp_path / ".engramory-memory"
    store.mkdir()
    index = store / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    os.link(index, tmp_path / "hard.md")
    flags = ["--index", str(index)]
    for alias in ("notes.md", "hard.md"):
        payload = write(tmp_path / alias, lines(300))
        payload["cwd"] = str(tmp_path)
        assert decision(ask_with(flags, payload)) == "deny", alias
        assert ask_with([], payload) is None  # without --index, only the name is known
        shell = json.loads(bash(f"echo x >> {alias}", str(tmp_path)))
        assert decision(ask_with(flags, shell)) == "deny", alias
    # ENGRAMORY_INDEX_PATH: that file only, by identity, and no other MEMORY.md
    pinned = {"ENGRAMORY_INDEX_PATH": str(index)}
    assert decision(ask(write(tmp_path / "hard.md", lines(300)), pinned)) == "deny"
    assert decision(ask(write(tmp_path / "MEMORY.md", lines(300)), pinned)) == "silent"
    # with --index the name rule stays on (other stores)
    assert decision(ask_with(flags, write(tmp_path / "x" / "MEMORY.md", lines(300)))) == "deny"


def ask_with(argv: list[str], payload: dict, env: dict | None = None) -> dict | None:
    text = say(argv, json.dumps(payload).encode(), env or {})
    return json.loads(text) if text else None


def test_an_oversized_payload_is_judged_by_its_target(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    head = json.dumps({"tool_name": "Write", "cwd": str(tmp_path)})[:-1]
    filler = b"x" * (service.PAYLOAD_LIMIT + 10)

    def payload(path: str) -> bytes:
        start = head.encode() + b', "tool_input": {"file_path": ' + json.dumps(path).encode()
        return start + b', "content": "' + filler + b'"}}'

    denied = json.loads(say([], payload(str(index)), {}))
    reason = denied["hookSpecificOutput"]["permissionDecisionReason"]
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "too large to check" in reason
    assert say([], payload(str(tmp_path / "app.py")), {}) == ""
    alias = tmp_path / "alias.md"
    alias.symlink_to(index)
    assert say(["--index", str(index)], payload(str(alias)), {}) != ""


def test_json_string_ignores_keys_inside_values() -> None:
    raw = b'{"content": "say \\"file_path\\": \\"MEMORY.md\\"", "file_path": "a\\\\"}'
    assert rawjson.json_string(raw, b"file_path") == b"a\\\\"
    assert rawjson.json_string(b'{"file_path": 5}', b"file_path") is None
    assert rawjson.json_string(b'{"file_path": "unterminated', b"file_path") is None


# --- PostToolUse --------------------------------------------------------------------------

# A shell call that may have written the index (the guard could not follow it).
BASH_AFTER = json.dumps(
    {"tool_name": "Bash", "tool_input": {"command": "cat draft >> MEMORY.md"}, "cwd": "/"}
).encode()


def test_post_event_blocks_when_over_the_hard_cap(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(230))
    text = say(["--event", "post", "--index", str(index)], BASH_AFTER, {})
    output = json.loads(text)
    assert output["decision"] == "block" and "lines (230 > 200)" in output["reason"]


def test_post_event_on_a_huge_index_reports_bytes_without_reading(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    with index.open("wb") as handle:
        handle.truncate(10 * 1024 * 1024)
    output = json.loads(say(["--event", "post", "--index", str(index)], BASH_AFTER, {}))
    assert "bytes (10,485,760 > 25,000)" in output["reason"]


@pytest.mark.parametrize("count", [0, 150, 200])
def test_post_event_is_silent_within_the_cap(tmp_path: Path, count: int) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(count))
    assert say(["--event", "post", "--index", str(index)], BASH_AFTER, {}) == ""


def test_post_event_without_an_index_does_nothing(tmp_path: Path) -> None:
    assert say(["--event", "post"], b"{}", {}) == ""
    assert say(["--event", "post", "--index", str(tmp_path / "none.md")], b"", {}) == ""


def test_post_event_uses_index_path_setting(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(230))
    assert say(["--event=post"], BASH_AFTER, {"ENGRAMORY_INDEX_PATH": str(index)}) != ""


# --- the entry: argv, stdin, hosts, failing open ----------------------------------------------


def test_options_with_and_without_equals() -> None:
    assert dialects.options([]) == ("claude", "pre", None)
    assert dialects.options(["--host=claude", "--event", "post", "--index=/s/M.md"]) == (
        "claude",
        "post",
        "/s/M.md",
    )
    assert dialects.options(["--index"]) == ("claude", "pre", None)  # a flag without its value


def test_a_host_without_a_guard_dialect_is_silent(tmp_path: Path) -> None:
    payload = json.dumps(write(tmp_path / "MEMORY.md", lines(300))).encode()
    assert say(["--host", "claude"], payload, {}) != ""
    assert dialects.answer(["--host", "nosuchhost"], payload, {}) == ("", 0)


def test_os_environ_is_accepted(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ENGRAMORY_INDEX_NAME", "X.md")
    assert say([], json.dumps(write(tmp_path / "x.md", lines(300))).encode(), os.environ)


def test_main_prints_the_answer_and_fails_open(monkeypatch, capsys, tmp_path: Path) -> None:
    payload = json.dumps(write(tmp_path / "MEMORY.md", lines(300))).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(payload)))
    assert dialects.main([]) == 0
    assert json.loads(capsys.readouterr().out)["hookSpecificOutput"]["permissionDecision"] == "deny"

    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(service, "check", broken)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(payload)))
    assert dialects.main([]) == 0
    assert capsys.readouterr() == ("", "")


def test_stdin_read_is_bounded(monkeypatch) -> None:
    asked: list[int] = []

    class Endless:
        def read(self, size: int = -1) -> bytes:
            asked.append(size)
            return b" " * size

    class Stdin:
        buffer = Endless()

    monkeypatch.setattr("sys.stdin", Stdin())
    assert dialects.answer([], None, {}) == ("", 0)
    assert asked == [service.PAYLOAD_LIMIT + 1]


def test_guard_command_hosts_come_from_the_registry() -> None:
    from conftest import run_engramory

    assert run_engramory("guard", "--host", "nosuchhost", stdin=b"{}").returncode == 64
    listed = run_engramory("guard", "--help").stdout.decode()
    for host in dialects.DIALECTS:
        assert host in listed
