"""The check after a write (issue 34): every host's after-tool event, through the real hook.

The call already ran (the files below are as it left them); the hook measures the index the
call may have touched and scans the store notes it wrote, and answers in the host's own
after-event format -- or, where the host gives that hook no channel to the agent, warns on
stderr. It never echoes a secret, stays silent on a read or an unrelated write, and fails
open (exit 0, nothing printed) on a payload it cannot read.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hookkit import HEAVY, answer, hot_path, imported, lines, run_hook

from engramory.guard import afterwrite, toolcall

SCHEMAS = Path(__file__).resolve().parent / "schemas"
CLAUDE_SCHEMA = json.loads((SCHEMAS / "claude-code-hook-output.schema.json").read_text())
CODEX_SCHEMA = json.loads(
    (SCHEMAS / "codex" / "post-tool-use.command.output.schema.json").read_text()
)
AWS = "AKIA" + "QWERTYUIOPASDFGH"[::-1]  # AKIA + 16 of [A-Z2-7]: the detector's shape
SECRET_NOTE = f"---\nname: deploy\n---\nThe deploy key is {AWS}.\n"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A project's store as a call left it: an index within the cap and one plain note."""
    folder = tmp_path / "project" / ".engramory-memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text(lines(20))
    (folder / "deploy.md").write_text("---\nname: deploy\n---\nDeploys go through CI.\n")
    return folder


def index_of(store: Path) -> str:
    return str(store / "MEMORY.md")


def post(host: str, payload: object, store: Path | None, **kwargs: object):
    """The hook after a call, as init registers it (``--index`` when a store is given)."""
    named = ["--index", index_of(store)] if store is not None else []
    return run_hook(host, payload, "--event", "post", *named, **kwargs)  # type: ignore[arg-type]


def claude(tool: str, tool_input: dict, cwd: Path) -> dict:
    return {
        "session_id": "s",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_response": {"success": True},
        "cwd": str(cwd),
    }


def claude_reason(proc) -> str:
    output = answer(proc)
    assert output is not None
    jsonschema.validate(output, CLAUDE_SCHEMA)
    assert output["decision"] == "block"
    return output["reason"]


# --- Claude Code: PostToolUse on Write, Edit, MultiEdit and Bash ---------------------------


def test_an_over_cap_index_written_by_bash_is_reported(store: Path) -> None:
    (store / "MEMORY.md").write_text(lines(212))
    payload = claude("Bash", {"command": "cat notes.txt >> MEMORY.md"}, store)
    reason = claude_reason(post("claude", payload, store))
    assert "212 lines" in reason and "engramory compact" in reason


def test_an_over_cap_index_written_by_write_is_reported_without_an_index_argument(
    store: Path,
) -> None:
    (store / "MEMORY.md").write_text(lines(230))
    payload = claude("Write", {"file_path": index_of(store), "content": lines(230)}, store)
    reason = claude_reason(post("claude", payload, None))
    assert "lines (230 > 200)" in reason


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit"])
def test_a_secret_written_into_a_note_is_reported_without_echoing_it(
    store: Path, tool: str
) -> None:
    note = store / "deploy.md"
    note.write_text(SECRET_NOTE)
    tool_input: dict[str, object] = {"file_path": str(note)}
    if tool == "Write":
        tool_input["content"] = SECRET_NOTE
    elif tool == "Edit":
        tool_input.update(old_string="CI", new_string=AWS)
    else:
        tool_input["edits"] = [{"old_string": "CI", "new_string": AWS}]
    proc = post("claude", claude(tool, tool_input, store), store)
    reason = claude_reason(proc)
    assert "deploy.md now holds a secret, an AWS access key id (AKIA…)" in reason
    assert "rotate the credential" in reason
    assert AWS not in proc.stdout.decode() and AWS[4:] not in reason


