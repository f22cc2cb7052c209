"""Ground truth for the shell-write guard: what bash really does, row by row.

Each row of tests/data/shell_commands.txt is run under ``bash -c`` in a fresh
scratch directory (stdin /dev/null, HOME inside it, a timeout) that holds a
``MEMORY.md``, a second one in ``store/`` and a few other files. A row
*writes* when any file named ``MEMORY.md`` (any case) changed: its bytes, its
inode, its mtime, or it appeared or disappeared. The guard
(:func:`engramory.guard.shellwrite.index_write`, by name) must deny every writing
row except the ones flagged ``known-miss`` -- which must be exactly its
misses -- and no row that does not write. Rows flagged ``guard-deny`` are not
run (they need privileges, the network, a repository or a terminal); the
guard must deny them. A row whose program is not installed, or that times
out, is skipped with the reason.
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
}  # fmt: skip
RESULTS: dict[str, tuple[bool, bool]] = {}


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
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work / "home"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
    }
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
    denied = index_write(command, name_matcher("MEMORY.md"), str(work)) is not None
    if flag == "guard-deny":
        assert denied, f"[{category}] the guard must deny: {command!r}"
        return
    missing = missing_program(command)
    if missing:
        pytest.skip(f"{missing} is not installed")
    written = bash_writes(command, work)
    RESULTS[command] = (written, denied)
    if not written:
        assert flag != "known-miss", f"listed as a known miss but bash did not write: {command!r}"
        assert not denied, f"[{category}] read-only under bash, but denied: {command!r}"
    elif flag == "known-miss":
        assert not denied, f"listed as a known miss but now denied (update the list): {command!r}"
    else:
        assert denied, f"[{category}] bash wrote the index, the guard let it through: {command!r}"


def test_table_is_large_and_balanced() -> None:
    assert len(ROWS) >= 300
    flags = {flag for _, flag, _ in ROWS}
    assert flags <= {"-", "known-miss", "guard-deny"}
    read_rows = [r for r in ROWS if r[0].startswith("read-")]
    assert len(read_rows) >= len(ROWS) - len(read_rows)  # at least as many reads as writes


def test_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """The written/denied figures for hooks/INSTALL.md (needs the rows above to have run)."""
    if len(RESULTS) < 200:
        pytest.skip("run the whole file to get the figures")
    written = [denied for w, denied in RESULTS.values() if w]
    reads = [denied for w, denied in RESULTS.values() if not w]
    with capsys.disabled():
        print(
            f"\nground truth: {sum(written)} of {len(written)} writing commands denied, "
            f"{sum(reads)} of {len(reads)} read-only commands denied"
        )
    assert sum(written) >= 0.95 * len(written)
    assert sum(reads) == 0
