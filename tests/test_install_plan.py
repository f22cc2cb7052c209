"""`engramory init` / `uninstall` for every host: idempotent, reversible, safe (the install plan)."""

from __future__ import annotations

from pathlib import Path

import pytest
from installkit import (
    SKILLED,
    WRITE_HOSTS,
    digest,
    init,
    owner_store,
    refused,
    rules_path,
    uninstall,
)

from conftest import REPO
from engramory.hosts.base import BLOCK
from engramory.hosts.registry import HOSTS


@pytest.mark.parametrize("host", WRITE_HOSTS)
def test_init_into_an_empty_project(cli, project: Path, host: str) -> None:
    extra = ["--install-skill"] if host in SKILLED else []
    result = init(cli, host, project, *extra)
    assert result.code == 0, result.err
    index = project / ".engramory-memory" / "MEMORY.md"
    assert index.read_bytes() == (REPO / "templates" / "MEMORY.md").read_bytes()
    assert "/.engramory-memory/" in (project / ".gitignore").read_text()
    text = rules_path(host, project).read_text()
    assert "## Memory (Engramory)" in text
    assert ".engramory-memory/MEMORY.md" in text and "<MEMORY_ROOT>" not in text
    if HOSTS[host].rules_kind == BLOCK:
        assert f"<!-- BEGIN ENGRAMORY {host.upper()} -->" in text
    else:
        assert "<!-- Managed by Engramory:" in text
    if host in SKILLED:
        skill = project / HOSTS[host].skill
        assert (skill / "SKILL.md").read_bytes() == (REPO / "SKILL.md").read_bytes()
        assert (skill / "templates" / "MEMORY.md").is_file()
    assert "store: " in result.out


@pytest.mark.parametrize("host", WRITE_HOSTS)
def test_init_twice_is_byte_identical(cli, project: Path, host: str) -> None:
    extra = ["--install-skill"] if host in SKILLED else []
    assert init(cli, host, project, *extra).code == 0
    first = digest(project)
    again = init(cli, host, project, *extra)
    assert again.code == 0
    assert digest(project) == first
    assert "created" not in again.out and "updated" not in again.out


@pytest.mark.parametrize("host", WRITE_HOSTS)
def test_uninstall_restores_the_tree_and_keeps_the_store(cli, project: Path, host: str) -> None:
    extra = ["--install-skill"] if host in SKILLED else []
    before = digest(project)
    assert init(cli, host, project, *extra).code == 0
    (project / ".engramory-memory" / "note.md").write_text("a note the user wrote\n")
    result = uninstall(cli, host, project)
    assert result.code == 0, result.err
    after = digest(project, skip=(".git", ".engramory-memory", ".gitignore"))
    assert after == {k: v for k, v in before.items() if k not in (".gitignore",)}
    assert (project / ".engramory-memory" / "note.md").read_text() == "a note the user wrote\n"
    assert (project / ".engramory-memory" / "MEMORY.md").is_file()
    assert "/.engramory-memory/" in (project / ".gitignore").read_text()
    assert "NOT touched" in result.out


@pytest.mark.parametrize("host", WRITE_HOSTS)
def test_uninstall_twice_is_a_no_op(cli, project: Path, host: str) -> None:
    assert init(cli, host, project).code == 0
    assert uninstall(cli, host, project).code == 0
    state = digest(project)
    again = uninstall(cli, host, project)
    assert again.code == 0
    assert digest(project) == state
    assert "removed" not in again.out and "updated" not in again.out


@pytest.mark.parametrize("host", WRITE_HOSTS)
def test_dry_runs_write_nothing(cli, project: Path, host: str) -> None:
    extra = ["--install-skill"] if host in SKILLED else []
    empty = digest(project)
    plan = init(cli, host, project, *extra, "--dry-run")
    assert plan.code == 0 and "would create" in plan.out and "nothing was written" in plan.out
    assert digest(project) == empty
    assert init(cli, host, project, *extra).code == 0
    installed = digest(project)
    plan = uninstall(cli, host, project, "--dry-run")
    assert plan.code == 0 and ("would remove" in plan.out or "would update" in plan.out)
    assert digest(project) == installed


