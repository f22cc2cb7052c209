"""`engramory init` / `uninstall` / `hosts` for every host: idempotent, reversible, safe."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO
from engramory.hosts.specs import BLOCK, HOSTS

SCHEMAS = REPO / "tests" / "schemas"
WRITE_HOSTS = sorted(HOSTS)
SKILLED = [h for h in WRITE_HOSTS if HOSTS[h].skill is not None]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throw-away home directory (global installs, $DSH_HOME unset)."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("DSH_HOME", raising=False)
    return path


@pytest.fixture
def project(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git work tree to install into (also the current directory)."""
    path = tmp_path / "project"
    path.mkdir()
    (path / ".git").mkdir()
    monkeypatch.chdir(path)
    return path


def digest(root: Path, skip: tuple[str, ...] = (".git",)) -> dict[str, str]:
    """Every file's and directory's content hash (symlinks by their target), keyed by path."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in skip:
            continue
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def args_for(host: str, project: Path) -> list[str]:
    """--project-root for the hosts whose default root is not the current directory."""
    return (
        ["--project-root", str(project)]
        if HOSTS[host.split("-", maxsplit=1)[0]].default_root != "."
        else []
    )


def init(cli, host: str, project: Path, *extra: str):
    return cli("init", host, *args_for(host, project), *extra)


def uninstall(cli, host: str, project: Path, *extra: str):
    return cli("uninstall", host, *args_for(host, project), *extra)


def rules_path(host: str, project: Path) -> Path:
    spec = HOSTS[host]
    return project / (spec.rules or "AGENTS.md")


# --- the matrix: every write host -------------------------------------------------------


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


@pytest.mark.parametrize("host", [h for h in WRITE_HOSTS if HOSTS[h].rules_kind == BLOCK])
def test_existing_user_content_and_other_blocks_survive(cli, project: Path, host: str) -> None:
    target = rules_path(host, project)
    other = "<!-- BEGIN ENGRAMORY SOMEONE -->\nanother host's block\n<!-- END ENGRAMORY SOMEONE -->"
    original = (
        f"# Team rules\r\n\r\nUse tabs.\r\n\r\n{other.replace(chr(10), chr(13) + chr(10))}\r\n"
    )
    target.write_bytes(original.encode())
    target.chmod(0o640)
    assert init(cli, host, project).code == 0
    installed = target.read_bytes()
    assert installed.startswith(original.encode())
    assert b"\n" not in installed.replace(b"\r\n", b"")  # CRLF kept throughout
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert uninstall(cli, host, project).code == 0
    assert target.read_bytes() == original.encode()


BLOCK_HOSTS = [h for h in WRITE_HOSTS if HOSTS[h].rules_kind == BLOCK]
LINE_ENDING_FILES = {
    "lf": "# Team rules\n\nUse tabs.\n",
    "crlf": "# Team rules\r\n\r\nUse tabs.\r\n",
    "mixed": "# Team rules\r\n\nUse tabs.\r\nKeep it short.\n",
    "lone-cr": "# Team rules\r\rUse tabs.\r",
    "no-final-newline": "# Team rules\r\n\nUse tabs.",
}


@pytest.mark.parametrize("style", sorted(LINE_ENDING_FILES))
@pytest.mark.parametrize("host", BLOCK_HOSTS)
def test_rules_file_line_endings_survive_install_reinstall_uninstall(
    cli, project: Path, host: str, style: str
) -> None:
    target = rules_path(host, project)
    target.parent.mkdir(parents=True, exist_ok=True)
    original = LINE_ENDING_FILES[style].encode()
    target.write_bytes(original)
    assert init(cli, host, project).code == 0
    installed = target.read_bytes()
    assert installed.startswith(original.rstrip(b"\r\n"))
    again = init(cli, host, project)
    assert again.code == 0 and "kept" in again.out and "updated" not in again.out
    assert target.read_bytes() == installed
    assert uninstall(cli, host, project).code == 0
    assert target.read_bytes() == original


FENCED_RULES = (
    "# Rules\n\nOur install adds lines like these:\n\n```md\n"
    "<!-- BEGIN ENGRAMORY {0} -->\n(the rules)\n<!-- END ENGRAMORY {0} -->\n```\n"
)


@pytest.mark.parametrize("host", BLOCK_HOSTS)
def test_markers_quoted_in_a_code_fence_are_kept(cli, project: Path, host: str) -> None:
    target = rules_path(host, project)
    target.parent.mkdir(parents=True, exist_ok=True)
    original = FENCED_RULES.format(HOSTS[host].marker)
    target.write_text(original)
    assert init(cli, host, project).code == 0
    installed = target.read_text()
    assert installed.startswith(original) and "## Memory (Engramory)" in installed
    assert init(cli, host, project).code == 0 and target.read_text() == installed
    assert uninstall(cli, host, project).code == 0
    assert target.read_text() == original


def test_a_block_after_an_unclosed_fence_is_refused(cli, project: Path) -> None:
    (project / "CLAUDE.md").write_text("# Rules\n\n```\nnever closed\n")
    refused(cli, project, "init", "claude", match="never closed")


@pytest.mark.parametrize("host", [h for h in WRITE_HOSTS if HOSTS[h].rules_kind != BLOCK])
def test_dedicated_files_leave_neighbours_alone(cli, project: Path, host: str) -> None:
    target = rules_path(host, project)
    target.parent.mkdir(parents=True, exist_ok=True)
    neighbour = target.parent / "team.md"
    neighbour.write_text("team rule\n")
    assert init(cli, host, project).code == 0
    assert neighbour.read_text() == "team rule\n"
    assert uninstall(cli, host, project).code == 0
    assert not target.exists() and neighbour.read_text() == "team rule\n"


@pytest.mark.parametrize("host", [h for h in WRITE_HOSTS if HOSTS[h].rules_kind != BLOCK])
def test_a_dedicated_file_we_did_not_write_is_refused_then_replaced_with_force(
    cli, project: Path, host: str
) -> None:
    target = rules_path(host, project)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("the user's own rules\n")
    before = digest(project)
    refused = init(cli, host, project)
    assert refused.code == 1 and "not written by Engramory" in refused.err
    assert digest(project) == before
    assert uninstall(cli, host, project).code == 0
    assert target.read_text() == "the user's own rules\n"  # uninstall leaves it too
    assert init(cli, host, project, "--force").code == 0
    assert "<!-- Managed by Engramory:" in target.read_text()


# --- Claude Code hooks --------------------------------------------------------------------


def test_claude_hooks_are_valid_merged_and_removed(cli, project: Path) -> None:
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    theirs = {
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-hook"}]},
                {"matcher": "Write", "hooks": []},
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}],
        },
    }
    settings.write_text(json.dumps(theirs, indent=4) + "\n")
    for _ in range(3):
        assert init(cli, "claude", project, "--install-hooks").code == 0
    config = json.loads(settings.read_text())
    schema = json.loads((SCHEMAS / "claude-code-settings.schema.json").read_text())
    jsonschema.validate(config, schema)
    pre = config["hooks"]["PreToolUse"]
    ours = [
        g
        for g in pre
        if any(h.get("statusMessage", "").startswith("Engramory") for h in g["hooks"])
    ]
    assert len(ours) == 1 and ours[0]["matcher"] == "Write|Edit|MultiEdit|Bash"
    handler = ours[0]["hooks"][0]
    assert os.path.isabs(handler["command"]) and handler["args"][:2] == ["-I", "-S"]
    assert Path(handler["args"][2]).is_file()
    index = str(project / ".engramory-memory" / "MEMORY.md")
    assert handler["args"][3:] == ["--index", index]  # the guard knows the index by identity
    post = config["hooks"]["PostToolUse"][0]["hooks"][0]
    assert post["args"][-1] == index
    assert settings.read_text().startswith('{\n    "permissions"')  # their indentation kept
    assert uninstall(cli, "claude", project).code == 0
    assert json.loads(settings.read_text()) == theirs


def test_claude_hooks_file_of_our_own_is_deleted(cli, project: Path) -> None:
    assert init(cli, "claude", project, "--install-hooks").code == 0
    assert (project / ".claude" / "settings.local.json").is_file()
    assert uninstall(cli, "claude", project).code == 0
    assert not (project / ".claude").exists()


def test_claude_global_install(cli, home: Path, project: Path) -> None:
    result = cli("init", "claude", "--global", "--install-hooks", "--install-skill")
    assert result.code == 0, result.err
    assert "BEGIN ENGRAMORY CLAUDE" in (home / ".claude" / "CLAUDE.md").read_text()
    config = json.loads((home / ".claude" / "settings.json").read_text())
    jsonschema.validate(
        config, json.loads((SCHEMAS / "claude-code-settings.schema.json").read_text())
    )
    assert (home / ".claude" / "skills" / "engramory" / "SKILL.md").is_file()
    assert (home / ".engramory-memory" / "MEMORY.md").is_file()
    assert str(home / ".engramory-memory") in (home / ".claude" / "CLAUDE.md").read_text()
    assert not (project / "CLAUDE.md").exists()
    assert cli("uninstall", "claude", "--global").code == 0
    assert not (home / ".claude").exists()
    assert (home / ".engramory-memory" / "MEMORY.md").is_file()


def test_installed_guard_actually_denies(cli, project: Path) -> None:
    import subprocess

    assert init(cli, "claude", project, "--install-hooks").code == 0
    config = json.loads((project / ".claude" / "settings.local.json").read_text())
    handler = config["hooks"]["PreToolUse"][0]["hooks"][0]
    payload = {
        "tool_name": "Write",
        "tool_input": {
            "file_path": str(project / ".engramory-memory" / "MEMORY.md"),
            "content": "x\n" * 300,
        },
    }
    proc = subprocess.run(
        [handler["command"], *handler["args"]],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


# --- readers --------------------------------------------------------------------------------


def owner_store(tmp_path: Path) -> Path:
    store = tmp_path / "owner-store"
    store.mkdir()
    (store / "MEMORY.md").write_text("# Memory index\n")
    return store


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


# --- hermes and dsh -------------------------------------------------------------------------


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


def test_hermes_skill_needs_global(cli, project: Path, home: Path) -> None:
    refused = cli("init", "hermes", "--install-skill")
    assert refused.code == 64 and "--global" in refused.err
    assert cli("init", "hermes", "--global", "--install-skill").code == 0
    assert (home / ".hermes" / "skills" / "engramory" / "SKILL.md").is_file()
    assert "BEGIN ENGRAMORY HERMES" in (home / ".hermes" / "SOUL.md").read_text()


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


# --- refusals: nothing is written -------------------------------------------------------------


def refused(cli, project: Path, *args: str, match: str, code: int = 1) -> None:
    """``args`` are refused with ``code`` (1: the files' state, 64: the command line)."""
    before = digest(project.parent)
    result = cli(*args)
    assert result.code == code, result
    assert match in result.err
    assert digest(project.parent) == before


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


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[1, 2]",
        '{"hooks": []}',
        '{"hooks": {"PreToolUse": {}}}',
        '{"hooks": {"PreToolUse": [{"hooks": ["x"]}]}}',
    ],
)
def test_bad_hook_config(cli, project: Path, content: str) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(content)
    refused(cli, project, "init", "claude", "--install-hooks", match="settings.local.json")


