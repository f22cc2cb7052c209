"""The installer's hook files that are not a JSON hook config (engramory/wiring/hookfiles.py).

A probe host outside the registry writes one owned launcher (executable, git-ignored) and
edits one config file of the user's; init, re-init, uninstall and every refusal are checked
on the file system.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from installkit import digest

from engramory.hosts.base import BLOCK, DOCUMENTED, Host
from engramory.install.apply import execute
from engramory.install.init import plan_init
from engramory.install.layout import Layout
from engramory.install.layout import resolve as resolve_layout
from engramory.install.steps import Options, Plan
from engramory.install.uninstall import plan_uninstall
from engramory.wiring import hookfiles
from engramory.wiring.hookfiles import ConfigEdit, EditRefusal, HookContext, OwnedFile
from engramory.wiring.refusal import FlagRefusal, Refusal

BEGIN, END = "# >>> probe engramory", "# <<< probe engramory"


def _install_config(text: str | None) -> str:
    if text is not None and "REFUSE" in text:
        raise EditRefusal("add the probe hook by hand")
    body = text or ""
    if BEGIN in body:
        return body
    return body + f"{BEGIN}\nhook: guard\n{END}\n"


def _remove_config(text: str) -> str | None:
    if "BROKEN" in text:
        raise EditRefusal("the probe block is damaged: remove it by hand")
    start, end = text.index(BEGIN), text.index(END) + len(END) + 1
    rest = text[:start] + text[end:]
    return rest or None


class FileProbe(Host):
    def hook_artifacts(self, context: HookContext) -> list[OwnedFile | ConfigEdit]:
        folder = context.home / ".fileprobe" if context.global_ else context.root / ".fileprobe"
        launcher = (
            f"#!/bin/sh\n# {hookfiles.OWNED_MARKER}\nexec {context.python} {context.guard}"
            f" --store {context.store} --flag {context.options.get('probe_flag', '-')}\n"
        )
        return [
            OwnedFile(folder / "PreToolUse", launcher, "the index guard", True, True),
            ConfigEdit(
                folder / "config.yaml",
                "the probe hook",
                _install_config,
                _remove_config,
                lambda text: BEGIN in text,
            ),
        ]


PROBE = FileProbe(
    name="fileprobe",
    label="FileProbe",
    rules="FILEPROBE.md",
    global_rules="~/FILEPROBE.md",
    rules_kind=BLOCK,
    skill=None,
    global_skill=None,
    verified=DOCUMENTED,
    enforcement="rules",
    hook_files=(".fileprobe/PreToolUse", ".fileprobe/config.yaml"),
    option_flags=(("--probe-flag", "probe_flag", "a flag only the probe takes"),),
)
OPTIONS = Options(install_hooks=True, hook_python=sys.executable)


def layout(project: Path, global_: bool = False) -> Layout:
    return resolve_layout(PROBE, False, project_root=str(project), global_=global_)


def run(plan: Plan) -> tuple[int, list[str]]:
    lines: list[str] = []
    return execute(plan, False, lines.append), lines


@pytest.fixture
def repo(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


def test_init_writes_the_owned_launcher_executable_and_ignored(repo: Path) -> None:
    options = Options(
        install_hooks=True, hook_python=sys.executable, host_options={"probe_flag": "x"}
    )
    code, lines = run(plan_init(layout(repo), options))
    assert code == 0, lines
    launcher = repo / ".fileprobe" / "PreToolUse"
    assert stat.S_IMODE(launcher.stat().st_mode) == 0o755
    assert f"--store {(repo / '.engramory-memory').resolve()} --flag x" in launcher.read_text()
    assert "/.fileprobe/PreToolUse" in (repo / ".gitignore").read_text()
    assert (repo / ".fileprobe" / "config.yaml").read_text() == f"{BEGIN}\nhook: guard\n{END}\n"
    assert any("create" in line and ".fileprobe/PreToolUse" in line for line in lines)


def test_reinit_keeps_everything_byte_identical(repo: Path) -> None:
    run(plan_init(layout(repo), OPTIONS))
    before = digest(repo)
    code, lines = run(plan_init(layout(repo), OPTIONS))
    assert code == 0
    assert digest(repo) == before
    kept = [line.split()[1] for line in lines if line.strip().startswith("kept")]
    assert ".fileprobe/PreToolUse" in kept and ".fileprobe/config.yaml" in kept


def test_reinit_restores_the_launchers_mode(repo: Path) -> None:
    run(plan_init(layout(repo), OPTIONS))
    launcher = repo / ".fileprobe" / "PreToolUse"
    os.chmod(launcher, 0o644)
    run(plan_init(layout(repo), OPTIONS))
    assert stat.S_IMODE(launcher.stat().st_mode) == 0o755


def test_uninstall_gives_back_the_users_bytes(repo: Path) -> None:
    (repo / ".fileprobe").mkdir()
    (repo / ".fileprobe" / "config.yaml").write_bytes(b"user: 1\r\n")
    (repo / ".gitignore").write_bytes(b"node_modules/\n")
    (repo / "FILEPROBE.md").write_bytes(b"# mine\n")
    config = (repo / ".fileprobe" / "config.yaml").read_bytes()
    run(plan_init(layout(repo), OPTIONS))
    assert (repo / ".fileprobe" / "config.yaml").read_bytes().startswith(b"user: 1\r\n")
    code, lines = run(plan_uninstall(layout(repo)))
    assert code == 0, lines
    assert not (repo / ".fileprobe" / "PreToolUse").exists()
    assert (repo / ".fileprobe" / "config.yaml").read_bytes() == config
    ignore = (repo / ".gitignore").read_text()
    assert ignore.startswith("node_modules/\n")
    assert "fileprobe" not in ignore.lower()  # the store's own entry stays; the hook's is gone
    assert "/.engramory-memory/" in ignore


def test_uninstall_removes_what_init_created_whole(repo: Path) -> None:
    run(plan_init(layout(repo), OPTIONS))
    run(plan_uninstall(layout(repo)))
    assert not (repo / ".fileprobe").exists()


def test_a_users_file_in_the_launchers_place_is_refused_before_any_write(repo: Path) -> None:
    (repo / ".fileprobe").mkdir()
    (repo / ".fileprobe" / "PreToolUse").write_text("#!/bin/sh\necho mine\n")
    before = digest(repo)
    with pytest.raises(Refusal, match="PreToolUse exists and is not Engramory's"):
        plan_init(layout(repo), OPTIONS)
    assert digest(repo) == before


def test_uninstall_leaves_a_launcher_that_lost_its_marker(repo: Path) -> None:
    run(plan_init(layout(repo), OPTIONS))
    launcher = repo / ".fileprobe" / "PreToolUse"
    launcher.write_text("#!/bin/sh\necho edited by the user\n")
    code, lines = run(plan_uninstall(layout(repo)))
    assert launcher.read_text() == "#!/bin/sh\necho edited by the user\n"
    assert any("left" in line and "not Engramory's" in line for line in lines)
    assert code == 0


def test_a_config_the_host_cannot_edit_is_refused_before_any_write(repo: Path) -> None:
    (repo / ".fileprobe").mkdir()
    (repo / ".fileprobe" / "config.yaml").write_text("REFUSE: me\n")
    before = digest(repo)
    with pytest.raises(Refusal, match="add the probe hook by hand; nothing was written"):
        plan_init(layout(repo), OPTIONS)
    assert digest(repo) == before


def test_a_damaged_config_is_left_untouched_by_uninstall_with_exit_1(repo: Path) -> None:
    run(plan_init(layout(repo), OPTIONS))
    config = repo / ".fileprobe" / "config.yaml"
    config.write_text(config.read_text() + "BROKEN\n")
    damaged = config.read_bytes()
    code, lines = run(plan_uninstall(layout(repo)))
    assert code == 1
    assert config.read_bytes() == damaged
    assert any("remove it by hand" in line for line in lines)


def test_dry_run_writes_nothing(repo: Path) -> None:
    before = digest(repo)
    lines: list[str] = []
    assert execute(plan_init(layout(repo), OPTIONS), True, lines.append) == 0
    assert digest(repo) == before
    assert any("would create" in line and ".fileprobe/PreToolUse" in line for line in lines)


def test_global_hooks_are_refused_for_a_host_without_user_wide_files(
    project: Path, home: Path
) -> None:
    with pytest.raises(FlagRefusal, match="no user-wide hook configuration"):
        plan_init(layout(project, global_=True), OPTIONS)


def test_is_owned_looks_only_at_the_first_lines() -> None:
    assert hookfiles.is_owned(f"#!/bin/sh\n# {hookfiles.OWNED_MARKER}\n")
    late = "\n" * hookfiles.MARKER_LINES + hookfiles.OWNED_MARKER
    assert not hookfiles.is_owned(late)
