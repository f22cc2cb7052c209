"""Every rule's examples, run: each Fires store gives a finding of that rule, each Quiet
store none (the examples are data on the rule, so ``--explain`` shows what is tested)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from engramory import secrets
from engramory.doctor.model import Example, Rule
from engramory.doctor.rules import REGISTRY, RULES

FILLER = b"filler line\n"


def build(example: Example, root: Path) -> Path:
    """Write the example's store at ``root / "store"`` (and its outside files beside it)."""
    store = root / "store"
    store.mkdir()
    if example.history:
        snapshot_first(store, example.history)
    for rel, text in example.outside.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text.replace("{root}", str(root)), encoding="utf-8")
    for rel, text in example.tree().items():
        (store / rel).parent.mkdir(parents=True, exist_ok=True)
        (store / rel).write_text(text, encoding="utf-8")
    for rel, size in example.sizes.items():
        (store / rel).write_bytes((FILLER * (size // len(FILLER) + 1))[:size])
    for rel, target in example.symlinks.items():
        (store / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, store / rel)
    return store


def snapshot_first(store: Path, files: dict[str, str]) -> None:
    """Write ``files`` (with an index), take a history snapshot, then empty the store."""
    from engramory.history import location, snapshot

    earlier = Example("", files)
    for rel, text in earlier.tree().items():
        (store / rel).parent.mkdir(parents=True, exist_ok=True)
        (store / rel).write_text(text, encoding="utf-8")
    snapshot.take(location.place_of(str(store)), "example")
    for rel in earlier.tree():
        (store / rel).unlink()


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
    saved = {name: os.environ.get(name) for name in example.environ}
    os.environ.update({k: v.replace("{root}", str(root)) for k, v in example.environ.items()})
    try:
        result = cli("doctor", str(store), "--format", "json", *example.flags)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
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


# --explain


def test_explain_prints_the_rule_its_examples_and_fix(cli) -> None:
    rule = RULES["pointer-missing"]
    result = cli("doctor", "--explain", "pointer-missing")
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert lines[:2] == ["pointer-missing (error)", f"  {rule.summary}"]
    assert lines[-1] == f"Fix: {rule.fix}"
    fires, quiet = result.out.index("\nFires:\n"), result.out.index("\nQuiet:\n")
    assert fires < quiet
    for example in rule.fires:
        assert fires < result.out.index(f"  - {example.text}\n") < quiet
    for example in rule.quiet:
        assert result.out.index(f"  - {example.text}\n") > quiet
    assert "        - [x](gone.md)\n" in result.out  # the example's index, shown


def test_explain_shows_flags_links_sizes_and_schema(cli) -> None:
    assert (
        "with: engramory doctor --max-index-line 50"
        in cli("doctor", "--explain", "index-line-too-long").out
    )
    escapes = cli("doctor", "--explain", "note-escapes-store").out
    assert "x.md -> ../diary.md (a symlink)" in escapes
    assert "../diary.md (outside the store):" in escapes
    assert "dump.md (5,000,000 bytes)" in cli("doctor", "--explain", "note-too-large").out
    schema = cli("doctor", "--explain", "missing-why").out
    assert "--no-schema skips it" in schema
    assert "--no-schema" not in cli("doctor", "--explain", "orphan").out


def test_explain_cuts_long_example_files(cli) -> None:
    out = cli("doctor", "--explain", "index-over-hard-cap").out
    assert "… (187 more lines)" in out  # the 201-line index: 14 lines shown
    assert "x" * 101 not in out and "x" * 100 + "…" in out


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_explain_never_prints_an_examples_secret(cli, fmt: str) -> None:
    """The secret-value examples hold (synthetic) keys; --explain shows them as the
    doctor's messages do (first four characters and an ellipsis), never whole."""
    rule = RULES["secret-value"]
    values = {
        text[found.start : found.end]
        for example in (*rule.fires, *rule.quiet)
        for text in example.tree().values()
        for found in secrets.find(text)
    }
    assert len(values) >= 3  # the examples do hold keys (AWS, GitHub, a password)
    out = cli("doctor", "--explain", "secret-value", "--format", fmt).out
    leaked = [value[:4] + "…" for value in values if value in out]
    assert not leaked
    assert all(value[:4] + "…" in out for value in values)


@pytest.mark.parametrize("rule_id", list(RULES))
def test_explain_every_rule(cli, rule_id: str) -> None:
    result = cli("doctor", "--explain", rule_id, "--format", "json")
    assert result.code == 0, result
    page = json.loads(result.out)
    rule = RULES[rule_id]
    assert (page["rule"], page["severity"], page["summary"], page["fix"]) == (
        rule.id,
        rule.severity,
        rule.summary,
        rule.fix,
    )
    assert [e["text"] for e in page["fires"]] == [e.text for e in rule.fires]
    assert [e["files"] for e in page["quiet"]] == [e.tree() for e in rule.quiet]


def test_explain_unknown_rule_is_a_usage_error(cli) -> None:
    result = cli("doctor", "--explain", "no-such-rule\x1b[31m")
    assert result.code == 64
    assert "unknown rule id: no-such-rule\\x1b[31m" in result.err
    assert "--list-rules" in result.err and result.out == ""


def test_explain_and_list_rules_together_is_a_usage_error(cli) -> None:
    assert cli("doctor", "--explain", "orphan", "--list-rules").code == 64


def test_help_documents_explain(cli) -> None:
    out = cli("doctor", "--help").out
    assert "--explain RULE" in out
    assert "engramory doctor --explain pointer-missing" in out


# The rule table of docs/rules.md (generated by tests/make_docs.py; test_generated_docs
# checks the whole page, this checks the table against the registry on its own terms)


RULES_PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
ROW = re.compile(r"^\| \[`([a-z][a-z-]*)`\]\(#[a-z-]+\) \| ([a-z]+) \| (.+?) \|$")


def page_rule_rows(page: str) -> list[tuple[str, ...]]:
    """(id, severity, summary) of each row of the page's rule table."""
    matches = (ROW.match(line) for line in page.splitlines())
    return [match.groups() for match in matches if match]


def table_drift(page: str) -> list[str]:
    """How the page's rule table differs from the registry (empty: it does not)."""
    rows = page_rule_rows(page)
    expected = [(rule.id, rule.severity, rule.summary) for rule in REGISTRY]
    drift = [f"only on the page: {row}" for row in rows if row not in expected]
    drift += [f"not on the page: {row}" for row in expected if row not in rows]
    if not drift and rows != expected:
        drift.append("the page lists the rules in another order than the registry")
    return drift


def test_rules_page_table_matches_the_registry() -> None:
    page = RULES_PAGE.read_text(encoding="utf-8")
    assert table_drift(page) == []
    assert [row[0] for row in page_rule_rows(page)] == list(RULES)  # catalogue order


ORPHAN_ROW = (
    "| [`orphan`](#orphan) | error | a live note not reachable from the index "
    "(directly or through [[links]]) |\n"
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("| [`orphan`](#orphan) | error |", "| [`orphan`](#orphan) | warning |"),  # a severity
        ("a note over 4 MiB (not read)", "a note over 4 MB (not read)"),  # a summary
        ("| [`orphan`](#orphan) |", "| [`orphans`](#orphan) |"),  # an id
        (ORPHAN_ROW, ""),  # a row dropped
        (ORPHAN_ROW, ORPHAN_ROW * 2),  # a row repeated
    ],
)
def test_rules_page_table_check_catches_drift(old: str, new: str) -> None:
    page = RULES_PAGE.read_text(encoding="utf-8")
    assert old in page
    assert table_drift(page.replace(old, new)) != []


def test_rules_page_table_check_catches_another_order() -> None:
    page = RULES_PAGE.read_text(encoding="utf-8")
    moved = page.replace(ORPHAN_ROW, "").replace("|---|---|---|\n", "|---|---|---|\n" + ORPHAN_ROW)
    assert moved != page
    assert table_drift(moved) == ["the page lists the rules in another order than the registry"]
