"""The guard hook as Claude Code runs it: a real process, JSON on stdin, `python -I -S`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hookkit import run_hook

from conftest import REPO

HOOK = REPO / "hooks" / "engramory_index_guard.py"
FALLBACK = REPO / "hooks" / "engramory_guard_fallback.py"
SCHEMAS = REPO / "tests" / "schemas"
OUTPUT_SCHEMA = json.loads((SCHEMAS / "claude-code-hook-output.schema.json").read_text())
HOT_PATH_MODULES = {
    "engramory",
    "engramory.dialects",
    "engramory.dialects.claude",
    "engramory.dialects.rawjson",
    "engramory.dialects.fields",
    "engramory.guard",
    "engramory.guard.toolcall",
}


def hook(
    payload: object, *args: str, env: dict[str, str] | None = None, raw: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The hook as Claude Code runs it (``--host claude``), with ``payload`` as JSON on stdin."""
    return run_hook("claude", payload, *args, raw=raw, env=env)


def answer(proc: subprocess.CompletedProcess[bytes]) -> dict | None:
    assert proc.returncode == 0
    assert proc.stderr == b""
    if not proc.stdout.strip():
        return None
    output = json.loads(proc.stdout)
    jsonschema.validate(output, OUTPUT_SCHEMA)
    return output


def test_deny_a_growing_write(tmp_path: Path) -> None:
    payload = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(tmp_path / "MEMORY.md"), "content": "x\n" * 250},
    }
    output = answer(hook(payload))
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_nudge_and_silence(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    soft = {"tool_name": "Write", "tool_input": {"file_path": str(index), "content": "x\n" * 160}}
    assert "additionalContext" in answer(hook(soft))["hookSpecificOutput"]
    small = {"tool_name": "Write", "tool_input": {"file_path": str(index), "content": "x\n"}}
    assert answer(hook(small)) is None


def test_other_files_get_no_output(tmp_path: Path) -> None:
    payload = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(tmp_path / "a.py"), "content": "x\n" * 900},
    }
    assert answer(hook(payload)) is None


def test_shell_write_is_denied_and_read_passes() -> None:
    deny = {"tool_name": "Bash", "tool_input": {"command": "echo x >> ~/mem/MEMORY.md"}}
    output = answer(hook(deny))
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "file-edit tool (Edit/Write" in output["hookSpecificOutput"]["permissionDecisionReason"]
    read = {"tool_name": "Bash", "tool_input": {"command": "wc -l MEMORY.md > /tmp/n"}}
    assert answer(hook(read)) is None


def test_never_allow_never_ask(tmp_path: Path) -> None:
    for content in ("", "x\n" * 100, "x\n" * 180, "x\n" * 300):
        payload = {
            "tool_name": "Write",
            "tool_input": {"file_path": str(tmp_path / "MEMORY.md"), "content": content},
        }
        output = answer(hook(payload))
        if output is not None:
            assert output["hookSpecificOutput"].get("permissionDecision") in (None, "deny")


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"{",
        b"[]",
        b"\xff\xfe\xfd MEMORY.md",
        b'{"tool_name": "Edit", "tool_input": null, "x": "MEMORY.md"}',
        b'{"tool_input": {"file_path": "MEMORY.md"}}',
    ],
)
def test_malformed_input_is_silent_exit_zero(raw: bytes) -> None:
    proc = hook(None, raw=raw)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""


