"""The path functions of ``engramory.guard`` (the hook's path without ``os``) are ``os.path``'s.

On POSIX the guard package joins, splits and stats paths with ``posix`` and string
operations, so that a call dismissed on its raw payload never imports ``os``; these must
give what ``posixpath`` gives, on any path, and the environment what ``os.environ`` holds.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engramory import guard

pytestmark = pytest.mark.skipif(not guard.POSIX, reason="os.path's own functions elsewhere")

paths = st.lists(st.sampled_from(["/", "a", "b.md", ".", "..", "~", " ", "é", "\\"]), max_size=8)


@given(folder=paths, path=paths)
def test_join_dirname_and_basename_are_posixpaths(folder: list[str], path: list[str]) -> None:
    a, b = "".join(folder), "".join(path)
    assert guard.join(a, b) == posixpath.join(a, b)
    assert guard.dirname(a) == posixpath.dirname(a)
    assert guard.basename(a) == posixpath.basename(a)


def test_isfile_and_expanduser(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert guard.isfile(str(tmp_path / "f"))
    assert not guard.isfile(str(tmp_path))
    assert not guard.isfile(str(tmp_path / "missing"))
    assert not guard.isfile("bad\0path")
    assert guard.expanduser("~/x") == os.path.expanduser("~/x")
    assert guard.expanduser("a/~") == "a/~"


def test_a_missing_target_is_not_an_existing_index_unless_a_host_may_read_it_lexically(
    tmp_path: Path,
) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("x\n")
    assert not guard.same_file(str(tmp_path / "new.md"), str(index))
    assert guard.same_file(str(tmp_path / "gone" / ".." / "MEMORY.md"), str(index))
    assert guard.same_file(str(tmp_path / "MEMORY.md"), str(index))


def test_the_environment_without_os_is_os_environ() -> None:
    code = (
        "import sys; from engramory import guard; env = guard.process_environ();"
        "assert 'os' not in sys.modules; import os; assert env == dict(os.environ), env;"
        "print(env['ENGRAMORY_X'])"
    )
    extra = {"ENGRAMORY_X": "caf\u00e9 \udcff"}
    env = {**os.environ, **{k: v.encode("utf-8", "surrogateescape") for k, v in extra.items()}}
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env={os.fsencode(k): v if isinstance(v, bytes) else os.fsencode(v) for k, v in env.items()},
        cwd=Path(guard.__file__).parent.parent.parent,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip(b"\n") == "caf\u00e9 \udcff".encode("utf-8", "surrogateescape")


@given(folder=st.text(), path=st.text())
def test_join_dirname_and_basename_are_posixpaths_on_any_text(folder: str, path: str) -> None:
    assert guard.join(folder, path) == posixpath.join(folder, path)
    for name in (folder, path, folder + "/", "/" + path, folder + "//" + path):
        assert guard.dirname(name) == posixpath.dirname(name), name
        assert guard.basename(name) == posixpath.basename(name), name


@pytest.mark.parametrize(
    "name", ["", "/", "//", "///", "a/", "a//", "//a", "///a//b//", "./", "../x", "\\/a"]
)
def test_the_edge_paths_are_posixpaths(name: str) -> None:
    assert guard.dirname(name) == posixpath.dirname(name)
    assert guard.basename(name) == posixpath.basename(name)
    assert guard.join(name, "x") == posixpath.join(name, "x")
    assert guard.join("x", name) == posixpath.join("x", name)


@pytest.mark.parametrize("home", [None, "", "/", "//", "relative", "/home/x/"])
def test_expanduser_is_os_paths_whatever_home_is(
    monkeypatch: pytest.MonkeyPatch, home: str | None
) -> None:
    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)
    for path in ("~", "~/", "~/x", "~root", "~root/x", "~no-such-user-here/x", "x/~", ""):
        assert guard.expanduser(path) == os.path.expanduser(path), path


@pytest.mark.parametrize(
    "locale",
    [
        {b"LC_ALL": b"C", b"PYTHONUTF8": b"0", b"PYTHONCOERCECLOCALE": b"0"},  # ascii
        {b"LC_ALL": b"C"},
        {b"PYTHONUTF8": b"1"},
    ],
)
def test_the_environment_without_os_is_os_environ_on_odd_bytes(locale: dict[bytes, bytes]) -> None:
    """Keys and values that are not UTF-8, empty values, ``=`` in a value, any locale."""
    code = (
        "import sys; from engramory import guard; env = guard.process_environ();"
        "assert 'os' not in sys.modules; import os; assert env == dict(os.environ), env"
    )
    odd = {b"K\xff\xfe": b"v\xff", b"EMPTY": b"", b"EQ": b"a=b=c", b"HOME": b""}
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code],
        env={**os.environb, **odd, **locale},
        cwd=Path(guard.__file__).parent.parent.parent,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
