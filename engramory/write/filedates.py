"""A file's dates from outside its text: git's first and last commit of it, else its mtime.

A note that records no date can still be dated from its history: the first
and last commit that touched it (git, run without a shell, with a timeout per
call and a budget per run, no external diff, text conversion, fsmonitor or
signature program), else its modification time -- unless that is today,
which says when the file was copied, not when the fact was written.
:class:`FileHistory` tries the sources in the order it is given and says
which one answered (or why none did), so a command can report it: ``fix``
fills a missing date with it, ``import`` dates a note that has none.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from datetime import date

from engramory.util import fsutil

GIT = "git"
MTIME = "mtime"
NONE = "none"
GIT_TIMEOUT = 10  # seconds for one git call
GIT_BUDGET = 120  # seconds for every git call of one history; past it, no more dates from git
NOT_IN_GIT = "not in a git work tree, or git is missing"
NO_COMMIT = "git has no commit of it"


@dataclass(frozen=True)
class FileDates:
    """``first``/``last`` day (``YYYY-MM-DD``) of a file and ``source`` (``git``,
    ``mtime``), or ``source`` ``none`` and ``why`` in a few words."""

    first: str | None = None
    last: str | None = None
    source: str = NONE
    why: str = ""


def is_day(text: str) -> bool:
    """``text`` is exactly a real ``YYYY-MM-DD`` day."""
    try:
        return len(text) == 10 and date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


class FileHistory:
    """Dates of the files of one folder, from each source of ``sources`` in turn."""

    def __init__(self, root: str, sources: tuple[str, ...] = (GIT, MTIME)) -> None:
        self.root = root
        self.sources = sources
        self.spent = 0.0
        self.in_git: bool | None = None

    def dates(self, rel: str) -> FileDates:
        """The first source's dates for ``rel`` (``/``-separated, below the root)."""
        reasons = []
        for source in self.sources:
            found = self.git(rel) if source == GIT else self.mtime(rel)
            if found.source != NONE:
                return found
            reasons.append(found.why)
        return FileDates(why="; ".join(reasons))

    def git(self, rel: str) -> FileDates:
        """The days of the first and the last commit of ``rel`` (following renames)."""
        if self.in_git is None:
            self.in_git = self._git("rev-parse", "--is-inside-work-tree") == ["true"]
        if not self.in_git:
            return FileDates(why=NOT_IN_GIT)
        found = self._git(
            "log", "--follow", "--no-textconv", "--no-ext-diff", "--date=short", "--format=%ad",
            "--", rel,
        )  # fmt: skip
        days = [day for day in (found or []) if is_day(day)]
        if not days:
            return FileDates(why=NO_COMMIT)
        return FileDates(days[-1], days[0], GIT)

    def mtime(self, rel: str) -> FileDates:
        """The day of the file's modification time, unless it is today (or later)."""
        try:
            when = os.lstat(os.path.join(self.root, *rel.split("/"))).st_mtime
        except OSError as exc:
            return FileDates(why=fsutil.os_error_text(exc))
        day = date.fromtimestamp(when)
        if day >= date.today():
            return FileDates(why="its modification date is today, which says nothing about it")
        return FileDates(day.isoformat(), day.isoformat(), MTIME)

    def _git(self, *arguments: str) -> list[str] | None:
        """The output words of one git call in the folder, ``None`` when it fails."""
        if self.spent >= GIT_BUDGET:
            return None
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
        # The folder may come from anyone: no repository setting may run a program.
        command = [GIT, "--literal-pathspecs", "-c", "core.fsmonitor=false"]
        command += ["-c", "log.showSignature=false", *arguments]
        started = time.monotonic()
        try:
            done = subprocess.run(
                command,
                cwd=self.root,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=GIT_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.SubprocessError, ValueError):
            return None
        finally:
            self.spent += time.monotonic() - started
        if done.returncode != 0:
            return None
        return done.stdout.decode("utf-8", "replace").split()
