"""Run the doctor: gather the store (the I/O), run the selected rules, collect findings.

First the walk and the index file. Then one pass over the notes, range by
range (in this process, or in forked workers on a large store, see
``workers.py``): each note is read (bounded), parsed, handed to the note
rules, its ``[[links]]`` resolved against the walk's name table, and reduced
to a :class:`NoteSummary`. While the workers (if any) do that, this process
classifies the index lines and resolves their path links, mostly from the
walk's own table, which tells the pass which file identities to keep. Then
the store rules run once over the index, the pointers and the note graph.
Every step is linear in the number of notes and index lines.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

from engramory.doctor import cache, runcache
from engramory.doctor.allow import Allowances, LineAllows, line_allows
from engramory.doctor.context import (
    NameTable,
    NoteCheck,
    NoteSummary,
    Options,
    Pointer,
    StoreView,
)
from engramory.doctor.model import (
    NOTE,
    STORE,
    Detected,
    Finding,
    Issue,
    Keyed,
    More,
    Overflow,
    Rule,
    capped,
    left_out,
    sort_findings,
)
from engramory.doctor.profiles import ENGRAMORY, Profile
from engramory.doctor.rules import RULES
from engramory.doctor.workers import map_ranges, worker_count
from engramory.store import markdown
from engramory.store.caps import Caps
from engramory.store.disk import (
    ANCHOR,
    ARCHIVE,
    ESCAPES,
    EXTERNAL,
    FOUND,
    LIVE,
    MISSING,
    NOT_SLUG,
    NOTE_READ_LIMIT,
    READ_OK,
    IndexFile,
    NoteFile,
    Read,
    Target,
    Walk,
    plain_notes,
    read_file,
    read_index,
    resolve_target,
    walk,
)
from engramory.store.frontmatter import Frontmatter, decode, parse_bytes


@dataclass(frozen=True)
class Report:
    """What the doctor found; ``findings`` are sorted (path, line, rule)."""

    root: str
    caps: Caps
    index: IndexFile
    notes: int
    findings: list[Finding]
    hints: dict[str, str]
    profile: Profile = ENGRAMORY


def _strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


def _is_slug(target: str) -> bool:
    return "/" not in target and "\\" not in target


class _Part(NamedTuple):
    """What checking one range of notes found, in plain data a worker can send back.

    ``numbers``: the note numbers of the range, in order; ``findings``: ``(rule id,
    path, line, message)``; ``notes``: ``(status, type, linked note numbers)`` per note
    of the range, in order;
    ``identities``: ``((device, inode), note number)``; ``odd_links`` and
    ``missing_links``: ``(note number, target, line)``; ``allows``: the allow
    comments of the notes that hold one, ``(path, rule ids per line)``; ``facts``:
    per store rule that gathers them, one fact per note of the range, in order;
    ``records``: the lines for the result cache of the notes it may keep.
    """

    numbers: Sequence[int]
    findings: list[tuple[str, str, int | None, str]]
    notes: list[tuple[str, str | None, tuple[int, ...]]]
    identities: list[tuple[tuple[int, int], int]]
    odd_links: list[tuple[int, str, int]]
    missing_links: list[tuple[int, str, int]]
    allows: list[tuple[str, LineAllows]]
    facts: dict[str, list[Any]]
    records: list[str]


def unsilenced(rule_id: str, issues: Iterable[Issue], allowances: Allowances) -> Iterator[Issue]:
    """``issues`` less those an allow comment silences (a count of more findings stays)."""
    for issue in issues:
        if isinstance(issue[2], More) or not allowances.silences(rule_id, issue[0], issue[1]):
            yield issue


def _note_allows(read: Read) -> LineAllows:
    """The allow comments of one note read from disk (cheap when it holds none)."""
    data = read.data
    if data is None or b"engramory:" not in data:
        return {}
    return line_allows(decode(data))


class _Gatherer:
    """Reads every live note once and runs the note rules, range by range.

    A range is checked by :meth:`check_range` (in this process or a worker)
    and its :class:`_Part` folded in by :meth:`absorb`, always in note order.
    File identities are kept only for the notes the index links to by path
    (``wanted``), not for every note. ``wanted`` is ``None`` until the index
    is resolved: a worker forked before that sends all its identities, and
    :meth:`absorb` keeps the wanted ones.
    """

    BATCH = 512

    def __init__(
        self,
        root: str,
        files: list[NoteFile],
        rules: list[Rule],
        options: Options,
        names: NameTable,
        archived: frozenset[str],
        wanted: frozenset[tuple[int, int]] | None,
        allowances: Allowances,
        gatherers: Sequence[Rule] = (),
        results: cache.Store | None = None,
    ) -> None:
        self.root = root
        self.results = results
        self.todo: list[int] | None = None  # with a cache: the numbers of the notes to check
        self.allowances = allowances
        self.files = files
        self.rules = rules
        self.gatherers = list(gatherers)
        self.options = options
        self.names = names
        self.archived = archived
        self.wanted = wanted
        self.findings: list[Finding] = []
        self.summaries: list[NoteSummary | None] = [None] * len(files)
        self.identities: dict[tuple[int, int], list[int]] = {}
        self.odd_links: list[tuple[int, str, int]] = []
        self.missing_links: list[tuple[int, str, int]] = []
        self.facts: dict[str, list[Any]] = {rule.id: [None] * len(files) for rule in gatherers}
        self._texts: dict[str, str] = {}

    def run(
        self, jobs: int, resolve_index: Callable[[], frozenset[tuple[int, int]]]
    ) -> list[NoteSummary]:
        """Check every note; ``resolve_index`` (which gives ``wanted``) runs meanwhile.

        With workers it runs while they check the notes (a long index costs
        this process time the workers can use); in this process, first. With
        a result cache, first of all, then the cached notes are taken from it
        and only the others are checked.
        """
        if self.results is not None:
            self.wanted = resolve_index()
            self.todo = self._take_cached(self.results)
        total = len(self.files) if self.todo is None else len(self.todo)
        workers = worker_count(jobs, total)
        parts = map_ranges(self.check_range, total, workers, self.BATCH)
        with closing(parts):  # an error here stops the workers at once
            if self.results is None:
                self.wanted = resolve_index()
            for part in parts:
                self.absorb(part)
        if self.todo is not None:
            self._put_in_order()
            self.todo = None
        summaries = self.summaries
        assert all(summary is not None for summary in summaries)
        return summaries  # type: ignore[return-value]

    def check_range(self, start: int, stop: int) -> _Part:
        numbers = range(start, stop) if self.todo is None else self.todo[start:stop]
        part = _Part(numbers, [], [], [], [], [], [], {}, [])
        keys = [self._key(number) for number in numbers] if self.results is not None else []
        now = time.time_ns()  # before the reads: a note changed since is not cached
        checks = [self.read(number) for number in numbers]
        allowances = Allowances()
        allowances.anywhere = self.allowances.anywhere
        for check in checks:
            found = _note_allows(check.read)
            if found:
                allowances.add(check.rel, found)
                part.allows.append((check.rel, found))
        for rule in self.rules:
            issues = capped(rule.id, unsilenced(rule.id, rule.check(checks), allowances))
            part.findings.extend((rule.id, *issue) for issue in issues)
        for rule in self.gatherers:
            gather = rule.gather
            assert gather is not None
            part.facts[rule.id] = [gather(check) for check in checks]
        raw_links = []
        for number, check in zip(numbers, checks):
            file, read, parsed = check.file, check.read, check.fm
            wanted = self.wanted
            if (wanted is None or wanted) and file.status != ESCAPES:
                identity = self._identity(file, read)
                if identity is not None and (wanted is None or identity in wanted):
                    part.identities.append((identity, number))
            raw = _wikilinks(parsed, read) if parsed is not None else []
            raw_links.append(raw)
            links = self._resolve_links(number, raw, part.odd_links, part.missing_links)
            status = read.status if file.status == READ_OK else file.status
            part.notes.append((status, check.note_type, links))
        if keys:
            part.records.extend(_records(part, keys, checks, raw_links, now))
        return part

    def absorb(self, part: _Part) -> None:
        for rule_id, path, line, message in part.findings:
            self.findings.append(_finding(self.options.profile, rule_id, path, line, message))
        files, summaries, texts = self.files, self.summaries, self._texts
        for number, (status, sent_type, links) in zip(part.numbers, part.notes):
            # one string per type: a worker's are each a string of its own
            note_type = sent_type if sent_type is None else texts.setdefault(sent_type, sent_type)
            summaries[number] = NoteSummary(files[number], status, note_type, links)
        self._keep_identities(part.identities)
        self.odd_links.extend(part.odd_links)
        self.missing_links.extend(part.missing_links)
        for path, allows in part.allows:
            self.allowances.add(path, allows)
        for rule_id, facts in part.facts.items():
            kept = self.facts[rule_id]
            for number, fact in zip(part.numbers, facts):
                kept[number] = fact
        if self.results is not None:
            for record in part.records:
                self.results.write(record)

    def _keep_identities(self, identities: Iterable[tuple[tuple[int, int], int]]) -> None:
        wanted = self.wanted or frozenset()
        for identity, number in identities:
            if identity in wanted:
                self.identities.setdefault(identity, []).append(number)

    def _take_cached(self, results: cache.Store) -> list[int] | None:
        """Absorb every note the cache holds unchanged; the numbers of the others
        (``None``: none was taken, every note is checked, in order).

        A line of the wrong shape ends the reading there: the notes not yet
        taken are checked afresh and the cache file is replaced."""
        numbers = {f.rel: n for n, f in enumerate(self.files) if _cacheable(f)}
        taken = bytearray(len(self.files))
        entries = results.entries()
        try:
            for entry, line in entries:
                number = numbers.get(entry[0])
                key = None if number is None or taken[number] else self._key(number)
                if key is None or list(key) != entry[:6]:
                    results.changed = True  # a note gone, changed or cached twice
                    continue
                self._absorb_cached(number, entry)
                taken[number] = 1
                results.keep(line)
        except (ValueError, UnicodeError, TypeError, RecursionError):
            results.changed = True
        finally:
            entries.close()
        if 1 not in taken:
            return None
        return [number for number in range(len(self.files)) if not taken[number]]

    def _absorb_cached(self, number: int, entry: cache.Entry) -> None:
        """One note from its cache line (checked in full before anything is kept)."""
        texts = self._texts  # one string object per status and type, not one per note
        status = texts.setdefault(entry[6], entry[6])
        note_type = entry[7] if entry[7] is None else texts.setdefault(entry[7], entry[7])
        links, found, allows = entry[8], entry[9], cache.decode_allows(entry[10])
        facts = [(rule_id, cache.decode(fact)) for rule_id, fact in entry[11]]
        if len(facts) != len(self.gatherers) or any(
            rule_id != rule.id for (rule_id, _fact), rule in zip(facts, self.gatherers)
        ):
            raise ValueError("cached facts of other rules")
        for finding in found:
            if finding[0] not in RULES:
                raise ValueError("a cached finding of an unknown rule")
        file = self.files[number]
        resolved = self._resolve_links(number, links, self.odd_links, self.missing_links)
        self.summaries[number] = NoteSummary(file, status, note_type, resolved)
        profile = self.options.profile
        for rule_id, line, text, detector, more, key in found:
            message = _message(text, detector, more, key)
            self.findings.append(_finding(profile, rule_id, file.rel, line, message))
        self.allowances.add(file.rel, allows)
        for rule_id, fact in facts:
            self.facts[rule_id][number] = fact
        self._keep_identities([((entry[5], entry[4]), number)])

    def _put_in_order(self) -> None:
        """Note order for what cached and checked notes added in turn (as one pass would)."""
        self.odd_links.sort(key=_first)
        self.missing_links.sort(key=_first)
        for numbers in self.identities.values():
            numbers.sort()

    def _key(self, number: int) -> cache.Key | None:
        """The cache key of a note (taken before it is read), or ``None`` when it is not
        one the cache keeps (a symlink, not a regular file, gone)."""
        file = self.files[number]
        if not _cacheable(file):
            return None
        if file.info is not None:  # the walk's lstat
            return (file.rel, *file.info)
        try:
            info = os.lstat(file.path(self.root))
        except OSError:
            return None
        return cache.note_key(file.rel, info) if stat.S_ISREG(info.st_mode) else None

    def read(self, number: int) -> NoteCheck:
        file = self.files[number]
        if file.status != READ_OK:
            return NoteCheck(file, Read(file.status), None, self.options)
        read = read_file(file.path(self.root), NOTE_READ_LIMIT)
        parsed = parse_bytes(read.data) if read.data is not None else None
        return NoteCheck(file, read, parsed, self.options)

    def _identity(self, file: NoteFile, read: Read) -> tuple[int, int] | None:
        if read.identity is not None:
            return read.identity
        try:
            info = os.stat(file.path(self.root))
        except OSError:
            return None
        return (info.st_dev, info.st_ino)

    def _resolve_links(
        self,
        number: int,
        raw_links: Sequence[Sequence[Any]],
        odd_links: list[tuple[int, str, int]],
        missing_links: list[tuple[int, str, int]],
    ) -> tuple[int, ...]:
        """The numbers of the notes a note's ``[[links]]`` name; the others are noted in
        ``odd_links`` (paths) and ``missing_links`` (no such note)."""
        found: list[int] = []
        lookup = self.names.lookup
        for raw, line in raw_links:
            target = _strip_md(raw)
            if not _is_slug(target):
                odd_links.append((number, target, line))
                continue
            hits = lookup(target)
            if hits:
                found.extend(hits)
            elif target.casefold() not in self.archived:
                missing_links.append((number, target, line))
        return tuple(found)


def _wikilinks(parsed: Frontmatter, read: Read) -> list[tuple[str, int]]:
    """A note's body ``[[links]]`` as written, with their lines."""
    if parsed.closed:
        body, first = parsed.body, parsed.body_line
    else:
        body, first = (read.data or b"").decode("utf-8", "replace"), 1
    return list(markdown.body_wikilinks(body, first))


