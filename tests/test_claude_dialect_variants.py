"""The Claude Code guard as other hosts run it from Claude's settings files.

Copilot CLI, VS Code, Cursor (opt-in) and Devin run the hooks in
``.claude/settings*.json`` with payloads of their own (research/host-hooks-2026-12.md):
other tool names, other argument keys, an empty ``cwd`` with ``workspace_roots``, a
UTF-8 BOM. Each row is run as a real subprocess, with the JSON on stdin, and must get
the verdict a Claude Code payload for the same change gets.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hookkit import HOOK, answer, run_hook

from engramory.dialects import claude, fields
from engramory.guard import toolcall

GROWN = "x\n" * 260  # past the 200-line hard cap
SMALL = "- [a](a.md) — a\n"


def run(raw: bytes, *args: str) -> tuple[str, dict | None]:
    """``(verdict, output)`` of the hook for one stdin payload; asserts exit 0, quiet stderr."""
    output = answer(run_hook("claude", None, *args, raw=raw))
    if output is None:
        return "silent", None
    inner = output["hookSpecificOutput"]
    assert inner.get("permissionDecision") in (None, "deny")  # never allow, never ask
    return ("deny" if inner.get("permissionDecision") == "deny" else "nudge"), output


def payload(tool: str, tool_input: object, cwd: str = "", **extra: object) -> bytes:
    return json.dumps({"tool_name": tool, "tool_input": tool_input, "cwd": cwd, **extra}).encode()


# Each row: (host, tool, the arguments with the target path as {path}), all growing the index.
WRITE_VARIANTS = [
    ("claude", "Write", {"file_path": "{path}", "content": GROWN}),
    ("copilot", "Write", {"path": "{path}", "file_text": GROWN}),
    ("copilot", "create", {"path": "{path}", "file_text": GROWN}),
    ("vscode", "create_file", {"filePath": "{path}", "content": GROWN}),
    ("continue", "Write", {"filepath": "{path}", "content": GROWN}),
]
EDIT_VARIANTS = [
    ("claude", "Edit", {"file_path": "{path}", "old_string": "seed", "new_string": GROWN}),
    ("copilot", "Edit", {"path": "{path}", "old_str": "seed", "new_str": GROWN}),
    ("copilot", "edit", {"path": "{path}", "old_str": "seed", "new_str": GROWN}),
    (
        "vscode",
        "replace_string_in_file",
        {"filePath": "{path}", "oldString": "seed", "newString": GROWN},
    ),
    ("cursor", "StrReplace", {"path": "{path}", "old_string": "seed", "new_string": GROWN}),
    ("copilot", "str_replace_editor", {"path": "{path}", "old_str": "seed", "new_str": GROWN}),
    (
        "vscode",
        "multi_replace_string_in_file",
        {"replacements": [{"filePath": "{path}", "oldString": "seed", "newString": GROWN}]},
    ),
]


def fill(arguments: object, path: str) -> object:
    text = json.dumps(arguments).replace('"{path}"', json.dumps(path))
    return json.loads(text)


@pytest.mark.parametrize(("host", "tool", "arguments"), WRITE_VARIANTS + EDIT_VARIANTS)
def test_every_variant_of_a_growing_edit_is_denied(
    tmp_path: Path, host: str, tool: str, arguments: dict
) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("seed\n")
    verdict, output = run(payload(tool, fill(arguments, str(index)), str(tmp_path)))
    assert verdict == "deny", host
    assert "hard cap" in output["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize(("host", "tool", "arguments"), WRITE_VARIANTS + EDIT_VARIANTS)
def test_the_same_variants_on_another_file_are_silent(
    tmp_path: Path, host: str, tool: str, arguments: dict
) -> None:
    other = tmp_path / "notes.md"
    other.write_text("seed\n")
    assert run(payload(tool, fill(arguments, str(other)), str(tmp_path)))[0] == "silent", host


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("Write", {"path": "{path}", "file_text": SMALL}),
        ("replace_string_in_file", {"filePath": "{path}", "oldString": "seed\n", "newString": ""}),
    ],
)
def test_variants_that_shrink_or_stay_small_pass(
    tmp_path: Path, tool: str, arguments: dict
) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("seed\n")
    assert run(payload(tool, fill(arguments, str(index)), str(tmp_path)))[0] == "silent"


@pytest.mark.parametrize("tool", ["Bash", "Shell", "runTerminalCommand", "run_in_terminal", "bash"])
def test_every_shell_tool_name_is_checked(tmp_path: Path, tool: str) -> None:
    (tmp_path / "MEMORY.md").write_text("seed\n")
    verdict, _ = run(payload(tool, {"command": "echo x >> MEMORY.md"}, str(tmp_path)))
    assert verdict == "deny"
    assert run(payload(tool, {"command": "ls -la"}, str(tmp_path)))[0] == "silent"


def test_cursor_empty_cwd_resolves_against_the_first_workspace_root(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    index = store / "INDEX.md"
    index.write_text("seed\n")
    arguments = {"path": "store/INDEX.md", "old_string": "seed", "new_string": GROWN}
    raw = payload("StrReplace", arguments, "", workspace_roots=[str(tmp_path)])
    assert run(raw, "--index", str(index))[0] == "deny"
    elsewhere = payload("StrReplace", arguments, "", workspace_roots=[str(tmp_path / "nowhere")])
    assert run(elsewhere, "--index", str(index))[0] == "silent"


def test_a_utf8_bom_before_the_json_is_accepted(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    raw = payload("Write", {"file_path": str(index), "content": GROWN}, str(tmp_path))
    assert run(b"\xef\xbb\xbf" + raw)[0] == "deny"


def test_vscode_runs_the_hook_on_every_tool_and_unknown_tools_stay_silent(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    for tool, arguments in [
        ("read_file", {"filePath": str(index)}),
        ("grep_search", {"query": "MEMORY.md"}),
        ("Read", {"file_path": str(index)}),
        ("insert_edit_into_file", {"filePath": "/x/app.py", "code": "x"}),
    ]:
        raw = payload(tool, arguments, str(tmp_path))
        assert not claude.may_concern_index(raw, {}, None), tool
        assert run(raw)[0] == "silent", tool


def test_unknown_tools_are_dismissed_on_the_hot_path(tmp_path: Path) -> None:
    raw = payload("read_file", {"filePath": str(tmp_path / "MEMORY.md")}, str(tmp_path))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(HOOK)],
        input=raw,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout == b""
    names = {m.group(1).decode() for m in re.finditer(rb"\|\s+([\w.]+)\n", proc.stderr)}
    assert "engramory.dialects.claude" in names
    assert not names & {"engramory.util.fastjson", "engramory.guard.decision", "json"}


def test_a_copilot_apply_patch_mapped_to_edit_becomes_a_patch_call(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Add File: MEMORY.md\n+x\n*** End Patch\n"
    calls = claude.tool_calls(
        {"tool_name": "Edit", "tool_input": {"input": patch}, "cwd": str(tmp_path)}
    )
    assert [(c.kind, c.command, c.cwd) for c in calls] == [(toolcall.PATCH, patch, str(tmp_path))]
    calls = claude.tool_calls({"tool_name": "ApplyPatch", "tool_input": patch, "cwd": ""})
    assert [(c.kind, c.command) for c in calls] == [(toolcall.PATCH, patch)]


def test_field_spellings_are_read_in_claude_first_order() -> None:
    tool_input = {"file_path": "a.md", "filePath": "b.md", "content": "x", "file_text": "y"}
    (call,) = claude.tool_calls({"tool_name": "Write", "tool_input": tool_input})
    assert (call.path, call.content) == ("a.md", "x")
    (call,) = claude.tool_calls(
        {"tool_name": "Edit", "tool_input": {"path": "m.md", "oldString": "a", "new_str": "b"}}
    )
    assert (call.path, call.edits) == ("m.md", [("a", "b", None)])


def test_cwd_falls_back_to_the_first_workspace_root_only_when_empty() -> None:
    assert fields.payload_cwd({"cwd": "/a", "workspace_roots": ["/b"]}) == "/a"
    assert fields.payload_cwd({"cwd": "", "workspace_roots": ["/b", "/c"]}) == "/b"
    assert fields.payload_cwd({"cwd": "", "workspace_roots": []}) is None
    assert fields.payload_cwd({"workspace_roots": [3]}) is None


def test_an_edit_that_cannot_be_predicted_is_a_nudge_not_a_deny(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("seed\n")
    arguments = {"filePath": str(index), "code": "...existing code...\n" + GROWN}
    verdict, output = run(payload("insert_edit_into_file", arguments, str(tmp_path)))
    assert verdict == "nudge"
    assert "not" in output["hookSpecificOutput"]["additionalContext"]


def test_a_multi_replace_whose_later_replacement_targets_the_index_is_denied(
    tmp_path: Path,
) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("seed\n")
    (tmp_path / "app.py").write_text("a = 1\n")
    replacements = [
        {"filePath": str(tmp_path / "app.py"), "oldString": "a = 1", "newString": "a = 2"},
        {"filePath": str(index), "oldString": "seed", "newString": GROWN},
    ]
    raw = payload("multi_replace_string_in_file", {"replacements": replacements}, str(tmp_path))
    assert claude.may_concern_index(raw, {}, None)
    assert run(raw)[0] == "deny"


@pytest.mark.parametrize("host", ["claude", "gemini", "cursor"])
def test_a_path_key_repeated_deeper_in_the_arguments_does_not_hide_the_index(
    tmp_path: Path, host: str
) -> None:
    """The raw pre-check reads every member with a path key, not only the first one."""
    index = tmp_path / "MEMORY.md"
    tool = {"claude": "Write", "gemini": "write_file", "cursor": "Write"}[host]
    tool_input = {"meta": {"file_path": str(tmp_path / "app.py")}, "file_path": str(index)}
    tool_input["content"] = GROWN
    raw = payload(tool, tool_input, str(tmp_path))
    output = answer(run_hook(host, None, raw=raw))
    assert output is not None and "deny" in json.dumps(output), host