def test_damaged_markers_refuse_init_and_survive_uninstall(cli, project: Path) -> None:
    damaged = "# Rules\n<!-- BEGIN ENGRAMORY CLAUDE -->\nhalf a block\n"
    (project / "CLAUDE.md").write_text(damaged)
    refused(cli, project, "init", "claude", match="damaged Engramory markers")
    result = cli("uninstall", "claude")
    assert result.code == 1 and "LEFT UNTOUCHED" in result.out and "by hand" in result.out
    assert (project / "CLAUDE.md").read_text() == damaged
    dry = cli("uninstall", "claude", "--dry-run")
    assert dry.code == 1 and "would leave 1 file(s) to fix by hand" in dry.out


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
        (("init", "gemini", "--install-hooks"), "only for claude and codex"),
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


def test_rules_file_that_is_not_utf8(cli, project: Path) -> None:
    (project / "AGENTS.md").write_bytes(b"\xff\xfe binary\n")
    refused(cli, project, "init", "codex", match="not UTF-8")


def test_unknown_host_is_a_usage_error(cli) -> None:
    assert cli("init", "vscode").code == 64


# --- what uninstall keeps ---------------------------------------------------------------------


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
    from engramory import fsutil

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


# --- engramory hosts matches what init does ----------------------------------------------------


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


