"""Shared test helpers: run the CLI in-process or as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engramory.cli import main

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_STORE = REPO / "examples" / "store"
CAP_ENV = ("ENGRAMORY_WARN", "ENGRAMORY_HARD", "ENGRAMORY_WARN_BYTES", "ENGRAMORY_HARD_BYTES")


@pytest.fixture(autouse=True)
def _clean_engramory_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Tests start without any ENGRAMORY_* setting from the developer's shell, with an
    empty cache folder, an empty Claude Code configuration folder (discovery falls back to
    the project's Claude Code auto-memory folder: the developer's own must never be found),
    and a fresh $XDG_STATE_HOME (where store histories go)."""
    for name in list(os.environ):
        if name.startswith("ENGRAMORY_"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", raising=False)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("claude-config")))
    # history (issue 37) lives under $XDG_STATE_HOME: never the developer's own
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))
    # The doctor's result cache goes to a throw-away folder, for subprocesses too.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code = code
        self.out = out
        self.err = err

    def __repr__(self) -> str:
        return f"Result(code={self.code}, out={self.out!r}, err={self.err!r})"


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """Run ``engramory ARGS...`` in-process; returns a :class:`Result`."""

    def run(*args: str) -> Result:
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def run_engramory(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
    stdin: bytes | None = None,
    timeout: float = 30,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m engramory ARGS...`` as a real process (bytes in and out)."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    full_env["PYTHONPATH"] = str(REPO)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "engramory", *args],
        input=stdin,
        capture_output=True,
        env=full_env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


# --- install tests: a throw-away home and project ------------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throw-away home directory (global installs; $DSH_HOME and $CLAUDE_CONFIG_DIR unset,
    so Claude Code's configuration folder is the throw-away ~/.claude)."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("DSH_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return path


@pytest.fixture
def project(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git work tree to install into (also the current directory)."""
    path = tmp_path / "project"
    path.mkdir()
    (path / ".git").mkdir()
    monkeypatch.chdir(path)
    return path
