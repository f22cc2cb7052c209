"""Hermes Agent's guard dialect (pre_tool_call shell hook) and its continuity replies
(pre_llm_call): the decision table through the real hook process, the lifecycle hook through the
real sync script, then payload parsing and rendering in-process."""

from __future__ import annotations

import json
import subprocess
import sys
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

from conftest import REPO
from engramory.continuity import policy
from engramory.continuity import state as continuity
from engramory.dialects import hermes
from engramory.guard import decision as guard
from engramory.guard import service, toolcall
from engramory.guard.decision import Verdict

GROW = "would GROW the memory index"
SHELL = "this shell command would write the memory index"
WORST = "judged the worst case"
UNIQUE_TAIL = lines(150) + "tail\n"
SYNC = REPO / "hooks" / "engramory_sync.py"


def base(d: Path, tool: str, tool_input: dict) -> dict:
    """A pre_tool_call payload exactly as Hermes' agent/shell_hooks.py writes it."""
    return {
        "hook_event_name": "pre_tool_call",
        "tool_name": tool,
        "tool_input": tool_input,
        "session_id": "20261201_100000_abcdef",
        "cwd": str(d),
        "profile": "default",
        "extra": {"task_id": "t1", "tool_call_id": "call_1"},
    }


def write_file(path: str, content: str) -> Callable[[Path], dict]:
    return lambda d: base(d, "write_file", {"path": path.format(d=d), "content": content})


def replace(path: str, old: str, new: str, **extra: object) -> Callable[[Path], dict]:
    tool_input = {"mode": "replace", "path": path, "old_string": old, "new_string": new}
    return lambda d: base(d, "patch", {**tool_input, "path": path.format(d=d), **extra})


def v4a(patch: str) -> Callable[[Path], dict]:
    return lambda d: base(d, "patch", {"mode": "patch", "patch": patch})


def terminal(command: str) -> Callable[[Path], dict]:
    return lambda d: base(d, "terminal", {"command": command, "timeout": 60})


ADD_INDEX = "*** Begin Patch\n*** Add File: MEMORY.md\n" + "+x\n" * 250 + "*** End Patch\n"
ADD_OTHER = "*** Begin Patch\n*** Add File: app.py\n" + "+x\n" * 250 + "*** End Patch\n"
UPDATE_INDEX = (
    "*** Begin Patch\n*** Update File: MEMORY.md\n@@\n tail\n" + "+y\n" * 60 + "*** End Patch\n"
)

# (id, the index's text (None: no index), payload, verdict, a phrase of the message)
TABLE = [
    ("write new index over the cap", None, write_file("{d}/MEMORY.md", lines(250)), DENY, GROW),
    ("write relative to cwd", None, write_file("MEMORY.md", lines(250)), DENY, GROW),
    ("write over the soft cap", None, write_file("MEMORY.md", lines(160)), NUDGE, ""),
    ("write within the caps", None, write_file("MEMORY.md", lines(10)), SILENT, ""),
    ("write shrinks an over-cap index", lines(260), write_file("MEMORY.md", lines(230)), NUDGE, ""),
    ("write another file", None, write_file("{d}/app.py", lines(900)), SILENT, ""),
    ("replace exact, growing", UNIQUE_TAIL, replace("MEMORY.md", "tail\n", lines(60)), DENY, GROW),
    ("replace exact, shrinking", UNIQUE_TAIL, replace("MEMORY.md", "tail\n", ""), SILENT, ""),
    ("replace, no mode given", UNIQUE_TAIL, lambda d: base(d, "patch", {"path": "MEMORY.md", "old_string": "tail\n", "new_string": lines(60)}), DENY, GROW),
    ("replace exact twice, one expected", "a\n" + lines(100) + "a\n", replace("MEMORY.md", "a\n", lines(60)), SILENT, ""),
    ("replace_all exact", "a\n" + lines(150) + "a\n", replace("MEMORY.md", "a\n", lines(30), replace_all=True), DENY, GROW),
    ("replace loose match, worst case over", lines(150), replace("MEMORY.md", "tial", lines(60)), DENY, WORST),
    ("replace loose match, worst case within", lines(10), replace("MEMORY.md", "tial", lines(5)), SILENT, ""),
    ("replace loose match, worst case soft", lines(140), replace("MEMORY.md", "tial", lines(15)), NUDGE, WORST),
    ("replace on a missing index", None, replace("MEMORY.md", "x", lines(250)), DENY, WORST),
    ("replace shrinking over-cap, loose", lines(260), replace("MEMORY.md", "tial", ""), NUDGE, WORST),
    ("replace another file", None, replace("{d}/notes.txt", "a", lines(300)), SILENT, ""),
    ("replace without new_string", UNIQUE_TAIL, lambda d: base(d, "patch", {"mode": "replace", "path": "MEMORY.md", "old_string": "tail\n"}), NUDGE, "NOT checked"),
    ("patch mode adds the index", None, v4a(ADD_INDEX), DENY, GROW),
    ("patch mode updates the index", UNIQUE_TAIL, v4a(UPDATE_INDEX), DENY, GROW),
    ("patch mode adds another file", None, v4a(ADD_OTHER), SILENT, ""),
    ("an unknown patch mode", UNIQUE_TAIL, replace("MEMORY.md", "tail\n", lines(60), mode="diff"), SILENT, ""),
    ("terminal append to the index", None, terminal("echo x >> MEMORY.md"), DENY, SHELL),
    ("terminal read of the index", lines(10), terminal("cat MEMORY.md | wc -l"), SILENT, ""),
    ("another tool", lines(10), lambda d: base(d, "read_file", {"path": "MEMORY.md"}), SILENT, ""),
    ("the memory tool", lines(10), lambda d: base(d, "memory", {"action": "add", "content": lines(300)}), SILENT, ""),
]  # fmt: skip


