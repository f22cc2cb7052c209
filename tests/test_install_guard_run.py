"""The guard that `init --install-hooks` registers really denies, in each host's dialect.

init prints a verification command: a shell write of the index, in the host's own payload
shape, piped into the registered command. Run as printed, it must answer with a deny. A
host whose guard dialect is not in this tree yet (``engramory.dialects.DIALECTS``)
is skipped: these run once the dialects and the installer are merged.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from engramory import dialects
from engramory.hosts import registry


def verification_line(out: str) -> str:
    lines = out.splitlines()
    return lines[next(i for i, line in enumerate(lines) if line.startswith("verify the guard")) + 1]


def has_deny(value: object) -> bool:
    """Whether a decoded JSON answer says "deny" (or "block") anywhere: each host names the
    field its way (Cline ``{"cancel": true}``, the plugins' ``{"deny": reason}``)."""
    if isinstance(value, dict):
        if value.get("cancel") is True or "deny" in value:
            return True
        return any(has_deny(item) for item in value.values())
    if isinstance(value, list):
        return any(has_deny(item) for item in value)
    return value in ("deny", "block")  # Hermes: {"decision": "block"}


@pytest.mark.parametrize("host", registry.guard_hosts())
def test_the_printed_verification_command_is_denied(cli, project: Path, host: str) -> None:
    if host not in dialects.DIALECTS:
        pytest.skip(f"the {host} guard dialect is not in this tree yet")
    result = cli("init", host, "--install-hooks")
    assert result.code == 0, result
    done = subprocess.run(
        ["/bin/sh", "-c", verification_line(result.out)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    if done.returncode == 2:  # a deny by exit code, the reason on stderr (Kiro CLI)
        assert done.stdout == b"" and b"would write the memory index" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    assert has_deny(json.loads(done.stdout)), done.stdout
