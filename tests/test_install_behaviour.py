"""How `engramory init` / `uninstall` plan, refuse, exit and report (issues 10 and 11)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from installkit import digest

from conftest import REPO
from engramory.hosts.registry import HOSTS
from engramory.install import layout, selfcommand
from engramory.install.apply import execute
from engramory.install.init import plan_init
from engramory.install.steps import Options
from engramory.util.errors import EngramoryError


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throw-away home directory (global installs, host homes unset)."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    for variable in ("DSH_HOME", "CODEX_HOME", "HERMES_HOME"):
        monkeypatch.delenv(variable, raising=False)
    return path


@pytest.fixture
def project(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git work tree to install into (also the current directory)."""
    path = tmp_path / "project"
    (path / ".git").mkdir(parents=True)
    monkeypatch.chdir(path)
    return path


# --- 10.18: the home must be a real, absolute directory -------------------------------------


@pytest.mark.parametrize("value", [None, "", "   ", "relative/home"])
def test_global_install_refuses_a_missing_empty_or_relative_home(
    cli, project: Path, monkeypatch, value: str | None
) -> None:
    # --dry-run: before the fix this planned (and would have written) //.claude/CLAUDE.md
    if value is None:
        monkeypatch.delenv("HOME")
    else:
        monkeypatch.setenv("HOME", value)
    before = digest(project)
    result = cli("init", "claude", "--global", "--dry-run")
    assert result.code == 1, result
    assert "HOME" in result.err and "absolute path" in result.err
    assert "//.claude" not in result.out
    assert digest(project) == before


def test_a_project_install_does_not_need_a_home(cli, project: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", "")
    assert cli("init", "claude").code == 0
    assert (project / "CLAUDE.md").is_file()


def test_host_home_variables_empty_means_default_relative_is_refused(
    home: Path, monkeypatch
) -> None:
    codex = HOSTS["codex"]
    monkeypatch.setenv("CODEX_HOME", "")
    assert layout.resolve(codex, False, global_=True).rules == home / ".codex" / "AGENTS.md"
    monkeypatch.setenv("CODEX_HOME", "~/elsewhere")
    assert layout.resolve(codex, False, global_=True).rules == home / "elsewhere" / "AGENTS.md"
    monkeypatch.setenv("CODEX_HOME", "relative/codex")
    with pytest.raises(EngramoryError, match="CODEX_HOME is a relative path") as caught:
        layout.resolve(codex, False, global_=True)
    assert caught.value.exit_code == 1
    monkeypatch.setenv("HERMES_HOME", "rel")
    with pytest.raises(EngramoryError, match="HERMES_HOME"):
        layout.resolve(HOSTS["hermes"], False, global_=True)


# --- 11.2: the command the agent is told to run exists in its shell -------------------------


def test_decide_prefers_the_bare_name_only_when_it_is_this_installation() -> None:
    script, python = "/opt/my venv/bin/engramory", "/opt/my venv/bin/python"
    assert selfcommand.decide("/usr/bin/engramory", True, script, python).text == "engramory"
    other = selfcommand.decide("/usr/bin/engramory", False, script, python)
    assert other.text == "'/opt/my venv/bin/engramory'"
    assert "another installation (/usr/bin/engramory)" in other.fallback
    missing = selfcommand.decide(None, False, script, python)
    assert missing.fallback == "`engramory` is not on PATH"
    assert missing.script_dir == "/opt/my venv/bin"
    bare = selfcommand.decide(None, False, None, python)
    assert bare.text == "'/opt/my venv/bin/python' -m engramory" and bare.fallback
    windows = selfcommand.decide(None, False, r"C:\Program Files\e\engramory.exe", "x", True)
    assert windows.text == '"C:\\Program Files\\e\\engramory.exe"'
    assert selfcommand.quote(r"C:\venv\Scripts\engramory.exe", True) == (
        r"C:\venv\Scripts\engramory.exe"
    )


@pytest.fixture
def fake_install(tmp_path: Path, monkeypatch) -> Path:
    """An interpreter and its console script in a bin folder that is not on PATH."""
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("python", "engramory"):
        (bin_dir / name).write_text("#!/bin/sh\n")
        (bin_dir / name).chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(bin_dir / "python"))
    monkeypatch.setattr(selfcommand.sysconfig, "get_path", lambda name: str(bin_dir))
    return bin_dir


@pytest.mark.skipif(os.name == "nt", reason="POSIX console-script names")
def test_current_looks_up_path_and_this_installation(
    fake_install: Path, tmp_path: Path, monkeypatch
) -> None:
    script = fake_install / "engramory"
    monkeypatch.setattr(selfcommand.shutil, "which", lambda name: str(script))
    assert selfcommand.current() == selfcommand.AgentCommand("engramory")
    pipx_style = tmp_path / "local-bin" / "engramory"  # a symlink on PATH to our script
    pipx_style.parent.mkdir()
    pipx_style.symlink_to(script)
    monkeypatch.setattr(selfcommand.shutil, "which", lambda name: str(pipx_style))
    assert selfcommand.current().text == "engramory"
    monkeypatch.setattr(selfcommand.shutil, "which", lambda name: None)
    assert selfcommand.current().text == str(script)
    script.unlink()
    assert selfcommand.current().text == f"{fake_install / 'python'} -m engramory"


