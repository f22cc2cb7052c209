"""Finding shipped documents from a checkout (the wheel case is in test_wheel.py)."""

from __future__ import annotations

import pytest

from conftest import REPO
from engramory.util import resources


def test_finds_top_level_documents_in_a_checkout() -> None:
    assert resources.shipped_path("LICENSE") == REPO / "LICENSE"
    assert resources.shipped_path("templates/MEMORY.md") == REPO / "templates" / "MEMORY.md"


def test_checkout_root_is_recognised() -> None:
    assert REPO in resources.search_roots()


@pytest.mark.parametrize("name", ["../pyproject.toml", "/etc/passwd", "", "templates\\MEMORY.md"])
def test_rejects_names_that_could_leave_the_roots(name: str) -> None:
    with pytest.raises(ValueError, match="not a shipped document"):
        resources.shipped_path(name)


def test_missing_document_names_where_it_looked() -> None:
    with pytest.raises(resources.ShippedDocumentMissingError, match="reinstall") as info:
        resources.shipped_path("no-such-document.md")
    assert str(REPO) in str(info.value)


def test_wheel_layout_is_preferred(tmp_path, monkeypatch) -> None:
    shipped = tmp_path / "_shipped"
    (shipped / "templates").mkdir(parents=True)
    (shipped / "templates" / "MEMORY.md").write_text("from the wheel")
    monkeypatch.setattr(resources, "SHIPPED_DIR", shipped)
    assert resources.shipped_path("templates/MEMORY.md") == shipped / "templates" / "MEMORY.md"
