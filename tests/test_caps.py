"""Caps and measurement: one definition used by check, doctor and hooks."""

from __future__ import annotations

import pytest

from engramory.store import caps
from engramory.store.caps import (
    Caps,
    Measurement,
    caps_from,
    count_lines,
    positive_int,
    utf8_size,
    verdict,
)


def test_defaults() -> None:
    assert caps_from({}) == Caps(150, 200, 20480, 25000)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, None),
        ("", None),
        ("   ", None),
        ("abc", None),
        ("0", None),
        ("-5", None),
        ("+5", None),
        ("1.5", None),
        ("1_000", None),  # int() would accept it
        ("٥", None),  # so would it this Arabic-Indic five
        (" 42 ", 42),
        ("7", 7),
    ],
)
def test_positive_int(raw: str | None, expected: int | None) -> None:
    assert positive_int(raw) == expected


def test_environment_sets_each_cap() -> None:
    env = {
        "ENGRAMORY_WARN": "10",
        "ENGRAMORY_HARD": "20",
        "ENGRAMORY_WARN_BYTES": "300",
        "ENGRAMORY_HARD_BYTES": "400",
    }
    assert caps_from(env) == Caps(10, 20, 300, 400)


@pytest.mark.parametrize("junk", ["", "zero", "0", "-1", "2.5", "1e3"])
def test_junk_environment_values_mean_the_default(junk: str) -> None:
    env = {name: junk for _, name, _ in caps.ENV_VARS}
    assert caps_from(env) == Caps()


def test_flags_override_environment() -> None:
    env = {"ENGRAMORY_HARD": "20", "ENGRAMORY_WARN": "10"}
    result = caps_from(env, hard_lines=99, warn_lines=None)
    assert result.hard_lines == 99
    assert result.warn_lines == 10


def test_unknown_override_is_a_programming_error() -> None:
    with pytest.raises(TypeError, match="hard_line"):
        caps_from({}, hard_line=3)


def test_reads_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAMORY_HARD_BYTES", "1234")
    assert caps_from().hard_bytes == 1234


@pytest.mark.parametrize(
    ("data", "lines"),
    [
        ("", 0),
        ("a", 1),
        ("a\n", 1),
        ("a\nb", 2),
        ("a\nb\n", 2),
        ("a\n\n", 2),
        ("\n", 1),
        ("a\r\nb\r\n", 2),  # CRLF: only \n counts
        ("a\rb\r", 1),  # lone CR is not a line break
        ("a\u2028b\x85c", 1),  # nor are Unicode separators
        ("\ufeff", 0),  # a BOM alone is not text
        ("\ufeffa\n", 1),
    ],
)
def test_count_lines_text_and_bytes_agree(data: str, lines: int) -> None:
    assert count_lines(data) == lines
    assert count_lines(data.encode("utf-8")) == lines


def test_count_lines_on_invalid_utf8_bytes() -> None:
    assert count_lines(b"\xff\xfe\n\x80") == 2


def test_utf8_size_counts_lone_surrogates() -> None:
    assert utf8_size("é") == 2
    assert utf8_size("\ud800") == 3


def test_utf8_size_is_the_guard_s_size_of_a_non_utf8_index() -> None:
    raw = b"caf\xe9\n\xff"  # Latin-1 bytes: what the guard decodes with surrogateescape
    assert utf8_size(raw.decode("utf-8", "surrogateescape")) == len(raw)
    assert utf8_size("\udcff\ud800") == 1 + 3  # an escaped byte, then a JSON lone surrogate


def test_a_measurement_of_bytes_and_of_text_agree() -> None:
    raw = "\ufeffé\nx".encode()
    assert Measurement.of_raw(raw) == Measurement(2, len(raw))
    assert Measurement.of_text(raw.decode("utf-8")) == Measurement.of_raw(raw)


def test_an_unread_measurement_is_judged_on_bytes_only() -> None:
    unread = Measurement(None, 30000)
    assert unread.over(1, 25000) == ["bytes"]
    assert unread.verdict(Caps()) == ("over", ["bytes"])
    assert Measurement(None, 100).verdict(Caps()) == ("ok", [])
    assert Measurement(201, 100).verdict(Caps()) == ("over", ["lines"])


@pytest.mark.parametrize(
    ("lines", "size", "expected"),
    [
        (150, 100, ("ok", [])),
        (151, 100, ("warn", ["lines"])),
        (200, 100, ("warn", ["lines"])),
        (201, 100, ("over", ["lines"])),
        (10, 20480, ("ok", [])),
        (10, 20481, ("warn", ["bytes"])),
        (10, 25000, ("warn", ["bytes"])),
        (10, 25001, ("over", ["bytes"])),
        (201, 25001, ("over", ["lines", "bytes"])),
        (151, 20481, ("warn", ["lines", "bytes"])),
        (201, 20481, ("over", ["lines"])),  # the verdict names the hard dimension only
        (None, 30000, ("over", ["bytes"])),  # not read: lines unknown
    ],
)
def test_verdict_is_strictly_greater_at_every_boundary(
    lines: int | None, size: int, expected: tuple[str, list[str]]
) -> None:
    assert verdict(lines, size, Caps()) == expected


def test_caps_json_shape() -> None:
    assert Caps().as_dict() == {
        "warn_lines": 150,
        "hard_lines": 200,
        "warn_bytes": 20480,
        "hard_bytes": 25000,
    }


def test_caps_module_imports_only_os() -> None:
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(caps))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert imported <= {"annotations", "os"}
