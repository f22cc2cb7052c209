"""The README starts where a user starts: short, with a quick start that runs as shown.

The quick start (the block after ``<!-- setup:quickstart -->``) runs verbatim
with ``bash -e`` in a fresh git folder, with HOME and Claude Code's config
folder inside the test's tmp directory, and must show the guard's deny; the
outputs the README quotes after it must be what the commands print.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
MAX_LINES = 300


def readme_command():
    spec = importlib.util.spec_from_file_location(
        "readme_command", REPO / ".ci" / "readme_command.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def quickstart() -> str:
    return readme_command().setup_block(README.read_text(encoding="utf-8"), "quickstart")


def quoted_outputs() -> list[str]:
    """The outputs the README quotes right after the quick start, each up to its ``...``."""
    text = README.read_text(encoding="utf-8")
    after = text.split("<!-- setup:quickstart -->", 1)[1].split("\n```\n", 1)[1]
    paragraph = after.strip().split("\n\n", 1)[0]
    spans = re.findall(r"`([^`]*(?:\.\.\.|\(\.\.\.\))[^`]*)`", paragraph)
    return [span.split("...")[0].rstrip("( ") for span in spans]


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> subprocess.CompletedProcess:
    root = tmp_path_factory.mktemp("quickstart")
    project, home, bindir = root / "project", root / "home", root / "bin"
    for folder in (project, home, bindir):
        folder.mkdir()
    shim = bindir / "engramory"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m engramory "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        "PATH": f"{bindir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "PYTHONPATH": str(REPO),
        "NO_COLOR": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=env)
    script = root / "quickstart.sh"
    script.write_text(quickstart(), encoding="utf-8")
    return subprocess.run(
        ["bash", "-e", str(script)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_readme_is_at_most_300_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_quickstart_names_a_real_host_and_runs_each_step() -> None:
    steps = [line.split()[:2] for line in quickstart().splitlines() if line.startswith("engramory")]
    assert steps == [
        ["engramory", "init"],
        ["engramory", "new"],
        ["engramory", "check"],
        ["engramory", "doctor"],
        ["engramory", "uninstall"],
    ]
    assert "engramory init claude --install-hooks" in quickstart()
    assert "| engramory guard --host claude" in quickstart()
    assert 10 <= len(quickstart().splitlines()) <= 20


def test_quickstart_runs_with_bash_e_and_shows_the_deny(ran: subprocess.CompletedProcess) -> None:
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert '"permissionDecision": "deny"' in ran.stdout
    assert "this would GROW the memory index" in ran.stdout
    assert "memory store: NOT touched" in ran.stdout  # uninstall ran last, the store stays


def test_the_outputs_the_readme_quotes_are_printed(ran: subprocess.CompletedProcess) -> None:
    quoted = quoted_outputs()
    assert len(quoted) == 3
    for excerpt in quoted:
        assert excerpt in ran.stdout, excerpt


# What a project install may write under HOME: the doctor's result cache and the store's
# history (and the projects record beside it), each in its XDG folder (DESIGN §4), no user file.
ENGRAMORY_HOME_FOLDERS = (".cache/engramory", ".local/state/engramory")


def test_the_quickstart_writes_into_home_only_the_cache_and_the_history(
    ran: subprocess.CompletedProcess,
) -> None:
    home = Path(ran.args[-1]).parent / "home"
    assert ran.returncode == 0
    written = [p.relative_to(home).as_posix() for p in home.rglob("*") if not p.is_dir()]
    outside = [
        rel for rel in written if not any(rel.startswith(f + "/") for f in ENGRAMORY_HOME_FOLDERS)
    ]
    assert outside == []  # a project install: no user file, no rules, no settings
    for folder in ENGRAMORY_HOME_FOLDERS:
        if (home / folder).exists():
            assert (home / folder).stat().st_mode & 0o077 == 0, folder  # private to the user
