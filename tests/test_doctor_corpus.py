"""Regression over real stores (tests/corpus/, copied from ../shared/corpus/).

Every store must be checked to completion with valid JSON output; the number
of findings per rule per store is pinned in tests/corpus/expected.json, so a
change in the doctor's behaviour shows up in review as a diff of that file.
After an intended change, regenerate it with:

    python tests/test_doctor_corpus.py --update
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conftest import run_engramory
from doctorkit import doctor
from engramory.doctor.context import DEFAULT_STALE_DAYS
from engramory.doctor.rules import RULES

CORPUS = Path(__file__).resolve().parent / "corpus"
STORES = sorted(p for p in (CORPUS / "stores").iterdir() if p.is_dir())
EXPECTED = CORPUS / "expected.json"


# Where the corpus lies (inside this repository's work tree, or a copy elsewhere) is not a
# property of the stores: not-gitignored is tested on its own (tests/test_doctor_content.py).
PINNED = set(RULES) - {"not-gitignored"}


def counts(store: Path) -> dict[str, int]:
    """Findings per rule, as of doctorkit.TODAY with the default --stale-days."""
    report = doctor(store, select=PINNED, stale_days=DEFAULT_STALE_DAYS)
    return dict(sorted(Counter(f.rule for f in report.findings).items()))


def test_the_corpus_is_present() -> None:
    assert len(STORES) == 20


@pytest.mark.parametrize("store", STORES, ids=[p.name for p in STORES])
def test_findings_per_rule_are_pinned(store: Path) -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert counts(store) == expected[store.name]


@pytest.mark.parametrize("store", STORES, ids=[p.name for p in STORES])
def test_json_output_is_valid_and_complete(store: Path) -> None:
    proc = run_engramory("doctor", str(store), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert report["store"] == str(store.resolve())
    assert sum(report["summary"].values()) == len(report["findings"])
    assert report["notes"] >= 1


def test_over_cap_store_is_reported() -> None:
    (store,) = [p for p in STORES if p.name.startswith("06-")]
    found = counts(store)
    assert found["index-over-hard-cap"] == 1


def update() -> None:
    data = {store.name: counts(store) for store in STORES}
    EXPECTED.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {EXPECTED}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        update()
    else:
        print(__doc__)
