"""Reading Claude Code's native auto-memory folder as Engramory notes: the mapping, pure.

The host writes ``name`` (a title), ``description`` and ``type`` -- some builds
nest ``type`` and ``originSessionId`` under ``metadata:`` -- and no dates
(research/claude-native-memory.md §3). Engramory's frontmatter parser ignores
indentation, so the nested keys already read as plain ones: the note is
rewritten with ``type`` at the top level, the ``metadata:`` header dropped,
``originSessionId``, ``modified`` and every other key kept under its own name
with its value, and the body byte for byte (a file without frontmatter too).
``created``/``updated`` come from the note (``modified``, the host's, stands for
``updated``), else from the file's first and last git commit, else from its
modification date -- never today's -- and the candidate says which. The
pointer keeps the host index's title and hook for the file when it has a line
for it.
"""

from __future__ import annotations

from engramory.interop.importer import (
    DATES_ENTRY,
    Candidate,
    DateLookup,
    Skip,
    SourceFile,
    chosen_dates,
)
from engramory.interop.memoir_import import TYPE_MAP, as_date, first_heading, one_line
from engramory.store.frontmatter import (
    DUPLICATE_KEY,
    NOTE_TYPES,
    STRAY_QUOTE,
    UNCLOSED_QUOTE,
    parse,
)

FRONTMATTER_ERROR = "frontmatter-error"
NESTED_HEADER = "metadata"
# Problems that still leave every value readable (best effort): the note is imported.
TOLERATED = frozenset({STRAY_QUOTE, UNCLOSED_QUOTE, DUPLICATE_KEY})


def type_from_name(stem: str) -> str | None:
    """``feedback`` for ``feedback_testing`` or ``feedback-testing``, else ``None``."""
    for note_type in NOTE_TYPES:
        if stem.startswith(note_type) and stem[len(note_type) : len(note_type) + 1] in (
            "_",
            "-",
        ):
            return note_type
    return None


def note_type_of(value: str, stem: str) -> tuple[str, str | None]:
    """``(type, what was done)``: the note's own type, a memoir type mapped, else the file
    name's prefix, else ``reference``."""
    if value in NOTE_TYPES:
        return value, None
    if value in TYPE_MAP:
        return TYPE_MAP[value], f"type {value} read as {TYPE_MAP[value]}"
    guessed = type_from_name(stem)
    shown = f"type {value!r}" if value else "no type"
    if guessed is not None:
        return guessed, f"{shown}: {guessed}, from the file name"
    return "reference", f"{shown}: imported as reference"


def index_hooks(index_text: str) -> dict[str, tuple[str, str]]:
    """File name -> ``(title, hook)`` from the host's index lines ``- [Title](file.md) — hook``
    (the first link of a line to a plain ``.md`` file; the first line for a file wins)."""
    hooks: dict[str, tuple[str, str]] = {}
    for line in index_text.split("\n"):
        opener = line.find("](")
        if opener < 0:
            continue
        close = line.find(")", opener + 2)
        start = line.rfind("[", 0, opener)
        if close < 0 or start < 0:
            continue
        target = line[opener + 2 : close].strip().strip("<>")
        if target.startswith("./"):
            target = target[2:]
        if "/" in target or not target.lower().endswith(".md"):
            continue
        title = line[start + 1 : opener].strip()
        hook = line[close + 1 :].strip().lstrip("—–-:").strip()
        hooks.setdefault(target, (title, hook))
    return hooks


def map_note(
    source: SourceFile, hooks: dict[str, tuple[str, str]], lookup: DateLookup
) -> Candidate | Skip:
    """One note of the host's folder as a note to import, or why it is not. ``lookup``: the
    file's dates (git, else its modification date), asked only when the note has none."""
    parsed = parse(source.text)
    fatal = [p for p in parsed.problems if p.kind not in TOLERATED]
    if fatal:
        return Skip(
            source.name,
            FRONTMATTER_ERROR,
            f"line {fatal[0].line}: {fatal[0].message} (fix it in the source, then import again)",
        )
    title_hook = hooks.get(source.name)
    notes: list[str] = []
    if parsed.problems:
        notes.append(
            "a quoting problem or a repeated key in the source's frontmatter: the value kept "
            "as written (the first, when repeated), quoted as the frontmatter needs"
        )
    if not parsed.present:
        given = {}
        body = source.text
        heading = first_heading(source.text)
        notes.append("no frontmatter: name and description from the file and its # heading")
    else:
        given = dict(parsed.fields)
        lines = source.text.split("\n")
        for problem in parsed.problems:  # a quoting problem: the value exactly as written
            if problem.kind != DUPLICATE_KEY and problem.key in given:
                raw = lines[parsed.key_lines[problem.key] - 1]
                given[problem.key] = raw.split(":", 1)[1].strip() if ":" in raw else ""
        body = parsed.body
        heading = None
        if not given.get(NESTED_HEADER, "").strip():
            given.pop(NESTED_HEADER, None)
    note_type, typed = note_type_of(given.pop("type", "").strip(), source.stem)
    if typed:
        notes.append(typed)
    name = given.pop("name", "").strip() or source.stem
    description = given.pop("description", "").strip()
    if not description:
        description = one_line((title_hook or ("", ""))[1]) or heading or name
    fields = {"name": name, "description": description, "type": note_type}
    if "scope" in given:
        fields["scope"] = given.pop("scope")
    created, updated = given.pop("created", "").strip(), given.pop("updated", "").strip()
    if created or updated:  # the note's own, as written (the doctor judges them)
        fields.update({"created": created or updated, "updated": updated or created})
        dates_from = DATES_ENTRY
    else:
        dates, dates_from = chosen_dates(None, as_date(given.get("modified")), lookup)
        fields.update(dates)
    fields.update(given)
    title, hook = title_hook if title_hook and title_hook[0] else (name, description)
    return Candidate(
        source.stem,
        note_type,
        fields,
        body,
        title,
        hook or description,
        fields.get("updated", ""),
        source.name,
        tuple(notes),
        dates_from=dates_from,
    )
