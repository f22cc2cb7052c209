"""Every rule's examples, run: each Fires store gives a finding of that rule, each Quiet
store none (the examples are data on the rule, so ``--explain`` shows what is tested)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engramory.doctor.model import Example, Rule
from engramory.doctor.rules import REGISTRY

FILLER = b"filler line\n"


def build(example: Example, root: Path) -> Path:
    """Write the example's store at ``root / "store"`` (and its outside files beside it)."""
    store = root / "store"
    store.mkdir()
    for rel, text in example.outside.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for rel, text in example.tree().items():
        (store / rel).parent.mkdir(parents=True, exist_ok=True)
        (store / rel).write_text(text, encoding="utf-8")
    for rel, size in example.sizes.items():
        (store / rel).write_bytes((FILLER * (size // len(FILLER) + 1))[:size])
    for rel, target in example.symlinks.items():
        (store / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, store / rel)
    return store


def cases() -> list:
    params = []
    for rule in REGISTRY:
        for kind, examples in (("fires", rule.fires), ("quiet", rule.quiet)):
            for number, example in enumerate(examples, 1):
                marks = []
                if example.modes and os.geteuid() == 0:
                    marks.append(pytest.mark.skip(reason="root reads files without permission"))
                params.append(
                    pytest.param(rule, kind, example, id=f"{rule.id}-{kind}-{number}", marks=marks)
                )
    return params


def fired(cli, rule: Rule, example: Example, root: Path) -> list[dict]:
    store = build(example, root)
    for rel, mode in example.modes.items():
        os.chmod(store / rel, mode)
    try:
        result = cli("doctor", str(store), "--format", "json", *example.flags)
    finally:
        for rel in example.modes:
            os.chmod(store / rel, 0o700)
    assert result.code in (0, 1), result
    return [f for f in json.loads(result.out)["findings"] if f["rule"] == rule.id]


@pytest.mark.parametrize(("rule", "kind", "example"), cases())
def test_rule_example(cli, tmp_path: Path, rule: Rule, kind: str, example: Example) -> None:
    findings = fired(cli, rule, example, tmp_path)
    if kind == "fires":
        assert findings, f"{rule.id} stays quiet on: {example.text}"
    else:
        assert not findings, f"{rule.id} fires on: {example.text}: {findings}"


def test_every_rule_has_examples_and_a_fix() -> None:
    for rule in REGISTRY:
        assert rule.fires and rule.quiet and rule.fix, rule.id
        assert all(example.text for example in (*rule.fires, *rule.quiet)), rule.id