def _first(item: tuple[int, str, int]) -> int:
    return item[0]


def _cacheable(file: NoteFile) -> bool:
    """Whether the cache may keep a note: a walked regular file, not a symlink."""
    return file.status == READ_OK and file.target is None


def _message(text: str, detector: str | None, more: int, key: str | None) -> str:
    """A cached finding's message, with what a rule attached to it."""
    if more:
        return Overflow(text, more)
    if key is not None:
        return Keyed(text, key)
    return Detected(text, detector) if detector is not None else text


def _records(
    part: _Part,
    keys: list[cache.Key | None],
    checks: list[NoteCheck],
    raw_links: list[list[tuple[str, int]]],
    now: int,
) -> Iterator[str]:
    """The cache lines of the notes of one range that the cache may keep (not one changed
    within :data:`cache.RACY_NS` of ``now``, the time before they were read).

    None when a finding of the range is for a path outside it (a rule this
    module does not know how to key)."""
    found: dict[str, list[list[Any]]] = {check.rel: [] for check in checks}
    for rule_id, path, line, message in part.findings:
        held = found.get(path)
        if held is None:
            return
        detector = getattr(message, "detector", None)
        key = getattr(message, "key", None)
        held.append([rule_id, line, str(message), detector, left_out(message), key])
    allows = dict(part.allows)
    for position, (key, check) in enumerate(zip(keys, checks)):
        read = check.read
        if key is None or (read.identity is not None and read.identity != (key[5], key[4])):
            continue  # not a regular file, or replaced between the lstat and the read
        if not cache.settled(key[2], key[3], now):
            continue  # racy: a change within its timestamp tick would keep its lstat
        status, note_type, _links = part.notes[position]
        try:
            facts = [[rule_id, cache.encode(got[position])] for rule_id, got in part.facts.items()]
        except cache.Unencodable:
            continue
        entry = [
            *key,
            status,
            note_type,
            [list(link) for link in raw_links[position]],
            found[check.rel],
            cache.encode_allows(allows.get(check.rel, {})),
            facts,
        ]
        yield cache.dumps(entry)