def test_store_outside_the_project_gets_no_ignore_entry(cli, project: Path, tmp_path: Path) -> None:
    result = cli("init", "codex", "--memory-root", str(tmp_path / "elsewhere"))
    assert result.code == 0 and "outside the project" in result.out
    assert not (project / ".gitignore").exists()


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


def test_store_inside_a_cleaned_directory_survives(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks", "--memory-root", ".claude/memory").code == 0
    (project / ".claude" / "memory" / "fact.md").write_text("keep me\n")
    result = cli("uninstall", "claude", "--memory-root", ".claude/memory")
    assert result.code == 0
    assert "NOT touched" in result.out and ".claude/memory" in result.out
    assert (project / ".claude" / "memory" / "fact.md").read_text() == "keep me\n"
    assert (project / ".claude" / "memory" / "MEMORY.md").is_file()
    assert not (project / ".claude" / "settings.local.json").exists()


# --- lifecycle hooks (the continuity sync) --------------------------------------------------------


def codex_config(project: Path) -> dict:
    return json.loads((project / ".codex" / "hooks.json").read_text())


def ours(config: dict, event: str) -> list[dict]:
    return [
        h
        for g in config["hooks"].get(event, [])
        for h in g["hooks"]
        if h.get("statusMessage", "").startswith("Engramory")
    ]


def test_codex_lifecycle_hooks_are_valid_and_runnable(cli, project: Path) -> None:
    import subprocess

    for _ in range(2):
        result = cli("init", "codex", "--install-hooks", "--mode", "assisted")
        assert result.code == 0, result.err
    assert "/hooks" in result.out  # the trust step is named
    config = codex_config(project)
    jsonschema.validate(config, json.loads((SCHEMAS / "codex-hooks.schema.json").read_text()))
    for name in ("SessionStart", "UserPromptSubmit", "PreCompact"):
        assert len(ours(config, name)) == 1
    assert config["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    command = ours(config, "SessionStart")[0]["command"]
    assert "--mode assisted" in command
    payload = json.dumps(
        {"hook_event_name": "SessionStart", "session_id": "abc", "source": "startup"}
    )
    proc = subprocess.run(
        ["/bin/sh", "-lc", command],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        "mark-synced --session-id=abc"
        in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    )
    assert "Continuity hooks are installed (assisted mode)" in (project / "AGENTS.md").read_text()
    assert "/.codex/hooks.json" in (project / ".gitignore").read_text()


def test_codex_hooks_keep_foreign_handlers_and_drop_the_legacy_description(
    cli, project: Path
) -> None:
    (project / ".codex").mkdir()
    foreign = {"type": "command", "command": "notify-me", "statusMessage": "team hook"}
    legacy = {
        "type": "command",
        "command": "old engramory",
        "statusMessage": "Loading Engramory continuity context",
    }
    original = {
        "description": "Project lifecycle hooks, including Engramory continuity checks.",
        "hooks": {"SessionStart": [{"hooks": [foreign, legacy]}], "Stop": [{"hooks": [foreign]}]},
    }
    (project / ".codex" / "hooks.json").write_text(json.dumps(original))
    assert cli("init", "codex", "--install-hooks").code == 0
    config = codex_config(project)
    assert "description" not in config
    jsonschema.validate(config, json.loads((SCHEMAS / "codex-hooks.schema.json").read_text()))
    handlers = [h for g in config["hooks"]["SessionStart"] for h in g["hooks"]]
    assert foreign in handlers and legacy not in handlers and len(ours(config, "SessionStart")) == 1
    assert config["hooks"]["Stop"] == original["hooks"]["Stop"]
    gitignore = project / ".gitignore"
    assert "/.codex/hooks.json" not in (gitignore.read_text() if gitignore.exists() else "")
    assert cli("uninstall", "codex").code == 0
    left = codex_config(project)
    assert left == {
        "hooks": {"SessionStart": [{"hooks": [foreign]}], "Stop": [{"hooks": [foreign]}]}
    }


def test_codex_ignore_rule_follows_ownership(cli, project: Path) -> None:
    assert cli("init", "codex", "--install-hooks").code == 0
    assert "/.codex/hooks.json" in (project / ".gitignore").read_text()
    config = codex_config(project)
    config["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "teammate"}]}]
    (project / ".codex" / "hooks.json").write_text(json.dumps(config, indent=2))
    result = cli("init", "codex", "--install-hooks")
    assert "stop ignoring" in result.out
    assert "/.codex/hooks.json" not in (project / ".gitignore").read_text()
    (project / ".gitignore").write_text(
        (project / ".gitignore").read_text() + "/.codex/hooks.json\n"
    )
    assert cli("init", "codex", "--install-hooks").code == 0
    assert "/.codex/hooks.json" in (project / ".gitignore").read_text()  # the user's own rule stays


def test_codex_hooks_uninstall_restores_everything(cli, project: Path) -> None:
    before = digest(project)
    assert cli("init", "codex", "--install-hooks", "--install-skill").code == 0
    assert cli("uninstall", "codex").code == 0
    after = digest(project, skip=(".git", ".engramory-memory"))
    gitignore = (project / ".gitignore").read_text()
    assert "/.codex/hooks.json" not in gitignore and "/.engramory-memory/" in gitignore
    assert {k: v for k, v in after.items() if k != ".gitignore"} == before


def test_claude_gets_lifecycle_hooks_beside_the_guard(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks").code == 0
    config = json.loads((project / ".claude" / "settings.local.json").read_text())
    for name in ("PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "PreCompact"):
        assert len(ours(config, name)) == 1, name
    handler = ours(config, "PreCompact")[0]
    assert handler["args"][:2] == ["-I", "-S"] and "--host" in handler["args"]
    assert handler["args"][handler["args"].index("--host") + 1] == "claude"
    assert "Continuity hooks are installed (explicit mode)" in (project / "CLAUDE.md").read_text()
    assert cli("uninstall", "claude").code == 0
    assert not (project / ".claude").exists()


# --- hook configs come back as the user wrote them (issue 10 items 14, 16; issue 11 item 11) ---

CLAUDE_SETTINGS = ".claude/settings.local.json"
SPELLINGS = ("1e2", "1.0", "1E+1", "12345678901234567890123", "2.5E-3")
NUMBER_KEY = {"claude": "timeout", "codex": "x-weight"}  # Codex wants an integer timeout


def their_settings(host: str) -> dict:
    """A config of the user's (the numbers stand for SPELLINGS, spliced into the text)."""
    key = NUMBER_KEY[host]
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint", key: "1e2"}]}
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "café", key: n} for n in SPELLINGS[1:]]}
        ],
    }
    if host == "codex":
        return {"hooks": hooks}
    return {"permissions": {"allow": ["Bash(ls:*)"], "deny": []}, "hooks": hooks}


