"""Rules about the index (``MEMORY.md``) and its pointers."""

from __future__ import annotations

import re
from collections.abc import Iterator

from engramory.doctor.context import StoreView
from engramory.doctor.model import ERROR, INFO, STORE, WARNING, Example, Issue, rule, sample_note
from engramory.doctor.rules.patterns import Lazy
from engramory.secrets.excerpts import excerpt
from engramory.store import breach, markdown
from engramory.store.caps import Measurement
from engramory.store.disk import (
    ARCHIVE,
    BAD_SCHEME,
    ESCAPES,
    FOUND,
    INDEX_NAME,
    MISSING,
    NOT_REGULAR,
    TOO_LARGE,
    UNREADABLE,
)
from engramory.store.markdown import IndexLine
from engramory.util import fsutil
from engramory.util.textfmt import human_size

_ARCHIVED_LINE = Lazy(r"^[ \t>*\-+]*(?:\*\*)?archived?\b[^:]{0,40}[:：]", re.IGNORECASE)


def _measured(view: StoreView) -> Measurement:
    return view.index.measured or Measurement(None, 0)


@rule(
    "no-index",
    ERROR,
    "the store has no regular-file MEMORY.md",
    fires=(
        Example(
            "the store holds notes but no `MEMORY.md`", {"a.md": sample_note("a")}, index=False
        ),
    ),
    quiet=(Example("`MEMORY.md` is a regular file, even an empty one", {"MEMORY.md": ""}),),
    scope=STORE,
    fix="create MEMORY.md from templates/MEMORY.md and add one pointer line per note",
)
def no_index(view: StoreView) -> Iterator[Issue]:
    """Fires: the store directory holds no ``MEMORY.md`` (or a directory of that name).
    Quiet: ``MEMORY.md`` is a regular file, even an empty one."""
    if view.index.status == MISSING:
        what = f"MEMORY.md is {view.index.error}" if view.index.error else "MEMORY.md is missing"
        yield (
            INDEX_NAME,
            None,
            f"{what}: the index is what a host loads every session; create it "
            "(templates/MEMORY.md) with one pointer line per note",
        )


@rule(
    "index-escapes-store",
    ERROR,
    "MEMORY.md resolves outside the store (not read)",
    fires=(
        Example(
            "`MEMORY.md` is a symlink to `../elsewhere/MEMORY.md`",
            symlinks={"MEMORY.md": "../elsewhere/MEMORY.md"},
            outside={"elsewhere/MEMORY.md": "# Memory index\n"},
        ),
    ),
    quiet=(
        Example("a regular `MEMORY.md`", {"MEMORY.md": "# Memory index\n"}),
        Example(
            "`MEMORY.md` is a symlink to a file inside the store",
            {"index/current.md": "# Memory index\n"},
            symlinks={"MEMORY.md": "index/current.md"},
        ),
    ),
    scope=STORE,
    fix="replace the MEMORY.md symlink with the real index file inside the store",
)
def index_escapes_store(view: StoreView) -> Iterator[Issue]:
    """Fires: ``MEMORY.md`` is a symlink to ``/elsewhere/MEMORY.md``.
    Quiet: a regular ``MEMORY.md``, or a symlink to a file inside the store."""
    if view.index.status == ESCAPES:
        yield (
            INDEX_NAME,
            None,
            "MEMORY.md is a symlink that resolves outside the store, so it was not read; "
            "nothing else about the index was checked",
        )


@rule(
    "index-symlink",
    WARNING,
    "MEMORY.md is a symlink that stays inside the store",
    fires=(
        Example(
            "`MEMORY.md -> index/current.md` inside the store",
            {"index/current.md": "# Memory index\n"},
            symlinks={"MEMORY.md": "index/current.md"},
        ),
    ),
    quiet=(Example("`MEMORY.md` is a regular file", {"MEMORY.md": "# Memory index\n"}),),
    scope=STORE,
    fix="make MEMORY.md a regular file (agents are told to distrust a symlinked index)",
)
def index_symlink(view: StoreView) -> Iterator[Issue]:
    """Fires: ``MEMORY.md -> index/current.md`` inside the store.
    Quiet: ``MEMORY.md`` is a regular file."""
    if view.index.symlink and view.index.status != ESCAPES:
        yield (
            INDEX_NAME,
            None,
            "MEMORY.md is a symlink: agents following the protocol treat a symlinked index "
            "as suspect; replace it with the file it points to",
        )


