"""``engramory compact`` on a copy of every over-cap or long-line store of the corpus:
plan (nothing written), apply, the doctor (no new error), undo (every byte back)."""

from __future__ import annotations

import io
import shutil
import sys
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixkit import digest

from doctorkit import doctor
from engramory.cli import main
from engramory.store.caps import Caps, count_lines, verdict

CORPUS = Path(__file__).resolve().parent / "corpus"
STORES = sorted(p for p in (CORPUS / "stores").iterdir() if p.is_dir())


def needs_compaction(store: Path) -> bool:
    """Over a cap (as check says) or holding an index-line-too-long finding."""
    data = (store / "MEMORY.md").read_bytes() if (store / "MEMORY.md").is_file() else b""
    over = verdict(count_lines(data), len(data), Caps())[0] != "ok"
    return over or bool(doctor(store, select={"index-line-too-long"}).findings)


CANDIDATES = [s for s in STORES if needs_compaction(s)]


def compact(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["compact", *args])
    return code, out.getvalue() + err.getvalue()


def errors(root: Path) -> Counter:
    return Counter(f.rule for f in doctor(root).findings if f.severity == "error")


def test_the_corpus_has_over_cap_and_long_line_stores() -> None:
    assert len(CANDIDATES) >= 6


@pytest.mark.parametrize("store", CANDIDATES, ids=lambda p: p.name)
def test_plan_apply_doctor_undo(store: Path, tmp_path: Path) -> None:
    root = tmp_path / store.name
    shutil.copytree(store, root)
    tree = digest(root, skip_backups=False)
    errors_before = errors(root)
    code, _out = compact(str(root), "--archive-cold")
    assert code in (0, 1)
    assert digest(root, skip_backups=False) == tree
    code, out = compact(str(root), "--apply")
    assert code in (0, 1), out
    assert not errors(root) - errors_before
    if "undo: engramory compact --undo " in out:
        line = next(x for x in out.splitlines() if x.startswith("undo: "))
        assert compact(str(root), "--undo", line.split()[4])[0] == 0
    assert digest(root) == tree


EVERY_STEP = ("--step", "duplicates", "--step", "inline", "--step", "long-lines")


@pytest.mark.parametrize("steps", [(), EVERY_STEP], ids=["default", "every-step"])
@pytest.mark.parametrize("store", STORES, ids=lambda p: p.name)
def test_apply_twice_plans_nothing_the_second_time(
    store: Path, steps: tuple[str, ...], tmp_path: Path
) -> None:
    """``compact --apply`` then again: the second run plans nothing (exit 0, no undo, no
    byte changed), the plan after it is empty, and the first run's undo is byte-exact."""
    root = tmp_path / store.name
    shutil.copytree(store, root)
    tree = digest(root)
    errors_before = errors(root)
    code, first = compact(str(root), "--apply", *steps)
    assert code in (0, 1), first
    assert not errors(root) - errors_before
    applied = digest(root)
    code, second = compact(str(root), "--apply", *steps)
    assert "undo: " not in second and digest(root) == applied, second
    assert compact(str(root), *steps)[0] == code
    if "undo: " in first:
        line = next(x for x in first.splitlines() if x.startswith("undo: "))
        assert compact(str(root), "--undo", line.split()[4])[0] == 0
    assert digest(root) == tree
