"""The session-start reminder and the guard's deny name the first few entries that would fall
off (engramory.cuts.hint)."""

from __future__ import annotations

from pathlib import Path

from engramory.continuity import policy
from engramory.guard import service
from engramory.guard.toolcall import WRITE, ToolCall


def pointer(i: int, width: int = 30) -> str:
    head = f"- [N{i}](n{i}.md) — "
    return head + "x" * (width - len(head))


def session_context(store: Path, host: str) -> str:
    payload = {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"}
    return policy.handle(payload, store, host, "explicit").text


def test_reminder_names_at_most_three_entries_that_fall_off(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("\n".join(pointer(i) for i in range(205)) + "\n")
    text = session_context(tmp_path, "claude")
    assert "claude does not load 5 index line(s): line 201, line 202, line 203 and 2 more" in text
    assert "engramory check --host claude" in text


def test_reminder_is_silent_when_everything_loads_or_the_cut_does_not_apply(
    tmp_path: Path,
) -> None:
    (tmp_path / "MEMORY.md").write_text("\n".join(pointer(i) for i in range(205)) + "\n")
    assert "does not load" not in session_context(tmp_path, "gemini")
    (tmp_path / "MEMORY.md").write_text("\n".join(pointer(i) for i in range(20)) + "\n")
    assert "does not load" not in session_context(tmp_path, "claude")


def test_reminder_names_the_notes_qwen_drops(tmp_path: Path) -> None:
    (tmp_path / "n30.md").write_text("---\nname: n30\ndescription: d\ntype: user\n---\n")
    lines = [pointer(i, 1_000) for i in range(30)] + [pointer(100 + i, 100) for i in range(20)]
    lines[29] = "- [N30](n30.md) — " + "z" * 980
    (tmp_path / "MEMORY.md").write_text("\n".join(lines) + "\n")
    text = session_context(tmp_path, "qwen")
    assert "qwen does not load 8 index line(s): line 23, line 24, line 25 and 5 more" in text


def test_deny_names_the_entries_past_the_cut(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    content = "\n".join(pointer(i) for i in range(203)) + "\n"
    verdict = service.check(ToolCall(WRITE, str(index), content=content), {}, None)
    assert verdict.kind == "deny"
    assert verdict.message.endswith(
        "After this write Claude Code would not load: line 201 (n200.md), line 202 (n201.md), "
        "line 203 (n202.md)."
    )


def test_deny_over_bytes_only_names_nothing_claude_still_loads(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    content = "\n".join("- [é](e.md) " + "é" * 180 for _ in range(80)) + "\n"  # bytes, not units
    verdict = service.check(ToolCall(WRITE, str(index), content=content), {}, None)
    assert verdict.kind == "deny"
    assert "would not load" not in verdict.message