@rule(
    "index-unreadable",
    ERROR,
    "MEMORY.md exists but cannot be read",
    fires=(
        Example(
            "`MEMORY.md` without read permission",
            {"MEMORY.md": "# Memory index\n"},
            modes={"MEMORY.md": 0o000},
        ),
    ),
    quiet=(Example("a readable `MEMORY.md`", {"MEMORY.md": "# Memory index\n"}),),
    scope=STORE,
    fix="fix the permissions of MEMORY.md so the agent (and the doctor) can read it",
    fix_for=lambda view: (
        "shorten the store's path: the file system calls the index's path too long"
        if view.index.error == fsutil.NAME_TOO_LONG
        else "fix the permissions of MEMORY.md so the agent (and the doctor) can read it"
    ),
)
def index_unreadable(view: StoreView) -> Iterator[Issue]:
    """Fires: ``MEMORY.md`` is not readable (permissions, I/O error).
    Quiet: a readable ``MEMORY.md``."""
    if view.index.status in (UNREADABLE, NOT_REGULAR):
        yield (INDEX_NAME, None, f"cannot read MEMORY.md ({view.index.error})")


@rule(
    "index-too-large",
    ERROR,
    "MEMORY.md is bigger than max(8 x hard bytes, 1 MiB): not parsed",
    fires=(Example("a 2 MB `MEMORY.md` with the default caps", sizes={"MEMORY.md": 2_000_000}),),
    quiet=(
        Example(
            "a 30,000-byte `MEMORY.md` (over the cap, but parsed and reported by the cap rules)",
            {"MEMORY.md": "a line of the index\n" * 1500},
        ),
    ),
    scope=STORE,
    fix="the index is far past any load window: split its content into notes and keep "
    "one short pointer line each",
)
def index_too_large(view: StoreView) -> Iterator[Issue]:
    """Fires: a 2 MB ``MEMORY.md`` with the default caps.
    Quiet: a 30,000-byte ``MEMORY.md`` (over the cap, but parsed and reported by the cap rules)."""
    if view.index.status == TOO_LARGE:
        limit = view.caps.read_limit()
        yield (
            INDEX_NAME,
            None,
            f"MEMORY.md is {human_size(_measured(view).bytes)}, past the {human_size(limit)} "
            "the doctor parses: no host loads an index this size; it was not checked further",
        )


def _compaction_advice(view: StoreView, hard: bool) -> str:
    advice = breach.words(_measured(view), view.caps, hard)[1]
    return advice or "shorten long lines, merge duplicates, archive cold notes"


@rule(
    "index-over-hard-cap",
    ERROR,
    "MEMORY.md is over the hard cap (lines or bytes)",
    fires=(
        Example("a 201-line index (default caps)", {"MEMORY.md": "a line\n" * 201}),
        Example("a one-line index of 25001 bytes", {"MEMORY.md": "x" * 25_000 + "\n"}),
    ),
    quiet=(Example("exactly 200 lines and 25000 bytes", {"MEMORY.md": ("x" * 124 + "\n") * 200}),),
    scope=STORE,
    fix="compact the index now: when bytes are over, shorten the longest lines first "
    "(a title and a hook; the detail belongs in the note); merge duplicate pointers; "
    "archive cold notes and drop their lines",
    fix_for=lambda view: "compact the index now: " + _compaction_advice(view, hard=True),
)
def index_over_hard_cap(view: StoreView) -> Iterator[Issue]:
    """Fires: a 201-line index, or one of 25001 bytes (default caps).
    Quiet: exactly 200 lines and 25000 bytes."""
    if view.index.text is None:
        return
    over_hard = breach.words(_measured(view), view.caps)[0]
    if over_hard:
        yield (
            INDEX_NAME,
            None,
            f"the index is {breach.size_text(_measured(view))}, {over_hard}: "
            "hosts stop loading it there, so the tail is invisible to the agent",
        )


@rule(
    "index-over-soft-cap",
    WARNING,
    "MEMORY.md is over a soft cap but within the hard caps",
    fires=(Example("a 151-line index (default caps)", {"MEMORY.md": "a line\n" * 151}),),
    quiet=(
        Example("a 150-line index", {"MEMORY.md": "a line\n" * 150}),
        Example(
            "a 201-line index (reported by index-over-hard-cap)",
            {"MEMORY.md": "a line\n" * 201},
        ),
    ),
    scope=STORE,
    fix="plan a compaction pass: shorten long pointer lines, merge duplicates, "
    "archive notes nobody opens",
    fix_for=lambda view: "plan a compaction pass: " + _compaction_advice(view, hard=False),
)
def index_over_soft_cap(view: StoreView) -> Iterator[Issue]:
    """Fires: a 151-line index (default caps).
    Quiet: a 150-line index; an index over a hard cap (reported by index-over-hard-cap)."""
    if view.index.text is None:
        return
    if breach.words(_measured(view), view.caps)[0]:
        return
    over_soft = breach.words(_measured(view), view.caps, hard=False)[0]
    if over_soft:
        yield (
            INDEX_NAME,
            None,
            f"the index is {breach.size_text(_measured(view))}, {over_soft}: "
            "compact it before it reaches the hard cap",
        )


