"""engramory.write.gate: the doctor gate every writer asks before writing a note, and the
walk of a store's live notes (written once, used by ``new``, ``memory_write``,
``memory_update`` and ``memory_search``)."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest

from doctorkit import make_store, note
from engramory.doctor.profiles import ENGRAMORY
from engramory.util.errors import EngramoryError
from engramory.write.gate import doctor_gate, live_notes, near_duplicates

TODAY = date(2026, 12, 4)


def test_a_clean_note_passes_with_no_warning() -> None:
    data = note("deploy", created="2026-12-01", updated="2026-12-01").encode()
    assert doctor_gate("deploy.md", data, TODAY, ENGRAMORY, ()) == []


def test_an_error_refuses_the_write_naming_the_rule() -> None:
    data = b"---\nname: x\ntype: user\n---\n\nA fact.\n"  # no description
    with pytest.raises(
        EngramoryError, match=r"x\.md would not pass the doctor: .*\[missing-field\]"
    ):
        doctor_gate("x.md", data, TODAY, ENGRAMORY, ())


def test_a_warning_is_said_with_its_place_and_rule() -> None:
    data = note("x", body="Yesterday we moved the deploy to Fridays.").encode()
    warnings = doctor_gate("x.md", data, TODAY, ENGRAMORY, ())
    assert warnings and all(w.startswith("x.md") and w.endswith("]") for w in warnings)
    assert any("[relative-date]" in w for w in warnings)


def test_a_rewrite_may_keep_an_error_the_note_had_but_not_add_one() -> None:
    broken = b"---\nname: x\ntype: user\n---\n\nA fact.\n"
    kept = b"---\nname: x\ntype: user\n---\n\nAnother fact.\n"
    assert doctor_gate("x.md", kept, TODAY, ENGRAMORY, (), before=broken) == []
    worse = b"---\nname: x\n---\n\nA fact.\n"  # the type goes too: still missing-field
    assert doctor_gate("x.md", worse, TODAY, ENGRAMORY, (), before=broken) == []
    clean = note("x").encode()
    with pytest.raises(EngramoryError, match="would not pass the doctor after the update"):
        doctor_gate("x.md", broken, TODAY, ENGRAMORY, (), before=clean)


def test_live_notes_reads_each_live_note_and_nothing_else(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a"), "b.md": note("b"), "archive/old.md": note("old")},
    )
    (tmp_path / "outside.md").write_text(note("outside"), encoding="utf-8")
    os.symlink(tmp_path / "outside.md", store / "link.md")
    found = {n.rel: n for n in live_notes(str(store))}
    assert sorted(found) == ["a.md", "b.md"]
    assert found["a.md"].data == (store / "a.md").read_bytes()
    assert found["a.md"].description == "When to open a: a one-line hook"


def test_near_duplicates_pairs_a_note_with_its_twin_only(tmp_path: Path) -> None:
    twin = note("deploy", body="We deploy the staging service every Friday after the tests pass.")
    store = make_store(
        tmp_path / "s",
        {"deploy.md": twin, "other.md": note("other", body="The editor is set to tabs.")},
    )
    data = twin.replace("name: deploy", "name: deploy-again").encode()
    assert near_duplicates(data, live_notes(str(store))) == ["deploy.md"]
