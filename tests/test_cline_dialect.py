"""Cline's guard dialect (PreToolUse file hooks) and its lifecycle replies: the decision table
through the real hook process and through the launcher file init writes, then payload parsing
and rendering in-process. The decisions themselves: tests/test_guard_service.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hookkit import (
    DENY,
    HEAVY,
    HOOK,
    NUDGE,
    SILENT,
    answer,
    crash_is_silent,
    hot_path,
    imported,
    lines,
    run_hook,
)

from conftest import REPO
from engramory import dialects
from engramory.continuity import policy
from engramory.dialects import cline, lifecycle
from engramory.guard import decision as guard
from engramory.guard import toolcall
from engramory.guard.decision import Verdict
from engramory.hosts import cline as cline_host
from engramory.wiring import hookwiring

GROW = "would GROW the memory index"
SHELL = "this shell command would write the memory index"
SOFT = "offer the user a compaction pass"
STILL = "is still over"
UNVERIFIED = "was NOT checked against its cap"
UNIQUE_TAIL = lines(198) + "tail\n"
POSIX = pytest.mark.skipif(os.name == "nt", reason="the launcher is a POSIX sh script")
SYNC = REPO / "hooks" / "engramory_sync.py"


def vscode(d: Path, tool: str, parameters: dict[str, object]) -> dict:
    """The VS Code extension's PreToolUse payload: every parameter value a STRING."""
    return {
        "clineVersion": "4.2.0",
        "hookName": "PreToolUse",
        "timestamp": "1764669600000",
        "taskId": "task-1",
        "workspaceRoots": [str(d)],
        "userId": "u-1",
        "model": {"provider": "anthropic", "slug": "claude-sonnet"},
        "preToolUse": {
            "toolName": tool,
            "parameters": {
                k: v if isinstance(v, str) else json.dumps(v) for k, v in parameters.items()
            },
        },
    }


def sdk(d: Path, tool: str, tool_input: dict[str, object]) -> dict:
    """The CLI/SDK's shape: ``tool_call: {id, name, input}`` with real JSON values."""
    return {
        "clineVersion": "4.2.0",
        "hookName": "PreToolUse",
        "taskId": "task-1",
        "workspaceRoots": [str(d)],
        "tool_call": {"id": "call-1", "name": tool, "input": tool_input},
    }


def editor(shape: Callable[..., dict] = vscode, **parameters: object) -> Callable[[Path], dict]:
    path = str(parameters.pop("path", "MEMORY.md"))
    return lambda d: shape(d, "editor", {"path": path.format(d=d), **parameters})


def commands(value: object, shape: Callable[..., dict] = vscode) -> Callable[[Path], dict]:
    return lambda d: shape(d, "run_commands", {"commands": value})


def patch(body: str, shape: Callable[..., dict] = vscode) -> Callable[[Path], dict]:
    return lambda d: shape(d, "apply_patch", {"input": f"*** Begin Patch\n{body}*** End Patch\n"})


ADD_250 = "*** Add File: MEMORY.md\n" + "".join(f"+{i}\n" for i in range(250))
GROW_PATCH = "*** Update File: MEMORY.md\n@@\n tail\n" + "".join(f"+{i}\n" for i in range(5))

