"""Continuity-sync bookkeeping and the lifecycle hooks for Codex and Claude Code."""

from __future__ import annotations

import importlib
import json
import multiprocessing
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO
from engramory import dialects
from engramory.continuity import policy
from engramory.continuity import state as continuity
from engramory.dialects import lifecycle
from engramory.store.caps import Caps

SCHEMAS = REPO / "tests" / "schemas"
HOOK = REPO / "hooks" / "engramory_sync.py"
SECRET_PROMPT = "please remember the launch code ZEBRA-7781-PROMPT-MARKER"


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text())


CODEX_OUTPUT = {
    "SessionStart": schema("codex/session-start.command.output.schema.json"),
    "UserPromptSubmit": schema("codex/user-prompt-submit.command.output.schema.json"),
    "PreCompact": schema("codex/pre-compact.command.output.schema.json"),
}
CLAUDE_OUTPUT = schema("claude-code-hook-output.schema.json")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    path.mkdir()
    (path / "MEMORY.md").write_text(
        "# Memory index\n\n## user\n- [Secret title](secret-title.md)\n"
    )
    return path


def event(name: str, sid: str = "s1", **fields: object) -> dict:
    return {"hook_event_name": name, "session_id": sid, **fields}


def ask(store: Path, payload: object, host: str = "codex", mode: str = "explicit") -> dict | None:
    """Handle one event in-process and render it; validates against the host's contract."""
    reply = policy.handle(payload, store, host, mode)
    text, code = lifecycle.render_lifecycle(host, reply)
    assert code == 0
    output = json.loads(text) if text else None
    if output is not None:
        name = payload.get("hook_event_name") if isinstance(payload, dict) else None
        if host == "codex" and name in CODEX_OUTPUT:
            jsonschema.validate(output, CODEX_OUTPUT[name])
        if host == "claude":
            jsonschema.validate(output, CLAUDE_OUTPUT)
    return output


def blocked(output: dict | None, host: str) -> bool:
    if output is None:
        return False
    return output.get("continue") is False if host == "codex" else output.get("decision") == "block"


# --- the PreCompact decision table -----------------------------------------------------------


def prepare(store: Path, condition: str, sid: str = "s1") -> None:
    if condition in ("clean", "dirty"):
        ask(store, event("SessionStart", sid, source="startup"))
    if condition == "dirty":
        ask(store, event("UserPromptSubmit", sid, prompt="do the thing"))
    if condition == "state-error":
        continuity.state_path(store).write_text("{ this is not json")


@pytest.mark.parametrize("host", ["codex", "claude"])
@pytest.mark.parametrize(
    ("trigger", "condition", "expected"),
    [
        ("manual", "clean", "quiet"),
        ("manual", "dirty", "block"),
        ("manual", "unobserved", "block"),
        ("manual", "state-error", "block"),
        ("auto", "clean", "quiet"),
        ("auto", "dirty", "warn"),
        ("auto", "unobserved", "warn"),
        ("auto", "state-error", "warn"),
        (None, "clean", "quiet"),
        (None, "dirty", "warn"),
        (None, "unobserved", "warn"),
        (None, "state-error", "warn"),
    ],
)
def test_precompact_decision_table(
    store: Path, host: str, trigger, condition: str, expected: str
) -> None:
    prepare(store, condition)
    fields = {} if trigger is None else {"trigger": trigger}
    output = ask(store, event("PreCompact", **fields), host)
    if expected == "quiet":
        assert output is None
    elif expected == "block":
        assert blocked(output, host)
        text = output["stopReason"] if host == "codex" else output["reason"]
        assert "mark-synced" in text or "status" in text
    else:
        assert not blocked(output, host) and "systemMessage" in output
    if condition == "state-error":
        assert continuity.state_path(store).read_text() == "{ this is not json"  # never reset


