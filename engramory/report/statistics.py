"""The summary view (``--statistics``): one line per rule that fired, most frequent first."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Callable, NamedTuple

from engramory.doctor.model import Finding
from engramory.util.textfmt import printable


class Row(NamedTuple):
    """How often one rule fired, at what severity, and how to fix it."""

    count: int
    severity: str
    rule: str
    hint: str


def rows(findings: Iterable[Finding], hints: Mapping[str, str]) -> list[Row]:
    """One row per rule that fired: by count (highest first), then rule id. Every finding
    counts, also those the per-file cap left out (a capped file's last finding stands
    for them)."""
    counted: dict[str, int] = {}
    severity: dict[str, str] = {}
    for finding in findings:
        counted[finding.rule] = counted.get(finding.rule, 0) + finding.count
        severity.setdefault(finding.rule, finding.severity)
    return sorted(
        (Row(n, severity[rule], rule, hints.get(rule, "")) for rule, n in counted.items()),
        key=lambda row: (-row.count, row.rule),
    )


def render(table: list[Row], paint: Callable[[str], str] = str) -> Iterator[str]:
    """The rows as aligned text: count, severity (through ``paint``), rule id, fix hint."""
    if not table:
        return
    count_width = max(len(f"{row.count:,}") for row in table)
    rule_width = max(len(row.rule) for row in table)
    for row in table:
        severity = paint(row.severity) + " " * (7 - len(row.severity))
        yield (
            f"{row.count:>{count_width},}  {severity}  {row.rule:<{rule_width}}  "
            + printable(row.hint)
        ).rstrip()
