"""Store discovery: argument > $ENGRAMORY_MEMORY_ROOT > .engramory-memory/ or MEMORY.md here,
then in each parent up to the git work-tree top."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engramory.store.discovery import locate
from engramory.util.errors import InputMissingError


def make_store(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "MEMORY.md").write_text("# index\n")
    return path


def test_explicit_directory(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    found = locate(str(store), environ={}, cwd=tmp_path)
    assert found.root == store and found.index == store / "MEMORY.md"
    assert found.source == "argument" and not found.discovered


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
    assert found.source == "from $ENGRAMORY_MEMORY_ROOT" and found.discovered


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
    assert found.source == "found in the current directory"


def test_parent_store_is_found_outside_a_work_tree(tmp_path: Path) -> None:
    store = make_store(tmp_path / ".engramory-memory")
    child = tmp_path / "a" / "b"
    child.mkdir(parents=True)
    found = locate(environ={}, cwd=child)
    assert found.root == store
    assert found.source == f"found in {tmp_path}, a parent of the current one"


def test_parent_holding_an_index_is_found(tmp_path: Path) -> None:
    make_store(tmp_path)
    child = tmp_path / "child"
    child.mkdir()
    found = locate(environ={}, cwd=child)
    assert found.root == tmp_path and found.index == tmp_path / "MEMORY.md"


def test_nearest_store_wins(tmp_path: Path) -> None:
    make_store(tmp_path / ".engramory-memory")
    near = make_store(tmp_path / "a" / ".engramory-memory")
    assert locate(environ={}, cwd=tmp_path / "a").root == near


def test_search_stops_at_the_git_work_tree_top(tmp_path: Path) -> None:
    make_store(tmp_path / ".engramory-memory")
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    child = top / "src"
    child.mkdir()
    with pytest.raises(InputMissingError, match="the git work-tree top") as info:
        locate(environ={}, cwd=child)
    assert str(top) in str(info.value) and info.value.exit_code == 66


def test_git_file_marks_a_work_tree_top_too(tmp_path: Path) -> None:
    make_store(tmp_path / ".engramory-memory")
    top = tmp_path / "worktree"
    top.mkdir()
    (top / ".git").write_text("gitdir: /elsewhere\n")
    with pytest.raises(InputMissingError):
        locate(environ={}, cwd=top)


def test_store_at_the_work_tree_top_is_found(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    (top / ".git").mkdir(parents=True)
    store = make_store(top / ".engramory-memory")
    deep = top / "src" / "pkg"
    deep.mkdir(parents=True)
    assert locate(environ={}, cwd=deep).root == store


def test_relative_cwd_is_searched_upwards(tmp_path: Path, monkeypatch) -> None:
    store = make_store(tmp_path / ".engramory-memory")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    found = locate(environ={})
    assert found.root.resolve() == store.resolve()


def test_nothing_found_names_what_was_tried(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    with pytest.raises(InputMissingError) as info:
        locate(environ={}, cwd=tmp_path)
    message = str(info.value)
    assert "$ENGRAMORY_MEMORY_ROOT: unset" in message
    assert ".engramory-memory/ or MEMORY.md" in message and str(tmp_path) in message


def test_explicit_directory_holding_a_nested_store(tmp_path: Path) -> None:
    store = make_store(tmp_path / "project" / ".engramory-memory")
    found = locate(str(tmp_path / "project"), environ={}, cwd=tmp_path)
    assert found.root == store and found.index == store / "MEMORY.md"
    assert found.discovered and found.source == f"found under {tmp_path / 'project'}"


def test_nested_store_with_notes_but_no_index_is_that_store(tmp_path: Path) -> None:
    nested = tmp_path / "project" / ".engramory-memory"
    nested.mkdir(parents=True)
    (nested / "a.md").write_text("---\nname: a\n---\n")
    assert locate(str(tmp_path / "project")).root == nested


def test_own_index_wins_over_nested_store(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    make_store(store / ".engramory-memory")
    assert locate(str(store)).root == store


def test_explicit_directory_with_notes_but_no_index_is_a_store(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbf---\r\nname: a\r\n---\r\n")
    found = locate(str(tmp_path))
    assert found.root == tmp_path and not found.discovered


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"README.md": "# Project\n---\n"},
        {"notes.txt": "---\nname: a\n---\n"},
        {".hidden.md": "---\nname: a\n---\n"},
        {"rule.md": "----\n"},
    ],
)
def test_explicit_directory_without_store_or_notes_is_refused(tmp_path: Path, files) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / ".engramory-memory").mkdir()  # empty: no index, no notes
    with pytest.raises(InputMissingError, match="is not a memory store") as info:
        locate(str(tmp_path))
    assert "tried" in str(info.value) and info.value.exit_code == 66


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlinked_note_outside_does_not_make_a_store(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: a\n---\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.md").symlink_to(outside)
    with pytest.raises(InputMissingError, match="is not a memory store"):
        locate(str(project))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only")
def test_fifo_named_like_a_note_is_not_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "a.md")
    with pytest.raises(InputMissingError, match="is not a memory store"):
        locate(str(tmp_path))


def test_note_scan_is_bounded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("engramory.store.discovery.NOTE_SCAN_FILES", 3)
    for k in range(5):
        (tmp_path / f"plain-{k}.md").write_text("# no frontmatter\n")
    opened = []
    real = os.open

    def counting_open(path, *args, **kwargs):
        opened.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr("engramory.store.discovery.os.open", counting_open)
    with pytest.raises(InputMissingError):
        locate(str(tmp_path))
    assert len(opened) == 3


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


def test_note_scan_stops_after_its_entry_bound(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "a.md").write_text("---\nname: a\n---\n")
    assert locate(str(tmp_path)).root == tmp_path
    monkeypatch.setattr("engramory.store.discovery.NOTE_SCAN_ENTRIES", 0)
    with pytest.raises(InputMissingError, match="is not a memory store"):
        locate(str(tmp_path))


def test_search_without_a_current_directory_does_not_crash(tmp_path: Path, monkeypatch) -> None:
    def gone() -> Path:
        raise FileNotFoundError("the current directory was deleted")

    monkeypatch.setattr(Path, "cwd", staticmethod(gone))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputMissingError, match="no memory store found"):
        locate(environ={})
