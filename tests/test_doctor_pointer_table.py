"""Index pointers that name a walked note are resolved from the walk's table, not by realpath.

The table path must give exactly the findings the file-system path gives, on
stores full of the cases that need the file system: symlinks (in and out),
``..``, percent-encoding, backslashes, a symlinked directory on the way,
another case, a hard link.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from doctorkit import TODAY, doctor, make_store, note
from engramory.doctor import engine, workers
from engramory.doctor.context import Options
from engramory.store import disk as storemod
from engramory.store.caps import Caps

needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")


def findings_both_ways(root: Path, monkeypatch: pytest.MonkeyPatch):
    """The findings with the walk's table, then with every pointer resolved on the file system."""
    with_table = doctor(root)
    monkeypatch.setattr(engine, "plain_notes", lambda walk: frozenset())
    without_table = doctor(root)
    monkeypatch.undo()
    return with_table, without_table


def assert_identical(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with_table, without_table = findings_both_ways(root, monkeypatch)
    assert with_table.findings == without_table.findings
    assert with_table.notes == without_table.notes
    return sorted({f.rule for f in with_table.findings})


def tricky_store(root: Path, outside: Path) -> Path:
    notes = {
        "plain.md": note("plain"),
        "sub dir/spaced.md": note("spaced"),
        "nested/deep.md": note("deep"),
        "real/inner.md": note("inner"),
        "lower.md": note("lower"),
        "hard.md": note("hard"),
        "archive/old.md": note("old"),
        "odd%.md": note("odd"),
    }
    pointers = [
        "- [plain](plain.md) — direct",
        "- [plain again](./plain.md) — dot segment",
        "- [plain slashes](nested//../plain.md) — a .. inside",
        "- [spaced](sub%20dir/spaced.md) — percent-encoded",
        "- [deep](nested\\deep.md) — backslash",
        "- [deep dot](nested/./deep.md) — dot inside",
        "- [via link dir](linked/inner.md) — a symlinked directory on the way",
        "- [via link dir up](linked/../plain.md) — .. after a symlinked directory",
        "- [inner](real/inner.md) — the real path",
        "- [link note](alias.md) — a symlinked note inside",
        "- [out](outlink.md) — a symlinked note leading out",
        "- [out dir](outdir/x.md) — a symlinked directory leading out",
        "- [escape](../escape.md) — climbs out",
        "- [upper](LOWER.md) — another case",
        "- [hard link](hard-link.md) — the same file under another name",
        "- [archived](archive/old.md) — retired",
        "- [gone](gone.md) — deleted",
        "- [odd](odd%25.md) — an encoded percent",
        "- [anchor](plain.md#part) — with an anchor",
        "- [query](plain.md?x=1) — with a query",
        "- [trailing](plain.md/) — trailing slash",
        "- [dir](nested) — a directory",
        "- [index](MEMORY.md) — itself",
    ]
    make_store(root, notes, index="# Memory\n\n## user\n" + "\n".join(pointers) + "\n")
    outside.mkdir(exist_ok=True)
    (outside / "x.md").write_text(note("x"))
    (root.parent / "escape.md").write_text(note("escape"))
    (root / "linked").symlink_to(root / "real", target_is_directory=True)
    (root / "alias.md").symlink_to(root / "plain.md")
    (root / "outlink.md").symlink_to(outside / "x.md")
    (root / "outdir").symlink_to(outside, target_is_directory=True)
    os.link(root / "hard.md", root / "hard-link.md")
    return root


@needs_symlinks
def test_table_and_file_system_give_identical_findings(tmp_path: Path, monkeypatch) -> None:
    root = tricky_store(tmp_path / "s", tmp_path / "outside")
    fired = assert_identical(root, monkeypatch)
    # The store does exercise the cases, not just a clean run.
    assert {"pointer-escapes-store", "pointer-missing", "pointer-into-archive"} <= set(fired)


@needs_symlinks
def test_identical_with_a_relative_root_and_a_symlinked_root(tmp_path: Path, monkeypatch) -> None:
    root = tricky_store(tmp_path / "s", tmp_path / "outside")
    (tmp_path / "via").symlink_to(root, target_is_directory=True)
    assert_identical(tmp_path / "via", monkeypatch)
    monkeypatch.chdir(tmp_path)
    with_table = doctor(Path("s"))
    monkeypatch.setattr(engine, "plain_notes", lambda walk: frozenset())
    assert doctor(Path("s")).findings == with_table.findings


def test_identical_on_the_runaway_shape(tmp_path: Path, monkeypatch) -> None:
    notes = {f"n-{k:03d}.md": note(f"n-{k:03d}") for k in range(60)}
    lines = [f"- [n{k}](n-{k:03d}.md) — open it" for k in range(60)]
    lines += [f"- [gone{k}](gone-{k}.md) — deleted" for k in range(6)]
    lines += ["- [dup](n-001.md) — twice"]
    root = make_store(tmp_path / "s", notes, index="# Memory\n\n" + "\n".join(lines) + "\n")
    fired = assert_identical(root, monkeypatch)
    assert {"duplicate-pointer", "pointer-missing"} <= set(fired)


def test_plain_pointers_skip_realpath(tmp_path: Path, monkeypatch) -> None:
    """One realpath per pointer made a 10,000-line index cost 5x the read loop."""
    notes = {f"n-{k:03d}.md": note(f"n-{k:03d}") for k in range(200)}
    notes["sub/deep.md"] = note("deep")
    root = make_store(tmp_path / "s", notes)
    (root / "MEMORY.md").write_text(
        "# Memory\n\n"
        + "".join(f"- [n](n-{k:03d}.md) — x\n" for k in range(200))
        + "- [deep](sub/deep.md) — x\n- [gone](gone.md) — x\n- [up](sub/../n-000.md) — x\n"
    )
    calls: list[str] = []
    real = os.path.realpath

    def counting(path, *args, **kwargs):
        calls.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(storemod.os.path, "realpath", counting)
    report = doctor(root)
    resolved_by_path = [c for c in calls if c != str(root) and not c.endswith("MEMORY.md")]
    assert len(resolved_by_path) == 2  # gone.md and the one with "..", not the 201 plain ones
    assert {f.rule for f in report.findings} == {
        "index-over-hard-cap",
        "pointer-missing",
        "duplicate-pointer",  # sub/../n-000.md names n-000.md again
        "nested-note",
    }


def test_another_case_falls_back_to_the_file_system(tmp_path: Path, monkeypatch) -> None:
    """On a case-insensitive file system ``X.md`` reaches ``x.md``: only the file system knows."""
    root = make_store(tmp_path / "s", {"x.md": note("x")})
    calls: list[str] = []
    real = os.path.realpath
    monkeypatch.setattr(
        storemod.os.path, "realpath", lambda p, *a, **k: calls.append(p) or real(p, *a, **k)
    )
    target = storemod.resolve_target(str(root), "X.md", frozenset({"x.md"}))
    assert calls, "a pointer in another case must be resolved on the file system"
    assert target == storemod.resolve_target(str(root), "X.md")


@pytest.mark.parametrize(
    "raw",
    ["x.md", "./x.md", "d//y.md", "d/./y.md", "d%2Fy.md", "d\\y.md", "x.md#a", "x.md?q", "x.md/"],
)
def test_resolve_target_same_with_and_without_table(tmp_path: Path, raw: str) -> None:
    root = make_store(tmp_path / "s", {"x.md": note("x"), "d/y.md": note("y")})
    table = storemod.plain_notes(storemod.walk(str(root)))
    assert table == {"x.md", "d/y.md"}
    assert storemod.resolve_target(str(root), raw, table) == storemod.resolve_target(str(root), raw)


def test_a_note_replaced_after_the_walk_is_resolved_on_the_file_system(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"x.md": note("x")})
    table = storemod.plain_notes(storemod.walk(str(root)))
    (root / "x.md").unlink()
    (root / "x.md").mkdir()
    target = storemod.resolve_target(str(root), "x.md", table)
    assert target.kind == storemod.MISSING and "directory" in target.reason


