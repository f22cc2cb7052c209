"""``engramory init cline --install-hooks``: executable launcher files named after Cline's hook
events, written whole, kept byte-identical on re-init, and taken back by uninstall while they
carry Engramory's marker."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from hookkit import lines
from installkit import digest, refused

from engramory.hosts import cline, registry
from engramory.wiring import hookfiles
from engramory.wiring.hookfiles import HookContext

HOOK_NAMES = (
    "PreToolUse",
    "PostToolUse",
    "TaskStart",
    "TaskResume",
    "UserPromptSubmit",
    "PreCompact",
)
PROJECT_FILES = [f"{d}/{n}" for d in (".clinerules/hooks", ".cline/hooks") for n in HOOK_NAMES]
# The user's own .clinerules/hooks/PostToolUse (user_project) keeps Engramory's out of there.
WRITTEN_FILES = [rel for rel in PROJECT_FILES if rel != ".clinerules/hooks/PostToolUse"]
GLOBAL_FILES = [f"{d}/{n}" for d in ("Documents/Cline/Hooks", ".cline/hooks") for n in HOOK_NAMES]
POSIX = pytest.mark.skipif(os.name == "nt", reason="the launchers are POSIX sh scripts")


def user_project(project: Path) -> None:
    """A project with the user's own Cline rules, one hook of theirs and a .gitignore."""
    (project / ".clinerules" / "hooks").mkdir(parents=True)
    (project / ".clinerules" / "team.md").write_text("# Team rules\n")
    theirs = project / ".clinerules" / "hooks" / "PostToolUse"
    theirs.write_text("#!/bin/sh\necho '{\"cancel\": false}'\n")
    theirs.chmod(0o755)
    (project / ".gitignore").write_text("node_modules/\r\n")


def test_the_host_lists_the_files_init_writes(project: Path) -> None:
    host = registry.HOSTS["cline"]
    assert list(host.hook_files) == PROJECT_FILES
    assert list(host.global_hook_files) == [f"~/{path}" for path in GLOBAL_FILES]
    assert host.lifecycle_hooks == ("TaskStart", "TaskResume", "UserPromptSubmit", "PreCompact")


def test_init_reinit_uninstall_round_trip(cli, project: Path) -> None:
    user_project(project)
    before = digest(project)
    first = cli("init", "cline", "--install-hooks")
    assert first.code == 0, first
    for rel in WRITTEN_FILES:
        path = project / rel
        assert stat.S_IMODE(path.stat().st_mode) == 0o755, rel
        text = path.read_text()
        assert hookfiles.is_owned(text) and text.startswith("#!/bin/sh\n"), rel
    guard = (project / ".clinerules/hooks/PreToolUse").read_text()
    index = project / ".engramory-memory" / "MEMORY.md"
    assert f"--host cline --index {index}" in guard
    start = (project / ".cline/hooks/TaskStart").read_text()
    assert "hook --host cline --event SessionStart --mode explicit --" in start
    assert "--event UserPromptSubmit" in (project / ".cline/hooks/UserPromptSubmit").read_text()
    ignore = (project / ".gitignore").read_text()
    assert all(f"/{rel}" in ignore for rel in WRITTEN_FILES)
    assert "Cline 4.0 or later" in first.out
    installed = digest(project)
    for _ in range(2):
        again = cli("init", "cline", "--install-hooks")
        assert again.code == 0 and digest(project) == installed
        assert again.out.count("already registered") == len(WRITTEN_FILES)
    assert cli("uninstall", "cline").code == 0
    after = digest(project, skip=(".git", ".engramory-memory"))
    assert {k: v for k, v in after.items() if k != ".gitignore"} == {
        k: v for k, v in before.items() if k != ".gitignore"
    }
    left = (project / ".gitignore").read_bytes()
    assert left.startswith(b"node_modules/\r\n") and b"hooks" not in left


def test_a_hook_of_the_users_with_our_name_is_refused(cli, project: Path) -> None:
    user_project(project)
    (project / ".clinerules/hooks/PreToolUse").write_text("#!/bin/sh\n./my-policy\n")
    refused(
        cli,
        project,
        *("init", "cline", "--install-hooks"),
        match="lacks the engramory-managed-hook line",
    )


