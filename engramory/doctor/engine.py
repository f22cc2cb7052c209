"""Run the doctor: gather the store (the I/O), run the selected rules, collect findings.

One pass over the notes: each is read (bounded), parsed, handed to the note
rules, and reduced to a :class:`NoteSummary` before the next one is read.
Then the store rules run once over the index, the pointers and the note graph.
Every step is linear in the number of notes and index lines.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from engramory import markdown
from engramory.caps import Caps
from engramory.doctor import rules_index, rules_notes, rules_schema  # noqa: F401 (register)
from engramory.doctor.context import NoteCheck, NoteSummary, Options, Pointer, StoreView
from engramory.doctor.model import NOTE, RULES, STORE, Finding, Rule
from engramory.frontmatter import parse_bytes
from engramory.store import (
    ARCHIVE,
    EXTERNAL,
    FOUND,
    LIVE,
    MISSING,
    NOTE_READ_LIMIT,
    READ_OK,
    IndexFile,
    NoteFile,
    Read,
    Target,
    Walk,
    read_file,
    read_index,
    resolve_target,
    walk,
)

NOT_SLUG = "not-slug"


@dataclass(frozen=True)
class Report:
    """What the doctor found; ``findings`` are sorted (path, line, rule)."""

    root: str
    caps: Caps
    index: IndexFile
    notes: int
    findings: list[Finding]
    hints: dict[str, str]


def _strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


def _identity(path: str, read: Read) -> tuple[int, int] | None:
    if read.identity is not None:
        return read.identity
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


def _check_note(
    file: NoteFile, note_rules: list[Rule], options: Options, findings: list[Finding]
) -> NoteSummary:
    """Read one note, run the note rules on it, keep only its summary."""
    ok = file.status == READ_OK
    read = read_file(file.path, NOTE_READ_LIMIT) if ok else Read(file.status)
    parsed = parse_bytes(read.data) if read.data is not None else None
    check = NoteCheck(file, read, parsed, options)
    for rule in note_rules:
        for line, message in rule.check(check):
            findings.append(Finding(rule.id, rule.severity, file.rel, line, message))
    wikilinks: list[tuple[str, int]] = []
    if parsed is not None:
        body_start = parsed.body_line if parsed.closed else 1
        body = parsed.body if parsed.closed else (read.data or b"").decode("utf-8", "replace")
        wikilinks = [(_strip_md(t), n) for t, n in markdown.body_wikilinks(body, body_start)]
    status = read.status if file.status == READ_OK else file.status
    identity = _identity(file.path, read) if file.status != "escapes" else None
    return NoteSummary(file, status, identity, check.note_type, wikilinks)


class _PointerResolver:
    """Resolves index links to targets and live notes (each distinct target once)."""

    def __init__(self, root: str, notes: list[NoteSummary], archived: frozenset[str]) -> None:
        self.root = root
        self.archived = archived
        self.by_identity: dict[tuple[int, int], list[NoteSummary]] = {}
        for note in notes:
            if note.identity is not None:
                self.by_identity.setdefault(note.identity, []).append(note)
        self.cache: dict[str, Target] = {}

    def link(self, raw: str) -> tuple[Target, tuple[NoteSummary, ...]]:
        target = self.cache.get(raw)
        if target is None:
            target = self.cache[raw] = resolve_target(self.root, raw)
        if target.kind == FOUND and target.area == LIVE and target.identity is not None:
            return target, tuple(self.by_identity.get(target.identity, ()))
        return target, ()

    def wikilink(self, raw: str, view: StoreView) -> tuple[Target, tuple[NoteSummary, ...]]:
        slug = _strip_md(raw)
        if "/" in slug or "\\" in slug:
            return Target(NOT_SLUG, raw), ()
        notes = view.notes_named(slug)
        if notes:
            return Target(FOUND, raw, notes[0].rel, LIVE), tuple(notes)
        if slug.casefold() in self.archived:
            return Target(FOUND, raw, f"{ARCHIVE}/{slug}.md", ARCHIVE), ()
        return Target(MISSING, raw, reason=f"no note is named {slug}.md"), ()


def _pointers(view: StoreView, resolver: _PointerResolver) -> list[Pointer]:
    pointers = []
    for line in view.lines:
        for link in line.links:
            if link.form == markdown.UNPARSABLE:
                target = Target(MISSING, link.target, reason=link.reason)
                notes: tuple[NoteSummary, ...] = ()
            elif link.form == markdown.WIKI:
                target, notes = resolver.wikilink(link.target, view)
            else:
                target, notes = resolver.link(link.target)
                if target.kind in (EXTERNAL, "anchor"):
                    continue
            pointers.append(
                Pointer(line.number, link.form, link.target, target, line.section, notes)
            )
    return pointers


def _active(rules: Iterable[Rule], selected: set[str], options: Options) -> list[Rule]:
    return [r for r in rules if r.id in selected and (options.schema or not r.schema)]


def run(
    store_root: str,
    caps: Caps,
    options: Options | None = None,
    selected: Iterable[str] | None = None,
) -> Report:
    """Check the store at ``store_root``; ``selected`` limits the rules that run."""
    options = options or Options()
    chosen = set(RULES) if selected is None else set(selected)
    root = os.path.realpath(store_root)
    findings: list[Finding] = []

    files: Walk = walk(root)
    index = read_index(root, caps)
    note_rules = _active((r for r in RULES.values() if r.scope == NOTE), chosen, options)
    summaries = [_check_note(f, note_rules, options, findings) for f in files.notes]

    archived = frozenset(rel.rsplit("/", 1)[-1][:-3].casefold() for rel in files.archived)
    lines = markdown.classify_index(index.text) if index.text is not None else []
    view = StoreView(root, caps, options, index, files, lines, [], summaries, archived)
    view.pointers = _pointers(view, _PointerResolver(root, summaries, archived))

    for rule in _active((r for r in RULES.values() if r.scope == STORE), chosen, options):
        for path, line, message in rule.check(view):
            findings.append(Finding(rule.id, rule.severity, path, line, message))
    findings.sort(key=Finding.sort_key)
    live = sum(1 for note in summaries if note.status != "escapes")
    return Report(root, caps, index, live, findings, _hints(findings, view))


def _hints(findings: list[Finding], view: StoreView) -> dict[str, str]:
    """One how-to-fix line per rule that fired, in catalogue order."""
    fired = {finding.rule for finding in findings}
    return {
        rule.id: rule.fix_for(view) if rule.fix_for else rule.fix
        for rule in RULES.values()
        if rule.id in fired
    }