class _PointerResolver:
    """Resolves index links to targets and live notes (each distinct target once).

    :meth:`prefetch` resolves the path links before the notes are read, so
    the gatherer knows which file identities to keep; :meth:`link` then maps
    a target to the notes with its identity.
    """

    def __init__(
        self, root: str, names: NameTable | None, archived: frozenset[str], plain: frozenset[str]
    ) -> None:
        self.root = root
        self.plain = plain
        self.archived = archived
        self.names = names
        self.identities: dict[tuple[int, int], list[int]] = {}
        self.cache: dict[str, Target] = {}
        self.lines: list[markdown.IndexLine] = []

    def resolve_index(self, text: str | None) -> frozenset[tuple[int, int]]:
        """Classify the index's lines (kept in ``lines``) and :meth:`prefetch` their links."""
        self.lines = markdown.classify_index(text) if text is not None else []
        return self.prefetch(self.lines)

    def prefetch(self, lines: list[markdown.IndexLine]) -> frozenset[tuple[int, int]]:
        """Resolve every path link of the index; the identities of the live notes found."""
        wanted = set()
        for line in lines:
            for link in line.links:
                if link.form not in (markdown.UNPARSABLE, markdown.WIKI):
                    target = self._target(link.target)
                    if target.kind == FOUND and target.area == LIVE and target.identity:
                        wanted.add(target.identity)
        return frozenset(wanted)

    def _target(self, raw: str) -> Target:
        target = self.cache.get(raw)
        if target is None:
            target = self.cache[raw] = resolve_target(self.root, raw, self.plain)
        return target

    def link(self, raw: str) -> tuple[Target, tuple[int, ...]]:
        target = self._target(raw)
        if target.kind == FOUND and target.area == LIVE and target.identity is not None:
            return target, tuple(self.identities.get(target.identity, ()))
        return target, ()

    def wikilink(self, raw: str) -> tuple[Target, tuple[int, ...]]:
        slug = _strip_md(raw)
        if not _is_slug(slug):
            return Target(NOT_SLUG, raw), ()
        assert self.names is not None, "the name table is set before the [[links]] resolve"
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


