"""Ground truth for the shell-write guard: what bash really does, row by row.

Each row of tests/data/shell_commands.txt is run under ``bash -c`` in a fresh
scratch directory (stdin /dev/null, HOME inside it, a timeout) that holds a
``MEMORY.md``, a second one in ``store/`` and a few other files. A row
*writes* when any file named ``MEMORY.md`` (any case) changed: its bytes, its
inode, its mtime, or it appeared or disappeared. The guard
(:func:`engramory.guard.shellwrite.index_write`, by name) must deny every writing
row except the ones flagged with a documented out-of-reach class -- which must
be exactly its misses -- and no row that does not write:

* ``miss-output``: the file name is produced by another program's output at run
  time (``$(ls | head -1)``, ``$(cat name.txt)``, ``xargs`` fed by a program);
* ``miss-code``: the name is computed inside interpreter code from pieces
  (``n = 'MEM' + 'ORY.md'``).

Rows flagged ``guard-deny`` are not run (they need privileges, the network or a
terminal); the guard must deny them. A row whose category starts with ``git``
runs in a git repository (branch ``main`` checked out, branch ``other`` changing
the index; ``store/`` untracked). A row whose program is not installed, or that
times out, is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from engramory.guard.shellwrite import index_write, name_matcher

DATA = REPO / "tests" / "data" / "shell_commands.txt"
INDEX_TEXT = "# Memory\n- [a](a.md) — a note\n"
OLD_MTIME = 1_000_000_000
OPTIONAL = {
    "node", "perl", "ruby", "php", "vim", "vi", "view", "ex", "nano", "emacs", "ed", "setsid",
    "ionice", "chrt", "busybox", "sudo", "doas", "uv", "rsync", "gawk", "zsh", "dash", "ksh",
    "sponge", "patch", "curl", "wget", "git", "strace", "flock", "taskset", "stdbuf", "shred",
    "xxd", "file", "zip", "gzip", "tar", "iconv", "engramory", "less", "more", "awk",
    "tclsh", "bzip2", "xz", "lzma", "zstd", "lz4", "unzip", "openssl", "gunzip", "bunzip2",
    "unxz",
}  # fmt: skip
MISS_CLASSES = {"miss-output", "miss-code"}
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "a",
    "GIT_COMMITTER_EMAIL": "a@example.com", "GIT_CONFIG_NOSYSTEM": "1",
}  # fmt: skip
RESULTS: dict[str, tuple[bool, bool, str, str]] = {}  # command -> written, denied, class, flag


def rows() -> list[tuple[str, str, str]]:
    out = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        category, flag, command = line.split("\t", 2)
        out.append((category, flag, json.loads(command)))
    return out


ROWS = rows()


def scratch(root: Path) -> Path:
    work = root / "work"
    for folder in ("store", "sub", "out", "home"):
        (work / folder).mkdir(parents=True)
    (work / "MEMORY.md").write_text(INDEX_TEXT, encoding="utf-8")
    (work / "store" / "MEMORY.md").write_text(INDEX_TEXT, encoding="utf-8")
    for name, text in (("notes.md", "a note\nalpha\n"), ("a.md", "a\n"), ("draft.md", "d\n")):
        (work / name).write_text(text, encoding="utf-8")
    for path in (work / "MEMORY.md", work / "store" / "MEMORY.md"):
        os.utime(path, (OLD_MTIME, OLD_MTIME))
    return work


def make_repository(work: Path) -> None:
    """``main`` holds the files as they are; ``other`` adds a line to the index."""

    def git(*args: str) -> None:
        subprocess.run(
            ["git", *args], cwd=work, env={**bash_env(work), **GIT_IDENTITY}, check=True,
            capture_output=True, timeout=30,
        )  # fmt: skip

    git("init", "-q")
    git("checkout", "-q", "-b", "main")
    git("add", "MEMORY.md", "notes.md", "a.md", "draft.md")
    git("commit", "-qm", "one")
    git("checkout", "-q", "-b", "other")
    (work / "MEMORY.md").write_text(INDEX_TEXT + "- [b](b.md) — b\n", encoding="utf-8")
    git("commit", "-qam", "two")
    git("checkout", "-q", "main")
    os.utime(work / "MEMORY.md", (OLD_MTIME, OLD_MTIME))


def bash_env(work: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work / "home"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        **GIT_IDENTITY,
    }


def snapshot(work: Path) -> dict[str, tuple[object, ...]]:
    """Every file named MEMORY.md (any case) under ``work``: kind, bytes, inode, mtime."""
    seen: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(work):
        for name in files + dirs:
            if name.lower() != "memory.md":
                continue
            path = Path(folder) / name
            st = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            seen[str(path.relative_to(work))] = (st.st_mode, data, st.st_ino, st.st_mtime_ns)
    return seen


def missing_program(command: str) -> str | None:
    for word in set(re.split(r"[^\w.+-]+", command)) & OPTIONAL:
        if shutil.which(word) is None:
            return word
    return None


def bash_writes(command: str, work: Path) -> bool:
    before = snapshot(work)
    env = bash_env(work)
    try:
        subprocess.run(
            ["bash", "-c", command],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=5,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip("timed out under bash")
    return snapshot(work) != before


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("category", "flag", "command"), ROWS, ids=[r[2][:60] for r in ROWS])
def test_row(category: str, flag: str, command: str, tmp_path: Path) -> None:
    work = scratch(tmp_path)
    if category.startswith(("git", "read-git")):
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        make_repository(work)
    denied = index_write(command, name_matcher("MEMORY.md"), str(work)) is not None
    if flag == "guard-deny":
        assert denied, f"[{category}] the guard must deny: {command!r}"
        return
    missing = missing_program(command)
    if missing:
        pytest.skip(f"{missing} is not installed")
    written = bash_writes(command, work)
    RESULTS[command] = (written, denied, category, flag)
    if not written:
        assert flag not in MISS_CLASSES, f"listed as a miss but bash did not write: {command!r}"
        assert not denied, f"[{category}] read-only under bash, but denied: {command!r}"
    elif flag in MISS_CLASSES:
        assert not denied, f"listed as a miss but now denied (update the list): {command!r}"
    else:
        assert denied, f"[{category}] bash wrote the index, the guard let it through: {command!r}"


def test_table_is_large_and_balanced() -> None:
    assert len(ROWS) >= 400
    flags = {flag for _, flag, _ in ROWS}
    assert flags <= {"-", "guard-deny", *MISS_CLASSES}
    read_rows = [r for r in ROWS if r[0].startswith("read-")]
    assert len(read_rows) >= 100
    assert len(ROWS) - len(read_rows) >= 300


def test_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """The guard's figures for SECURITY.md (needs the rows above to have run): writing rows
    denied, writing rows passed (each named, by class), read-only rows denied."""
    if len(RESULTS) < 400:
        pytest.skip("run the whole file to get the figures")
    writing = {c: r for c, r in RESULTS.items() if r[0]}
    passed = {c: r for c, r in writing.items() if not r[1]}
    reads = [c for c, r in RESULTS.items() if not r[0] and r[1]]
    with capsys.disabled():
        print(
            f"\nground truth: {len(writing) - len(passed)} of {len(writing)} writing commands "
            f"denied, {len(reads)} of {len(RESULTS) - len(writing)} read-only commands denied"
        )
        for command, (_, _, _, flag) in sorted(passed.items(), key=lambda item: item[1][3]):
            print(f"  passed ({flag}): {command}")
    assert len(writing) - len(passed) >= 0.97 * len(writing)
    assert all(flag in MISS_CLASSES for _, _, _, flag in passed.values())
    assert reads == []
