"""``duplicate-pointer``: keep the first pointer line to a note, drop the later ones."""

from __future__ import annotations

from collections.abc import Mapping

from engramory.doctor.model import Finding
from engramory.repair import DUPLICATE_POINTER
from engramory.store.markdown import IndexLine

ID = DUPLICATE_POINTER


def removals(
    findings: list[Finding], single: Mapping[int, IndexLine]
) -> tuple[dict[int, list[Finding]], list[Finding]]:
    """``({line: findings fixed by dropping it}, findings left)``.

    The doctor reports every pointer after the first, so each reported line
    that holds only that one link can go.
    """
    drop: dict[int, list[Finding]] = {}
    left = []
    for finding in findings:
        if finding.rule != DUPLICATE_POINTER:
            continue
        if finding.line is not None and finding.line in single:
            drop.setdefault(finding.line, []).append(finding)
        else:
            left.append(finding)
    return drop, left
