"""Store discovery: argument > $ENGRAMORY_MEMORY_ROOT > ./.engramory-memory/ > ./MEMORY.md."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engramory.discovery import locate
from engramory.errors import InputMissingError


def make_store(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "MEMORY.md").write_text("# index\n")
    return path


def test_explicit_directory(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    found = locate(str(store), environ={}, cwd=tmp_path)
    assert found.root == store and found.index == store / "MEMORY.md"
    assert found.source == "argument"


def test_explicit_index_file_means_its_directory(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    found = locate(str(store / "MEMORY.md"), environ={}, cwd=tmp_path)
    assert found.root == store


def test_explicit_other_file_is_refused_unless_any_file(tmp_path: Path) -> None:
    other = tmp_path / "notes.md"
    other.write_text("x")
    with pytest.raises(InputMissingError, match="not a store"):
        locate(str(other), environ={}, cwd=tmp_path)
    assert locate(str(other), any_file=True).index == other


def test_explicit_path_wins_over_environment(tmp_path: Path) -> None:
    a = make_store(tmp_path / "a")
    b = make_store(tmp_path / "b")
    found = locate(str(a), environ={"ENGRAMORY_MEMORY_ROOT": str(b)}, cwd=tmp_path)
    assert found.root == a


def test_explicit_missing_path(tmp_path: Path) -> None:
    with pytest.raises(InputMissingError, match="does not exist") as info:
        locate(str(tmp_path / "nope"))
    assert info.value.exit_code == 66


def test_environment_wins_over_default_dir(tmp_path: Path) -> None:
    make_store(tmp_path / ".engramory-memory")
    env_store = make_store(tmp_path / "elsewhere")
    found = locate(environ={"ENGRAMORY_MEMORY_ROOT": str(env_store)}, cwd=tmp_path)
    assert found.root == env_store
    assert found.source == "$ENGRAMORY_MEMORY_ROOT"


def test_relative_environment_path_is_relative_to_cwd(tmp_path: Path) -> None:
    make_store(tmp_path / "mem")
    found = locate(environ={"ENGRAMORY_MEMORY_ROOT": "mem"}, cwd=tmp_path)
    assert found.root == tmp_path / "mem"


def test_environment_pointing_nowhere_is_an_error_not_a_fall_through(tmp_path: Path) -> None:
    make_store(tmp_path / ".engramory-memory")
    with pytest.raises(InputMissingError, match="not an existing directory"):
        locate(environ={"ENGRAMORY_MEMORY_ROOT": str(tmp_path / "gone")}, cwd=tmp_path)


def test_empty_environment_value_means_unset(tmp_path: Path) -> None:
    store = make_store(tmp_path / ".engramory-memory")
    found = locate(environ={"ENGRAMORY_MEMORY_ROOT": "  "}, cwd=tmp_path)
    assert found.root == store


def test_default_dir_wins_over_cwd_index(tmp_path: Path) -> None:
    make_store(tmp_path)
    store = make_store(tmp_path / ".engramory-memory")
    assert locate(environ={}, cwd=tmp_path).root == store


def test_cwd_holding_an_index(tmp_path: Path) -> None:
    make_store(tmp_path)
    found = locate(environ={}, cwd=tmp_path)
    assert found.root == tmp_path
    assert found.source == "the current directory"


def test_parents_are_not_searched(tmp_path: Path) -> None:
    make_store(tmp_path)
    child = tmp_path / "child"
    child.mkdir()
    with pytest.raises(InputMissingError, match="no memory store found"):
        locate(environ={}, cwd=child)


def test_default_uses_the_real_environment_and_cwd(tmp_path: Path, monkeypatch) -> None:
    store = make_store(tmp_path / "s")
    monkeypatch.setenv("ENGRAMORY_MEMORY_ROOT", str(store))
    monkeypatch.chdir(tmp_path)
    assert locate().root == store


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_explicit_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputMissingError, match="not a regular file or a directory"):
        locate(str(fifo))
