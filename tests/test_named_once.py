"""Issue 22: the index's name, the note types and the sync modes are each defined in one place.

A second definition could drift from the first without any test noticing, so
the package's source is read with ``ast``. Example stores in the doctor's rule
data may still name ``MEMORY.md`` or a note type: they use a name, they do not
define one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest

from conftest import REPO
from engramory import guard
from engramory.continuity import state as continuity
from engramory.doctor import context
from engramory.store import caps, frontmatter, markdown

PACKAGE = REPO / "engramory"


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(REPO).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _assigned(tree: ast.Module, value: str) -> bool:
    """Whether a module-level name is bound to exactly ``value``."""
    return any(
        isinstance(node, (ast.Assign, ast.AnnAssign))
        and isinstance(node.value, ast.Constant)
        and node.value.value == value
        for node in tree.body
    )


def test_the_index_name_is_bound_in_caps_and_spelled_out_only_off_the_hook_path() -> None:
    binding = {rel for rel, tree in _modules() if _assigned(tree, "MEMORY.md")}
    # the guard service is on the hook's path, which does not import caps
    assert binding == {"engramory/store/caps.py", "engramory/guard/__init__.py"}
    assert guard.DEFAULT_INDEX_NAME == caps.INDEX_NAME


def test_the_note_types_are_listed_only_in_frontmatter() -> None:
    types = set(frontmatter.NOTE_TYPES)
    listing = set()
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if values >= types:
                    listing.add(rel)
            if isinstance(node, ast.Constant) and "user, feedback, project" in str(node.value):
                listing.add(rel)
    assert listing == {"engramory/store/frontmatter.py"}
    assert context.NOTE_TYPES is frontmatter.NOTE_TYPES
    sections = [markdown.heading_section(f"## {t.title()}") for t in frontmatter.NOTE_TYPES]
    assert sections == list(frontmatter.NOTE_TYPES)


@pytest.mark.parametrize("mode", ["explicit", "assisted"])
def test_the_sync_modes_are_spelled_out_only_in_the_continuity_state(mode: str) -> None:
    spelled = {
        rel
        for rel, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == mode
    }
    assert spelled == {"engramory/continuity/state.py"}
    assert mode in continuity.MODES
