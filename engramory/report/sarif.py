"""SARIF 2.1.0 output: one run, the tool with its rule catalogue, one result per finding.

Paths are relative to the working directory (as GitHub code scanning wants),
percent-encoded as URI references and resolved against ``%SRCROOT%``, which
``originalUriBaseIds`` names. A finding without a line points at line 1: code
scanning needs a ``region.startLine`` of at least 1, and a store-level finding
is about the file as a whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from engramory.doctor.model import ERROR, INFO, WARNING, Finding, Rule

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://pypi.org/project/engramory/"
SOURCE_ROOT = "%SRCROOT%"
LEVELS = {ERROR: "error", WARNING: "warning", INFO: "note"}


def descriptor(rule: Rule, severity: str) -> dict[str, Any]:
    """A rule as a ``reportingDescriptor``: id, short description, help and default level."""
    return {
        "id": rule.id,
        "shortDescription": {"text": rule.summary},
        "help": {"text": rule.fix},
        "defaultConfiguration": {"level": LEVELS[severity]},
    }


def uri(path: str) -> str:
    """A ``/``-separated path as a URI reference (spaces, ``%``, ``#`` ... percent-encoded)."""
    return quote(path, safe="/", errors="surrogateescape")


def result(finding: Finding, rule_index: int | None) -> dict[str, Any]:
    """One finding as a SARIF ``result`` (its path already relative to the working directory)."""
    made: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": uri(finding.path), "uriBaseId": SOURCE_ROOT},
                    "region": {"startLine": finding.line if finding.line else 1},
                }
            }
        ],
    }
    if rule_index is not None:
        made["ruleIndex"] = rule_index
    if finding.detector:
        made["properties"] = {"detector": finding.detector}
    return made


def document(
    findings: Iterable[Finding],
    rules: Iterable[tuple[Rule, str]],
    version: str,
    cwd: str,
) -> dict[str, Any]:
    """The SARIF log: ``rules`` are (rule, default severity) pairs, every rule of the tool."""
    descriptors = [descriptor(rule, severity) for rule, severity in rules]
    index_of = {entry["id"]: n for n, entry in enumerate(descriptors)}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "engramory",
                        "version": version,
                        "informationUri": INFORMATION_URI,
                        "rules": descriptors,
                    }
                },
                "originalUriBaseIds": {SOURCE_ROOT: {"uri": Path(cwd).as_uri() + "/"}},
                "results": [result(f, index_of.get(f.rule)) for f in findings],
            }
        ],
    }
