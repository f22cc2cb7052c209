"""Helpers for the install tests: the host lists, tree digests, and running init/uninstall."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from conftest import REPO
from engramory.hosts.registry import HOSTS

SCHEMAS = REPO / "tests" / "schemas"
WRITE_HOSTS = sorted(HOSTS)
SKILLED = [h for h in WRITE_HOSTS if HOSTS[h].skill is not None]


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


def owner_store(tmp_path: Path) -> Path:
    store = tmp_path / "owner-store"
    store.mkdir()
    (store / "MEMORY.md").write_text("# Memory index\n")
    return store


def refused(cli, project: Path, *args: str, match: str, code: int = 1) -> None:
    """``args`` are refused with ``code`` (1: the files' state, 64: the command line)."""
    before = digest(project.parent)
    result = cli(*args)
    assert result.code == code, result
    assert match in result.err
    assert digest(project.parent) == before
