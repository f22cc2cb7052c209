"""``engramory doctor`` on large generated stores, next to a read-every-file baseline.

Reproduce (from the repository root):

    python benchmarks/doctor.py [--sizes 1000,10000,100000] [--repeat 3] [--jobs N]
                                [--variants valid,broken,runaway] [--parse-runaway]
                                [--breakdown] [--cache] [--keep] [--check]

For each size, two stores are generated in a temporary directory (deleted at
the end unless ``--keep``):

* ``valid``: every note valid. The index stays under its soft cap (150
  lines), so it points to a few notes of each type and to "hub" notes whose
  bodies list up to 400 ``[[slug]]`` links; every note is reachable.
* ``broken``: the same, with about 10% of the notes broken in ten ways in
  equal shares (no frontmatter, a malformed frontmatter line, no description,
  ``type: Feedback``, a date ``2026-13-45``, a feedback note without Why, an
  orphan, a ``[[link]]`` to a missing note, a note in ``topics/``, a key set
  twice), plus index pointers to missing files and one to ``../escape.md``,
  and one note in a hundred a near-duplicate of the next one (its body
  copied with one word changed: ``near-duplicate``).
* ``runaway``: the broken store's notes under an index that lists every note,
  one pointer line each (the runaway index the doctor exists to catch), with
  one pointer in ten naming a file that does not exist. Such an index passes
  the doctor's parse limit (max(8 x hard bytes, 1 MiB)) at about 12,000
  lines: at 10k notes it is parsed and every pointer resolved, at 100k it is
  reported as too large, unparsed. ``--parse-runaway`` checks this store with
  ``--hard-bytes`` raised to an eighth of the index's size, so that every
  pointer is resolved at every size (the worst case, past the default limit).

Every body is made of words drawn from a made-up vocabulary by a generator
seeded with the note's number, so distinct notes share almost no word
3-grams (as distinct notes of a real store do) and the near-duplicate search
does its real work: every note fingerprinted, every shared key checked.

Each store is measured in the same run, each measurement in its own child
process, baseline and doctor alternately after one untimed warm-up read (so
both see a warm page cache):

* baseline: ``os.walk`` over the store reading every file, the least any
  validator pays;
* doctor: ``python -m engramory doctor STORE --format json`` (``--jobs N``
  when given: ``--jobs 1`` measures a single process; by default the doctor
  uses one worker process per CPU on stores of 4,000 notes or more, on Linux).

With ``--breakdown``, each valid store is also checked with parts of the
catalogue switched off, each subset run alternately with the baseline, to
show what each part costs: no rule at all (``--select no-index``: walk, read,
parse, links and report, the floor), the catalogue without the content rules
of issue 14, without ``near-duplicate`` alone, without ``secret-value`` alone
(every rule's time less this one is the secret scan's), every rule, and every
rule in one process (``--jobs 1``).

With ``--cache``, each store is also measured with the doctor's result cache
(issue 35), alternately with the baseline: *cold* (an empty cache folder: every
note checked, and the cache written), *warm* (nothing changed since: no note
is read), and *1% edited* (a line appended to one note in a hundred, then the
doctor run on the warm cache). Those runs go through a small script that calls
``engramory.cli.main`` and records the peak RSS of the doctor's own process
(``RUSAGE_SELF``) and of its largest worker (``RUSAGE_CHILDREN``); the report
of each cached run is compared byte for byte with an uncached one. The other
measurements run with ``ENGRAMORY_NO_CACHE=1``: they are first runs.

What runs: the source tree on ``PYTHONPATH`` with its bytecode compiled first
(``compileall``), which is what an installed wheel runs (``.pyc`` present), not
a wheel installed into a virtual environment.

It prints the median wall time of ``--repeat`` runs of each, their ratio,
the doctor's peak memory (max RSS of the child, largest of the runs), then
checks the targets: doctor <= 3x baseline at every size; linear growth (the
doctor's time grows at most 1.2x the note count between the two largest
sizes, i.e. <= 12x from 10k to 100k); peak memory <= 150 MB at the largest
size. The exit status is 0 (it is a report) unless ``--check`` is given and a
target fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

VALID = "valid"
BROKEN = "broken"
RUNAWAY = "runaway"
VARIANTS = (VALID, BROKEN, RUNAWAY)
TYPES = ("user", "feedback", "project", "reference")
NEEDS_WHY = ("feedback", "project")
TOPICS = (
    "deploy",
    "billing",
    "search",
    "auth",
    "logging",
    "invoices",
    "tests",
    "migrations",
    "caching",
    "releases",
    "oncall",
    "api",
    "storage",
)

# Near-duplicates (broken and runaway stores): note i copies note i + 1's body, one
# word changed, when i % NEAR_EVERY == NEAR_SLOT (never a note broken otherwise).
NEAR_EVERY = 100
NEAR_SLOT = 37
NEAR_CHANGED_WORD = 7  # the word of the first sentence that differs in the copy

# Body text: words drawn from a made-up vocabulary, seeded by the note's number.
VOCABULARY_SIZE = 5000
SYLLABLES = ("ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "gu", "ba", "ze", "vo", "xi")

# Store layout.
LINKS_PER_HUB = 400  # [[slug]] lines in one hub note's body
INDEXED_HUBS = 100  # hubs the index points to; the rest are linked from these
DIRECT_PER_TYPE = 5  # ordinary notes the index points to under each ## type
MISSING_POINTERS = 3  # broken store: index pointers to files that do not exist
NESTED_DIR = "topics"

# Broken store: content note i is broken when i % 10 == BROKEN_SLOT, in the
# way BREAKAGES[(i // 10) % 10], so each kind gets an equal share of ~1%.
BROKEN_SLOT = 5
NO_FRONTMATTER = "no-frontmatter"
MALFORMED_LINE = "malformed-line"
NO_DESCRIPTION = "no-description"
BAD_TYPE = "bad-type"
BAD_DATE = "bad-date"
NO_WHY = "no-why"
ORPHAN = "orphan"
MISSING_LINK = "missing-wikilink"
NESTED = "nested"
DUPLICATE_KEY = "duplicate-key"
BREAKAGES = (
    NO_FRONTMATTER,
    MALFORMED_LINE,
    NO_DESCRIPTION,
    BAD_TYPE,
    BAD_DATE,
    NO_WHY,
    ORPHAN,
    MISSING_LINK,
    NESTED,
    DUPLICATE_KEY,
)
# The rules the broken store must make the doctor report (sanity check).
EXPECTED_RULES = frozenset(
    {
        "no-frontmatter",
        "frontmatter-syntax",
        "missing-field",
        "invalid-type",
        "invalid-date",
        "missing-why",
        "orphan",
        "wikilink-missing",
        "nested-note",
        "duplicate-key",
        "pointer-missing",
        "pointer-escapes-store",
        "near-duplicate",
    }
)

# The rules the runaway store must make the doctor report: its index is over
# the hard cap and lists deleted notes when it is parsed, too large when not.
RUNAWAY_RULES = frozenset({"index-over-hard-cap", "pointer-missing"})
RUNAWAY_UNPARSED_RULES = frozenset({"index-too-large"})
RUNAWAY_BROKEN_EVERY = 10  # one index pointer in ten names a deleted note
DEFAULT_HARD_BYTES = 25000

# Targets.
MAX_RATIO = 3.0
GROWTH_SLACK = 1.2  # allowed time growth = 1.2 x the growth in notes
MAX_PEAK_MB = 150.0

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


# --- generating the stores -------------------------------------------------


@dataclass(frozen=True)
class NotePlan:
    """One content note: its slug, type, breakage (``""`` when valid) and link target."""

    index: int
    slug: str
    note_type: str
    breakage: str
    neighbour: str = ""
    source: int = -1  # the note whose body this one nearly copies (-1: none)

    @property
    def rel(self) -> str:
        return f"{NESTED_DIR}/{self.slug}.md" if self.breakage == NESTED else f"{self.slug}.md"


@dataclass
class StorePlan:
    """A whole store: content notes, hub notes (slug -> linked slugs) and the index."""

    notes: list[NotePlan]
    hubs: dict[str, list[str]] = field(default_factory=dict)
    index: str = ""
    doctor_flags: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return len(self.notes) + len(self.hubs)


def breakage_of(i: int, variant: str) -> str:
    if variant != BROKEN or i % 10 != BROKEN_SLOT:
        return ""
    return BREAKAGES[(i // 10) % len(BREAKAGES)]


def source_of(i: int, count: int, variant: str) -> int:
    """The note whose body note ``i`` nearly copies (-1: none; broken stores only)."""
    if variant != BROKEN or i % NEAR_EVERY != NEAR_SLOT or i + 1 >= count:
        return -1
    return i + 1


def plan_notes(count: int, variant: str) -> list[NotePlan]:
    """The content notes, each linking one neighbour that is never an orphan (a near copy
    links the same neighbour as the note it copies)."""
    bare = []
    for i in range(count):
        breakage = breakage_of(i, variant)
        note_type = "feedback" if breakage == NO_WHY else TYPES[i % len(TYPES)]
        slug = f"{note_type}-{TOPICS[i % len(TOPICS)]}-{i:06d}"
        bare.append(NotePlan(i, slug, note_type, breakage, source=source_of(i, count, variant)))
    planned = []
    for note in bare:
        j = (max(note.index, note.source) + 1) % count
        if bare[j].breakage == ORPHAN:
            j = (j + 1) % count
        planned.append(
            NotePlan(
                note.index, note.slug, note.note_type, note.breakage, bare[j].slug, note.source
            )
        )
    return planned


def hub_count(total: int) -> int:
    """Hubs needed so that hubs plus content notes make ``total`` notes."""
    return max(1, -(-total // (LINKS_PER_HUB + 1)))


def plan_hubs(notes: list[NotePlan], count: int) -> dict[str, list[str]]:
    """Hub slug -> the slugs it links: every non-orphan note, then the unindexed hubs."""
    linked = [n.slug for n in notes if n.breakage != ORPHAN]
    share = -(-len(linked) // count)  # at most LINKS_PER_HUB
    names = [f"hub-{k + 1:04d}" for k in range(count)]
    hubs = {name: linked[k * share : (k + 1) * share] for k, name in enumerate(names)}
    for k in range(INDEXED_HUBS, count):
        hubs[names[k % INDEXED_HUBS]].append(names[k])
    return hubs


def index_text(notes: list[NotePlan], hubs: dict[str, list[str]], variant: str) -> str:
    """MEMORY.md: a few direct pointers per type, then the indexed hubs under ## reference."""
    lines = [
        "# Memory index",
        "",
        "> Pointers only: one line per note. Hub notes list the rest as [[links]].",
        "",
    ]
    for note_type in TYPES:
        lines.append(f"## {note_type}")
        direct = [n for n in notes if n.note_type == note_type and not n.breakage]
        for note in direct[:DIRECT_PER_TYPE]:
            topic = note.slug.split("-")[1]
            title = f"{topic.title()} {note_type} note"
            lines.append(f"- [{title}]({note.rel}) — open it for {topic} work")
        lines.append("")
    for name in list(hubs)[:INDEXED_HUBS]:
        lines.append(f"- [Table of contents {name[4:]}]({name}.md) — find a note by its slug")
    if variant == BROKEN:
        for k in range(MISSING_POINTERS):
            lines.append(f"- [Deleted note {k + 1}](gone-{k + 1}.md) — its file was removed")
        lines.append("- [Outside the store](../escape.md) — must never be followed")
    return "\n".join(lines) + "\n"