def _non_pointer_runs(view: StoreView) -> Iterator[list[IndexLine]]:
    pointer_lines = {p.line for p in view.pointers}
    run: list[IndexLine] = []
    for line in view.lines:
        prose = line.kind in (markdown.TEXT, markdown.CODE) and line.number not in pointer_lines
        if prose and not _ARCHIVED_LINE.match(line.text):
            run.append(line)
            continue
        if run:
            yield run
            run = []
        if prose:
            yield [line]
    if run:
        yield run


@rule(
    "index-line-not-pointer",
    WARNING,
    "an index line that holds prose or only remote links, not a pointer to a note",
    fires=(
        Example(
            "`Deploys go through the staging branch first.` as an index line",
            {"MEMORY.md": "# Memory index\n\nDeploys go through the staging branch first.\n"},
        ),
    ),
    quiet=(
        Example(
            "a pointer line, a heading, blank lines, a blockquote, an HTML comment",
            {
                "MEMORY.md": "# Memory index\n\n## project\n"
                "- [Deploy flow](deploy-flow.md) — how releases reach prod\n\n"
                "> kept short on purpose\n<!-- one pointer per note -->\n",
                "deploy-flow.md": sample_note("deploy-flow", "project"),
            },
        ),
    ),
    scope=STORE,
    fix="move the content into a note (or a new one) and leave one pointer line: "
    "'- [title](note.md) — when to open it'",
)
def index_line_not_pointer(view: StoreView) -> Iterator[Issue]:
    """Fires: ``Deploys go through the staging branch first.`` as an index line.
    Quiet: ``- [Deploy flow](deploy-flow.md) — how releases reach prod``, headings,
    blank lines, blockquotes, HTML comments, table rules."""
    for run in _non_pointer_runs(view):
        first = run[0]
        if len(run) == 1 and _ARCHIVED_LINE.match(first.text):
            yield (
                INDEX_NAME,
                first.number,
                f"{excerpt(first.text.strip())} names an archived topic without a pointer: "
                "its notes are stranded; point at the archived note or a listing, e.g. "
                "'- [Topic (archived)](archive/topic.md)'",
            )
            continue
        last = run[-1].number
        where = "this line holds" if len(run) == 1 else f"lines {first.number}–{last} hold"
        hint = ""
        if any(markdown.has_code_span_path(line.text) for line in run):
            hint = "; a path in `code` is not a link, write [title](path.md)"
        elif any(line.links for line in run):
            hint = "; remote links are not pointers to notes"
        yield (
            INDEX_NAME,
            first.number,
            f"{where} no pointer to a note (content leaked into the index){hint}: "
            "move it into a note and keep one pointer line",
        )


@rule(
    "index-line-too-long",
    WARNING,
    "a pointer line longer than 200 characters (--max-index-line)",
    fires=(
        Example(
            "`- [x](x.md) — ` followed by 250 characters of explanation",
            {"MEMORY.md": "- [x](x.md) — " + "a" * 250 + "\n", "x.md": sample_note("x")},
        ),
        Example(
            "a 60-character pointer line with `--max-index-line 50`",
            {"MEMORY.md": "- [x](x.md) — " + "a" * 46 + "\n", "x.md": sample_note("x")},
            flags=("--max-index-line", "50"),
        ),
    ),
    quiet=(
        Example(
            "a 200-character pointer line (the default limit)",
            {"MEMORY.md": "- [x](x.md) — " + "a" * 186 + "\n", "x.md": sample_note("x")},
        ),
    ),
    scope=STORE,
    fix="cut long pointer lines to a title and a short hook; the detail belongs in the note",
)
def index_line_too_long(view: StoreView) -> Iterator[Issue]:
    """Fires: ``- [x](x.md) — `` followed by 250 characters of explanation.
    Quiet: a 200-character pointer line (with the default limit)."""
    limit = view.options.max_index_line
    pointer_lines = {p.line for p in view.pointers}
    for line in view.lines:
        if line.number in pointer_lines and len(line.text) > limit:
            yield (
                INDEX_NAME,
                line.number,
                f"pointer line is {len(line.text)} characters (limit {limit}): keep a title "
                "and a short hook, and move the rest into the note",
            )


