"""``engramory check``'s verdict as it prints it: the one text line, the JSON object, and
the ``github``/``sarif`` output (the verdict as the doctor's cap rule).

Pure: each function returns what to print. The doctor's modules load only for the
CI formats, so the everyday text check starts as fast as before.
"""

from __future__ import annotations

import json
import os

from engramory import __version__
from engramory.store import breach
from engramory.store import caps as capsmod
from engramory.store.caps import Caps, Measurement
from engramory.util.textfmt import human_size

VERDICT_RULES = {capsmod.WARN: "index-over-soft-cap", capsmod.OVER: "index-over-hard-cap"}


def describe(path: str, m: Measurement, caps: Caps, verdict: str, origin: str = "") -> str:
    """The one-line verdict ``engramory check`` prints.

    ``origin`` says how a discovered index was found; it goes after the path,
    inside the line, so the line still starts with the verdict word.
    """
    shown = f"{path} ({origin})" if origin else path
    what = f"{shown} is {breach.size_text(m)}"
    caps_text = breach.caps_text(caps)
    if verdict == capsmod.OK:
        return f"OK: {what} ({caps_text})."
    if verdict == capsmod.WARN:
        over_soft, advice = breach.words(m, caps, hard=False)
        return f"WARN: {what}, {over_soft} ({caps_text}). Plan a compaction soon: {advice}."
    over_hard, advice = breach.words(m, caps)
    unread = (
        f"; check did not read it: it is larger than the {human_size(caps.hard_bytes)} hard "
        "cap, so its lines were not counted"
        if m.lines is None
        else ""
    )
    return (
        f"OVER: {what}, {over_hard}{unread} ({caps_text}). "
        f"Hosts stop loading the index past the cap. Compact now: {advice}, "
        "before adding anything."
    )


def verdict_json(m: Measurement, caps: Caps, verdict: str, dims: list[str]) -> dict[str, object]:
    """The ``--format json`` object (DESIGN §3.2)."""
    return {
        "verdict": verdict,
        "lines": m.lines,
        "bytes": m.bytes,
        "caps": caps.as_dict(),
        "over": dims,
    }


def ci_report(output: str, path: str, message: str, verdict: str) -> str:
    """The ``github`` or ``sarif`` output (ending in a newline, empty for github when OK): the
    verdict as the doctor's cap rule, at the index's path relative to the current directory.

    The doctor's modules load only here, so the everyday text check starts as fast as before.
    """
    from engramory.doctor.model import Finding  # noqa: PLC0415
    from engramory.doctor.rules import RULES  # noqa: PLC0415
    from engramory.report import github, relative_path, sarif, working_directory  # noqa: PLC0415

    cwd = working_directory()
    folder, name = os.path.split(os.path.abspath(path))
    shown = relative_path(os.path.realpath(folder), name, cwd)
    findings = []
    if verdict in VERDICT_RULES:
        rule = RULES[VERDICT_RULES[verdict]]
        findings.append(Finding(rule.id, rule.severity, shown, None, message))
    if output == "github":
        return "".join(line + "\n" for line in github.render(findings))
    rules = [(RULES[rule_id], RULES[rule_id].severity) for rule_id in VERDICT_RULES.values()]
    return json.dumps(sarif.document(findings, rules, __version__, cwd), ensure_ascii=False) + "\n"
