"""``engramory fix`` on a copy of every corpus store (issue 16, "Done when").

--apply then --undo gives back every byte; --apply twice changes nothing the
second time; the doctor's counts for the fixable rules drop to what the plan
says remains; no body byte of any note changes. Run this file directly to
print, per store, the fixable findings before and after.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fixkit import FIXABLE_RULES, bodies, digest, fix, fixable_counts, undo_id

from doctorkit import doctor
from engramory.commands.fix import plan_store
from engramory.repair import FIX_IDS
from engramory.store.caps import Caps

CORPUS = Path(__file__).resolve().parent / "corpus"
STORES = sorted(p for p in (CORPUS / "stores").iterdir() if p.is_dir())


def left_in_summary(stdout: str) -> dict[str, int]:
    """The per-rule counts of the summary's "left for a person: ..." line."""
    lines = [x for x in stdout.splitlines() if x.startswith("left for a person: ")]
    if not lines:
        return {}
    counts = lines[0].split(": ", 2)[2].rsplit(" (see", 1)[0]
    return {rule: int(n) for rule, n in (part.split(" ") for part in counts.split(", "))}


def _copy(store: Path, tmp_path: Path) -> Path:
    target = tmp_path / store.name
    shutil.copytree(store, target, symlinks=True)
    return target


def _commit(root: Path) -> None:
    """Make ``root`` a git work tree with every file committed on one known date."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": "2025-05-06T12:00:00+00:00",
        "GIT_COMMITTER_DATE": "2025-05-06T12:00:00+00:00",
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "corpus", "--no-verify"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


HAS_GIT = shutil.which("git") is not None
PROTOCOL = ("--profile", "engramory")
MODES = [False, pytest.param(True, marks=pytest.mark.skipif(not HAS_GIT, reason="no git"))]


@pytest.mark.parametrize("in_git", MODES, ids=["plain", "git"])
@pytest.mark.parametrize("store", STORES, ids=[p.name for p in STORES])
def test_apply_undo_apply_twice(store: Path, in_git: bool, tmp_path: Path) -> None:
    """In the engramory profile (every fix; a store in the host's dialect is otherwise
    detected as claude-native, where fix touches only the index: test_profile_choice)."""
    root = _copy(store, tmp_path)
    if in_git:
        _commit(root)
    before = digest(root)
    before_bodies = bodies(root)
    report = doctor(root)
    expected = plan_store(str(root.resolve()), report.findings, Caps(), list(FIX_IDS), "git")
    code, out, err = fix(str(root), "--apply", *PROTOCOL)
    assert code == 0, err
    assert bodies(root) == before_bodies
    remaining = fixable_counts(doctor(root).findings)
    assert remaining == fixable_counts(expected.remaining)
    assert {r: n for r, n in left_in_summary(out).items() if r in FIXABLE_RULES} == remaining
    if expected.changes:
        assert digest(root) != before
        backup = undo_id(out)
        after = digest(root)
        code, out2, err = fix(str(root), "--apply", *PROTOCOL)
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
            if "--git" in sys.argv:
                _commit(root)
            before = fixable_counts(doctor(root).findings)
            fix(str(root), "--apply", *PROTOCOL)
            after = fixable_counts(doctor(root).findings)
            print(
                f"{store.name}: before {dict(sorted(before.items()))} after {dict(sorted(after.items()))}"
            )


if __name__ == "__main__":
    report()  # --git: each copy committed to a fresh git repository first
