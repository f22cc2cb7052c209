"""The guard refuses a secret written into the memory store (issue 14), run as a host runs it.

Every credential below is assembled at run time from pieces, so the repository itself
never holds one a secret scanner would flag.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookkit import HEAVY, answer, hot_path, imported, run_hook
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.guard import service

AWS = "AKIA" + "QWERTYUIOPASDFGH"[::-1]  # AKIA + 16 of [A-Z2-7]
OTHER_AWS = "AKIA" + "ZXCVBNMLKJHGFDSA"
NOTE = "---\nname: deploy\ndescription: how we deploy\ntype: reference\n---\n\nDeploy with make.\n"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    folder = tmp_path / ".engramory-memory"
    (folder / "archive").mkdir(parents=True)
    (folder / "MEMORY.md").write_text("# Memory index\n\n- [deploy](deploy.md) — how we deploy\n")
    (folder / "deploy.md").write_text(NOTE)
    return folder


def verdict(payload: dict, *args: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    """``(deny|nudge|silent, the reason or context)`` of Claude's hook for one payload."""
    output = answer(run_hook("claude", payload, *args, env=env))
    if output is None:
        return "silent", ""
    inner = output["hookSpecificOutput"]
    if inner.get("permissionDecision") == "deny":
        return "deny", inner["permissionDecisionReason"]
    return "nudge", inner.get("additionalContext", "")


def write(path: Path, content: str) -> dict:
    return {"tool_name": "Write", "tool_input": {"file_path": str(path), "content": content}}


def edit(path: Path, old: str, new: str) -> dict:
    return {
        "tool_name": "Edit",
        "tool_input": {"file_path": str(path), "old_string": old, "new_string": new},
    }


def test_a_fresh_key_written_into_a_note_is_denied_without_echoing_it(store: Path) -> None:
    kind, reason = verdict(write(store / "deploy.md", NOTE + f"\naws key: {AWS}\n"))
    assert kind == "deny"
    assert "AWS access key id" in reason and "line 9" in reason
    assert AWS not in reason and AWS[4:] not in reason


def test_the_same_write_without_the_key_passes(store: Path) -> None:
    assert verdict(write(store / "deploy.md", NOTE + "\nThe key is in the vault under ci.\n"))[
        0
    ] == ("silent")


def test_removing_a_key_and_editing_elsewhere_pass(store: Path) -> None:
    (store / "deploy.md").write_text(NOTE + f"\naws key: {AWS}\n")
    assert verdict(edit(store / "deploy.md", f"aws key: {AWS}\n", ""))[0] == "silent"
    assert (
        verdict(edit(store / "deploy.md", "Deploy with make.", "Deploy with tox."))[0] == "silent"
    )


def test_replacing_one_key_with_another_is_denied(store: Path) -> None:
    (store / "deploy.md").write_text(NOTE + f"\naws key: {AWS}\n")
    assert verdict(edit(store / "deploy.md", AWS, OTHER_AWS))[0] == "deny"


@pytest.mark.parametrize("where", ["MEMORY.md", "archive/old.md", "new-note.md"])
def test_every_markdown_file_of_the_store_is_guarded(store: Path, where: str) -> None:
    target = store / where
    content = (target.read_text() if target.exists() else "") + f"\ntoken: {AWS}\n"
    assert verdict(write(target, content))[0] == "deny"