def test_dirty_automatic_compaction_needs_reconcile(store: Path) -> None:
    prepare(store, "dirty")
    ask(store, event("PreCompact", trigger="auto"))
    assert continuity.load(store).sessions["s1"].needs_reconcile
    context = ask(store, event("SessionStart", "s2", source="compact"))["hookSpecificOutput"]
    assert "automatic compaction with unsynced work" in context["additionalContext"]


def test_manual_block_is_lifted_by_mark_synced(store: Path) -> None:
    prepare(store, "dirty")
    assert blocked(ask(store, event("PreCompact", trigger="manual")), "codex")
    continuity.mark_synced(store, Caps(), "s1")
    assert ask(store, event("PreCompact", trigger="manual")) is None


# --- SessionStart and UserPromptSubmit ---------------------------------------------------------


def test_session_start_context_content_and_bound(store: Path) -> None:
    output = ask(store, event("SessionStart", source="startup"), "codex", "assisted")
    text = output["hookSpecificOutput"]["additionalContext"]
    assert str(store.resolve() / "MEMORY.md") in text
    assert "Assisted mode" in text and "milestones" in text
    assert "mark-synced --session-id=s1" in text
    assert "Secret title" not in text and "secret-title" not in text  # no index content
    assert len(text.encode()) <= 4096


def test_session_start_context_is_truncated_at_4_kb(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 200) / ("e" * 200) / ("f" * 200)
    deep.mkdir(parents=True)
    (deep / "MEMORY.md").write_text("x\n")
    text = ask(deep, event("SessionStart", "s" * 250))["hookSpecificOutput"]["additionalContext"]
    assert len(text.encode()) <= 4096


def test_session_start_reports_earlier_unsynced_work_and_fences_errors(store: Path) -> None:
    prepare(store, "dirty", "old")
    text = ask(store, event("SessionStart", "new"))["hookSpecificOutput"]["additionalContext"]
    assert "1 earlier session left unsynced work" in text
    continuity.state_path(store).write_text('{"schema_version": 9, "sessions": {}}')
    text = ask(store, event("SessionStart", "new"), "claude")["hookSpecificOutput"][
        "additionalContext"
    ]
    assert "<untrusted-diagnostic>" in text and "newer" in text
    assert str(store.resolve() / "MEMORY.md") in text  # still says where the index is


def test_prompt_marks_dirty_but_compact_and_clear_do_not(store: Path) -> None:
    ask(store, event("SessionStart"))
    for prompt in ("/compact", "/clear now", "  /COMPACT"):
        assert ask(store, event("UserPromptSubmit", prompt=prompt)) is None
        assert not continuity.load(store).sessions["s1"].dirty
    assert ask(store, event("UserPromptSubmit", prompt=SECRET_PROMPT)) is None
    session = continuity.load(store).sessions["s1"]
    assert session.dirty and session.dirty_generation == 1


def test_prompts_are_never_stored(store: Path) -> None:
    for host in ("codex", "claude"):
        ask(store, event("UserPromptSubmit", prompt=SECRET_PROMPT), host)
        ask(store, event("PreCompact", trigger="manual"), host)
    for path in store.rglob("*"):
        if path.is_file():
            assert b"ZEBRA-7781" not in path.read_bytes(), path


def test_state_file_is_private(store: Path) -> None:
    ask(store, event("SessionStart"))
    assert (continuity.state_path(store).stat().st_mode & 0o777) == 0o600


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        "x",
        {"session_id": "s1"},
        event("SessionStart", ""),
        event("SessionStart", "a\x00b"),
        event("SessionStart", 5),
        event("Stop"),
    ],
)
def test_bad_events_fail_open_with_a_warning(store: Path, payload: object) -> None:
    output = ask(store, payload)
    assert output is not None and "systemMessage" in output and "continue" not in output


def test_bad_manual_precompact_fails_closed(store: Path) -> None:
    output = ask(store, {"hook_event_name": "PreCompact", "trigger": "manual"})
    assert blocked(output, "codex")
    assert "status" in output["stopReason"] and ".engramory-state.json" in output["stopReason"]


