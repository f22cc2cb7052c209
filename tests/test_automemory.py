"""Claude Code's auto-memory folder, resolved as the host resolves it (issue 24).

Every expected path here is written out from the host's rules in
research/claude-native-memory.md §1, never computed with the code under test.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from engramory.store import automemory, discovery


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A home and a Claude Code configuration folder of their own."""
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(tmp_path / "config")}


def key_of(path: Path) -> str:
    """The host's folder name for an ASCII path: every character outside [A-Za-z0-9] -> '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(path.resolve()))


def settings(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"autoMemoryDirectory": value, "other": 1}), encoding="utf-8")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_sanitizing_replaces_every_utf16_unit_outside_ascii_alnum() -> None:
    assert automemory.sanitized("/home/ann/app") == "-home-ann-app"
    assert automemory.sanitized("/srv/café_1") == "-srv-caf--1"
    assert automemory.sanitized("/x/\U0001f600y") == "-x---y"  # an emoji is two UTF-16 units
    assert automemory.sanitized("/Ab9.z") == "-Ab9-z"


def test_default_folder_outside_git_is_keyed_by_the_directory(tmp_path: Path, env: dict) -> None:
    project = tmp_path / "plain dir"
    project.mkdir()
    found = automemory.resolve(project, env)
    key = key_of(project)
    assert found.rule == automemory.DEFAULT
    assert found.path == tmp_path / "config" / "projects" / key / "memory"
    assert found.settings_file is None and found.candidates == ()
    assert not found.exists


def test_config_dir_defaults_to_dot_claude_in_home(tmp_path: Path, env: dict) -> None:
    del env["CLAUDE_CONFIG_DIR"]
    found = automemory.resolve(tmp_path, env)
    assert found.path.parent.parent == Path(env["HOME"]) / ".claude" / "projects"


def test_sub_directories_and_worktrees_share_the_main_work_trees_folder(
    tmp_path: Path, env: dict
) -> None:
    main = tmp_path / "repo"
    (main / "src" / "deep").mkdir(parents=True)
    git("init", "-q", cwd=main)
    git(
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
        cwd=main,
    )
    git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=main)
    expected = tmp_path / "config" / "projects" / key_of(main) / "memory"
    assert automemory.resolve(main, env).path == expected
    assert automemory.resolve(main / "src" / "deep", env).path == expected
    assert automemory.resolve(tmp_path / "wt", env).path == expected


def test_a_submodule_keeps_its_own_folder(tmp_path: Path, env: dict) -> None:
    sub = tmp_path / "outer" / "sub"
    sub.mkdir(parents=True)
    (tmp_path / "outer" / ".git" / "modules" / "sub").mkdir(parents=True)
    (sub / ".git").write_text("gitdir: ../.git/modules/sub\n")
    found = automemory.resolve(sub, env)
    assert found.path.parent.name == key_of(sub)


def test_a_symlinked_project_path_is_resolved(tmp_path: Path, env: dict) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert automemory.resolve(tmp_path / "link", env).path == automemory.resolve(real, env).path
    assert automemory.resolve(tmp_path / "link", env).path.parent.name.endswith("-real")


def test_the_override_wins_and_is_taken_as_written(tmp_path: Path, env: dict) -> None:
    settings(tmp_path / ".claude" / "settings.local.json", str(tmp_path / "from-settings"))
    env[automemory.OVERRIDE_ENV] = "~/as-written/"
    found = automemory.resolve(tmp_path, env)
    assert (found.rule, found.path) == (automemory.OVERRIDE, Path("~/as-written"))


def test_local_project_settings_then_user_settings(tmp_path: Path, env: dict) -> None:
    project = tmp_path / "p"
    project.mkdir()
    user_settings = tmp_path / "config" / "settings.json"
    settings(user_settings, "~/user-memory/")
    found = automemory.resolve(project, env)
    assert (found.rule, found.path) == (automemory.SETTINGS, Path(env["HOME"]) / "user-memory")
    assert found.settings_file == user_settings
    local = project / ".claude" / "settings.local.json"
    settings(local, str(tmp_path / "local-memory"))
    found = automemory.resolve(project, env)
    assert (found.path, found.settings_file) == (tmp_path / "local-memory", local)


def test_the_shared_project_settings_are_ignored(tmp_path: Path, env: dict) -> None:
    settings(tmp_path / ".claude" / "settings.json", str(tmp_path / "planted"))
    assert automemory.resolve(tmp_path, env).rule == automemory.DEFAULT


@pytest.mark.parametrize("value", ["relative/dir", "C:", "//server/share", "a\0b", 7, "", "~"])
def test_a_setting_the_host_would_reject_is_skipped(
    tmp_path: Path, env: dict, value: object
) -> None:
    settings(tmp_path / ".claude" / "settings.local.json", value)
    found = automemory.resolve(tmp_path, env)
    assert found.rule == automemory.DEFAULT or found.path == Path(env["HOME"])


@pytest.mark.parametrize("content", [b"{not json", b"[]", b"\xff\xfe", b"x" * (2 * 1024 * 1024)])
def test_unreadable_settings_fall_through(tmp_path: Path, env: dict, content: bytes) -> None:
    local = tmp_path / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_bytes(content)
    assert automemory.resolve(tmp_path, env).rule == automemory.DEFAULT


def test_settings_that_are_a_fifo_do_not_block(tmp_path: Path, env: dict) -> None:
    local = tmp_path / ".claude" / "settings.local.json"
    local.parent.mkdir()
    os.mkfifo(local)
    assert automemory.resolve(tmp_path, env).rule == automemory.DEFAULT


def test_a_key_over_200_characters_matches_existing_folders_by_prefix(
    tmp_path: Path, env: dict
) -> None:
    project = tmp_path / ("d" * 120) / ("e" * 120)
    project.mkdir(parents=True)
    key = key_of(project)
    assert len(key) > 200
    projects = tmp_path / "config" / "projects"
    older, newer = projects / (key[:200] + "-abc123"), projects / (key[:200] + "-zz9")
    for folder in (older, newer):
        (folder / "memory").mkdir(parents=True)
        (folder / "memory" / "MEMORY.md").write_text("- x\n")
    os.utime(older / "memory" / "MEMORY.md", (1, 1))
    found = automemory.resolve(project, env)
    assert found.path == newer / "memory"
    assert found.candidates == (older, newer)
    for folder in (older, newer):
        (folder / "memory" / "MEMORY.md").unlink()
    (older / "memory" / "MEMORY.md").write_text("- x\n")
    assert automemory.resolve(project, env).path == older / "memory"


def test_a_long_key_without_a_folder_yet_is_cut_at_200(tmp_path: Path, env: dict) -> None:
    project = tmp_path / ("f" * 250)
    project.mkdir()
    found = automemory.resolve(project, env)
    assert len(found.path.parent.name) == 200 and found.candidates == ()


def test_is_auto_memory(tmp_path: Path, env: dict) -> None:
    projects = tmp_path / "config" / "projects"
    assert automemory.is_auto_memory(projects / "-home-x" / "memory", env)
    assert not automemory.is_auto_memory(projects / "-home-x" / "notes", env)
    assert not automemory.is_auto_memory(tmp_path / "elsewhere" / "memory", env)


# --- discovery falls back to it -------------------------------------------------------------


def test_discovery_finds_the_native_folder_after_the_project_stores(
    tmp_path: Path, env: dict
) -> None:
    project = tmp_path / "app"
    (project / "sub").mkdir(parents=True)
    (project / ".git").mkdir()
    native = automemory.resolve(project, env).path
    native.mkdir(parents=True)
    (native / "MEMORY.md").write_text("- [a](a.md) - a\n")
    found = discovery.locate(environ=env, cwd=project / "sub")
    assert found.root == native
    assert "Claude Code's auto-memory folder" in found.source
    (project / ".engramory-memory").mkdir()
    assert discovery.locate(environ=env, cwd=project / "sub").root == project / ".engramory-memory"


def test_discovery_says_what_it_tried_when_the_native_folder_has_no_index(
    tmp_path: Path, env: dict
) -> None:
    (tmp_path / ".git").mkdir()
    native = automemory.resolve(tmp_path, env).path
    with pytest.raises(Exception) as raised:
        discovery.locate(environ=env, cwd=tmp_path)
    assert f"Claude Code's auto-memory folder {native}: no MEMORY.md" in str(raised.value)