def test_a_secret_a_shell_command_wrote_into_a_note_is_reported(store: Path) -> None:
    (store / "deploy.md").write_text(SECRET_NOTE)
    payload = claude("Bash", {"command": "echo 'key: ...' >> 'deploy.md'"}, store)
    assert "deploy.md now holds a secret" in claude_reason(post("claude", payload, store))


def test_an_allowed_secret_is_not_reported(store: Path) -> None:
    allowed = f"<!-- engramory: allow secret-value -->\nThe example key is {AWS}.\n"
    (store / "deploy.md").write_text(allowed)
    payload = claude("Write", {"file_path": str(store / "deploy.md"), "content": allowed}, store)
    assert answer(post("claude", payload, store)) is None


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": "MEMORY.md"}),
        ("Bash", {"command": "ls -la && grep -n deploy MEMORY.md && make notes"}),
        ("Write", {"file_path": "src/app.py", "content": AWS}),
        ("Edit", {"file_path": "deploy.md", "old_string": "CI", "new_string": "the CI"}),
    ],
    ids=["read", "read-only shell", "unrelated write", "clean note edit"],
)
def test_a_call_that_leaves_the_store_sound_is_silent(
    store: Path, tool: str, tool_input: dict
) -> None:
    (store / "MEMORY.md").write_text(lines(199))
    assert answer(post("claude", claude(tool, tool_input, store), store)) is None


def test_a_read_says_nothing_even_when_the_index_is_already_over(store: Path) -> None:
    """Only a call that may have touched the store is checked after."""
    (store / "MEMORY.md").write_text(lines(300))
    payload = claude("Read", {"file_path": index_of(store)}, store)
    assert answer(post("claude", payload, store)) is None