def test_block_and_report_carry_the_working_command(cli, project: Path, monkeypatch) -> None:
    long = selfcommand.AgentCommand(
        "'/opt/my venv/bin/engramory'", "`engramory` is not on PATH", "/opt/my venv/bin"
    )
    monkeypatch.setattr(selfcommand, "current", lambda: long)
    result = cli("init", "claude")
    assert result.code == 0
    text = (project / "CLAUDE.md").read_text()
    assert "`'/opt/my venv/bin/engramory' check .engramory-memory`" in text
    assert "`'/opt/my venv/bin/engramory' doctor .engramory-memory`" in text
    assert not re.search(r"`engramory (check|doctor)", text)
    assert f"run `'/opt/my venv/bin/engramory' check {project / '.engramory-memory'}`" in (
        result.out
    )
    assert "warning: `engramory` is not on PATH" in result.out
    assert "pipx install" in result.out and "put /opt/my venv/bin on the agent's PATH" in result.out
    first = digest(project)
    again = cli("init", "claude")
    assert digest(project) == first and "updated" not in again.out
    monkeypatch.setattr(selfcommand, "current", lambda: selfcommand.AgentCommand("engramory"))
    moved = cli("init", "claude")
    assert "updated         CLAUDE.md" in moved.out and "warning" not in moved.out
    assert "`engramory check .engramory-memory`" in (project / "CLAUDE.md").read_text()


# --- 11.3: the block names a SKILL.md the agent can open ------------------------------------


def test_block_names_the_protocol_file(cli, project: Path) -> None:
    assert cli("init", "codex").code == 0
    text = (project / "AGENTS.md").read_text()
    shipped = re.search(r"The full protocol is `([^`]+)`", text)
    assert shipped is not None, text
    assert Path(shipped.group(1)).is_absolute()
    assert Path(shipped.group(1)).read_bytes() == (REPO / "SKILL.md").read_bytes()
    assert f"Full protocol: `{shipped.group(1)}`" in text  # the rules' own sentence too
    assert "`SKILL.md`" not in text
    assert cli("init", "codex", "--install-skill").code == 0
    text = (project / "AGENTS.md").read_text()
    assert "The full protocol is `.agents/skills/engramory/SKILL.md`" in text
    assert "Full protocol: `.agents/skills/engramory/SKILL.md`" in text


# --- 11.5: a sub-directory of a git work tree ---------------------------------------------


def test_init_in_a_subdirectory_uses_the_work_tree_top(cli, project: Path, monkeypatch) -> None:
    deeper = project / "src" / "pkg"
    deeper.mkdir(parents=True)
    monkeypatch.chdir(deeper)
    result = cli("init", "claude")
    assert result.code == 0, result
    assert (project / "CLAUDE.md").is_file() and not (deeper / "CLAUDE.md").exists()
    assert (project / ".engramory-memory" / "MEMORY.md").is_file()
    assert f"project root: {project} (the top of the git work tree" in result.out
    assert f"project root: {project}" in cli("uninstall", "claude", "--dry-run").out
    explicit = cli("init", "codex", "--project-root", ".")
    assert explicit.code == 0 and (deeper / "AGENTS.md").is_file()
    assert "project root:" not in explicit.out


def test_init_uses_an_existing_store_between_cwd_and_top(cli, project: Path, monkeypatch) -> None:
    sub = project / "app"
    store = sub / ".engramory-memory"
    store.mkdir(parents=True)
    (store / "MEMORY.md").write_text("# mine\n")
    deeper = sub / "lib"
    deeper.mkdir()
    monkeypatch.chdir(deeper)
    result = cli("init", "claude")
    assert result.code == 0, result
    assert not (project / ".engramory-memory").exists()
    assert f"using the existing store {store}" in result.out
    assert "app/.engramory-memory" in (project / "CLAUDE.md").read_text()
    assert (store / "MEMORY.md").read_text() == "# mine\n"
    assert "/app/.engramory-memory/" in (project / ".gitignore").read_text()
    uninstalled = cli("uninstall", "claude")
    assert uninstalled.code == 0 and f"NOT touched - {store}" in uninstalled.out


# --- 11.9: the report comes after the last write --------------------------------------------


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_a_closed_stdout_does_not_stop_the_install(
    tmp_path: Path, home: Path, unbuffered: str
) -> None:
    work = tmp_path / "proj"
    (work / ".git").mkdir(parents=True)
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read: every write to stdout fails with EPIPE
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    env.update(PYTHONPATH=str(REPO), HOME=str(home), PYTHONUNBUFFERED=unbuffered)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "engramory", "init", "claude", "--install-hooks"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            cwd=work,
            env=env,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)
    assert b"Traceback" not in done.stderr, done.stderr
    assert (work / ".engramory-memory" / "MEMORY.md").is_file()
    assert (work / ".claude" / "settings.local.json").is_file()
    assert "BEGIN ENGRAMORY CLAUDE" in (work / "CLAUDE.md").read_text()


