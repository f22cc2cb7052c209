"""A project's git identity: its root commit and remote URL, which survive a move or a clone.

A memory folder is keyed by a path; a project's identity is not. Two folders
whose projects share a root commit or a remote are one project's memory, split.
git runs as a subprocess with no shell, a timeout, and none of the user's or the
system's configuration (:mod:`engramory.history.gitrun`). No git, no repository,
a repository git will not read (another user's), a timeout: the fields are ``None``.
A remote URL's user name and password (``https://user:token@host/...``) are
never kept: they are cut before the URL is returned.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass

TIMEOUT = 5.0
OUTPUT_LIMIT = 64 * 1024
_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@")
_COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


@dataclass(frozen=True)
class GitIdentity:
    """``root_commit``: the first root commit (sorted) of ``HEAD``; ``remote``: ``origin``'s URL,
    else the first remote's (credentials cut). Either is ``None`` when unknown."""

    root_commit: str | None = None
    remote: str | None = None

    @property
    def known(self) -> bool:
        return self.root_commit is not None or self.remote is not None


def without_credentials(url: str) -> str:
    """``url`` without the ``user:password@`` part of a URL with a scheme (scp-style kept)."""
    return _USERINFO.sub(r"\1", url.strip())


def _git(path: str, args: list[str]) -> str | None:
    """``git -C path args``'s output (bounded), or ``None`` on any failure."""
    from engramory.history import gitrun  # noqa: PLC0415 - only when git is wanted

    found = shutil.which("git")
    if found is None:
        return None
    settings = [part for setting in gitrun.SETTINGS for part in ("-c", setting)]
    try:
        done = subprocess.run(
            [found, "--no-pager", *settings, "-C", path, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=gitrun.environment(path),
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout[:OUTPUT_LIMIT].decode("utf-8", "replace")


def root_commit(path: str) -> str | None:
    """The first (sorted) root commit reachable from ``HEAD`` in the work tree at ``path``."""
    text = _git(path, ["rev-list", "--max-parents=0", "HEAD"])
    roots = sorted(line for line in (text or "").split() if _COMMIT.fullmatch(line))
    return roots[0] if roots else None


def remote_url(path: str) -> str | None:
    """``origin``'s URL, else the first remote's (by name), credentials cut."""
    text = _git(path, ["config", "--get-regexp", r"^remote\..*\.url$"])
    urls: dict[str, str] = {}
    for line in (text or "").splitlines():
        key, _, value = line.partition(" ")
        if value.strip():
            urls.setdefault(key[len("remote.") : -len(".url")], value)
    if not urls:
        return None
    return without_credentials(urls.get("origin") or urls[sorted(urls)[0]])


def identity(path: str | os.PathLike[str]) -> GitIdentity:
    """The git identity of the work tree at ``path`` (both ``None`` outside git)."""
    where = os.fspath(path)
    if not os.path.isdir(where):
        return GitIdentity()
    return GitIdentity(root_commit(where), remote_url(where))