def _finding(profile: Profile, rule_id: str, path: str, line: int | None, message: str) -> Finding:
    """A rule's issue as a finding, at the severity and with the wording of the profile."""
    rule = RULES[rule_id]
    detector = getattr(message, "detector", None)
    shown = profile.message(rule_id, message)
    severity = profile.severity(rule)
    key = getattr(message, "key", None)
    return Finding(
        rule.id, severity, path, line, shown, left_out=left_out(message), detector=detector, key=key
    )


def _active(scope: str, selected: set[str], options: Options) -> list[Rule]:
    """The rules of ``scope`` that run: selected, not quiet in the profile, schema if wanted."""
    profile = options.profile
    return [
        r
        for r in RULES.values()
        if r.scope == scope
        and r.id in selected
        and profile.runs(r.id)
        and (options.schema or not r.schema)
    ]


# One cause, one finding: the rule that reports a folder the index never points into
# once, and the findings of its notes that the one finding stands for.
FOLDER_RULE = "nested-note"
FOLDED_RULES = frozenset({"orphan"})


def folded_paths(view: StoreView) -> frozenset[str]:
    """The notes ``FOLDER_RULE`` reported as part of a folder, by path."""
    folders = view.unindexed_folders()
    return frozenset(view.notes[n].rel for numbers in folders.values() for n in numbers)


