"""``engramory compact`` on an index at the doctor's read limit, next to a read-every-file baseline.

Reproduce (from the repository root):

    python benchmarks/compact.py [--repeat 3] [--seed 25] [--size-bytes 1048576]
                                 [--no-archive-cold] [--timeout S] [--repo PATH]
                                 [--keep] [--check]

One store is generated in a temporary directory (deleted at the end unless
``--keep``), the same bytes for the same ``--seed``: an index ``MEMORY.md``
just under the doctor's read limit (1 MiB, about 10,000 lines; smaller with
``--size-bytes``), half of its lines inline content and half pointer lines:

* inline content: ``###`` blocks of prose, bullets and small tables without a
  link, under ``## user``, ``## feedback`` (a few with ``**Why:**`` and
  ``**How to apply:**``), ``## project`` and ``## reference``, under other
  ``##`` headings, and whole ``##`` sections at the end; prose directly under
  the ``## project`` heading;
* pointer lines, grouped at the top of each section: one per note (every note
  exists, with a valid frontmatter and dates, and passes the doctor), in the
  forms ``[Title](slug.md)``, ``[Title](./slug.md)`` and ``[[slug]]``; one in
  50 a duplicate of an earlier line of its section (same note, another form
  and hook), one in 40 longer than 200 characters.

Only a few notes and blocks are of type ``user`` or ``feedback`` (which the
cold step never archives), so ``--archive-cold`` can bring the index under the
soft cap.

Each measurement runs in its own child process (``PYTHONPATH`` = ``--repo``,
default this checkout), alternately with the baseline, after one untimed
warm-up read, ``--repeat`` times:

* baseline: ``os.walk`` over the store reading every file (as in doctor.py);
* plan: ``python -m engramory compact STORE --archive-cold`` (nothing written:
  the tree is checked byte-identical afterwards);
* apply: ``python -m engramory compact STORE --archive-cold --apply`` on a fresh
  copy of the store each run (the copy is not timed);
* undo: ``python -m engramory compact --undo ID STORE`` on that copy (the ID
  read from the apply's output); the tree is checked byte-identical to the
  generated store afterwards.

``--no-archive-cold`` drops ``--archive-cold`` from the plan and the apply
(the index then stays over the cap: thousands of pointers remain). Each
command is killed after ``--timeout`` seconds (default 120) and counted as
failed, so a slow build reports instead of hanging.

After the first apply, ``engramory check STORE`` must exit 0 (within the soft
cap, with ``--archive-cold``) and ``engramory doctor STORE`` must report no
error; anything else is printed as a warning.

It prints the median wall time of each against the baseline, the ratio, the
peak memory (max RSS of the child, largest of the runs), then checks the
targets of issue 25 (absolute, for the development machine): plan < 1 s,
apply < 3 s. The exit status is 0 (it is a report) unless ``--check`` is
given and a target fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

READ_LIMIT = 1024 * 1024  # the doctor's read limit at the default caps: max(8 x 25000, 1 MiB)
DEFAULT_SEED = 25

# Targets (issue 25, "Speed"): absolute, on the development machine.
MAX_PLAN_S = 1.0
MAX_APPLY_S = 3.0

# Index layout.
TITLE = "# Memory index"
PREAMBLE = (
    "> One line per note; the sections below still hold text written straight into the index."
)
DUPLICATE_EVERY = 50  # one pointer line in 50 repeats an earlier note of its section
LONG_EVERY = 40  # one pointer line in 40 is longer than 200 characters
LONG_MIN = 210
# (heading, note type of its pointers, share of the byte budget); user and feedback
# are small and fixed (they are never archived by the cold step).
SECTIONS = (
    ("## project", "project", 0.25),
    ("## reference", "reference", 0.30),
    ("## Runbooks", "reference", 0.15),
    ("## Decisions", "reference", 0.15),
    ("## Services", "reference", 0.15),
)
USER_POINTERS = 8
USER_BLOCKS = 5
FEEDBACK_POINTERS = 8
FEEDBACK_WHY_BLOCKS = 4  # feedback blocks with Why and How to apply: they stay feedback
FEEDBACK_PLAIN_BLOCKS = 40  # feedback blocks without them: created as reference notes

# Made-up words, so no body trips a content rule (dates, secrets, personal data).
SYLLABLES = ("ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "gu", "ba", "ze", "vo", "xi")
VOCABULARY_SIZE = 3000


def vocabulary() -> list[str]:
    """``VOCABULARY_SIZE`` distinct made-up words, the same in every run."""
    pick = random.Random(25)
    words: set[str] = set()
    while len(words) < VOCABULARY_SIZE:
        words.add("".join(pick.choice(SYLLABLES) for _ in range(pick.randint(2, 4))))
    return sorted(words)


WORDS = vocabulary()


# --- generating the store --------------------------------------------------


@dataclass
class Store:
    """What was generated: the index, the notes (rel path -> text) and counts for the report."""

    index_lines: list[str] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)
    inline_lines: list[int] = field(default_factory=list)  # 1-based index line numbers
    pointer_lines: list[int] = field(default_factory=list)
    duplicates: int = 0
    long_lines: int = 0
    blocks: int = 0

    @property
    def index_text(self) -> str:
        return "\n".join(self.index_lines) + "\n"


class Writer:
    """Builds the index and its notes from one seeded generator."""

    def __init__(self, seed: int) -> None:
        self.pick = random.Random(seed)
        self.store = Store()
        self.serial = 0

    def words(self, count: int) -> str:
        return " ".join(self.pick.choice(WORDS) for _ in range(count))

    def sentence(self, count: int) -> str:
        text = self.words(count)
        return text[0].upper() + text[1:] + "."

    def next_serial(self) -> int:
        self.serial += 1
        return self.serial

    # notes and pointers

    def note(self, note_type: str) -> tuple[str, str]:
        """Write one valid note of ``note_type``; return its slug and title."""
        number = self.next_serial()
        title = f"{self.words(2).title()} {number}"
        slug = f"{note_type}-{title.lower().replace(' ', '-')}"
        created = f"2024-{self.pick.randint(1, 12):02d}-{self.pick.randint(1, 28):02d}"
        updated = f"2025-{self.pick.randint(1, 12):02d}-{self.pick.randint(1, 28):02d}"
        body = [self.sentence(self.pick.randint(12, 30))]
        if note_type in ("feedback", "project"):
            body.append(f"**Why:** {self.sentence(10)}")
            body.append(f"**How to apply:** {self.sentence(10)}")
        self.store.notes[f"{slug}.md"] = (
            f"---\nname: {slug}\n"
            f"description: {title}: {self.words(8)} (note {number})\n"
            f"type: {note_type}\nscope: {self.pick.choice(('repo', 'global'))}\n"
            f"created: {created}\nupdated: {updated}\n---\n\n" + "\n\n".join(body) + "\n"
        )
        return slug, title

    def pointer_line(self, slug: str, title: str, form: int, hook_words: int) -> str:
        link = (f"[{title}]({slug}.md)", f"[{title}](./{slug}.md)", f"[[{slug}]]")[form % 3]
        return f"- {link} — {self.words(hook_words)}"

    def pointers(self, note_type: str, budget: int) -> list[str]:
        """Pointer lines to new notes of ``note_type`` up to ``budget`` bytes (at least one)."""
        lines: list[str] = []
        made: list[tuple[str, str]] = []
        size = 0
        while not lines or size < budget:
            count = len(lines) + 1
            if count % DUPLICATE_EVERY == 0 and made:
                slug, title = self.pick.choice(made)
                line = self.pointer_line(slug, title, count + 1, 6)
                self.store.duplicates += 1
            else:
                slug, title = self.note(note_type)
                made.append((slug, title))
                line = self.pointer_line(slug, title, count, self.pick.randint(5, 10))
                if count % LONG_EVERY == 0:
                    while len(line) <= LONG_MIN:
                        line += " " + self.words(4)
                    self.store.long_lines += 1
            lines.append(line)
            size += len(line.encode("utf-8")) + 1
        return lines

    # inline blocks

    def block_body(self, why: bool) -> list[str]:
        """The lines under a block's heading: prose, bullets or a small table, no link."""
        shape = self.pick.randrange(3)
        lines = [self.sentence(self.pick.randint(18, 30))]
        if shape == 0:
            lines.append(self.sentence(self.pick.randint(18, 30)))
        elif shape == 1:
            lines.extend(f"- {self.words(self.pick.randint(8, 14))}" for _ in range(3))
        else:
            lines.append("| key | value |")
            lines.append("|---|---|")
            lines.extend(f"| {self.words(2)} | {self.words(9)} |" for _ in range(2))
        if why:
            lines.append(f"**Why:** {self.sentence(9)}")
            lines.append(f"**How to apply:** {self.sentence(9)}")
        return lines

    def block(self, level: str = "###", why: bool = False) -> list[str]:
        self.store.blocks += 1
        heading = f"{level} {self.words(3).title()} {self.next_serial()}"
        return [heading, *self.block_body(why)]

    def blocks(self, budget: int) -> list[str]:
        lines: list[str] = []
        size = 0
        while size < budget:
            block = self.block()
            lines.extend(block)
            size += sum(len(line.encode("utf-8")) + 1 for line in block)
        return lines

    # the index

    def add(self, lines: list[str], inline: bool) -> None:
        """Append ``lines`` to the index, recording their numbers as inline or pointer lines."""
        start = len(self.store.index_lines) + 1
        self.store.index_lines.extend(lines)
        numbers = range(start, start + len(lines))
        if inline:
            self.store.inline_lines.extend(numbers)
        else:
            self.store.pointer_lines.extend(numbers)

    def section(self, heading: str, pointers: list[str], blocks: list[str]) -> None:
        self.store.index_lines.append(heading)
        self.add(pointers, inline=False)
        self.add(blocks, inline=True)
        self.store.index_lines.append("")