@rule(
    "pointer-bad-scheme",
    ERROR,
    "a pointer with a non-remote URL scheme (file:, javascript:, data:, svn: ...)",
    fires=(
        Example("`[x](file:///etc/passwd)`", {"MEMORY.md": "- [x](file:///etc/passwd)\n"}),
        Example("`[x](javascript:alert(1))`", {"MEMORY.md": "- [x](javascript:alert(1))\n"}),
    ),
    quiet=(
        Example(
            "`[x](x.md)`, `[docs](https://example.com/x.md)`, `[me](mailto:a@b.c)`",
            {
                "MEMORY.md": "- [x](x.md)\n- [docs](https://example.com/x.md)\n"
                "- [me](mailto:a@b.c)\n",
                "x.md": sample_note("x"),
            },
        ),
    ),
    scope=STORE,
    fix="point at notes with store-relative paths ([title](note.md)); "
    "file: and other local schemes can reach outside the store",
)
def pointer_bad_scheme(view: StoreView) -> Iterator[Issue]:
    """Fires: ``[x](file:///etc/passwd)``, ``[x](javascript:alert(1))``.
    Quiet: ``[x](x.md)``, ``[docs](https://example.com/x.md)``, ``[me](mailto:a@b.c)``."""
    for pointer in view.pointers:
        if pointer.target.kind == BAD_SCHEME:
            yield (
                INDEX_NAME,
                pointer.line,
                f"{excerpt(pointer.raw)} uses {pointer.target.reason}: only http(s), ftp(s), "
                "ssh, git+... and mailto: links are external; a note pointer is a relative path",
            )


@rule(
    "pointer-escapes-store",
    ERROR,
    "a pointer that resolves outside the store (.., absolute path, symlink out)",
    fires=(
        Example(
            "`[x](../secrets.md)`",
            {"MEMORY.md": "- [x](../secrets.md)\n"},
            outside={"secrets.md": "a secret\n"},
        ),
        Example("`[x](/etc/x.md)`", {"MEMORY.md": "- [x](/etc/x.md)\n"}),
        Example("`[x](%2e%2e/x.md)`", {"MEMORY.md": "- [x](%2e%2e/x.md)\n"}),
        Example(
            "`[x](link.md)` where `link.md` is a symlink to a file outside the store",
            {"MEMORY.md": "- [x](link.md)\n"},
            symlinks={"link.md": "../diary.md"},
            outside={"diary.md": sample_note("diary")},
        ),
    ),
    quiet=(
        Example(
            "`[x](sub/../x.md)` when `x.md` is in the store",
            {"MEMORY.md": "- [x](sub/../x.md)\n", "x.md": sample_note("x")},
        ),
    ),
    scope=STORE,
    fix="point only at notes inside the store; an agent must never open a pointer that "
    "leads out of it",
)
def pointer_escapes_store(view: StoreView) -> Iterator[Issue]:
    """Fires: ``[x](../secrets.md)``, ``[x](/etc/x.md)``, ``[x](C:\\x.md)``, ``[x](%2e%2e/x.md)``,
    or ``[x](link.md)`` where ``link.md`` is a symlink to a file outside the store.
    Quiet: ``[x](sub/../x.md)`` when ``x.md`` is in the store."""
    for pointer in view.pointers:
        if pointer.target.kind == ESCAPES:
            yield (
                INDEX_NAME,
                pointer.line,
                f"{excerpt(pointer.raw)} leads outside the store ({pointer.target.reason}); "
                "it was not followed, and an agent must not follow it either",
            )


@rule(
    "pointer-missing",
    ERROR,
    "a pointer whose target does not exist or is not a regular file",
    fires=(
        Example("`[x](gone.md)`", {"MEMORY.md": "- [x](gone.md)\n"}),
        Example("`[[no-such-slug]]` in the index", {"MEMORY.md": "- [[no-such-slug]]\n"}),
        Example(
            "`[x](my note.md)` (a raw space: not a parsable link)",
            {"MEMORY.md": "- [x](my note.md)\n", "my note.md": sample_note("my note")},
        ),
    ),
    quiet=(
        Example(
            "`[x](x.md)` with `x.md` present; `[y](<my note.md>)`",
            {
                "MEMORY.md": "- [x](x.md)\n- [y](<my note.md>)\n",
                "x.md": sample_note("x"),
                "my note.md": sample_note("my note"),
            },
        ),
    ),
    scope=STORE,
    fix="fix the path of each broken pointer, or delete the line if the note is gone",
)
def pointer_missing(view: StoreView) -> Iterator[Issue]:
    """Fires: ``[x](gone.md)``; ``[[no-such-slug]]`` in the index; ``[x](my note.md)``
    (a raw space: not a parsable link).
    Quiet: ``[x](x.md)`` with ``x.md`` present; ``[x](<my note.md>)``."""
    for pointer in view.pointers:
        if pointer.target.kind == MISSING:
            yield (
                INDEX_NAME,
                pointer.line,
                f"{excerpt(pointer.raw)} points to nothing: {pointer.target.reason}",
            )


