"""Spread the doctor's per-note pass over worker processes on large stores.

Reading, parsing and checking one note does not depend on any other note, so
a large store is cut into ranges of note numbers and the ranges are handed to
forked worker processes, which inherit the walk and the rules instead of
receiving them. Results come back in range order, so the report is the same
as a single-process run, finding for finding.

Only where the ``fork`` start method is safe (Linux): elsewhere, on small
stores, with ``--jobs 1`` or one usable CPU, everything runs in this process.
A pool that cannot start or loses a worker is not an error: the ranges not
yet done are checked in this process instead.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Generator, Iterator
from typing import TypeVar

T = TypeVar("T")

MIN_NOTES = 4000  # below this, starting workers costs more than it saves
CHUNK = 2048  # notes per range handed to a worker
MAX_WORKERS = 8

_task: Callable[[int, int], object] | None = None


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return max(1, len(affinity(0)))
        except OSError:
            pass
    return os.cpu_count() or 1


def fork_is_safe() -> bool:
    """Whether worker processes can be forked here (Linux only: fork is unsafe on macOS)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def worker_count(requested: int, notes: int) -> int:
    """Worker processes to use for ``notes`` notes; ``0`` means "in this process".

    ``requested`` is ``--jobs``: ``0`` for one per usable CPU, ``1`` for none.
    """
    if requested == 1 or notes < MIN_NOTES or not fork_is_safe():
        return 0
    wanted = usable_cpus() if requested == 0 else requested
    workers = min(wanted, MAX_WORKERS, -(-notes // CHUNK))
    return workers if workers >= 2 else 0


def ranges(total: int, size: int) -> list[tuple[int, int]]:
    """``[start, stop)`` pairs covering ``range(total)`` in steps of ``size``."""
    return [(start, min(start + size, total)) for start in range(0, total, size)]


_STARTED = object()  # what a stream yields first, once its workers (if any) are busy


def map_ranges(
    task: Callable[[int, int], T], total: int, workers: int, serial_chunk: int
) -> Generator[T, None, None]:
    """``task(start, stop)`` over ``range(total)``, in order, in workers or in this process.

    With workers, every range is handed out before this returns, so the
    caller can do its own work while they run; the pool is shut down when the
    generator is exhausted, closed or dropped. In this process nothing runs
    before the first result is asked for.
    """
    stream = _stream(task, total, workers, serial_chunk)
    next(stream)  # _STARTED
    return stream  # type: ignore[return-value]


def _stream(
    task: Callable[[int, int], T], total: int, workers: int, serial_chunk: int
) -> Generator[object, None, None]:
    done = 0
    parts = ranges(total, CHUNK) if workers else []
    pooled: Iterator[object] | None = None
    if workers:
        # Imported here: they cost more start-up time than a small store takes to check.
        from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

        try:
            pooled = _in_workers(task, parts, workers)
            next(pooled)  # _STARTED: the pool is up and every range handed out
        except (OSError, BrokenProcessPool):
            pooled = None  # everything is checked below, in this process
    yield _STARTED
    if pooled is not None:
        try:
            for (_start, stop), result in zip(parts, pooled):
                yield result
                done = stop
        except (OSError, BrokenProcessPool):
            pass  # the ranges not done yet are checked below, in this process
        finally:
            pooled.close()
    for start, stop in ranges(total - done, serial_chunk):
        yield task(done + start, done + stop)


def _adopt(task: Callable[[int, int], object]) -> None:
    """Runs once in each new worker: the task arrives through fork, never pickled.

    Ctrl-C is the parent's to handle (it stops the pool); a worker ignores it
    rather than print a traceback of its own.
    """
    global _task  # noqa: PLW0603 - the worker's one task
    _task = task
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _call(bounds: tuple[int, int]) -> object:
    assert _task is not None
    return _task(*bounds)


def _in_workers(
    task: Callable[[int, int], T], parts: list[tuple[int, int]], workers: int
) -> Iterator[object]:
    import multiprocessing  # noqa: PLC0415
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    sys.stdout.flush()  # a forked child must not inherit (and write again) buffered output
    sys.stderr.flush()
    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_adopt, initargs=(task,))
    try:
        results = pool.map(_call, parts)  # submits every range now
        yield _STARTED
        yield from results
    finally:
        # Interrupted (Ctrl-C, a broken pipe): drop the ranges not started yet.
        pool.shutdown(wait=True, cancel_futures=True)