def styled(
    indent: int | str | None, separators: tuple[str, str] | None, newline: str, final: bool
) -> dict[str, bytes]:
    """The settings of each host in one style; numbers spelled as in SPELLINGS, é escaped."""
    out = {}
    for host, key in NUMBER_KEY.items():
        text = json.dumps(their_settings(host), indent=indent, separators=separators)
        text = re.sub(key + r'("\s*:\s*)"([^"]+)"', key + r"\1\2", text)
        text = text.replace("\n", newline)
        out[host] = (text + newline if final else text).encode()
    return out


HOOK_STYLES = {
    "compact": styled(None, (",", ":"), "\n", False),
    "one-line-spaced": styled(None, None, "\n", True),
    "2-space": styled(2, None, "\n", True),
    "4-space": styled(4, None, "\n", True),
    "tabs": styled("\t", None, "\n", True),
    "crlf": styled(2, None, "\r\n", True),
    "crlf-no-final-newline": styled(4, None, "\r\n", False),
    "no-final-newline": styled(2, None, "\n", False),
    "spaced-colons": styled(2, (",", " : "), "\n", True),
}


@pytest.mark.parametrize("style", sorted(HOOK_STYLES))
@pytest.mark.parametrize("host", ["claude", "codex"])
def test_hook_config_round_trips_byte_for_byte(cli, project: Path, host: str, style: str) -> None:
    path = project / (CLAUDE_SETTINGS if host == "claude" else ".codex/hooks.json")
    path.parent.mkdir()
    original = HOOK_STYLES[style][host]
    path.write_bytes(original)
    assert cli("init", host, "--install-hooks").code == 0
    installed = path.read_bytes()
    spelled = re.findall(rb'"%s"\s*:\s*([^,}\s]+)' % NUMBER_KEY[host].encode(), installed)
    assert [n for n in spelled if n != b"10"] == [n.encode() for n in SPELLINGS]  # 10: ours
    assert b'"caf\\u00e9"' in installed
    assert (b"\r\n" in installed) == (b"\r\n" in original)
    assert installed.endswith(b"\n") == original.endswith(b"\n")
    config = json.loads(installed)
    assert len(ours(config, "SessionStart")) == 1
    schema = "claude-code-settings" if host == "claude" else "codex-hooks"
    jsonschema.validate(config, json.loads((SCHEMAS / f"{schema}.schema.json").read_text()))
    again = cli("init", host, "--install-hooks")
    assert again.code == 0 and path.read_bytes() == installed
    assert "already registered" in again.out
    assert cli("uninstall", host).code == 0
    assert path.read_bytes() == original


