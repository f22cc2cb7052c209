"""Hermes' own ``memory`` tool, guarded (issue 38): an ``add`` or ``replace`` that would take
``MEMORY.md`` (2,200 characters) or ``USER.md`` (1,375) past its cap is denied in Hermes'
reply format, through the real hook process; everything else stays silent.

The tool's shape and its rules are pinned from NousResearch/hermes-agent
``tools/memory_tool.py`` (``MEMORY_SCHEMA``, ``MemoryStore.add/replace/remove/apply_batch``):
entries split at ``\\n§\\n``, stripped, duplicates dropped, counted joined again.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hookkit import answer, run_hook

from engramory.dialects import hermes, hermesmemory
from engramory.guard import decision, toolcall
from engramory.hosts.registry import HOSTS

DELIMITER = "\n§\n"


def memory_file(home: Path, name: str, entries: list[str]) -> Path:
    path = home / "memories" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DELIMITER.join(entries), encoding="utf-8")
    return path


def call(tool_input: dict[str, object], cwd: Path) -> dict[str, object]:
    """A ``pre_tool_call`` payload as Hermes' shell hooks send it."""
    return {
        "hook_event_name": "pre_tool_call",
        "tool_name": "memory",
        "tool_input": tool_input,
        "session_id": "s1",
        "cwd": str(cwd),
        "profile": "default",
        "extra": {},
    }


def hook(body: dict[str, object], home: Path) -> dict | None:
    return answer(run_hook("hermes", body, env={"HERMES_HOME": str(home)}))


@pytest.fixture
def full(tmp_path: Path) -> Path:
    """A Hermes home whose MEMORY.md holds 2,140 of its 2,200 characters."""
    home = tmp_path / "hermes"
    entries = [f"fact {i}: " + "y" * 202 for i in range(10)]  # 10 x 210 + 9 x 3 = 2,127
    memory_file(home, "MEMORY.md", entries)
    assert hermesmemory.size(entries) == 2_127
    return home


# --- through the real hook process -----------------------------------------------------------


def test_an_add_past_the_cap_is_denied_in_hermes_reply(full: Path, tmp_path: Path) -> None:
    output = hook(call({"action": "add", "target": "memory", "content": "z" * 100}, tmp_path), full)
    assert set(output) == {"decision", "reason"} and output["decision"] == "block"
    reason = output["reason"]
    assert "2,230/2,200 characters" in reason and "now 2,127" in reason and "30 over" in reason
    assert str(full / "memories" / "MEMORY.md") in reason


def test_an_add_that_fits_is_silent(full: Path, tmp_path: Path) -> None:
    assert (
        hook(call({"action": "add", "target": "memory", "content": "z" * 70}, tmp_path), full)
        is None
    )


def test_an_add_of_an_entry_already_there_is_silent(full: Path, tmp_path: Path) -> None:
    again = {"action": "add", "target": "memory", "content": "  fact 1: " + "y" * 202 + "\n"}
    assert hook(call(again, tmp_path), full) is None  # the host adds no duplicate


def test_a_replace_is_judged_on_the_entry_it_swaps(full: Path, tmp_path: Path) -> None:
    grow = {"action": "replace", "target": "memory", "old_text": "fact 4:", "content": "w" * 400}
    assert hook(call(grow, tmp_path), full)["decision"] == "block"
    shrink = {"action": "replace", "target": "memory", "old_text": "fact 4:", "content": "short"}
    assert hook(call(shrink, tmp_path), full) is None


def test_a_call_hermes_refuses_itself_is_left_to_hermes(full: Path, tmp_path: Path) -> None:
    ambiguous = {"action": "replace", "target": "memory", "old_text": "fact", "content": "w" * 400}
    assert hook(call(ambiguous, tmp_path), full) is None  # several entries match
    unmatched = {**ambiguous, "old_text": "nowhere"}
    assert hook(call(unmatched, tmp_path), full) is None
    remove = {"action": "remove", "target": "memory", "old_text": "fact 1:"}
    assert hook(call(remove, tmp_path), full) is None  # only shrinks


def test_a_batch_that_makes_room_first_is_silent(full: Path, tmp_path: Path) -> None:
    room = [
        {"action": "remove", "old_text": "fact 2:"},
        {"action": "add", "content": "z" * 100},
    ]
    assert hook(call({"target": "memory", "operations": room}, tmp_path), full) is None
    no_room = [{"action": "add", "content": "z" * 100}, {"action": "add", "content": "q" * 10}]
    output = hook(call({"target": "memory", "operations": no_room}, tmp_path), full)
    assert output["decision"] == "block"


def test_user_md_has_its_own_smaller_cap(tmp_path: Path) -> None:
    home = tmp_path / "hermes"
    memory_file(home, "USER.md", ["name: Ada", "x" * 1_300])
    body = call(
        {"action": "add", "target": "user", "content": "prefers short answers, " * 4}, tmp_path
    )
    output = hook(body, home)
    assert output["decision"] == "block" and "/1,375 characters" in output["reason"]
    assert str(home / "memories" / "USER.md") in output["reason"]
    body["tool_input"]["target"] = "memory"  # the same text fits MEMORY.md's 2,200
    assert hook(body, home) is None


def test_a_cap_raised_in_config_yaml_is_the_cap(full: Path, tmp_path: Path) -> None:
    (full / "config.yaml").write_text("memory:\n  memory_char_limit: 4000\n  user_char_limit: 9\n")
    assert hook(call({"action": "add", "content": "z" * 100}, tmp_path), full) is None


