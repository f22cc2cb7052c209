"""Every host's init and uninstall write the same bytes as the record made before the redesign.

The record (tests/data/install_golden.json) comes from tests/make_install_golden.py;
see there for what it holds and how to regenerate it when a change is intended.
"""

from __future__ import annotations

import json

import make_install_golden as golden
import pytest

RECORD = json.loads(golden.GOLDEN.read_text(encoding="utf-8"))


def _contents(snapshot: dict, blobs: dict[str, str]) -> dict[str, str]:
    return {path: blobs[digest] for path, digest in snapshot["files"].items()}


def test_the_record_covers_every_host_and_form() -> None:
    assert list(RECORD["cases"]) == [*golden.cases(), *golden.SEEDED]


@pytest.mark.parametrize("name", list(RECORD["cases"]))
def test_init_and_uninstall_write_the_recorded_bytes(name: str) -> None:
    expected = RECORD["cases"][name]
    blobs: dict[str, str] = {}
    actual = golden.record_case(expected["init"], blobs, expected.get("seed"))
    for stage in ("after_init", "after_uninstall"):
        assert actual[stage]["folders"] == expected[stage]["folders"], stage
        assert _contents(actual[stage], blobs) == _contents(expected[stage], RECORD["blobs"]), stage
    assert (actual["init_exit"], actual["uninstall_exit"]) == (
        expected["init_exit"],
        expected["uninstall_exit"],
    )
    assert actual["uninstall"] == expected["uninstall"]
