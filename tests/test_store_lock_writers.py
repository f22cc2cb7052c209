"""Every command that writes a store takes the store's lock (the continuity state lock), as
`engramory new`, `archive` and the MCP server do: while another writer holds it, `fix --apply`,
`compact --apply`, `import` and each `--undo` wait, then give up with a clear message and write
nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixkit import digest, fix
from test_compact import compact, memoir_store

from doctorkit import make_store, note
from engramory.continuity import state


@pytest.fixture(autouse=True)
def short_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state, "LOCK_TIMEOUT", 0.3)


def _held(root: Path):
    return state.locked(root, leave_no_file=True)  # another writer, on its own open file


def test_fix_apply_waits_for_the_lock_and_writes_nothing(tmp_path: Path) -> None:
    root = make_store(tmp_path / "store", {"deploy.md": note("deploy", name="release-rules")})
    tree = digest(root)
    with _held(root):
        code, _out, err = fix(str(root), "--apply")
    assert code == 1 and "waiting for the state lock" in err
    assert digest(root) == tree
    assert fix(str(root), "--apply")[0] == 0  # free again: it goes ahead
    assert "name: deploy\n" in (root / "deploy.md").read_text()


def test_compact_apply_and_its_undo_wait_for_the_lock(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s")
    tree = digest(root, skip_backups=False)
    with _held(root):
        code, _out, err = compact(str(root), "--apply")
    assert code == 1 and "waiting for the state lock" in err
    assert digest(root, skip_backups=False) == tree
    code, out, _ = compact(str(root), "--apply")
    assert code == 0
    (undo,) = [line for line in out.splitlines() if line.startswith("undo: engramory compact")]
    backup_id = undo.split("--undo ", 1)[1].split()[0]
    changed = digest(root)
    with _held(root):
        code, _out, err = compact(str(root), "--undo", backup_id)
    assert code == 1 and "waiting for the state lock" in err
    assert digest(root) == changed


def test_import_waits_for_the_lock_and_writes_nothing(cli, tmp_path: Path) -> None:
    source = tmp_path / "memoir"
    source.mkdir()
    (source / "fact_editor.md").write_text(
        "---\ntype: fact\nname: editor\ndescription: the editor in use\n---\n\nHelix.\n"
    )
    store = tmp_path / "store"
    make_store(store, {}, "auto")
    tree = digest(store)
    with _held(store):
        result = cli("import", "memoir", str(source), "--store", str(store))
    assert result.code == 1 and "waiting for the state lock" in result.err
    assert digest(store) == tree
    assert cli("import", "memoir", str(source), "--store", str(store)).code == 0
    assert (store / "fact_editor.md").exists() or any(store.glob("*editor*.md"))