def test_internal_error_fails_open(store: Path, monkeypatch) -> None:
    def boom(*_args: object) -> None:
        raise RuntimeError("unexpected")

    monkeypatch.setattr(continuity, "mark_dirty", boom)
    output = ask(store, event("UserPromptSubmit", prompt="x"))
    assert "systemMessage" in output and "internal error" in output["systemMessage"]
    monkeypatch.setattr(continuity, "record_precompact", boom)
    assert blocked(ask(store, event("PreCompact", trigger="manual")), "codex")


# --- policy and host formats -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trigger", "session", "kind"),
    [
        ("manual", continuity.Session(dirty=True), policy.BLOCK),
        ("manual", continuity.Session(), policy.QUIET),
        ("auto", continuity.Session(needs_reconcile=True), policy.WARN),
        ("auto", continuity.Session(), policy.QUIET),
        ("unknown", continuity.Session(dirty=True), policy.WARN),
    ],
)
def test_precompact_policy_is_a_decision_on_plain_values(
    tmp_path: Path, trigger: str, session: continuity.Session, kind: str
) -> None:
    reply = policy.precompact_reply(tmp_path, "s1", trigger, session)
    assert (reply.kind, reply.event) == (kind, "PreCompact")
    assert list(tmp_path.iterdir()) == []  # deciding writes nothing


def test_every_dialect_module_is_registered_and_renders_lifecycle() -> None:
    modules = {
        info.name: importlib.import_module(f"engramory.dialects.{info.name}")
        for info in pkgutil.iter_modules(dialects.__path__)
    }
    readers = {name for name, module in modules.items() if hasattr(module, "tool_calls")}
    assert set(dialects.DIALECTS) == readers
    assert all(hasattr(modules[name], "render_lifecycle") for name in readers)


def test_lifecycle_hosts_differ_only_in_how_a_compaction_is_held() -> None:
    for kind in (policy.QUIET, policy.CONTEXT, policy.WARN):
        reply = policy.Reply(kind, "text", "SessionStart")
        assert lifecycle.render_lifecycle("codex", reply) == lifecycle.render_lifecycle(
            "claude", reply
        )
    held = policy.Reply(policy.BLOCK, "why", "PreCompact")
    assert json.loads(lifecycle.render_lifecycle("codex", held)[0]) == {
        "continue": False,
        "stopReason": "why",
    }
    assert json.loads(lifecycle.render_lifecycle("claude", held)[0]) == {
        "decision": "block",
        "reason": "why",
    }
    with pytest.raises(ValueError, match="no lifecycle hook format"):
        lifecycle.render_lifecycle("windsurf", held)


# --- pruning -------------------------------------------------------------------------------------


def write_state(store: Path, sessions: dict[str, dict]) -> None:
    data = {"schema_version": 1, "sessions": sessions, "last_session_id": None}
    continuity.state_path(store).write_text(json.dumps(data))


def stamp(i: int) -> str:
    return f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z"


def test_prune_keeps_every_dirty_session_and_evicts_clean_ones(store: Path) -> None:
    sessions = {
        f"dirty-{i:02d}": {"dirty": True, "dirty_generation": 1, "updated_at": stamp(i)}
        for i in range(63)
    }
    sessions |= {f"clean-{i}": {"dirty": False, "updated_at": stamp(100 + i)} for i in range(7)}
    write_state(store, sessions)
    ask(store, event("SessionStart", "newcomer"))
    state = continuity.load(store)
    assert len(state.sessions) == 64
    assert all(f"dirty-{i:02d}" in state.sessions for i in range(63))
    assert "newcomer" in state.sessions and state.dropped_unsynced == 0