def test_a_markdown_file_outside_any_store_is_not_the_guards_business(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    payload = write(docs / "setup.md", f"aws key: {AWS}\n")
    assert verdict(payload)[0] == "silent"
    assert verdict(write(tmp_path / "app.py", f"KEY = '{AWS}'\n"))[0] == "silent"


@pytest.mark.parametrize(
    "content",
    [
        f"aws key: {AWS} <!-- engramory: allow secret-value -->\n",
        f"<!-- engramory: allow secret-value -->\naws key: {AWS}\n",
        f"<!-- engramory: allow orphan, secret-value -->\naws key: {AWS}\n",
    ],
)
def test_the_allow_comment_lets_a_value_through(store: Path, content: str) -> None:
    assert verdict(write(store / "deploy.md", NOTE + content))[0] == "silent"


def test_an_allow_comment_for_another_rule_does_not(store: Path) -> None:
    content = NOTE + f"<!-- engramory: allow orphan -->\naws key: {AWS}\n"
    assert verdict(write(store / "deploy.md", content))[0] == "deny"


def test_a_pinned_index_limits_the_guard_to_its_own_store(store: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-store"
    other.mkdir()
    (other / "MEMORY.md").write_text("# other\n")
    env = {"ENGRAMORY_INDEX_PATH": str(store / "MEMORY.md")}
    assert verdict(write(other / "n.md", f"key: {AWS}\n"), env=env)[0] == "silent"
    assert verdict(write(store / "n.md", f"key: {AWS}\n"), env=env)[0] == "deny"


def test_the_registered_index_names_its_store_under_any_folder_name(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "INDEX.md").write_text("# index\n")
    args = ("--index", str(folder / "INDEX.md"))
    assert verdict(write(folder / "n.md", f"key: {AWS}\n"), *args)[0] == "deny"


def test_store_note_detection_needs_no_read() -> None:
    assert not service.is_store_note("app.py", "/nonexistent", {}, None)
    assert not service.is_store_note("notes.md", "/nonexistent", {}, None)


def test_a_non_markdown_write_stays_on_the_hot_path(store: Path) -> None:
    payload = write(store.parent / "app.py", "print(1)\n")
    names = imported("claude", payload)
    assert {n for n in names if n.startswith("engramory")} <= hot_path("claude")
    assert not names & HEAVY


def test_a_note_write_without_a_secret_imports_no_doctor(store: Path) -> None:
    names = imported("claude", write(store / "deploy.md", NOTE + "More.\n"))
    assert not any(name.startswith("engramory.doctor") for name in names)


def test_payload_with_an_allow_comment_is_json_safe(store: Path) -> None:
    raw = json.dumps(write(store / "deploy.md", NOTE + "<!-- x -->\n")).encode()
    assert answer(run_hook("claude", None, raw=raw)) is None


def codex_patch(store: Path, body: str) -> dict:
    patch = "*** Begin Patch\n" + body + "*** End Patch\n"
    return {
        "hook_event_name": "PreToolUse",
        "cwd": str(store),
        "tool_name": "apply_patch",
        "tool_input": {"command": patch},
    }


def codex_verdict(payload: dict) -> str:
    output = answer(run_hook("codex", payload))
    if output is None:
        return "silent"
    return output["hookSpecificOutput"].get("permissionDecision") or "nudge"


def test_a_codex_patch_adding_a_key_to_a_store_note_is_denied(store: Path) -> None:
    added = codex_patch(store, f"*** Add File: keys.md\n+aws key: {AWS}\n")
    assert codex_verdict(added) == "deny"
    updated = codex_patch(
        store, f"*** Update File: deploy.md\n@@\n Deploy with make.\n+aws key: {AWS}\n"
    )
    assert codex_verdict(updated) == "deny"
    plain = codex_patch(store, "*** Update File: deploy.md\n@@\n Deploy with make.\n+More.\n")
    assert codex_verdict(plain) == "silent"


def test_a_codex_patch_that_keeps_or_removes_a_key_passes(store: Path) -> None:
    (store / "deploy.md").write_text(NOTE + f"aws key: {AWS}\n")
    removed = codex_patch(store, f"*** Update File: deploy.md\n@@\n-aws key: {AWS}\n")
    assert codex_verdict(removed) == "silent"
    context = codex_patch(
        store, f"*** Update File: deploy.md\n@@\n aws key: {AWS}\n+See also ci.md.\n"
    )
    assert codex_verdict(context) == "silent"


# --- the pre-check that spares the detector's import --------------------------------------


def _samples() -> list[str]:
    """One text per kind the detector knows, assembled from pieces."""
    alnum = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zAbCdEfGh"
    return [
        "AKIA" + "QWERTYUIOPASDFGH",
        "AIza" + (alnum * 2)[:35],
        "glpat-" + alnum[:20],
        "xoxb-" + "1234567890-" + alnum[:20],
        "sk-" + "proj-" + alnum * 2,
        "sk-" + "ant-" + alnum * 2,
        "pypi-" + "AgEIcHlwaS5vcmc" + alnum,
        "-----BEGIN RSA " + "PRIVATE KEY-----\n" + "MIIE" + alnum * 2 + "\n",
        "gh" + "p_" + (alnum * 2)[:36],
        "github_" + "pat_" + (alnum * 3)[:82],
        "sk_" + "live_" + alnum,
        "npm_" + (alnum * 2)[:36],
        "https://hooks.slack.com/services/" + "T0123ABCD/B0123ABCD/" + alnum[:24],
        "eyJ" + "hbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiIxIn0" + "." + alnum[:30],
        "password: " + "Zx8#qL2!vR9@mT4$",
        "API_KEY=" + "Zx8qL2vR9mT4wP7n",
        "Client_Secret = " + "Zx8qL2vR9mT4wP7n",
        '{"token": "' + "Zx8qL2vR9mT4wP7n" + '"}',
        "PASSWD\t=\t'" + "Zx8#qL2!vR9@mT4$" + "'",
    ]


def test_a_keyword_in_prose_does_not_load_the_detector(store: Path) -> None:
    prose = NOTE + "The deploy token is in the vault under ci; the password manager has it.\n"
    names = imported("claude", write(store / "deploy.md", prose))
    assert "engramory.secrets.scan" not in names and "re" not in names


def test_every_detector_example_passes_the_pre_check() -> None:
    from engramory import secrets
    from engramory.guard.secretcheck import may_hold_secret
    from engramory.secrets.detectors import DETECTORS, example

    found_detectors = set()
    for sample in _samples() + [example(e) for d in DETECTORS for e in d.fires]:
        text = f"note text\n{sample}\nmore"
        found = secrets.find(text)
        found_detectors.update(secret.detector for secret in found)
        assert found and may_hold_secret(text), sample
    assert found_detectors == {d.id for d in DETECTORS}


def _every_sample() -> list[str]:
    from engramory.secrets.detectors import DETECTORS, example

    return _samples() + [example(e) for d in DETECTORS for e in d.fires + d.quiet]


@settings(max_examples=600, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=200),
    st.sampled_from(_every_sample()),
)
def test_the_pre_check_never_hides_a_secret(noise: str, sample: str) -> None:
    from engramory import secrets
    from engramory.guard.secretcheck import may_hold_secret

    for text in (noise, noise + sample, sample + noise, noise[:50] + sample + noise[50:]):
        if secrets.find(text):
            assert may_hold_secret(text)


def test_a_codex_patch_of_a_note_without_a_secret_loads_no_detector(store: Path) -> None:
    (store / "deploy.md").write_text(NOTE, encoding="utf-8")
    body = "*** Update File: deploy.md\n@@\n" + "".join(
        f" {line}\n" for line in NOTE.splitlines()[-1:]
    )
    payload = codex_patch(store, body + "+The deploy steps are in docs/deploy.md.\n")
    names = imported("codex", payload)
    assert "engramory.secrets.scan" not in names and "re" not in names


# --- issue 33: the assignment forms, the patch rename, the stalling block ------------------


@pytest.mark.parametrize(
    "line",
    [
        f"AWS_ACCESS_KEY_ID={AWS}",
        f"export AWS_ACCESS_KEY_ID={AWS}",
        f"aws_key={AWS}",
        "dbPassword: " + "Hx9#kQ2" + "!mZ",
    ],
)
def test_an_assignment_written_into_a_note_is_denied(store: Path, line: str) -> None:
    kind, reason = verdict(write(store / "deploy.md", NOTE + f"\n{line}\n"))
    assert kind == "deny"
    value = line.split("=", 1)[-1].split(": ", 1)[-1]
    assert value not in reason and value[4:] not in reason


def test_an_existing_value_relabelled_as_a_password_is_denied_by_a_patch(store: Path) -> None:
    """Edit and apply_patch agree: the value was in the note, but not as a secret."""
    value = "Hx9#kQ2" + "!mZ7pL"
    (store / "deploy.md").write_text(NOTE + f"ticket ref {value}\n", encoding="utf-8")
    body = f"*** Update File: deploy.md\n@@\n-ticket ref {value}\n+password: {value}\n"
    output = answer(run_hook("codex", codex_patch(store, body)))
    assert output is not None
    assert output["hookSpecificOutput"].get("permissionDecision") == "deny"
    kind, _ = verdict(edit(store / "deploy.md", f"ticket ref {value}", f"password: {value}"))
    assert kind == "deny"


def test_the_stalling_block_is_answered_within_two_seconds(store: Path) -> None:
    """A private-key header then ``A:`` pieces once took 24 s in the hook (past the host's
    10 s timeout, so the write went through); the over-cap index write is denied at once."""
    import time

    block = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + "A:" * 240 + "\n"
    index = "".join(f"- [n{n}](n{n}.md) — note {n}\n" for n in range(260)) + block
    best = min(
        _timed(lambda: verdict(write(store / "MEMORY.md", index)), time.perf_counter)
        for _ in range(3)
    )
    assert verdict(write(store / "MEMORY.md", index))[0] == "deny"
    assert best < 2.0


def _timed(call, clock) -> float:
    started = clock()
    call()
    return clock() - started


# -- secrets in text a shell command writes (issue 34) ------------------------------------

PASSWORD_LINE = "password: " + "Zx8#qL2!vR9@mT4$"


def bash(command: str, cwd: Path) -> dict:
    return {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(cwd)}


SHELL_SECRET_WRITES = {
    "echo": f"echo 'aws key: {AWS}' >> deploy.md",
    "echo -e": f"echo -e 'more\\naws key: {AWS}' >> deploy.md",
    "printf": f"printf 'aws key: %s\\n' {AWS} >> deploy.md",
    "here-document": f"cat >> deploy.md <<'EOF'\nA line.\n{PASSWORD_LINE}\nEOF",
    "unquoted here-document": f"cat > deploy.md <<EOF\n{NOTE}aws key: {AWS}\nEOF",
    "here-string": f"cat <<< 'aws key: {AWS}' >> deploy.md",
    "tee": f"echo '{PASSWORD_LINE}' | tee -a deploy.md",
    "tee, here-string": f"tee -a deploy.md <<< 'aws key: {AWS}' > /dev/null",
    "after cd": f"cd archive && echo 'aws key: {AWS}' >> old.md",
    "new note": f"echo '{PASSWORD_LINE}' > fresh.md",
    "archived note": f"echo 'aws key: {AWS}' >> archive/old.md",
    "the index": f"echo '- [k](k.md) aws key: {AWS}' >> MEMORY.md",
}


@pytest.mark.parametrize("command", SHELL_SECRET_WRITES.values(), ids=SHELL_SECRET_WRITES.keys())
def test_a_secret_written_by_a_shell_command_into_the_store_is_denied(
    store: Path, command: str
) -> None:
    kind, reason = verdict(bash(command, store))
    assert kind == "deny"
    assert "would put a secret" in reason and "written by the shell command" in reason
    assert AWS not in reason and "Zx8#qL2!vR9@mT4$" not in reason


@pytest.mark.parametrize("host", ["codex", "gemini", "copilot", "cursor"])
def test_the_shell_secret_check_runs_on_other_hosts(store: Path, host: str) -> None:
    command = f"echo 'aws key: {AWS}' >> {store / 'deploy.md'}"
    payloads = {
        "codex": {"hook_event_name": "PreToolUse", "cwd": str(store), "tool_name": "Bash",
                  "tool_input": {"command": command}},
        "gemini": {"hook_event_name": "BeforeTool", "cwd": str(store), "tool_name": "run_shell_command",
                   "tool_input": {"command": command}},
        "copilot": {"toolName": "bash", "cwd": str(store), "toolArgs": json.dumps({"command": command})},
        "cursor": {"hook_event_name": "beforeShellExecution", "cwd": str(store), "command": command},
    }  # fmt: skip
    output = run_hook(host, payloads[host])
    assert b"would put a secret" in output.stdout + output.stderr


@pytest.mark.parametrize(
    "command",
    [
        "echo 'Deploy with make; the token is in the vault under ci.' >> deploy.md",
        f"echo 'aws key: {AWS}' >> /tmp/not-a-store-note.md",
        f"echo 'aws key: {AWS}' > notes.txt",
        f"echo 'aws key: {AWS}'",
        "cat deploy.md | grep -i password",
        f"echo 'aws key: {AWS}' | grep -c key",
    ],
    ids=["prose", "outside the store", "not markdown", "stdout", "read", "piped elsewhere"],
)
def test_shell_text_without_a_new_secret_in_a_store_note_passes(store: Path, command: str) -> None:
    assert verdict(bash(command, store)) == ("silent", "")


def test_a_secret_the_note_already_holds_is_not_new(store: Path) -> None:
    (store / "deploy.md").write_text(NOTE + f"\naws key: {AWS}\n")
    assert verdict(bash(f"echo 'again: {AWS}' >> deploy.md", store)) == ("silent", "")
    assert verdict(bash(f"echo 'other: {OTHER_AWS}' >> deploy.md", store))[0] == "deny"


def test_the_allow_comment_lets_shell_text_through(store: Path) -> None:
    allowed = f"echo 'aws key: {AWS} <!-- engramory: allow secret-value -->' >> deploy.md"
    assert verdict(bash(allowed, store)) == ("silent", "")


def test_shell_text_in_prose_does_not_load_the_detector(store: Path) -> None:
    command = "echo 'The deploy token is in the vault; the password manager has it.' >> deploy.md"
    names = imported("claude", bash(command, store))
    assert "engramory.secrets.scan" not in names and "re" not in names


def test_a_shell_write_outside_any_store_does_not_load_the_detector(tmp_path: Path) -> None:
    names = imported("claude", bash(f"echo 'aws key: {AWS}' >> notes.md", tmp_path))
    assert "engramory.secrets.scan" not in names
