"""Run the doctor: gather the store (the I/O), run the selected rules, collect findings.

One pass over the notes: each is read (bounded), parsed, handed to the note
rules, its ``[[links]]`` resolved against the walk's name table, and reduced
to a :class:`NoteSummary` before the next one is read. Then the store rules
run once over the index, the pointers and the note graph. Every step is
linear in the number of notes and index lines.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from engramory import markdown
from engramory.caps import Caps
from engramory.doctor import rules_index, rules_notes, rules_schema  # noqa: F401 (register)
from engramory.doctor.context import (
    NameTable,
    NoteCheck,
    NoteSummary,
    Options,
    Pointer,
    StoreView,
)
from engramory.doctor.model import NOTE, RULES, STORE, Finding, Rule
from engramory.frontmatter import parse_bytes
from engramory.store import (
    ARCHIVE,
    ESCAPES,
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
    read_file,
    read_index,
    resolve_target,
    walk,
)

NOT_SLUG = "not-slug"
ANCHOR = "anchor"


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


def _is_slug(target: str) -> bool:
    return "/" not in target and "\\" not in target


class _Gatherer:
    """Reads every live note once, running the note rules over batches as it goes."""

    BATCH = 512

    def __init__(self, root: str, files: Iterable, rules: list[Rule], options: Options) -> None:
        self.root = root
        self.files = list(files)
        self.rules = rules
        self.options = options
        usable = [f.status != ESCAPES for f in self.files]
        self.names = NameTable(self.files, usable)
        self.findings: list[Finding] = []
        self.identities: dict[tuple[int, int], list[int]] = {}
        self.odd_links: list[tuple[int, str, int]] = []
        self.missing_links: list[tuple[int, str, int]] = []

    def run(self, archived: frozenset[str]) -> list[NoteSummary]:
        summaries: list[NoteSummary] = []
        for start in range(0, len(self.files), self.BATCH):
            numbers = range(start, min(start + self.BATCH, len(self.files)))
            checks = [self.read(number) for number in numbers]
            for rule in self.rules:
                for path, line, message in rule.check(checks):
                    self.findings.append(Finding(rule.id, rule.severity, path, line, message))
            summaries.extend(
                self.summary(number, check, archived) for number, check in zip(numbers, checks)
            )
        return summaries

    def read(self, number: int) -> NoteCheck:
        file = self.files[number]
        if file.status != READ_OK:
            return NoteCheck(file, Read(file.status), None, self.options)
        read = read_file(file.path(self.root), NOTE_READ_LIMIT)
        parsed = parse_bytes(read.data) if read.data is not None else None
        return NoteCheck(file, read, parsed, self.options)

    def summary(self, number: int, check: NoteCheck, archived: frozenset[str]) -> NoteSummary:
        file, read, parsed = check.file, check.read, check.fm
        if file.status != ESCAPES:
            self._remember_identity(number, file, read)
        links = self._links(number, parsed, read, archived) if parsed is not None else ()
        status = read.status if file.status == READ_OK else file.status
        return NoteSummary(file, status, check.note_type, links)

    def _remember_identity(self, number: int, file: NoteFile, read: Read) -> None:
        identity = read.identity
        if identity is None:
            try:
                info = os.stat(file.path(self.root))
            except OSError:
                return
            identity = (info.st_dev, info.st_ino)
        self.identities.setdefault(identity, []).append(number)

    def _links(self, number: int, parsed, read: Read, archived: frozenset[str]) -> tuple[int, ...]:
        if parsed.closed:
            body, first = parsed.body, parsed.body_line
        else:
            body, first = (read.data or b"").decode("utf-8", "replace"), 1
        found: list[int] = []
        lookup = self.names.lookup
        for raw, line in markdown.body_wikilinks(body, first):
            target = raw[:-3] if raw[-3:].lower() == ".md" else raw
            if "/" in target or "\\" in target:
                self.odd_links.append((number, target, line))
                continue
            hits = lookup(target)
            if hits:
                found.extend(hits)
            elif target.casefold() not in archived:
                self.missing_links.append((number, target, line))
        return tuple(found)


class _PointerResolver:
    """Resolves index links to targets and live notes (each distinct target once)."""

    def __init__(self, root: str, gathered: _Gatherer, archived: frozenset[str]) -> None:
        self.root = root
        self.archived = archived
        self.identities = gathered.identities
        self.names = gathered.names
        self.cache: dict[str, Target] = {}

    def link(self, raw: str) -> tuple[Target, tuple[int, ...]]:
        target = self.cache.get(raw)
        if target is None:
            target = self.cache[raw] = resolve_target(self.root, raw)
        if target.kind == FOUND and target.area == LIVE and target.identity is not None:
            return target, tuple(self.identities.get(target.identity, ()))
        return target, ()

    def wikilink(self, raw: str) -> tuple[Target, tuple[int, ...]]:
        slug = _strip_md(raw)
        if not _is_slug(slug):
            return Target(NOT_SLUG, raw), ()
        hits = self.names.lookup(slug)
        if hits:
            return Target(FOUND, raw, area=LIVE), tuple(hits)
        if slug.casefold() in self.archived:
            return Target(FOUND, raw, f"{ARCHIVE}/{slug}.md", ARCHIVE), ()
        return Target(MISSING, raw, reason=f"no note is named {slug}.md"), ()


def _pointers(lines: list[markdown.IndexLine], resolver: _PointerResolver) -> list[Pointer]:
    pointers = []
    for line in lines:
        for link in line.links:
            notes: tuple[int, ...] = ()
            if link.form == markdown.UNPARSABLE:
                target = Target(MISSING, link.target, reason=link.reason)
            elif link.form == markdown.WIKI:
                target, notes = resolver.wikilink(link.target)
            else:
                target, notes = resolver.link(link.target)
                if target.kind in (EXTERNAL, ANCHOR):
                    continue
            pointers.append(
                Pointer(line.number, link.form, link.target, target, line.section, notes)
            )
    return pointers


def _active(scope: str, selected: set[str], options: Options) -> list[Rule]:
    return [
        r
        for r in RULES.values()
        if r.scope == scope and r.id in selected and (options.schema or not r.schema)
    ]


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """Pause the cycle collector for one allocation-heavy pass.

    The doctor builds hundreds of thousands of small, acyclic objects; every
    generational collection would rescan the growing heap for cycles that do
    not exist (about a quarter of the run time at 100,000 notes). Reference
    counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def run(
    store_root: str,
    caps: Caps,
    options: Options | None = None,
    selected: Iterable[str] | None = None,
) -> Report:
    """Check the store at ``store_root``; ``selected`` limits the rules that run."""
    with _cycle_collector_paused():
        return _run(store_root, caps, options, selected)


