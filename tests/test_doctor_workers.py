"""The doctor's worker processes: when they are used, and that they change nothing in the report."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import REPO
from doctorkit import TODAY, make_store, note
from engramory.doctor import engine, workers
from engramory.doctor.context import Options
from engramory.store.caps import Caps

CORPUS_STORES = sorted(
    p for p in (Path(__file__).resolve().parent / "corpus" / "stores").iterdir() if p.is_dir()
)
needs_fork = pytest.mark.skipif(not workers.fork_is_safe(), reason="workers are Linux-only")


@pytest.fixture
def tiny_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Use workers on any store, three notes per range, so small stores exercise them."""
    monkeypatch.setattr(workers, "MIN_NOTES", 1)
    monkeypatch.setattr(workers, "CHUNK", 3)


def report_data(store: Path, jobs: int) -> tuple:
    report = engine.run(str(store), Caps(), Options(today=TODAY), None, jobs)
    return (
        report.notes,
        [f.as_dict() for f in report.findings],
        report.hints,
    )


# --- when workers are used ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "notes", "cpus", "expected"),
    [
        (0, 100_000, 4, 4),  # auto: one per CPU
        (0, 100_000, 32, workers.MAX_WORKERS),  # never more than the cap
        (0, 100_000, 1, 0),  # one CPU: no workers
        (1, 100_000, 4, 0),  # --jobs 1: none
        (3, 100_000, 8, 3),  # an explicit count
        (0, workers.MIN_NOTES - 1, 4, 0),  # a small store: in this process
        (8, workers.MIN_NOTES, 8, 2),  # no more workers than ranges
    ],
)
def test_worker_count(
    monkeypatch: pytest.MonkeyPatch, requested: int, notes: int, cpus: int, expected: int
) -> None:
    monkeypatch.setattr(workers, "fork_is_safe", lambda: True)
    monkeypatch.setattr(workers, "usable_cpus", lambda: cpus)
    assert workers.worker_count(requested, notes) == expected


def test_no_workers_where_fork_is_unsafe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers.sys, "platform", "darwin")
    assert not workers.fork_is_safe()
    assert workers.worker_count(4, 100_000) == 0


@given(st.integers(0, 5000), st.integers(1, 700))
def test_ranges_cover_every_note_once_in_order(total: int, size: int) -> None:
    covered = [n for start, stop in workers.ranges(total, size) for n in range(start, stop)]
    assert covered == list(range(total))


# --- the report does not depend on them ---------------------------------------------------------


def small_ranges(monkeypatch: pytest.MonkeyPatch, mode: str) -> int:
    """Cut the pass into ranges of 2-3 notes, in this process or in workers; the jobs to ask."""
    monkeypatch.setattr(engine._Gatherer, "BATCH", 2)
    if mode == "workers":
        monkeypatch.setattr(workers, "MIN_NOTES", 1)
        monkeypatch.setattr(workers, "CHUNK", 3)
        return 2
    return 1


MODES = [
    "serial",
    pytest.param("workers", marks=pytest.mark.skipif(not workers.fork_is_safe(), reason="Linux")),
]


def broken_store(tmp_path: Path) -> Path:
    notes = {
        f"n{i:02}.md": note(f"n{i:02}", "feedback", body=f"see [[n{i + 1:02}]]\n")
        for i in range(20)
    }
    notes["n03.md"] = "# no frontmatter\n"
    notes["n07.md"] = note("n07", "feedback", body="[[missing]] and [[dir/x]]\n")
    notes["sub/nested.md"] = note("nested")
    (tmp_path / "s").mkdir()
    (tmp_path / "outside.md").write_text(note("outside"))
    os.symlink(tmp_path / "outside.md", tmp_path / "s" / "escape.md")
    # Only n00 is indexed: the others are reachable through the chain of [[links]] alone.
    return make_store(tmp_path / "s", notes, index="# Memory\n\n## feedback\n- [n00](n00.md)\n")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("store", CORPUS_STORES, ids=[p.name for p in CORPUS_STORES])
