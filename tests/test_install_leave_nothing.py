"""Issue 31 (item 5) and issue 32: `uninstall` leaves nothing `init` made behind -- a
`.gitignore` it created holding only rules uninstall takes back -- and never deletes a file that
was there before; init's `.gitignore` line says one true thing; a user-wide uninstall of the
guard alone says nothing about a store it never had."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engramory.wiring import managed

HOOK_RULE = "/.claude/settings.local.json"


def gitignore_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if re.match(r"\s+\S+\s+\.gitignore\b", line)]


def test_init_native_says_one_thing_about_the_gitignore(cli, project: Path) -> None:
    result = cli("init", "claude", "--native", "--install-hooks")
    assert result.code == 0, result
    (line,) = gitignore_lines(result.out)
    assert line.split()[0] == "created"
    assert f"ignore {HOOK_RULE}" in line
    assert "no entry for the store: it is Claude Code's own memory folder" in line


def test_init_native_without_hooks_still_says_why_the_store_has_no_entry(
    cli, project: Path
) -> None:
    result = cli("init", "claude", "--native")
    assert result.code == 0, result
    (line,) = gitignore_lines(result.out)
    assert line.split()[0] == "skipped" and "no entry for the store" in line
    assert not (project / ".gitignore").exists()


def test_a_gitignore_init_created_is_deleted_when_nothing_else_is_left(cli, project: Path) -> None:
    assert cli("init", "claude", "--native", "--install-hooks").code == 0
    ignore = project / ".gitignore"
    assert ignore.read_text().splitlines()[0] == managed.CREATED_MARKER
    assert HOOK_RULE in ignore.read_text()
    result = cli("uninstall", "claude", "--native")
    assert result.code == 0, result
    assert re.search(r"removed\s+\.gitignore \(dropped the .* rule; init created it", result.out)
    assert not ignore.exists()
    assert sorted(p.name for p in project.iterdir()) == [".git"]  # .claude/ went too


def test_a_gitignore_init_created_that_the_user_added_to_is_kept(cli, project: Path) -> None:
    assert cli("init", "claude", "--native", "--install-hooks").code == 0
    ignore = project / ".gitignore"
    ignore.write_text(ignore.read_text() + "dist/\n")
    assert cli("uninstall", "claude", "--native").code == 0
    assert ignore.read_text() == managed.CREATED_MARKER + "\ndist/\n"


@pytest.mark.parametrize("before", [b"", b"node_modules/\n", b"build/\r\n"], ids=repr)
def test_a_gitignore_that_was_there_before_init_gets_its_bytes_back(
    cli, project: Path, before: bytes
) -> None:
    ignore = project / ".gitignore"
    ignore.write_bytes(before)
    assert cli("init", "claude", "--native", "--install-hooks").code == 0
    assert managed.CREATED_MARKER.encode() not in ignore.read_bytes()
    result = cli("uninstall", "claude", "--native")
    assert result.code == 0, result
    assert ignore.read_bytes() == before  # a 0-byte file the user had stays, 0 bytes
    assert re.search(r"updated\s+\.gitignore \(dropped the", result.out)


def test_a_gitignore_holding_the_store_entry_is_never_marked_or_deleted(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks").code == 0
    ignore = project / ".gitignore"
    assert managed.CREATED_MARKER not in ignore.read_text()  # the store's entry stays for good
    assert cli("uninstall", "claude").code == 0
    assert "/.engramory-memory/" in ignore.read_text()
    assert HOOK_RULE not in ignore.read_text()


def test_owned_hook_files_rules_go_and_take_the_gitignore_with_them(
    cli, project: Path, tmp_path: Path
) -> None:
    store = str(tmp_path / "elsewhere")  # outside the project: no entry for it
    assert cli("init", "cline", "--install-hooks", "--memory-root", store).code == 0
    assert "/.clinerules/hooks/PreToolUse" in (project / ".gitignore").read_text()
    result = cli("uninstall", "cline", "--memory-root", store)
    assert result.code == 0, result
    assert len(gitignore_lines(result.out)) == 1  # every rule dropped in one step
    assert sorted(p.name for p in project.iterdir()) == [".git"]


def test_the_global_guard_only_uninstall_says_nothing_about_a_store(
    cli, project: Path, home: Path
) -> None:
    assert cli("init", "claude", "--global", "--guard-only").code == 0
    result = cli("uninstall", "claude", "--global")
    assert result.code == 0, result
    assert "memory store" not in result.out
    assert re.search(r"removed\s+\.claude/settings\.json", result.out)


def test_a_project_uninstall_without_a_store_still_says_none_was_found(cli, project: Path) -> None:
    result = cli("uninstall", "claude")
    assert result.code == 0, result
    assert "memory store: none found at" in result.out


def test_marker_helpers() -> None:
    created = managed.mark_created("# c\n/x\n")
    assert created == managed.CREATED_MARKER + "\n# c\n/x\n"
    assert managed.mark_created("# c\r\n/x\r\n").startswith(managed.CREATED_MARKER + "\r\n")
    assert managed.only_created_marker(managed.CREATED_MARKER + "\n\n")
    assert not managed.only_created_marker(managed.CREATED_MARKER + "\n/x\n")
    assert not managed.only_created_marker("")  # an empty file the user had is not ours


@pytest.mark.parametrize("global_", [False, True], ids=["project", "global"])
def test_the_kiro_agents_folder_init_created_goes_and_one_with_agents_stays(
    cli, project: Path, home: Path, global_: bool
) -> None:
    where = ["--global"] if global_ else []
    base = home if global_ else project
    assert cli("init", "kiro", *where, "--install-hooks").code == 0
    assert (base / ".kiro" / "agents" / "engramory.json").is_file()
    assert cli("uninstall", "kiro", *where).code == 0
    assert not (base / ".kiro" / "agents").exists()
    agents = base / ".kiro" / "agents"
    agents.mkdir(parents=True)
    (agents / "mine.json").write_text('{"name": "mine"}\n')
    assert cli("init", "kiro", *where, "--install-hooks").code == 0
    assert cli("uninstall", "kiro", *where).code == 0
    assert sorted(p.name for p in agents.iterdir()) == ["mine.json"]


def test_a_gitignore_left_holding_only_the_marker_is_deleted(cli, project: Path) -> None:
    assert cli("init", "claude", "--native", "--install-hooks").code == 0
    ignore = project / ".gitignore"
    ignore.write_text(managed.CREATED_MARKER + "\n")  # its rule already taken back
    result = cli("uninstall", "claude", "--native")
    assert result.code == 0, result
    assert re.search(r"removed\s+\.gitignore \(init created it and nothing else", result.out)
    assert not ignore.exists()
