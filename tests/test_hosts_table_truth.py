"""`engramory hosts` says how each host holds the cap and which reminders it gets: check that
against what `engramory init HOST --install-hooks` really writes.

For every host the table says installs hooks, init runs in a fresh git project with a
throw-away home; every file it creates or changes (outside the store and the skill) is read.
The index guard's script must be wired exactly when the table claims a pre-write deny hook,
the sync script exactly when it lists continuity hooks, and each listed event must be named
in what was written (as a key, an argument or a file name).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from installkit import args_for, digest

from engramory.hosts.base import CAP_ENFORCEMENT_TEXT, DENY_HOOK, DENY_HOOK_UNVERIFIED
from engramory.hosts.registry import HOSTS, rows

HOOK_HOSTS = [name for name, host in HOSTS.items() if host.installs_hooks]
RULES_ONLY = [name for name, host in HOSTS.items() if not host.installs_hooks]


@pytest.fixture
def hermes_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = home / ".hermes"
    monkeypatch.setenv("HERMES_HOME", str(path))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    return path


def _written(before: dict[str, str], after: dict[str, str], root: Path) -> dict[str, str]:
    """Path -> text of every file init created or changed under ``root``."""
    skip = (".engramory-memory/", "skills/")
    return {
        rel: (root / rel).read_text(encoding="utf-8", errors="replace")
        for rel, value in after.items()
        if value != "dir" and before.get(rel) != value and not any(s in rel for s in skip)
    }


@pytest.mark.parametrize("name", HOOK_HOSTS)
def test_the_table_says_what_init_installs(
    name: str, cli, project: Path, home: Path, hermes_home: Path
) -> None:
    host = HOSTS[name]
    roots = (project, home)
    before = [digest(root) for root in roots]
    result = cli(
        "init", name, *args_for(name, project), "--install-hooks", "--hook-python", sys.executable
    )
    assert result.code == 0, result.out + result.err
    written: dict[str, str] = {}
    for root, old in zip(roots, before):
        written.update(_written(old, digest(root), root))
    text = "\n".join(written.values())
    names = "\n".join(written)

    assert ("engramory_index_guard.py" in text) == host.pre_write_hook, sorted(written)
    assert ("engramory_sync.py" in text) == bool(host.lifecycle_hooks), sorted(written)
    for event in host.lifecycle_hooks:
        assert event in text or event in names, (event, sorted(written))


@pytest.mark.parametrize("name", RULES_ONLY)
def test_a_host_without_hooks_refuses_install_hooks(name: str, cli, project: Path) -> None:
    result = cli("init", name, *args_for(name, project), "--install-hooks")
    assert result.code == 64
    assert "--install-hooks is supported only for" in result.err


def test_every_row_of_the_table_agrees_with_its_host() -> None:
    table = {row["host"]: row for row in rows()}
    for name, host in HOSTS.items():
        row = table[name]
        deny = row["cap_enforcement"] in (DENY_HOOK, DENY_HOOK_UNVERIFIED)
        assert row["pre_write_hook"] == deny == host.pre_write_hook, name
        assert row["cap_enforcement"] in CAP_ENFORCEMENT_TEXT, name
        assert row["lifecycle_hooks"] == list(host.lifecycle_hooks), name
        if deny or row["lifecycle_hooks"]:
            assert host.installs_hooks, name


def test_the_text_table_names_each_hosts_cap_and_reminders(cli) -> None:
    text = cli("hosts").out
    table = json.loads(cli("hosts", "--format", "json").out)
    starts = [text.index(f"{row['host']} ({row['label']})") for row in table]
    for row, start, end in zip(table, starts, [*starts[1:], len(text)]):
        section = text[start:end]
        assert CAP_ENFORCEMENT_TEXT[row["cap_enforcement"]] in section, row["host"]
        for event in row["lifecycle_hooks"]:
            assert event in section, (row["host"], event)
