"""Small parts of `engramory trace`: the line reader, self-call detection, scope, timestamps."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from engramory.trace import lines, scope
from engramory.trace.lines import ReadStats, read_lines
from engramory.trace.search import moment
from engramory.trace.selfcall import runs_trace, runs_trace_words


def _read(path: Path, select=None) -> tuple[list[tuple[int, bytes]], int]:
    stats = ReadStats()
    return list(read_lines(str(path), select, stats)), stats.unreadable


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 64, 1 << 20])
def test_lines_and_their_numbers_across_chunks(tmp_path: Path, monkeypatch, chunk: int) -> None:
    monkeypatch.setattr(lines, "CHUNK_SIZE", chunk)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\n\ntwo words\r\nthree\nhalf")
    assert _read(path) == ([(0, b"one"), (5, b"two words\r"), (16, b"three"), (22, b"half")], 0)

    def select(block: bytes) -> list[int]:
        at = block.find(b"w")
        return [at] if at >= 0 else []

    assert _read(path, select) == ([(5, b"two words\r")], 0)
    assert lines.line_numbers(str(path), [22, 0, 16, 5, 99]) == {0: 1, 5: 3, 16: 4, 22: 5}


@pytest.mark.parametrize("chunk", [3, 8, 1 << 20])
def test_a_line_over_the_limit_is_skipped_and_counted(
    tmp_path: Path, monkeypatch, chunk: int
) -> None:
    monkeypatch.setattr(lines, "CHUNK_SIZE", chunk)
    monkeypatch.setattr(lines, "MAX_LINE", 10)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"short\n" + b"x" * 25 + b"\nafter\n" + b"y" * 30)
    assert _read(path) == ([(0, b"short"), (32, b"after")], 2)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        _read(fifo)


def test_a_symlink_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "real.jsonl"
    target.write_bytes(b"x\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    with pytest.raises(OSError):
        _read(link)


@pytest.mark.parametrize(
    "command",
    [
        "engramory trace parser",
        "engramory --version; engramory trace x",
        "cd /p && ENGRAMORY_X=1 python3 -m engramory trace 'a b' | head",
        "/home/me/.local/bin/engramory trace --show abcdef",
        "uv run engramory trace x",
        "env -i engramory trace x",
        "bash -lc 'engramory trace x'",
        "C:/tools/engramory.exe trace x",
        "py -m engramory trace x",
    ],
)
def test_a_trace_call_is_recognised(command: str) -> None:
    assert runs_trace(command)


@pytest.mark.parametrize(
    "command",
    [
        "engramory doctor",
        "echo engramory trace",
        "grep 'engramory trace' README.md",
        "python -m engramory check",
        "engramory-trace x",
        "git log --grep trace engramory",
        "",
    ],
)
def test_other_commands_are_not_trace_calls(command: str) -> None:
    assert not runs_trace(command)


def test_a_word_list_command() -> None:
    assert runs_trace_words(["bash", "-lc", "engramory trace x"])
    assert runs_trace_words(["engramory", "trace", "x"])
    assert not runs_trace_words(["rg", "engramory trace"])


def test_roots_from_the_environment(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": " /a , ~/b ,", "CODEX_HOME": "~/cx"}
    assert scope.claude_roots(env) == [
        os.path.join("/a", "projects"),
        os.path.join(str(tmp_path), "b", "projects"),
    ]
    assert scope.codex_roots(env) == [
        os.path.join(str(tmp_path), "cx", "sessions"),
        os.path.join(str(tmp_path), "cx", "archived_sessions"),
    ]
    bare = {"HOME": str(tmp_path)}
    assert scope.claude_roots(bare) == [os.path.join(str(tmp_path), ".claude", "projects")]
    assert scope.codex_roots(bare)[0] == os.path.join(str(tmp_path), ".codex", "sessions")


def test_project_membership_by_recorded_directory() -> None:
    project = scope.Project("/w/proj")
    assert (
        project.holds("/w/proj")
        and project.holds("/w/proj/sub/deeper")
        and project.holds("/w/proj/")
    )
    assert not project.holds("/w/proj-x") and not project.holds("/w") and not project.holds(None)
    assert project.may_hold_folder("-w-proj") and project.may_hold_folder("-w-proj-sub")
    assert not project.may_hold_folder("-w-other")


def test_windows_paths_compare_with_any_slash_and_drive_case() -> None:
    project = scope.Project("c:/src/p")
    assert project.holds("C:\\src\\p\\sub") and project.holds("c:\\src\\p")
    assert not project.holds("D:\\src\\p")
    assert project.may_hold_folder("C--src-p") and project.may_hold_folder("c--src-p-sub")


def test_a_long_project_key_matches_its_hashed_folder() -> None:
    deep = "/w/" + "/".join(["segment"] * 40)
    project = scope.Project(deep)
    from engramory.store.automemory import sanitized

    hashed = sanitized(deep)[:200] + "-1a2b3c"
    assert project.may_hold_folder(hashed)
    assert project.holds(deep + "/x")


def test_timestamps() -> None:
    utc = datetime.timezone.utc
    assert moment("2026-07-01T07:27:40.079Z") == datetime.datetime(
        2026, 7, 1, 7, 27, 40, 79000, tzinfo=utc
    )
    assert moment("2026-07-01T23:30:00-02:00") == datetime.datetime(2026, 7, 2, 1, 30, tzinfo=utc)
    assert moment("2026-07-01T07:27:40.123456789Z").microsecond == 123456
    assert moment("2026-02-30T00:00:00Z") is None
    assert moment("yesterday") is None and moment(1700000000) is None


def test_shares_balance_sizes_and_keep_order() -> None:
    from engramory.trace.parallel import shares

    items = ["a", "b", "c", "d", "e"]
    split = shares(items, [50, 10, 40, 10, 10], 2)
    assert sorted(x for share in split for x in share) == items
    assert all(share == sorted(share) for share in split)
    assert {tuple(share) for share in split} == {("a", "d"), ("b", "c", "e")}
    assert shares([], [], 3) == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_parallel_run_returns_each_share_in_order_and_redoes_a_failed_child() -> None:
    from engramory.trace import parallel

    parent = os.getpid()

    def work(share):
        if share == [3] and os.getpid() != parent:
            raise RuntimeError("a child that fails")
        return [x * 10 for x in share]

    assert parallel.run([[1], [2, 5], [3]], work) == [[10], [20, 50], [30]]
