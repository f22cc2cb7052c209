"""Acting on a plan: its steps run in order, then the report is printed.

The report comes only after the last write, so a closed output (``engramory init ... |
head -1``) cannot stop an install half-way; a failure midway says which steps completed.
"""

from __future__ import annotations

from collections.abc import Callable

from engramory.install.steps import Plan


def execute(plan: Plan, dry_run: bool, out: Callable[[str], None]) -> int:
    """Carry out the plan (unless ``dry_run``), then print the report; returns the exit code.

    Every write happens before the first line is printed, so a closed output
    cannot stop the run half-way. Exit 1 when a step failed or left something
    to fix by hand.
    """
    report, code = _act(plan, dry_run)
    for line in report:
        out(line)
    return code


def _act(plan: Plan, dry_run: bool) -> tuple[list[str], int]:
    """Run the steps in order; the report's lines and the exit code."""
    report = [plan.title + (" (dry run: nothing will be written)" if dry_run else "")]
    for step in plan.steps:
        if not dry_run and step.run is not None:
            try:
                step.run()
            except OSError as exc:
                report.append(f"  FAILED          {step.target}: {exc.strerror or exc}")
                report.append(
                    "stopped: the steps above this line completed; nothing after it was done. "
                    "Every write is atomic, so no file is half-written; fix the problem and run "
                    "the same command again."
                )
                return report, 1
        report.append(step.line(dry_run))
    report += plan.closing
    problems = [step.target for step in plan.steps if step.problem and not step.fix]
    if problems:
        report.append(
            f"{'would leave' if dry_run else 'left'} {len(problems)} file(s) to fix by hand "
            f"({', '.join(problems)}): see LEFT UNTOUCHED above; exit 1"
        )
    report += [step.fix for step in plan.steps if step.problem and step.fix]
    if dry_run:
        report.append("(--dry-run: nothing was written)")
    return report, 1 if any(step.problem for step in plan.steps) else 0