def test_new_hook_config_is_two_space_json_and_is_deleted_again(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks").code == 0
    text = (project / CLAUDE_SETTINGS).read_text()
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert cli("uninstall", "claude").code == 0
    assert not (project / CLAUDE_SETTINGS).exists()


@pytest.mark.parametrize(
    "original",
    [
        '{"hooks": {}, "permissions": {"allow": []}}\n',
        '{\n  "hooks": {},\n  "env": {}\n}\n',
        '{\n  "hooks": {\n    "Stop": []\n  },\n  "env": {}\n}\n',
    ],
)
def test_empty_objects_the_user_had_are_kept(cli, project: Path, original: str) -> None:
    path = project / CLAUDE_SETTINGS
    path.parent.mkdir()
    path.write_text(original)
    assert cli("init", "claude", "--install-hooks").code == 0
    assert cli("uninstall", "claude").code == 0
    assert path.read_text() == original


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ('{"hooks": {}, "hooks": {"Stop": []}}', '"hooks" twice in the top-level object'),
        (
            '{"hooks": {"PreToolUse": [{"matcher": "Bash", "matcher": "Write", "hooks": []}]}}',
            '"matcher" twice in hooks.PreToolUse[0]',
        ),
        (
            '{"env": {"A": "1", "B": "2", "A": "3"}}',
            '"A" twice in env',
        ),
    ],
)
def test_duplicate_keys_are_refused_at_any_depth(
    cli, project: Path, content: str, key: str
) -> None:
    (project / ".claude").mkdir()
    (project / CLAUDE_SETTINGS).write_text(content)
    refused(cli, project, "init", "claude", "--install-hooks", match=key)
    refused(cli, project, "uninstall", "claude", match=key)


