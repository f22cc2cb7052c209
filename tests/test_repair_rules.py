"""Rules own their fixes: ``engramory fix`` finds a finding's repair through its rule's
``repair`` (``Rule.repair``), never through the wording of its message (issue 36)."""

from __future__ import annotations

import importlib
import pickle
from pathlib import Path

import pytest

from conftest import REPO
from doctorkit import doctor, make_store, note
from engramory.doctor.model import Finding, Keyed
from engramory.doctor.rules import RULES
from engramory.repair import FIX_IDS
from engramory.repair.plan import fix_of


def repair_module_ids() -> list[str]:
    """The ``ID`` of every module of ``engramory/repair/`` that declares one."""
    ids = []
    for path in sorted((REPO / "engramory" / "repair").glob("*.py")):
        module = importlib.import_module(f"engramory.repair.{path.stem}")
        if hasattr(module, "ID"):
            ids.append(module.ID)
    return ids


def test_the_repair_modules_are_the_fixes_fix_offers() -> None:
    assert sorted(repair_module_ids()) == sorted(FIX_IDS)


@pytest.mark.parametrize("repair_id", FIX_IDS)
def test_each_repair_is_attached_to_exactly_one_rule(repair_id: str) -> None:
    owners = [r.id for r in RULES.values() if r.repair == repair_id and r.repair_keys is None]
    assert owners == [repair_id]


def test_every_rule_repair_names_a_repair_module() -> None:
    named = {r.repair for r in RULES.values() if r.repair is not None}
    assert named <= set(repair_module_ids())


def test_only_missing_field_shares_a_repair_and_only_for_its_name_findings() -> None:
    keyed = {r.id: (r.repair, r.repair_keys) for r in RULES.values() if r.repair_keys}
    assert keyed == {"missing-field": ("name-mismatch", ("name",))}


@pytest.mark.parametrize("rule_id", sorted(r.id for r in RULES.values() if r.repair is None))
def test_a_rule_without_a_repair_gets_no_fix(rule_id: str) -> None:
    assert fix_of(Finding(rule_id, "error", "a.md", 1, "'name' is missing", key="name")) is None


@pytest.mark.parametrize("rule_id", FIX_IDS)
def test_a_rule_with_a_repair_gets_it(rule_id: str) -> None:
    assert fix_of(Finding(rule_id, "error", "a.md", 1, "anything")) == rule_id


def test_missing_field_is_fixed_by_its_key_not_by_its_wording() -> None:
    about_name = Finding("missing-field", "error", "a.md", 2, "worded any way", key="name")
    worded_as_name = Finding("missing-field", "error", "a.md", 2, "'name' is missing")
    about_type = Finding("missing-field", "error", "a.md", 2, "'name' is x", key="type")
    assert fix_of(about_name) == "name-mismatch"
    assert fix_of(worded_as_name) is None
    assert fix_of(about_type) is None


def test_an_unknown_rule_gets_no_fix() -> None:
    assert fix_of(Finding("no-such-rule", "error", "a.md", 1, "x")) is None


def test_a_keyed_message_keeps_its_key_through_a_worker_process() -> None:
    message = pickle.loads(pickle.dumps(Keyed("'created' is missing", "created")))
    assert (message, message.key) == ("'created' is missing", "created")
    assert Finding("missing-date", "warning", "a.md", 3, message).key == "created"


def test_the_doctor_says_which_key_a_field_or_date_finding_is_about(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", created="2026-02-30", drop=("name", "updated"))},
        index="- [a](a.md) — a\n",
    )
    keys = {(f.rule, f.key) for f in doctor(store).findings if f.path == "a.md"}
    assert {
        ("missing-field", "name"),
        ("invalid-date", "created"),
        ("missing-date", "updated"),
    } <= keys
    assert all(key is None for rule, key in keys if rule not in RULES_WITH_KEYS)


RULES_WITH_KEYS = {"missing-field", "missing-date", "invalid-date"}


def test_the_rules_page_says_which_rules_fix_repairs() -> None:
    page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    sections = {part.split("`", 1)[0]: part for part in page.split("\n## `")[1:]}
    says_yes = {
        rid for rid, text in sections.items() if "**Fixed by `engramory fix`:** yes" in text
    }
    assert says_yes == {r.id for r in RULES.values() if r.repair is not None}
    assert (
        "by its `name-mismatch` repair (`engramory fix --select name-mismatch`), only its "
        "findings about `name`." in sections["missing-field"]
    )
