"""``engramory fix`` on a copy of every corpus store (issue 16, "Done when").

--apply then --undo gives back every byte; --apply twice changes nothing the
second time; the doctor's counts for the fixable rules drop to what the plan
says remains; no body byte of any note changes. Run this file directly to
print, per store, the fixable findings before and after.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fixkit import bodies, digest, fix, fixable_counts, undo_id

from doctorkit import doctor
from engramory.caps import Caps
from engramory.commands.fix import plan_store
from engramory.repair import FIX_IDS

CORPUS = Path(__file__).resolve().parent / "corpus"
STORES = sorted(p for p in (CORPUS / "stores").iterdir() if p.is_dir())


def _copy(store: Path, tmp_path: Path) -> Path:
    target = tmp_path / store.name
    shutil.copytree(store, target, symlinks=True)
    return target


@pytest.mark.parametrize("store", STORES, ids=[p.name for p in STORES])
def test_apply_undo_apply_twice(store: Path, tmp_path: Path) -> None:
    root = _copy(store, tmp_path)
    before = digest(root)
    before_bodies = bodies(root)
    report = doctor(root)
    expected = plan_store(str(root.resolve()), report.findings, Caps(), list(FIX_IDS), "git")
    code, out, err = fix(str(root), "--apply")
    assert code == 0, err
    assert bodies(root) == before_bodies
    assert fixable_counts(doctor(root).findings) == fixable_counts(expected.remaining)
    if expected.changes:
        assert digest(root) != before
        backup = undo_id(out)
        after = digest(root)
        code, out2, err = fix(str(root), "--apply")
        assert code == 0, err
        assert "nothing to fix" in out2 and "undo:" not in out2
        assert digest(root) == after
        code, _out, err = fix(str(root), "--undo", backup)
        assert code == 0, err
    else:
        assert "undo:" not in out
    assert digest(root) == before


def report() -> None:
    """Per corpus store: fixable findings before and after --apply (on a temporary copy)."""
    import tempfile

    for store in STORES:
        with tempfile.TemporaryDirectory() as tmp:
            root = _copy(store, Path(tmp))
            before = fixable_counts(doctor(root).findings)
            fix(str(root), "--apply")
            after = fixable_counts(doctor(root).findings)
            print(
                f"{store.name}: before {dict(sorted(before.items()))} after {dict(sorted(after.items()))}"
            )


if __name__ == "__main__":
    report()
