"""Time history snapshots and the listing (issue 37).

    python benchmarks/history.py --repeat 5            # add --check to exit 1 on a FAIL

Measured in-process (as the session-start hook runs it), each against reading
every file of the store (``os.walk`` + read) in the same run:
a 200-note store unchanged (target <= 60 ms) and with 3 notes changed
(<= 150 ms), a 10,000-note store unchanged and first snapshot (<= 1 s for
unchanged), and ``engramory history --format json`` over 1,000 snapshots
(<= 1 s, a real process). Median of --repeat runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engramory.history import location, snapshot  # noqa: E402


def make_store(root: Path, notes: int) -> Path:
    root.mkdir(parents=True)
    pointers = ["# Memory index", ""]
    for i in range(notes):
        slug = f"note-{i:05d}"
        (root / f"{slug}.md").write_text(
            f"---\nname: {slug}\ndescription: fact {i}\ntype: project\n---\n"
            + f"The fact {i}, said in a sentence or two of ordinary prose.\n" * 8
        )
        if i < 150:
            pointers.append(f"- [{slug}]({slug}.md) — fact {i}")
    (root / "MEMORY.md").write_text("\n".join(pointers) + "\n")
    return root


def read_all(root: Path) -> None:
    for folder, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                handle.read()


def timed(action, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def backdate(root: Path, paths: list[Path] | None = None, step: int = 0) -> None:
    """Files older than the racy window, as a store between sessions is (each round of
    changes ``step`` seconds later than the one before, as real edits are)."""
    old = time.time() - 7 * 86400 + step
    for path in root.rglob("*.md") if paths is None else paths:
        os.utime(path, (old, old))


def row(name: str, seconds: float, baseline: float, target: float | None) -> bool:
    verdict = "" if target is None else ("PASS" if seconds <= target else "FAIL")
    limit = "" if target is None else f"(<= {target * 1000:.0f} ms)"
    ratio = seconds / baseline if baseline else float("nan")
    print(f"{name:44} {seconds * 1000:8.1f} ms  x{ratio:6.1f} read-all  {limit:12} {verdict}")
    return verdict != "FAIL"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--snapshots", type=int, default=1000)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as temp:
        os.environ["ENGRAMORY_HISTORY_DIR"] = os.path.join(temp, "history")
        small = make_store(Path(temp) / "small", 200)
        backdate(small)
        place = location.place_of(str(small))
        first = timed(lambda: snapshot.take(place, "first"), 1)
        base = timed(lambda: read_all(small), args.repeat)
        ok &= row("200 notes: first snapshot", first, base, None)
        ok &= row(
            "200 notes: unchanged",
            timed(lambda: snapshot.take(place, "x"), args.repeat),
            base,
            0.060,
        )
        counter = [0]

        def change_three() -> None:
            counter[0] += 1
            changed = [small / f"note-{i:05d}.md" for i in range(3)]
            for path in changed:
                path.write_text(f"changed {counter[0]}\n")
            backdate(small, changed, counter[0])
            snapshot.take(place, "changed")

        ok &= row("200 notes: 3 changed", timed(change_three, args.repeat), base, 0.150)

        large = make_store(Path(temp) / "large", 10_000)
        backdate(large)
        big = location.place_of(str(large))
        base = timed(lambda: read_all(large), 1)
        ok &= row(
            "10,000 notes: first snapshot",
            timed(lambda: snapshot.take(big, "first"), 1),
            base,
            None,
        )
        ok &= row(
            "10,000 notes: unchanged",
            timed(lambda: snapshot.take(big, "x"), args.repeat),
            base,
            1.0,
        )

        many = make_store(Path(temp) / "many", 5)
        log_place = location.place_of(str(many))
        for i in range(args.snapshots):
            (many / "note-00000.md").write_text(f"version {i}\n")
            snapshot.take(log_place, f"step {i}")
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        command = [sys.executable, "-m", "engramory", "history", str(many), "--format", "json"]
        startup = timed(
            lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.repeat
        )
        listing = timed(
            lambda: subprocess.run(command, env=env, capture_output=True, check=True), args.repeat
        )
        ok &= row(f"history over {args.snapshots} snapshots (process)", listing, startup, 1.0)
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