def test_prune_drops_the_oldest_unsynced_when_it_must_and_counts_it(store: Path) -> None:
    sessions = {
        f"dirty-{i:02d}": {"dirty": True, "dirty_generation": 1, "updated_at": stamp(i)}
        for i in range(64)
    }
    write_state(store, sessions)
    ask(store, event("UserPromptSubmit", "newcomer", prompt="work"))
    state = continuity.load(store)
    assert len(state.sessions) <= 64 and "newcomer" in state.sessions
    assert "dirty-00" not in state.sessions and state.dropped_unsynced >= 1
    assert blocked(ask(store, event("PreCompact", "newcomer", trigger="manual")), "codex")
    continuity.mark_synced(store, Caps(), "newcomer")
    assert ask(store, event("PreCompact", "newcomer", trigger="manual")) is None
    status = policy.status_report(store, Caps())
    assert status["dropped_unsynced_sessions"] >= 1


# --- fail-closed reading -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "dirty"),
    [
        ({}, True),
        ({"dirty": "no"}, True),
        ({"dirty": False, "dirty_generation": 3, "synced_generation": 2}, True),
        ({"dirty": False, "dirty_generation": 3, "synced_generation": 3}, False),
        ({"dirty": False}, False),
    ],
)
def test_tampered_records_read_as_dirty_unless_they_prove_otherwise(
    store: Path, record: dict, dirty: bool
) -> None:
    write_state(store, {"s1": record})
    assert continuity.load(store).sessions["s1"].dirty is dirty


@pytest.mark.parametrize(
    "content",
    [
        '{"schema_version": 2, "sessions": {}}',
        "[]",
        "{not json",
        '{"schema_version": 1, "sessions": []}',
        '{"schema_version": 1, "sessions": {"s": {"dirty_generation": true}}}',
        '{"schema_version": 1, "sessions": {"s": {"dirty_generation": -1}}}',
        '{"schema_version": 1, "sessions": {" padded": {}}}',
        '{"sessions": {}}',
    ],
)
def test_untrustworthy_state_files_are_refused_and_left_alone(store: Path, content: str) -> None:
    path = continuity.state_path(store)
    path.write_text(content)
    with pytest.raises(continuity.StateError):
        continuity.load(store)
    with pytest.raises(continuity.StateError):
        continuity.mark_dirty(store, "s1", "codex", "explicit")
    assert path.read_text() == content


def test_symlinked_and_oversized_state_files_are_refused(store: Path, tmp_path: Path) -> None:
    path = continuity.state_path(store)
    target = tmp_path / "elsewhere.json"
    target.write_text('{"schema_version": 1, "sessions": {}}')
    path.symlink_to(target)
    with pytest.raises(continuity.StateError, match="symlink"):
        continuity.record_session_start(store, "s1", "codex", "explicit", "startup")
    assert target.read_text() == '{"schema_version": 1, "sessions": {}}'
    path.unlink()
    path.write_text(" " * (1024 * 1024 + 1))
    with pytest.raises(continuity.StateError, match="1 MiB"):
        continuity.load(store)


def test_dropped_counter_is_coerced(store: Path) -> None:
    for raw, value in (("7", 7), (7.0, 7), (True, 0), ("junk", 0), (-3, 0)):
        continuity.state_path(store).write_text(
            json.dumps({"schema_version": 1, "sessions": {}, "dropped_unsynced_sessions": raw})
        )
        assert continuity.load(store).dropped_unsynced == value


# --- mark-synced ---------------------------------------------------------------------------------


def test_mark_synced_is_idempotent_and_touches_no_note(store: Path) -> None:
    (store / "a-note.md").write_text("a note\n")
    prepare(store, "dirty")
    first = continuity.mark_synced(store, Caps(), "s1")
    assert first.changed
    state_bytes = continuity.state_path(store).read_bytes()
    second = continuity.mark_synced(store, Caps(), "s1")
    assert not second.changed
    assert continuity.state_path(store).read_bytes() == state_bytes
    assert (store / "a-note.md").read_text() == "a note\n"