@needs_symlinks
def test_symlinked_notes_are_not_in_the_table(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"x.md": note("x"), "real/y.md": note("y")})
    (root / "alias.md").symlink_to(root / "x.md")
    (root / "linked").symlink_to(root / "real", target_is_directory=True)
    assert storemod.plain_notes(storemod.walk(str(root))) == {"x.md", "real/y.md"}


@needs_symlinks
@pytest.mark.parametrize(("jobs", "batch"), [(1, 2), (1, 512), (3, 512)])
def test_identities_found_while_the_notes_are_checked(
    tmp_path: Path, monkeypatch, jobs: int, batch: int
) -> None:
    """The index is resolved after the first range: earlier ranges keep every identity."""
    root = tricky_store(tmp_path / "s", tmp_path / "outside")
    expected = doctor(root).findings
    monkeypatch.setattr(workers, "MIN_NOTES", 1)
    monkeypatch.setattr(workers, "CHUNK", 2)
    monkeypatch.setattr(engine._Gatherer, "BATCH", batch)
    report = engine.run(str(root), Caps(), Options(today=TODAY), None, jobs)
    assert report.findings == expected
    orphans = {f.path for f in report.findings if f.rule == "orphan"}
    assert "hard.md" not in orphans  # credited through hard-link.md's identity
    assert "plain.md" not in orphans


def _range(start: int, stop: int) -> tuple[int, int]:
    return (start, stop)


@pytest.mark.skipif(not workers.fork_is_safe(), reason="workers are Linux-only")
def test_workers_start_at_once_and_stop_when_dropped(monkeypatch) -> None:
    """The index is resolved while the workers run: they start before any result is asked for."""
    import multiprocessing

    monkeypatch.setattr(workers, "CHUNK", 3)
    before = set(multiprocessing.active_children())
    results = workers.map_ranges(_range, 12, 2, serial_chunk=4)
    assert set(multiprocessing.active_children()) - before  # busy already
    del results  # e.g. an error while this process resolves the index
    assert set(multiprocessing.active_children()) <= before


def test_in_this_process_nothing_runs_before_it_is_asked_for() -> None:
    calls: list[int] = []
    results = workers.map_ranges(lambda a, b: calls.append(a) or (a, b), 8, 0, serial_chunk=4)
    assert calls == []
    assert list(results) == [(0, 4), (4, 8)]


@pytest.mark.skipif(not workers.fork_is_safe(), reason="workers are Linux-only")
def test_an_error_while_resolving_the_index_stops_the_workers(tmp_path: Path, monkeypatch) -> None:
    import multiprocessing

    from engramory.store import markdown

    root = make_store(tmp_path / "s", {f"n-{k}.md": note(f"n-{k}") for k in range(12)})
    monkeypatch.setattr(workers, "MIN_NOTES", 1)
    monkeypatch.setattr(workers, "CHUNK", 3)

    def broken(text: str) -> list:
        raise RuntimeError("index parser failed")

    monkeypatch.setattr(markdown, "classify_index", broken)
    before = set(multiprocessing.active_children())
    kept = None
    try:
        engine.run(str(root), Caps(), Options(today=TODAY), None, 2)
    except RuntimeError as exc:
        kept = exc.__traceback__  # holds every frame, as a caller reporting the error would
    assert kept is not None
    assert set(multiprocessing.active_children()) <= before
