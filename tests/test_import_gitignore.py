"""An import that creates a store ignores it as `engramory init` does (issue 31): the entry
and comment of :func:`engramory.wiring.managed.ignore_store` in the ``.gitignore`` at the
top of the git work tree, so the doctor does not warn ``not-gitignored``. An existing store,
a store outside git and a dry run leave every ``.gitignore`` as it was."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from doctorkit import doctor, make_store, note
from engramory.wiring import managed

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ENTRY = "---\ntype: fact\nname: a\ncreated: 2026-01-02\n---\nA fact.\n"


def repository(path: Path, ignore: bytes | None = None) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=path, check=True, capture_output=True)
    if ignore is not None:
        (path / ".gitignore").write_bytes(ignore)
    return path


def memoir(tmp_path: Path) -> Path:
    source = tmp_path / "memoir"
    source.mkdir()
    (source / "fact_a.md").write_text(ENTRY, encoding="utf-8")
    return source


@pytest.mark.parametrize("before", [None, b"node_modules/\n", b"dist/\r\nbuild/"])
def test_a_new_store_in_a_repository_gets_inits_ignore_entry(
    cli, tmp_path: Path, before: bytes | None
) -> None:
    repo = repository(tmp_path / "repo", before)
    store = repo / ".engramory-memory"
    result = cli("import", "memoir", str(memoir(tmp_path)), "--store", str(store), "--format",
                 "json")  # fmt: skip
    assert result.code == 0, result
    text = (before or b"").decode("utf-8")
    expected = managed.ignore_store(text, ".engramory-memory")[0]
    assert (repo / ".gitignore").read_bytes() == expected.encode("utf-8")
    nl = "\r\n" if "\r" in text else "\n"  # the file's own line ending
    assert expected.endswith(f"{managed.STORE_IGNORE_COMMENT}{nl}/.engramory-memory/{nl}")
    assert json.loads(result.out)["gitignore"]["entry"] == "/.engramory-memory/"
    assert "not-gitignored" not in {f.rule for f in doctor(store).findings}


def test_the_text_report_says_it_and_a_second_import_changes_nothing(cli, tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    store = repo / "notes" / "memory"
    result = cli("import", "memoir", str(memoir(tmp_path)), "--store", str(store))
    assert result.code == 0, result
    assert f".gitignore: added /notes/memory/ to {repo / '.gitignore'}" in result.out
    ignored = (repo / ".gitignore").read_bytes()
    other = tmp_path / "other"
    other.mkdir()
    (other / "fact_b.md").write_text(ENTRY.replace("name: a", "name: b"), encoding="utf-8")
    again = cli("import", "memoir", str(other), "--store", str(store))
    assert again.code == 0, again
    assert ".gitignore" not in again.out  # the store existed: not this import's business
    assert (repo / ".gitignore").read_bytes() == ignored


def test_an_already_ignored_store_keeps_the_file_byte_for_byte(cli, tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo", b"# mine\n.engramory-memory\n")
    result = cli("import", "memoir", str(memoir(tmp_path)), "--store",
                 str(repo / ".engramory-memory"))  # fmt: skip
    assert result.code == 0, result
    assert (repo / ".gitignore").read_bytes() == b"# mine\n.engramory-memory\n"
    assert "already ignores" in result.out


def test_dry_run_an_existing_store_and_no_repository_write_no_ignore(cli, tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo", b"x/\n")
    dry = cli("import", "memoir", str(memoir(tmp_path)), "--store", str(repo / "mem"),
              "--dry-run")  # fmt: skip
    assert dry.code == 0 and "would add /mem/" in dry.out, dry
    assert (repo / ".gitignore").read_bytes() == b"x/\n" and not (repo / "mem").exists()
    existing = make_store(repo / "kept", {"user-x.md": note("user-x")})
    assert cli("import", "memoir", str(tmp_path / "memoir"), "--store", str(existing)).code == 0
    assert (repo / ".gitignore").read_bytes() == b"x/\n"
    outside = tmp_path / "plain"
    outside.mkdir()
    result = cli("import", "memoir", str(tmp_path / "memoir"), "--store", str(outside / "mem"))
    assert result.code == 0 and (outside / "mem" / "fact_a.md").exists(), result
    assert not (outside / ".gitignore").exists() and not (tmp_path / ".gitignore").exists()


def test_a_symlinked_gitignore_is_left_alone_and_said(cli, tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    target = tmp_path / "elsewhere"
    target.write_bytes(b"y/\n")
    (repo / ".gitignore").symlink_to(target)
    result = cli("import", "memoir", str(memoir(tmp_path)), "--store", str(repo / "mem"))
    assert result.code == 0, result
    assert target.read_bytes() == b"y/\n" and (repo / ".gitignore").is_symlink()
    assert "add /mem/ to it yourself" in result.out


def test_an_existing_folder_without_an_index_becomes_a_store_and_is_ignored(
    cli, tmp_path: Path
) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "memory").mkdir()
    result = cli("import", "memoir", str(memoir(tmp_path)), "--store", str(repo / "memory"))
    assert result.code == 0, result
    assert (repo / ".gitignore").read_text(encoding="utf-8").endswith("\n/memory/\n")