def runaway_index_text(notes: list[NotePlan], hubs: dict[str, list[str]]) -> str:
    """MEMORY.md listing every note, one pointer per line; one in ten names a deleted note."""
    rels = [note.rel for note in notes] + [f"{name}.md" for name in hubs]
    lines = ["# Memory index", ""]
    for k, rel in enumerate(rels):
        if k % RUNAWAY_BROKEN_EVERY == RUNAWAY_BROKEN_EVERY - 1:
            lines.append(f"- [Deleted note {k}](gone-{k:06d}.md) — its file was removed")
        lines.append(f"- [{rel[:-3]}]({rel}) — open it when this topic comes up")
    return "\n".join(lines) + "\n"


def plan_store(total: int, variant: str, parse_whole_index: bool = False) -> StorePlan:
    hubs_needed = hub_count(total)
    notes = plan_notes(total - hubs_needed, BROKEN if variant == RUNAWAY else variant)
    hubs = plan_hubs(notes, hubs_needed)
    if variant == RUNAWAY:
        index = runaway_index_text(notes, hubs)
        if not parse_whole_index:
            return StorePlan(notes, hubs, index)
        hard_bytes = max(DEFAULT_HARD_BYTES, -(-len(index.encode("utf-8")) // 8))
        return StorePlan(notes, hubs, index, ("--hard-bytes", str(hard_bytes)))
    return StorePlan(notes, hubs, index_text(notes, hubs, variant))


def frontmatter_lines(note: NotePlan) -> list[str]:
    """The frontmatter lines (between the fences), with the note's breakage applied."""
    i = note.index
    topic = note.slug.split("-")[1]
    created = f"2025-{i % 12 + 1:02d}-{i % 28 + 1:02d}"
    updated = f"2026-{i % 10 + 1:02d}-{i % 28 + 1:02d}"
    lines = [
        f"name: {note.slug}",
        f"description: When working on {topic}: the {note.note_type} fact number {i}",
        f"type: {'Feedback' if note.breakage == BAD_TYPE else note.note_type}",
        f"scope: {'global' if i % 3 == 0 else 'repo'}",
        f"created: {'2026-13-45' if note.breakage == BAD_DATE else created}",
        f"updated: {updated}",
    ]
    if note.breakage == NO_DESCRIPTION:
        del lines[1]
    elif note.breakage == MALFORMED_LINE:
        lines.insert(3, "this line has no colon at all")
    elif note.breakage == DUPLICATE_KEY:
        lines.append(f"updated: {created}")
    return lines


def vocabulary() -> list[str]:
    """``VOCABULARY_SIZE`` distinct made-up words, the same in every run."""
    pick = random.Random(14)
    words: set[str] = set()
    while len(words) < VOCABULARY_SIZE:
        words.add("".join(pick.choice(SYLLABLES) for _ in range(pick.randint(2, 4))))
    return sorted(words)


WORDS = vocabulary()


def words_of(seed: int, count: int) -> list[str]:
    pick = random.Random(seed)
    return [pick.choice(WORDS) for _ in range(count)]


def body_text(note: NotePlan) -> str:
    """A body of a few hundred bytes; feedback and project notes carry Why and How to apply.

    The words come from a generator seeded with the note's number, or with the
    number of the note it nearly copies (then one word differs).
    """
    number = note.index if note.source < 0 else note.source
    topic = TOPICS[number % len(TOPICS)]
    first = words_of(3 * number, 30)
    if note.source >= 0:
        first[NEAR_CHANGED_WORD] = "revised"
    parts = [f"The {topic} rule: {' '.join(first)}; related: [[{note.neighbour}]]."]
    if note.note_type in NEEDS_WHY:
        if note.breakage != NO_WHY:
            parts.append(f"**Why:** {' '.join(words_of(3 * number + 1, 14))}.")
        parts.append(f"**How to apply:** {' '.join(words_of(3 * number + 2, 14))}.")
    if note.breakage == MISSING_LINK:
        parts.append(f"See also [[not-written-yet-{note.index}]].")
    return "\n\n".join(parts) + "\n"


def note_text(note: NotePlan) -> str:
    if note.breakage == NO_FRONTMATTER:
        return f"# {note.slug}\n\n{body_text(note)}"
    return "---\n" + "\n".join(frontmatter_lines(note)) + "\n---\n\n" + body_text(note)


def hub_text(name: str, links: list[str], position: int, count: int) -> str:
    listing = "\n".join(f"- [[{slug}]]" for slug in links)
    return (
        f"---\nname: {name}\n"
        f"description: Table of contents {position} of {count}: open it to find a note by slug\n"
        "type: reference\nscope: repo\ncreated: 2025-01-01\nupdated: 2026-01-01\n---\n\n"
        f"Part {position} of {count} of the table of contents: one linked note per line.\n\n"
        f"{listing}\n"
    )


def write_store(root: Path, plan: StorePlan) -> None:
    (root / NESTED_DIR).mkdir(parents=True)
    (root / "MEMORY.md").write_text(plan.index, encoding="utf-8")
    for note in plan.notes:
        (root / note.rel).write_text(note_text(note), encoding="utf-8")
    for position, (name, links) in enumerate(plan.hubs.items(), 1):
        text = hub_text(name, links, position, len(plan.hubs))
        (root / f"{name}.md").write_text(text, encoding="utf-8")


# --- measuring -----------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One measured child: wall time (s), exit code, peak RSS (bytes)."""

    wall: float
    code: int
    peak: int


@dataclass
class Result:
    """The runs of the baseline and the doctor on one store."""

    notes: int
    variant: str
    baseline: list[Run] = field(default_factory=list)
    doctor: list[Run] = field(default_factory=list)
    findings: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def baseline_time(self) -> float:
        return statistics.median(r.wall for r in self.baseline)

    @property
    def doctor_time(self) -> float:
        return statistics.median(r.wall for r in self.doctor)

    @property
    def ratio(self) -> float:
        return self.doctor_time / self.baseline_time

    @property
    def peak_mb(self) -> float:
        return max(r.peak for r in self.doctor) / (1024 * 1024)


def child_env(cache: Path | None = None) -> dict[str, str]:
    """The environment for the children: the repository importable, no ENGRAMORY_* settings
    but the doctor's result cache in ``cache`` (``None``: switched off)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(REPO_ROOT), env.get("PYTHONPATH"))))
    if cache is None:
        env["ENGRAMORY_NO_CACHE"] = "1"
    else:
        env["ENGRAMORY_CACHE_DIR"] = str(cache)
    return env


def measure(command: list[str], stdout: Path, cache: Path | None = None) -> Run:
    """Run ``command`` under the wrapper; its stdout goes to ``stdout``."""
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(stdout), *command],
        env=child_env(cache),
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(done.stdout)
    return Run(figures["wall"], figures["code"], figures["rss"] * RSS_UNIT)


def baseline_command(store: Path) -> list[str]:
    return [sys.executable, "-c", BASELINE, str(store)]


def doctor_command(store: Path, jobs: int | None, flags: tuple[str, ...] = ()) -> list[str]:
    command = [sys.executable, "-m", "engramory", "doctor", str(store), "--format", "json", *flags]
    return [*command, "--jobs", str(jobs)] if jobs else command


def sanity(result: Result, run: Run, output: Path, expected_notes: int) -> None:
    """Check the doctor's report on a store; record anything unexpected as a warning."""
    want_code = 0 if result.variant == VALID else 1
    if run.code != want_code:
        result.warnings.append(f"doctor exited {run.code}, expected {want_code}")
    try:
        report = json.loads(output.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        result.warnings.append(f"doctor output is not JSON: {exc}")
        return
    if report.get("notes") != expected_notes:
        seen = report.get("notes")
        result.warnings.append(f"doctor saw {seen} notes, {expected_notes} were generated")
    summary = report.get("summary", {})
    result.findings = "/".join(str(summary.get(s, "?")) for s in ("error", "warning", "info"))
    rules = {f["rule"] for f in report.get("findings", [])}
    if result.variant == VALID and (summary.get("error") or summary.get("warning")):
        fired = sorted({f["rule"] for f in report["findings"] if f["severity"] != "info"})
        result.warnings.append(f"valid store has errors or warnings: {', '.join(fired)}")
    expected = expected_rules(result.variant, report.get("index", {}).get("lines") is not None)
    if not rules >= expected:
        result.warnings.append(f"rules not reported: {', '.join(sorted(expected - rules))}")


def expected_rules(variant: str, index_parsed: bool) -> frozenset[str]:
    """The rules the doctor must report on a store of this variant."""
    if variant == BROKEN:
        return EXPECTED_RULES
    if variant == RUNAWAY:
        return RUNAWAY_RULES if index_parsed else RUNAWAY_UNPARSED_RULES
    return frozenset()


def bench_store(
    store: Path, plan: StorePlan, variant: str, args: argparse.Namespace, out: Path
) -> Result:
    """Warm the cache, then run baseline and doctor alternately ``repeat`` times."""
    result = Result(plan.total, variant)
    measure(baseline_command(store), out)  # untimed warm-up read
    for attempt in range(args.repeat):
        result.baseline.append(measure(baseline_command(store), out))
        run = measure(doctor_command(store, args.jobs, plan.doctor_flags), out)
        result.doctor.append(run)
        if attempt == 0:
            sanity(result, run, out, plan.total)
    return result


# The content rules (issue 14), switched off together by one --breakdown subset.
CONTENT_RULES = (
    "secret-value", "personal-data", "relative-date", "current-state", "per-turn-log",
    "stale-project", "near-duplicate", "dated-series", "handoff-store", "not-gitignored",
)  # fmt: skip
BREAKDOWN = (
    ("no rule (--select no-index): the floor", ("--select", "no-index"), None),
    ("without the content rules", ("--ignore", ",".join(CONTENT_RULES)), None),
    ("without near-duplicate", ("--ignore", "near-duplicate"), None),
    ("without secret-value", ("--ignore", "secret-value"), None),
    ("every rule", (), None),
    ("every rule, one process (--jobs 1)", (), 1),
)


def breakdown(store: Path, plan: StorePlan, args: argparse.Namespace, out: Path) -> list[str]:
    """Rows of what each part of the catalogue costs on ``store`` (see ``BREAKDOWN``)."""
    baseline: list[float] = []
    times: list[list[float]] = [[] for _ in BREAKDOWN]
    for _ in range(args.repeat):
        for number, (_label, flags, jobs) in enumerate(BREAKDOWN):
            baseline.append(measure(baseline_command(store), out).wall)
            run = measure(
                doctor_command(store, jobs or args.jobs, (*plan.doctor_flags, *flags)), out
            )
            times[number].append(run.wall)
    base = statistics.median(baseline)
    rows = [f"breakdown at {short(plan.total)} valid (baseline {base:.2f} s):"]
    for (label, _flags, _jobs), runs in zip(BREAKDOWN, times):
        median = statistics.median(runs)
        rows.append(f"  {label:<40} {median:.2f} s  {median / base:.1f}x")
    return rows


# --- the result cache (--cache) -------------------------------------------

# The doctor in-process, then the peak RSS of its own process and of its largest
# worker, written to argv[1] (the wrapper's RUSAGE_CHILDREN cannot tell them apart).
DOCTOR_RUSAGE = """\
import json, resource, sys
from engramory.cli import main
code = main(sys.argv[2:])
sys.stdout.flush()
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
with open(sys.argv[1], "w") as out:
    json.dump({"own": own, "workers": workers}, out)
raise SystemExit(code)
"""
CACHE_MODES = ("cold", "warm", "edited")
EDIT_EVERY = 100  # --cache: one note in a hundred is edited before each "edited" run
WARM_TARGET_100K = 1.0
WARM_TARGET = 1.5
EDITED_TARGET = 2.0


@dataclass
class CacheResult:
    """Baseline and cached doctor runs on one store, with per-process peaks (bytes)."""

    notes: int
    variant: str
    baseline: list[float] = field(default_factory=list)
    runs: dict[str, list[float]] = field(default_factory=dict)
    own_peak: dict[str, int] = field(default_factory=dict)
    worker_peak: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def ratio(self, mode: str) -> float:
        return statistics.median(self.runs[mode]) / statistics.median(self.baseline)


def cached_doctor(
    store: Path, plan: StorePlan, args: argparse.Namespace, out: Path, cache: Path
) -> tuple[Run, int, int]:
    """One doctor run on ``store`` with the cache in ``cache``: the run, own and worker peaks."""
    rusage = out.with_suffix(".rusage")
    flags = (*plan.doctor_flags, *(("--jobs", str(args.jobs)) if args.jobs else ()))
    command = [sys.executable, "-c", DOCTOR_RUSAGE, str(rusage), "doctor", str(store)]
    run = measure([*command, "--format", "json", *flags], out, cache)
    peaks = json.loads(rusage.read_text(encoding="utf-8"))
    return run, peaks["own"] * RSS_UNIT, peaks["workers"] * RSS_UNIT


def edit_notes(store: Path, plan: StorePlan, attempt: int) -> None:
    """Append a line to one note in a hundred (a different hundredth each attempt)."""
    slot = (attempt * 7 + 3) % EDIT_EVERY
    for note in plan.notes[slot::EDIT_EVERY]:
        with open(store / note.rel, "a", encoding="utf-8") as handle:
            handle.write(f"\nChecked again on attempt {attempt}.\n")


def bench_cache(
    store: Path, plan: StorePlan, variant: str, args: argparse.Namespace, work: Path
) -> CacheResult:
    """Cold, warm and 1%-edited runs with the cache, alternately with the baseline."""
    result = CacheResult(plan.total, variant, runs={mode: [] for mode in CACHE_MODES})
    out, plain = work / "cached.json", work / "plain.json"
    cache = work / "cache"
    for attempt in range(args.repeat):
        for mode in CACHE_MODES:
            if mode == "cold":
                shutil.rmtree(cache, ignore_errors=True)
            if mode == "edited":
                edit_notes(store, plan, attempt)
            result.baseline.append(measure(baseline_command(store), plain).wall)
            run, own, workers = cached_doctor(store, plan, args, out, cache)
            result.runs[mode].append(run.wall)
            result.own_peak[mode] = max(result.own_peak.get(mode, 0), own)
            result.worker_peak[mode] = max(result.worker_peak.get(mode, 0), workers)
            if attempt == 0:
                measure(doctor_command(store, args.jobs, plan.doctor_flags), plain)
                if out.read_bytes() != plain.read_bytes():
                    result.warnings.append(f"{mode}: the cached report differs from the uncached")
    return result


def cache_lines(results: list[CacheResult]) -> list[str]:
    """The --cache table and its targets."""
    mb = 1024 * 1024
    lines = [
        "result cache (median ratio to the baseline; peak MB: doctor process / largest worker)",
        f"{'notes':<8} {'variant':<8} {'baseline':<9} "
        + " ".join(f"{mode:<15}" for mode in CACHE_MODES),
    ]
    checks = []
    for r in results:
        base = statistics.median(r.baseline)
        cells = []
        for mode in CACHE_MODES:
            median = statistics.median(r.runs[mode])
            cells.append(f"{median:.2f}s {r.ratio(mode):.2f}x".ljust(15))
        lines.append(f"{r.notes:<8} {r.variant:<8} {base:.2f} s    " + " ".join(cells))
        peaks = ", ".join(
            f"{mode} {r.own_peak[mode] / mb:.0f}/{r.worker_peak[mode] / mb:.0f}"
            for mode in CACHE_MODES
        )
        lines.append(f"{'':<17} peak MB {peaks}")
        warm_target = WARM_TARGET_100K if r.notes >= 100_000 else WARM_TARGET
        name = f"{short(r.notes)} {r.variant}"
        checks.append((f"warm <= {warm_target:g}x at {name} ({r.ratio('warm'):.2f}x)",
                       r.ratio("warm") <= warm_target))  # fmt: skip
        checks.append((f"1% edited <= {EDITED_TARGET:g}x at {name} ({r.ratio('edited'):.2f}x)",
                       r.ratio("edited") <= EDITED_TARGET))  # fmt: skip
        lines.extend(f"warning: {name}: {w}" for w in r.warnings)
    lines.extend(f"{'PASS' if ok else 'FAIL'}  {text}" for text, ok in checks)
    return lines


# --- reporting -----------------------------------------------------------


def short(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def table(results: list[Result], repeat: int, jobs: int | None) -> list[str]:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    lines = [
        f"python {sys.version.split()[0]} — median of {repeat} run{'s' if repeat > 1 else ''}, "
        "warm cache (peak = largest of the runs)",
        f"{cpus} CPU(s); doctor --jobs {jobs if jobs else 'default (one worker per CPU)'}",
        f"{'notes':<8} {'variant':<8} {'baseline':<9} {'doctor':<9} {'ratio':<6} "
        f"{'peak MB':<8} findings e/w/i",
    ]
    for r in results:
        base, doctor = f"{r.baseline_time:.2f} s", f"{r.doctor_time:.2f} s"
        ratio = f"{r.ratio:.1f}x"
        lines.append(
            f"{r.notes:<8} {r.variant:<8} {base:<9} {doctor:<9} {ratio:<6} {r.peak_mb:<8.0f} "
            f"{r.findings}"
        )
    return lines


def growth(results: list[Result], variant: str) -> tuple[Result, Result] | None:
    """The two largest stores of a variant, smaller first (``None`` with one size)."""
    runs = sorted((r for r in results if r.variant == variant), key=lambda r: r.notes)
    return (runs[-2], runs[-1]) if len(runs) >= 2 else None


def targets(results: list[Result]) -> list[tuple[str, bool]]:
    """``(description, passed)`` for each target."""
    checks = []
    for r in results:
        checks.append(
            (
                f"doctor <= {MAX_RATIO:g}x baseline at {short(r.notes)} {r.variant} "
                f"({r.ratio:.1f}x)",
                r.ratio <= MAX_RATIO,
            )
        )
    for variant in VARIANTS:
        pair = growth(results, variant)
        if pair is None:
            continue
        small, large = pair
        limit = GROWTH_SLACK * large.notes / small.notes
        factor = large.doctor_time / small.doctor_time
        checks.append(
            (
                f"linear growth {short(small.notes)}->{short(large.notes)} {variant} "
                f"({factor:.1f}x, limit {limit:g}x)",
                factor <= limit,
            )
        )
    largest = max(r.notes for r in results)
    for r in results:
        if r.notes == largest:
            checks.append(
                (
                    f"peak memory <= {MAX_PEAK_MB:g} MB at {short(r.notes)} {r.variant} "
                    f"({r.peak_mb:.0f} MB)",
                    r.peak_mb <= MAX_PEAK_MB,
                )
            )
    return checks


def report(results: list[Result], repeat: int, jobs: int | None) -> bool:
    """Print the table, growth factors, warnings and targets; return whether all passed."""
    lines = table(results, repeat, jobs)
    for variant in VARIANTS:
        pair = growth(results, variant)
        if pair is not None:
            small, large = pair
            lines.append(
                f"growth {short(small.notes)}->{short(large.notes)} (doctor, {variant}): "
                f"{large.doctor_time / small.doctor_time:.1f}x"
            )
    lines.extend(f"warning: {short(r.notes)} {r.variant}: {w}" for r in results for w in r.warnings)
    checks = targets(results)
    lines.append("")
    lines.extend(f"{'PASS' if ok else 'FAIL'}  {text}" for text, ok in checks)
    print("\n".join(lines))
    return all(ok for _text, ok in checks)


# --- main ----------------------------------------------------------------


def sizes_arg(text: str) -> list[int]:
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None
    if not sizes or sizes[0] < 100:
        raise argparse.ArgumentTypeError("each size must be at least 100 notes")
    return sizes


def variants_arg(text: str) -> list[str]:
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(VARIANTS))
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"variants are {', '.join(VARIANTS)}")
    return [v for v in VARIANTS if v in chosen]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=sizes_arg,
        default=[1_000, 10_000, 100_000],
        help="store sizes in notes, comma-separated (default: 1000,10000,100000)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (default: 3)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="pass --jobs N to the doctor (default: its own choice, one worker per CPU)",
    )
    parser.add_argument(
        "--variants",
        type=variants_arg,
        default=list(VARIANTS),
        help=f"store shapes, comma-separated (default: {','.join(VARIANTS)})",
    )
    parser.add_argument(
        "--parse-runaway",
        action="store_true",
        help="raise --hard-bytes for the runaway store so its whole index is parsed",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also time each valid store with parts of the catalogue switched off",
    )
    parser.add_argument(
        "--cache",
        action="store_true",
        help="also time the doctor's result cache: cold, warm and 1%% edited",
    )
    parser.add_argument("--keep", action="store_true", help="keep the generated stores")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> int:
    args = parse_args()
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="engramory-doctor-bench-"))
    results: list[Result] = []
    cached: list[CacheResult] = []
    parts: list[str] = []
    compiled = subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO_ROOT / "engramory")], check=False
    )
    if compiled.returncode:
        progress("warning: compileall failed; the first runs may compile the sources")
    try:
        for size in args.sizes:
            for variant in args.variants:
                store = work / f"{variant}-{size}"
                plan = plan_store(size, variant, args.parse_runaway)
                tick = time.perf_counter()
                write_store(store, plan)
                took = time.perf_counter() - tick
                progress(f"{short(size)} {variant}: generated in {took:.1f} s, measuring")
                results.append(bench_store(store, plan, variant, args, work / "out.json"))
                if args.cache:
                    progress(f"{short(size)} {variant}: result cache")
                    cached.append(bench_cache(store, plan, variant, args, work))
                if args.breakdown and variant == VALID:
                    progress(f"{short(size)} {variant}: breakdown")
                    parts.extend(breakdown(store, plan, args, work / "out.json"))
    finally:
        if args.keep:
            progress(f"stores kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    passed = report(results, args.repeat, args.jobs)
    if cached:
        lines = cache_lines(cached)
        print("\n" + "\n".join(lines))
        passed = passed and not any(line.startswith("FAIL") for line in lines)
    if parts:
        print("\n" + "\n".join(parts))
    print(f"\nbenchmark wall time {time.perf_counter() - started:.0f} s")
    return 1 if args.check and not passed else 0


if __name__ == "__main__":
    raise SystemExit(main())
