"""``engramory trace`` on a synthetic transcript history of 1 GB, next to ``grep -c -F``.

Reproduce (from the repository root):

    python benchmarks/trace.py [--size-mb 1024] [--repeat 3] [--seed 15]
                               [--history DIR] [--repo PATH] [--keep] [--check]
    python benchmarks/trace.py --generate DIR [--size-mb 1024] [--seed 15]

``--generate DIR`` only writes the history and prints what it planted:

* ``DIR/claude`` is a ``CLAUDE_CONFIG_DIR``: ``projects/<encoded cwd>/<session>.jsonl``,
  some ``<session>/subagents/agent-<id>.jsonl`` (with a ``.meta.json``) and a few
  older flat ``agent-<id>.jsonl`` beside the sessions;
* ``DIR/codex`` is a ``CODEX_HOME``: ``sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``
  and a few ``archived_sessions/rollout-*.jsonl``;
* ``DIR/planted.json`` records the planted words and counts (outside both roots).

The history looks like real transcripts (the record types, keys, nesting and
escaping of /work/shared/research/transcripts-and-memoir.md §1-§2): many
sessions of lognormal size (median ~400 KB, at most 20 MB) across several
projects, some started in a sub-directory (a folder of their own), one whose
encoded folder name passes 200 characters; most bytes in tool output (Claude
``tool_result`` user lines with their ``toolUseResult``, Codex
``function_call_output``, both sometimes doubly JSON-encoded), short person and
agent messages with quotes, backslashes, tabs, newlines and non-ASCII text,
thinking blocks and reasoning, ``isMeta``/command-tag/``<system-reminder>``/
compact-summary records, queued prompts, synthetic assistant lines, records
re-appended on resume, Codex ``response_item`` copies of every message and
injected ``<environment_context>``/AGENTS.md text, and a few lines of several
MB (base64 screenshots).

Planted words (none occurs anywhere else, in any case):

* RARE (``kestrelwing``): said by the person, once, in 0.1 % of the sessions;
* COMMON (``deprecated``): in the tool output of every transcript file (and in
  about one pool line in 150 of any tool output), said by the person or the
  agent in 1 % of the sessions, and present in places ``trace`` must not count
  by default: thinking and reasoning, ``isMeta`` and compact summaries,
  ``<system-reminder>`` blocks, AGENTS.md text, tool calls;
* TWO (``flaky rollback``): both words in one person or agent message in 0.5 %
  of the sessions; each word alone in other messages (and ``flaky`` in some
  tool output), which an AND search must not count.

The counts printed (and stored in ``planted.json``) are the hits ``engramory
trace --all-projects WORD`` should report without ``--tools``: person and agent
messages holding every word, each record once. The output is the same, byte
for byte, for the same ``--size-mb`` and ``--seed``.

The benchmark generates the history in a temporary directory (deleted at the
end unless ``--keep``), or reuses ``--history DIR`` (made by ``--generate``),
reads it once untimed to warm the page cache, then measures each query in the
same run, each measurement in its own child process, the baseline and the
command alternately, ``--repeat`` times:

* ``engramory trace --all-projects RARE`` against ``grep -c -F RARE -r``;
* ``... COMMON`` against ``grep -c -F COMMON -r``;
* ``... flaky rollback`` against ``grep -c -F flaky -r`` (grep cannot AND two
  words in one pass: the baseline scans for the first word);
* ``... --format json COMMON`` against ``grep -c -F COMMON -r``;

grep reads the same ``*.jsonl`` files (the roots, ``--include='*.jsonl'``),
and ``rg -c -F`` is measured too when installed. The command runs as ``python
-m engramory trace ...`` with ``PYTHONPATH`` set to ``--repo`` (default: this
script's repository), ``HOME``, ``CLAUDE_CONFIG_DIR`` and ``CODEX_HOME``
pointed into the history, from a working directory outside it.

It prints the median wall times, their ratio, the command's CPU time (user +
system, all its processes), the cost per GiB (wall) and the command's peak
memory (max RSS of its largest process, largest of the runs), checks that
the command's hit counts equal the planted ones (one untimed run per query with
``--format json --limit 1000000``, counting lines; a warning otherwise), then
the targets: RARE <= 2x grep; COMMON, the two-word query and JSON <= 5x grep;
peak memory <= 150 MB. The exit status is 0 (it is a report) unless
``--check`` is given and a target fails.
"""

from __future__ import annotations

import argparse
import base64
import bisect
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# --- planted words ---------------------------------------------------------

RARE = "kestrelwing"
COMMON = "deprecated"
TWO = ("flaky", "rollback")
PLANTED_WORDS = (RARE, COMMON, *TWO)

RARE_SHARE = 0.001  # sessions where the person says RARE
COMMON_SHARE = 0.01  # sessions where the person or the agent says COMMON
TWO_SHARE = 0.005  # sessions with a message holding both TWO words
ALONE_SHARE = 0.02  # sessions with one TWO word alone in a message (not a hit)
COMMON_LINE_EVERY = 150  # about one tool-output pool line in 150 holds COMMON
FLAKY_LINE_EVERY = 2000  # one in 2000 holds TWO[0]

# --- history shape ---------------------------------------------------------

MB = 1024 * 1024
MEDIAN_SESSION = 400_000  # bytes (real histories: median ~650 KB, max ~20 MB)
MAX_SESSION = 20 * MB
OVERSHOOT = 1.19  # sessions end with the turn past their budget; subagents add a bit
CLAUDE_SHARE = 0.6  # of the sessions
SUBAGENT_SHARE = 0.12  # Claude sessions with a subagents/ folder
FLAT_AGENT_SHARE = 0.03  # Claude sessions with an older flat agent-*.jsonl
RESUMED_SHARE = 0.05  # Claude sessions whose first records are re-appended
ARCHIVED_SHARE = 0.08  # Codex sessions in archived_sessions/
SUBDIR_SHARE = 0.15  # sessions started in a sub-directory of their project
IMAGE_EVERY = 150  # one session in 150 has a screenshot line of several MB
IMAGE_BYTES = (1_500_000, 5_000_000)
COMPACT_ABOVE = 3 * MB  # sessions larger than this are compacted once
START = datetime(2026, 6, 1, tzinfo=timezone.utc)
SPAN_DAYS = 150

PROJECTS = (
    "/home/dev/src/api",
    "/home/dev/src/web-app",
    "/home/dev/src/ml_pipeline",
    "/home/dev/work/infra.tf",
    "/home/dev/src/café-notes",
    "/home/dev/.dotfiles",
    "/home/dev/src/monorepo",
)
SUBDIRS = (
    "services/billing",
    "packages/ui",
    "docs",
    "packages/" + "very-long-package-name-" * 9 + "end",  # encoded name > 200 chars
)
CLAUDE_VERSIONS = ("2.0.14", "2.0.42", "2.0.76", "2.1.3")
CODEX_VERSIONS = ("0.46.0", "0.58.0", "0.63.0")
MODELS = ("claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929")

ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

# --- text pools --------------------------------------------------------------