@pytest.mark.parametrize("host", WRITE_HOSTS)
def test_reader_install_and_uninstall(cli, project: Path, tmp_path: Path, host: str) -> None:
    store = owner_store(tmp_path)
    before = digest(project)
    store_before = digest(store)
    result = init(cli, f"{host}-reader", project, "--memory-root", str(store))
    assert result.code == 0, result.err
    assert digest(store) == store_before  # the owner's store is not touched
    assert not (project / ".engramory-memory").exists() and not (project / ".gitignore").exists()
    written = set(digest(project)) - set(before)
    texts = "".join((project / p).read_text() for p in written if (project / p).is_file())
    assert "read-only" in texts and "engramory check" not in texts
    assert init(cli, f"{host}-reader", project, "--memory-root", str(store)).code == 0
    assert uninstall(cli, f"{host}-reader", project, "--memory-root", str(store)).code == 0
    assert digest(project) == before


def test_reader_and_writer_blocks_do_not_stack(cli, project: Path, tmp_path: Path) -> None:
    """A reader block beside the same host's writer block contradicts it: refused both ways."""
    store = owner_store(tmp_path)
    assert cli("init", "codex").code == 0
    refused(
        cli,
        project,
        "init",
        "codex-reader",
        "--memory-root",
        str(store),
        match="`engramory uninstall codex` first",
    )
    assert cli("uninstall", "codex").code == 0
    assert cli("init", "codex-reader", "--memory-root", str(store)).code == 0
    refused(cli, project, "init", "codex", match="`engramory uninstall codex-reader` first")
    assert cli("init", "claude").code == 0  # another host's writer block is not a conflict


def test_memory_root_equal_to_project_root(cli, project: Path) -> None:
    refused(
        cli, project, "init", "claude", "--memory-root", ".", match="project root itself", code=64
    )


def test_store_overlapping_the_skill(cli, project: Path) -> None:
    refused(
        cli,
        project,
        "init",
        "claude",
        "--install-skill",
        "--memory-root",
        ".claude/skills/engramory/notes",
        match="overlap",
        code=64,
    )


def test_rules_file_symlinked_out_of_the_project(cli, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("outside\n")
    (project / "CLAUDE.md").symlink_to(outside)
    refused(cli, project, "init", "claude", match="symlink leading out")
    assert outside.read_text() == "outside\n"


def test_rules_file_symlinked_inside_the_project_is_written_through(cli, project: Path) -> None:
    (project / "AGENTS.md").write_text("# shared\n")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    assert cli("init", "claude").code == 0
    assert (project / "CLAUDE.md").is_symlink()
    assert "BEGIN ENGRAMORY CLAUDE" in (project / "AGENTS.md").read_text()


def test_directory_symlinked_out_of_the_project(cli, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside-claude"
    outside.mkdir()
    (project / ".claude").symlink_to(outside)
    refused(cli, project, "init", "claude", "--install-skill", match="symlink leading out")
    assert list(outside.iterdir()) == []


def test_gitignore_symlinked_out(cli, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "global-ignore"
    outside.write_text("*.log\n")
    (project / ".gitignore").symlink_to(outside)
    refused(cli, project, "init", "codex", match="symlink leading out")


def test_symlinked_index_in_the_store(cli, project: Path, tmp_path: Path) -> None:
    store = project / ".engramory-memory"
    store.mkdir()
    (store / "MEMORY.md").symlink_to(tmp_path / "elsewhere.md")
    refused(cli, project, "init", "codex", match="symlink")


def test_existing_index_is_never_modified(cli, project: Path) -> None:
    store = project / ".engramory-memory"
    store.mkdir()
    (store / "MEMORY.md").write_text("my own index\n")
    assert cli("init", "codex").code == 0
    assert (store / "MEMORY.md").read_text() == "my own index\n"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("init", "codex-reader"), 1),
        (("init", "codex-reader", "--memory-root", "nowhere"), 1),
        (("init", "codex-reader", "--memory-root", ".", "--install-skill"), 64),
        (("init", "claude-reader", "--memory-root", "x", "--install-hooks"), 64),
    ],
)
def test_reader_refusals(cli, project: Path, args: tuple[str, ...], code: int) -> None:
    before = digest(project)
    result = cli(*args)
    assert result.code == code
    assert digest(project) == before


