"""``engramory mcp``'s ``memory_search`` on a 10,000-note store, next to reading every file.

Reproduce (from the repository root):

    python benchmarks/mcp.py [--notes 10000] [--repeat 5] [--keep]

The store is doctor.py's ``valid`` store (made-up vocabulary, notes of all four
types, hub notes), written to a temporary directory. One real server process
(``python -m engramory mcp --store STORE``) is started and initialised; then
each query is sent ``--repeat`` times and its round trip (request written to
the answer read) timed in this process: one word, another, two words (the
default limit of 10 results; every note is read and matched each time). The baseline is a
child process reading every file of the store (``os.walk``), alternated with
the queries so both see a warm page cache. It prints the median of each and
the ratio to the baseline; it is a report (exit 0).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import doctor as generator


def query_words() -> list[tuple[str, str]]:
    """``(label, query)``: two words of the generator's vocabulary alone, then both."""
    counts: dict[str, int] = {}
    for seed in range(2000):
        for word in set(generator.words_of(seed, 40)):
            counts[word] = counts.get(word, 0) + 1
    ordered = sorted(counts, key=lambda w: (-counts[w], w))
    return [
        ("one word", ordered[0]),
        ("another word", ordered[-1]),
        ("two words", f"{ordered[0]} {ordered[1]}"),
    ]


class Client:
    """A server process spoken to over its stdin/stdout."""

    def __init__(self, store: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engramory", "mcp", "--store", str(store)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=generator.child_env(),
        )
        self.next_id = 0
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "1"}})  # fmt: skip

    def ask(self, method: str, params: dict[str, object]) -> dict[str, object]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def baseline(store: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", generator.BASELINE, str(store)], check=True,
                   capture_output=True)  # fmt: skip
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="engramory-mcp-bench-"))
    store = work / "store"
    generator.write_store(store, generator.plan_store(args.notes, generator.VALID))
    client = Client(store)
    rows = []
    base_times: list[float] = []
    for label, query in query_words():
        times = []
        answer: dict[str, object] = {}
        for _ in range(args.repeat):
            base_times.append(baseline(store))
            start = time.perf_counter()
            answer = client.ask("tools/call", {"name": "memory_search",
                                               "arguments": {"query": query}})  # fmt: skip
            times.append(time.perf_counter() - start)
        result = answer["result"]
        assert isinstance(result, dict) and not result["isError"], answer
        total = result["structuredContent"]["total"]
        rows.append((label, query, total, statistics.median(times)))
    client.close()
    base = statistics.median(base_times)
    print(f"store: {args.notes} notes ({store}); median of {args.repeat} runs each")
    print(f"baseline (read every file, a fresh process): {base * 1000:.0f} ms")
    for label, query, total, took in rows:
        print(
            f"memory_search {label:<13} {query!r:<24} {total:>6} hits  "
            f"{took * 1000:6.0f} ms  ({took / base:.2f}x baseline)"
        )
    if not args.keep:
        import shutil

        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
