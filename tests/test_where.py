"""``engramory where claude``: the folder, the rule that chose it, and its index (issue 24)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest


def key_of(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path.resolve()))


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder


def test_json_for_a_folder_that_does_not_exist_yet(cli, tmp_path: Path, config: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    result = cli("where", "claude", "--project-root", str(project), "--format", "json")
    assert result.code == 0, result
    answer = json.loads(result.out)
    assert answer == {
        "host": "claude",
        "project": str(project),
        "path": str(config / "projects" / key_of(project) / "memory"),
        "rule": "default",
        "settings_file": None,
        "exists": False,
        "candidates": [],
        "index": None,
    }


def test_text_names_the_folder_the_rule_and_the_index(cli, tmp_path: Path, config: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    memory = config / "projects" / key_of(project) / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("x\n" * 160)
    result = cli("where", "claude", "--project-root", str(project))
    assert result.code == 0
    assert f"  {memory} (exists)" in result.out
    assert "chosen by: the host's default" in result.out
    assert "index: WARN: " in result.out and "160 lines" in result.out
    data = json.loads(
        cli("where", "claude", "--project-root", str(project), "--format", "json").out
    )
    assert (data["exists"], data["index"]["lines"], data["index"]["verdict"]) == (True, 160, "warn")


def test_a_settings_file_that_chose_it_is_named(cli, tmp_path: Path, config: Path) -> None:
    project = tmp_path / "app"
    (project / ".claude").mkdir(parents=True)
    local = project / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "mine")}))
    data = json.loads(
        cli("where", "claude", "--project-root", str(project), "--format", "json").out
    )
    assert (data["rule"], data["path"], data["settings_file"]) == (
        "settings",
        str(tmp_path / "mine"),
        str(local),
    )
    text = cli("where", "claude", "--project-root", str(project)).out
    assert f"chosen by: autoMemoryDirectory in {local}" in text


def test_several_candidates_for_a_long_key_are_listed(cli, tmp_path: Path, config: Path) -> None:
    project = tmp_path / ("a" * 110) / ("b" * 110)
    project.mkdir(parents=True)
    prefix = key_of(project)[:200]
    for suffix in ("-h1", "-h2"):
        (config / "projects" / (prefix + suffix) / "memory").mkdir(parents=True)
    result = cli("where", "claude", "--project-root", str(project))
    assert "2 folders start with it" in result.out
    data = json.loads(
        cli("where", "claude", "--project-root", str(project), "--format", "json").out
    )
    assert len(data["candidates"]) == 2 and data["path"].endswith("-h1/memory")


def test_an_index_that_leads_outside_the_folder_is_not_measured(
    cli, tmp_path: Path, config: Path
) -> None:
    project = tmp_path / "app"
    project.mkdir()
    memory = config / "projects" / key_of(project) / "memory"
    memory.mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("x\n" * 5)
    (memory / "MEMORY.md").symlink_to(secret)
    result = cli("where", "claude", "--project-root", str(project))
    assert "leads outside the folder: not measured" in result.out


def test_the_project_defaults_to_the_git_work_tree(
    cli, tmp_path: Path, config: Path, monkeypatch
) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    data = json.loads(cli("where", "claude", "--format", "json").out)
    assert data["project"] == str(project)
    assert data["path"] == str(config / "projects" / key_of(project) / "memory")


def test_errors(cli, tmp_path: Path, config: Path) -> None:
    unknown = cli("where", "cursor")
    assert unknown.code == 64 and "knows claude" in unknown.err
    missing = cli("where", "claude", "--project-root", str(tmp_path / "nope"))
    assert missing.code == 66 and "not an existing directory" in missing.err