# (id, the index's text (None: no index), payload, expected, a phrase of the message)
TABLE = [
    ("create a new index over the cap", None, editor(new_text=lines(250)), DENY, GROW),
    ("create by absolute path", None, editor(path="{d}/MEMORY.md", new_text=lines(250)), DENY, GROW),
    ("create over the soft cap", None, editor(new_text=lines(160)), NUDGE, SOFT),
    ("create within the caps", None, editor(new_text=lines(10)), SILENT, ""),
    ("no old_text on an existing index: worst case, grows", lines(150), editor(new_text=lines(60)), DENY, GROW),
    ("no old_text, empty string, worst case", lines(150), editor(old_text="", new_text=lines(60)), DENY, GROW),
    ("replace, growing", UNIQUE_TAIL, editor(old_text="tail\n", new_text=lines(5)), DENY, GROW),
    ("replace, shrinking", lines(150) + "tail\n", editor(old_text="tail\n", new_text=""), SILENT, ""),
    ("replace shrinks an over-cap index", lines(260) + "tail\n", editor(old_text="tail\n", new_text=""), NUDGE, STILL),
    ("replace matching nothing changes nothing", lines(10), editor(old_text="nope", new_text=lines(300)), SILENT, ""),
    ("insert over the cap (string line)", lines(199), editor(insert_line="5", new_text="a\nb"), DENY, GROW),
    ("insert over the cap (SDK int line)", lines(199), editor(sdk, insert_line=5, new_text="a\nb"), DENY, GROW),
    ("insert within the caps", lines(10), editor(insert_line="0", new_text="a\n"), SILENT, ""),
    ("insert into a missing index", None, editor(insert_line="1", new_text=lines(201)), DENY, GROW),
    ("insert into another file", None, editor(path="{d}/app.py", insert_line="1", new_text=lines(300)), SILENT, ""),
    ("edit another file", None, editor(path="src/app.py", new_text=lines(900)), SILENT, ""),
    ("edit another store's index", None, editor(path="/elsewhere/MEMORY.md", new_text=lines(250)), DENY, GROW),
    ("SDK create over the cap", None, editor(sdk, new_text=lines(250)), DENY, GROW),
    ("patch adds an index over the cap", None, patch(ADD_250), DENY, GROW),
    ("patch grows the index", UNIQUE_TAIL, patch(GROW_PATCH), DENY, GROW),
    ("SDK patch grows the index", UNIQUE_TAIL, patch(GROW_PATCH, sdk), DENY, GROW),
    ("patch of another file", None, patch("*** Add File: app.py\n+x\n"), SILENT, ""),
    ("commands as JSON text, one writes", None, commands(["ls", "echo x >> MEMORY.md"]), DENY, SHELL),
    ("commands as an SDK list", None, commands(["echo x >> MEMORY.md"], sdk), DENY, SHELL),
    ("a single command string", None, commands("echo x > MEMORY.md"), DENY, SHELL),
    ("commands that only read", lines(10), commands(["cat MEMORY.md", "wc -l MEMORY.md"]), SILENT, ""),
    ("legacy execute_command", None, lambda d: vscode(d, "execute_command", {"command": "tee -a MEMORY.md"}), DENY, SHELL),
    ("legacy write_to_file over the cap", None, lambda d: vscode(d, "write_to_file", {"path": "MEMORY.md", "content": lines(250)}), DENY, GROW),
    ("legacy replace_in_file: not verified", lines(10), lambda d: vscode(d, "replace_in_file", {"path": "MEMORY.md", "diff": "x"}), NUDGE, UNVERIFIED),
    ("another tool", lines(10), lambda d: vscode(d, "read_files", {"paths": ["MEMORY.md"]}), SILENT, ""),
]  # fmt: skip


def expected_output(kind: str, message: str) -> dict | None:
    if kind == DENY:
        return {"cancel": True, "errorMessage": message}
    if kind == NUDGE:
        return {"cancel": False, "contextModification": message}
    return None


def message_of(output: dict | None) -> str:
    if output is None:
        return ""
    return output.get("errorMessage") or output.get("contextModification", "")


def setup_project(tmp_path: Path, index: str | None) -> Path:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "MEMORY.md").write_text("- [a](a.md)\n")
    elsewhere = tmp_path / "elsewhere"  # the process's cwd: not where the files are
    elsewhere.mkdir()
    if index is not None:
        (tmp_path / "MEMORY.md").write_text(index)
    return elsewhere


@pytest.mark.parametrize(
    ("index", "payload", "kind", "phrase"), [r[1:] for r in TABLE], ids=[r[0] for r in TABLE]
)
def test_decision_table_through_the_real_hook(
    tmp_path: Path, index: str | None, payload: Callable[[Path], dict], kind: str, phrase: str
) -> None:
    elsewhere = setup_project(tmp_path, index)
    output = answer(run_hook("cline", payload(tmp_path), cwd=elsewhere))
    assert output == expected_output(kind, message_of(output))
    assert phrase in message_of(output)


def installed_launcher(folder: Path, argv: list[str], name: str = "PreToolUse") -> Path:
    """The launcher file as init writes it (text and mode), in ``folder``."""
    path = folder / name
    path.write_text(cline_host.launcher(argv, f"Cline {name} test"))
    path.chmod(0o755)
    return path


