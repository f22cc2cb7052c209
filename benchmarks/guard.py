"""Cost of the index guard hook on every tool call, next to the interpreter's own start-up.

Reproduce (from the repository root):

    python benchmarks/guard.py [--runs 40] [--python /path/to/python3]

The hook runs before every edit an agent makes, on any file, so its floor is
the interpreter start-up. In one run, this script measures the median wall
time of:

* ``python -I -S -c pass`` and ``python -c pass`` (the floors, with and
  without isolation and site-packages);
* the hook as the installer registers it (``python -I -S
  hooks/engramory_index_guard.py --index STORE/MEMORY.md``) on: a Write to
  another file, a Bash command that cannot write, a Bash command that writes
  elsewhere (parsed in full), an Edit of a 150-line index, a Write of 250
  lines to the index (denied), and a Bash command that writes it (denied);
* the same non-index Write with the hook registered the way the earlier
  implementation was (``python script.py``: site-packages imported).

Targets: non-index Write and non-index Bash <= 1.5x ``python -I -S -c pass``;
index paths (the Edit and the denied Write) <= 2x. Prints PASS/FAIL per
target; exit 0 unless ``--check``. A Bash command that may write something has
no target: it is parsed in full (:mod:`engramory.guard.shellparse`, no ``re``),
and the rows show that cost.
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

REPO = Path(__file__).resolve().parent.parent
HOOK = REPO / "hooks" / "engramory_index_guard.py"


def median_time(argv: list[str], stdin: bytes, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, check=False)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def payloads(store: Path) -> dict[str, bytes]:
    index = store / "MEMORY.md"
    index.write_text("".join(f"- [note {i}](note-{i}.md) — a hook\n" for i in range(150)))
    cases = {
        "non-index Write": {
            "tool_name": "Write",
            "tool_input": {"file_path": str(store.parent / "app.py"), "content": "print(1)\n" * 50},
        },
        "non-index Bash": {"tool_name": "Bash", "tool_input": {"command": "pytest -q tests/"}},
        "Bash writing elsewhere": {
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q tests/ 2>&1 | tee build.log > /dev/null"},
        },
        "Edit of a 150-line index": {
            "tool_name": "Edit",
            "tool_input": {
                "file_path": str(index),
                "old_string": "note 3]",
                "new_string": "note three]",
            },
        },
        "denied 250-line Write": {
            "tool_name": "Write",
            "tool_input": {"file_path": str(index), "content": "- [x](x.md)\n" * 250},
        },
        "denied Bash write": {
            "tool_name": "Bash",
            "tool_input": {"command": f"echo '- [y](y.md)' >> {index}"},
        },
    }
    return {name: json.dumps(payload).encode() for name, payload in cases.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    args = parser.parse_args()
    py = args.python
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        store.mkdir()
        cases = payloads(store)
        floor = median_time([py, "-I", "-S", "-c", "pass"], b"", args.runs)
        rows = [
            ("python -I -S -c pass", floor),
            ("python -c pass", median_time([py, "-c", "pass"], b"", args.runs)),
        ]
        hook = [py, "-I", "-S", str(HOOK), "--index", str(store / "MEMORY.md")]
        for name, stdin in cases.items():
            rows.append((f"hook: {name}", median_time(hook, stdin, args.runs)))
        rows.append(
            (
                "hook as `python script.py`: non-index Write",
                median_time([py, str(HOOK)], cases["non-index Write"], args.runs),
            )
        )
    version = subprocess.run(
        [py, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(f"{version}, median of {args.runs} runs")
    for name, seconds in rows:
        print(f"{name:<48} {seconds * 1000:7.1f} ms  {seconds / floor:5.2f}x floor")
    limits = {
        "hook: non-index Write": 1.5,
        "hook: non-index Bash": 1.5,
        "hook: Edit of a 150-line index": 2.0,
        "hook: denied 250-line Write": 2.0,
    }
    failed = False
    print()
    for name, seconds in rows:
        if name in limits:
            ratio = seconds / floor
            ok = ratio <= limits[name]
            failed |= not ok
            print(f"{'PASS' if ok else 'FAIL'}  {name} <= {limits[name]}x floor ({ratio:.2f}x)")
    return 1 if failed and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
