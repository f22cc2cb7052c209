"""The guard dialects and lifecycle replies of Engramory's OpenCode and OpenClaw plugins, on the
Python side: the decision tables through the real hook process (the payload is what the plugins
send: ``{"tool", "args", "cwd"}`` with the host's own tool ids and arguments), the sync hook's
replies through the real process, then parsing and rendering in-process. The plugins themselves
run under Node in tests/test_plugins_node.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hookkit import DENY, HEAVY, NUDGE, SILENT, answer, crash_is_silent, hot_path, imported, lines
from hookkit import run_hook as run_guard

from conftest import REPO
from engramory import dialects
from engramory.continuity import policy
from engramory.dialects import openclaw, opencode
from engramory.guard import decision as guard
from engramory.guard import toolcall
from engramory.guard.decision import Verdict

GROW = "would GROW the memory index"
SHELL = "this shell command would write the memory index"
SOFT = "offer the user a compaction pass"
UNVERIFIED = "was NOT checked against its cap"
UNIQUE_TAIL = lines(198) + "tail\n"
SYNC = REPO / "hooks" / "engramory_sync.py"


def call(tool: str, **args: object) -> Callable[[Path], dict]:
    """A plugin's payload: the tool id first (the dialect's cheap test reads the first one)."""
    return lambda d: {
        "tool": tool,
        "args": {k: v.format(d=d) if isinstance(v, str) else v for k, v in args.items()},
        "cwd": str(d),
    }


def patch(*body: str) -> str:
    return "\n".join(("*** Begin Patch", *body, "*** End Patch")) + "\n"


GROWING_PATCH = patch("*** Update File: MEMORY.md", "@@", " tail", "+a", "+b", "+c")
SHRINKING_PATCH = patch("*** Update File: MEMORY.md", "@@", "-tail")

# (id, the index's text (None: no index), payload, expected, a phrase of the message)
OPENCODE_TABLE = [
    ("write a new index over the cap", None, call("write", filePath="{d}/MEMORY.md", content=lines(250)), DENY, GROW),
    ("write relative to the directory", None, call("write", filePath="MEMORY.md", content=lines(250)), DENY, GROW),
    ("write over the soft cap", None, call("write", filePath="MEMORY.md", content=lines(160)), NUDGE, SOFT),
    ("write within the caps", None, call("write", filePath="MEMORY.md", content=lines(10)), SILENT, ""),
    ("write another file", None, call("write", filePath="app.py", content=lines(900)), SILENT, ""),
    ("write shrinks an over-cap index", lines(260), call("write", filePath="MEMORY.md", content=lines(230)), NUDGE, "is still over"),
    ("edit one occurrence, growing", UNIQUE_TAIL, call("edit", filePath="MEMORY.md", oldString="tail\n", newString=lines(5), replaceAll=False), DENY, GROW),
    ("edit one occurrence, shrinking", UNIQUE_TAIL, call("edit", filePath="MEMORY.md", oldString="tail\n", newString=""), NUDGE, SOFT),
    ("edit replaceAll", lines(150), call("edit", filePath="MEMORY.md", oldString="x\n", newString="x\ny\n", replaceAll=True), DENY, GROW),
    ("edit matching twice (OpenCode matches loosely)", lines(150), call("edit", filePath="MEMORY.md", oldString="x\n", newString="y\n"), NUDGE, UNVERIFIED),
    ("edit matching nothing exactly", lines(150), call("edit", filePath="MEMORY.md", oldString="  x", newString=lines(300)), NUDGE, UNVERIFIED),
    ("edit with empty oldString writes", None, call("edit", filePath="MEMORY.md", oldString="", newString=lines(250)), DENY, GROW),
    ("edit another file", None, call("edit", filePath="notes.txt", oldString="a", newString=lines(300)), SILENT, ""),
    ("apply_patch growing", UNIQUE_TAIL, call("apply_patch", patchText=GROWING_PATCH), DENY, GROW),
    ("apply_patch shrinking", UNIQUE_TAIL, call("apply_patch", patchText=SHRINKING_PATCH), NUDGE, SOFT),
    ("apply_patch of another file", None, call("apply_patch", patchText=patch("*** Add File: a.py", "+x")), SILENT, ""),
    ("bash append to the index", None, call("bash", command="echo x >> MEMORY.md"), DENY, SHELL),
    ("shell (V2) append to the index", None, call("shell", command="echo x >> MEMORY.md"), DENY, SHELL),
    ("bash read of the index", lines(10), call("bash", command="cat MEMORY.md | wc -l"), SILENT, ""),
    ("another tool", lines(10), call("read", filePath="MEMORY.md"), SILENT, ""),
]  # fmt: skip

OPENCLAW_TABLE = [
    ("write path over the cap", None, call("write", path="MEMORY.md", content=lines(250)), DENY, GROW),
    ("write file_path over the cap", None, call("write", file_path="{d}/MEMORY.md", content=lines(250)), DENY, GROW),
    ("write within the caps", None, call("write", path="MEMORY.md", content=lines(10)), SILENT, ""),
    ("write another file", None, call("write", path="app.py", content=lines(900)), SILENT, ""),
    ("edit oldText/newText growing", UNIQUE_TAIL, call("edit", path="MEMORY.md", oldText="tail\n", newText=lines(5)), DENY, GROW),
    ("edit old_string/new_string growing", UNIQUE_TAIL, call("edit", file_path="MEMORY.md", old_string="tail\n", new_string=lines(5)), DENY, GROW),
    ("edit shrinking", UNIQUE_TAIL, call("edit", path="MEMORY.md", oldText="tail\n", newText=""), NUDGE, SOFT),
    ("edit matching twice", lines(150), call("edit", path="MEMORY.md", oldText="x\n", newText="y\n"), NUDGE, UNVERIFIED),
    ("edits list growing", UNIQUE_TAIL, call("edit", path="MEMORY.md", edits=[{"oldText": "tail\n", "newText": lines(5)}]), DENY, GROW),
    ("apply_patch input growing", UNIQUE_TAIL, call("apply_patch", input=GROWING_PATCH), DENY, GROW),
    ("apply_patch input shrinking", UNIQUE_TAIL, call("apply_patch", input=SHRINKING_PATCH), NUDGE, SOFT),
    ("exec append to the index", None, call("exec", command="echo x >> MEMORY.md", workdir="."), DENY, SHELL),
    ("bash append to the index", None, call("bash", command="printf x > MEMORY.md"), DENY, SHELL),
    ("exec read of the index", lines(10), call("exec", command="wc -l MEMORY.md"), SILENT, ""),
    ("another tool", lines(10), call("read", path="MEMORY.md"), SILENT, ""),
]  # fmt: skip


def expected_output(kind: str, message: str) -> dict | None:
    if kind == DENY:
        return {"deny": message}
    if kind == NUDGE:
        return {"nudge": message}
    return None


def decide(host: str, tmp_path: Path, index: str | None, payload: Callable[[Path], dict]):
    elsewhere = tmp_path / "elsewhere"  # the process's cwd: not where the files are
    elsewhere.mkdir()
    if index is not None:
        (tmp_path / "MEMORY.md").write_text(index)
    output = answer(run_guard(host, payload(tmp_path), cwd=elsewhere))
    message = (output.get("deny") or output.get("nudge", "")) if output else ""
    return output, message


@pytest.mark.parametrize(
    ("index", "payload", "kind", "phrase"),
    [r[1:] for r in OPENCODE_TABLE],
    ids=[r[0] for r in OPENCODE_TABLE],
)
def test_opencode_decision_table_through_the_real_hook(
    tmp_path: Path, index: str | None, payload: Callable[[Path], dict], kind: str, phrase: str
) -> None:
    output, message = decide("opencode", tmp_path, index, payload)
    assert output == expected_output(kind, message)
    assert phrase in message


@pytest.mark.parametrize(
    ("index", "payload", "kind", "phrase"),
    [r[1:] for r in OPENCLAW_TABLE],
    ids=[r[0] for r in OPENCLAW_TABLE],
)
def test_openclaw_decision_table_through_the_real_hook(
    tmp_path: Path, index: str | None, payload: Callable[[Path], dict], kind: str, phrase: str
) -> None:
    output, message = decide("openclaw", tmp_path, index, payload)
    assert output == expected_output(kind, message)
    assert phrase in message


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\xff\xfe garbage MEMORY.md",
        b"[]",
        b"null",
        b'{"tool": "write"}',
        b"{",
        b'{"args": 1}',
    ],
    ids=["empty", "invalid utf-8", "list", "null", "no args", "cut off", "args not an object"],
)
def test_malformed_input_is_silent_exit_zero(host: str, raw: bytes) -> None:
    proc = run_guard(host, raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_the_index_named_by_path_and_the_post_event(host: str, tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "alias.txt").symlink_to(index)
    key = "filePath" if host == "opencode" else "path"
    payload = call("write", **{key: "alias.txt", "content": lines(300)})(tmp_path)
    output = answer(run_guard(host, payload, "--index", str(index)))
    assert output is not None and GROW in output["deny"]
    assert answer(run_guard(host, payload)) is None  # without --index: only the name counts
    index.write_text(lines(300))
    assert answer(run_guard(host, {}, "--event", "post", "--index", str(index))) is None
    after = answer(run_guard(host, payload, "--event", "post", "--index", str(index)))
    assert after is not None and "lines (300 > 200)" in after["after"]


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_an_unrelated_payload_imports_only_the_hot_path(host: str, tmp_path: Path) -> None:
    key = "filePath" if host == "opencode" else "path"
    shell = "bash" if host == "opencode" else "exec"
    patch_key = "patchText" if host == "opencode" else "input"
    expected = hot_path(host) | ({"engramory.dialects.opencode"} if host == "openclaw" else set())
    for payload in (
        call("write", **{key: "/x/app.py", "content": "print(1)"})(tmp_path),
        call(shell, command="pytest -q tests/")(tmp_path),
        call("read", **{key: "MEMORY.md"})(tmp_path),
        call("apply_patch", **{patch_key: patch("*** Add File: a.py", "+x")})(tmp_path),
    ):
        names = imported(host, payload)
        assert {n for n in names if n.startswith("engramory")} == expected, payload
        assert not names & HEAVY


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_a_crash_never_exits_non_zero(host: str, monkeypatch, capsys, tmp_path: Path) -> None:
    key = "filePath" if host == "opencode" else "path"
    payload = json.dumps(call("write", **{key: "MEMORY.md", "content": lines(300)})(tmp_path))
    crash_is_silent(host, payload.encode(), monkeypatch, capsys)


def test_an_oversized_payload_is_judged_by_its_target(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("engramory.guard.PAYLOAD_LIMIT", 1000)  # the entry reads it there
    for host, key in (("opencode", "filePath"), ("openclaw", "file_path")):
        big = call("write", **{key: "MEMORY.md", "content": "x" * 2000})(tmp_path)
        text, code = dialects.answer(["--host", host], json.dumps(big).encode(), {})
        assert code == 0 and "too large to check" in json.loads(text)["deny"]
        other = call("write", **{key: "app.py", "content": "x" * 2000})(tmp_path)
        assert dialects.answer(["--host", host], json.dumps(other).encode(), {}) == ("", 0)


# --- in-process: payload -> ToolCall, Verdict -> output ----------------------------------


def test_opencode_tool_calls() -> None:
    d = Path("/w")
    (c,) = opencode.tool_calls(call("write", filePath="M.md", content="x")(d))
    assert (c.kind, c.path, c.cwd, c.content) == (toolcall.WRITE, "M.md", "/w", "x")
    (c,) = opencode.tool_calls(call("edit", filePath="M.md", oldString="a", newString="b")(d))
    assert (c.kind, c.edits) == (toolcall.COUNTED_EDIT, [("a", "b", 1)])
    edit = call("edit", filePath="M.md", oldString="a", newString="b", replaceAll=True)
    assert opencode.tool_calls(edit(d))[0].edits == [("a", "b", None)]
    (c,) = opencode.tool_calls(call("edit", filePath="M.md", oldString="", newString="n")(d))
    assert (c.kind, c.content) == (toolcall.WRITE, "n")
    (c,) = opencode.tool_calls(call("apply_patch", patchText="*** Begin Patch")(d))
    assert (c.kind, c.command) == (toolcall.PATCH, "*** Begin Patch")
    for shell in ("bash", "shell"):
        (c,) = opencode.tool_calls(call(shell, command="ls")(d))
        assert (c.kind, c.command) == (toolcall.SHELL, "ls")
    assert opencode.tool_calls({"tool": "write", "args": "M.md"}) == []
    assert opencode.tool_calls([1]) == []
    assert opencode.tool_calls(call("glob", pattern="*")(d))[0].kind == toolcall.UNKNOWN


def test_openclaw_tool_calls() -> None:
    d = Path("/w")
    (c,) = openclaw.tool_calls(call("write", file_path="M.md", content="x")(d))
    assert (c.kind, c.path, c.content) == (toolcall.WRITE, "M.md", "x")
    (c,) = openclaw.tool_calls(call("edit", filePath="M.md", old_string="a", new_string="b")(d))
    assert (c.kind, c.edits) == (toolcall.COUNTED_EDIT, [("a", "b", 1)])
    steps = [{"oldText": "a", "newText": "b"}, "junk"]
    (c,) = openclaw.tool_calls(call("edit", path="M.md", edits=steps)(d))
    assert (c.kind, c.edits) == (toolcall.MULTIEDIT, [("a", "b", False), (None, None, False)])
    (c,) = openclaw.tool_calls(call("apply_patch", input="*** Begin Patch")(d))
    assert (c.kind, c.command) == (toolcall.PATCH, "*** Begin Patch")
    (c,) = openclaw.tool_calls(call("exec", command="ls")(d))
    assert (c.kind, c.command) == (toolcall.SHELL, "ls")
    assert openclaw.tool_calls(call("process", action="kill")(d))[0].kind == toolcall.UNKNOWN


def test_render() -> None:
    for module in (opencode, openclaw):
        assert module.render(Verdict(guard.DENY, "no"), "pre") == ('{"deny": "no"}', 0)
        assert module.render(Verdict(guard.NUDGE, "hm"), "pre") == ('{"nudge": "hm"}', 0)
        assert module.render(Verdict(guard.SILENT), "pre") == ("", 0)
        assert module.render(Verdict(guard.DENY, "no"), "post") == ('{"after": "no"}', 0)
        assert module.render(Verdict(guard.NUDGE, "hm"), "post") == ("", 0)


def test_the_cheap_test_agrees_with_the_parse(tmp_path: Path) -> None:
    def raw(payload: dict) -> bytes:
        return json.dumps(payload).encode()

    assert not opencode.may_concern_index(raw(call("write", filePath="/x/a.py")(tmp_path)), {})
    assert opencode.may_concern_index(raw(call("write", filePath="/x/MEMORY.md")(tmp_path)), {})
    assert not opencode.may_concern_index(raw(call("bash", command="ls -la")(tmp_path)), {})
    assert opencode.may_concern_index(raw(call("bash", command="tee MEM*.md")(tmp_path)), {})
    assert not opencode.may_concern_index(raw(call("read", filePath="MEMORY.md")(tmp_path)), {})
    assert opencode.may_concern_index(b'{"args": {}}', {})  # no tool id: parsed
    assert openclaw.may_concern_index(raw(call("edit", file_path="m/MEMORY.md")(tmp_path)), {})
    assert not openclaw.may_concern_index(raw(call("edit", path="/x/a.py")(tmp_path)), {})
    # the plugin writes "tool" first: a "tool" key inside the arguments comes later
    nested = {"tool": "read", "args": {"tool": "write", "filePath": "MEMORY.md"}}
    assert not opencode.may_concern_index(raw(nested), {})


# --- lifecycle: the sync hook's replies, through the real process ------------------------


def sync_hook(host: str, store: Path, event: str, payload: object) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-I", "-S", str(SYNC), "hook", "--host", host, "--event", event]
    return subprocess.run(
        [*argv, "--mode", "explicit", "--", str(store)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_lifecycle_replies_through_the_sync_hook(host: str, tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "MEMORY.md").write_text("- [a](a.md)\n")
    start = sync_hook(host, store, "SessionStart", {"session_id": "ses_1", "source": "startup"})
    assert (start.returncode, start.stderr) == (0, "")
    context = json.loads(start.stdout)
    assert list(context) == ["context"] and str(store / "MEMORY.md") in context["context"]
    clean = sync_hook(host, store, "PreCompact", {"session_id": "ses_1", "trigger": "auto"})
    assert (clean.returncode, clean.stdout) == (0, "")  # a clean compaction: quiet
    prompt = sync_hook(host, store, "UserPromptSubmit", {"session_id": "ses_1", "prompt": "fix"})
    assert (prompt.returncode, prompt.stdout) == (0, "")
    dirty = sync_hook(host, store, "PreCompact", {"session_id": "ses_1", "trigger": "auto"})
    reminder = json.loads(dirty.stdout)
    assert list(reminder) == ["reminder"] and "mark-synced" in reminder["reminder"]
    broken = sync_hook(host, store, "SessionStart", ["not", "an", "object"])
    assert broken.returncode == 0 and list(json.loads(broken.stdout)) == ["reminder"]


def test_a_held_compaction_is_a_reminder_on_the_plugin_hosts() -> None:
    """The plugins cannot hold a compaction back: BLOCK is rendered as a reminder."""
    for host in ("opencode", "openclaw"):
        module = opencode if host == "opencode" else openclaw
        assert module.render_lifecycle(policy.Reply(policy.BLOCK, "why")) == (
            '{"reminder": "why"}',
            0,
        )
        assert module.render_lifecycle(policy.Reply(policy.WARN, "w")) == ('{"reminder": "w"}', 0)
        assert module.render_lifecycle(policy.Reply(policy.CONTEXT, "c")) == ('{"context": "c"}', 0)
        assert module.render_lifecycle(policy.Reply(policy.QUIET)) == ("", 0)


def test_lifecycle_payload() -> None:
    shaped = opencode.lifecycle_payload({"session_id": "s", "extra": 1}, "SessionStart")
    assert shaped == {"hook_event_name": "SessionStart", "session_id": "s"}
    assert openclaw.lifecycle_payload("x", "PreCompact") == "x"