@pytest.mark.parametrize(
    "raw",
    [b"", b"not json", b"[1, 2]", b"\xff\xfe{", b'{"tool_name": 5}', b'{"tool_name": "Write"'],
    ids=["empty", "text", "array", "bytes", "odd tool", "cut off"],
)
@pytest.mark.parametrize("host", ["claude", "codex", "gemini", "copilot", "cursor", "kiro"])
def test_a_malformed_payload_is_silent(store: Path, host: str, raw: bytes) -> None:
    (store / "MEMORY.md").write_text(lines(300))
    proc = post(host, None, store, raw=raw)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_a_symlinked_note_is_not_followed(store: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(SECRET_NOTE)
    (store / "linked.md").symlink_to(outside)
    payload = claude("Write", {"file_path": str(store / "linked.md"), "content": "x"}, store)
    assert answer(post("claude", payload, store)) is None


def test_a_non_store_call_imports_only_the_hot_path(store: Path) -> None:
    (store / "MEMORY.md").write_text(lines(300))
    for payload in (
        claude("Read", {"file_path": index_of(store)}, store),
        claude("Write", {"file_path": "/x/app.py", "content": AWS}, store),
    ):
        names = imported("claude", payload, "--event", "post", "--index", index_of(store))
        assert not names & HEAVY
        assert {n for n in names if n.startswith("engramory")} <= hot_path("claude")


def test_a_shell_call_is_measured_without_the_detector_or_the_parser(store: Path) -> None:
    """Any shell command may have run a script that wrote the index: it is measured; a
    command that cannot write a file names no note to scan."""
    payload = claude("Bash", {"command": "make notes && ls -la"}, store)
    names = imported("claude", payload, "--event", "post", "--index", index_of(store))
    assert "engramory.store.caps" in names  # measured
    assert not {"engramory.secrets.scan", "engramory.guard.shellwrite"} & names
    assert not {"engramory.guard.shellparse"} & names
    (store / "MEMORY.md").write_text(lines(201))
    assert "201 lines" in claude_reason(post("claude", payload, store))


def test_a_note_write_without_a_keyword_does_not_import_the_detector(store: Path) -> None:
    payload = claude("Write", {"file_path": str(store / "deploy.md"), "content": "x"}, store)
    names = imported("claude", payload, "--event", "post", "--index", index_of(store))
    assert "engramory.secrets.scan" not in names and "engramory.guard.shellwrite" not in names


# --- every other host with an after-tool event --------------------------------------------


def test_codex_post_tool_use_reports_in_its_schema(store: Path) -> None:
    (store / "MEMORY.md").write_text(lines(240))
    payload = {
        "session_id": "s",
        "turn_id": "t",
        "transcript_path": None,
        "cwd": str(store),
        "hook_event_name": "PostToolUse",
        "model": "gpt",
        "tool_name": "Bash",
        "tool_use_id": "c1",
        "tool_input": {"command": "python3 tools/merge.py > MEMORY.md"},
        "tool_response": "",
    }
    output = answer(post("codex", payload, store))
    assert output is not None
    jsonschema.validate(output, CODEX_SCHEMA)
    assert output["decision"] == "block" and "lines (240 > 200)" in output["reason"]


def test_gemini_after_tool_reports_a_secret(store: Path) -> None:
    (store / "deploy.md").write_text(SECRET_NOTE)
    payload = {
        "session_id": "s",
        "cwd": str(store),
        "hook_event_name": "AfterTool",
        "tool_name": "write_file",
        "tool_input": {"file_path": str(store / "deploy.md"), "content": SECRET_NOTE},
        "tool_response": {"llmContent": "ok"},
    }
    output = answer(post("gemini", payload, store))
    assert output is not None and set(output) == {"decision", "reason"}
    assert output["decision"] == "deny" and "AKIA…" in output["reason"]
    assert AWS not in output["reason"]


def test_copilot_post_tool_use_adds_context(store: Path) -> None:
    (store / "deploy.md").write_text(SECRET_NOTE)
    args = {"path": str(store / "deploy.md"), "file_text": SECRET_NOTE}
    payload = {
        "timestamp": 1,
        "cwd": str(store),
        "toolName": "create",
        "toolArgs": json.dumps(args),
        "toolResult": {"resultType": "success", "textResultForLlm": "created"},
    }
    output = answer(post("copilot", payload, store))
    assert output is not None and list(output) == ["additionalContext"]
    assert "deploy.md now holds a secret" in output["additionalContext"]


def test_cline_post_tool_use_modifies_the_context(store: Path) -> None:
    (store / "MEMORY.md").write_text(lines(260))
    payload = {
        "clineVersion": "4.1.0",
        "hookName": "PostToolUse",
        "timestamp": "1",
        "taskId": "t",
        "workspaceRoots": [str(store)],
        "userId": "u",
        "postToolUse": {
            "toolName": "write_to_file",
            "parameters": {"path": "MEMORY.md", "content": lines(260)},
            "result": "ok",
            "success": True,
            "executionTimeMs": 3,
        },
    }
    output = answer(post("cline", payload, store))
    assert output is not None and output["cancel"] is False
    assert "lines (260 > 200)" in output["contextModification"]


def warned(proc, code: int) -> str:
    """A warning where the host shows hook output: stderr, nothing on stdout."""
    assert proc.returncode == code and proc.stdout == b""
    return proc.stderr.decode()


def test_cursor_after_file_edit_warns_on_stderr(store: Path) -> None:
    (store / "deploy.md").write_text(SECRET_NOTE)
    payload = {
        "conversation_id": "c",
        "generation_id": "g",
        "hook_event_name": "afterFileEdit",
        "workspace_roots": [str(store)],
        "file_path": str(store / "deploy.md"),
        "edits": [{"old_string": "CI", "new_string": AWS}],
    }
    text = warned(post("cursor", payload, store), 0)
    assert "deploy.md now holds a secret" in text and AWS not in text


def test_cursor_after_shell_execution_warns_on_stderr(store: Path) -> None:
    (store / "MEMORY.md").write_text(lines(205))
    payload = {
        "conversation_id": "c",
        "hook_event_name": "afterShellExecution",
        "command": "cat more.md >> MEMORY.md",
        "output": "",
        "cwd": str(store),
    }
    assert "lines (205 > 200)" in warned(post("cursor", payload, store), 0)


def test_kiro_post_tool_use_warns_with_exit_1(store: Path) -> None:
    (store / "deploy.md").write_text(SECRET_NOTE)
    payload = {
        "hook_event_name": "postToolUse",
        "cwd": str(store),
        "session_id": "s",
        "tool_name": "fs_write",
        "tool_input": {"command": "create", "path": "deploy.md", "file_text": SECRET_NOTE},
        "tool_response": {"success": True},
    }
    assert "deploy.md now holds a secret" in warned(post("kiro", payload, store), 1)


def test_hermes_post_tool_call_warns_on_stderr(store: Path) -> None:
    (store / "MEMORY.md").write_text(lines(201))
    payload = {
        "hook_event_name": "post_tool_call",
        "tool_name": "terminal",
        "tool_input": {"command": "printf '%s\\n' x >> MEMORY.md"},
        "session_id": "s",
        "cwd": str(store),
        "extra": {},
    }
    assert "lines (201 > 200)" in warned(post("hermes", payload, store), 0)


# --- the core, directly -------------------------------------------------------------------


def test_touched_names_the_index_and_the_notes_a_call_may_have_written(store: Path) -> None:
    cwd = str(store)
    calls = [
        toolcall.ToolCall(toolcall.SHELL, cwd=cwd, command="tee -a deploy.md other.md < x"),
        toolcall.ToolCall(toolcall.WRITE, "src/app.py", cwd=cwd, content="x"),
    ]
    found = afterwrite.touched(calls, {})
    assert found.index  # a note not there yet is named too: reading it finds nothing
    assert found.notes == [str(store / "deploy.md"), str(store / "other.md")]
    read_only = [toolcall.ToolCall(toolcall.SHELL, cwd=cwd, command="cat deploy.md")]
    found = afterwrite.touched(read_only, {})
    assert found.index and found.notes == []  # measured; no note named by a writing command


def test_a_patch_is_checked_for_every_file_it_writes(store: Path) -> None:
    (store / "deploy.md").write_text(SECRET_NOTE)
    patch = f"*** Begin Patch\n*** Update File: deploy.md\n@@\n-CI.\n+{AWS}.\n*** End Patch\n"
    calls = [toolcall.ToolCall(toolcall.PATCH, cwd=str(store), command=patch)]
    verdict = afterwrite.check(calls, {})
    assert verdict.kind == "deny" and "deploy.md now holds a secret" in verdict.message
    unrelated = patch.replace(f"+{AWS}.", "+the CI.")
    calls = [toolcall.ToolCall(toolcall.PATCH, cwd=str(store), command=unrelated)]
    assert afterwrite.check(calls, {}).kind == "silent"  # the key was there before


def test_the_shell_note_scan_is_linear(store: Path) -> None:
    """A 4 MiB command (no regex: a translate and a split) is scanned at once."""
    import time

    command = "echo " + "a.md " * (800 * 1024)
    start = time.perf_counter()
    notes = afterwrite._shell_notes(command, str(store), {}, None)
    assert notes == [str(store / "a.md")] and time.perf_counter() - start < 5


def test_a_fifo_note_never_blocks_the_check(store: Path) -> None:
    import os

    os.mkfifo(store / "pipe.md")
    payload = claude("Write", {"file_path": str(store / "pipe.md"), "content": AWS}, store)
    assert answer(post("claude", payload, store)) is None


def test_an_edit_elsewhere_in_a_note_already_holding_a_secret_is_silent(store: Path) -> None:
    """As before a call: only a secret the call brought in is reported."""
    (store / "deploy.md").write_text(SECRET_NOTE + "Deploys go through the CI.\n")
    payload = claude(
        "Edit",
        {"file_path": str(store / "deploy.md"), "old_string": "CI", "new_string": "the CI"},
        store,
    )
    assert answer(post("claude", payload, store)) is None
    shell = claude("Bash", {"command": "sed -i s/CI/ci/ deploy.md"}, store)
    assert "deploy.md now holds a secret" in claude_reason(post("claude", shell, store))
