"""The doctor's vocabulary: severities, findings, rules and their examples.

A rule is one small function wrapped by :func:`rule` into a :class:`Rule`,
which records its stable id, severity, one-line summary, whether it is a
schema rule (skipped by ``--no-schema``), the short "how to fix" line, and
its examples as data: small stores on which it fires and the nearest ones on
which it stays quiet (``--explain`` prints them; one test runs them all). The
catalogue is the explicit list in :mod:`engramory.doctor.rules`: what
``--list-rules`` prints and what ``--select``/``--ignore`` validate.

Rules come in two scopes:

* ``note`` rules look at notes while they are in memory (their frontmatter
  and body). The engine hands them a batch of notes at a time, so a rule is
  one loop over the batch rather than one call per note per rule;
* ``store`` rules look at the whole store (index, pointers, the note graph).

Both yield ``(path, line, message)``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from engramory.store.discovery import INDEX_NAME

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)

NOTE = "note"
STORE = "store"

# What a rule yields: (store-relative path, 1-based line or None, message).
Issue = tuple[str, "int | None", str]

# At most this many findings of one rule per file; the rest are counted in one
# more finding (a 4 MiB note of bad lines would otherwise give millions).
FINDINGS_PER_FILE = 20


class Detected(str):
    """A message that also names the detector behind it (``secret-value``'s findings):
    a plain ``str`` everywhere, with ``detector`` read when the finding is made."""

    detector: str

    def __new__(cls, message: str, detector: str) -> Detected:
        made = super().__new__(cls, message)
        made.detector = detector
        return made

    def __reduce__(self) -> tuple[type[Detected], tuple[str, str]]:
        return (Detected, (str(self), self.detector))


class Keyed(str):
    """A message that also names the frontmatter key it is about (``missing-field``'s
    findings), so a repair can choose its findings without reading their wording."""

    key: str

    def __new__(cls, message: str, key: str) -> Keyed:
        made = super().__new__(cls, message)
        made.key = key
        return made

    def __reduce__(self) -> tuple[type[Keyed], tuple[str, str]]:
        return (Keyed, (str(self), self.key))


class Finding:
    """One problem: ``path`` is store-relative and ``/``-separated; ``line`` is 1-based;
    ``detector`` names the detector of a ``secret-value`` finding (``None`` otherwise);
    ``key`` the frontmatter key a finding is about, when its rule says (:class:`Keyed`;
    not part of the output)."""

    __slots__ = ("detector", "key", "left_out", "line", "message", "path", "rule", "severity")

    def __init__(
        self,
        rule: str,
        severity: str,
        path: str,
        line: int | None,
        message: str,
        left_out: int = 0,
        detector: str | None = None,
        key: str | None = None,
    ):
        self.rule = rule
        self.severity = severity
        self.path = path
        self.line = line
        self.message = str(message)
        self.left_out = left_out  # > 0: this finding stands for that many left out (capped)
        self.detector = detector if detector is not None else getattr(message, "detector", None)
        self.key = key if key is not None else getattr(message, "key", None)

    @property
    def count(self) -> int:
        """How many findings this one stands for: 1, or the number a capped file left out."""
        return self.left_out or 1

    @property
    def tag(self) -> str:
        """The rule id as text output shows it: ``secret-value (aws-access-key-id)``."""
        return f"{self.rule} ({self.detector})" if self.detector else self.rule

    def sort_key(self) -> tuple[str, int, int, str]:
        """Path, then line (findings without a line first), then rule id."""
        return (self.path, 0 if self.line is None else 1, self.line or 0, self.rule)

    def as_dict(self) -> dict[str, Any]:
        made: dict[str, Any] = {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }
        if self.detector:
            made["detector"] = self.detector
        return made

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Finding) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().values()))

    def __repr__(self) -> str:
        return f"Finding({self.rule!r}, {self.path!r}, {self.line!r}, {self.message[:50]!r})"


_NO_LINE = float("-inf")  # sorts before every line number, as sort_key's 0 flag does


def _path(finding: Finding) -> str:
    return finding.path


def _line(finding: Finding) -> float:
    line = finding.line
    return _NO_LINE if line is None else line


def _rule(finding: Finding) -> str:
    return finding.rule


def sort_findings(findings: list[Finding]) -> None:
    """Sort ``findings`` in place into :meth:`Finding.sort_key` order, ties kept as they were.

    Three stable passes, least significant key first, give the same order as one pass
    on the key tuple without making a tuple per finding (at 100,000 notes those tuples
    were about 10 MB of the doctor's peak)."""
    findings.sort(key=_rule)
    findings.sort(key=_line)
    findings.sort(key=_path)


class More(int):
    """Yielded by a rule in place of a message: this many more findings for the path,
    counted where they arose and never built (a parser keeps only the first ones)."""


def overflow_message(rule_id: str, more: int) -> str:
    """The message of the finding that stands for ``more`` findings left out."""
    noun = "finding" if more == 1 else "findings"
    return f"... and {more:,} more `{rule_id}` {noun} in this file; fix the first ones and re-run"


class Overflow(str):
    """:func:`overflow_message` that also carries the number left out (``more``), so the
    per-rule statistics count every finding, not only the kept ones. Pickles (a worker
    process sends it back) as a string with its ``more``."""

    more: int

    def __new__(cls, text: str, more: int = 0) -> Overflow:
        made = super().__new__(cls, text)
        made.more = more
        return made

    def __reduce__(self) -> tuple[type[Overflow], tuple[str, int]]:
        return (Overflow, (str(self), self.more))


def left_out(message: str) -> int:
    """How many findings a message stands for beyond itself (0 unless an :class:`Overflow`)."""
    return message.more if isinstance(message, Overflow) else 0


def capped(rule_id: str, issues: Iterator[Any], limit: int | None = None) -> Iterator[Any]:
    """The first ``limit`` (default :data:`FINDINGS_PER_FILE`) issues of each path, then
    one issue per path counting the rest.

    Issues past the cap are counted and dropped as they are made, so memory
    stays bounded by the number of files, not of findings. The counting issue
    has no line (it sorts first among its file's findings). Each call counts
    on its own: a rule's findings for one file come from one call (a note
    belongs to exactly one batch), so workers and one process agree.
    """
    if limit is None:
        limit = FINDINGS_PER_FILE
    counts: dict[str, int] = {}
    for issue in issues:
        if isinstance(issue[2], More):
            counts[issue[0]] = counts.get(issue[0], 0) + issue[2]
            continue
        seen = counts.get(issue[0], 0) + 1
        counts[issue[0]] = seen
        if seen <= limit:
            yield issue
    for path, seen in counts.items():
        if seen > limit:
            yield (path, None, Overflow(overflow_message(rule_id, seen - limit), seen - limit))


@dataclass(frozen=True)
class Example:
    """A small store a rule fires on (or stays quiet on), as data.

    ``files`` maps store-relative paths to text. Unless ``files`` holds
    ``MEMORY.md`` or ``index`` is False, the store also gets an index with one
    pointer line per top-level note (see :meth:`tree`). ``symlinks`` maps a
    path to its link target, ``outside`` holds files beside the store (targets
    of links that leave it), ``sizes`` makes a file of that many bytes,
    ``modes`` sets permission bits (an unreadable file or directory),
    ``flags`` are extra ``engramory doctor`` flags, ``history`` is the store
    as its last history snapshot held it (written and snapshotted first), and
    ``environ`` the environment variables the doctor runs with (``{root}`` in
    them and in ``outside`` texts stands for the folder holding the store).
    """

    text: str
    files: Mapping[str, str] = field(default_factory=dict)
    index: bool = True
    symlinks: Mapping[str, str] = field(default_factory=dict)
    outside: Mapping[str, str] = field(default_factory=dict)
    sizes: Mapping[str, int] = field(default_factory=dict)
    modes: Mapping[str, int] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    history: Mapping[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=dict)

    def tree(self) -> dict[str, str]:
        """``files``, plus the generated index when the example wants one."""
        if not self.index or INDEX_NAME in {*self.files, *self.symlinks, *self.sizes}:
            return dict(self.files)
        paths = [*self.files, *self.symlinks, *self.sizes, *self.modes]
        return {INDEX_NAME: auto_index(paths), **self.files}


def auto_index(paths: list[str]) -> str:
    """An index with one pointer line per top-level note among ``paths``."""
    slugs = sorted({p[:-3] for p in paths if p.endswith(".md") and "/" not in p} - {"MEMORY"})
    return "# Memory index\n\n" + "".join(f"- [{s}]({s}.md) — when it matters\n" for s in slugs)


def sample_note(slug: str, note_type: str = "user", body: str | None = None, **fields: str) -> str:
    """A valid note for examples: frontmatter (``fields`` override or add keys; an empty
    value drops one), then ``body`` (feedback and project notes get Why/How lines)."""
    values = {
        "name": slug,
        "description": f"when to open {slug}",
        "type": note_type,
        "created": "2026-01-10",
        "updated": "2026-01-12",
    }
    if note_type in ("feedback", "project"):
        values["scope"] = "repo"
    values.update(fields)
    head = "".join(f"{key}: {value}\n" for key, value in values.items() if value != "")
    if body is None:
        body = f"The fact behind {slug}.\n"
        if note_type in ("feedback", "project"):
            body += "\n**Why:** the reason.\n\n**How to apply:** the next step.\n"
    return f"---\n{head}---\n\n{body}"


@dataclass(frozen=True)
class Rule:
    """A registered rule (see the module docstring)."""

    id: str
    severity: str
    summary: str
    scope: str
    schema: bool
    fix: str
    check: Callable[..., Iterator[Any]]
    fix_for: Callable[[Any], str] | None = None
    fires: tuple[Example, ...] = ()
    quiet: tuple[Example, ...] = ()
    # A note rule that also looks at files outside the live notes (the index, archived
    # notes) does so here, once, in the store pass: ``store_check(view)``.
    store_check: Callable[[Any], Iterator[Any]] | None = None
    gather: Callable[[Any], Any] | None = None
    # More of the rule's page (``--explain``), built when asked: e.g. its detectors.
    details: Callable[[], list[str]] | None = None
    # The id of the repair (``engramory fix``, ``engramory/repair/<id>.py``) that handles
    # the rule's findings, or None; with ``repair_keys``, only its findings about those
    # frontmatter keys (:attr:`Finding.key`).
    repair: str | None = None
    repair_keys: tuple[str, ...] | None = None

    def repair_of(self, finding: Finding) -> str | None:
        """The id of the repair that handles ``finding`` (one of this rule's), or None."""
        if self.repair_keys is not None and finding.key not in self.repair_keys:
            return None
        return self.repair


def rule(
    rule_id: str,
    severity: str,
    summary: str,
    *,
    scope: str,
    fix: str,
    fires: tuple[Example, ...],
    quiet: tuple[Example, ...],
    schema: bool = False,
    fix_for: Callable[[Any], str] | None = None,
    store_check: Callable[[Any], Iterator[Any]] | None = None,
    gather: Callable[[Any], Any] | None = None,
    details: Callable[[], list[str]] | None = None,
    repair: str | None = None,
    repair_keys: tuple[str, ...] | None = None,
) -> Callable[[Callable[..., Iterator[Any]]], Rule]:
    """Make a rule function a :class:`Rule` under a stable kebab-case id (the catalogue
    in :mod:`engramory.doctor.rules` lists it).

    ``fix`` is the catalogue's how-to-fix line; ``fix_for(view)``, when given,
    words it for the store at hand (e.g. naming which cap is breached).
    ``fires`` and ``quiet`` are its examples (at least one of each). A note rule's
    ``store_check(view)``, when given, runs once in the store pass as well.
    ``gather(note)``, for a store rule, works out a small fact about each note in
    the per-note pass, while its text is in memory (in worker processes on a
    large store): it must return plain, picklable data, the same in any process.
    The store pass finds them in ``view.facts[rule id]``, by note number.
    ``details()``, when given, returns more lines for the rule's ``--explain`` page.
    ``repair`` names the repair of ``engramory fix`` that handles its findings
    (``repair_keys``: only those about these frontmatter keys).
    """

    def make(check: Callable[..., Iterator[Any]]) -> Rule:
        if severity not in SEVERITIES or scope not in (NOTE, STORE) or not (fires and quiet):
            raise ValueError(f"bad rule definition for {rule_id}")
        if gather is not None and scope != STORE:
            raise ValueError(f"only a store rule gathers facts: {rule_id}")
        return Rule(
            rule_id,
            severity,
            summary,
            scope,
            schema,
            fix,
            check,
            fix_for,
            fires,
            quiet,
            store_check,
            gather,
            details,
            repair,
            repair_keys,
        )

    return make


def catalogue(rules: tuple[Rule, ...]) -> dict[str, Rule]:
    """The rules by id, in the given order; a repeated id is a programming error."""
    by_id: dict[str, Rule] = {}
    for each in rules:
        if each.id in by_id:
            raise ValueError(f"duplicate rule id {each.id}")
        by_id[each.id] = each
    return by_id
