"""Spread a read-only scan over the machine's cores, with nothing but ``fork`` and pipes.

A search of a large history is bound by two byte passes per file (lower-casing
and finding the needle), about a second per gigabyte in one process. Here the
files are shared among up to :data:`MAX_WORKERS` processes: each child scans
its share and sends its (small) results back through an anonymous pipe, the
parent scans a share of its own meanwhile. Nothing is created on disk (no
semaphore, no temporary file). Only where ``fork`` is safe and cheap (Linux);
elsewhere, for a small history, or when a child fails, the work runs in the
parent, with the same result.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

MAX_WORKERS = 4
MIN_BYTES = 64 << 20  # below this, starting processes costs more than it saves
Item = TypeVar("Item")
Result = TypeVar("Result")


def workers() -> int:
    """How many processes may scan at once (1 where ``fork`` is not used)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


def shares(items: Sequence[Item], sizes: Sequence[int], count: int) -> list[list[Item]]:
    """``items`` in ``count`` shares of about equal total size (largest first, each to the
    lightest share); the items of a share keep their order."""
    loads = [0] * count
    chosen: list[list[int]] = [[] for _ in range(count)]
    for index in sorted(range(len(items)), key=lambda i: -sizes[i]):
        lightest = loads.index(min(loads))
        loads[lightest] += sizes[index]
        chosen[lightest].append(index)
    return [[items[i] for i in sorted(share)] for share in chosen if share]


def _child(share: Sequence[Item], work: Callable[[Sequence[Item]], Result], out: int) -> None:
    """Run in a forked child: do the work, send the pickled result, exit without cleanup."""
    code = 1
    try:
        data = pickle.dumps(work(share), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(out, "wb") as stream:
            stream.write(data)
        code = 0
    finally:
        os._exit(code)


def run(shared: Sequence[Sequence[Item]], work: Callable[[Sequence[Item]], Result]) -> list[Result]:
    """``work`` over each share, in order: every share but the first in a child process."""
    children: list[tuple[int, int]] = []
    try:
        for share in shared[1:]:
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read_end)
                _child(share, work, write_end)
            os.close(write_end)
            children.append((pid, read_end))
    except OSError:
        pass  # no more processes: the parent does the rest
    try:
        results = [work(shared[0])]
    except BaseException:
        for pid, read_end in children:
            os.kill(pid, signal.SIGTERM)
            os.close(read_end)
            os.waitpid(pid, 0)
        raise
    for index, (pid, read_end) in enumerate(children, 1):
        with os.fdopen(read_end, "rb") as stream:
            data = stream.read()
        _, status = os.waitpid(pid, 0)
        try:
            results.append(pickle.loads(data) if status == 0 else work(shared[index]))
        except (pickle.UnpicklingError, EOFError, ValueError):
            results.append(work(shared[index]))
    results += [work(share) for share in shared[1 + len(children) :]]
    return results