def test_reader_store_with_a_symlinked_index(cli, project: Path, tmp_path: Path) -> None:
    store = tmp_path / "owner"
    store.mkdir()
    (store / "MEMORY.md").symlink_to(tmp_path / "secret.md")
    (tmp_path / "secret.md").write_text("x")
    refused(cli, project, "init", "codex-reader", "--memory-root", str(store), match="symlink")


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (
            ("init", "windsurf", "--install-hooks"),
            "only for claude, codex, gemini, qwen, cursor, copilot, cline, kiro, opencode, openclaw, "
            "hermes; Windsurf gets "
            "the rules",
        ),
        (("init", "codex", "--mode", "assisted"), "add --install-hooks"),
        (("init", "cursor", "--global"), "--global is not available"),
        (("init", "windsurf", "--install-skill"), "no documented skill directory"),
        (
            ("init", "claude", "--install-hooks", "--hook-python", "/no/such/python"),
            "not an executable",
        ),
    ],
)
def test_flag_refusals(cli, project: Path, args: tuple[str, ...], match: str) -> None:
    refused(cli, project, *args, match=match, code=64)


def test_rules_file_that_is_not_utf8(cli, project: Path) -> None:
    (project / "AGENTS.md").write_bytes(b"\xff\xfe binary\n")
    refused(cli, project, "init", "codex", match="not UTF-8")


def test_unknown_host_is_a_usage_error(cli) -> None:
    assert cli("init", "vscode").code == 64


def test_skill_directory_with_foreign_files_is_kept(cli, project: Path) -> None:
    assert cli("init", "codex", "--install-skill").code == 0
    skill = project / ".agents" / "skills" / "engramory"
    (skill / "my-notes.txt").write_text("mine\n")
    result = cli("uninstall", "codex")
    assert "kept the directory: 1 other entry" in result.out
    assert sorted(p.name for p in skill.iterdir()) == ["my-notes.txt"]


def test_unrecognisable_skill_directory_is_left(cli, project: Path) -> None:
    skill = project / ".agents" / "skills" / "engramory"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: something-else\n---\n")
    result = cli("uninstall", "codex")
    assert "not recognisable" in result.out
    assert (skill / "SKILL.md").is_file()


def test_skill_is_kept_with_force_only(cli, project: Path) -> None:
    assert cli("init", "codex", "--install-skill").code == 0
    skill_md = project / ".agents" / "skills" / "engramory" / "SKILL.md"
    skill_md.write_text("locally edited\n")
    assert cli("init", "codex", "--install-skill").code == 0
    assert skill_md.read_text() == "locally edited\n"
    assert cli("init", "codex", "--install-skill", "--force").code == 0
    assert skill_md.read_bytes() == (REPO / "SKILL.md").read_bytes()


def test_failure_midway_reports_completed_steps(cli, project: Path, monkeypatch) -> None:
    from engramory.util import fsutil

    real = fsutil.write_atomic
    calls = []

    def flaky(path, data, mode=None):  # type: ignore[no-untyped-def]
        calls.append(path)
        if str(path).endswith("CLAUDE.md"):
            raise OSError(28, "No space left on device")
        return real(path, data, mode)

    monkeypatch.setattr(fsutil, "write_atomic", flaky)
    result = cli("init", "claude")
    assert result.code == 1
    assert "created         .engramory-memory/MEMORY.md" in result.out
    assert "FAILED" in result.out and "No space left on device" in result.out
    assert not (project / "CLAUDE.md").exists()


def test_store_outside_the_project_gets_no_ignore_entry(cli, project: Path, tmp_path: Path) -> None:
    result = cli("init", "codex", "--memory-root", str(tmp_path / "elsewhere"))
    assert result.code == 0 and "outside the project" in result.out
    assert not (project / ".gitignore").exists()


def test_store_inside_a_cleaned_directory_survives(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks", "--memory-root", ".claude/memory").code == 0
    (project / ".claude" / "memory" / "fact.md").write_text("keep me\n")
    result = cli("uninstall", "claude", "--memory-root", ".claude/memory")
    assert result.code == 0
    assert "NOT touched" in result.out and ".claude/memory" in result.out
    assert (project / ".claude" / "memory" / "fact.md").read_text() == "keep me\n"
    assert (project / ".claude" / "memory" / "MEMORY.md").is_file()
    assert not (project / ".claude" / "settings.local.json").exists()


def test_the_report_is_one_line_per_step_not_one_escaped_line(cli, project: Path) -> None:
    out = cli("init", "claude").out
    assert "\\n" not in out
    assert out.splitlines()[0].startswith("engramory init claude") and len(out.splitlines()) > 3
