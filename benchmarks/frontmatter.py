"""Frontmatter parser throughput, next to a decode-only baseline in the same run.

Reproduce:  python benchmarks/frontmatter.py [--notes N] [--repeat R]

The parser runs once per note in the doctor, so it must cost about as little as
decoding the note. Prints the median time per pass over N realistic notes for
(a) decoding the bytes and (b) decoding plus parsing, and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engramory.store.frontmatter import decode, parse_bytes

NOTE = """---
name: feedback-note-{i}
description: "A one-line hook for note {i}, quoted because it says \\"why\\""
type: feedback
scope: repo
created: 2026-09-10
updated: 2026-10-04
---

Body of note {i}: one durable fact, a few sentences long, in plain prose.

**Why:** the reason the rule exists, so exceptions can be judged.

**How to apply:** the concrete action to take next time.
"""


def timed(fn, notes: list[bytes], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for raw in notes:
            fn(raw)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    notes = [NOTE.format(i=i).encode() for i in range(args.notes)]
    baseline = timed(decode, notes, args.repeat)
    parsing = timed(parse_bytes, notes, args.repeat)
    print(f"python {sys.version.split()[0]}, {args.notes} notes, median of {args.repeat}")
    for label, seconds in (("decode only", baseline), ("decode + parse", parsing)):
        per_note = seconds / args.notes * 1e6
        print(f"{label:<18} {seconds * 1e3:8.1f} ms  ({per_note:.2f} us/note)")
    print(f"ratio              {parsing / baseline:8.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
