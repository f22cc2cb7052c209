"""Helpers for the guard dialect tests: run the hook as a host runs it, read its answer."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from engramory import dialects
from engramory.guard import service

HOOK = REPO / "hooks" / "engramory_index_guard.py"
# What a payload that cannot concern the index may import (Claude's dialect's own list,
# plus the light module the other dialects share).
SHARED_HOT_PATH = {
    "engramory",
    "engramory.dialects",
    "engramory.dialects.rawjson",
    "engramory.guard",
    "engramory.guard.toolcall",
}
HEAVY = {
    "json",
    "re",
    "argparse",
    "shlex",
    "pathlib",
    "dataclasses",
    "typing",
    "engramory.util.fastjson",
}
DENY, NUDGE, SILENT = "deny", "nudge", "silent"


def lines(n: int, width: int = 1) -> str:
    return ("x" * width + "\n") * n


def run_hook(
    host: str,
    payload: object = None,
    *args: str,
    raw: bytes | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``python -I -S hooks/engramory_index_guard.py --host HOST ARGS`` with the JSON on stdin."""
    data = raw if raw is not None else json.dumps(payload).encode()
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK), "--host", host, *args],
        input=data,
        capture_output=True,
        env=full_env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def answer(proc: subprocess.CompletedProcess[bytes]) -> dict | None:
    """The hook's printed JSON object (``None``: no output); it must exit 0, quietly."""
    assert proc.returncode == 0, proc
    assert proc.stderr == b""
    if not proc.stdout.strip():
        return None
    output = json.loads(proc.stdout)
    assert isinstance(output, dict)
    return output


def imported(host: str, payload: object, *args: str) -> set[str]:
    """The modules the hook imports for ``payload`` (``-X importtime``); it must stay silent."""
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(HOOK), "--host", host, *args],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout == b""
    names = {m.group(1).decode() for m in re.finditer(rb"\|\s+([\w.]+)\n", proc.stderr)}
    assert "engramory.dialects" in names  # the parse of -X importtime's report works
    return names


def hot_path(host: str) -> set[str]:
    """The engramory modules a dismissed payload may import for ``host``."""
    return SHARED_HOT_PATH | {f"engramory.dialects.{host}", "engramory.dialects.fields"}


def crash_is_silent(
    host: str, payload: bytes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A crash anywhere after the payload is read (the service, the dialect): exit 0, no output."""

    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    for module, name in ((service, "check"), (dialects.dialect(host), "tool_calls")):
        with monkeypatch.context() as patch:
            patch.setattr(module, name, broken)
            patch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(payload)))
            assert dialects.main(["--host", host]) == 0
        assert capsys.readouterr() == ("", "")
