"""The whole plan: the steps in order, each on the text the one before left."""

from __future__ import annotations

from dataclasses import dataclass

from engramory.compact import cold, duplicates, inline, long_lines
from engramory.compact.model import StepResult, StoreFacts, within


@dataclass
class Plan:
    """The steps run, the index before and after (BOM and all)."""

    before: str
    after: str
    steps: list[StepResult]

    @property
    def changed(self) -> bool:
        """Whether any step changes anything."""
        return any(step.changed for step in self.steps)


def make_plan(
    text: str, facts: StoreFacts, limits: tuple[int, int], max_line: int, archive_cold: bool
) -> Plan:
    """Run every step in order; the cold step only with ``archive_cold``, and only while
    the index is over ``limits``."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    current = text[len(bom) :]
    steps = []
    for step in (duplicates.plan, inline.plan, long_lines.plan):
        result = step(current, facts) if step is duplicates.plan else step(current, facts, max_line)
        steps.append(result)
        current = result.after
    if archive_cold:
        measured = bom + current
        result = cold.plan(current, facts, limits) if not within(measured, limits) else None
        steps.append(result or cold.plan(current, facts, (10**12, 10**12)))
        current = steps[-1].after
    for step in steps:
        step.before, step.after = bom + step.before, bom + step.after
    return Plan(text, bom + current, steps)
