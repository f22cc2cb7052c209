"""Message helpers: sizes, plurals, safe excerpts."""

from __future__ import annotations

import pytest

from engramory.secrets.excerpts import excerpt
from engramory.util.textfmt import human_size, plural


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0 B"),
        (999, "999 B"),
        (1000, "1,000 B"),
        (20480, "20,480 B"),
        (25000, "25,000 B"),
        (4 * 1024 * 1024, "4,194,304 B"),
        (3 * 1000**3, "3,000,000,000 B"),
    ],
)
def test_human_size(n: int, text: str) -> None:
    assert human_size(n) == text


def test_plural() -> None:
    assert plural(1, "line") == "1 line"
    assert plural(0, "line") == "0 lines"
    assert plural(2, "entry", "entries") == "2 entries"


def test_excerpt_truncates_long_values() -> None:
    shown = excerpt("x " * 1000)
    assert len(shown) <= 44
    assert shown.endswith("…'")


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-AbCdEf1234567890XyZ12",
        "ghp_aBcDeF0123456789aBcDeF0123456789abcd",
        "AKIAIOSFODNN7EXAMPLE",
        "0123456789abcdef0123456789abcdef01234567",
    ],
)
def test_excerpt_hides_credential_like_runs(secret: str) -> None:
    shown = excerpt(f"key = {secret}")
    assert secret not in shown
    assert secret[:4] in shown


@pytest.mark.parametrize(
    "readable",
    [
        "feedback_verify_before_done_and_more.md",
        "project-invoice-migration-2026-11-20",
        "89dfab34-1de0-4da5-8f71-a42bbfe0e98f",
    ],
)
def test_excerpt_keeps_slugs_dates_and_uuids_readable(readable: str) -> None:
    assert readable in excerpt(readable, limit=60)


def test_excerpt_escapes_control_characters() -> None:
    assert excerpt("a\x00b\x1b[31m\u2028") == "'a\\x00b\\x1b[31m\\u2028'"
