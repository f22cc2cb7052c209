"""Codex's guard dialect, run as Codex runs it: a subprocess with the PreToolUse JSON on stdin.

Payloads are built as research/host-hooks-2026-12.md shows them (``apply_patch`` with the V4A
patch in ``tool_input.command``, ``Bash`` with the command line); every answer must validate
against Codex's published PreToolUse output schema and exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hookkit import HEAVY, answer, hot_path, imported, run_hook

from engramory.dialects import codex
from engramory.guard import toolcall

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads(
    (ROOT / "tests" / "schemas" / "codex" / "pre-tool-use.command.output.schema.json").read_text(
        encoding="utf-8"
    )
)
GROWN = "".join(f"+line {n}\n" for n in range(260))


def run(payload: object, *args: str, raw: bytes | None = None) -> tuple[str, dict | None]:
    """``(verdict, output)``: exit 0, empty stderr and a schema-valid answer are asserted."""
    output = answer(run_hook("codex", payload, *args, raw=raw))
    if output is None:
        return "silent", None
    jsonschema.validate(output, SCHEMA)
    inner = output["hookSpecificOutput"]
    assert inner["hookEventName"] == "PreToolUse"
    assert inner.get("permissionDecision") in (None, "deny")
    return ("deny" if inner.get("permissionDecision") == "deny" else "nudge"), output


def call(tool: str, tool_input: object, cwd: Path) -> dict:
    return {
        "session_id": "s",
        "turn_id": "t",
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "tool_name": tool,
        "tool_use_id": "u",
        "tool_input": tool_input,
    }


def patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def test_a_patch_that_grows_the_index_past_the_cap_is_denied(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    text = patch("*** Update File: MEMORY.md\n@@\n # Memory\n" + GROWN)
    verdict, output = run(call("apply_patch", {"command": text}, tmp_path))
    assert verdict == "deny"
    assert "hard cap" in output["hookSpecificOutput"]["permissionDecisionReason"]


def test_adding_the_index_from_nothing_past_the_cap_is_denied(tmp_path: Path) -> None:
    text = patch("*** Add File: MEMORY.md\n" + GROWN)
    assert run(call("apply_patch", {"command": text}, tmp_path))[0] == "deny"


def test_a_small_patch_of_the_index_passes(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    text = patch("*** Update File: MEMORY.md\n@@\n # Memory\n+- [a](a.md) - a\n")
    assert run(call("apply_patch", {"command": text}, tmp_path))[0] == "silent"


def test_a_patch_of_other_files_is_silent_and_never_parsed(tmp_path: Path) -> None:
    text = patch("*** Add File: src/app.py\n" + GROWN)
    payload = call("apply_patch", {"command": text}, tmp_path)
    raw = json.dumps(payload).encode()
    assert not codex.may_concern_index(raw, {}, None)
    assert run(payload)[0] == "silent"


def test_a_patch_is_parsed_when_it_names_the_index_under_another_name(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("# Memory\n")
    (tmp_path / "alias.md").symlink_to(index)
    # other.txt: not the index, and not a store note (a .md beside MEMORY.md is one: it is
    # scanned for a secret)
    for target, expected in [("alias.md", True), ("other.txt", False), ("sub/MEMORY.md", True)]:
        text = patch(f"*** Add File: {target}\n+x\n")
        raw = json.dumps(call("apply_patch", {"command": text}, tmp_path)).encode()
        assert codex.may_concern_index(raw, {}, str(index)) is expected, target
        env = {"ENGRAMORY_INDEX_PATH": str(index)}
        assert codex.may_concern_index(raw, env, None) is (target == "alias.md"), target
    moved = patch("*** Update File: notes.md\n*** Move to: alias.md\n@@\n-a\n+b\n")
    raw = json.dumps(call("apply_patch", {"command": moved}, tmp_path)).encode()
    assert codex.may_concern_index(raw, {}, str(index))


def test_a_target_with_unicode_whitespace_around_the_index_name_is_denied(tmp_path: Path) -> None:
    """Codex trims Unicode whitespace off a patch's file line: ``MEMORY.md\u3000`` is the index."""
    text = patch("*** Add File: MEMORY.md\u3000\n" + GROWN)
    payload = call("apply_patch", {"command": text}, tmp_path)
    raw = json.dumps(payload, ensure_ascii=False).encode()
    assert codex.may_concern_index(raw, {}, None)
    assert run(None, raw=raw)[0] == "deny"