# --- no tracebacks: every malformed input is a refusal that names the file (issue 10 item 14) ---


def installed_then(cli, project: Path, settings: str) -> None:
    """Install the rules block, then put ``settings`` in place of the hook configuration."""
    assert cli("init", "claude").code == 0
    (project / ".claude").mkdir(exist_ok=True)
    (project / CLAUDE_SETTINGS).write_text(settings)


def with_status(event: str, status: object) -> str:
    """A config whose one handler under ``event`` has ``status`` as its statusMessage."""
    handler = {"type": "command", "command": "x", "statusMessage": status}
    return json.dumps({"hooks": {event: [{"hooks": [handler]}]}})


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        (
            with_status("PreToolUse", ["a"]),
            '"statusMessage" in "hooks.PreToolUse[0].hooks[0]" that is not a string',
        ),
        (
            with_status("Stop", {"a": 1}),
            '"statusMessage" in "hooks.Stop[0].hooks[0]" that is not a string',
        ),
        ('{"hooks": {"Stop": [{"hooks": [5]}]}}', 'handler "hooks.Stop[0].hooks[0]" that is not'),
        ('{"hooks": {"Stop": ' + "[" * 100_000 + "]" * 100_000 + "}}", "deeper than 64 levels"),
        ('{"a": NaN}', "not valid JSON"),
    ],
)
def test_malformed_hook_configs_are_refused_by_init_and_uninstall(
    cli, project: Path, settings: str, match: str
) -> None:
    installed_then(cli, project, settings)
    refused(cli, project, "init", "claude", "--install-hooks", match=match)
    refused(cli, project, "uninstall", "claude", match=match)
    result = cli("uninstall", "claude")
    assert CLAUDE_SETTINGS in result.err and "fix it by hand, then run uninstall" in result.err