def test_the_report_is_printed_once_after_every_step(project: Path) -> None:
    printed: list[str] = []
    spec = HOSTS["claude"]
    plan = plan_init(layout.resolve(spec, False), Options())

    def out(text: str) -> None:
        assert (project / "CLAUDE.md").is_file()  # every write happened before any output
        printed.append(text)

    assert execute(plan, False, out) == 0
    assert printed[0].startswith("engramory init claude") and len(printed) > 3  # line by line


# --- 11.10: Claude's machine-local hook config is git-ignored -------------------------------


def test_claude_local_settings_are_ignored_and_the_rule_removed(cli, project: Path) -> None:
    gitignore = project / ".gitignore"
    gitignore.write_text("node_modules/\n")
    assert cli("init", "claude", "--install-hooks").code == 0
    text = gitignore.read_text()
    assert "\n/.claude/settings.local.json\n" in text and "Engramory Claude hooks" in text
    again = cli("init", "claude", "--install-hooks")
    assert "already ignores .claude/settings.local.json" in again.out
    assert cli("uninstall", "claude").code == 0
    assert "settings.local.json" not in gitignore.read_text()
    assert "/.engramory-memory/" in gitignore.read_text()


def test_a_users_own_ignore_rule_for_local_settings_stays(cli, project: Path) -> None:
    gitignore = project / ".gitignore"
    gitignore.write_text(".claude/settings.local.json\n")
    assert cli("init", "claude", "--install-hooks").code == 0
    assert gitignore.read_text().count("settings.local.json") == 1  # not added a second time
    assert cli("uninstall", "claude").code == 0
    assert gitignore.read_text().startswith(".claude/settings.local.json\n")


def test_a_global_claude_install_touches_no_gitignore(cli, home: Path, project: Path) -> None:
    assert cli("init", "claude", "--global", "--install-hooks").code == 0
    assert not (home / ".gitignore").exists()


# --- 11.7: every flag problem is a usage error ----------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("init", "windsurf", "--install-hooks"),
        ("init", "windsurf", "--install-skill"),
        ("init", "hermes", "--install-skill"),
        ("init", "codex", "--mode", "assisted"),
        ("init", "cursor", "--global"),
        ("init", "codex-reader", "--memory-root", "x", "--install-skill"),
        ("init", "claude", "--memory-root", "."),
        ("init", "claude", "--install-hooks", "--hook-python", "/no/such/python"),
    ],
)
def test_flag_problems_exit_64_and_write_nothing(cli, project: Path, args: tuple[str, ...]) -> None:
    before = digest(project.parent)
    result = cli(*args)
    assert result.code == 64, result
    assert digest(project.parent) == before


def test_damaged_hook_config_on_uninstall_exits_1(cli, project: Path) -> None:
    config = project / ".claude" / "settings.local.json"
    config.parent.mkdir()
    config.write_text("{not json")
    result = cli("uninstall", "claude")
    # A refusal before the first write (issue 10 item 14), not a half-done uninstall.
    assert result.code == 1 and "settings.local.json is not valid JSON" in result.err
    assert config.read_text() == "{not json"


# --- 11.13: init --help says what the flags do, from the host table -------------------------


def _help(cli) -> str:
    return " ".join(cli("init", "--help").out.split())


def test_init_help_lists_every_hook_host_and_the_project_root_default(cli) -> None:
    text = _help(cli)
    hooked = [name for name, spec in HOSTS.items() if spec.hook_config is not None]
    assert len(hooked) >= 2
    flag = text[text.index("--install-hooks register") : text.index("--hook-python PY interpreter")]
    for name in hooked:
        assert f"{name}:" in flag
    assert "(claude)" not in text and "usual place" not in text
    assert "the project whose rules file is written" in text
    assert "the top of the git work tree holding the current directory" in text


def test_init_help_and_its_page_describe_force_alike(cli) -> None:
    page = REPO / "docs" / "commands" / "init.md"
    readme = " ".join(page.read_text(encoding="utf-8").split())
    described = re.search(r"`--force` \(([^)]*)\)", readme)
    assert described is not None
    assert described.group(1) in _help(cli)


def test_an_activated_venv_is_not_the_agents_path(fake_install: Path, monkeypatch) -> None:
    # `source .venv/bin/activate; engramory init ...`: the agent's shell has no such PATH entry
    script = fake_install / "engramory"
    monkeypatch.setattr(selfcommand.shutil, "which", lambda name: str(script))
    activated = selfcommand.current({"VIRTUAL_ENV": str(fake_install.parent)})
    assert activated.text == str(script)
    assert "only while this virtual environment is activated" in activated.fallback
    other_venv = selfcommand.current({"VIRTUAL_ENV": str(fake_install.parent.parent)})
    assert other_venv.text == "engramory"