def _run(
    store_root: str,
    caps: Caps,
    options: Options | None,
    selected: Iterable[str] | None,
) -> Report:
    options = options or Options()
    chosen = set(RULES) if selected is None else set(selected)
    root = os.path.realpath(store_root)

    files = walk(root)
    index = read_index(root, caps)
    archived = frozenset(rel.rsplit("/", 1)[-1][:-3].casefold() for rel in files.archived)
    gathered = _Gatherer(root, files.notes, _active(NOTE, chosen, options), options)
    summaries = gathered.run(archived)

    lines = markdown.classify_index(index.text) if index.text is not None else []
    resolver = _PointerResolver(root, gathered, archived)
    view = StoreView(
        root,
        caps,
        options,
        index,
        files,
        lines,
        _pointers(lines, resolver),
        summaries,
        gathered.names,
        gathered.odd_links,
        gathered.missing_links,
    )
    findings = gathered.findings
    for rule in _active(STORE, chosen, options):
        for path, line, message in rule.check(view):
            findings.append(Finding(rule.id, rule.severity, path, line, message))
    findings.sort(key=Finding.sort_key)
    live = sum(1 for note in summaries if note.status != ESCAPES)
    return Report(root, caps, index, live, findings, _hints(findings, view))


def _hints(findings: list[Finding], view: StoreView) -> dict[str, str]:
    """One how-to-fix line per rule that fired, in catalogue order."""
    fired = {finding.rule for finding in findings}
    return {
        rule.id: rule.fix_for(view) if rule.fix_for else rule.fix
        for rule in RULES.values()
        if rule.id in fired
    }
