"""The continuity hooks of Gemini CLI, GitHub Copilot and Cursor, through the real
``hooks/engramory_sync.py hook`` process, with the payload shapes of each host's hooks
reference (research/host-hooks-2026-12.md): every reply kind in the host's own format, exit 0,
nothing on stderr; and the handlers init installs, run as the host runs them."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from engramory.continuity import state as continuity
from engramory.hosts import registry

HOOK = REPO / "hooks" / "engramory_sync.py"
SECRET_PROMPT = "remember the launch code ZEBRA-7781-PROMPT-MARKER"
HOSTS = ("gemini", "copilot", "cursor")


def payloads(host: str, sid: str) -> dict[str, dict]:
    """One payload per Claude Code event, in ``host``'s shape (as its docs give it)."""
    if host == "gemini":
        base = {"session_id": sid, "transcript_path": "/t.json", "cwd": "/p", "timestamp": "t"}
        return {
            "SessionStart": {**base, "hook_event_name": "SessionStart", "source": "startup"},
            "UserPromptSubmit": {**base, "hook_event_name": "BeforeAgent", "prompt": SECRET_PROMPT},
            "PreCompact": {**base, "hook_event_name": "PreCompress", "trigger": "manual"},
        }
    if host == "copilot":  # camelCase events, as init installs them: no event name in the payload
        base = {"sessionId": sid, "timestamp": 1767225600000, "cwd": "/p"}
        return {
            "SessionStart": {**base, "source": "new", "initialPrompt": "hi"},
            "UserPromptSubmit": {**base, "prompt": SECRET_PROMPT},
            "PreCompact": {
                **base,
                "transcriptPath": "/t",
                "trigger": "manual",
                "customInstructions": "",
            },
        }
    base = {
        "conversation_id": sid,
        "generation_id": "g",
        "model": "m",
        "cursor_version": "2.0",
        "workspace_roots": ["/p"],
        "user_email": None,
        "transcript_path": None,
    }
    return {
        "SessionStart": {**base, "hook_event_name": "sessionStart", "session_id": sid},
        "UserPromptSubmit": {**base, "hook_event_name": "beforeSubmitPrompt", "prompt": "x"},
        "PreCompact": {**base, "hook_event_name": "preCompact", "trigger": "manual"},
    }


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    path.mkdir()
    (path / "MEMORY.md").write_text("# Memory index\n\n- [Secret title](secret-title.md)\n")
    return path


def run(store: Path, host: str, payload: object, event: str | None = None) -> str:
    """The hook's stdout for one payload (``--event`` as init registers it); exit 0, quiet."""
    where = ["--event", event] if event else []
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK), "hook", "--host", host, *where, "--", str(store)],
        input=payload if isinstance(payload, str) else json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc
    return proc.stdout