def test_a_patch_target_the_raw_scan_cannot_read_is_parsed(tmp_path: Path) -> None:
    for target in [r"caf\u00e9.md", r"a\\b.md", " padded.md"]:
        raw = (
            '{"tool_name": "apply_patch", "cwd": "/p", "tool_input": {"command": '
            f'"*** Begin Patch\\n*** Add File: {target}\\n+x\\n*** End Patch"}}}}'
        ).encode()
        assert codex.may_concern_index(raw, {}, "/p/MEMORY.md"), target


def test_a_shell_write_of_the_index_is_denied(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    verdict, output = run(call("Bash", {"command": "echo x >> MEMORY.md"}, tmp_path))
    assert verdict == "deny"
    assert "Edit" in output["hookSpecificOutput"]["permissionDecisionReason"]
    assert run(call("Bash", {"command": "cat MEMORY.md"}, tmp_path))[0] == "silent"


def test_a_shell_command_as_an_argv_list_is_read(tmp_path: Path) -> None:
    argv = ["bash", "-lc", "printf x > MEMORY.md"]
    assert run(call("Bash", {"command": argv}, tmp_path))[0] == "deny"
    assert run(call("Bash", {"command": ["tee", "MEMORY.md"]}, tmp_path))[0] == "deny"
    assert run(call("Bash", {"command": ["ls", "-la"]}, tmp_path))[0] == "silent"


def test_apply_patch_through_the_shell_is_judged_as_the_patch(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    body = patch("*** Update File: MEMORY.md\n@@\n # Memory\n" + GROWN)
    command = f"apply_patch <<'EOF'\n{body}EOF\n"
    assert run(call("Bash", {"command": command}, tmp_path))[0] == "deny"


@pytest.mark.parametrize(
    "raw",
    [b"", b"not json", b"[]", b"null", b'{"tool_name": "apply_patch"}', b"\xff\xfe", b"{" * 100000],
)
def test_malformed_payloads_exit_0_quietly(raw: bytes) -> None:
    assert run(None, raw=raw) == ("silent", None)


def test_unknown_tools_and_shapes_are_silent(tmp_path: Path) -> None:
    assert run(call("read_file", {"path": "MEMORY.md"}, tmp_path))[0] == "silent"
    assert run(call("apply_patch", {"command": 7}, tmp_path))[0] == "silent"
    assert codex.tool_calls({"tool_name": "apply_patch", "tool_input": "x"}) == []


def test_payload_to_tool_calls() -> None:
    (shell,) = codex.tool_calls({"tool_name": "Bash", "tool_input": {"cmd": "ls"}, "cwd": "/p"})
    assert (shell.kind, shell.command, shell.cwd) == (toolcall.SHELL, "ls", "/p")
    text = patch("*** Add File: a\n+x\n")
    (call_,) = codex.tool_calls({"tool_name": "apply_patch", "tool_input": {"command": text}})
    assert (call_.kind, call_.command, call_.cwd) == (toolcall.PATCH, text, None)


def test_unrelated_payloads_import_only_the_hot_path(tmp_path: Path) -> None:
    patch_text = patch("*** Add File: src/app.py\n+print(1)\n")
    for payload in [
        call("apply_patch", {"command": patch_text}, tmp_path),
        call("Bash", {"command": "pytest -q tests/"}, tmp_path),
        call("read_file", {"path": "MEMORY.md"}, tmp_path),
    ]:
        names = imported("codex", payload, "--index", str(tmp_path / "MEMORY.md"))
        assert {n for n in names if n.startswith("engramory")} == hot_path("codex"), payload
        assert not names & HEAVY
