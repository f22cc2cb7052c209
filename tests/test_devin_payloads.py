"""The Claude Code guard as Devin (Devin Desktop, formerly Windsurf; Devin CLI) runs it from
``.claude/``: lower-case ``write``, ``edit``, ``apply_patch`` (a V4A patch) and ``exec``
(``{command, shell_id}``), and no ``cwd`` -- Devin sets ``$DEVIN_PROJECT_DIR`` instead
(research/host-hooks-2026-12.md). Each row runs the real hook process."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookkit import HEAVY, answer, hot_path, imported, run_hook

GROWN = "x\n" * 260  # past the 200-line hard cap
RELATIVE = "store/INDEX.md"  # known by its path only (--index), never by its name


def devin(tool: str, tool_input: dict) -> dict:
    """A Devin PreToolUse payload: Claude's shape, Devin's tool names, no ``cwd``."""
    return {
        "hook_event_name": "PreToolUse",
        "session_id": "d1",
        "tool_name": tool,
        "tool_input": tool_input,
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "store").mkdir(parents=True)
    (root / RELATIVE).write_text("seed\n")
    return root


def verdict(payload: dict, project: Path, devin_dir: Path | None, cwd: Path) -> str:
    """``deny``, ``nudge`` or ``silent`` for one payload, the index pinned by ``--index``."""
    env = {"DEVIN_PROJECT_DIR": str(devin_dir)} if devin_dir is not None else {}
    output = answer(
        run_hook("claude", payload, "--index", str(project / RELATIVE), env=env, cwd=cwd)
    )
    if output is None:
        return "silent"
    inner = output["hookSpecificOutput"]
    assert inner["hookEventName"] == "PreToolUse"
    assert inner.get("permissionDecision") in (None, "deny")  # never allow, never ask
    return "deny" if inner.get("permissionDecision") == "deny" else "nudge"


PATCH = (
    f"*** Begin Patch\n*** Update File: {RELATIVE}\n@@\n seed\n" + "+x\n" * 260 + "*** End Patch"
)
GROWING = [
    ("write", {"file_path": RELATIVE, "content": GROWN}),
    ("write", {"path": RELATIVE, "content": GROWN}),
    ("edit", {"file_path": RELATIVE, "old_string": "seed", "new_string": GROWN}),
    ("edit", {"path": RELATIVE, "old_str": "seed", "new_str": GROWN}),
    ("apply_patch", {"input": PATCH}),
    ("exec", {"command": f"echo x >> {RELATIVE}", "shell_id": "main"}),
]


@pytest.mark.parametrize(("tool", "tool_input"), GROWING)
def test_a_growing_devin_call_is_denied_from_devins_project_dir(
    project: Path, tmp_path: Path, tool: str, tool_input: dict
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert verdict(devin(tool, tool_input), project, project, elsewhere) == "deny"


@pytest.mark.parametrize(("tool", "tool_input"), GROWING)
def test_without_devins_project_dir_the_hooks_own_directory_is_used(
    project: Path, tmp_path: Path, tool: str, tool_input: dict
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert verdict(devin(tool, tool_input), project, None, project) == "deny"
    assert verdict(devin(tool, tool_input), project, None, elsewhere) == "silent"


def test_a_cwd_in_the_payload_wins_over_devins_project_dir(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    payload = {**devin("write", {"file_path": RELATIVE, "content": GROWN}), "cwd": str(other)}
    assert verdict(payload, project, project, project) == "silent"


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("write", {"file_path": RELATIVE, "content": "- [a](a.md) — a\n"}),
        ("edit", {"file_path": RELATIVE, "old_string": "seed\n", "new_string": ""}),
        ("exec", {"command": f"cat {RELATIVE}", "shell_id": "main"}),
        ("exec", {"command": "ls -la", "shell_id": "main"}),
        ("write", {"file_path": "src/app.py", "content": GROWN}),
        ("read", {"file_path": RELATIVE}),
    ],
)
def test_small_shrinking_reading_and_other_calls_are_silent(
    project: Path, tool: str, tool_input: dict
) -> None:
    assert verdict(devin(tool, tool_input), project, project, project) == "silent"


def test_malformed_devin_input_fails_open(project: Path) -> None:
    for raw in (b"", b"{", b'{"tool_name": "write", "tool_input": "x"}'):
        proc = run_hook("claude", None, raw=raw, env={"DEVIN_PROJECT_DIR": str(project)})
        assert answer(proc) is None


def test_a_devin_call_that_cannot_touch_the_index_stays_on_the_hot_path() -> None:
    calls = [
        devin("exec", {"command": "ls -la", "shell_id": "main"}),
        devin("write", {"file_path": "src/app.py", "content": "x"}),
        devin("read", {"file_path": "README.md"}),
    ]
    for payload in calls:
        names = imported("claude", payload)
        ours = {name for name in names if name.startswith("engramory")}
        assert ours <= hot_path("claude"), payload
        assert not names & HEAVY, payload
