"""The host registry and the behaviour of single hosts: `engramory hosts`, host refusals."""

from __future__ import annotations

import json
from pathlib import Path

from installkit import (
    WRITE_HOSTS,
    refused,
)


def test_hermes_skill_needs_global(cli, project: Path, home: Path) -> None:
    refused = cli("init", "hermes", "--install-skill")
    assert refused.code == 64 and "--global" in refused.err
    assert cli("init", "hermes", "--global", "--install-skill").code == 0
    assert (home / ".hermes" / "skills" / "engramory" / "SKILL.md").is_file()
    assert "BEGIN ENGRAMORY HERMES" in (home / ".hermes" / "SOUL.md").read_text()


def test_cline_legacy_single_file(cli, project: Path) -> None:
    (project / ".clinerules").write_text("old rules\n")
    refused(cli, project, "init", "cline", match="single file")


def test_kiro_store_under_steering(cli, project: Path) -> None:
    refused(
        cli,
        project,
        "init",
        "kiro",
        "--memory-root",
        ".kiro/steering/memory",
        match="steering",
        code=64,
    )


def test_hosts_table_matches_init(cli, project: Path) -> None:
    rows = json.loads(cli("hosts", "--format", "json").out)
    assert [row["host"] for row in rows] == WRITE_HOSTS or sorted(
        r["host"] for r in rows
    ) == WRITE_HOSTS
    for row in rows:
        host = row["host"]
        root = project / host
        root.mkdir()
        (root / ".git").mkdir()
        extra = ["--install-skill"] if row["skill"] else []
        if row["hook_config"]:
            extra.append("--install-hooks")
        result = cli("init", host, "--project-root", str(root), *extra)
        assert result.code == 0, (host, result.err)
        if host != "hermes":
            assert (root / row["rules"]).is_file(), host
        if row["skill"]:
            assert (root / row["skill"] / "SKILL.md").is_file(), host
        if row["hook_config"]:
            assert (root / row["hook_config"]).is_file(), host
        assert row["wiring"] in ("verified", "documented")
    text = cli("hosts").out
    for row in rows:
        assert f"{row['host']} ({row['label']})" in text


def test_hermes_refuses_when_a_parent_context_file_wins(cli, project: Path) -> None:
    sub = project / "service"
    sub.mkdir()
    (project / ".hermes.md").write_text("# parent\n")
    refused(cli, project, "init", "hermes", "--project-root", str(sub), match="parent folder")


def test_hermes_refuses_to_hide_cursor_rules(cli, project: Path) -> None:
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / ".cursor" / "rules" / "team.mdc").write_text("x\n")
    refused(cli, project, "init", "hermes", match="cursor/rules")
    (project / "AGENTS.md").write_text("# agents\n")
    assert cli("init", "hermes").code == 0
