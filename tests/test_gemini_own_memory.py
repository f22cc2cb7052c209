"""Gemini CLI's own private memory has no size cap (issue 38; the research, read at gemini-cli
@5411f113: ``memoryDiscovery.ts`` and ``memoryContextManager.ts`` load
``~/.gemini/tmp/<project slug>/memory/MEMORY.md`` whole). So the guard has nothing to deny by
size there: it stays silent on a write of any length, still denies a secret, and holds the
file under Engramory's caps only when it is named as the store's index.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hookkit import answer, lines, run_hook

from engramory.dialects import gemini
from engramory.guard import toolcall


def before_tool(cwd: Path, tool: str, tool_input: dict[str, object]) -> dict[str, object]:
    return {
        "session_id": "s1",
        "cwd": str(cwd),
        "hook_event_name": "BeforeTool",
        "tool_name": tool,
        "tool_input": tool_input,
    }


@pytest.fixture
def own(tmp_path: Path) -> Path:
    """Gemini's private memory index for the project slug ``app`` (the folder exists)."""
    path = tmp_path / "home" / ".gemini" / "tmp" / "app" / "memory" / "MEMORY.md"
    path.parent.mkdir(parents=True)
    return path


def hook(body: dict[str, object], *args: str, env: dict[str, str] | None = None) -> dict | None:
    return answer(run_hook("gemini", body, *args, env=env))


def test_a_write_of_any_size_is_silent(own: Path, tmp_path: Path) -> None:
    body = before_tool(tmp_path, "write_file", {"file_path": str(own), "content": lines(900)})
    assert hook(body) is None


def test_a_replace_of_any_size_is_silent(own: Path, tmp_path: Path) -> None:
    own.write_text("- one\n")
    grow = {"file_path": str(own), "old_string": "one", "new_string": lines(900)}
    assert hook(before_tool(tmp_path, "replace", grow)) is None


def test_the_same_write_elsewhere_is_denied(own: Path, tmp_path: Path) -> None:
    lookalike = own.parent.parent / "notes" / "MEMORY.md"  # not the memory folder
    body = before_tool(tmp_path, "write_file", {"file_path": str(lookalike), "content": lines(900)})
    assert hook(body)["decision"] == "deny"


def test_a_secret_written_into_it_is_still_denied(own: Path, tmp_path: Path) -> None:
    key = "AKIA" + "Q" * 4 + "RSTUVWXYZ234"
    body = before_tool(tmp_path, "write_file", {"file_path": str(own), "content": f"- {key}\n"})
    output = hook(body)
    assert output["decision"] == "deny" and "AWS access key" in output["reason"]
    assert key not in output["reason"]


def test_named_as_the_store_index_it_is_held_under_the_caps(own: Path, tmp_path: Path) -> None:
    body = before_tool(tmp_path, "write_file", {"file_path": str(own), "content": lines(900)})
    assert hook(body, "--index", str(own))["decision"] == "deny"
    assert hook(body, env={"ENGRAMORY_INDEX_PATH": str(own)})["decision"] == "deny"


def test_a_relative_path_from_the_home_is_recognised(own: Path) -> None:
    home = own.parents[4]
    body = before_tool(
        home, "write_file", {"file_path": ".gemini/tmp/app/memory/MEMORY.md", "content": lines(900)}
    )
    assert hook(body) is None


def test_is_own_memory() -> None:
    assert gemini.is_own_memory("/h/.gemini/tmp/my-app-1/memory/MEMORY.md", None)
    assert gemini.is_own_memory("memory/memory.md", "/h/.gemini/tmp/x")
    assert not gemini.is_own_memory("/h/.gemini/tmp/memory/MEMORY.md", None)  # no slug
    assert not gemini.is_own_memory("/h/.gemini/tmp/x/memory/notes.md", None)
    assert not gemini.is_own_memory("/h/.gemini/x/y/memory/MEMORY.md", None)
    assert not gemini.is_own_memory(None, "/h")


def test_the_call_is_judged_not_measured(own: Path, tmp_path: Path) -> None:
    body = before_tool(tmp_path, "write_file", {"file_path": str(own), "content": "x"})
    [call] = gemini.tool_calls(body)
    assert call.kind == toolcall.JUDGED
    [plain] = gemini.tool_calls({**body, "tool_input": {"file_path": "a/MEMORY.md"}})
    assert plain.kind == toolcall.WRITE