@rule(
    "pointer-into-archive",
    INFO,
    "a pointer into archive/ (fine for a retired-topic listing)",
    fires=(
        Example(
            "`[Old search work](archive/search.md)`",
            {
                "MEMORY.md": "- [Old search work](archive/search.md)\n",
                "archive/search.md": sample_note("search"),
            },
        ),
    ),
    quiet=(
        Example(
            "`[Search](search.md)`",
            {"MEMORY.md": "- [Search](search.md)\n", "search.md": sample_note("search")},
        ),
    ),
    scope=STORE,
    fix="keep archive pointers to listings of retired topics; live notes belong at the top level",
)
def pointer_into_archive(view: StoreView) -> Iterator[Issue]:
    """Fires: ``[Old search work](archive/search.md)``.
    Quiet: ``[Search](search.md)``."""
    for pointer in view.pointers:
        if pointer.target.kind == FOUND and pointer.target.area == ARCHIVE:
            yield (
                INDEX_NAME,
                pointer.line,
                f"{excerpt(pointer.raw)} points into archive/: fine for a retired-topic "
                "listing; a live note should move back to the top level",
            )


@rule(
    "duplicate-pointer",
    WARNING,
    "one note pointed to more than once (index budget wasted)",
    fires=(
        Example(
            "`[a](a.md)` on line 1 and `[A again](./a.md#x)` on line 3",
            {"MEMORY.md": "- [a](a.md)\n\n- [A again](./a.md#x)\n", "a.md": sample_note("a")},
        ),
    ),
    quiet=(
        Example(
            "two pointers to two different notes",
            {
                "MEMORY.md": "- [a](a.md)\n- [b](b.md)\n",
                "a.md": sample_note("a"),
                "b.md": sample_note("b"),
            },
        ),
    ),
    scope=STORE,
    fix="keep one pointer line per note and delete the repeats",
    repair="duplicate-pointer",
)
def duplicate_pointer(view: StoreView) -> Iterator[Issue]:
    """Fires: ``[a](a.md)`` on line 3 and ``[A again](./a.md#x)`` on line 9.
    Quiet: two pointers to two different notes; a broken pointer whose name matches a note."""
    first_line: dict[int, int] = {}
    for pointer in view.pointers:
        for number in pointer.notes:
            if number not in first_line:
                first_line[number] = pointer.line
            else:
                yield (
                    INDEX_NAME,
                    pointer.line,
                    f"{view.notes[number].rel} is already pointed to on line "
                    f"{first_line[number]}: one pointer per note is enough",
                )


@rule(
    "pointer-section-mismatch",
    INFO,
    "a note listed under a ## type heading whose type is another of the four",
    fires=(
        Example(
            "`[x](x.md)` under `## user` when `x.md` has `type: feedback`",
            {"MEMORY.md": "## user\n- [x](x.md)\n", "x.md": sample_note("x", "feedback")},
        ),
    ),
    quiet=(
        Example(
            "the same pointer under `## feedback`",
            {"MEMORY.md": "## feedback\n- [x](x.md)\n", "x.md": sample_note("x", "feedback")},
        ),
        Example(
            "the same pointer under a heading that names no type",
            {"MEMORY.md": "## Deploys\n- [x](x.md)\n", "x.md": sample_note("x", "feedback")},
        ),
    ),
    scope=STORE,
    schema=True,
    fix="move the pointer under the heading of the note's type (or fix the note's type)",
    repair="pointer-section-mismatch",
)
def pointer_section_mismatch(view: StoreView) -> Iterator[Issue]:
    """Fires: ``[x](x.md)`` under ``## user`` when ``x.md`` has ``type: feedback``.
    Quiet: the same pointer under ``## feedback``, or under a heading that names no type."""
    for pointer in view.pointers:
        if pointer.section is None:
            continue
        for note in (view.notes[number] for number in pointer.notes):
            if note.note_type is not None and note.note_type != pointer.section:
                yield (
                    INDEX_NAME,
                    pointer.line,
                    f"{note.rel} is a {note.note_type} note listed under '## "
                    f"{pointer.section}': move the line under '## {note.note_type}'",
                )
