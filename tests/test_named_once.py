"""Issue 22: the index's name, the note types and the sync modes are each defined in one place.

A second literal copy could drift from the first without any test noticing, so
the package's source is read with ``ast`` and every bare string constant equal
to one of these names is located.
"""

from __future__ import annotations

import ast

import pytest

from conftest import REPO

PACKAGE = REPO / "engramory"
NAMES = {
    "MEMORY.md": {"engramory/caps.py"},
    "user": {"engramory/frontmatter.py"},
    "feedback": {"engramory/frontmatter.py", "engramory/doctor/rules/schema.py"},
    "project": {"engramory/frontmatter.py", "engramory/doctor/rules/schema.py"},
    "reference": {"engramory/frontmatter.py"},
    "explicit": {"engramory/continuity/state.py"},
    "assisted": {"engramory/continuity/state.py"},
}


def _defining_files(name: str) -> set[str]:
    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value == name:
                found.add(path.relative_to(REPO).as_posix())
    return found


@pytest.mark.parametrize("name", sorted(NAMES))
def test_a_name_is_spelled_out_only_where_it_is_defined(name: str) -> None:
    assert _defining_files(name) <= NAMES[name]
    assert _defining_files(name) & NAMES[name]  # the definition itself is still found


def test_the_note_types_are_the_frontmatter_s() -> None:
    from engramory import frontmatter, markdown
    from engramory.doctor import context

    assert context.NOTE_TYPES is frontmatter.NOTE_TYPES
    assert [markdown.heading_section(f"## {t.title()}") for t in frontmatter.NOTE_TYPES] == list(
        frontmatter.NOTE_TYPES
    )