def test_ranges_give_the_same_report_on_real_stores(
    monkeypatch: pytest.MonkeyPatch, store: Path, mode: str
) -> None:
    whole = report_data(store, 1)
    assert report_data(store, small_ranges(monkeypatch, mode)) == whole


@pytest.mark.parametrize("mode", MODES)
def test_ranges_give_the_same_report_on_a_broken_store(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: str
) -> None:
    store = broken_store(tmp_path)
    whole = report_data(store, 1)
    rules = {f["rule"] for f in whole[1]}
    assert rules >= {"no-frontmatter", "wikilink-missing", "wikilink-not-slug", "nested-note"}
    assert rules >= {"linked-not-indexed", "orphan", "note-escapes-store"}
    assert report_data(store, small_ranges(monkeypatch, mode)) == whole


# --- a pool that fails is not an error ----------------------------------------------------------


PARENT = os.getpid()


def _dies_in_a_worker(start: int, stop: int) -> tuple[int, int, bool]:
    if start == 6 and os.getpid() != PARENT:
        os._exit(3)  # a worker killed mid-run (the OOM killer, a signal)
    return (start, stop, os.getpid() == PARENT)


@needs_fork
@pytest.mark.usefixtures("tiny_ranges")
def test_a_dead_worker_is_replaced_by_this_process() -> None:
    results = list(workers.map_ranges(_dies_in_a_worker, 14, 2, serial_chunk=4))
    covered = [n for start, stop, _here in results for n in range(start, stop)]
    assert covered == list(range(14))
    # the range that killed its worker was checked here; which other ranges a
    # worker finished before the pool broke depends on timing
    assert [here for start, stop, here in results if start <= 6 < stop] == [True]


@pytest.mark.usefixtures("tiny_ranges")
def test_a_pool_that_cannot_start_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(method: str) -> None:
        raise OSError("no /dev/shm")

    monkeypatch.setattr(multiprocessing, "get_context", refuse)
    results = list(workers.map_ranges(lambda a, b: (a, b), 10, 2, serial_chunk=4))
    assert results == [(0, 4), (4, 8), (8, 10)]


# --- the command line ---------------------------------------------------------------------------


def test_jobs_must_be_a_positive_count(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a")})
    assert cli("doctor", str(store), "--jobs", "0").code == 64
    assert cli("doctor", str(store), "--jobs", "many").code == 64
    assert cli("doctor", str(store), "--jobs", "2").code == 0


INTERRUPTED_RUN = """
import sys, time
sys.path.insert(0, sys.argv[1])
from engramory.doctor import workers
workers.CHUNK = 1

def slow(start, stop):
    time.sleep(0.2)
    return start

try:
    for _ in workers.map_ranges(slow, 200, 2, serial_chunk=1):
        print("range done", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


@needs_fork
def test_ctrl_c_stops_the_pool_quietly_and_promptly() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_RUN, str(REPO)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C reaches
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "range done\n"
    os.killpg(proc.pid, signal.SIGINT)  # the parent and both workers, like a terminal
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted" in out
    assert "Traceback" not in err  # workers leave Ctrl-C to the parent
    # Promptly, counted in ranges rather than seconds (a loaded machine stretches seconds):
    # the few in flight may finish, the rest of the 200 never start.
    assert out.count("range done\n") < 100, out
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # no worker left behind


def _sigint_handler(start: int, stop: int) -> tuple[bool, bool]:
    return (os.getpid() == PARENT, signal.getsignal(signal.SIGINT) is signal.SIG_IGN)


@needs_fork
@pytest.mark.usefixtures("tiny_ranges")
def test_workers_leave_ctrl_c_to_the_parent() -> None:
    results = list(workers.map_ranges(_sigint_handler, 9, 2, serial_chunk=3))
    assert results == [(False, True)] * 3  # every range ran in a worker that ignores SIGINT
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN  # the parent still handles it