def _folds(rule_id: str) -> bool:
    """Whether a folded note's finding of ``rule_id`` is left out: reachability and the
    schema rules (a note's shape matters once an agent can reach it)."""
    return rule_id in FOLDED_RULES or RULES[rule_id].schema


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
    jobs: int = 1,
    cache_home: str | None = None,
    prepared: Prepared | None = None,
) -> Report:
    """Check the store at ``store_root``; ``selected`` limits the rules that run.

    ``jobs``: worker processes for the per-note pass (``0``: one per usable
    CPU; ``1``: none). ``cache_home``: the base folder of the result cache
    (``cache.py``; ``None``: no cache). The report depends on neither.
    ``prepared``: what :func:`prepare` gathered for the same arguments (else
    it is gathered here).
    """
    with _cycle_collector_paused():
        if prepared is None:
            prepared = _prepare(store_root, caps, options, selected, cache_home, None)
        return _run(prepared, jobs)


@dataclass
class Prepared:
    """What a run gathers before reading any note: the walk, the index, the rules that
    run and, with a cache, the digest of everything the report depends on."""

    root: str
    caps: Caps
    options: Options
    files: Walk
    index: IndexFile
    archived: frozenset[str]
    names: NameTable | None  # made on first use (a warm run replayed never needs it)
    resolver: _PointerResolver
    rules: list[Rule]
    store_rules: list[Rule]
    allowances: Allowances
    run_signature: str
    report_signature: str
    folder: str | None
    digest: str = ""
    wanted: frozenset[tuple[int, int]] = frozenset()
    live: list[Finding] | None = None

    def view(self) -> StoreView:
        """The store as the rules of :data:`runcache.LIVE_RULES` see it: no note read, no
        name table (they read no more than the store's root)."""
        lines = self.resolver.lines
        return StoreView(
            self.root, self.caps, self.options, self.index, self.files, lines, [], [],
            NameTable([], []),
        )  # fmt: skip

    def name_table(self) -> NameTable:
        """The live notes by name (made once, and given to the resolver)."""
        if self.names is None:
            notes = self.files.notes
            self.names = NameTable(notes, [f.status != ESCAPES for f in notes])
            self.resolver.names = self.names
        return self.names

    def live_findings(self) -> list[Finding]:
        """The findings of the store rules that read state outside the store (run once)."""
        if self.live is None:
            view, allowances = self.view(), self.allowances
            self.live = [
                finding
                for rule in self.store_rules
                if rule.id in runcache.LIVE_RULES
                for finding in _store_findings(rule, view, allowances)
            ]
        return self.live

    def settled_live_findings(self) -> list[Finding]:
        """:meth:`live_findings` as a full run reports them: silenced by the allow comments
        of the notes they are on as well, not only by ``MEMORY.md``'s (those notes, a few of
        a host's own files, are read now; a report reused without its notes needs this)."""
        live = self.live_findings()
        on_notes = {f.path for f in live}
        if not on_notes:
            return live
        allowances = Allowances()
        allowances.anywhere = self.allowances.anywhere
        allowances.by_path.update(self.allowances.by_path)
        for file in self.files.notes:
            if file.rel in on_notes and file.status == READ_OK:
                allowances.add(
                    file.rel, _note_allows(read_file(file.path(self.root), NOTE_READ_LIMIT))
                )
        if len(allowances.by_path) == len(self.allowances.by_path):
            return live
        view = self.view()
        return [
            finding
            for rule in self.store_rules
            if rule.id in runcache.LIVE_RULES
            for finding in _store_findings(rule, view, allowances)
        ]

    def state(self) -> str | None:
        """A digest of everything the report depends on, the outside state the live rules
        read included (``None`` without a cache): equal states, equal reports."""
        if self.folder is None:
            return None
        return runcache.state_digest(self.report_signature, self.digest, self.live_findings())


