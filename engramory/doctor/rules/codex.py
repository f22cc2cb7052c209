"""The Codex rules (profile ``codex-memories``): ``memory_summary.md``, the one file Codex
injects, and ``MEMORY.md``, its handbook of task groups (field-2026-12.md §1 "Codex")."""

from __future__ import annotations

from collections.abc import Iterator

from engramory.cuts import codex as codexcut
from engramory.doctor.context import StoreView
from engramory.doctor.model import STORE, WARNING, Example, Issue, rule
from engramory.doctor.rules.hostread import file_bytes
from engramory.store.caps import INDEX_NAME
from engramory.util.textfmt import printable

SUMMARY = codexcut.LOADED_FILE
HEADER = "v1"
TASK_GROUP = "# Task Group:"
PROFILE_FLAGS = ("--profile", "codex-memories")
HANDBOOK = "# Task Group: deploys\nscope: repo\n\n## Task 1\nship it\n"


def _first_line(data: bytes) -> str:
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    return text.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", "replace")


@rule(
    "codex-summary-header",
    WARNING,
    "memory_summary.md does not open with Codex's `v1` header line",
    fires=(
        Example(
            "a summary whose first line is a heading",
            {SUMMARY: "# Summary\nprefers tabs\n", INDEX_NAME: HANDBOOK},
            flags=PROFILE_FLAGS,
        ),
    ),
    quiet=(
        Example(
            "a summary opening with v1",
            {SUMMARY: "v1\nprefers tabs\n", INDEX_NAME: HANDBOOK},
            flags=PROFILE_FLAGS,
        ),
        Example("no summary yet", {INDEX_NAME: HANDBOOK}, flags=PROFILE_FLAGS),
    ),
    scope=STORE,
    fix="leave the folder to Codex: reset its memories from the /memories panel and let it "
    "regenerate them (Engramory never writes Codex's managed folder)",
)
def codex_summary_header(view: StoreView) -> Iterator[Issue]:
    """Fires: memory_summary.md's first line is not exactly ``v1``. Quiet: no summary."""
    data = file_bytes(view.root, SUMMARY)
    if data is None:
        return
    first = _first_line(data)
    if first != HEADER:
        yield (
            SUMMARY,
            1,
            f"the first line is {printable(first[:60])!r}, not `{HEADER}`: Codex writes `{HEADER}` "
            "there, so this summary was edited by hand or by another tool",
        )


@rule(
    "codex-summary-over-cut",
    WARNING,
    "memory_summary.md is over the 2,500 tokens Codex injects: its middle is cut silently",
    fires=(
        Example(
            "a 12,000-byte summary (3,000 tokens at Codex's 4 bytes a token)",
            {INDEX_NAME: HANDBOOK},
            sizes={SUMMARY: 12_000},
            flags=PROFILE_FLAGS,
        ),
    ),
    quiet=(
        Example(
            "a 9,000-byte summary",
            {INDEX_NAME: HANDBOOK},
            sizes={SUMMARY: 9_000},
            flags=PROFILE_FLAGS,
        ),
    ),
    scope=STORE,
    fix="`engramory check --host codex` names the lines Codex does not load; ask Codex to "
    "consolidate its memories (Engramory never writes Codex's managed folder)",
)
def codex_summary_over_cut(view: StoreView) -> Iterator[Issue]:
    """Fires: the summary's tokens (1 per 4 bytes, rounded up) pass 2,500. Quiet: within."""
    data = file_bytes(view.root, SUMMARY)
    if data is None:
        return
    cut = codexcut.cut(data)
    if cut.loads_all:
        return
    lines = cut.dropped
    where = f"lines {lines[0]}-{lines[-1]} are" if lines else "part of a line is"
    yield (
        SUMMARY,
        lines[0] if lines else None,
        f"{cut.used:,} tokens, {cut.over_by:,} over the {cut.limit:,} Codex injects: it keeps "
        f"the beginning and the end, and {where} not loaded",
    )


@rule(
    "codex-task-group",
    WARNING,
    "MEMORY.md (Codex's handbook) has a top-level heading that is not a `# Task Group:` block",
    fires=(
        Example(
            "a handbook with a `# Notes` heading",
            {INDEX_NAME: HANDBOOK + "# Notes\nloose text\n", SUMMARY: "v1\n"},
            flags=PROFILE_FLAGS,
        ),
        Example(
            "a handbook with text and no task group",
            {INDEX_NAME: "loose text\n", SUMMARY: "v1\n"},
            flags=PROFILE_FLAGS,
        ),
    ),
    quiet=(
        Example(
            "a handbook of task groups",
            {INDEX_NAME: HANDBOOK, SUMMARY: "v1\n"},
            flags=PROFILE_FLAGS,
        ),
    ),
    scope=STORE,
    fix="leave MEMORY.md to Codex's consolidation, which writes it as `# Task Group:` blocks "
    "(Engramory never writes Codex's managed folder)",
)
def codex_task_group(view: StoreView) -> Iterator[Issue]:
    """Fires: a level-1 heading other than ``# Task Group:`` (outside code fences), or text
    with no task group at all. Quiet: only task groups; an empty or absent handbook."""
    data = file_bytes(view.root, INDEX_NAME)
    if data is None:
        return
    groups = 0
    fenced = False
    first_text = None
    for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not stripped:
            continue
        first_text = first_text or number
        if line.startswith(TASK_GROUP):
            groups += 1
        elif line.startswith("# "):
            yield (
                INDEX_NAME,
                number,
                f"heading {printable(line[:60])!r} is not a `{TASK_GROUP}` block",
            )
    if first_text is not None and not groups:
        yield (INDEX_NAME, first_text, f"no `{TASK_GROUP}` block: not the handbook Codex writes")
