"""The shipped documents say the protocol in the project's own words.

The seed texts the project started from (``../shared/seeds/`` beside the
repository) carry the facts and rules; their sentences must not be copied.
Each shipped document is compared with the seeds as 12-word shingles (runs of
12 consecutive words, after lower-casing and dropping punctuation and
markdown); a few shared shingles are allowed for fixed terms.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from conftest import REPO

SEEDS = REPO.parent / "shared" / "seeds"
SHINGLE_WORDS = 12
MAX_SHARED = 3

# Shipped at the top level of the repository, or read there by users.
TOP_LEVEL = ("SKILL.md", "rules-snippet.md", "PORTING.md", "AGENT-SETUP.md")
TOP_LEVEL += ("README.md", "SECURITY.md", "CHANGELOG.md", "CONTRIBUTING.md")
# Folders whose markdown is shipped (pyproject's force-include) or shown as an example.
FOLDERS = ("templates", "hooks", "adapters", "examples", "docs")

WORD = re.compile(r"[^\W_]+")

needs_seeds = pytest.mark.skipif(
    not SEEDS.is_dir(), reason=f"the seed texts are not beside the repository ({SEEDS})"
)


def words(text: str) -> list[str]:
    """The text's words: lower-cased runs of letters and digits; everything else is a break."""
    return WORD.findall(text.lower())


def shingles(text: str) -> set[tuple[str, ...]]:
    """Every run of ``SHINGLE_WORDS`` consecutive words in ``text``."""
    seq = words(text)
    return {tuple(seq[i : i + SHINGLE_WORDS]) for i in range(len(seq) - SHINGLE_WORDS + 1)}


def shared_runs(text: str, seed_shingles: frozenset[tuple[str, ...]]) -> list[str]:
    """The passages of ``text`` made of shingles found in the seeds, overlapping ones joined."""
    seq = words(text)
    hits = [
        i
        for i in range(len(seq) - SHINGLE_WORDS + 1)
        if tuple(seq[i : i + SHINGLE_WORDS]) in seed_shingles
    ]
    runs: list[list[int]] = []
    for i in hits:
        if runs and i <= runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return [" ".join(seq[start : end + SHINGLE_WORDS]) for start, end in runs]


def shipped_documents() -> list[Path]:
    """Every shipped or user-facing markdown document of the repository."""
    found = [REPO / name for name in TOP_LEVEL]
    for folder in FOLDERS:
        found += sorted((REPO / folder).rglob("*.md"))
    return found


@functools.lru_cache(maxsize=1)
def seed_shingles() -> frozenset[tuple[str, ...]]:
    found: set[tuple[str, ...]] = set()
    for path in sorted(SEEDS.glob("*.txt")):
        found |= shingles(path.read_text(encoding="utf-8", errors="replace"))
    return frozenset(found)


def test_the_document_list_covers_everything_the_wheel_ships() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    shipped = re.findall(r'^"([^"]+)" = "engramory/_shipped/', pyproject, re.MULTILINE)
    assert shipped, "no force-include entries found in pyproject.toml"
    for entry in shipped:
        if entry == "LICENSE":
            continue  # the licence's fixed text is not ours to reword
        if (REPO / entry).is_dir():
            assert entry in FOLDERS, f"{entry}/ is shipped but not compared with the seeds"
        else:
            assert entry in TOP_LEVEL, f"{entry} is shipped but not compared with the seeds"
    assert all(path.is_file() for path in shipped_documents())


def test_shingles_ignore_case_punctuation_and_markdown() -> None:
    plain = "one two three four five six seven eight nine ten eleven twelve"
    marked = "**One** two, `three` four -- five six; [seven] eight\nnine ten # eleven _twelve_"
    assert shingles(plain) == shingles(marked) == {tuple(plain.split())}
    assert shingles("one two three") == set()


@needs_seeds
def test_a_copied_seed_sentence_is_caught() -> None:
    """The check can fail: a document carrying a seed passage is over the limit."""
    seed_text = (SEEDS / "000_1736114e7e14f05d.txt").read_text(encoding="utf-8")
    passage = " ".join(words(seed_text)[200:230])
    document = (REPO / "SKILL.md").read_text(encoding="utf-8") + "\n" + passage + "\n"
    runs = shared_runs(document, seed_shingles())
    assert sum(len(run.split()) - SHINGLE_WORDS + 1 for run in runs) > MAX_SHARED
    assert any(passage in run for run in runs)


@needs_seeds
@pytest.mark.parametrize(
    "document", shipped_documents(), ids=lambda path: str(path.relative_to(REPO))
)
def test_shipped_document_does_not_copy_the_seeds(document: Path) -> None:
    shared = shingles(document.read_text(encoding="utf-8")) & seed_shingles()
    runs = shared_runs(document.read_text(encoding="utf-8"), seed_shingles())
    assert len(shared) <= MAX_SHARED, (
        f"{document.relative_to(REPO)} shares {len(shared)} twelve-word runs with "
        f"{SEEDS}; say these in the project's own words: {runs}"
    )
