"""History in the hooks (issue 37): session start flags a mass deletion, PostToolUse keeps
a write the pre-write guard never saw, a compaction is preceded by a snapshot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from historykit import make_store, needs_git, picture, place
from hookkit import run_hook

from engramory.continuity import policy
from engramory.history import repo

pytestmark = needs_git


def session_start(store: Path, sid: str) -> str:
    reply = policy.handle(
        {"hook_event_name": "SessionStart", "session_id": sid, "source": "startup"},
        store,
        "claude",
        "explicit",
    )
    return reply.text


def test_23_notes_deleted_between_sessions_are_flagged_and_restored_byte_exact(
    cli, tmp_path: Path
) -> None:
    store = make_store(tmp_path / "store", 40)
    (store / "note-007.md").chmod(0o755)
    assert "went since" not in session_start(store, "one")
    then = picture(store)
    for i in range(23):  # a host's background consolidation
        (store / f"note-{i:03d}.md").unlink()
    text = session_start(store, "two")
    assert "23 notes of 40 went since the snapshot of" in text
    first, second = (s.id for s in reversed(repo.log(place(store))))
    assert f"engramory history diff {first[:12]} {second[:12]}" in text
    assert f"engramory restore {first[:12]} --apply" in text
    log = repo.log(place(store))
    assert [s.reason for s in log] == ["session start", "session start"]
    assert log[0].fields["session"] == "two" and log[0].fields["host"] == "claude"
    assert log[0].count("removed") == 23
    restored = cli("restore", "--store", str(store), first[:12], "--apply")
    assert restored.code == 0, restored.err
    now = picture(store)
    assert {k: (v[0], v[2]) for k, v in now.items() if not k.startswith(".engramory")} == {
        k: (v[0], v[2]) for k, v in then.items() if not k.startswith(".engramory")
    }
    assert "went since" not in session_start(store, "three")


def test_a_few_deletions_stay_under_the_alarm(tmp_path: Path, monkeypatch) -> None:
    store = make_store(tmp_path / "store", 40)
    session_start(store, "one")
    for i in range(5):
        (store / f"note-{i:03d}.md").unlink()
    assert "went since" not in session_start(store, "two")
    monkeypatch.setenv("ENGRAMORY_DELETE_ALARM", "2")
    (store / "note-010.md").unlink()
    (store / "note-011.md").unlink()
    (store / "note-012.md").unlink()
    assert "3 notes of 35 went since" in session_start(store, "three")


def test_a_compaction_is_preceded_by_a_snapshot(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 2)
    (store / "late.md").write_text("written during the session\n")
    policy.handle(
        {"hook_event_name": "PreCompact", "session_id": "s", "trigger": "auto"},
        store,
        "claude",
        "explicit",
    )
    newest = repo.log(place(store))[0]
    assert newest.reason == "before compaction"
    assert "late.md" in repo.tree(place(store), newest.id)


@pytest.mark.parametrize("pinned", [True, False])
def test_a_write_the_guard_never_saw_is_in_history_after_post_tool_use(
    tmp_path: Path, pinned: bool
) -> None:
    store = make_store(tmp_path / "project" / ".engramory-memory", 2)
    note = store / "deploy.md"
    note.write_text("Deploys go through CI.\n")  # the host wrote it; no pre-write hook ran
    payload = {
        "session_id": "s",
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(note), "content": note.read_text()},
        "tool_response": {"success": True},
        "cwd": str(store.parent),
    }
    args = ["--index", str(store / "MEMORY.md")] if pinned else []
    done = run_hook("claude", payload, "--event", "post", *args, cwd=store.parent)
    assert done.returncode == 0 and done.stderr == b""
    newest = repo.log(place(store))[0]
    assert newest.reason == "after a tool call"
    files = repo.tree(place(store), newest.id)
    assert repo.blobs(place(store), [files["deploy.md"][0]]).popitem()[1] == note.read_bytes()


def test_a_shell_deletion_is_in_history_after_post_tool_use(tmp_path: Path) -> None:
    store = make_store(tmp_path / "project" / ".engramory-memory", 3)
    session_start(store, "one")
    (store / "note-001.md").unlink()
    payload = {
        "session_id": "s",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm .engramory-memory/note-001.md"},
        "tool_response": {"success": True},
        "cwd": str(store.parent),
    }
    done = run_hook("claude", payload, "--event", "post", cwd=store.parent)
    assert done.returncode == 0
    newest = repo.log(place(store))[0]
    assert newest.reason == "after a tool call" and newest.count("removed") == 1


def vanished_findings(cli, store: Path) -> list[dict]:
    result = cli("doctor", str(store), "--format", "json")
    return [f for f in json.loads(result.out)["findings"] if f["rule"] == "notes-vanished"]


def test_doctor_reports_notes_vanished_until_they_are_back(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 12)
    session_start(store, "one")
    first = repo.head(place(store))
    for i in range(6):
        (store / f"note-{i:03d}.md").unlink()
    assert vanished_findings(cli, store)  # the last snapshot holds them
    session_start(store, "two")  # the loss is now in a snapshot of its own
    found = vanished_findings(cli, store)
    assert len(found) == 1 and f"engramory restore {first[:12]} --apply" in found[0]["message"]
    assert cli("restore", "--store", str(store), first[:12], "--apply").code == 0
    assert vanished_findings(cli, store) == []
