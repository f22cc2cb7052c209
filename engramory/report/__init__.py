"""Renderers: the doctor's text and JSON reports, its rule catalogue, ``check``'s verdict,
and the CI and summary outputs (GitHub annotations, SARIF, per-rule statistics).

Each module here is pure: it turns findings (or a verdict) into text or a
JSON-ready object and does no I/O. The commands choose a renderer and print
what it returns: :mod:`.text` and :mod:`.jsonout` (the doctor's report),
:mod:`.catalogue` (``--list-rules``, ``--explain``), :mod:`.check` (``check``),
:mod:`.github`, :mod:`.sarif`, :mod:`.statistics`. :func:`relocated` gives
findings paths relative to the working directory, the form GitHub annotations
and code scanning resolve against the checkout.
"""

from __future__ import annotations

import os

from engramory.doctor.model import SEVERITIES, Finding
from engramory.util.errors import InputMissingError


def relative_path(root: str, rel: str, cwd: str) -> str:
    """``root/rel`` relative to ``cwd``, ``/``-separated (absolute when no relative path exists,
    e.g. another drive on Windows)."""
    full = os.path.join(root, rel)
    try:
        shown = os.path.relpath(full, cwd)
    except ValueError:
        shown = full
    return shown.replace(os.sep, "/")


def relocated(findings: list[Finding], root: str, cwd: str) -> list[Finding]:
    """``findings`` (store-relative paths) with paths relative to ``cwd``."""
    return [
        Finding(
            f.rule,
            f.severity,
            relative_path(root, f.path, cwd),
            f.line,
            f.message,
            left_out=f.left_out,
            detector=f.detector,
            key=f.key,
        )
        for f in findings
    ]


def working_directory() -> str:
    """The resolved current directory, which CI paths are relative to (the store's root is
    resolved too, so a symlinked checkout still gives short relative paths)."""
    try:
        return os.path.realpath(os.getcwd())
    except OSError as exc:
        raise InputMissingError(
            f"the current directory is gone ({exc.strerror or exc}): cd into the project"
        ) from None


def counts(findings: list[Finding]) -> dict[str, int]:
    """How many findings there are of each severity (every severity, zero included)."""
    totals = dict.fromkeys(SEVERITIES, 0)
    for finding in findings:
        totals[finding.severity] += 1
    return totals
