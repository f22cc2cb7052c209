"""Containment (issue 32): a folder of the store that is a symlink leading out is never
read through, by the MCP server or any command, and the doctor reports it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcpkit import call, line, session

from doctorkit import make_store, note, valid_store
from engramory.store.disk import contained, walk

SECRET = "secret outside the store"


def outside_folder(tmp_path: Path) -> Path:
    """A folder beside the store holding a note-shaped file with a secret line."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "private.md").write_text(note("private", body=SECRET + "\n"), encoding="utf-8")
    return folder


@pytest.fixture
def linked_archive(tmp_path: Path) -> Path:
    """A valid store whose ``archive/`` is a symlink to a folder outside it."""
    store = valid_store(tmp_path / "s")
    os.symlink(outside_folder(tmp_path), store / "archive")
    return store


# --- the shared test --------------------------------------------------------------------


def test_contained_resolves_every_folder_on_the_way(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    os.symlink(outside_folder(tmp_path), store / "archive")
    (store / "inner").mkdir()
    os.symlink(store / "inner", store / "alias")
    root = os.path.realpath(store)
    assert contained(root, "archive/private.md") is None  # a folder on the way leads out
    assert contained(root, "archive") is None
    assert contained(root, "../s/user-role.md") == os.path.join(root, "user-role.md")
    assert contained(root, "../elsewhere/private.md") is None
    assert contained(root, "alias/x.md") == os.path.join(root, "inner", "x.md")
    assert contained(root, "user-role.md") == os.path.join(root, "user-role.md")


def test_the_walk_lists_folders_linked_out_and_never_enters_them(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    outside = outside_folder(tmp_path)
    os.symlink(outside, store / "archive")
    (store / "deep").mkdir()
    os.symlink(outside, store / "deep" / "sub")
    (store / "inner").mkdir()
    os.symlink(store / "inner", store / "alias")  # inside: not listed
    os.symlink(outside / "private.md", store / "notes.txt")  # a file, not a folder
    found = walk(os.path.realpath(store))
    assert found.linked_out == ["archive", "deep/sub"]
    assert not any("private" in rel for rel in found.archived + [n.rel for n in found.notes])


# --- the MCP server -----------------------------------------------------------------------


@pytest.mark.parametrize("extra", [(), ("--read-only",)], ids=["read-write", "read-only"])
def test_memory_read_refuses_a_note_behind_a_linked_archive(linked_archive: Path, extra) -> None:
    result, out = session(
        linked_archive,
        line(call(1, "memory_read", {"slug": "private"}))
        + line(call(2, "memory_read", {"slug": "user-role"}))
        + line(call(3, "memory_read", {"slug": "absent"})),
        *extra,
    )
    assert result.returncode == 0, result.stderr
    refused, allowed = out[0]["result"], out[1]["result"]
    assert refused["isError"] is True
    text = refused["content"][0]["text"]
    assert text == "archive/private.md leads out of the store (a symlink on the way): not read"
    assert SECRET not in json.dumps(out[0])
    assert allowed["isError"] is False  # the live notes are still served
    # the same answer whether or not the name exists out there: nothing outside is looked at
    absent = out[2]["result"]["content"][0]["text"]
    assert absent == text.replace("private", "absent")
    assert b"Traceback" not in result.stderr


def test_memory_search_never_finds_a_note_behind_a_linked_sub_folder(tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    os.symlink(outside_folder(tmp_path), store / "sub")
    _, out = session(store, line(call(1, "memory_search", {"query": "secret outside"})))
    assert out[0]["result"]["structuredContent"] == {"results": [], "total": 0}


def test_memory_archive_refuses_to_move_a_note_into_a_linked_archive(linked_archive) -> None:
    outside = linked_archive.parent / "elsewhere"
    before = sorted(p.name for p in outside.iterdir())
    _, out = session(linked_archive, line(call(1, "memory_archive", {"slug": "user-role"})))
    assert out[0]["result"]["isError"] is True
    assert "is a symlink" in out[0]["result"]["content"][0]["text"]
    assert sorted(p.name for p in outside.iterdir()) == before
    assert (linked_archive / "user-role.md").is_file()


# --- the doctor and the commands ----------------------------------------------------------


def test_the_doctor_reports_a_linked_archive_and_never_calls_the_store_clean(
    cli, linked_archive: Path
) -> None:
    text = cli("doctor", str(linked_archive))
    assert text.code == 1
    assert text.out.startswith(
        "archive/: error: this folder is a symlink leading out of the store"
    ), text.out
    assert "clean" not in text.out
    report = json.loads(cli("doctor", str(linked_archive), "--format", "json").out)
    escapes = [f for f in report["findings"] if f["rule"] == "symlink-escape"]
    assert [(f["path"], f["severity"]) for f in escapes] == [("archive/", "error")]
    assert SECRET not in json.dumps(report)


def test_the_doctor_reports_each_linked_sub_folder_once(cli, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "s")
    outside = outside_folder(tmp_path)
    (store / "topics").mkdir()
    os.symlink(outside, store / "topics" / "shared")
    os.symlink(outside, store / "more")
    report = json.loads(cli("doctor", str(store), "--format", "json").out)
    escapes = [f["path"] for f in report["findings"] if f["rule"] == "symlink-escape"]
    assert escapes == ["more/", "topics/shared/"]


def test_export_skips_an_archived_note_behind_a_linked_archive(
    cli, linked_archive: Path, tmp_path: Path
) -> None:
    out = tmp_path / "memoir"
    result = cli("export", "memoir", "--store", str(linked_archive), "--include-archive", str(out))
    assert result.code == 0, result
    assert SECRET not in result.out + result.err
    exported = [p for p in out.rglob("*") if p.is_file()] if out.exists() else []
    assert not any(SECRET in p.read_text(encoding="utf-8", errors="replace") for p in exported)


def test_compact_plans_no_move_into_a_linked_archive(cli, tmp_path: Path) -> None:
    notes = {f"n{i}.md": note(f"n{i}", "reference", updated=f"2025-01-0{i + 1}") for i in range(6)}
    store = make_store(
        tmp_path / "s", notes, index="".join(f"- [N{i}](n{i}.md) — hook\n" for i in range(6))
    )
    outside = outside_folder(tmp_path)
    os.symlink(outside, store / "archive")
    flags = ("--archive-cold", "--warn-lines", "4", "--hard-lines", "5", "--format", "json")
    planned = json.loads(cli("compact", str(store), *flags).out)
    assert [s["archived"] for s in planned["steps"] if s["step"] == "cold"] == [[]]
    applied = cli("compact", str(store), *flags, "--apply")
    assert sorted(p.name for p in outside.iterdir()) == ["private.md"]
    assert sorted(p.name for p in store.glob("n*.md")) == [f"n{i}.md" for i in range(6)]
    assert applied.code == 1  # still over: nothing could be archived
