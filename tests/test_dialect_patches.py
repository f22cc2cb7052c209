"""V4A patches (``apply_patch``) through Copilot's and Cursor's dialects and the real hook.

The dialects hand a patch to the service as ``ToolCall(toolcall.PATCH, cwd=..., command=<patch>)``;
the service's patch judge arrives from another branch (issue 13). Until it has, the service
answers a patch silently and the deny tests are expected to fail (``xfail``, strict); once it
judges patches they run as ordinary tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookkit import answer, lines, run_hook

from engramory.guard import service, toolcall
from engramory.guard.toolcall import ToolCall


def patch(path: str, added: int) -> str:
    body = "".join(f"+line {i}\n" for i in range(added))
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"


def _service_judges_patches() -> bool:
    call = ToolCall(toolcall.PATCH, cwd="/nonexistent-engramory", command=patch("MEMORY.md", 250))
    return service.check(call, {}).kind == "deny"


judge_missing = pytest.mark.xfail(
    not _service_judges_patches(),
    reason="the service's V4A patch judge is not on this branch yet",
    strict=True,
)


def copilot_camel(d: Path, text: str, as_object: bool) -> dict:
    args: object = {"input": text} if as_object else text
    return {
        "sessionId": "s",
        "timestamp": 1,
        "cwd": str(d),
        "toolName": "apply_patch",
        "toolArgs": args,
    }


def copilot_claude_style(d: Path, text: str, as_object: bool) -> dict:
    tool_input: object = {"input": text} if as_object else text
    return {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": str(d),
        "tool_name": "Edit",
        "tool_input": tool_input,
    }


def cursor_apply_patch(d: Path, text: str, as_object: bool) -> dict:
    return {
        "conversation_id": "c",
        "generation_id": "g",
        "hook_event_name": "preToolUse",
        "workspace_roots": [str(d)],
        "cwd": "",
        "tool_name": "ApplyPatch",
        "tool_input": {"patch": text} if as_object else text,
    }


CASES = [
    ("copilot", copilot_camel, lambda out: out["permissionDecision"]),
    ("copilot", copilot_claude_style, lambda out: out["hookSpecificOutput"]["permissionDecision"]),
    ("cursor", cursor_apply_patch, lambda out: out["permission"]),
]


@judge_missing
@pytest.mark.parametrize("as_object", [False, True], ids=["text", "object"])
@pytest.mark.parametrize(
    ("host", "build", "verdict"), CASES, ids=["camel", "claude-style", "cursor"]
)
def test_a_patch_that_grows_the_index_is_denied(
    tmp_path: Path, host: str, build, verdict, as_object: bool
) -> None:
    output = answer(run_hook(host, build(tmp_path, patch("MEMORY.md", 250), as_object)))
    assert output is not None and verdict(output) == "deny"


@pytest.mark.parametrize(
    ("host", "build", "verdict"), CASES, ids=["camel", "claude-style", "cursor"]
)
def test_a_patch_of_another_file_or_a_small_index_is_silent(
    tmp_path: Path, host: str, build, verdict
) -> None:
    (tmp_path / "MEMORY.md").write_text(lines(3))
    assert answer(run_hook(host, build(tmp_path, patch("app.py", 900), False))) is None
    small = patch("MEMORY.md", 3).replace("Add File", "Update File").replace("+line", "+more")
    output = answer(run_hook(host, build(tmp_path, small, True)))
    assert output is None or "deny" not in json.dumps(output)