def test_non_utf8_console_and_non_ascii_payload(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    payload = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(index), "content": "记忆——\n" * 300},
    }
    proc = hook(payload, env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C"})
    output = answer(proc)
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"


BASH_AFTER = {"tool_name": "Bash", "tool_input": {"command": "sh tools/merge.sh"}}


def test_post_event_feedback(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("x\n" * 240)
    output = answer(hook(BASH_AFTER, "--event", "post", "--index", str(index)))
    assert output["decision"] == "block"
    index.write_text("x\n" * 20)
    assert answer(hook(BASH_AFTER, "--event", "post", "--index", str(index))) is None


def test_unrelated_payload_imports_only_the_hot_path(tmp_path: Path) -> None:
    payload = {
        "tool_name": "Write",
        "tool_input": {"file_path": "/x/app.py", "content": "print(1)"},
    }
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(HOOK)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout == b""
    names = {m.group(1).decode() for m in re.finditer(rb"\|\s+([\w.]+)\n", proc.stderr)}
    assert "engramory.dialects" in names  # the parse of -X importtime's report works
    ours = {name for name in names if name.startswith("engramory")}
    assert ours == HOT_PATH_MODULES
    heavy = {"json", "re", "argparse", "shlex", "pathlib", "dataclasses", "typing"}
    assert not names & (heavy | {"os", "__future__"})


def test_index_payload_still_avoids_heavy_modules(tmp_path: Path) -> None:
    payload = {
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(tmp_path / "MEMORY.md"),
            "old_string": "a",
            "new_string": "b",
        },
    }
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(HOOK)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    names = {m.group(1).decode() for m in re.finditer(rb"\|\s+([\w.]+)\n", proc.stderr)}
    assert "engramory.util.fastjson" in names
    assert not names & {"json", "re", "argparse", "pathlib", "dataclasses", "typing", "tempfile"}


def test_settings_snippet_validates_against_the_published_schema() -> None:
    schema = json.loads((SCHEMAS / "claude-code-settings.schema.json").read_text())
    snippet = json.loads((REPO / "hooks" / "settings.snippet.json").read_text())
    jsonschema.validate(snippet, schema)
    pre = snippet["hooks"]["PreToolUse"][0]
    assert pre["matcher"] == "Write|Edit|MultiEdit|Bash"
    handler = pre["hooks"][0]
    assert handler["args"][:2] == ["-I", "-S"] and handler["args"][2].endswith(
        "engramory_index_guard.py"
    )
    post = snippet["hooks"]["PostToolUse"][0]["hooks"][0]
    assert post["args"][3:6] == ["--event", "post", "--index"]


def test_engramory_guard_command_matches_the_hook(tmp_path: Path) -> None:
    from conftest import run_engramory

    payload = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(tmp_path / "MEMORY.md"), "content": "x\n" * 250},
    }
    via_cli = run_engramory("guard", "--host", "claude", stdin=json.dumps(payload).encode())
    via_hook = hook(payload)
    assert via_cli.returncode == 0
    assert json.loads(via_cli.stdout) == json.loads(via_hook.stdout)
    post = run_engramory("guard", "--event", "post", stdin=b"{}")
    assert post.returncode == 0 and post.stdout == b""
    bad = run_engramory("guard", "--event", "sideways")
    assert bad.returncode == 64


def test_broken_install_says_so_when_the_index_is_involved(tmp_path: Path) -> None:
    lonely = tmp_path / "hooks"
    lonely.mkdir()
    script = lonely / "engramory_index_guard.py"
    script.write_bytes(HOOK.read_bytes())
    (lonely / FALLBACK.name).write_bytes(FALLBACK.read_bytes())
    index_payload = json.dumps(
        {"tool_name": "Write", "tool_input": {"file_path": "/m/MEMORY.md", "content": "x"}}
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(script)],
        input=index_payload.encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    output = answer(proc)
    assert "could not load its package" in output["hookSpecificOutput"]["additionalContext"]
    other = json.dumps(
        {"tool_name": "Write", "tool_input": {"file_path": "/m/a.py", "content": "x"}}
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(script)],
        input=other.encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout == b""


@pytest.mark.parametrize(
    ("host", "payload", "where"),
    [
        ("codex", {"tool_name": "Bash", "tool_input": {"command": "echo x >> MEMORY.md"}}, "hook"),
        ("gemini", {"tool_name": "write_file", "tool_input": {"file_path": "MEMORY.md"}}, "system"),
        ("copilot", {"toolName": "create", "toolArgs": '{"path": "MEMORY.md"}'}, None),
        ("cursor", {"tool_name": "Write", "tool_input": {"file_path": "MEMORY.md"}}, None),
    ],
)
def test_broken_install_answers_in_each_hosts_own_shape(
    tmp_path: Path, host: str, payload: dict, where: str | None
) -> None:
    """A broken install never blocks: a note where the host shows one, else silence."""
    lonely = tmp_path / "hooks"
    lonely.mkdir()
    script = lonely / "engramory_index_guard.py"
    script.write_bytes(HOOK.read_bytes())
    (lonely / FALLBACK.name).write_bytes(FALLBACK.read_bytes())
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(script), "--host", host],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == b""
    if where is None:
        assert proc.stdout == b""
        return
    output = json.loads(proc.stdout)
    text = (
        output["hookSpecificOutput"]["additionalContext"]
        if where == "hook"
        else output["systemMessage"]
    )
    assert "could not load its package" in text
    assert f"engramory init {host} --install-hooks" in text


def test_alias_of_the_index_through_the_real_hook(tmp_path: Path) -> None:
    """Issue 10 item 7: a 300-line Write to a symlink or hard link of the index is denied."""
    store = tmp_path / ".engramory-memory"
    store.mkdir()
    index = store / "MEMORY.md"
    index.write_text("- [a](a.md)\n")
    (tmp_path / "notes.md").symlink_to(index)
    os.link(index, tmp_path / "hard.md")
    for alias in ("notes.md", "hard.md"):
        payload = {
            "tool_name": "Write",
            "cwd": str(tmp_path),
            "tool_input": {"file_path": alias, "content": "x\n" * 300},
        }
        output = answer(hook(payload, "--index", str(index)))
        assert output is not None, alias
        assert output["hookSpecificOutput"]["permissionDecision"] == "deny"
    other = {"tool_name": "Write", "cwd": str(tmp_path), "tool_input": {"file_path": "a.py"}}
    assert answer(hook(other, "--index", str(index))) is None