def objects(stdout: str) -> list[dict]:
    """The JSON objects printed, one a line."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def context_of(host: str, stdout: str) -> str:
    """The agent's context in a reply that carries one, checking its exact shape."""
    (output,) = objects(stdout)
    if host == "gemini":
        assert list(output) == ["hookSpecificOutput"]
        assert output["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert list(output["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
        return output["hookSpecificOutput"]["additionalContext"]
    key = "additionalContext" if host == "copilot" else "additional_context"
    assert list(output) == [key]
    return output[key]


def shown(host: str, stdout: str) -> str:
    """What a warning or a reminder shows the user, checking the host's exact shape."""
    found = objects(stdout)
    if host == "gemini":
        assert [list(o) for o in found] == [["systemMessage"]]  # never decision/continue
        return found[0]["systemMessage"]
    if host == "cursor":
        assert [list(o) for o in found] == [["user_message"]]  # never continue: false
        return found[0]["user_message"]
    progress, context = found  # a progress line the CLI prints, then the same as context
    assert progress["type"] == "progress" and list(progress) == ["type", "message"]
    assert context == {"additionalContext": progress["message"]}
    return progress["message"]


def session(store: Path, sid: str) -> continuity.Session:
    return continuity.load(store).sessions[sid]


# A camelCase Copilot payload does not name its event: only with --event (as init registers it).
@pytest.mark.parametrize(
    ("host", "with_event"), [(h, e) for h in HOSTS for e in (True, False) if e or h != "copilot"]
)
def test_a_session_start_gives_context_in_the_hosts_format(
    store: Path, host: str, with_event: bool
) -> None:
    stdout = run(store, host, payloads(host, "s1")["SessionStart"], "SessionStart" * with_event)
    text = context_of(host, stdout)
    assert f"Memory index: {store.resolve() / 'MEMORY.md'}" in text
    assert "mark-synced" in text and "Secret title" not in text
    assert session(store, "s1").host == host


@pytest.mark.parametrize("host", HOSTS)
def test_a_prompt_is_bookkeeping_only_and_never_stored(store: Path, host: str) -> None:
    events = payloads(host, "s1")
    run(store, host, events["SessionStart"], "SessionStart")
    assert run(store, host, events["UserPromptSubmit"], "UserPromptSubmit") == ""
    assert session(store, "s1").unsynced
    assert SECRET_PROMPT not in continuity.state_path(store).read_text()


@pytest.mark.parametrize("host", HOSTS)
def test_a_dirty_manual_compaction_is_a_reminder_not_a_hold(store: Path, host: str) -> None:
    events = payloads(host, "s1")
    run(store, host, events["SessionStart"], "SessionStart")
    run(store, host, events["UserPromptSubmit"], "UserPromptSubmit")
    text = shown(host, run(store, host, events["PreCompact"], "PreCompact"))
    label = registry.HOSTS[host].label
    assert text.startswith(f"Engramory reminder: {label} only observes a compaction")
    assert "cannot hold it back" in text and "mark-synced" in text


@pytest.mark.parametrize("host", HOSTS)
def test_a_dirty_automatic_compaction_warns_and_asks_for_reconciliation(
    store: Path, host: str
) -> None:
    events = payloads(host, "s1")
    run(store, host, events["UserPromptSubmit"], "UserPromptSubmit")
    auto = {**events["PreCompact"], "trigger": "auto"}
    text = shown(host, run(store, host, auto, "PreCompact"))
    assert text.startswith("Engramory: an automatic compaction")
    assert session(store, "s1").needs_reconcile


@pytest.mark.parametrize("host", HOSTS)
def test_a_clean_compaction_is_quiet(store: Path, host: str) -> None:
    events = payloads(host, "s1")
    run(store, host, events["SessionStart"], "SessionStart")
    assert run(store, host, events["PreCompact"], "PreCompact") == ""


@pytest.mark.parametrize("host", HOSTS)
def test_a_payload_without_a_session_warns_and_fails_open(store: Path, host: str) -> None:
    prompt = {"prompt": "x", "hook_event_name": "ignored"}
    assert "session id is missing" in shown(host, run(store, host, prompt, "UserPromptSubmit"))
    start = run(store, host, {"cwd": "/p"}, "SessionStart")
    if host == "cursor":  # a warning at session start goes where the context would
        assert "session id" in context_of(host, start)
    else:
        assert "session id" in shown(host, start)


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]"])
def test_malformed_input_fails_open_with_a_warning(store: Path, host: str, stdin: str) -> None:
    assert shown(host, run(store, host, stdin, "UserPromptSubmit")).startswith("Engramory")
    assert not continuity.state_path(store).exists()


@pytest.mark.parametrize("host", HOSTS)
def test_an_unreadable_manual_compaction_is_still_only_a_reminder(
    tmp_path: Path, host: str
) -> None:
    missing = tmp_path / "gone"
    text = shown(host, run(missing, host, payloads(host, "s1")["PreCompact"], "PreCompact"))
    assert text.startswith(f"Engramory reminder: {registry.HOSTS[host].label} only observes")


def test_copilots_vs_code_compatible_payload_is_read_too(store: Path) -> None:
    start = {"hook_event_name": "SessionStart", "session_id": "v1", "cwd": "/p", "source": "new"}
    assert "Memory index:" in context_of("copilot", run(store, "copilot", start))
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "v1", "prompt": "x"}
    assert run(store, "copilot", prompt) == ""
    assert session(store, "v1").unsynced