@pytest.mark.parametrize("problem", ["missing", "symlink", "over"])
def test_mark_synced_refuses_an_index_it_cannot_trust(
    store: Path, tmp_path: Path, problem: str
) -> None:
    prepare(store, "dirty")
    index = store / "MEMORY.md"
    if problem == "missing":
        index.unlink()
    elif problem == "symlink":
        index.unlink()
        (tmp_path / "other.md").write_text("x\n")
        index.symlink_to(tmp_path / "other.md")
    else:
        index.write_text("x\n" * 201)
    with pytest.raises(continuity.StateError, match="first"):
        continuity.mark_synced(store, Caps(), "s1")
    assert continuity.load(store).sessions["s1"].dirty


def test_mark_synced_without_id_refuses_to_guess(store: Path) -> None:
    prepare(store, "dirty", "a")
    prepare(store, "dirty", "b")
    with pytest.raises(continuity.StateError, match="--session-id"):
        continuity.mark_synced(store, Caps())
    continuity.mark_synced(store, Caps(), "a")
    assert continuity.mark_synced(store, Caps()).session_id == "b"  # the one left


def test_unknown_session_id(store: Path) -> None:
    prepare(store, "dirty")
    with pytest.raises(continuity.StateError, match="no session"):
        continuity.mark_synced(store, Caps(), "nope")


# --- the command the hooks print, through a real shell -------------------------------------------