def test_no_memory_file_yet_counts_from_nothing(tmp_path: Path) -> None:
    home = tmp_path / "fresh"
    assert hook(call({"action": "add", "content": "z" * 2_000}, tmp_path), home) is None
    assert hook(call({"action": "add", "content": "z" * 2_201}, tmp_path), home)["decision"] == (
        "block"
    )


def test_a_symlinked_memory_file_is_not_followed(tmp_path: Path) -> None:
    home = tmp_path / "hermes"
    (home / "memories").mkdir(parents=True)
    outside = tmp_path / "elsewhere.md"
    outside.write_text("x" * 2_190)
    os.symlink(outside, home / "memories" / "MEMORY.md")
    assert hook(call({"action": "add", "content": "z" * 100}, tmp_path), home) is None


def test_a_relative_hermes_home_is_not_guessed(tmp_path: Path) -> None:
    proc = run_hook(
        "hermes",
        call({"action": "add", "content": "z" * 3_000}, tmp_path),
        env={"HERMES_HOME": "relative/home"},
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


@pytest.mark.parametrize(
    "tool_input",
    [
        {"action": "add", "target": ["memory"], "content": "z" * 3_000},
        {"action": "add", "target": "elsewhere", "content": "z" * 3_000},
        {"action": "frobnicate", "content": "z" * 3_000},
        {"operations": "add everything"},
        {"operations": [None, 3]},
        {"action": "add", "content": 3},
    ],
)
def test_shapes_the_host_rejects_are_silent(
    full: Path, tmp_path: Path, tool_input: dict[str, object]
) -> None:
    assert hook(call(tool_input, tmp_path), full) is None


@pytest.mark.parametrize("raw", [b"", b"{", b'{"tool_name": "memory", "tool_input": []}', b"\xfe"])
def test_garbage_is_silent_with_exit_zero(raw: bytes) -> None:
    proc = run_hook("hermes", raw=raw)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_a_remove_is_dismissed_before_parsing() -> None:
    remove = b'{"tool_name": "memory", "tool_input": {"action": "remove", "old_text": "x"}}'
    assert not hermes.may_concern_index(remove, {})
    add = b'{"tool_name": "memory", "tool_input": {"action": "add", "content": "x"}}'
    assert hermes.may_concern_index(add, {})


# --- the pure pieces ----------------------------------------------------------------------------


def test_simulate_follows_the_host() -> None:
    entries = ["a one", "b two", "c three"]
    assert hermesmemory.simulate(entries, [{"action": "add", "content": " d \n"}]) == [
        *entries,
        "d",
    ]
    assert hermesmemory.simulate(entries, [{"action": "add", "content": "a one"}]) == entries
    swap = [{"action": "replace", "old_text": "two", "content": "B"}]
    assert hermesmemory.simulate(entries, swap) == ["a one", "B", "c three"]
    assert hermesmemory.simulate(entries, [{"action": "remove", "old_text": "one"}]) == entries[1:]
    assert hermesmemory.simulate(entries, [{"action": "remove", "old_text": " "}]) is None
    assert hermesmemory.simulate(entries, [{"action": "add", "content": "  "}]) is None
    assert hermesmemory.simulate(["dup x", "dup x"], [{"action": "remove", "old_text": "dup"}]) == [
        "dup x"
    ]


def test_the_call_is_judged_by_the_dialect(tmp_path: Path) -> None:
    [judged] = hermes.tool_calls(call({"action": "add", "content": "x"}, tmp_path))
    assert judged.kind == toolcall.JUDGED and judged.judge is not None
    verdict = judged.judge({"HERMES_HOME": str(tmp_path / "h")}, None)
    assert verdict.kind == decision.SILENT


def test_the_config_scan_stays_linear_on_a_hostile_file(tmp_path: Path) -> None:
    home = tmp_path / "hermes"
    home.mkdir()
    hostile = (" " * 4096 + "memory_char_limit" + " " * 4096 + ":\n") * 120  # ~1 MiB
    (home / "config.yaml").write_text(hostile[: hermesmemory.CONFIG_LIMIT - 1])
    started = time.perf_counter()
    assert hermesmemory.configured_caps(str(home)) == {}
    assert time.perf_counter() - started < 2.0
    text = "\n".join(["  memory_char_limit:" + " " * 2_000_000 + "x"] * 2)  # 4 MiB, one run each
    started = time.perf_counter()
    assert hermesmemory._LIMIT_LINE.search(text) is None
    assert time.perf_counter() - started < 2.0


# --- the install: --global --guard-only --------------------------------------------------------


@pytest.fixture
def hermes_home(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "hermes-home"
    path.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(path))
    return path


def test_guard_only_registers_the_guard_alone(cli, project: Path, hermes_home: Path) -> None:
    assert HOSTS["hermes"].guard_only
    result = cli("init", "hermes", "--global", "--guard-only")
    assert result.code == 0, result
    config = (hermes_home / "config.yaml").read_text()
    assert "pre_tool_call:" in config and "post_tool_call:" in config
    assert "write_file|patch|terminal|memory" in config  # its own memory tool too
    assert "on_session_start" not in config and "pre_llm_call" not in config
    assert "--index" not in config
    assert not (hermes_home / "SOUL.md").exists()  # no rules, no store
    assert cli("uninstall", "hermes", "--global").code == 0
    assert not (hermes_home / "config.yaml").exists()


def test_a_full_install_still_gets_the_continuity_hooks(
    cli, project: Path, hermes_home: Path
) -> None:
    (project / "AGENTS.md").write_text("# Project\n")
    assert cli("init", "hermes", "--install-hooks").code == 0
    config = (hermes_home / "config.yaml").read_text()
    assert "on_session_start" in config and "pre_llm_call" in config
    assert json.dumps("write_file|patch|terminal|memory")[1:-1] in config
