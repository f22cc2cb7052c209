"""Build a wheel, install it into a fresh venv, and use it from outside the checkout.

The installer copies shipped documents (templates/, LICENSE, ...) into agent
hosts, so they must be found from an installed wheel, not only from a checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLE_STORE, REPO

FIND_HOOK = """\
from engramory.util import resources
print(resources.shipped_path("hooks/engramory_index_guard.py"))
"""
FIND_DOCUMENTS = """\
from engramory.util import resources
for name in ("templates/MEMORY.md", "LICENSE", "hooks/README.md", "adapters/README.md"):
    print(resources.shipped_path(name))
"""


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert proc.returncode == 0, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_installed_wheel_finds_its_documents_and_runs(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(REPO),
        ],
        cwd=tmp_path,
    )
    wheels = list(dist.glob("engramory-*.whl"))
    assert len(wheels) == 1

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            str(wheels[0]),
        ],
        cwd=tmp_path,
    )

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    version = _run([str(bindir / "engramory"), "--version"], cwd=outside, env=env)
    assert version.startswith("engramory ")

    found = _run([str(python), "-c", FIND_DOCUMENTS], cwd=outside, env=env).splitlines()
    assert len(found) == 4
    for line in found:
        path = Path(line)
        assert path.is_file()
        assert venv.resolve() in path.resolve().parents, f"{path} is not from the wheel"
        assert "_shipped" in path.parts
    assert Path(found[0]).read_bytes() == (REPO / "templates" / "MEMORY.md").read_bytes()

    verdict = _run([str(bindir / "engramory"), "check", str(EXAMPLE_STORE)], cwd=outside, env=env)
    assert verdict.startswith("OK:")

    # The installer finds the protocol documents as package data.
    project = tmp_path / "project"
    project.mkdir()
    _run([str(bindir / "engramory"), "init", "codex", "--install-skill"], cwd=project, env=env)
    skill = project / ".agents" / "skills" / "engramory"
    for name in ("SKILL.md", "rules-snippet.md", "PORTING.md", "AGENT-SETUP.md", "LICENSE"):
        assert (skill / name).read_bytes() == (REPO / name).read_bytes(), name
    assert (skill / "templates" / "MEMORY.md").is_file()
    assert "BEGIN ENGRAMORY CODEX" in (project / "AGENTS.md").read_text()

    # The hook script shipped in the wheel finds its own package under `python -I -S`.
    hook = _run([str(python), "-c", FIND_HOOK], cwd=outside, env=env).strip()
    assert venv.resolve() in Path(hook).resolve().parents
    payload = json.dumps(
        {"tool_name": "Write", "tool_input": {"file_path": "/m/MEMORY.md", "content": "x\n" * 300}}
    )
    proc = subprocess.run(
        [str(python), "-I", "-S", hook],
        input=payload,
        capture_output=True,
        text=True,
        cwd=outside,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