@pytest.mark.parametrize("target", ["CLAUDE.md", CLAUDE_SETTINGS])
def test_a_symlink_loop_is_a_refusal_not_a_traceback(cli, project: Path, target: str) -> None:
    (project / ".claude").mkdir()
    (project / target).symlink_to(project / target)
    refused(
        cli, project, "init", "claude", "--install-hooks", match=f"cannot read {project / target}"
    )
    refused(cli, project, "uninstall", "claude", match="Too many levels of symbolic links")


def test_an_oversized_hook_config_is_refused(cli, project: Path) -> None:
    (project / ".claude").mkdir()
    (project / CLAUDE_SETTINGS).write_text('{"env": {"A": "' + "x" * (3 * 1024 * 1024) + '"}}')
    refused(cli, project, "init", "claude", "--install-hooks", match="-byte read limit")


def test_the_report_is_one_line_per_step_not_one_escaped_line(cli, project: Path) -> None:
    out = cli("init", "claude").out
    assert "\\n" not in out
    assert out.splitlines()[0].startswith("engramory init claude") and len(out.splitlines()) > 3


def test_a_non_object_handler_beside_ours_is_refused_on_uninstall(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks").code == 0
    settings = project / CLAUDE_SETTINGS
    config = json.loads(settings.read_text())
    config["hooks"]["Stop"] = [{"hooks": [5]}]
    settings.write_text(json.dumps(config, indent=2))
    refused(cli, project, "uninstall", "claude", match='handler "hooks.Stop[0].hooks[0]"')
