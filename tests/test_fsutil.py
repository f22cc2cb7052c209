"""Bounded reads, containment and atomic writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engramory.util import fsutil


def test_read_bounded_reads_a_small_file(tmp_path: Path) -> None:
    f = tmp_path / "a"
    f.write_bytes(b"hello")
    assert fsutil.read_bounded(f, 5) == b"hello"


def test_read_bounded_refuses_over_the_limit_without_reading(tmp_path: Path) -> None:
    f = tmp_path / "big"
    f.write_bytes(b"x" * 11)
    with pytest.raises(fsutil.FileTooLargeError) as info:
        fsutil.read_bounded(f, 10)
    assert info.value.size == 11 and info.value.limit == 10


def test_read_bounded_refuses_a_directory(tmp_path: Path) -> None:
    with pytest.raises((fsutil.NotRegularFileError, IsADirectoryError, PermissionError)):
        fsutil.read_bounded(tmp_path, 10)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_read_bounded_never_blocks_on_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(fsutil.NotRegularFileError):
        fsutil.read_bounded(fifo, 10)  # a blocking open would hang the suite here


def test_read_bounded_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        fsutil.read_bounded(tmp_path / "nope", 10)


@pytest.mark.parametrize(
    ("path", "root", "inside"),
    [
        ("/data/store", "/data/store", True),
        ("/data/store/a.md", "/data/store", True),
        ("/data/store-old/a.md", "/data/store", False),
        ("/data", "/data/store", False),
        ("/anything", "/", True),
    ],
)
def test_is_within_uses_a_separator_boundary(path: str, root: str, inside: bool) -> None:
    if os.sep != "/":
        pytest.skip("POSIX paths")
    assert fsutil.is_within(path, root) is inside


def test_resolve_follows_symlinks(tmp_path: Path) -> None:
    target = tmp_path / "t"
    target.write_text("x")
    link = tmp_path / "l"
    link.symlink_to(target)
    assert fsutil.resolve(link) == str(target.resolve())


def test_write_atomic_creates_and_replaces(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    fsutil.write_atomic(f, b"one")
    assert f.read_bytes() == b"one"
    fsutil.write_atomic(f, b"two")
    assert f.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]  # no temp file left


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_write_atomic_keeps_the_existing_mode(tmp_path: Path) -> None:
    f = tmp_path / "f.txt"
    f.write_bytes(b"old")
    f.chmod(0o640)
    fsutil.write_atomic(f, b"new")
    assert stat.S_IMODE(f.stat().st_mode) == 0o640


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_write_atomic_new_file_honours_mode_argument(tmp_path: Path) -> None:
    f = tmp_path / "state.json"
    fsutil.write_atomic(f, b"{}", mode=0o600)
    assert stat.S_IMODE(f.stat().st_mode) == 0o600


def test_write_atomic_failure_leaves_the_old_file_and_no_temp(tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "f.txt"
    f.write_bytes(b"precious")

    def fail(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(fsutil.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        fsutil.write_atomic(f, b"new")
    monkeypatch.undo()
    assert f.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_a_file_lock_excludes_a_second_holder_and_times_out(tmp_path) -> None:
    import fcntl
    import os

    lock = tmp_path / "x.lock"
    with fsutil.FileLock(str(lock)):
        fd = os.open(lock, os.O_RDWR)
        try:  # another open file description cannot take it while it is held
            with pytest.raises(OSError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        with pytest.raises(TimeoutError), fsutil.FileLock(str(lock), timeout=0.05):
            pass
    with fsutil.FileLock(str(lock), timeout=0.05):  # released: free again
        pass
    assert lock.stat().st_mode & 0o777 == 0o600
