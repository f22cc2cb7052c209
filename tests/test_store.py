"""Pointer target classification (text only) and the store walk."""

from __future__ import annotations

from pathlib import Path

import pytest

from engramory.store.disk import area_of, classify_text, resolve_target, walk


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        ("https://x.org/a.md", "external"),
        ("MAILTO:a@b.c", "external"),
        ("git+ssh://h/r", "external"),
        ("#section", "anchor"),
        ("file:///etc/passwd", "bad-scheme"),
        ("javascript:alert(1)", "bad-scheme"),
        ("/etc/x.md", "escapes"),
        ("C:\\x.md", "escapes"),
        ("C:x.md", "escapes"),
        ("\\\\host\\share", "escapes"),
        ("", "missing"),
        ("a\x00b.md", "missing"),
        ("%00.md", "missing"),
    ],
)
def test_classify_text(target: str, kind: str) -> None:
    result = classify_text(target)
    assert result is not None and result.kind == kind


@pytest.mark.parametrize("target", ["a.md", "sub/a.md", "../a.md", "a.md#x", "my%20note.md"])
def test_local_paths_need_the_file_system(target: str) -> None:
    assert classify_text(target) is None


def test_resolve_target_found_and_self(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("x")
    (tmp_path / "MEMORY.md").write_text("x")
    assert resolve_target(str(tmp_path), "a.md#h").kind == "found"
    assert resolve_target(str(tmp_path), "./MEMORY.md").kind == "self"


@pytest.mark.parametrize(
    ("rel", "area"),
    [
        ("a.md", "live"),
        ("archive/a.md", "archive"),
        ("ARCHIVE/a.md", "archive"),
        ("templates/x.md", "templates"),
        ("sub/archive/a.md", "live"),
        ("archive-old/a.md", "live"),
    ],
)
def test_area_of(rel: str, area: str) -> None:
    assert area_of(rel) == area


def test_walk_is_sorted_and_skips_hidden_and_non_md(tmp_path: Path) -> None:
    for rel in [
        "b.md",
        "a.MD",
        "c.txt",
        ".hidden.md",
        ".obsidian/x.md",
        "sub/d.md",
        "archive/old.md",
        "templates/t.md",
        "MEMORY.md",
        "sub/MEMORY.md",
    ]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    found = walk(str(tmp_path))
    assert [n.rel for n in found.notes] == ["a.MD", "b.md", "sub/MEMORY.md", "sub/d.md"]
    assert found.archived == ["archive/old.md"]
