"""The doctor's text report: one line per finding (or per rule, with ``--statistics``), the
summary line, and a fix line per rule that fired.

Pure: the lines are yielded, the command prints them. File-derived text is
escaped (:func:`engramory.util.textfmt.printable`); only the severity word, our own,
is painted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Callable

from engramory.doctor.model import ERROR, INFO, WARNING, Finding
from engramory.report import counts
from engramory.report import statistics as stats
from engramory.store import breach
from engramory.store.caps import Measurement
from engramory.util.textfmt import plural, printable

if TYPE_CHECKING:
    from engramory.doctor import engine


def _index_text(report: engine.Report) -> str:
    if report.index.text is None:
        return "index not read"
    caps = report.caps
    return (
        f"index {breach.size_text(report.index.measured or Measurement(0, 0))} "
        f"(hard cap {breach.limits_text(caps.hard_lines, caps.hard_bytes)})"
    )


def _plain(word: str) -> str:
    return word


def finding_lines(
    findings: list[Finding], paint: Callable[[str], str], limit: int | None
) -> Iterator[str]:
    """One line per finding, at most ``limit`` of them, then one saying how many were left out.

    File-derived text is escaped (one finding, one line); only the severity word,
    our own, goes through ``paint``."""
    shown = findings if limit is None else findings[:limit]
    for f in shown:
        where = f.path if f.line is None else f"{f.path}:{f.line}"
        yield f"{printable(where)}: {paint(f.severity)}: {printable(f'{f.message} [{f.tag}]')}"
    left = len(findings) - len(shown)
    if left:
        yield (
            f"... and {plural(left, 'more finding')} not shown (--max-findings {limit}); "
            "--statistics counts every finding by rule"
        )


def render_text(
    report: engine.Report,
    paint: Callable[[str], str] = _plain,
    max_findings: int | None = None,
    statistics: bool = False,
    profile_reason: str | None = None,
) -> Iterator[str]:
    """The text report, one line at a time: the findings (at most ``max_findings``) or, with
    ``statistics``, one line per rule that fired; the summary (ending with the profile and,
    when given, why it was chosen); a fix line per rule that fired (the statistics lines
    carry their fix already)."""
    if statistics:
        yield from stats.render(stats.rows(report.findings, report.hints), paint)
    else:
        yield from finding_lines(report.findings, paint, max_findings)
    totals = counts(report.findings)
    if not report.findings:
        verdict = "clean"
    else:
        verdict = ", ".join(
            (
                plural(totals[ERROR], "error"),
                plural(totals[WARNING], "warning"),
                f"{totals[INFO]} info",
            )
        )
    yield (
        f"engramory doctor: {verdict} — {plural(report.notes, 'note')}, {_index_text(report)}, "
        f"profile {report.profile.name}"
        + (f" ({printable(profile_reason)})" if profile_reason else "")
    )
    if statistics:
        return
    for rule_id, hint in report.hints.items():
        yield f"  fix {rule_id}: {hint}"
