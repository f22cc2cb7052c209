"""``check`` and ``doctor`` find the same store, or refuse alike, in every discovery case.

Each case builds a small tree under ``tmp_path``, sets the current directory
and ``$ENGRAMORY_MEMORY_ROOT``, and runs both commands in-process. The store
``check`` used is the directory of the file it measured; the doctor's is the
``store`` of its JSON report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from engramory.commands import check

INDEX = "# Memory\n"
NOTE = "---\nname: a\ndescription: d\ntype: user\n---\nbody\n"


@dataclass(frozen=True)
class Case:
    """A tree (paths ending in ``/`` are directories), where to run, and the expected store.

    ``store`` is relative to ``tmp_path``; ``None`` means both commands exit 66.
    ``announced``: the store is not the path given, so the output names it.
    """

    tree: tuple[str, ...]
    cwd: str = "."
    env: str | None = None
    arg: str | None = None
    store: str | None = None
    announced: bool = False


CASES = {
    "explicit dir with index": Case(("s/MEMORY.md",), arg="s", store="s"),
    "explicit dir with only .engramory-memory": Case(
        ("p/.engramory-memory/MEMORY.md", "p/README.md"),
        arg="p",
        store="p/.engramory-memory",
        announced=True,
    ),
    "explicit dir . in a project root": Case(
        ("p/.engramory-memory/MEMORY.md", "p/src/"),
        cwd="p",
        arg=".",
        store="p/.engramory-memory",
        announced=True,
    ),
    "explicit MEMORY.md file": Case(("s/MEMORY.md",), arg="s/MEMORY.md", store="s"),
    "missing path": Case(("s/MEMORY.md",), arg="nope"),
    "env set": Case(
        ("e/MEMORY.md", ".engramory-memory/MEMORY.md"), env="e", store="e", announced=True
    ),
    "env unset": Case((".engramory-memory/MEMORY.md",), store=".engramory-memory", announced=True),
    "env set to a missing directory": Case((".engramory-memory/MEMORY.md",), env="gone"),
    "cwd with .engramory-memory": Case(
        ("w/.engramory-memory/MEMORY.md", "w/MEMORY.md"),
        cwd="w",
        store="w/.engramory-memory",
        announced=True,
    ),
    "cwd with MEMORY.md": Case(("w/MEMORY.md",), cwd="w", store="w", announced=True),
    "sub-directory of a git work tree whose top has the store": Case(
        ("r/.git/", "r/.engramory-memory/MEMORY.md", "r/src/pkg/"),
        cwd="r/src/pkg",
        store="r/.engramory-memory",
        announced=True,
    ),
    "git worktree (.git file) top has the store": Case(
        ("r/.git", "r/.engramory-memory/MEMORY.md", "r/src/"),
        cwd="r/src",
        store="r/.engramory-memory",
        announced=True,
    ),
    "outside a work tree, store two parents up": Case(
        ("o/.engramory-memory/MEMORY.md", "o/a/b/"),
        cwd="o/a/b",
        store="o/.engramory-memory",
        announced=True,
    ),
    "store above the git top is not found": Case(
        (".engramory-memory/MEMORY.md", "r/.git/", "r/src/"), cwd="r/src"
    ),
    "empty directory": Case(("e/",), arg="e"),
    "directory with only a non-note markdown file": Case(("e/README.md",), arg="e"),
}


def build(root: Path, tree: tuple[str, ...]) -> None:
    for entry in tree:
        path = root / entry
        if entry.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.name == "MEMORY.md":
            path.write_text(INDEX)
        elif path.name == ".git":
            path.write_text("gitdir: /nowhere\n")
        elif path.name == "README.md":
            path.write_text("# A project\n")
        else:
            path.write_text(NOTE)


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Build a case's tree and enter it; returns the resolved ``tmp_path``."""
    if any((parent / ".git").exists() for parent in tmp_path.resolve().parents):
        pytest.skip("the temporary directory is inside a git work tree")
    root = tmp_path.resolve()

    def enter(case: Case) -> Path:
        build(root, case.tree)
        monkeypatch.chdir(root / case.cwd)
        if case.env is None:
            monkeypatch.delenv("ENGRAMORY_MEMORY_ROOT", raising=False)
        else:
            monkeypatch.setenv("ENGRAMORY_MEMORY_ROOT", case.env)
        return root

    return enter


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files ``check`` measured, resolved."""
    seen: list[Path] = []
    real = check.measure

    def spy(path, caps, *rest):
        seen.append(Path(path).resolve())
        return real(path, caps, *rest)

    monkeypatch.setattr(check, "measure", spy)
    return seen


def argv(case: Case) -> list[str]:
    return [] if case.arg is None else [case.arg]


@pytest.mark.parametrize("name", list(CASES))
def test_check_and_doctor_agree(name: str, place, measured, cli) -> None:
    case = CASES[name]
    root = place(case)
    checked = cli("check", *argv(case))
    doctored = cli("doctor", *argv(case), "--format", "json")
    if case.store is None:
        assert (checked.code, doctored.code) == (66, 66), (checked, doctored)
        assert measured == []
        return
    expected = root / case.store
    assert checked.code == 0, checked
    assert measured == [expected / "MEMORY.md"]
    assert doctored.code == 0, doctored
    assert json.loads(doctored.out)["store"] == str(expected)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.store is not None])
def test_output_names_a_found_store_first(name: str, place, cli) -> None:
    case = CASES[name]
    place(case)
    first = cli("doctor", *argv(case)).out.splitlines()[0]
    verdict = cli("check", *argv(case)).out
    assert verdict.startswith("OK: ")
    if case.announced:
        assert first.startswith("checking the store ") and first.endswith(")")
        assert "(found " in verdict or "(from $ENGRAMORY_MEMORY_ROOT)" in verdict
    else:
        assert not first.startswith("checking the store")
        assert "(found" not in verdict and "(from" not in verdict


def test_redirect_line_says_where_it_was_found(place, cli) -> None:
    place(CASES["explicit dir with only .engramory-memory"])
    first = cli("doctor", "p").out.splitlines()[0]
    assert first == f"checking the store {Path('p', '.engramory-memory')} (found under p)"


def test_notes_without_index_doctor_reports_no_index_check_refuses(place, cli) -> None:
    root = place(Case(("n/a.md",)))
    doctored = cli("doctor", "n", "--format", "json")
    assert doctored.code == 1
    report = json.loads(doctored.out)
    assert report["store"] == str(root / "n")
    assert "no-index" in {f["rule"] for f in report["findings"]}
    checked = cli("check", "n")
    assert checked.code == 66 and "n has no MEMORY.md" in checked.err


def test_other_file_check_measures_it_doctor_refuses(place, measured, cli) -> None:
    """The one intended difference: check measures any index file, the doctor needs a store."""
    root = place(Case(("s/MEMORY.md", "s/INDEX.md")))
    assert cli("check", "s/INDEX.md").code == 0
    assert measured == [root / "s" / "INDEX.md"]
    refused = cli("doctor", "s/INDEX.md")
    assert refused.code == 66 and "is a file, not a store" in refused.err


def test_not_a_store_message_has_the_same_shape(place, cli) -> None:
    place(CASES["empty directory"])
    checked, doctored = cli("check", "e"), cli("doctor", "e")
    assert checked.err.split(": ", 1)[1] == doctored.err.split(": ", 1)[1]
    assert "e is not a memory store" in checked.err and "tried" in checked.err


def test_nothing_found_message_has_the_same_shape(place, cli) -> None:
    place(CASES["store above the git top is not found"])
    checked, doctored = cli("check"), cli("doctor")
    assert checked.err.split(": ", 1)[1] == doctored.err.split(": ", 1)[1]
    assert "the git work-tree top" in checked.err
