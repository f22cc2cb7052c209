"""`engramory check` never measures outside its store, and never crashes on a path it cannot reach.

Issue 10 items 11 and 12: a ``MEMORY.md`` symlink leading out of the store is
refused (exit 66) exactly where the doctor reports ``index-escapes-store``; a
store directory the user cannot search is exit 66 with a message, not a
``PermissionError`` traceback.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import REPO
from engramory.util import fsutil


def make_store(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    return root


def test_check_refuses_an_index_symlink_to_etc_passwd(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store")
    (store / "MEMORY.md").symlink_to("/etc/passwd")
    result = cli("check", str(store))
    assert result.code == 66 and result.out == ""
    assert "resolves to /etc/passwd, outside the store" in result.err
    assert "index-escapes-store" in result.err
    doctor = json.loads(cli("doctor", str(store), "--format", "json").out)
    assert "index-escapes-store" in {f["rule"] for f in doctor["findings"]}


@pytest.mark.parametrize("how", ["index-argument", "relative-link", "dangling-outside"])
def test_check_refuses_every_way_out(cli, tmp_path: Path, how: str) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("- [a](a.md)\n")
    store = make_store(tmp_path / "store")
    index = store / "MEMORY.md"
    if how == "dangling-outside":
        index.symlink_to(tmp_path / "gone.md")
    else:
        index.symlink_to("../outside.md" if how == "relative-link" else outside)
    target = str(index) if how == "index-argument" else str(store)
    result = cli("check", target, "--format", "json")
    assert result.code == 66 and result.out == ""
    assert "outside the store" in result.err


def test_check_measures_a_symlinked_index_that_stays_inside(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store")
    (store / "index").mkdir()
    (store / "index" / "current.md").write_text("- [a](a.md)\n- [b](b.md)\n")
    (store / "MEMORY.md").symlink_to("index/current.md")
    result = cli("check", str(store))
    assert result.code == 0 and result.out.startswith("OK:") and "2 lines" in result.out
    doctor = json.loads(cli("doctor", str(store), "--format", "json").out)
    assert "index-escapes-store" not in {f["rule"] for f in doctor["findings"]}
    assert "index-symlink" in {f["rule"] for f in doctor["findings"]}


def test_check_through_a_symlinked_store_directory_is_inside(cli, tmp_path: Path) -> None:
    real = make_store(tmp_path / "real")
    (real / "MEMORY.md").write_text("x\n")
    (tmp_path / "alias").symlink_to(real)
    assert cli("check", str(tmp_path / "alias")).code == 0


def test_escapes_is_the_one_containment_test(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store")
    (store / "in.md").write_text("x")
    (store / "out.md").symlink_to("/etc/passwd")
    (tmp_path / "store-old").mkdir()
    (store / "sibling.md").symlink_to(tmp_path / "store-old")
    assert fsutil.escapes(store / "in.md", store) is None
    assert fsutil.escapes(store / "out.md", store) == "/etc/passwd"
    assert fsutil.escapes(store / "sibling.md", store) == str(tmp_path / "store-old")


# --- a directory that cannot be searched --------------------------------------------------------


def test_check_on_an_unsearchable_store_is_66_not_a_traceback(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path / "store")
    (store / "MEMORY.md").write_text("x\n")
    real_stat = os.stat
    blocked = str(store / "MEMORY.md")

    def no_search(path, *args, **kwargs):  # what stat() gives a non-root user on a 0644 dir
        if os.fspath(path) == blocked:
            raise PermissionError(errno.EACCES, "Permission denied", blocked)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", no_search)
    result = cli("check", str(store))
    assert result.code == 66 and result.out == ""
    assert f"cannot reach {blocked}: Permission denied" in result.err
    assert "cannot be searched" in result.err


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (errno.ENAMETOOLONG, "the name is too long"),
        (errno.ELOOP, "a symlink loop"),
        (errno.EIO, "Input/output error"),
    ],
)
def test_fsutil_kind_never_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: int, words: str
) -> None:
    def failing(path, *args, **kwargs):
        raise OSError(error, os.strerror(error), os.fspath(path))

    monkeypatch.setattr(os, "stat", failing)
    found, exc = fsutil.kind(tmp_path / "x")
    assert found == "error" and exc is not None
    assert words in fsutil.os_error_text(exc)


def test_fsutil_kind_of_common_cases(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    assert fsutil.kind(tmp_path) == ("dir", None)
    assert fsutil.kind(tmp_path / "f") == ("file", None)
    assert fsutil.kind(tmp_path / "dangling") == ("missing", None)
    assert fsutil.kind(tmp_path / "f" / "below") == ("missing", None)  # ENOTDIR
    assert fsutil.kind("/dev/null") == ("other", None)


def _unprivileged_python() -> list[str] | None:
    """A command prefix running Python as ``nobody``, or None when this machine cannot."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None:
        return None
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    candidates = (os.path.realpath(sys.executable), shutil.which("python3"), "/usr/bin/python3")
    for python in candidates:
        if python is None:
            continue
        probe = subprocess.run(
            [*prefix, python, "-c", "import sys; sys.exit(sys.version_info < (3, 9))"],
            capture_output=True,
            check=False,
        )
        if probe.returncode == 0:
            return [*prefix, python]
    return None


def test_check_as_a_real_non_root_user_on_an_unsearchable_store() -> None:
    command = _unprivileged_python()
    if command is None:
        pytest.skip("needs root, setpriv and a Python that the nobody user can run")
    base = Path(tempfile.mkdtemp())
    try:
        base.chmod(0o755)
        store = base / "store"
        store.mkdir()
        (store / "MEMORY.md").write_text("x\n")
        store.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # listable, not searchable
        # a copy of the package nobody can read (the checkout may sit in a private folder)
        package = base / "package"
        shutil.copytree(
            REPO / "engramory", package / "engramory", ignore=shutil.ignore_patterns("__pycache__")
        )
        done = subprocess.run(
            [*command, "-m", "engramory", "check", "store"],
            cwd=base,
            env={
                "PYTHONPATH": str(package),
                "PATH": os.environ.get("PATH", ""),
                "LC_ALL": "C.UTF-8",
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 66, done
        assert "Traceback" not in done.stderr
        assert "cannot reach store/MEMORY.md: Permission denied" in done.stderr
    finally:
        (base / "store").chmod(0o755)
        shutil.rmtree(base)