def prepare(
    store_root: str,
    caps: Caps,
    options: Options | None = None,
    selected: Iterable[str] | None = None,
    cache_home: str | None = None,
    walked: Walk | None = None,
) -> Prepared:
    """The part of :func:`run` that reads no note (``walked``: the store's walk, made
    with ``with_stat`` when a cache is used, if the caller has it already)."""
    with _cycle_collector_paused():
        return _prepare(store_root, caps, options, selected, cache_home, walked)


def _prepare(
    store_root: str,
    caps: Caps,
    options: Options | None,
    selected: Iterable[str] | None,
    cache_home: str | None,
    walked: Walk | None,
) -> Prepared:
    options = options or Options()
    chosen = set(RULES) if selected is None else set(selected)
    root = os.path.realpath(store_root)
    if "secret-value" in chosen:
        from engramory.secrets import allow  # noqa: PLC0415 - only when secrets are checked

        options = dataclasses.replace(options, allowed_secrets=allow.load(root).prefixes)

    folder = cache.folder_of(cache_home, root)
    files = walked if walked is not None else walk(root, with_stat=folder is not None)
    index = read_index(root, caps)
    archived = frozenset(rel.rsplit("/", 1)[-1][:-3].casefold() for rel in files.archived)
    resolver = _PointerResolver(root, None, archived, plain_notes(files))
    rules = _active(NOTE, chosen, options)
    store_rules = _active(STORE, chosen, options)
    gatherers = [rule for rule in store_rules if rule.gather is not None]
    allowances = Allowances(index.text)
    run_signature = _signature(caps, options, rules, gatherers, allowances)
    report_signature = runcache.report_signature(run_signature, store_rules)
    prepared = Prepared(
        root, caps, options, files, index, archived, None, resolver, rules, store_rules,
        allowances, run_signature, report_signature, folder,
    )  # fmt: skip
    if folder is not None:
        prepared.wanted = resolver.resolve_index(index.text)
        prepared.digest = runcache.inputs_digest(
            report_signature, root, files, index, resolver.cache
        )
    return prepared


