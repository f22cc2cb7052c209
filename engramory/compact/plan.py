"""The whole plan: the steps in order, each on the text the one before left."""

from __future__ import annotations

from dataclasses import dataclass

from engramory.compact import cold, duplicates, inline, long_lines
from engramory.compact.model import (
    COLD,
    DUPLICATES,
    INLINE_STEP,
    LONG_LINES,
    StepResult,
    StoreFacts,
    within,
)

STEPS = (DUPLICATES, INLINE_STEP, LONG_LINES, COLD)  # the order they run in


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
    text: str,
    facts: StoreFacts,
    limits: tuple[int, int],
    max_line: int,
    archive_cold: bool,
    named: tuple[str, ...] = (),
) -> Plan:
    """Run the steps in order: those ``named`` (even on an index within ``limits``), else
    every step but the cold one (that one too with ``archive_cold``) and only when the
    index is over ``limits``; the cold step archives only while the index is over."""
    if not named and within(text, limits):
        return Plan(text, text, [])
    wanted = named or (DUPLICATES, INLINE_STEP, LONG_LINES) + ((COLD,) if archive_cold else ())
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    current = text[len(bom) :]
    steps = []
    for name in (DUPLICATES, INLINE_STEP, LONG_LINES):
        if name not in wanted:
            continue
        if name == DUPLICATES:
            steps.append(duplicates.plan(current, facts))
        else:
            steps.append(
                (inline.plan if name == INLINE_STEP else long_lines.plan)(current, facts, max_line)
            )
        current = steps[-1].after
    if COLD in wanted:
        measured = bom + current
        result = cold.plan(current, facts, limits) if not within(measured, limits) else None
        steps.append(result or cold.plan(current, facts, (10**12, 10**12)))
        current = steps[-1].after
    for step in steps:
        step.before, step.after = bom + step.before, bom + step.after
    return Plan(text, bom + current, steps)
