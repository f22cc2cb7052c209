"""The doctor's vocabulary: severities, findings, rules and the rule catalogue.

A rule is one small function registered with :func:`rule`, which records its
stable id, severity, one-line summary, whether it is a schema rule (skipped
by ``--no-schema``), the short "how to fix" line, and its docstring (which
shows an input that fires and the nearest one that does not). The catalogue
that ``--list-rules`` prints and the selection that ``--select``/``--ignore``
validate both come from this registry, so they cannot drift apart.

Rules come in two scopes:

* ``note`` rules look at notes while they are in memory (their frontmatter
  and body). The engine hands them a batch of notes at a time, so a rule is
  one loop over the batch rather than one call per note per rule;
* ``store`` rules look at the whole store (index, pointers, the note graph).

Both yield ``(path, line, message)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)

NOTE = "note"
STORE = "store"

# At most this many findings of one rule per file; the rest are counted in one
# more finding (a 4 MiB note of bad lines would otherwise give millions).
FINDINGS_PER_FILE = 20


class Finding:
    """One problem: ``path`` is store-relative and ``/``-separated; ``line`` is 1-based."""

    __slots__ = ("line", "message", "path", "rule", "severity")

    def __init__(self, rule: str, severity: str, path: str, line: int | None, message: str):
        self.rule = rule
        self.severity = severity
        self.path = path
        self.line = line
        self.message = message

    def sort_key(self) -> tuple[str, int, int, str]:
        """Path, then line (findings without a line first), then rule id."""
        return (self.path, 0 if self.line is None else 1, self.line or 0, self.rule)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Finding) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash(tuple(self.as_dict().values()))

    def __repr__(self) -> str:
        return f"Finding({self.rule!r}, {self.path!r}, {self.line!r}, {self.message[:50]!r})"


class More(int):
    """Yielded by a rule in place of a message: this many more findings for the path,
    counted where they arose and never built (a parser keeps only the first ones)."""


def overflow_message(rule_id: str, more: int) -> str:
    """The message of the finding that stands for ``more`` findings left out."""
    noun = "finding" if more == 1 else "findings"
    return f"... and {more:,} more `{rule_id}` {noun} in this file; fix the first ones and re-run"


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
            yield (path, None, overflow_message(rule_id, seen - limit))


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

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip()


RULES: dict[str, Rule] = {}


def rule(
    rule_id: str,
    severity: str,
    summary: str,
    *,
    scope: str,
    fix: str,
    schema: bool = False,
    fix_for: Callable[[Any], str] | None = None,
) -> Callable[[Callable[..., Iterator[Any]]], Callable[..., Iterator[Any]]]:
    """Register a rule function under a stable kebab-case id.

    ``fix`` is the catalogue's how-to-fix line; ``fix_for(view)``, when given,
    words it for the store at hand (e.g. naming which cap is breached).
    """

    def register(check: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
        if rule_id in RULES:
            raise ValueError(f"duplicate rule id {rule_id}")
        if severity not in SEVERITIES or scope not in (NOTE, STORE):
            raise ValueError(f"bad rule definition for {rule_id}")
        RULES[rule_id] = Rule(rule_id, severity, summary, scope, schema, fix, check, fix_for)
        return check

    return register