def _run(prepared: Prepared, jobs: int) -> Report:
    root, caps, options, files, index = (
        prepared.root, prepared.caps, prepared.options, prepared.files, prepared.index,
    )  # fmt: skip
    folder, resolver, allowances = prepared.folder, prepared.resolver, prepared.allowances
    rules, store_rules = prepared.rules, prepared.store_rules
    gatherers = [rule for rule in store_rules if rule.gather is not None]
    report_signature, digest = prepared.report_signature, prepared.digest
    if folder is not None:
        saved = runcache.load(folder, report_signature, digest)
        if saved is not None:
            return _reused(saved, prepared)
    unknown = None if index.text is not None else frozenset()  # no index: no identity needed
    results = cache.open_store(folder, prepared.run_signature)
    gathered = _Gatherer(
        root, files.notes, rules, options, prepared.name_table(), prepared.archived, unknown,
        allowances, gatherers, results,
    )  # fmt: skip
    wanted = prepared.wanted
    summaries = _gather(
        gathered, jobs, lambda: wanted if folder is not None else resolver.resolve_index(index.text)
    )
    resolver.identities = gathered.identities
    lines = resolver.lines
    if folder is not None:
        _forget_stat(files.notes)

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
        gathered.facts,
    )
    findings = _with_store_findings(
        gathered.findings, view, store_rules, rules, allowances, prepared.live
    )
    live = sum(1 for note in summaries if note.status != ESCAPES)
    hints = _hints(findings, view)
    if folder is not None:
        runcache.save(folder, report_signature, digest, live, findings, hints)
    return Report(root, caps, index, live, findings, hints, options.profile)


def _gather(
    gathered: _Gatherer, jobs: int, resolve_index: Callable[[], frozenset[tuple[int, int]]]
) -> list[NoteSummary]:
    """The per-note pass; its cache file is replaced only when the pass completes."""
    results = gathered.results
    try:
        summaries = gathered.run(jobs, resolve_index)
    except BaseException:
        if results is not None:
            results.discard()
        raise
    if results is not None:
        results.commit()
    return summaries


def _forget_stat(notes: list[NoteFile]) -> None:
    """Let go of each note's ``lstat`` from the walk once the per-note pass is done (the
    digest and the cache keys were made from it; about 14 MB at 100,000 notes). What
    needs one later takes it afresh: :meth:`_Gatherer._key` and the digest ``lstat``
    a note whose ``info`` is ``None``."""
    for note in notes:
        note.info = None


