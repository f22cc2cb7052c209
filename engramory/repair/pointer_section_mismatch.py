"""``pointer-section-mismatch``: move the pointer line under the heading of the note's type."""

from __future__ import annotations

from collections.abc import Mapping

from engramory.doctor.model import Finding
from engramory.repair import POINTER_SECTION_MISMATCH
from engramory.store.frontmatter import NOTE_TYPES
from engramory.store.markdown import IndexLine

ID = POINTER_SECTION_MISMATCH


def moves(
    findings: list[Finding], single: Mapping[int, IndexLine], types: Mapping[int, str]
) -> tuple[dict[int, tuple[str, list[Finding]]], list[Finding]]:
    """``({line: (type to move it under, findings fixed)}, findings left)``.

    ``types`` maps a reported line to the type of the note its link leads to
    (the command resolves it as the doctor does).
    """
    move: dict[int, tuple[str, list[Finding]]] = {}
    left = []
    for finding in findings:
        if finding.rule != POINTER_SECTION_MISMATCH:
            continue
        line = finding.line
        note_type = types.get(line) if line is not None else None
        if line is not None and line in single and note_type in NOTE_TYPES:
            move.setdefault(line, (note_type, []))[1].append(finding)
        else:
            left.append(finding)
    return move, left