def size_of(lines: list[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def generate(root: Path, seed: int = DEFAULT_SEED, size_bytes: int = READ_LIMIT) -> Store:
    """Write the store to ``root`` (created); its index is at most ``size_bytes`` bytes."""
    writer = Writer(seed)
    store = writer.store
    store.index_lines.extend([TITLE, "", PREAMBLE, ""])
    user_blocks = [line for _ in range(USER_BLOCKS) for line in writer.block()]
    writer.section("## user", writer.pointers("user", USER_POINTERS * 100), user_blocks)
    feedback_blocks = [
        line
        for k in range(FEEDBACK_WHY_BLOCKS + FEEDBACK_PLAIN_BLOCKS)
        for line in writer.block(why=k < FEEDBACK_WHY_BLOCKS)
    ]
    feedback_pointers = writer.pointers("feedback", FEEDBACK_POINTERS * 100)
    writer.section("## feedback", feedback_pointers, feedback_blocks)
    tail = [*writer.block("##"), "", *writer.block("##")]
    budget = size_bytes - size_of(store.index_lines) - size_of(tail)
    for number, (heading, note_type, share) in enumerate(SECTIONS):
        room = size_bytes - size_of(store.index_lines) - size_of(tail)
        part = room if number == len(SECTIONS) - 1 else int(budget * share)
        part -= len(heading) + 2  # the heading and the blank line after the section
        pointers = writer.pointers(note_type, part // 2)
        blocks = writer.blocks(part - size_of(pointers) - 400)
        group = heading
        if heading == "## project":  # prose right under a type heading, pointers under ###
            writer.store.index_lines.append(heading)
            writer.add([writer.sentence(20)], inline=True)
            group = "### Project notes"
        while blocks and size_of(pointers) + size_of(blocks) > part:
            del blocks[-1]
        while blocks and blocks[-1].startswith("#"):
            del blocks[-1]  # never end on a heading with nothing under it
        writer.section(group, pointers, blocks)
    writer.add(tail, inline=True)
    store.inline_lines = [n for n in store.inline_lines if store.index_lines[n - 1].strip()]
    root.mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_bytes(store.index_text.encode("utf-8"))
    for rel, text in store.notes.items():
        (root / rel).write_bytes(text.encode("utf-8"))
    return store


def tree_digest(root: Path) -> str:
    """SHA-256 over every file's relative path and bytes (directories included by name)."""
    digest = hashlib.sha256()
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(directory, root)
        digest.update(f"d {rel}\n".encode())
        for name in sorted(files):
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                data = handle.read()
            digest.update(f"f {rel}/{name} {len(data)}\n".encode())
            digest.update(data)
    return digest.hexdigest()


# --- measuring -------------------------------------------------------------

BASELINE = """\
import os, sys
total = 0
for directory, _dirs, files in os.walk(sys.argv[1]):
    for name in files:
        with open(os.path.join(directory, name), "rb") as f:
            total += len(f.read())
print(total)
"""

# Runs the real command (argv[2:]) with its stdout in the file argv[1]; prints
# its wall time and peak RSS. The wrapper has no other child, so
# RUSAGE_CHILDREN is exactly the command's.
WRAPPER = """\
import json, resource, subprocess, sys, time
with open(sys.argv[1], "wb") as out:
    start = time.perf_counter()
    code = subprocess.call(sys.argv[2:], stdout=out)
    wall = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "code": code, "rss": rss}))
"""
RSS_UNIT = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, else KiB
UNDO_ID = re.compile(r"--undo\s+(\S+)")


@dataclass(frozen=True)
class Run:
    """One measured child: wall time (s), exit code, peak RSS (bytes)."""

    wall: float
    code: int
    peak: int
    error: str = ""  # the first line the command wrote to stderr


@dataclass
class Series:
    """The runs of one command."""

    label: str
    runs: list[Run] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(r.wall for r in self.runs)

    @property
    def peak_mb(self) -> float:
        return max(r.peak for r in self.runs) / (1024 * 1024)

    @property
    def ran(self) -> bool:
        """Whether every run finished as a compaction may (0 or 1, not a usage or input error)."""
        return bool(self.runs) and all(r.code in (0, 1) for r in self.runs)


def child_env(repo: Path) -> dict[str, str]:
    """The environment for every child: ``repo`` importable, no ENGRAMORY_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(repo), env.get("PYTHONPATH"))))
    return env


def measure(command: list[str], stdout: Path, repo: Path, timeout: float = 3600) -> Run:
    """Run ``command`` under the wrapper; its stdout goes to ``stdout``.

    Past ``timeout`` seconds the wrapper and the command are killed (their own
    session) and the run is recorded with code -1.
    """
    with subprocess.Popen(
        [sys.executable, "-c", WRAPPER, str(stdout), *command],
        env=child_env(repo),
        cwd=repo,  # python -m puts the working directory first on sys.path
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as child:
        try:
            out, err = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            return Run(timeout, -1, 0, f"timed out after {timeout:g} s (killed)")
    figures = json.loads(out)
    error = (err.strip().splitlines() or [""])[0][:200]
    return Run(figures["wall"], figures["code"], figures["rss"] * RSS_UNIT, error)


def engramory(*args: str) -> list[str]:
    return [sys.executable, "-m", "engramory", *args]


def undo_id(output: Path, store: Path) -> str | None:
    """The backup ID an apply printed (``undo: engramory compact --undo ID``), else the only one."""
    text = output.read_text(encoding="utf-8", errors="replace")
    found = UNDO_ID.search(text)
    if found:
        return found.group(1)
    backups = store / ".engramory" / "backup"
    names = sorted(p.name for p in backups.iterdir()) if backups.is_dir() else []
    return names[0] if len(names) == 1 else None


def sanity_after_apply(store: Path, repo: Path, out: Path, cold: bool) -> list[str]:
    """``check`` within the soft cap (with the cold step) and no doctor error; else warnings."""
    warnings = []
    check = subprocess.run(
        engramory("check", str(store)),
        env=child_env(repo),
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if check.returncode != 0:
        line = check.stdout.strip().splitlines()[:1] or [check.stderr.strip()[:200]]
        message = f"after apply, check exited {check.returncode}: {line[0]}"
        warnings.append(message if cold else message + " (expected without --archive-cold)")
    doctor = measure(engramory("doctor", str(store), "--format", "json"), out, repo)
    try:
        report = json.loads(out.read_text(encoding="utf-8"))
    except ValueError as exc:
        return [*warnings, f"after apply, doctor output is not JSON: {exc}"]
    expected = () if cold else ("index-over-hard-cap",)  # without the cold step it stays over
    errors = sorted(
        {
            f["rule"]
            for f in report.get("findings", [])
            if f["severity"] == "error" and f["rule"] not in expected
        }
    )
    if errors:
        warnings.append(f"after apply, doctor errors (exit {doctor.code}): {', '.join(errors)}")
    return warnings


@dataclass
class Bench:
    """Everything measured on the store."""

    baseline: Series = field(default_factory=lambda: Series("baseline"))
    plan: Series = field(default_factory=lambda: Series("plan"))
    apply: Series = field(default_factory=lambda: Series("apply"))
    undo: Series = field(default_factory=lambda: Series("undo"))
    warnings: list[str] = field(default_factory=list)

    def warn_once(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


def bench(store: Path, work: Path, args: argparse.Namespace) -> Bench:
    """Warm the cache, then baseline, plan, apply and undo alternately ``repeat`` times."""
    repo, out, limit = args.repo, work / "out.txt", args.timeout
    cold = ("--archive-cold",) if args.archive_cold else ()
    result = Bench()
    original = tree_digest(store)
    measure([sys.executable, "-c", BASELINE, str(store)], out, repo)  # untimed warm-up read
    for attempt in range(args.repeat):
        result.baseline.runs.append(
            measure([sys.executable, "-c", BASELINE, str(store)], out, repo)
        )
        run = measure(engramory("compact", str(store), *cold), out, repo, limit)
        result.plan.runs.append(run)
        if run.code == -1:
            result.warn_once(f"plan {run.error}; not repeated")
            break
        if run.code != 1:  # 1: something to do
            result.warn_once(f"plan exited {run.code}, expected 1: {run.error or first_line(out)}")
        if tree_digest(store) != original:
            result.warn_once("the plan changed the store (it must write nothing)")
            break
        copy = work / f"apply-{attempt}"
        shutil.copytree(store, copy, symlinks=True)
        run = measure(engramory("compact", str(copy), *cold, "--apply"), out, repo, limit)
        result.apply.runs.append(run)
        if run.code not in (0, 1):
            result.warn_once(f"apply exited {run.code}: {run.error or first_line(out)}")
            continue
        if cold and run.code != 0:
            result.warn_once(f"apply exited {run.code}: still over the soft cap")
        ident = undo_id(out, copy)
        if attempt == 0:
            result.warnings.extend(sanity_after_apply(copy, repo, work / "doctor.json", bool(cold)))
        if ident is None:
            result.warn_once("no undo ID in the apply's output")
            continue
        run = measure(engramory("compact", "--undo", ident, str(copy)), out, repo, limit)
        result.undo.runs.append(run)
        if run.code != 0:
            result.warn_once(f"undo exited {run.code}: {run.error or first_line(out)}")
        elif tree_digest_without_backups(copy) != original:
            new = directories(copy) - directories(store)
            extra = sorted(d for d in new if d.split("/")[0] != ".engramory")
            left = f" (directories left: {', '.join(extra)})" if extra else ""
            result.warn_once(f"after undo the store differs from the generated one{left}")
        shutil.rmtree(copy, ignore_errors=True)
    return result


def directories(root: Path) -> set[str]:
    """Every directory under ``root``, relative, ``/``-separated (hidden ones included)."""
    return {
        os.path.relpath(os.path.join(top, name), root).replace(os.sep, "/")
        for top, dirs, _files in os.walk(root)
        for name in dirs
    }


def tree_digest_without_backups(store: Path) -> str:
    """The digest of ``store`` with the tool's own ``.engramory/`` folder set aside."""
    own = store / ".engramory"
    aside = store.parent / f"{store.name}.engramory-aside"
    if own.exists():
        own.rename(aside)
    try:
        return tree_digest(store)
    finally:
        if aside.exists():
            aside.rename(own)


def first_line(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    return (text.splitlines() or ["(no output)"])[0][:200]


# --- reporting -------------------------------------------------------------


def report(result: Bench, store: Store, index_bytes: int, args: argparse.Namespace) -> bool:
    """Print the table, warnings and targets; return whether every target passed."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    base = result.baseline.median
    lines = [
        f"python {sys.version.split()[0]}, {cpus} CPU(s) — median of {args.repeat} "
        f"run{'s' if args.repeat > 1 else ''}, warm cache (peak = largest of the runs)",
        f"repo {args.repo}; flags: {'--archive-cold' if args.archive_cold else '(none)'}",
        f"store: index {index_bytes:,} bytes, {len(store.index_lines):,} lines "
        f"({len(store.inline_lines):,} inline in {store.blocks:,} blocks, "
        f"{len(store.pointer_lines):,} pointer lines: {store.duplicates} duplicates, "
        f"{store.long_lines} over 200 characters); {len(store.notes):,} notes",
        f"{'':<9} {'median':<9} {'ratio':<8} peak MB",
        f"{'baseline':<9} {base:<9.3f} {'1.0x':<8} {result.baseline.peak_mb:.0f}",
    ]
    for series in (result.plan, result.apply, result.undo):
        if series.runs:
            ratio = f"{series.median / base:.1f}x"
            lines.append(f"{series.label:<9} {series.median:<9.3f} {ratio:<8} {series.peak_mb:.0f}")
        else:
            lines.append(f"{series.label:<9} (not measured)")
    lines.extend(f"warning: {w}" for w in result.warnings)
    checks = [
        target("plan", result.plan, MAX_PLAN_S, base),
        target("apply", result.apply, MAX_APPLY_S, base),
    ]
    lines.append("")
    lines.extend(f"{'PASS' if ok else 'FAIL'}  {text}" for text, ok in checks)
    print("\n".join(lines))
    return all(ok for _text, ok in checks)


def target(label: str, series: Series, limit: float, base: float) -> tuple[str, bool]:
    if not series.runs:
        return f"{label} < {limit:g} s (not measured)", False
    median = series.median
    if not series.ran:
        why = next((r.error for r in series.runs if r.code == -1), "")
        codes = ", ".join(str(c) for c in sorted({r.code for r in series.runs}))
        return f"{label} < {limit:g} s ({why or f'exit {codes}'}: not a result)", False
    text = f"{label} < {limit:g} s ({median:.2f} s, {median / base:.1f}x baseline)"
    return text, median < limit


# --- main ------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (default: 3)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="generator seed")
    parser.add_argument(
        "--size-bytes",
        type=int,
        default=READ_LIMIT,
        help=f"the index's size at most (default: the read limit, {READ_LIMIT})",
    )
    parser.add_argument(
        "--no-archive-cold",
        dest="archive_cold",
        action="store_false",
        help="plan and apply without --archive-cold",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        default=REPO_ROOT,
        help="the checkout whose engramory package is run (default: this one)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds after which one command is killed and counted as failed (default: 120)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the generated store")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.size_bytes < 20_000:
        parser.error("--size-bytes must be at least 20000")
    if not (args.repo / "engramory" / "__init__.py").is_file():
        parser.error(f"--repo {args.repo}: no engramory package there")
    args.repo = args.repo.resolve()
    return args


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> int:
    args = parse_args()
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="engramory-compact-bench-"))
    try:
        root = work / "store"
        tick = time.perf_counter()
        store = generate(root, args.seed, args.size_bytes)
        index_bytes = (root / "MEMORY.md").stat().st_size
        progress(f"generated in {time.perf_counter() - tick:.1f} s, measuring")
        result = bench(root, work, args)
    finally:
        if args.keep:
            progress(f"store kept in {work / 'store'}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    passed = report(result, store, index_bytes, args)
    print(f"\nbenchmark wall time {time.perf_counter() - started:.0f} s")
    return 1 if args.check and not passed else 0


if __name__ == "__main__":
    raise SystemExit(main())