def run_file(path: Path, data: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    return subprocess.run(
        [str(path)], input=data, capture_output=True, env=env, cwd=cwd, timeout=120, check=False
    )


@POSIX
@pytest.mark.parametrize(
    ("index", "payload", "kind", "phrase"), [r[1:] for r in TABLE], ids=[r[0] for r in TABLE]
)
def test_decision_table_through_the_installed_launcher(
    tmp_path: Path, index: str | None, payload: Callable[[Path], dict], kind: str, phrase: str
) -> None:
    elsewhere = setup_project(tmp_path, index)
    argv = hookwiring.guard_argv(sys.executable, str(HOOK), None, "cline")
    launcher = installed_launcher(tmp_path / "elsewhere", argv)
    output = answer(run_file(launcher, json.dumps(payload(tmp_path)).encode(), elsewhere))
    assert output == expected_output(kind, message_of(output))
    assert phrase in message_of(output)


@POSIX
def test_a_launcher_whose_interpreter_is_gone_prints_nothing(tmp_path: Path) -> None:
    """Cline ignores the exit code; what matters is that stdout stays empty (the call runs)."""
    launcher = installed_launcher(tmp_path, [str(tmp_path / "no-python"), "-I", "-S", str(HOOK)])
    proc = run_file(launcher, json.dumps(editor(new_text=lines(300))(tmp_path)).encode(), tmp_path)
    assert (proc.stdout, proc.stderr) == (b"", b"")


@POSIX
def test_a_launcher_passes_only_the_guards_output(tmp_path: Path) -> None:
    """Whatever the command writes to stderr never reaches Cline; stdout is the command's."""
    script = tmp_path / "noisy.py"
    script.write_text("import sys\nsys.stderr.write('noise')\nprint(sys.stdin.read().upper())\n")
    launcher = installed_launcher(tmp_path, [sys.executable, str(script)])
    proc = run_file(launcher, b"it's me", tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"IT'S ME\n", b"")


def test_a_path_with_quotes_and_spaces_survives_the_launcher(tmp_path: Path) -> None:
    text = cline_host.launcher(["/p y/py thon", "it's", "$HOME"], "x")
    assert "exec '/p y/py thon' 'it'\"'\"'s' '$HOME'\n" in text


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\xff\xfe garbage MEMORY.md",
        b"[]",
        b"null",
        b'{"preToolUse": {"toolName": "editor"}}',
        b'{"preToolUse": {"toolName": "editor", "parameters": "not json"}}',
        b'{"tool_call": {"name": "run_commands", "input": {"commands": 5}}}',
        b"{",
    ],
    ids=["empty", "invalid utf-8", "list", "null", "no parameters", "bad params", "odd", "cut"],
)
def test_malformed_input_is_silent_exit_zero(raw: bytes) -> None:
    proc = run_hook("cline", raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_the_index_named_by_path_through_the_real_hook(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    payload = editor(path="notes.md", new_text=lines(300))(tmp_path)
    output = answer(run_hook("cline", payload, "--index", str(index)))
    assert output is not None and output["cancel"] is True
    assert answer(run_hook("cline", payload)) is None  # without --index: only the name counts


def test_an_unrelated_payload_imports_only_the_hot_path(tmp_path: Path) -> None:
    for payload in (
        editor(path="/x/app.py", new_text="print(1)")(tmp_path),
        commands(["pytest -q tests/", "ls"])(tmp_path),
        vscode(tmp_path, "read_files", {"paths": ["MEMORY.md"]}),
        sdk(tmp_path, "editor", {"path": "src/app.py", "new_text": "x", "insert_line": 3}),
        patch("*** Update File: app.py\n@@\n-a\n+b\n")(tmp_path),
    ):
        names = imported("cline", payload)
        assert {n for n in names if n.startswith("engramory")} == hot_path("cline"), payload
        assert not names & HEAVY


# --- in-process: payload -> ToolCall, Verdict -> output ----------------------------------


def test_tool_calls(tmp_path: Path) -> None:
    d = tmp_path
    (call,) = cline.tool_calls(editor(new_text="x")(d))
    assert (call.kind, call.path, call.cwd, call.content) == (
        toolcall.WRITE,
        "MEMORY.md",
        str(d),
        "x",
    )
    (call,) = cline.tool_calls(editor(old_text="a", new_text="b")(d))
    assert (call.kind, call.edits) == (toolcall.EDIT, [("a", "b", False)])
    (call,) = cline.tool_calls(editor(old_text="a")(d))
    assert call.edits == [("a", "", False)]  # no new_text: the old text is deleted
    (d / "MEMORY.md").write_text("one\ntwo")
    (call,) = cline.tool_calls(editor(insert_line="1", new_text="new")(d))
    assert (call.kind, call.content) == (toolcall.WRITE, "one\ntwo\nnew\n")
    (call,) = cline.tool_calls(editor(new_text="new\n")(d))  # worst case: grows by all of it
    assert call.content == "one\ntwo\nnew\n"
    assert [c.command for c in cline.tool_calls(commands(["a", "b"])(d))] == ["a", "b"]
    assert [c.command for c in cline.tool_calls(commands("[not json")(d))] == ["[not json"]
    assert [c.command for c in cline.tool_calls(commands([{"command": "x"}, 3], sdk)(d))] == [
        "x",
        None,
    ]
    (call,) = cline.tool_calls(patch("*** Add File: a\n+x\n")(d))
    assert call.kind == toolcall.PATCH and call.command.startswith("*** Begin Patch")
    (call,) = cline.tool_calls(sdk(d, "search", {"regex": "x"}))
    assert call.kind == toolcall.UNKNOWN
    assert cline.tool_calls({"preToolUse": {"toolName": "editor", "parameters": 3}}) == []
    assert cline.tool_calls([1]) == []


def test_an_unreadable_target_is_not_verified(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").mkdir()  # not a regular file
    (call,) = cline.tool_calls(editor(insert_line="1", new_text="x")(tmp_path))
    assert (call.kind, call.edits) == (toolcall.EDIT, None)


def test_inserted_is_the_same_size_wherever_the_text_lands() -> None:
    assert cline.inserted("", "a") == "a\n"
    assert cline.inserted("x\n", "a\nb\n") == "x\na\nb\n"
    assert cline.inserted("x", "a") == "x\na\n"
    assert cline.inserted("x\n", "") == "x\n"


def test_render() -> None:
    assert cline.render(Verdict(guard.DENY, "no"), "pre") == (
        '{"cancel": true, "errorMessage": "no"}',
        0,
    )
    assert cline.render(Verdict(guard.NUDGE, "hm"), "pre") == (
        '{"cancel": false, "contextModification": "hm"}',
        0,
    )
    assert cline.render(Verdict(guard.SILENT), "pre") == ("", 0)
    assert cline.render(Verdict(guard.DENY, "no"), "post") == (
        '{"cancel": false, "contextModification": "no"}',
        0,
    )
    assert cline.render(Verdict(guard.NUDGE, "hm"), "post") == ("", 0)


def test_the_cheap_test_agrees_with_the_parse(tmp_path: Path) -> None:
    def raw(payload: dict) -> bytes:
        return json.dumps(payload).encode()

    assert not cline.may_concern_index(raw(editor(path="/x/a.py", new_text="x")(tmp_path)), {})
    assert cline.may_concern_index(raw(editor(path="/x/MEMORY.md", new_text="x")(tmp_path)), {})
    assert cline.may_concern_index(raw(editor(sdk, path="m/memory.MD")(tmp_path)), {})
    assert not cline.may_concern_index(raw(commands(["ls -la"])(tmp_path)), {})
    assert cline.may_concern_index(raw(commands(["tee MEM*.md"])(tmp_path)), {})
    assert cline.may_concern_index(raw(commands(["ls"], sdk)(tmp_path)), {})  # a list: parsed
    assert not cline.may_concern_index(raw(patch("*** Add File: a.py\n+x\n")(tmp_path)), {})
    assert cline.may_concern_index(raw(patch("*** Add File: MEMORY.md\n+x\n")(tmp_path)), {})
    assert not cline.may_concern_index(raw(vscode(tmp_path, "search", {"p": "MEMORY.md"})), {})
    assert cline.may_concern_index(b'{"preToolUse": {}}', {})  # no tool name: parsed


def test_a_relative_path_is_read_against_the_workspace_root(tmp_path: Path) -> None:
    """The cheap test finds the index named by ``--index`` through ``workspaceRoots[0]``."""
    index = tmp_path / "store" / "index.md"
    index.parent.mkdir()
    index.write_text("x\n")
    payload = json.dumps(editor(path="store/index.md", new_text="y")(tmp_path)).encode()
    assert cline.may_concern_index(payload, {}, str(index))
    other = json.dumps(editor(path="store/other.txt", new_text="y")(tmp_path)).encode()
    assert not cline.may_concern_index(other, {}, str(index))


def test_an_oversized_payload_is_judged_by_its_target(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("engramory.guard.PAYLOAD_LIMIT", 1000)  # the entry reads it there
    big = editor(new_text="x" * 2000)(tmp_path)
    text, code = dialects.answer(["--host", "cline"], json.dumps(big).encode(), {})
    assert code == 0 and json.loads(text)["cancel"] is True
    assert "too large to check" in json.loads(text)["errorMessage"]
    other = editor(path="app.py", new_text="x" * 2000)(tmp_path)
    assert dialects.answer(["--host", "cline"], json.dumps(other).encode(), {}) == ("", 0)


def test_a_crash_never_prints_a_decision(monkeypatch, capsys, tmp_path: Path) -> None:
    payload = json.dumps(editor(new_text=lines(300))(tmp_path)).encode()
    crash_is_silent("cline", payload, monkeypatch, capsys)


def test_the_installer_probe_is_a_shell_call_cline_would_send() -> None:
    host = cline_host.HOST
    payload = host.shell_payload("echo x >> /s/MEMORY.md", "/p")
    (call,) = cline.tool_calls(payload)
    assert (call.kind, call.command, call.cwd) == (toolcall.SHELL, "echo x >> /s/MEMORY.md", "/p")


# --- lifecycle (``sync hook --host cline``) -----------------------------------------------


def event(hook: str, task: str = "task-9", **data: object) -> dict:
    payload: dict[str, object] = {
        "clineVersion": "4.2.0",
        "hookName": hook,
        "timestamp": "1764669600000",
        "taskId": task,
        "workspaceRoots": ["/w"],
        "userId": "u-1",
    }
    payload.update(data)
    return payload


def test_lifecycle_payload_reads_cline_events() -> None:
    start = lifecycle.lifecycle_payload("cline", event("TaskStart"), "SessionStart")
    assert start == {
        "hook_event_name": "SessionStart",
        "session_id": "task-9",
        "prompt": "",
        "trigger": "auto",
        "source": "startup",
    }
    resume = lifecycle.lifecycle_payload("cline", event("TaskResume"), None)
    assert (resume["hook_event_name"], resume["source"]) == ("SessionStart", "resume")
    prompt = event("UserPromptSubmit", userPromptSubmit={"prompt": "fix it", "attachments": []})
    converted = lifecycle.lifecycle_payload("cline", prompt, None)
    assert (converted["hook_event_name"], converted["prompt"]) == ("UserPromptSubmit", "fix it")
    assert lifecycle.lifecycle_payload("cline", event("PreCompact"), None)["trigger"] == "auto"
    assert "hook_event_name" not in lifecycle.lifecycle_payload("cline", event("TaskCancel"), None)
    assert lifecycle.lifecycle_payload("cline", [1], "SessionStart") == [1]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (policy.QUIET, None),
        (policy.CONTEXT, {"cancel": False, "contextModification": "hello"}),
        (policy.WARN, {"cancel": False, "contextModification": "hello"}),
        (
            policy.BLOCK,
            {
                "cancel": False,
                "contextModification": "Cline cannot hold this compaction back; do this now: hello",
            },
        ),
    ],
)
def test_render_lifecycle_for_each_reply_kind(kind: str, expected: dict | None) -> None:
    text, code = lifecycle.render_lifecycle("cline", policy.Reply(kind, "hello", "PreCompact"))
    assert code == 0
    assert (json.loads(text) if text else None) == expected


def sync_hook(store: Path, hook: str, event_name: str, payload: dict) -> dict | None:
    """The installed TaskStart/UserPromptSubmit/PreCompact launcher's command, run for real."""
    argv = [sys.executable, "-I", "-S", str(SYNC), "hook", "--host", "cline"]
    argv += ["--event", event_name, "--mode", "explicit", "--", str(store)]
    proc = subprocess.run(
        argv, input=json.dumps(payload).encode(), capture_output=True, timeout=120, check=False
    )
    assert (proc.returncode, proc.stderr) == (0, b""), proc
    return json.loads(proc.stdout) if proc.stdout.strip() else None


def test_lifecycle_hooks_through_the_real_sync_command(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "MEMORY.md").write_text("- [a](a.md)\n")
    start = sync_hook(store, "TaskStart", "SessionStart", event("TaskStart"))
    assert start is not None and start["cancel"] is False
    assert "mark-synced --session-id=task-9" in start["contextModification"]
    prompt = event("UserPromptSubmit", userPromptSubmit={"prompt": "refactor the parser"})
    sync_hook(store, "UserPromptSubmit", "UserPromptSubmit", prompt)
    compact = sync_hook(store, "PreCompact", "PreCompact", event("PreCompact"))
    assert compact is not None and compact["cancel"] is False  # never blocks: observe only
    assert "was not stopped" in compact["contextModification"]
