"""Where an imported note's dates come from (issue 31): the note's own created/updated or the
host's modified, else the source file's first and last git commit, else its modification
time, never today's; the report says which, per note. Dates are set in the test (commit
dates, utime), nothing is frozen."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import date, datetime
from pathlib import Path

import pytest

from engramory.store.frontmatter import parse
from engramory.write import filedates
from engramory.write.filedates import FileHistory

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def fields(path: Path) -> dict[str, str]:
    return parse(path.read_text(encoding="utf-8")).fields


def git(cwd: Path, *args: str, when: str = "") -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
        | {"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
        | {"HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1"}
    )
    if when:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{when}T12:00:00+00:00"
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def set_day(path: Path, day: str) -> None:
    stamp = datetime.fromisoformat(f"{day}T12:00:00").timestamp()
    os.utime(path, (stamp, stamp))


NOTE = "---\nname: {name}\ndescription: d\ntype: user\n{extra}---\nBody.\n"


@needs_git
def test_dates_from_the_note_git_mtime_or_none_and_the_report_says_which(
    cli, tmp_path: Path
) -> None:
    source = tmp_path / "native"
    source.mkdir()
    git(source, "init", "-q")
    committed = source / "user_committed.md"
    committed.write_text(NOTE.format(name="c", extra=""), encoding="utf-8")
    git(source, "add", committed.name)
    git(source, "commit", "-q", "-m", "first", when="2025-05-06")
    committed.write_text(NOTE.format(name="c", extra="") + "More.\n", encoding="utf-8")
    git(source, "commit", "-q", "-am", "second", when="2025-06-07")
    own = source / "user_own.md"
    own.write_text(NOTE.format(name="o", extra="modified: 2026-07-22T03:31:59.211Z\n"), "utf-8")
    old = source / "user_old.md"
    old.write_text(NOTE.format(name="old", extra=""), encoding="utf-8")
    set_day(old, "2024-03-05")
    fresh = source / "user_fresh.md"
    fresh.write_text(NOTE.format(name="fresh", extra=""), encoding="utf-8")  # mtime: now
    store = tmp_path / "store"
    result = cli("import", "claude-memory", str(source), "--store", str(store), "--format", "json")
    assert result.code == 0, result
    report = json.loads(result.out)
    said = {d["note"]: d["from"] for d in report["dates"]}
    assert said == {
        "user_committed.md": "git",
        "user_own.md": "entry",
        "user_old.md": "mtime",
        "user_fresh.md": "none",
    }
    days = {name: fields(store / name) for name in said}
    assert (days["user_committed.md"]["created"], days["user_committed.md"]["updated"]) == (
        "2025-05-06",
        "2025-06-07",
    )
    assert days["user_own.md"]["updated"] == "2026-07-22"
    assert days["user_own.md"]["modified"] == "2026-07-22T03:31:59.211Z"  # kept as written
    assert days["user_old.md"]["created"] == days["user_old.md"]["updated"] == "2024-03-05"
    assert "created" not in days["user_fresh.md"] and "updated" not in days["user_fresh.md"]
    today = date.today().isoformat()
    assert all(today not in (store / name).read_text(encoding="utf-8") for name in said)
    text = cli("import", "claude-memory", str(source), "--store", str(tmp_path / "s2")).out
    assert "1 note: dates from the source file's first and last git commit:\n  user_committed" in (
        text
    )
    assert "1 note: no dates: none in the note, none from git or the file's date:\n" in text


@needs_git
def test_memoir_entries_without_dates_take_their_git_dates(cli, tmp_path: Path) -> None:
    source = tmp_path / "memoir"
    source.mkdir()
    git(source, "init", "-q")
    (source / "fact_a.md").write_text("---\ntype: fact\nname: a\n---\nA fact.\n", "utf-8")
    git(source, "add", ".")
    git(source, "commit", "-q", "-m", "a", when="2025-01-02")
    store = tmp_path / "store"
    result = cli("import", "memoir", str(source), "--store", str(store), "--format", "json")
    assert result.code == 0, result
    assert json.loads(result.out)["dates"] == [{"note": "fact_a.md", "from": "git"}]
    assert fields(store / "fact_a.md")["created"] == "2025-01-02"


def test_history_never_gives_today_from_a_modification_time(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x", encoding="utf-8")
    history = FileHistory(str(tmp_path), (filedates.MTIME,))
    found = history.dates("a.md")
    assert found.source == "none" and found.first is None and "today" in found.why
    set_day(tmp_path / "a.md", "2023-11-30")
    assert history.dates("a.md") == filedates.FileDates("2023-11-30", "2023-11-30", "mtime")
    assert history.dates("missing.md").source == "none"


def test_history_outside_git_falls_back_to_the_modification_time(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x", encoding="utf-8")
    set_day(tmp_path / "a.md", "2023-11-30")
    found = FileHistory(str(tmp_path)).dates("a.md")
    assert (found.source, found.last) == ("mtime", "2023-11-30")
