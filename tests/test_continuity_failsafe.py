"""The continuity commands fail safe (issue 10 item 17).

A state file nested 200,000 deep (under the 1 MiB read bound) is tampering:
``sync status`` and ``mark-synced`` refuse with the state error, no traceback.
``sync hook`` answers as its contract says whatever goes wrong -- no store, a
damaged state, a broken install: exit 0, a manual PreCompact held, any other
event let through with a warning in the host's format.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO, run_engramory
from engramory.commands import sync as sync_cli
from engramory.continuity import policy
from engramory.continuity import state as continuity

HOOK = REPO / "hooks" / "engramory_sync.py"
SCHEMAS = REPO / "tests" / "schemas"
DEEP = "[" * 200_000 + "]" * 200_000  # 400 KB: under the 1 MiB bound, past any recursion limit


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text())


CLAUDE_OUTPUT = schema("claude-code-hook-output.schema.json")
CODEX_PRECOMPACT = schema("codex/pre-compact.command.output.schema.json")


def event(name: str, **fields: object) -> dict:
    return {"hook_event_name": name, "session_id": "s1", **fields}


@pytest.fixture
def deep_store(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    store.mkdir()
    (store / "MEMORY.md").write_text("- [a](a.md)\n")
    continuity.state_path(store).write_text('{"schema_version": 1, "sessions": ' + DEEP + "}")
    assert continuity.state_path(store).stat().st_size < continuity.STATE_LIMIT
    return store


def hook(
    payload: object, host: str, *args: str, cwd: Path, script: Path = HOOK
) -> subprocess.CompletedProcess[str]:
    """The real hook script as the host runs it: isolated interpreter, no site-packages."""
    return subprocess.run(
        [sys.executable, "-I", "-S", str(script), "hook", "--host", host, *args],
        input=payload if isinstance(payload, str) else json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def held(stdout: str, host: str) -> bool:
    answer = json.loads(stdout)
    if host == "codex":
        jsonschema.validate(answer, CODEX_PRECOMPACT)
        return answer.get("continue") is False
    jsonschema.validate(answer, CLAUDE_OUTPUT)
    return answer.get("decision") == "block"


# --- a state file nested 200,000 deep -----------------------------------------------------------


def test_parse_state_calls_deep_nesting_tampering() -> None:
    with pytest.raises(continuity.StateError, match="tampered"):
        continuity.parse_state('{"schema_version": 1, "sessions": ' + DEEP + "}")


@pytest.mark.parametrize("action", ["status", "mark-synced"])
def test_status_and_mark_synced_refuse_a_deep_state_in_process(
    cli, deep_store: Path, action: str
) -> None:
    result = cli("sync", action, str(deep_store))
    assert result.code == 1 and result.out == ""
    assert "nested far deeper" in result.err and "tampered" in result.err
    assert continuity.state_path(deep_store).read_text().startswith('{"schema_version": 1')


@pytest.mark.parametrize("action", ["status", "mark-synced"])
def test_status_and_mark_synced_refuse_a_deep_state_as_processes(
    deep_store: Path, action: str
) -> None:
    for done in (
        run_engramory("sync", action, str(deep_store)),
        subprocess.run(
            [sys.executable, "-I", "-S", str(HOOK), action, str(deep_store)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        ),
    ):
        stderr = done.stderr if isinstance(done.stderr, str) else done.stderr.decode()
        assert done.returncode == 1, stderr
        assert "Traceback" not in stderr and "tampered" in stderr


@pytest.mark.parametrize("host", ["claude", "codex"])
def test_the_hook_holds_a_manual_compaction_over_a_deep_state(deep_store: Path, host: str) -> None:
    done = hook(event("PreCompact", trigger="manual"), host, "--", str(deep_store), cwd=deep_store)
    assert done.returncode == 0 and done.stderr == ""
    assert held(done.stdout, host)
    assert "tampered" in done.stdout


# --- sync hook without a store ---------------------------------------------------------------


@pytest.mark.parametrize("host", ["claude", "codex"])
def test_hook_without_a_store_holds_a_manual_compaction(tmp_path: Path, host: str) -> None:
    done = hook(event("PreCompact", trigger="manual"), host, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    assert held(done.stdout, host)
    answer = json.loads(done.stdout)
    text = answer.get("reason") or answer.get("stopReason")
    assert "Give the hook its memory store" in text and "ENGRAMORY_MEMORY_ROOT" in text


@pytest.mark.parametrize(
    "payload",
    [
        event("SessionStart", source="startup"),
        event("UserPromptSubmit", prompt="hi"),
        event("PreCompact", trigger="auto"),
        event("PreCompact"),  # unknown trigger: never held
    ],
)
@pytest.mark.parametrize("host", ["claude", "codex"])
def test_hook_without_a_store_warns_for_every_other_event(
    tmp_path: Path, host: str, payload: dict
) -> None:
    done = hook(payload, host, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    answer = json.loads(done.stdout)
    assert set(answer) == {"systemMessage"}
    assert "could not update its state" in answer["systemMessage"]
    if host == "claude":
        jsonschema.validate(answer, CLAUDE_OUTPUT)


def test_hook_without_a_store_in_process(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for payload, blocks in ((event("PreCompact", trigger="manual"), True), (event("X"), False)):
        monkeypatch.setattr(sync_cli, "_read_payload", lambda p=payload: p)
        result = cli("sync", "hook", "--host", "claude")
        assert result.code == 0 and result.err == ""
        answer = json.loads(result.out)
        assert (answer.get("decision") == "block") is blocks


def test_hook_with_a_bug_inside_still_holds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(*_args: object) -> object:
        raise ZeroDivisionError

    monkeypatch.setattr(sync_cli, "_read_payload", lambda: event("PreCompact", trigger="manual"))
    monkeypatch.setattr(policy, "handle", broken)
    reply = sync_cli.hook_reply(str(tmp_path), "claude", "explicit")
    assert reply.kind == policy.BLOCK and "internal error: ZeroDivisionError" in reply.text


# --- a broken install ---------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["claude", "codex"])
def test_hook_script_without_its_package_still_answers(tmp_path: Path, host: str) -> None:
    lone = tmp_path / "engramory_sync.py"
    shutil.copy(HOOK, lone)  # no package beside it, and -I -S hides any installed one
    manual = hook(
        event("PreCompact", trigger="manual"), host, "--", str(tmp_path), cwd=tmp_path, script=lone
    )
    assert manual.returncode == 0 and held(manual.stdout, host)
    other = hook(event("UserPromptSubmit", prompt="x"), host, cwd=tmp_path, script=lone)
    assert other.returncode == 0 and "systemMessage" in json.loads(other.stdout)
    garbage = hook("not json", host, cwd=tmp_path, script=lone)
    assert garbage.returncode == 0 and "systemMessage" in json.loads(garbage.stdout)
    equals_form = subprocess.run(
        [sys.executable, "-I", "-S", str(lone), "hook", f"--host={host}"],
        input=json.dumps(event("PreCompact", trigger="manual")),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert equals_form.returncode == 0 and held(equals_form.stdout, host)
