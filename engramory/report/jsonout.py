"""The doctor's JSON report (``--format json``), in pieces that join into one document.

Pure: the pieces are yielded, the command writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from engramory import __version__
from engramory.report import counts
from engramory.store import discovery

if TYPE_CHECKING:
    from engramory.doctor import engine

JSON_BATCH = 2000  # findings encoded per json.dumps call: fast, and memory stays flat


def render_json(report: engine.Report, profile_reason: str | None = None) -> Iterator[str]:
    """The JSON report, in pieces (a 100,000-finding report is never one big string).

    The pieces join into exactly ``json.dumps(payload)``: compact and one line,
    so the C encoder does the work.
    """
    index = report.index
    read = index.text is not None
    head = {
        "engramory": __version__,
        "store": report.root,
        "profile": report.profile.name,
        "profile_reason": profile_reason,
        "index": {
            "path": discovery.INDEX_NAME,
            "lines": index.measured.lines if read and index.measured else None,
            "bytes": index.measured.bytes if read and index.measured else None,
            "caps": report.caps.as_dict(),
        },
        "notes": report.notes,
        "summary": counts(report.findings),
        "fixes": report.hints,
    }
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "findings": ['
    findings = report.findings
    for start in range(0, len(findings), JSON_BATCH):
        batch = [f.as_dict() for f in findings[start : start + JSON_BATCH]]
        yield (", " if start else "") + json.dumps(batch, ensure_ascii=False)[1:-1]
    yield "]}"