def _with_store_findings(
    findings: list[Finding],
    view: StoreView,
    store_rules: list[Rule],
    rules: list[Rule],
    allowances: Allowances,
    live: list[Finding] | None = None,
) -> list[Finding]:
    """``findings`` (the note rules') with the store rules', folded and sorted.

    ``live``: the findings of the rules of :data:`runcache.LIVE_RULES` when they ran
    already (:meth:`Prepared.live_findings`, before the notes' allow comments were
    known); they are not run a second time (they read no more than the store's root, and
    a ``git`` started now would be forked from this process at its largest) unless one
    of them is on a note that holds an allow comment."""
    if live is not None and any(f.path in allowances.by_path for f in live):
        live = None  # a note's allow comment may silence one: run them as a full run does
    if live is not None:
        findings.extend(live)
    # The rules that gathered facts first, each one's facts let go once it ran (the
    # order of the rules does not matter: the findings are sorted, and two rules never
    # tie on path, line and rule id).
    gatherers = [rule for rule in store_rules if rule.gather is not None]
    for rule in [*gatherers, *(rule for rule in store_rules if rule.gather is None)]:
        if live is None or rule.id not in runcache.LIVE_RULES:
            findings.extend(_store_findings(rule, view, allowances))
        if rule.gather is not None:
            view.facts.pop(rule.id, None)
    for rule in rules:
        if rule.store_check is not None:
            findings.extend(_store_findings(rule, view, allowances, rule.store_check))
    if any(rule.id == FOLDER_RULE for rule in store_rules):
        folded = folded_paths(view)
        if folded:
            findings = [f for f in findings if not (f.path in folded and _folds(f.rule))]
    sort_findings(findings)
    return findings


def _store_findings(
    rule: Rule,
    view: StoreView,
    allowances: Allowances,
    check: Callable[[StoreView], Iterable[Issue]] | None = None,
) -> Iterator[Finding]:
    """The findings of one rule's pass over the whole store (``check``: its ``check``)."""
    issues = unsilenced(rule.id, (check or rule.check)(view), allowances)
    for path, line, message in capped(rule.id, issues):
        yield _finding(view.options.profile, rule.id, path, line, message)


def _reused(saved: runcache.Saved, prepared: Prepared) -> Report:
    """The report of a store where nothing changed since ``saved``: its findings, and
    those of the rules that read state outside the store, run now (on a view that holds
    the walk and the index, no note: those rules read no more than the store's root)."""
    findings = list(saved.findings)
    findings.extend(prepared.settled_live_findings())
    sort_findings(findings)
    view = prepared.view()
    fresh = _hints([f for f in findings if f.rule not in saved.hints], view)
    hints = {rule: saved.hints.get(rule, fresh.get(rule, "")) for rule in RULES}
    kept = {rule: text for rule, text in hints.items() if rule in saved.hints or rule in fresh}
    profile = prepared.options.profile
    return Report(view.root, view.caps, view.index, saved.notes, findings, kept, profile)


def _signature(
    caps: Caps,
    options: Options,
    rules: list[Rule],
    gatherers: list[Rule],
    allowances: Allowances,
) -> str:
    """What the per-note results depend on besides the note itself (see ``cache.py``)."""
    return cache.signature(
        {
            "rules": [rule.id for rule in rules],
            "gatherers": [rule.id for rule in gatherers],
            "schema": options.schema,
            "max_index_line": options.max_index_line,
            "today": options.today.isoformat(),
            "profile": options.profile.name,
            "stale_days": options.stale_days,
            "allowed_secrets": list(options.allowed_secrets),
            "allowed_anywhere": sorted(allowances.anywhere),
            "caps": caps.as_dict(),
        }
    )


def _hints(findings: list[Finding], view: StoreView) -> dict[str, str]:
    """One how-to-fix line per rule that fired, in catalogue order (worded for the profile)."""
    fired = {finding.rule for finding in findings}
    profile = view.options.profile
    return {
        rule.id: profile.fix(rule, rule.fix_for(view) if rule.fix_for else rule.fix)
        for rule in RULES.values()
        if rule.id in fired
    }