def test_oversized_payload_through_the_real_hook(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    start = json.dumps({"tool_name": "Write", "tool_input": {"file_path": str(index)}})[:-2]
    raw = start.encode() + b', "content": "' + b"x" * (64 * 1024 * 1024 + 1) + b'"}}'
    output = answer(hook(None, raw=raw))
    assert output is not None
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "too large to check" in output["hookSpecificOutput"]["permissionDecisionReason"]
    other = raw.replace(b"MEMORY.md", b"app.py", 1)
    assert answer(hook(None, raw=other)) is None


def test_bash_write_with_the_name_hidden_is_denied_by_the_real_hook(tmp_path: Path) -> None:
    """Issue 10 item 1: the raw-bytes pre-check no longer hides these."""
    (tmp_path / "MEMORY.md").write_text("- [a](a.md)\n")
    for command in ("echo x >> MEM*.md", "F=MEMORY; echo x >> $F.md", "echo x >> 'MEMORY'.md"):
        payload = {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": str(tmp_path)}
        output = answer(hook(payload))
        assert output is not None, command
        assert output["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_index_known_non_index_write_stays_on_the_hot_path(tmp_path: Path) -> None:
    payload = {"tool_name": "Write", "tool_input": {"file_path": "/x/app.py", "content": "1"}}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(HOOK), "--index", "/s/MEMORY.md"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout == b""
    names = {m.group(1).decode() for m in re.finditer(rb"\|\s+([\w.]+)\n", proc.stderr)}
    ours = {name for name in names if name.startswith("engramory")}
    assert ours == HOT_PATH_MODULES
    assert not names & {"json", "re", "shlex", "dataclasses", "typing"}


def test_broken_install_fallback_follows_the_same_word_list() -> None:
    from engramory.guard import service

    namespace: dict[str, object] = {}
    source = FALLBACK.read_text()
    start = source.index("_SHELL_MARKERS")
    exec(source[start : source.index("def _host")], namespace)
    assert namespace["SHELL_WRITERS"] == service.SHELL_WRITERS
    check = namespace["_may_concern_index"]
    bash = {"tool_name": "Bash", "tool_input": {"command": "echo x >> MEM*.md"}}
    assert check(json.dumps(bash).encode(), [])
    bash["tool_input"]["command"] = "ls -la"
    assert not check(json.dumps(bash).encode(), [])
    edit = {"tool_name": "Write", "tool_input": {"file_path": "/a/notes.md"}}
    assert check(json.dumps(edit).encode(), ["--index", "/s/MEMORY.md"])
    assert not check(json.dumps(edit).encode(), [])


def test_broken_install_without_the_fallback_is_silent(tmp_path: Path) -> None:
    """Even the fallback missing never crashes the hook nor blocks the call."""
    lonely = tmp_path / "hooks"
    lonely.mkdir()
    script = lonely / "engramory_index_guard.py"
    script.write_bytes(HOOK.read_bytes())
    payload = {"tool_name": "Write", "tool_input": {"file_path": "/m/MEMORY.md", "content": "x"}}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(script)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_the_hook_script_is_a_few_lines_that_import_the_package() -> None:
    """Python compiles a script on every run (a module once): the script only finds the package."""
    import ast

    tree = ast.parse(HOOK.read_text())
    body = [node for node in tree.body if not isinstance(node, ast.Expr)]  # the docstring
    code_lines = {n.lineno for node in body for n in ast.walk(node) if hasattr(n, "lineno")}
    assert len(code_lines) <= 30
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported == {"os", "os.path", "engramory.dialects", "engramory_guard_fallback", "sys"}


@pytest.mark.parametrize("link", ["file", "folder"])
def test_a_symlinked_hook_script_finds_its_package(link: str, tmp_path: Path) -> None:
    """A script reached through a symbolic link (to it, or to its folder) still loads the
    package beside its real self (``os.path.realpath`` for a linked script; a linked folder
    is found through the link's own path, then through the real one)."""
    if link == "file":
        (tmp_path / "engramory_index_guard.py").symlink_to(HOOK)
        script = tmp_path / "engramory_index_guard.py"
    else:
        (tmp_path / "hooks").symlink_to(HOOK.parent, target_is_directory=True)
        script = tmp_path / "hooks" / "engramory_index_guard.py"
    index = tmp_path / "MEMORY.md"
    index.write_text("x\n")
    payload = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(index), "content": "x\n" * 400},
    }
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(script), "--index", str(index)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
