"""Dates of a note's file outside its text: its first and last git commit, or its
modification time (``fix --dates-from``, ``compact``'s cold step).

Git runs without a shell, with a timeout per call and a budget for all the calls of
one run; past the budget, or outside a work tree, no date comes from git.
"""

from __future__ import annotations

import os
import subprocess
from datetime import date, datetime, timezone

from engramory import fsutil
from engramory.repair.model import Dates

GIT_TIMEOUT = 10  # seconds for one git call
GIT_BUDGET = 120  # seconds for every git call of one run


class FileDates:
    """Dates for notes: from git (first and last commit) or the modification time."""

    def __init__(
        self, root: str, source: str, timeout: float = GIT_TIMEOUT, budget: float = GIT_BUDGET
    ) -> None:
        self.root = root
        self.source = source
        self.timeout = timeout
        self.budget = budget
        self.spent = 0.0
        self.in_git: bool | None = None

    def dates(self, rel: str) -> Dates:
        if self.source == "mtime":
            return self._mtime(rel)
        if self.in_git is None:
            self.in_git = self._git("rev-parse", "--is-inside-work-tree") == ["true"]
        if not self.in_git:
            return Dates(
                why="the store is not in a git work tree, or git is missing "
                "(--dates-from mtime uses the files' modification dates)"
            )
        found = self._git(
            "log",
            "--follow",
            "--no-textconv",
            "--no-ext-diff",
            "--date=short",
            "--format=%ad",
            "--",
            rel,
        )
        days = [day for day in (found or []) if _is_day(day)]
        if not days:
            return Dates(why="git has no commit of it")
        return Dates(days[-1], days[0])

    def _mtime(self, rel: str) -> Dates:
        try:
            when = os.lstat(os.path.join(self.root, *rel.split("/"))).st_mtime
        except OSError as exc:
            return Dates(why=fsutil.os_error_text(exc))
        day = date.fromtimestamp(when)
        if day >= date.today():
            return Dates(why="its modification date is today, which says nothing about the fact")
        return Dates(day.isoformat(), day.isoformat())

    def _git(self, *arguments: str) -> list[str] | None:
        """The output lines of one git call in the store, ``None`` when it fails."""
        if self.spent >= self.budget:
            return None
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
        command = ["git", "--literal-pathspecs", "-c", "core.fsmonitor=false", *arguments]
        started = datetime.now(timezone.utc)
        try:
            done = subprocess.run(
                command,
                cwd=self.root,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=self.timeout,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        finally:
            self.spent += (datetime.now(timezone.utc) - started).total_seconds()
        if done.returncode != 0:
            return None
        return done.stdout.decode("utf-8", "replace").split()


def _is_day(text: str) -> bool:
    try:
        return len(text) == 10 and date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False
