"""The doctor's rule catalogue as ``--list-rules`` and ``--explain`` print it, text or JSON.

Pure: each function returns the text to print. An example's secret is shown as
the doctor's messages show it (:func:`engramory.secrets.redact`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from engramory import secrets
from engramory.doctor.model import Example, Rule
from engramory.doctor.profiles import PROFILES, Profile
from engramory.doctor.rules import RULES
from engramory.util.textfmt import plural

QUIET = "quiet"  # a rule's "severity" under a profile that does not run it
EXAMPLE_LINES = 14  # lines of an example file --explain shows
EXAMPLE_WIDTH = 100  # characters of an example line --explain shows


def profile_severity(profile: Profile, rule: Rule) -> str:
    """The rule's severity under ``profile``, or ``quiet`` when the profile does not run it."""
    return QUIET if not profile.runs(rule.id) else profile.severity(rule)


def _profile_marks(rule: Rule, severity: str) -> str:
    """`` [claude-native: info]`` for each profile under which the rule is not ``severity``."""
    marks = [
        f" [{p.name}: {profile_severity(p, rule)}]"
        for p in PROFILES.values()
        if p.differs(rule) and profile_severity(p, rule) != severity
    ]
    return "".join(marks)


def catalogue_text(profile: Profile | None = None) -> str:
    """The catalogue, one rule a line: id, severity (under ``profile``, default the
    catalogue's), summary, then markers: schema, and the profiles where the severity differs."""
    width = max(len(rule_id) for rule_id in RULES)
    lines = []
    for rule in RULES.values():
        marker = " [schema]" if rule.schema else ""
        severity = profile_severity(profile, rule) if profile else rule.severity
        marks = _profile_marks(rule, severity)
        lines.append(f"{rule.id:<{width}}  {severity:<7}  {rule.summary}{marker}{marks}")
    return "\n".join(lines)


def catalogue_json(profile: Profile | None = None) -> str:
    """The catalogue as JSON; ``severity`` under ``profile``, ``profiles`` under each."""
    return json.dumps(
        [
            {
                "rule": r.id,
                "severity": profile_severity(profile, r) if profile else r.severity,
                "summary": r.summary,
                "schema": r.schema,
                "fix": profile.fix(r, r.fix) if profile else r.fix,
                "profiles": {p.name: profile_severity(p, r) for p in PROFILES.values()},
            }
            for r in RULES.values()
        ],
        indent=2,
        ensure_ascii=False,
    )


def _shown_lines(text: str) -> list[str]:
    """An example file's first lines, cut to the terminal (``text`` is our own data)."""
    lines = text.splitlines()
    if not lines:
        return ["(empty)"]
    shown = [
        line if len(line) <= EXAMPLE_WIDTH else line[:EXAMPLE_WIDTH] + "…"
        for line in lines[:EXAMPLE_LINES]
    ]
    if len(lines) > EXAMPLE_LINES:
        shown.append(f"… ({plural(len(lines) - EXAMPLE_LINES, 'more line')})")
    return shown


def example_text(example: Example) -> Iterator[str]:
    """An example store, file by file, as ``--explain`` and docs/rules.md show it."""
    yield f"  - {example.text}"
    if example.flags:
        yield f"      with: engramory doctor {' '.join(example.flags)}"
    if example.environ:
        shown = " ".join(f"{name}={value}" for name, value in example.environ.items())
        yield f"      environment ({{root}}: the folder holding the store): {shown}"
    for rel, text in example.tree().items():
        yield f"      {rel}:"
        yield from (f"        {line}".rstrip() for line in _shown_lines(text))
    for rel, target in example.symlinks.items():
        yield f"      {rel} -> {target} (a symlink)"
    for rel, text in example.outside.items():
        yield f"      ../{rel} (outside the store):"
        yield from (f"        {line}".rstrip() for line in _shown_lines(text))
    for rel, size in example.sizes.items():
        yield f"      {rel} ({size:,} bytes)"
    for rel, mode in example.modes.items():
        yield f"      {rel} (mode {mode:03o})"


def _profile_lines(rule: Rule) -> Iterator[str]:
    """How each profile that differs from the catalogue treats the rule."""
    for profile in PROFILES.values():
        if not profile.differs(rule):
            continue
        if not profile.runs(rule.id):
            yield f"  profile {profile.name}: quiet (the rule does not run)"
        else:
            yield f"  profile {profile.name}: {profile.severity(rule)}"
        if profile.fix(rule, rule.fix) != rule.fix:
            yield f"    fix there: {profile.fix(rule, rule.fix)}"


def explain_text(rule: Rule) -> str:
    """A rule's page: id, severity, summary, how each profile differs, the stores it fires
    and stays quiet on (with the engramory profile unless an example's flags say otherwise),
    the fix."""
    lines = [f"{rule.id} ({rule.severity})", f"  {rule.summary}"]
    if rule.schema:
        lines.append("  a schema rule: --no-schema skips it")
    lines += _profile_lines(rule)
    lines += ["", "Fires:"]
    for example in rule.fires:
        lines += example_text(example)
    lines += ["", "Quiet:"]
    for example in rule.quiet:
        lines += example_text(example)
    if rule.details is not None:
        lines += ["", *rule.details()]
    lines += ["", f"Fix: {rule.fix}"]
    return secrets.redact("\n".join(lines))  # an example's key is shown as the doctor shows it


def _redacted(files: Mapping[str, str]) -> dict[str, str]:
    """``files`` with every secret's value cut to what the doctor's messages show."""
    return {rel: secrets.redact(text) for rel, text in files.items()}


def _example_dict(example: Example) -> dict[str, Any]:
    return {
        "text": example.text,
        "files": _redacted(example.tree()),
        "symlinks": dict(example.symlinks),
        "outside": _redacted(example.outside),
        "sizes": dict(example.sizes),
        "modes": {rel: f"{mode:03o}" for rel, mode in example.modes.items()},
        "flags": list(example.flags),
        "environ": dict(example.environ),
    }


def explain_json(rule: Rule) -> str:
    """A rule's page as JSON (``--explain RULE --format json``)."""
    return json.dumps(
        {
            "rule": rule.id,
            "severity": rule.severity,
            "summary": rule.summary,
            "schema": rule.schema,
            "fix": rule.fix,
            "profiles": {p.name: profile_severity(p, rule) for p in PROFILES.values()},
            "fires": [_example_dict(example) for example in rule.fires],
            "quiet": [_example_dict(example) for example in rule.quiet],
            "details": [secrets.redact(line) for line in rule.details()] if rule.details else [],
        },
        indent=2,
        ensure_ascii=False,
    )