def test_cursor_keeps_one_session_across_its_events(store: Path) -> None:
    events = payloads("cursor", "conv-1")
    events["SessionStart"]["session_id"] = "other-id"  # the conversation id wins
    for name in ("SessionStart", "UserPromptSubmit"):
        run(store, "cursor", events[name], name)
    assert list(continuity.load(store).sessions) == ["conv-1"]


# --- the handlers init installs, run as the host runs them ----------------------------------


def installed_lines(project: Path, host: str) -> dict[str, str]:
    """The command line of each continuity handler init wrote, by the host's event name."""
    path = project / registry.HOSTS[host].hook_config
    hooks = json.loads(path.read_text())["hooks"]
    lines = {}
    for event in registry.HOSTS[host].lifecycle_hooks:
        (entry,) = hooks[event]
        handler = entry["hooks"][0] if host == "gemini" else entry
        lines[event] = handler["command"] if "command" in handler else handler["bash"]
    return lines


@pytest.mark.parametrize("host", HOSTS)
def test_the_installed_handlers_answer_the_hosts_payloads(cli, project: Path, host: str) -> None:
    assert cli("init", host, "--install-hooks").code == 0
    store = project / ".engramory-memory"
    lines = installed_lines(project, host)
    assert list(lines) == list(registry.HOSTS[host].lifecycle_hooks)
    events = payloads(host, "s9")
    for own, claude in zip(lines, ("SessionStart", "UserPromptSubmit", "PreCompact")):
        argv = shlex.split(lines[own].removesuffix(" || true"))
        assert argv[4:10] == ["hook", "--host", host, "--event", claude, "--mode"]
        assert argv[-2:] == ["--", str(store)]
        done = subprocess.run(
            ["/bin/sh", "-c", lines[own]],
            input=json.dumps(events[claude]),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0 and done.stderr == ""
        if claude == "SessionStart":
            assert "Memory index:" in context_of(host, done.stdout)
        elif claude == "PreCompact":
            assert "only observes a compaction" in shown(host, done.stdout)
    assert session(store, "s9").unsynced


@pytest.mark.parametrize("host", ["gemini", "copilot"])
def test_a_missing_interpreter_cannot_block_a_prompt(host: str) -> None:
    groups = registry.HOSTS[host].hook_groups("/no/such/python", "/g.py", "/s.py", "/st", "x")
    for event in registry.HOSTS[host].lifecycle_hooks:
        group = groups[event]
        handler = group["hooks"][0] if isinstance(group, dict) else group[0]
        line = handler.get("command") or handler["bash"]
        assert line.endswith(" || true")
        done = subprocess.run(["/bin/sh", "-c", line], capture_output=True, timeout=30, check=False)
        assert done.returncode == 0  # 127 would block Gemini's prompt (exit >= 2)


def test_cursors_lines_fail_open_without_help() -> None:
    """Cursor stops a prompt only on exit 2: a missing interpreter (127) lets it through."""
    groups = registry.HOSTS["cursor"].hook_groups("/no/such/python", "/g.py", "/s.py", "/st", "x")
    for event in registry.HOSTS["cursor"].lifecycle_hooks:
        (handler,) = groups[event]
        assert set(handler) == {"command"}
        done = subprocess.run(
            ["/bin/sh", "-c", handler["command"]], capture_output=True, timeout=30, check=False
        )
        assert done.returncode not in (0, 2)  # the shell's 127


@pytest.mark.parametrize("host", HOSTS)
def test_an_install_from_before_the_continuity_hooks_upgrades_and_uninstalls_cleanly(
    cli, project: Path, host: str
) -> None:
    spec = registry.HOSTS[host]
    path = project / spec.hook_config
    assert cli("init", host, "--install-hooks").code == 0
    current = path.read_bytes()
    config = json.loads(current)
    for event in spec.lifecycle_hooks:  # what the guard-only version wrote
        del config["hooks"][event]
    path.write_text(json.dumps(config, indent=2) + "\n")
    again = cli("init", host, "--install-hooks")
    assert again.code == 0 and "continuity hooks" in again.out
    upgraded = json.loads(path.read_text())
    assert set(spec.lifecycle_hooks) <= set(upgraded["hooks"])
    assert upgraded == json.loads(current)
    assert cli("uninstall", host).code == 0
    assert not path.exists()  # init created it: uninstall takes all of ours, and it
