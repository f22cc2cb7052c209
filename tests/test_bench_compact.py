"""The store generator of benchmarks/compact.py, at a tiny size.

The benchmark's figures mean something only if its store is what it claims:
an index within the size asked for, whose inline half holds no link (so that
every inline block is something ``compact`` turns into a note), whose pointer
lines all resolve to valid notes (so the doctor's only error is the cap), with
duplicate and long pointer lines present, the same bytes for the same seed.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

from engramory.doctor import engine
from engramory.store import markdown
from engramory.store.caps import Caps

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "compact.py"
SIZE = 100_000
SEED = 3
ROOMY = Caps(warn_lines=10**6, hard_lines=10**6, warn_bytes=10**7, hard_bytes=10**7)


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_compact", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


@pytest.fixture(scope="module")
def generated(bench, tmp_path_factory):
    root = tmp_path_factory.mktemp("store")
    return root, bench.generate(root, SEED, SIZE)


def test_index_within_size_and_near_it(generated):
    root, _store = generated
    size = (root / "MEMORY.md").stat().st_size
    assert SIZE - 2_000 < size <= SIZE


def test_half_inline_half_pointers(generated):
    _root, store = generated
    inline, pointers = len(store.inline_lines), len(store.pointer_lines)
    assert not set(store.inline_lines) & set(store.pointer_lines)
    assert 0.4 < inline / (inline + pointers) < 0.65
    assert store.duplicates > 0 and store.long_lines > 0


def test_inline_lines_hold_no_link_and_pointer_lines_do(generated):
    root, store = generated
    lines = markdown.classify_index((root / "MEMORY.md").read_text(encoding="utf-8"))
    for number in store.inline_lines:
        line = lines[number - 1]
        assert line.kind in (markdown.TEXT, markdown.HEADING, markdown.TABLE_RULE), line
        assert not markdown.find_links(line.text), line
        assert "](" not in line.text and "[[" not in line.text and "://" not in line.text
    for number in store.pointer_lines:
        assert lines[number - 1].links, lines[number - 1]


def test_every_pointer_resolves_to_a_valid_note(generated):
    root, store = generated
    report = engine.run(str(root), ROOMY)
    errors = [f for f in report.findings if f.severity == "error"]
    assert errors == []
    rules = Counter(f.rule for f in report.findings)
    assert rules["duplicate-pointer"] > 0
    assert rules["index-line-too-long"] > 0
    assert report.notes == len(store.notes)
    assert rules["orphan"] == 0


def test_long_lines_are_pointer_lines_over_200_characters(generated):
    _root, store = generated
    long_pointers = [n for n in store.pointer_lines if len(store.index_lines[n - 1]) > 200]
    assert len(long_pointers) == store.long_lines


def test_deterministic_for_a_seed(bench, generated, tmp_path):
    root, _store = generated
    bench.generate(tmp_path / "again", SEED, SIZE)
    bench.generate(tmp_path / "other", SEED + 1, SIZE)
    assert bench.tree_digest(tmp_path / "again") == bench.tree_digest(root)
    assert bench.tree_digest(tmp_path / "other") != bench.tree_digest(root)