def test_dry_run_writes_nothing(cli, project: Path) -> None:
    user_project(project)
    before = digest(project.parent)
    result = cli("init", "cline", "--install-hooks", "--dry-run")
    assert result.code == 0 and "would create    .clinerules/hooks/PreToolUse" in result.out
    assert digest(project.parent) == before
    assert cli("init", "cline", "--install-hooks").code == 0
    before = digest(project.parent)
    assert cli("uninstall", "cline", "--dry-run").code == 0
    assert digest(project.parent) == before


def test_uninstall_leaves_a_hook_file_the_user_took_over(cli, project: Path) -> None:
    assert cli("init", "cline", "--install-hooks").code == 0
    taken = project / ".cline/hooks/TaskStart"
    taken.write_text("#!/bin/sh\n./mine\n")
    result = cli("uninstall", "cline")
    assert result.code == 0 and "not Engramory's" in result.out
    assert taken.read_text() == "#!/bin/sh\n./mine\n"
    assert not (project / ".cline/hooks/PreToolUse").exists()


def test_global_install_writes_both_user_folders(cli, project: Path, home: Path) -> None:
    assert cli("init", "cline", "--global", "--install-hooks").code == 0
    for rel in GLOBAL_FILES:
        assert hookfiles.is_owned((home / rel).read_text()), rel
    assert not (project / ".clinerules").exists()
    assert cli("uninstall", "cline", "--global").code == 0
    assert not any((home / rel).exists() for rel in GLOBAL_FILES)


def test_windows_gets_powershell_launchers(tmp_path: Path) -> None:
    context = HookContext(
        python="C:\\Py\\python.exe",
        guard="C:\\e\\hooks\\engramory_index_guard.py",
        sync="C:\\e\\hooks\\engramory_sync.py",
        store="C:\\p\\.engramory-memory",
        mode="explicit",
        root=tmp_path,
        home=tmp_path / "home",
        windows=True,
    )
    artifacts = registry.HOSTS["cline"].hook_artifacts(context)
    names = sorted({a.path.name for a in artifacts})
    assert names == sorted(f"{n}.ps1" for n in HOOK_NAMES)
    guard = next(a for a in artifacts if a.path.name == "PreToolUse.ps1")
    assert hookfiles.is_owned(guard.text) and guard.executable and guard.ignore
    assert "& 'C:\\Py\\python.exe' '-I' '-S' 'C:\\e\\hooks\\engramory_index_guard.py'" in guard.text
    assert "'--host' 'cline' '--index' 'C:\\p\\.engramory-memory" in guard.text
    assert guard.text.rstrip().endswith("exit 0")


@POSIX
def test_the_installed_guard_denies_an_index_write(cli, project: Path) -> None:
    assert cli("init", "cline", "--install-hooks").code == 0
    index = project / ".engramory-memory" / "MEMORY.md"
    index.write_text(lines(199))
    payload = {
        "hookName": "PreToolUse",
        "taskId": "t",
        "workspaceRoots": [str(project)],
        "preToolUse": {
            "toolName": "editor",
            "parameters": {
                "path": ".engramory-memory/MEMORY.md",
                "new_text": "a\nb",
                "insert_line": "3",
            },
        },
    }
    for folder in (".clinerules/hooks", ".cline/hooks"):
        proc = subprocess.run(
            [str(project / folder / "PreToolUse")],
            input=json.dumps(payload).encode(),
            capture_output=True,
            cwd=project,
            timeout=120,
            check=False,
        )
        output = json.loads(proc.stdout)
        assert output["cancel"] is True and "GROW" in output["errorMessage"], folder


def test_the_launcher_carries_the_marker_in_its_first_lines() -> None:
    text = cline.launcher(["/py", "-I", "-S", "/g.py"], "Cline PreToolUse")
    assert hookfiles.is_owned(text)
    assert text.splitlines()[-1] == "exec /py -I -S /g.py"
