"""`engramory trace` finds every session (issue 39, item 3): scope by the recorded working
directory whatever folder a session is filed under, subagent prompts as role ``agent``,
``--list`` with each session's cwd, error newlines, sparse files, and ``ß``-like folding."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tracekit import (
    CLAUDE_SESSION,
    CODEX_SESSION,
    Tree,
    assistant,
    event,
    session_meta,
    text,
    user,
    write_lines,
)

MOVED_SESSION = "m0ved000-0000-4000-8000-000000000001"
STRANGER_SESSION = "57a00000-0000-4000-8000-000000000002"
SUBAGENT_CODEX = "0199f000-aaaa-4bbb-8ccc-ddddeeee00a9"


def ts(day: int, minute: int = 0) -> str:
    return f"2026-08-{day:02d}T10:{minute:02d}:00.000Z"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    made = Tree(tmp_path)
    for name, value in made.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(made.project)
    cwd = str(made.project)
    made.claude(
        made.project,
        CLAUDE_SESSION,
        [
            user("u1", "the zebra plan", cwd, ts(1)),
            assistant("a1", [text("zebra agreed")], cwd, ts(1, 1)),
            user("u2", "Straße names in the zebra list", cwd, ts(1, 2)),
        ],
    )
    # Filed under a folder named after another path (the project was moved or its key
    # was made differently), but recorded in the project.
    write_lines(
        made.projects / "-old-place-renamed" / f"{MOVED_SESSION}.jsonl",
        [
            {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}},
            user("m1", "zebra from the moved folder", cwd, ts(2)),
        ],
    )
    # A folder whose name does not fit and whose sessions recorded another directory.
    write_lines(
        made.projects / "-somewhere-else" / f"{STRANGER_SESSION}.jsonl",
        [user("s1", "zebra from a stranger", "/somewhere/else", ts(3))],
    )
    return made


def found(cli, *args: str) -> list[dict]:
    result = cli("trace", *args, "--format", "json")
    assert result.code in (0, 1), result
    return [json.loads(line) for line in result.out.splitlines()]


def said(cli, *args: str) -> list[str]:
    return [hit["text"] for hit in found(cli, *args)]


# --- scope by the recorded working directory --------------------------------------------


def test_a_session_filed_under_a_mismatching_folder_is_found_by_default_scope(
    cli, tree: Tree
) -> None:
    assert "zebra from the moved folder" in said(cli, "zebra")
    assert "zebra from a stranger" not in said(cli, "zebra")


def test_a_session_filed_under_a_mismatching_folder_is_found_by_project(
    cli, tree: Tree, tmp_path: Path
) -> None:
    os.chdir(tmp_path)
    assert "zebra from the moved folder" in said(cli, "zebra", "--project", str(tree.project))
    assert said(cli, "zebra", "--project", "/somewhere/else") == ["zebra from a stranger"]


def test_a_mismatching_folder_is_listed_with_its_cwd(cli, tree: Tree) -> None:
    rows = {row["session"]: row for row in found(cli, "--list")}
    assert set(rows) == {CLAUDE_SESSION, MOVED_SESSION}
    assert rows[MOVED_SESSION]["cwd"] == str(tree.project)


def test_a_folder_is_indexed_by_a_bounded_read_of_its_head(cli, tree: Tree, monkeypatch) -> None:
    from engramory.trace import search

    monkeypatch.setattr(search, "HEAD_LIMIT", 1 << 10)
    big = "x" * (1 << 12)
    write_lines(
        tree.projects / "-late-cwd" / "1a7e0000-0000-4000-8000-000000000003.jsonl",
        [{"type": "summary", "summary": big}] * 4
        + [user("l1", "zebra with a late cwd", str(tree.project), ts(4))],
    )
    assert "zebra with a late cwd" not in said(cli, "zebra")
    monkeypatch.setattr(search, "HEAD_LIMIT", 1 << 20)
    assert "zebra with a late cwd" in said(cli, "zebra")


# --- --list carries the cwd -------------------------------------------------------------


def test_list_json_carries_every_sessions_cwd_across_all_projects(cli, tree: Tree) -> None:
    tree.codex(CODEX_SESSION, [session_meta(ts(5), CODEX_SESSION, "/codex/work")])
    rows = {row["session"]: row["cwd"] for row in found(cli, "--list", "--all-projects")}
    assert rows == {
        CLAUDE_SESSION: str(tree.project),
        MOVED_SESSION: str(tree.project),
        STRANGER_SESSION: "/somewhere/else",
        CODEX_SESSION: "/codex/work",
    }


# --- subagent prompts -------------------------------------------------------------------


def _claude_subagent(tree: Tree) -> None:
    cwd = str(tree.project)
    folder = tree.folder(tree.project) / CLAUDE_SESSION / "subagents"
    write_lines(
        folder / "agent-a1.jsonl",
        [
            user("p1", "find every zebra call", cwd, ts(1, 5), isSidechain=True, agentId="a1"),
            assistant("p2", [text("three zebra calls")], cwd, ts(1, 6), isSidechain=True),
        ],
    )


def _codex_subagent(tree: Tree) -> None:
    meta = session_meta(ts(6), SUBAGENT_CODEX, str(tree.project))
    meta["payload"]["source"] = {"subagent": "review"}
    tree.codex(SUBAGENT_CODEX, [meta, event(ts(6, 1), "user_message", "review the zebra diff")])


def test_a_claude_subagent_prompt_is_role_agent_not_user(cli, tree: Tree) -> None:
    _claude_subagent(tree)
    roles = {hit["text"]: hit["role"] for hit in found(cli, "zebra")}
    assert roles["find every zebra call"] == "agent"
    assert roles["three zebra calls"] == "assistant"
    assert roles["the zebra plan"] == "user"
    assert "find every zebra call" not in said(cli, "zebra", "--role", "user")
    assert said(cli, "zebra", "--role", "agent") == ["find every zebra call"]


def test_a_codex_subagent_prompt_is_role_agent_not_user(cli, tree: Tree) -> None:
    _codex_subagent(tree)
    roles = {hit["text"]: hit["role"] for hit in found(cli, "zebra")}
    assert roles["review the zebra diff"] == "agent"
    assert "review the zebra diff" not in said(cli, "zebra", "--role", "user")


def test_a_codex_session_started_by_a_person_keeps_role_user(cli, tree: Tree) -> None:
    meta = session_meta(ts(6), SUBAGENT_CODEX, str(tree.project))
    meta["payload"]["source"] = "cli"
    tree.codex(SUBAGENT_CODEX, [meta, event(ts(6, 1), "user_message", "zebra by hand")])
    assert said(cli, "zebra by hand", "--role", "user") == ["zebra by hand"]


# --- error messages ---------------------------------------------------------------------


def test_an_ambiguous_show_prefix_prints_real_newlines(cli, tree: Tree) -> None:
    for session in (CODEX_SESSION, "0199f000-aaaa-4bbb-8ccc-ddddeeee0002"):
        tree.codex(session, [event(ts(7), "user_message", "hi")])
    result = cli("trace", "--show", "0199f000")
    assert result.code == 64
    lines = result.err.splitlines()
    assert "\\n" not in result.err
    assert lines[1:] == [f"  {CODEX_SESSION}", "  0199f000-aaaa-4bbb-8ccc-ddddeeee0002"]


def test_control_characters_in_an_error_are_still_escaped(cli, tree: Tree, monkeypatch) -> None:
    """A newline inside a message or a detail is text (a path may hold one): escaped, so it
    cannot forge a line; the lines an error means are its details, one printed line each."""
    from engramory.commands import trace
    from engramory.util.errors import UsageError

    def refuse(args) -> int:
        raise UsageError("bad \x1b[31mred\u2028here\nforged line\r", ("  a\nb\x07",))

    monkeypatch.setattr(trace, "_search", lambda args, stats: refuse(args))
    result = cli("trace", "zebra")
    assert result.code == 64
    assert result.err == (
        "engramory trace: bad \\x1b[31mred\\u2028here\\nforged line\\r\n  a\\nb\\x07\n"
    )


# --- sparse files -----------------------------------------------------------------------


def test_a_sparse_file_is_skipped_and_said_so(cli, tree: Tree) -> None:
    path = tree.folder(tree.project) / "5ba75e00-0000-4000-8000-000000000009.jsonl"
    write_lines(path, [user("h1", "zebra before the hole", str(tree.project), ts(8))])
    with path.open("r+b") as handle:
        handle.truncate(64 << 30)  # 64 GiB of apparent size, a few bytes of data
    if os.stat(path).st_blocks * 512 >= os.stat(path).st_size // 8:
        pytest.skip("this file system does not make sparse files")
    result = cli("trace", "zebra", "--format", "json")
    assert result.code == 0
    assert "zebra before the hole" not in result.out
    assert f"skipped {path}: a sparse file, mostly holes" in result.err


def test_a_small_or_dense_file_is_not_taken_for_sparse(tmp_path: Path) -> None:
    from engramory.trace.lines import mostly_holes

    dense = tmp_path / "dense.jsonl"
    dense.write_bytes(b'{"a":1}\n' * (1 << 18))
    small = tmp_path / "small.jsonl"
    with small.open("wb") as handle:
        handle.truncate(1 << 16)
    assert not mostly_holes(str(dense)) and not mostly_holes(str(small))
    assert not mostly_holes(str(tmp_path / "missing.jsonl"))


# --- folding ----------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["strasse", "STRASSE", "straße", "STRAẞE"])
def test_strasse_finds_strasse_with_a_sharp_s(cli, tree: Tree, query: str) -> None:
    assert said(cli, query) == ["Straße names in the zebra list"]


def test_strasse_is_not_found_case_sensitively(cli, tree: Tree) -> None:
    assert said(cli, "strasse", "--case-sensitive") == []