def judged(payload: dict) -> Verdict:
    return service.strongest([service.check(c, {}, None) for c in hermes.tool_calls(payload)])


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
    output = answer(run_hook("hermes", payload(tmp_path), cwd=elsewhere))
    verdict = judged(payload(tmp_path))
    assert verdict.kind == kind
    assert phrase in verdict.message
    if kind == DENY:
        assert output == {"decision": "block", "reason": verdict.message}
    else:
        assert output is None  # a pre_tool_call hook cannot add context: a nudge is not shown


def test_an_exact_match_is_simulated_not_judged_by_the_worst_case(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(UNIQUE_TAIL)
    output = answer(run_hook("hermes", replace("MEMORY.md", "tail\n", lines(60))(tmp_path)))
    assert output is not None and WORST not in output["reason"]
    assert "from 151 lines" in output["reason"] and "to 210 lines" in output["reason"]
    loose = answer(run_hook("hermes", replace("MEMORY.md", "tial\n", lines(60))(tmp_path)))
    assert loose is not None and WORST in loose["reason"] and "to 211 lines" in loose["reason"]


@pytest.mark.parametrize(
    "raw",
    [b"", b"\xff\xfe garbage MEMORY.md", b"[]", b"null", b'{"tool_name": "write_file"}', b"{"],
    ids=["empty", "invalid utf-8", "list", "null", "no input", "cut off"],
)
def test_malformed_input_is_silent_exit_zero(raw: bytes) -> None:
    proc = run_hook("hermes", raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_a_crash_is_silent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    payload = json.dumps(write_file("MEMORY.md", lines(300))(tmp_path)).encode()
    crash_is_silent("hermes", payload, monkeypatch, capsys)


def test_the_index_named_by_path_through_the_real_hook(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    payload = write_file("notes.md", lines(300))(tmp_path)
    output = answer(run_hook("hermes", payload, "--index", str(index)))
    assert output is not None and output["decision"] == "block"
    assert answer(run_hook("hermes", payload)) is None  # without --index: only the name counts


def test_the_post_tool_call_event_warns_on_stderr_when_over_the_cap(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(lines(300))
    after = {
        "tool_name": "terminal",
        "tool_input": {"command": "cat draft >> MEMORY.md"},
        "cwd": str(tmp_path),
    }
    proc = run_hook("hermes", after, "--event", "post", "--index", str(index))
    assert proc.returncode == 0 and proc.stdout == b""
    assert b"lines (300 > 200)" in proc.stderr
    index.write_text(lines(20))
    assert answer(run_hook("hermes", after, "--event", "post", "--index", str(index))) is None


def test_an_unrelated_payload_imports_only_the_hot_path(tmp_path: Path) -> None:
    for payload in (
        write_file("/x/app.py", "print(1)")(tmp_path),
        replace("/x/app.py", "a", "b")(tmp_path),
        v4a(ADD_OTHER)(tmp_path),
        terminal("pytest -q tests/")(tmp_path),
        base(tmp_path, "read_file", {"path": "MEMORY.md"}),
    ):
        names = imported("hermes", payload)
        assert {n for n in names if n.startswith("engramory")} == hot_path("hermes"), payload
        assert not names & HEAVY


def test_an_oversized_payload_is_judged_by_its_target(tmp_path: Path) -> None:
    big = lines(service.PAYLOAD_LIMIT // 2 + 10, 1)
    over = json.dumps(write_file("MEMORY.md", big)(tmp_path)).encode()
    assert len(over) > service.PAYLOAD_LIMIT
    output = answer(run_hook("hermes", raw=over))
    assert output is not None and output["decision"] == "block"
    assert hermes.oversized_call(over).kind == toolcall.WRITE
    assert hermes.oversized_call(json.dumps(v4a(ADD_INDEX)(tmp_path)).encode()).kind == (
        toolcall.UNKNOWN
    )


# --- in-process: payload -> ToolCall, Verdict -> output ----------------------------------


def test_tool_calls() -> None:
    d = Path("/w")
    (call,) = hermes.tool_calls(write_file("M.md", "x")(d))
    assert (call.kind, call.path, call.cwd, call.content) == (toolcall.WRITE, "M.md", "/w", "x")
    (call,) = hermes.tool_calls(replace("M.md", "a", "b")(d))
    assert (call.kind, call.edits) == (toolcall.FUZZY_EDIT, [("a", "b", False)])
    (call,) = hermes.tool_calls(replace("M.md", "a", "b", replace_all=True)(d))
    assert call.edits == [("a", "b", True)]
    (call,) = hermes.tool_calls(replace("M.md", "a", "b", replace_all="yes")(d))
    assert call.edits == [("a", "b", False)]  # only JSON true replaces every occurrence
    (call,) = hermes.tool_calls(v4a(ADD_INDEX)(d))
    assert (call.kind, call.command, call.cwd) == (toolcall.PATCH, ADD_INDEX, "/w")
    (call,) = hermes.tool_calls(base(d, "patch", {"mode": "patch", "patch": 5}))
    assert (call.kind, call.command) == (toolcall.PATCH, None)
    (call,) = hermes.tool_calls(terminal("ls")(d))
    assert (call.kind, call.command) == (toolcall.SHELL, "ls")
    assert hermes.tool_calls(base(d, "write_file", "M.md")) == []
    assert hermes.tool_calls([1]) == []
    (call,) = hermes.tool_calls(base(d, "search_files", {"pattern": "*"}))
    assert call.kind == toolcall.UNKNOWN


def test_render() -> None:
    assert hermes.render(Verdict(guard.DENY, "no"), "pre") == (
        '{"decision": "block", "reason": "no"}',
        0,
    )
    assert hermes.render(Verdict(guard.NUDGE, "hm"), "pre") == ("", 0)
    assert hermes.render(Verdict(guard.SILENT), "pre") == ("", 0)
    assert hermes.render(Verdict(guard.DENY, "no"), "post") == ("no", 0, "stderr")
    assert hermes.render(Verdict(guard.NUDGE, "hm"), "post") == ("", 0)


def test_the_cheap_test_agrees_with_the_parse(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text(UNIQUE_TAIL)
    for _name, _index, payload, kind, _phrase in TABLE:
        raw = json.dumps(payload(tmp_path)).encode()
        if kind != SILENT:
            assert hermes.may_concern_index(raw, {}, None), _name
    for payload in (write_file("app.py", "x"), replace("app.py", "a", "b"), v4a(ADD_OTHER)):
        assert not hermes.may_concern_index(json.dumps(payload(tmp_path)).encode(), {}, None)
    assert hermes.may_concern_index(b'{"tool_name": "pa\\u0074ch"}', {}, None)
    default_mode = base(
        tmp_path, "patch", {"path": "MEMORY.md", "old_string": "a", "new_string": "b"}
    )
    default_mode["extra"]["mode"] = "patch"  # a later "mode" member must not hide the path
    assert hermes.may_concern_index(json.dumps(default_mode).encode(), {}, None)


# --- continuity: pre_llm_call -------------------------------------------------------------


def llm_call(d: Path, first: bool, message: str = "fix the tests", **extra: object) -> dict:
    """A pre_llm_call payload as Hermes' shell hooks write it (the kwargs under ``extra``)."""
    return {
        "hook_event_name": "pre_llm_call",
        "tool_name": None,
        "tool_input": None,
        "session_id": "20261201_100000_abcdef",
        "cwd": str(d),
        "profile": "default",
        "extra": {
            "user_message": message,
            "conversation_history": [] if first else [{"role": "user", "content": "hi"}],
            "is_first_turn": first,
            "model": "m",
            "platform": "cli",
            "sender_id": "",
            **extra,
        },
    }


def sync_hook(payload: object, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real sync script as Hermes runs it: isolated interpreter, no store named."""
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [sys.executable, "-I", "-S", str(SYNC), "hook", "--host", "hermes", *args],
        input=data,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".engramory-memory").mkdir()
    (root / ".engramory-memory" / "MEMORY.md").write_text("- [a](a.md)\n")
    return root


def session(project: Path) -> continuity.Session:
    return continuity.load(project / ".engramory-memory").sessions["20261201_100000_abcdef"]


def test_the_first_turn_gets_the_session_context(project: Path, tmp_path: Path) -> None:
    done = sync_hook(llm_call(project, first=True), cwd=tmp_path)  # the store: from the cwd field
    assert (done.returncode, done.stderr) == (0, "")
    reply = json.loads(done.stdout)
    assert list(reply) == ["context"]
    assert ".engramory-memory" in reply["context"] and "mark-synced" in reply["context"]
    assert not session(project).unsynced


def test_a_later_turn_marks_the_session_dirty_quietly(project: Path, tmp_path: Path) -> None:
    assert sync_hook(llm_call(project, first=True), cwd=tmp_path).returncode == 0
    done = sync_hook(llm_call(project, first=False), cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert session(project).unsynced


def test_a_slash_command_is_not_work(project: Path, tmp_path: Path) -> None:
    done = sync_hook(llm_call(project, first=False, message="/compact"), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "")
    assert not continuity.load(project / ".engramory-memory").sessions  # nothing recorded


def test_a_turn_too_large_to_read_still_marks_the_session(project: Path, tmp_path: Path) -> None:
    history = [{"role": "user", "content": "x" * 1000}] * 1200
    payload = llm_call(project, first=False, conversation_history=history)
    assert len(json.dumps(payload)) > 1024 * 1024
    done = sync_hook(payload, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert session(project).unsynced


def test_a_project_without_a_store_is_quiet(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    for first in (True, False):
        done = sync_hook(llm_call(plain, first=first), cwd=plain)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_malformed_event_is_a_visible_warning(project: Path) -> None:
    done = sync_hook("{not json", cwd=project)
    assert done.returncode == 0
    assert "could not update its state" in json.loads(done.stdout)["context"]


def session_started(d: Path) -> dict:
    """An on_session_start payload as Hermes' shell hooks write it (no tool, no prompt)."""
    return {
        "hook_event_name": "on_session_start",
        "tool_name": None,
        "tool_input": None,
        "session_id": "20261201_100000_abcdef",
        "cwd": str(d),
        "profile": "default",
        "extra": {"model": "m", "platform": "cli"},
    }


@pytest.mark.parametrize("args", [("--event", "SessionStart"), ()], ids=["as installed", "bare"])
def test_the_session_start_is_recorded(project: Path, tmp_path: Path, args: tuple) -> None:
    done = sync_hook(session_started(project), tmp_path, *args)
    assert (done.returncode, done.stderr) == (0, "")
    assert "mark-synced" in json.loads(done.stdout)["context"]  # Hermes drops it: harmless
    recorded = session(project)
    assert recorded.source == "startup" and not recorded.unsynced


def test_after_the_session_start_the_first_turn_still_carries_the_reminder(
    project: Path, tmp_path: Path
) -> None:
    assert sync_hook(session_started(project), tmp_path, "--event", "SessionStart").returncode == 0
    first = sync_hook(llm_call(project, first=True), cwd=tmp_path)
    assert "mark-synced" in json.loads(first.stdout)["context"]
    assert not session(project).unsynced  # a second start changes nothing
    assert sync_hook(llm_call(project, first=False), cwd=tmp_path).returncode == 0
    assert session(project).unsynced


def test_lifecycle_payload_mapping() -> None:
    d = Path("/w")
    first = hermes.lifecycle_payload(llm_call(d, first=True, message="go"), None)
    assert first == {
        "hook_event_name": "SessionStart",
        "session_id": "20261201_100000_abcdef",
        "prompt": "go",
        "source": "startup",
        "cwd": "/w",
    }
    later = hermes.lifecycle_payload(llm_call(d, first=False), None)
    assert later["hook_event_name"] == "UserPromptSubmit"
    assert hermes.lifecycle_payload(llm_call(d, first=False), "PreCompact")["hook_event_name"] == (
        "PreCompact"
    )
    assert hermes.lifecycle_payload(session_started(d), None) == {
        "hook_event_name": "SessionStart",
        "session_id": "20261201_100000_abcdef",
        "prompt": None,
        "source": "startup",
        "cwd": "/w",
    }
    assert hermes.lifecycle_payload([1], None) == [1]
    assert hermes.oversized_lifecycle_payload(b'{"tool_name": null}') is None


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (policy.Reply(policy.QUIET, event="UserPromptSubmit"), ""),
        (policy.Reply(policy.CONTEXT, "ctx", "SessionStart"), '{"context": "ctx"}'),
        (policy.Reply(policy.WARN, "warn", "PreCompact"), '{"context": "warn"}'),
        (policy.Reply(policy.BLOCK, "held", "PreCompact"), '{"context": "held"}'),
    ],
)
def test_render_lifecycle(reply: policy.Reply, expected: str) -> None:
    assert hermes.render_lifecycle(reply) == (expected, 0)
