"""Where an install goes: the file a host loads, host homes, default project roots."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("existing", "target"),
    [
        ([], "AGENTS.md"),
        (["AGENTS.md"], "AGENTS.md"),
        (["CLAUDE.md"], "CLAUDE.md"),
        (["AGENTS.md", ".hermes.md"], ".hermes.md"),
        (["HERMES.md", "AGENTS.md"], "HERMES.md"),
    ],
)
def test_hermes_writes_the_file_it_will_load(
    cli, project: Path, existing: list[str], target: str
) -> None:
    for name in existing:
        (project / name).write_text(f"# {name}\n")
    assert cli("init", "hermes").code == 0
    assert "BEGIN ENGRAMORY HERMES" in (project / target).read_text()
    assert not (project / ".hermes.md").exists() or ".hermes.md" in existing
    assert cli("uninstall", "hermes").code == 0
    for name in existing:
        assert (project / name).read_text() == f"# {name}\n"


def test_dsh_home_install_uses_absolute_paths(cli, tmp_path: Path, home: Path, monkeypatch) -> None:
    dsh = tmp_path / "dsh-home"
    dsh.mkdir()
    monkeypatch.setenv("DSH_HOME", str(dsh))
    assert cli("init", "dsh", "--install-skill").code == 0
    text = (dsh / "AGENTS.md").read_text()
    assert f"{dsh}/.engramory-memory/MEMORY.md" in text
    assert (dsh / "skills" / "engramory" / "SKILL.md").is_file()
    project = tmp_path / "proj"
    project.mkdir()
    assert cli("init", "dsh", "--project-root", str(project), "--install-skill").code == 0
    assert "`.engramory-memory/MEMORY.md`" in (project / "AGENTS.md").read_text()
    assert (project / ".dsh" / "skills" / "engramory" / "SKILL.md").is_file()


def test_openclaw_defaults_to_its_workspace(cli, home: Path) -> None:
    assert cli("init", "openclaw").code == 0
    assert (
        "BEGIN ENGRAMORY OPENCLAW" in (home / ".openclaw" / "workspace" / "AGENTS.md").read_text()
    )
    assert (home / ".openclaw" / "workspace" / ".engramory-memory" / "MEMORY.md").is_file()


@pytest.mark.parametrize(
    ("host", "existing", "target"),
    [
        ("codex", ["AGENTS.override.md", "AGENTS.md"], "AGENTS.override.md"),
        ("opencode", ["CLAUDE.md"], "CLAUDE.md"),
        ("opencode", ["CLAUDE.md", "AGENTS.md"], "AGENTS.md"),
    ],
)
def test_block_goes_into_the_file_the_host_loads(
    cli, project: Path, host, existing, target
) -> None:
    for name in existing:
        (project / name).write_text(f"# {name}\n")
    assert cli("init", host).code == 0
    assert f"BEGIN ENGRAMORY {host.upper()}" in (project / target).read_text()
    assert not (project / "AGENTS.md").exists() or "AGENTS.md" in existing


def test_codex_home_and_hermes_home_are_honoured(
    cli, project: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hermes-home"))
    assert cli("init", "codex", "--global").code == 0
    assert (tmp_path / "codex-home" / "AGENTS.md").is_file()
    assert cli("init", "hermes", "--global", "--install-skill").code == 0
    assert (tmp_path / "hermes-home" / "SOUL.md").is_file()
    assert (tmp_path / "hermes-home" / "skills" / "engramory" / "SKILL.md").is_file()


def test_dsh_global_is_the_dsh_home(cli, home: Path) -> None:
    assert cli("init", "dsh", "--global").code == 0
    assert (home / ".dsh" / "AGENTS.md").is_file()
    assert (home / ".dsh" / ".engramory-memory" / "MEMORY.md").is_file()
    assert cli("init", "dsh").code == 0  # the default root is the same dsh home
    assert not (home / ".engramory-memory").exists()