@pytest.mark.skipif(os.name == "nt", reason="POSIX shell")
def test_emitted_command_survives_a_login_shell(tmp_path: Path) -> None:
    awkward = tmp_path / "proj & %X% 'q'"
    store = awkward / ".engramory-memory"
    store.mkdir(parents=True)
    (store / "MEMORY.md").write_text("# index\n")
    sid = "-dash"
    output = ask(store, event("SessionStart", sid))
    ask(store, event("UserPromptSubmit", sid, prompt="work"))
    line = next(
        ln.strip()
        for ln in output["hookSpecificOutput"]["additionalContext"].splitlines()
        if "mark-synced" in ln and "--session-id=" in ln and not ln.startswith("(")
    )
    proc = subprocess.run(
        ["/bin/sh", "-lc", line],
        cwd=awkward,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "acknowledgement recorded" in proc.stdout
    assert not continuity.load(store).sessions[sid].dirty


def test_powershell_quoting() -> None:
    line = policy.shell_command(["C:\\Py 3\\python.exe", "it's", "%X%&"], windows=True)
    assert line == "& 'C:\\Py 3\\python.exe' 'it''s' '%X%&'"


# --- concurrency -----------------------------------------------------------------------------------


def _hammer(store: str, sid: str, count: int) -> None:
    for _ in range(count):
        continuity.mark_dirty(Path(store), sid, "codex", "explicit")


def test_concurrent_writers_lose_no_update(store: Path, monkeypatch) -> None:
    monkeypatch.setattr(continuity, "LOCK_TIMEOUT", 30.0)
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    workers = [context.Process(target=_hammer, args=(str(store), "shared", 25)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    assert continuity.load(store).sessions["shared"].dirty_generation == 100


def test_lock_wait_is_bounded(store: Path, monkeypatch) -> None:
    monkeypatch.setattr(continuity, "LOCK_TIMEOUT", 0.2)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time, fcntl, os; fd = os.open(sys.argv[1], os.O_CREAT | os.O_RDWR); "
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)",
            str(store / continuity.LOCK_NAME),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        # The patched timeout is the one waited for (read at call time, not bound at import).
        with pytest.raises(continuity.StateError, match=r"timed out after 0\.2s"):
            continuity.mark_dirty(store, "s1", "codex", "explicit")
        report = policy.status_report(store, Caps())  # status takes no lock
        assert report["session_count"] == 0
    finally:
        holder.kill()
        holder.wait()


# --- the hook and the commands as processes -------------------------------------------------------


def run_hook(
    store: Path, payload: dict, host: str = "codex", *extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK), "hook", "--host", host, *extra, "--", str(store)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_hook_process_round_trip(store: Path) -> None:
    start = run_hook(store, event("SessionStart", source="startup"))
    assert start.returncode == 0 and start.stderr == ""
    jsonschema.validate(json.loads(start.stdout), CODEX_OUTPUT["SessionStart"])
    prompt = run_hook(store, event("UserPromptSubmit", prompt="x"), "claude")
    assert prompt.returncode == 0 and prompt.stdout == ""
    block = run_hook(store, event("PreCompact", trigger="manual"), "claude")
    assert json.loads(block.stdout)["decision"] == "block"
    empty = subprocess.run(
        [sys.executable, str(HOOK), "hook", "--host", "codex", "--", str(store)],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert empty.returncode == 0 and "systemMessage" in json.loads(empty.stdout)


def test_status_and_mark_synced_commands(cli, store: Path) -> None:
    ask(store, event("SessionStart"))
    ask(store, event("UserPromptSubmit", prompt="x"))
    text = cli("sync", "status", str(store))
    assert text.code == 0 and "- s1: unsynced work since 20" in text.out and "loadable" in text.out
    report = json.loads(cli("sync", "status", "--format", "json", str(store)).out)
    assert report["unsynced"] == ["s1"] and report["index"]["loadable"]
    done = cli("sync", "mark-synced", "--session-id", "s1", str(store))
    assert done.code == 0 and "acknowledgement recorded" in done.out
    synced = cli("sync", "status", str(store)).out
    assert "- s1: synced at 20" in synced
    again = cli("sync", "mark-synced", str(store))
    assert "already current" in again.out
    (store / "MEMORY.md").write_text("x\n" * 300)
    refused = cli("sync", "mark-synced", "--session-id", "s1", str(store))
    assert refused.code == 1 and "compact" in refused.err


def test_sync_without_an_action_is_a_usage_error(cli) -> None:
    assert cli("sync").code == 64


# --- sync status in words ---------------------------------------------------------------------


def test_status_says_each_state_in_words_not_internals(cli, store: Path) -> None:
    prepare(store, "dirty", "busy")
    prepare(store, "clean", "idle")
    ask(store, event("PreCompact", "auto1", trigger="auto"))  # never seen: unsynced, reconcile
    ask(store, event("SessionStart", "late"))
    ask(store, event("UserPromptSubmit", "late", prompt="x"))
    ask(store, event("PreCompact", "late", trigger="auto"))
    out = cli("sync", "status", str(store)).out
    assert "dirty=" not in out and "generation=" not in out and "needs_reconcile" not in out
    assert "- busy: unsynced work since 20" in out
    assert "- idle: no work recorded yet" in out
    assert "- late: must reconcile after an automatic compaction (unsynced work since 20" in out
    assert "4 sessions recorded (the latest: late)" in out
    assert "MEMORY.md: 4 lines / 58 B" in out


def test_status_text_counts_one_line_and_one_session_in_the_singular(cli, store: Path) -> None:
    (store / "MEMORY.md").write_text("x")
    prepare(store, "clean")
    out = cli("sync", "status", str(store)).out
    assert "MEMORY.md: 1 line / 1 B," in out and "1 session recorded" in out


def test_status_json_paths_are_all_absolute(cli, store: Path, monkeypatch) -> None:
    monkeypatch.chdir(store.parent)
    report = json.loads(cli("sync", "status", "--format", "json", store.name).out)
    assert report["store"] == str(store.resolve())
    assert report["state_path"] == str(store.resolve() / ".engramory-state.json")
    assert report["index"]["path"] == str(store.resolve() / "MEMORY.md")


def test_status_help_documents_the_json_shape(cli) -> None:
    out = cli("sync", "status", "--help").out
    assert '"index": {"path": "/abs/store/MEMORY.md"' in out and "absolute" in out