SYLLABLES = ("ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "gu", "ba", "ze", "vo", "xi")


def identifiers(rng: random.Random, count: int) -> list[str]:
    """``count`` made-up identifiers, none holding a planted word."""
    words: set[str] = set()
    while len(words) < count:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if not holds_planted(word):
            words.add(word)
    return sorted(words)


def holds_planted(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in PLANTED_WORDS)


POOL_LINES = 60_000


@dataclass
class Pool:
    """Tool-output lines, plain and ``cat -n``-numbered, and the numbers of those with COMMON."""

    lines: list[str]
    numbered: list[str]
    common_at: list[int]

    def holds(self, marks: list[int], start: int, count: int) -> bool:
        """Whether a line of ``marks`` lies in ``[start, start + count)``."""
        k = bisect.bisect_left(marks, start)
        return k < len(marks) and marks[k] < start + count


def pool_line(rng: random.Random, ids: list[str], k: int) -> str:
    """One line of tool output, of one of several kinds (code, logs, test runs, JSON...)."""
    a, b, c = rng.choice(ids), rng.choice(ids), rng.choice(ids)
    n = rng.randint(1, 99999)
    kind = k % 11
    if kind == 0:
        return f"    def {a}_{b}(self, {c}: str, limit: int = {n % 500}) -> dict[str, Any]:"
    if kind == 1:
        return f'        return {{"{a}": {b}, "path": "C:\\\\Users\\\\dev\\\\{c}.txt", "n": {n}}}'
    if kind == 2:
        return f"tests/test_{a}.py::test_{b}_{c} PASSED{' ' * (n % 30)}[ {n % 100:>2}%]"
    if kind == 3:
        return f"{rng.getrandbits(28):07x} {a.title()} {b} {c} for the {a} module (#{n % 4000})"
    if kind == 4:
        return f"-rw-r--r--  1 dev  staff  {n:>6} Jul {n % 28 + 1:>2} 12:{n % 60:02d} {a}_{b}.py"
    if kind == 5:
        return (
            f"2026-07-01 12:{n % 60:02d}:{n % 59:02d},{n % 1000:03d} INFO  [{a}.{b}] "
            f"request id={rng.getrandbits(48):012x} took {n % 900}ms"
        )
    if kind == 6:
        return f'  "{a}": "{b} {c}\\t{n}",'
    if kind == 7:
        return f"# Größe: {n} — 完了 ✓ {a} → {b} (naïve café)"
    if kind == 8:
        return f"\t{a}.{b}({c}, {n}) if {c} else None  # keep {a} in sync"
    if kind == 9:
        return f"src/{a}/{b}.py:{n % 900}:{n % 80}: E501 line too long ({n % 40 + 100} > 100)"
    return f"{a} = {b}.{c}[{n % 64}:{n % 64 + 8}]  # {a} {b} {c}"


def make_pool(seed: int) -> Pool:
    """The tool-output pool of ``POOL_LINES`` lines, deterministic for ``seed``."""
    rng = random.Random(seed * 7919 + 1)
    ids = identifiers(rng, 3000)
    lines: list[str] = []
    common_at: list[int] = []
    for k in range(POOL_LINES):
        if rng.random() < 1 / COMMON_LINE_EVERY:
            common_at.append(k)
            a, b = rng.choice(ids), rng.choice(ids)
            lines.append(
                f"  warning: `{a}()` is {COMMON} since 2.{k % 9}; use `{b}()` instead"
                f" ({COMMON.title()}Warning)"
            )
        elif rng.random() < 1 / FLAKY_LINE_EVERY:
            lines.append(f"FAILED tests/test_{rng.choice(ids)}.py::test_io - {TWO[0]}: retried 3x")
        else:
            lines.append(pool_line(rng, ids, k))
    numbered = [f"{k + 1:>6}→{line}" for k, line in enumerate(lines)]
    return Pool(lines, numbered, common_at)


def make_base64(seed: int, size: int) -> str:
    """A base64 blob of ``size`` characters (screenshots, signatures), with no planted word."""
    rng = random.Random(seed * 104729 + 2)
    while True:
        blob = base64.b64encode(rng.randbytes(size * 3 // 4 + 3)).decode("ascii")[:size]
        if not holds_planted(blob):
            return blob


PERSON = (
    'why does `{a}` fail on C:\\Users\\dev\\{b}? it printed "{c} not found"',
    "ok, now run the tests",
    "can you look at src/{a}.py and tell me what {b}() does",
    "naïve question: is the café menu's Größe field still parsed? 日本語のファイル名も試して",
    "let's ship it 🚀",
    "no — keep the old behaviour for {a}, just fix the\nedge case with empty lines",
    'what about the "{a}" option?\tit\'s in the README',
    "hmm, {a} and {b} disagree about the timezone; which one is right?",
    "please don't touch {a}.py, only {b}.py",
    "looks good. commit it with a short message",
)
AGENT = (
    "I'll start by reading `src/{a}.py` to see how `{b}` is built.",
    "The tests pass now: 42 passed, 0 failed.",
    'Found it: `{a}()` returns `"{b}"` when the path ends with `\\\\`, so the join is wrong.',
    "Done — `{a}` handles empty lines; I added a test for the\nnon-ASCII case (é, ß, 日本).",
    "There are two callers of `{a}`: `{b}.py` and `{c}.py`. Both pass a string.",
    "I can't reproduce it on this machine; could you paste the full error?",
)
THINKING = (
    "The user wants {a} fixed. Let me check how {b} is called first, then {c}.",
    "Two options: patch {a} in place or add a wrapper. The wrapper keeps {b} stable.",
)
PLANT_RARE = (
    "did the kestrelwing build finish on the staging box?",
    'I want the "kestrelwing" codename out of C:\\logs\\{a} before Friday — ok?',
    "kestrelwing: can you check the 日本 branch too",
)
PLANT_COMMON_PERSON = (
    "is the old {a} parser deprecated now, or do we keep it?",
    'mark "{a}" as deprecated in the docs\\changelog, please',
)
PLANT_COMMON_AGENT = (
    "Yes — `{a}()` is deprecated; I switched the call sites to `{b}()`.",
    "The `{a}` flag is deprecated upstream, so I removed it from the config.",
)
PLANT_TWO = (
    "the rollback test is flaky again, can you look?",
    'The flaky part was the rollback step: it raced the "{a}" writer.',
)
ALONE_FLAKY = "this one is flaky on CI — ignore it for now"
ALONE_ROLLBACK = "I added a rollback path for `{a}`."
DECOY_THINKING = "The user asked about {a}; the {b} helper looks deprecated, but not my call."
DECOY_REMINDER = (
    "<system-reminder>\nNote: src/{a}.py was modified by the user or a linter; "
    "the {b} module is deprecated.\n</system-reminder>"
)
META_CAVEAT = (
    "Caveat: The messages below were generated by the user while running local commands. "
    "DO NOT respond to these messages or otherwise consider them in your response unless the "
    "user explicitly asks you to."
)
COMPACT_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "Summary:\n1. The user asked to replace the {a} helper, which is deprecated.\n"
    "2. Files: src/{a}.py, src/{b}.py"
)
AGENTS_MD = (
    "# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n## Style\n- Run the tests before "
    "committing.\n- Never call deprecated APIs; prefer the {a} helpers.\n</INSTRUCTIONS>"
)
ENVIRONMENT = (
    "<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n"
    "  <sandbox_mode>workspace-write</sandbox_mode>\n"
    "  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"
)
COMMANDS = (
    'rg -n "{a}" src',
    "sed -n '1,200p' src/{a}.py",
    "pytest -q tests/test_{a}.py",
    "git log --oneline -n 50",
    "ls -la src/{a}",
)


# --- the plan ----------------------------------------------------------------

CLAUDE = "claude"
CODEX = "codex"


@dataclass(frozen=True)
class SessionPlan:
    """One session: host, byte budget, project, start time and what it carries."""

    index: int
    host: str
    budget: int
    cwd: str
    start_ms: int
    plants: tuple[str, ...] = ()
    subagents: int = 0
    flat_agent: bool = False
    resumed: bool = False
    archived: bool = False
    image: int = 0  # bytes of a screenshot line; 0: none


def plan_history(total: int, seed: int) -> list[SessionPlan]:
    """The sessions of a history of about ``total`` bytes (sizes lognormal, capped)."""
    rng = random.Random(seed)
    median = min(MEDIAN_SESSION, max(8_000, total // 40))
    budgets: list[int] = []
    while sum(budgets) * OVERSHOOT < total:
        size = int(rng.lognormvariate(math.log(median), 0.9))
        budgets.append(max(median // 20, min(size, MAX_SESSION, max(total // 4, median))))
    count = len(budgets)
    hosts = [CLAUDE if rng.random() < CLAUDE_SHARE else CODEX for _ in range(count)]
    hosts[0], hosts[-1] = CLAUDE, CODEX  # both hosts, even in a tiny history
    plants: list[list[str]] = [[] for _ in range(count)]
    for kind, share in (
        ("rare", RARE_SHARE),
        ("common", COMMON_SHARE),
        ("two", TWO_SHARE),
        ("flaky-alone", ALONE_SHARE),
        ("rollback-alone", ALONE_SHARE),
    ):
        for i in rng.sample(range(count), max(1, round(count * share))):
            said = rng.choice(("common-person", "common-agent")) if kind == "common" else kind
            plants[i].append(said)
    span_ms = SPAN_DAYS * 86_400_000
    plans = []
    claude_seen = codex_seen = 0
    for i, (host, budget) in enumerate(zip(hosts, budgets)):
        cwd = rng.choice(PROJECTS)
        if rng.random() < SUBDIR_SHARE:
            cwd = f"{cwd}/{rng.choice(SUBDIRS)}"
        start_ms = i * span_ms // count + rng.randrange(max(1, span_ms // count // 2))
        image = 0
        if i % IMAGE_EVERY == min(3, count - 1):
            image = min(rng.randint(*IMAGE_BYTES), max(total // 200, 4096))
        if host == CLAUDE:
            claude_seen += 1
            subagents = rng.randint(1, 3) if rng.random() < SUBAGENT_SHARE else 0
            plans.append(
                SessionPlan(
                    i,
                    host,
                    budget,
                    cwd,
                    start_ms,
                    tuple(plants[i]),
                    subagents=max(subagents, int(claude_seen == 1)),
                    flat_agent=claude_seen == 2 or rng.random() < FLAT_AGENT_SHARE,
                    resumed=claude_seen == 1 or rng.random() < RESUMED_SHARE,
                    image=image,
                )
            )
        else:
            codex_seen += 1
            archived = codex_seen == 2 or rng.random() < ARCHIVED_SHARE
            plans.append(
                SessionPlan(
                    i, host, budget, cwd, start_ms, tuple(plants[i]), archived=archived, image=image
                )
            )
    return plans


# --- writing sessions ----------------------------------------------------------


@dataclass
class Tally:
    """What was planted and written: expected hits per query, files, bytes."""

    hits: dict[str, int] = field(default_factory=lambda: {"rare": 0, "common": 0, "two": 0})
    hit_sessions: dict[str, set[str]] = field(
        default_factory=lambda: {"rare": set(), "common": set(), "two": set()}
    )
    tool_outputs: int = 0
    tool_outputs_common: int = 0
    files: int = 0
    bytes: int = 0
    lines: int = 0
    longest_line: int = 0
    sessions: dict[str, int] = field(default_factory=lambda: {CLAUDE: 0, CODEX: 0})

    def hit(self, query: str, session: str) -> None:
        self.hits[query] += 1
        self.hit_sessions[query].add(session)


def hit_queries(kind: str) -> tuple[str, ...]:
    """The queries a planted message of this kind is a hit for."""
    return {
        "rare": ("rare",),
        "common-person": ("common",),
        "common-agent": ("common",),
        "two": ("two",),
    }.get(kind, ())


def iso(ms: int) -> str:
    """UTC ISO timestamp with milliseconds, as both hosts write it."""
    moment = START + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def uuid_of(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def encode_cwd(cwd: str) -> str:
    """Claude Code's project folder name: non-alphanumerics to '-', 200 chars + hash beyond."""
    name = re.sub(r"[^A-Za-z0-9]", "-", cwd)
    if len(name) > 200:
        name = f"{name[:200]}-{abs(hash_text(cwd)) % 10**8:x}"
    return name


def hash_text(text: str) -> int:
    """A stable string hash (``hash()`` is salted per process)."""
    value = 0
    for ch in text:
        value = (value * 131 + ord(ch)) % (1 << 61)
    return value


class Writer:
    """Shared state of one session's generation: randomness, pools, clock, tally."""

    def __init__(
        self, plan: SessionPlan, seed: int, pool: Pool, blob: str, ids: list[str], tally: Tally
    ) -> None:
        self.plan = plan
        self.rng = random.Random(seed * 1_000_003 + plan.index)
        self.pool = pool
        self.blob = blob
        self.ids = ids
        self.tally = tally
        self.clock = plan.start_ms
        self.session = uuid_of(self.rng)
        self.common_forced = False  # this file's tool output holds COMMON yet
        self.extra_files: list[tuple[Path, list[str]]] = []

    def fill(self, template: str, **extra: str) -> str:
        pick = self.rng.choice
        return template.format(a=pick(self.ids), b=pick(self.ids), c=pick(self.ids), **extra)

    def tick(self, most_ms: int = 30_000) -> str:
        self.clock += self.rng.randint(50, most_ms)
        return iso(self.clock)

    def tool_output(self) -> tuple[str, str, int, int]:
        """A tool output (plain, numbered, start line, line count); every file's first holds
        COMMON."""
        rng = self.rng
        count = rng.randint(3, 40) if rng.random() < 0.5 else rng.randint(40, 400)
        if rng.random() < 0.04:
            count = rng.randint(1000, 3000)
        count = min(count, max(3, self.plan.budget // 400))  # small sessions, small outputs
        start = rng.randrange(POOL_LINES - count)
        plain = "\n".join(self.pool.lines[start : start + count])
        numbered = "\n".join(self.pool.numbered[start : start + count])
        holds = self.pool.holds(self.pool.common_at, start, count)
        if not self.common_forced:
            self.common_forced = True
            if not holds:
                extra = f"\nnote: {self.fill('`{a}`')} is {COMMON}"
                plain += extra
                numbered += extra
                holds = True
        self.tally.tool_outputs += 1
        self.tally.tool_outputs_common += holds
        return plain, numbered, start + 1, count

    def base64(self, size: int) -> str:
        start = self.rng.randrange(max(1, len(self.blob) - size))
        return self.blob[start : start + size]

    def person_text(self, kind: str) -> str:
        """The person's words: planted (counted in the tally) or filler."""
        if kind == "rare":
            text = self.fill(self.rng.choice(PLANT_RARE))
        elif kind == "common-person":
            text = self.fill(self.rng.choice(PLANT_COMMON_PERSON))
        elif kind == "two":
            text = self.fill(PLANT_TWO[0])
        elif kind == "flaky-alone":
            text = ALONE_FLAKY
        else:
            return self.fill(self.rng.choice(PERSON))
        for query in hit_queries(kind):
            self.tally.hit(query, self.session)
        return text

    def agent_text(self, kind: str) -> str:
        """The agent's final words of a turn: planted (counted) or filler."""
        if kind == "common-agent":
            text = self.fill(self.rng.choice(PLANT_COMMON_AGENT))
        elif kind == "two":
            text = self.fill(PLANT_TWO[1])
        elif kind == "rollback-alone":
            text = self.fill(ALONE_ROLLBACK)
        else:
            return self.fill(self.rng.choice(AGENT))
        for query in hit_queries(kind):
            self.tally.hit(query, self.session)
        return text


PERSON_KINDS = ("rare", "common-person", "flaky-alone")
AGENT_KINDS = ("common-agent", "rollback-alone")


def turn_plants(plan: SessionPlan, rng: random.Random) -> dict[int, list[str]]:
    """Turn number -> the plants said in that turn (a 'two' plant: person or agent)."""
    turns: dict[int, list[str]] = {}
    for kind in plan.plants:
        turns.setdefault(rng.randint(0, 3), []).append(kind)
    return turns


class ClaudeFile:
    """The records of one Claude Code transcript file (a session or a subagent)."""

    def __init__(self, w: Writer, cwd: str, agent_id: str = "") -> None:
        self.w = w
        self.cwd = cwd
        self.agent_id = agent_id
        self.lines: list[str] = []
        self.size = 0
        self.parent: str | None = None
        self.version = w.rng.choice(CLAUDE_VERSIONS)
        self.model = w.rng.choice(MODELS)

    def emit(self, record: dict) -> None:
        line = ENCODE(record)
        self.lines.append(line)
        self.size += len(line) + 1

    def head(self, kind: str) -> dict:
        """The fields every chain record starts with, in Claude Code's order."""
        record = {
            "parentUuid": self.parent,
            "isSidechain": bool(self.agent_id),
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.w.session,
            "version": self.version,
            "gitBranch": "main",
        }
        if self.agent_id:
            record["agentId"] = self.agent_id
        record["type"] = kind
        return record

    def chain(self, record: dict, **tail: object) -> str:
        """Finish a chain record (uuid, timestamp, then ``tail``), emit it, return its uuid."""
        uuid = uuid_of(self.w.rng)
        record["uuid"] = uuid
        record["timestamp"] = self.w.tick()
        record.update(tail)
        self.emit(record)
        self.parent = uuid
        return uuid

    def user(self, content: object, **extra: object) -> str:
        record = self.head("user")
        record["message"] = {"role": "user", "content": content}
        record.update(extra)
        return self.chain(record)

    def assistant(self, block: dict, model: str = "") -> str:
        record = self.head("assistant")
        record["message"] = {
            "model": model or self.model,
            "id": f"msg_01{self.w.rng.getrandbits(80):020x}",
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": self.w.rng.randint(3, 900),
                "cache_read_input_tokens": self.w.rng.randint(0, 150_000),
                "output_tokens": self.w.rng.randint(1, 4000),
            },
        }
        record["requestId"] = f"req_{self.w.rng.getrandbits(96):024x}"
        # requestId sits before type in real lines
        record["type"] = record.pop("type")
        return self.chain(record)

    def task_call(self, agent_id: str) -> None:
        """A Task tool call that starts a subagent, and the subagent's report."""
        w = self.w
        tool_id = f"toolu_01{w.rng.getrandbits(88):022x}"
        prompt = w.fill("Explore src/{a} and report how {b} is used. Be thorough.")
        tool_input = {"description": "Explore", "prompt": prompt, "subagent_type": "Explore"}
        self.assistant({"type": "tool_use", "id": tool_id, "name": "Task", "input": tool_input})
        report = [{"type": "text", "text": w.fill(AGENT[4])}]
        result = {
            "status": "completed",
            "prompt": prompt,
            "agentId": agent_id,
            "content": report,
            "totalDurationMs": w.rng.randint(5_000, 300_000),
            "totalTokens": w.rng.randint(5_000, 90_000),
        }
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": report}
        self.user([block], toolUseResult=result)

    def tool_call(self) -> None:
        """A tool_use line and its tool_result user line (with ``toolUseResult``)."""
        w = self.w
        tool_id = f"toolu_01{w.rng.getrandbits(88):022x}"
        # a file's first output (which holds COMMON) is a Bash one: all of it in the content
        name = w.rng.choice(("Bash", "Bash", "Read", "Edit", "Grep")) if w.common_forced else "Bash"
        plain, numbered, first, count = w.tool_output()
        path = w.fill("/home/dev/src/{a}/{b}.py")
        if name == "Bash":
            tool_input: dict = {"command": w.fill(w.rng.choice(COMMANDS)), "description": "Run"}
            content: object = plain
            result: dict = {"stdout": plain, "stderr": "", "interrupted": False, "isImage": False}
        elif name == "Read":
            tool_input = {"file_path": path}
            content = numbered
            result = {
                "type": "text",
                "file": {
                    "filePath": path,
                    "content": plain,
                    "numLines": count,
                    "startLine": first,
                    "totalLines": POOL_LINES,
                },
            }
        elif name == "Edit":
            old, new = w.fill("{a}({b})"), w.fill("{a}({b}, strict=True)")
            tool_input = {"file_path": path, "old_string": old, "new_string": new}
            content = f"The file {path} has been updated. Here's the result of running `cat -n`:"
            content += "\n" + numbered[:2000]
            result = {
                "filePath": path,
                "oldString": old,
                "newString": new,
                "originalFile": plain,
                "structuredPatch": [
                    {"oldStart": first, "oldLines": 1, "newStart": first, "newLines": 1}
                ],
                "userModified": False,
                "replaceAll": False,
            }
        else:
            pattern = COMMON if w.rng.random() < 0.05 else w.fill("{a}")
            tool_input = {"pattern": pattern, "path": "src", "output_mode": "content"}
            content = plain
            result = {"mode": "content", "numFiles": count, "content": plain, "numLines": count}
        self.assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if w.rng.random() < 0.03:
            block["is_error"] = True
        self.user([block], toolUseResult=result)


def claude_side_records(f: ClaudeFile) -> None:
    """Now and then, ``user`` records that are not the person's words (none is a hit)."""
    w = f.w
    rng = w.rng
    if rng.random() < 0.05:  # a slash command: caveat, command tags, its output
        f.user(META_CAVEAT, isMeta=True)
        f.user("<command-name>/model</command-name>\n<command-message>model</command-message>\n")
        f.user("<local-command-stdout>Set model to opus</local-command-stdout>")
    if rng.random() < 0.03:
        f.user(f"<bash-input>{w.fill('ls {a}')}</bash-input>")
        f.user(f"<bash-stdout>{w.fill('{a}.py {b}.py')}</bash-stdout><bash-stderr></bash-stderr>")
    if rng.random() < 0.02:
        f.user(
            f"<task-notification>Background task {w.fill('{a}')} is {COMMON}</task-notification>"
        )
    if rng.random() < 0.04:
        f.user(
            w.fill("Base directory for this skill: {a}\n\nNever use deprecated flags."), isMeta=True
        )


def claude_person(f: ClaudeFile, number: int, plants: list[str], image: int) -> None:
    """The person's message(s) of a turn, planted or filler, maybe with a screenshot."""
    w = f.w
    rng = w.rng
    person = [k for k in plants if k in PERSON_KINDS or (k == "two" and number % 2 == 0)]
    text = w.person_text(person[0]) if person else w.person_text("")
    if not person and rng.random() < 0.1:
        reminder = w.fill(DECOY_REMINDER) if rng.random() < 0.3 else "<system-reminder>\nok\n"
        text = f"{text}\n\n{reminder}"
    if image:
        data = w.base64(image)
        source = {"type": "base64", "media_type": "image/png", "data": data}
        f.user([{"type": "image", "source": source}, {"type": "text", "text": text}])
    else:
        f.user(text)
    f.emit(
        {
            "type": "file-history-snapshot",
            "messageId": f.parent,
            "snapshot": {
                "messageId": f.parent,
                "trackedFileBackups": {},
                "timestamp": iso(w.clock),
            },
            "isSnapshotUpdate": False,
        }
    )
    for extra in person[1:]:  # more planted person words: a second message
        f.user(w.person_text(extra))


def claude_turn(f: ClaudeFile, number: int, plants: list[str], image: int) -> list[str]:
    """One turn of a Claude session; returns the agent ids of the subagents it started."""
    w = f.w
    rng = w.rng
    claude_side_records(f)
    claude_person(f, number, plants, image)
    if rng.random() < 0.6:
        thought = w.fill(DECOY_THINKING if rng.random() < 0.05 else rng.choice(THINKING))
        signature = w.base64(rng.randint(200, 800))
        f.assistant({"type": "thinking", "thinking": thought, "signature": signature})
    if rng.random() < 0.5:
        f.assistant({"type": "text", "text": w.fill(AGENT[0])})
    agents = []
    for _ in range(rng.randint(1, 6)):
        if w.plan.subagents and not f.agent_id and rng.random() < 0.15:
            agents.append(f"a{rng.getrandbits(60):015x}")
            f.task_call(agents[-1])
        f.tool_call()
    if rng.random() < 0.04:
        prompt = w.fill("also check {a}.py")
        attachment = {"type": "queued_command", "commandMode": "prompt", "prompt": prompt}
        record = f.head("attachment")
        record["attachment"] = attachment
        f.chain(record)
    if rng.random() < 0.02:
        f.user([{"type": "text", "text": "[Request interrupted by user]"}])
        f.assistant({"type": "text", "text": "No response requested."}, model="<synthetic>")
    agent = [k for k in plants if k in AGENT_KINDS or (k == "two" and number % 2 == 1)]
    f.assistant({"type": "text", "text": w.agent_text(agent[0] if agent else "")})
    for extra in agent[1:]:
        f.assistant({"type": "text", "text": w.agent_text(extra)})
    if rng.random() < 0.3:
        record = f.head("system")
        record.update(subtype="turn_duration", durationMs=rng.randint(2_000, 600_000), isMeta=False)
        f.chain(record)
    return agents


def claude_session(w: Writer, root: Path) -> list[tuple[Path, list[str]]]:
    """The files of one Claude Code session (the session, its subagents, a flat agent)."""
    plan = w.plan
    folder = root / "projects" / encode_cwd(plan.cwd)
    main = ClaudeFile(w, plan.cwd)
    rng = w.rng
    if rng.random() < 0.2:
        main.emit(
            {"type": "summary", "summary": w.fill("Fix {a} parsing"), "leafUuid": uuid_of(rng)}
        )
    plants = turn_plants(plan, rng)
    pending = dict(plants)
    budget = plan.budget * (7 if plan.subagents else 10) // 10
    agent_ids: list[str] = []
    compacted = plan.budget < COMPACT_ABOVE
    number = 0
    while main.size < budget or pending or (plan.image and number < 2):
        agent_ids += claude_turn(main, number, pending.pop(number, []), plan.image * (number == 1))
        if not compacted and main.size > budget // 2:
            compacted = True
            boundary = uuid_of(rng)
            main.emit(
                {
                    "parentUuid": None,
                    "logicalParentUuid": main.parent,
                    "isSidechain": False,
                    "type": "system",
                    "subtype": "compact_boundary",
                    "content": "Conversation compacted",
                    "isMeta": False,
                    "timestamp": w.tick(),
                    "uuid": boundary,
                    "level": "info",
                    "compactMetadata": {"trigger": "auto", "preTokens": 155_000},
                }
            )
            main.parent = boundary
            main.user(
                w.fill(COMPACT_SUMMARY), isCompactSummary=True, isVisibleInTranscriptOnly=True
            )
        number += 1
    if plan.resumed:  # resume re-appends the first chain records, same uuids
        chain_lines = [line for line in main.lines if line.startswith('{"parentUuid"')]
        main.lines += chain_lines[:3]
    main.emit({"type": "ai-title", "aiTitle": w.fill("Fix {a} parsing"), "sessionId": w.session})
    main.emit(
        {"type": "last-prompt", "lastPrompt": "ok, now run the tests", "sessionId": w.session}
    )
    files = [(folder / f"{w.session}.jsonl", main.lines)]
    wanted = plan.subagents
    agent_ids = (agent_ids + [f"a{rng.getrandbits(60):015x}" for _ in range(wanted)])[:wanted]
    for agent_id in agent_ids:
        files.append(subagent_file(w, folder / w.session / "subagents", agent_id, budget * 3 // 7))
    if plan.flat_agent:
        agent_id = f"{rng.getrandbits(32):08x}"
        files.append(subagent_file(w, folder, agent_id, max(2000, plan.budget // 10), meta=False))
    return files


def subagent_file(
    w: Writer, folder: Path, agent_id: str, budget: int, meta: bool = True
) -> tuple[Path, list[str]]:
    """A subagent transcript: the agent's prompt, tool calls, its report."""
    f = ClaudeFile(w, w.plan.cwd, agent_id)
    w.common_forced = False
    f.user(w.fill("Explore src/{a} and report how {b} is used. Be thorough."))
    while f.size < budget // max(1, w.plan.subagents):
        if w.rng.random() < 0.5:
            f.assistant({"type": "text", "text": w.fill(AGENT[4])})
        for _ in range(w.rng.randint(1, 4)):
            f.tool_call()
    f.assistant({"type": "text", "text": w.fill(AGENT[4])})
    if meta:
        w.extra_files.append(
            (folder / f"agent-{agent_id}.meta.json", [ENCODE({"agentType": "Explore"})])
        )
    w.common_forced = True
    return folder / f"agent-{agent_id}.jsonl", f.lines


# --- Codex -------------------------------------------------------------------------


class CodexFile:
    """The lines of one Codex rollout."""

    def __init__(self, w: Writer) -> None:
        self.w = w
        self.lines: list[str] = []
        self.size = 0

    def emit(self, kind: str, payload: dict) -> None:
        line = ENCODE({"timestamp": self.w.tick(9_000), "type": kind, "payload": payload})
        self.lines.append(line)
        self.size += len(line) + 1

    def item(self, payload: dict) -> None:
        self.emit("response_item", payload)

    def event(self, payload: dict) -> None:
        self.emit("event_msg", payload)

    def message(self, role: str, text: str, kind: str = "") -> None:
        content_type = kind or ("output_text" if role == "assistant" else "input_text")
        self.item(
            {"type": "message", "role": role, "content": [{"type": content_type, "text": text}]}
        )

    def tokens(self) -> None:
        used = self.w.rng.randint(1000, 200_000)
        self.event(
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": {"input_tokens": used, "output_tokens": used // 20},
                    "model_context_window": 272_000,
                },
                "rate_limits": {"primary": {"used_percent": 12.0, "window_minutes": 300}},
            }
        )

    def tool_call(self) -> None:
        w = self.w
        call_id = f"call_{w.rng.getrandbits(120):030x}"
        command = w.fill(w.rng.choice(COMMANDS))
        if w.common_forced and w.rng.random() < 0.1:
            patch = w.fill("*** Begin Patch\n*** Update File: src/{a}.py\n@@\n-{b}()\n+{c}()\n")
            self.item(
                {
                    "type": "custom_tool_call",
                    "status": "completed",
                    "call_id": call_id,
                    "name": "apply_patch",
                    "input": patch + "*** End Patch\n",
                }
            )
            output = {"output": w.fill("Success. Updated the following files:\nM src/{a}.py\n")}
            output["metadata"] = {"exit_code": 0, "duration_seconds": 0.0}
            self.item(
                {"type": "custom_tool_call_output", "call_id": call_id, "output": ENCODE(output)}
            )
            return
        plain, _numbered, _first, _count = w.tool_output()
        if w.rng.random() < 0.5:  # newer: shell_command, plain-text output
            arguments = {"command": command, "workdir": w.plan.cwd}
            self.item(
                {
                    "type": "function_call",
                    "name": "shell_command",
                    "arguments": ENCODE(arguments),
                    "call_id": call_id,
                }
            )
            seconds = w.rng.randint(1, 900) / 100
            text = f"Exit code: 0\nWall time: {seconds} seconds\nOutput:\n{plain}"
        else:  # older: shell, output doubly JSON-encoded
            arguments = {"command": ["bash", "-lc", command], "workdir": w.plan.cwd}
            arguments["timeout_ms"] = 120_000
            self.item(
                {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": ENCODE(arguments),
                    "call_id": call_id,
                }
            )
            result = {"output": plain, "metadata": {"exit_code": 0, "duration_seconds": 0.4}}
            text = ENCODE(result)
        self.item({"type": "function_call_output", "call_id": call_id, "output": text})


def codex_turn(f: CodexFile, number: int, plants: list[str], image: int) -> None:
    w = f.w
    rng = w.rng
    f.emit(
        "turn_context",
        {
            "cwd": w.plan.cwd,
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "network_access": False},
            "model": "gpt-5.1-codex",
            "effort": "medium",
            "summary": "auto",
        },
    )
    person = [k for k in plants if k in PERSON_KINDS or (k == "two" and number % 2 == 0)]
    texts = [w.person_text(k) for k in person] or [w.person_text("")]
    for text in texts:
        content = [{"type": "input_text", "text": text}]
        images: list[str] = []
        if image:
            url = "data:image/png;base64," + w.base64(image)
            content.append({"type": "input_image", "image_url": url})
            images = [url]
            image = 0
        f.item({"type": "message", "role": "user", "content": content})
        f.event(
            {
                "type": "user_message",
                "message": text,
                "images": images,
                "local_images": [],
                "text_elements": [],
            }
        )
    f.tokens()
    if rng.random() < 0.7:
        summary = w.fill(DECOY_THINKING if rng.random() < 0.05 else rng.choice(THINKING))
        f.item(
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": summary}],
                "content": None,
                "encrypted_content": "gAAAAB" + w.base64(rng.randint(800, 4000)),
            }
        )
        f.event({"type": "agent_reasoning", "text": summary})
    for call in range(rng.randint(1, 6)):
        if call == 1 and rng.random() < 0.5:
            update = w.fill(AGENT[0])
            f.event({"type": "agent_message", "message": update, "phase": "commentary"})
            f.message("assistant", update)
        f.tool_call()
    f.tokens()
    agent = [k for k in plants if k in AGENT_KINDS or (k == "two" and number % 2 == 1)]
    for text in [w.agent_text(k) for k in agent] or [w.agent_text("")]:
        f.event({"type": "agent_message", "message": text, "phase": "final_answer"})
        f.message("assistant", text)


def codex_session(w: Writer, root: Path) -> list[tuple[Path, list[str]]]:
    """One Codex rollout file."""
    plan = w.plan
    rng = w.rng
    f = CodexFile(w)
    started = START + timedelta(milliseconds=plan.start_ms)
    f.emit(
        "session_meta",
        {
            "id": w.session,
            "timestamp": iso(plan.start_ms),
            "cwd": plan.cwd,
            "originator": "codex_cli_rs",
            "cli_version": rng.choice(CODEX_VERSIONS),
            "instructions": None,
            "source": "cli",
            "model_provider": "openai",
            "git": {
                "commit_hash": f"{rng.getrandbits(160):040x}",
                "branch": "main",
                "repository_url": "git@github.com:dev/project.git",
            },
        },
    )
    f.message("developer", "<permissions instructions>\nFilesystem sandboxing: workspace-write")
    f.message("user", w.fill(AGENTS_MD, cwd=plan.cwd))
    f.message("user", ENVIRONMENT.format(cwd=plan.cwd))
    plants = turn_plants(plan, rng)
    pending = dict(plants)
    compacted = plan.budget < COMPACT_ABOVE
    number = 0
    while f.size < plan.budget or pending or (plan.image and number < 2):
        codex_turn(f, number, pending.pop(number, []), plan.image * (number == 1))
        if not compacted and f.size > plan.budget // 2:
            compacted = True
            f.emit("compacted", {"message": w.fill(COMPACT_SUMMARY), "replacement_history": []})
        number += 1
    name = f"rollout-{started:%Y-%m-%dT%H-%M-%S}-{w.session}.jsonl"
    if plan.archived:
        return [(root / "archived_sessions" / name, f.lines)]
    return [(root / "sessions" / f"{started:%Y/%m/%d}" / name, f.lines)]


# --- the whole history -----------------------------------------------------------


def write_file(path: Path, lines: list[str], tally: Tally) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(lines) + "\n").encode("utf-8")
    path.write_bytes(data)
    tally.files += 1
    tally.bytes += len(data)
    if path.suffix == ".jsonl":
        tally.lines += len(lines)
        tally.longest_line = max(tally.longest_line, *(len(line) for line in lines))


def generate(root: Path, size_mb: float, seed: int) -> dict:
    """Write the history under ``root`` (``claude/``, ``codex/``, ``planted.json``); return the
    manifest that ``planted.json`` holds."""
    plans = plan_history(int(size_mb * MB), seed)
    pool = make_pool(seed)
    blob = make_base64(seed, IMAGE_BYTES[1] + 4096)
    ids = identifiers(random.Random(seed * 31 + 3), 2000)
    tally = Tally()
    for plan in plans:
        w = Writer(plan, seed, pool, blob, ids, tally)
        if plan.host == CLAUDE:
            files = claude_session(w, root / "claude")
        else:
            files = codex_session(w, root / "codex")
        tally.sessions[plan.host] += 1
        for path, lines in files + w.extra_files:
            write_file(path, lines, tally)
    manifest = {
        "seed": seed,
        "size_mb": size_mb,
        "words": {"rare": RARE, "common": COMMON, "two": " ".join(TWO)},
        "hits": tally.hits,
        "hit_sessions": {query: len(ids) for query, ids in tally.hit_sessions.items()},
        "sessions": tally.sessions,
        "files": tally.files,
        "bytes": tally.bytes,
        "lines": tally.lines,
        "longest_line": tally.longest_line,
        "tool_outputs": tally.tool_outputs,
        "tool_outputs_with_common": tally.tool_outputs_common,
    }
    (root / "planted.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def describe(manifest: dict) -> str:
    """The planted words and counts, for a person."""
    hits, sessions = manifest["hits"], manifest["hit_sessions"]
    words = manifest["words"]
    return "\n".join(
        [
            f"history: {manifest['bytes'] / MB:.0f} MB, {manifest['files']} files, "
            f"{manifest['lines']} lines (longest {manifest['longest_line'] / MB:.1f} MB); "
            f"sessions: {manifest['sessions'][CLAUDE]} Claude Code, "
            f"{manifest['sessions'][CODEX]} Codex",
            "planted (hits for `engramory trace --all-projects QUERY`, no --tools):",
            *(
                f"  {query:<6} {words[query]!r}: {hits[query]} hits in {sessions[query]} sessions"
                for query in ("rare", "common", "two")
            ),
            f"  tool outputs: {manifest['tool_outputs']}, "
            f"{manifest['tool_outputs_with_common']} holding {words['common']!r} "
            "(at least one in every transcript file)",
        ]
    )


# --- measuring -------------------------------------------------------------------

# Runs the real command (argv[4:]) from the directory argv[3] with its stdout in the
# file argv[1] and its stderr in argv[2]; prints its wall time, exit code, peak RSS and
# CPU time. The wrapper has no other child, so RUSAGE_CHILDREN is exactly the command's
# (with the processes it waited for: its peak RSS is its largest process's, its CPU time
# the sum over all of them).
WRAPPER = """\
import json, resource, subprocess, sys, time
with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
    start = time.perf_counter()
    code = subprocess.call(sys.argv[4:], stdout=out, stderr=err, cwd=sys.argv[3])
    wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime
print(json.dumps({"wall": wall, "code": code, "rss": usage.ru_maxrss, "cpu": cpu}))
"""
RSS_UNIT = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, else KiB
SANITY_LIMIT = "1000000"  # --limit for the untimed runs that count every hit

# Targets.
MAX_RARE_RATIO = 2.0
MAX_COMMON_RATIO = 5.0
MAX_PEAK_MB = 150.0


@dataclass(frozen=True)
class Query:
    """One measured search: its name, the words, extra flags, grep's word, the target."""

    name: str
    key: str  # the planted count it must find ("rare", "common", "two")
    words: tuple[str, ...]
    flags: tuple[str, ...]
    grep_word: str
    max_ratio: float


def queries(words: dict[str, str]) -> tuple[Query, ...]:
    """The measured queries, for the words a manifest records (``planted.json``)."""
    rare, common, two = words["rare"], words["common"], tuple(words["two"].split())
    json_flags = ("--format", "json")
    return (
        Query("rare", "rare", (rare,), (), rare, MAX_RARE_RATIO),
        Query("common", "common", (common,), (), common, MAX_COMMON_RATIO),
        Query("two words", "two", two, (), two[0], MAX_COMMON_RATIO),
        Query("json common", "common", (common,), json_flags, common, MAX_COMMON_RATIO),
    )


@dataclass(frozen=True)
class Run:
    """One measured child: wall time (s), exit code, peak RSS (bytes), CPU time (s)."""

    wall: float
    code: int
    peak: int
    cpu: float


@dataclass
class Result:
    """The runs of one query: grep, the command, rg (when installed)."""

    query: Query
    grep: list[Run] = field(default_factory=list)
    trace: list[Run] = field(default_factory=list)
    rg: list[Run] = field(default_factory=list)
    found: int | None = None  # hits the command reported (JSON lines), None: unknown

    @property
    def grep_time(self) -> float:
        return statistics.median(r.wall for r in self.grep)

    @property
    def trace_time(self) -> float:
        return statistics.median(r.wall for r in self.trace)

    @property
    def trace_cpu(self) -> float:
        return statistics.median(r.cpu for r in self.trace)

    @property
    def rg_time(self) -> float | None:
        return statistics.median(r.wall for r in self.rg) if self.rg else None

    @property
    def ratio(self) -> float:
        return self.trace_time / self.grep_time

    @property
    def peak_mb(self) -> float:
        return max(r.peak for r in self.trace) / MB


@dataclass(frozen=True)
class Bench:
    """Where the history is and how the command is run."""

    history: Path
    repo: Path
    cwd: Path  # the command's working directory, outside the history
    out: Path  # stdout of each measured child
    err: Path  # its stderr
    repeat: int

    @property
    def roots(self) -> list[str]:
        """The transcript roots that exist (what trace reads, what grep is given)."""
        candidates = (
            self.history / CLAUDE / "projects",
            self.history / CODEX / "sessions",
            self.history / CODEX / "archived_sessions",
        )
        return [str(p) for p in candidates if p.is_dir()]

    def env(self) -> dict[str, str]:
        """The children's environment: the repository importable, home and roots in the
        history, no ENGRAMORY_* settings, no colour."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
        env.update(
            PYTHONPATH=str(self.repo),
            HOME=str(self.history),
            CLAUDE_CONFIG_DIR=str(self.history / CLAUDE),
            CODEX_HOME=str(self.history / CODEX),
            NO_COLOR="1",
        )
        return env

    def measure(self, command: list[str]) -> Run:
        """Run ``command`` under the wrapper; its stdout goes to ``self.out``."""
        done = subprocess.run(
            [sys.executable, "-c", WRAPPER, str(self.out), str(self.err), str(self.cwd), *command],
            env=self.env(),
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(done.stdout)
        return Run(figures["wall"], figures["code"], figures["rss"] * RSS_UNIT, figures["cpu"])

    def trace_command(self, words: tuple[str, ...], flags: tuple[str, ...]) -> list[str]:
        command = [sys.executable, "-m", "engramory", "trace", "--all-projects"]
        return [*command, *flags, *words]

    def grep_command(self, word: str) -> list[str]:
        return ["grep", "-c", "-F", "-r", "--include=*.jsonl", "-e", word, *self.roots]

    def rg_command(self, word: str, rg: str) -> list[str]:
        flags = ["-c", "-F", "--no-ignore", "--hidden", "-g", "*.jsonl"]
        return [rg, *flags, "-e", word, *self.roots]


def count_hits(bench: Bench, query: Query, warnings: list[str]) -> int | None:
    """The command's hit count for ``query`` (every hit as a JSON line), or None with a
    warning when its output is not JSON Lines."""
    flags = ("--format", "json", "--limit", SANITY_LIMIT)
    run = bench.measure(bench.trace_command(query.words, flags))
    lines = [line for line in bench.out.read_bytes().splitlines() if line.strip()]
    try:
        hits = [json.loads(line) for line in lines]
    except ValueError:
        warnings.append(f"{query.name}: `--format json` output is not JSON Lines (exit {run.code})")
        return None
    if run.code not in (0, 1):
        said = bench.err.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        warnings.append(f"{query.name}: the command exited {run.code}: {said[-1] if said else ''}")
        return None
    if not all(isinstance(hit, dict) and "session" in hit for hit in hits):
        warnings.append(f"{query.name}: a JSON line has no 'session' key")
    return len(hits)


def bench_query(bench: Bench, query: Query, manifest: dict, warnings: list[str]) -> Result:
    """Count the hits once (untimed), then grep, the command and rg alternately."""
    result = Result(query)
    result.found = count_hits(bench, query, warnings)
    planted = manifest["hits"][query.key]
    if result.found is not None and result.found != planted:
        warnings.append(f"{query.name}: the command found {result.found} hits, {planted} planted")
    rg = shutil.which("rg")
    for _ in range(bench.repeat):
        result.grep.append(bench.measure(bench.grep_command(query.grep_word)))
        result.trace.append(bench.measure(bench.trace_command(query.words, query.flags)))
        if rg:
            result.rg.append(bench.measure(bench.rg_command(query.grep_word, rg)))
    codes = sorted({r.code for r in result.trace})
    if codes != [0] and result.found is not None:
        warnings.append(f"{query.name}: the command exited {codes} (0 expected: hits were planted)")
    return result


# --- reporting -----------------------------------------------------------------


def table(results: list[Result], manifest: dict, repeat: int) -> list[str]:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    gib = manifest["bytes"] / (1024 * MB)
    lines = [
        f"python {sys.version.split()[0]} — median of {repeat} run{'s' if repeat > 1 else ''}, "
        f"warm cache (peak = largest of the runs); {cpus} CPU(s)",
        f"history {gib:.2f} GiB: {manifest['files']} files, {manifest['lines']} lines, "
        f"{manifest['sessions'][CLAUDE]} Claude Code + {manifest['sessions'][CODEX]} Codex "
        f"sessions, longest line {manifest['longest_line'] / MB:.1f} MB",
        f"{'query':<12} {'grep -F':<8} {'trace':<8} {'ratio':<6} {'rg -F':<8} "
        f"{'trace/rg':<8} {'cpu':<8} {'peak MB':<8} {'s/GiB':<6} hits (planted)",
    ]
    for r in results:
        grep, trace = f"{r.grep_time:.2f} s", f"{r.trace_time:.2f} s"
        rg = f"{r.rg_time:.2f} s" if r.rg_time is not None else "-"
        rg_ratio = f"{r.trace_time / r.rg_time:.1f}x" if r.rg_time else "-"
        found = "?" if r.found is None else str(r.found)
        lines.append(
            f"{r.query.name:<12} {grep:<8} {trace:<8} {f'{r.ratio:.1f}x':<6} {rg:<8} "
            f"{rg_ratio:<8} {f'{r.trace_cpu:.2f} s':<8} {r.peak_mb:<8.0f} "
            f"{r.trace_time / gib:<6.2f} {found} ({manifest['hits'][r.query.key]})"
        )
    return lines


def targets(results: list[Result]) -> list[tuple[str, bool]]:
    """``(description, passed)`` for each target."""
    checks = []
    for r in results:
        text = f"{r.query.name}: trace <= {r.query.max_ratio:g}x grep -F ({r.ratio:.1f}x)"
        checks.append((text, r.ratio <= r.query.max_ratio))
    for r in results:
        text = f"{r.query.name}: peak memory <= {MAX_PEAK_MB:g} MB ({r.peak_mb:.0f} MB)"
        checks.append((text, r.peak_mb <= MAX_PEAK_MB))
    return checks


def report(results: list[Result], manifest: dict, repeat: int, warnings: list[str]) -> bool:
    """Print the table, warnings and targets; return whether every target passed."""
    lines = table(results, manifest, repeat)
    lines.extend(f"warning: {w}" for w in warnings)
    checks = targets(results)
    lines.append("")
    lines.extend(f"{'PASS' if ok else 'FAIL'}  {text}" for text, ok in checks)
    print("\n".join(lines))
    return all(ok for _text, ok in checks)


# --- main ------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--generate", metavar="DIR", type=Path, help="only write a history in DIR")
    parser.add_argument("--size-mb", type=float, default=1024, help="history size (default: 1024)")
    parser.add_argument("--seed", type=int, default=15, help="generator seed (default: 15)")
    parser.add_argument(
        "--history", metavar="DIR", type=Path, help="measure on a history made by --generate"
    )
    parser.add_argument(
        "--repo",
        metavar="PATH",
        type=Path,
        default=REPO_ROOT,
        help="repository root whose engramory package is measured (default: this one)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (default: 3)")
    parser.add_argument("--keep", action="store_true", help="keep the generated history")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    args = parser.parse_args(argv)
    if args.size_mb <= 0:
        parser.error("--size-mb must be positive")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.generate is not None and args.history is not None:
        parser.error("--generate and --history do not go together")
    return args


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def generate_only(target: Path, size_mb: float, seed: int) -> int:
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        print(f"error: {target} is not an empty directory; give a new one", file=sys.stderr)
        return 64
    started = time.perf_counter()
    manifest = generate(target, size_mb, seed)
    print(describe(manifest))
    print(f"written to {target} in {time.perf_counter() - started:.1f} s")
    return 0


def read_manifest(history: Path) -> dict | None:
    try:
        return json.loads((history / "planted.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(
            f"error: cannot read {history / 'planted.json'} ({exc}); "
            "make the history with --generate DIR",
            file=sys.stderr,
        )
        return None


def run_bench(args: argparse.Namespace, work: Path) -> int:
    if args.history is not None:
        history = args.history.resolve()
        manifest = read_manifest(history)
        if manifest is None:
            return 66
    else:
        history = work / "history"
        tick = time.perf_counter()
        manifest = generate(history, args.size_mb, args.seed)
        progress(f"generated in {time.perf_counter() - tick:.1f} s")
    progress(describe(manifest))
    (work / "cwd").mkdir()
    repo = args.repo.resolve()
    bench = Bench(history, repo, work / "cwd", work / "out", work / "err", args.repeat)
    bench.measure(bench.grep_command(manifest["words"]["rare"]))  # untimed warm-up read
    warnings: list[str] = []
    results = []
    for query in queries(manifest["words"]):
        progress(f"measuring {query.name}")
        results.append(bench_query(bench, query, manifest, warnings))
    passed = report(results, manifest, args.repeat, warnings)
    return 1 if args.check and not passed else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.generate is not None:
        return generate_only(args.generate, args.size_mb, args.seed)
    if shutil.which("grep") is None:
        print("error: grep not found on PATH; it is the baseline", file=sys.stderr)
        return 66
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="engramory-trace-bench-"))
    try:
        code = run_bench(args, work)
    finally:
        if args.keep and args.history is None:
            progress(f"history kept in {work / 'history'}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\nbenchmark wall time {time.perf_counter() - started:.0f} s")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
