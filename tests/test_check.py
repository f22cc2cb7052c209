"""`engramory check`: verdicts and exit codes at every boundary, and every bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import CAP_ENV, EXAMPLE_STORE, run_engramory
from engramory.util import fsutil


def write_lines(path: Path, count: int, newline: str = "\n") -> Path:
    path.write_bytes("".join(f"- [n{i}](n{i}.md)" + newline for i in range(count)).encode())
    return path


def write_size(path: Path, size: int) -> Path:
    """One line of exactly ``size`` bytes (newline included)."""
    path.write_bytes(b"a" * (size - 1) + b"\n")
    return path


@pytest.mark.parametrize(
    ("count", "word", "code"),
    [(150, "OK:", 0), (151, "WARN:", 1), (200, "WARN:", 1), (201, "OVER:", 2)],
)
def test_line_boundaries(cli, tmp_path: Path, count: int, word: str, code: int) -> None:
    index = write_lines(tmp_path / "MEMORY.md", count)
    result = cli("check", str(index))
    assert result.code == code
    assert result.out.startswith(word)
    assert f"{count} lines" in result.out


@pytest.mark.parametrize(
    ("size", "word", "code"),
    [(20480, "OK:", 0), (20481, "WARN:", 1), (25000, "WARN:", 1), (25001, "OVER:", 2)],
)
def test_byte_boundaries(cli, tmp_path: Path, size: int, word: str, code: int) -> None:
    index = write_size(tmp_path / "MEMORY.md", size)
    result = cli("check", str(index), "--format", "json")
    assert result.code == code
    report = json.loads(result.out)
    assert report["verdict"] == word[:-1].lower()
    assert report["bytes"] == size
    text = cli("check", str(index))
    assert text.out.startswith(word)


def test_warn_names_the_dimension_and_first_step(cli, tmp_path: Path) -> None:
    result = cli("check", str(write_lines(tmp_path / "MEMORY.md", 151)))
    assert "soft cap on lines (151 > 150)" in result.out
    assert "merge duplicate pointers and archive cold notes" in result.out


def test_over_on_bytes_says_shorten_the_longest_lines_first(cli, tmp_path: Path) -> None:
    result = cli("check", str(write_size(tmp_path / "MEMORY.md", 25001)))
    assert "hard cap on bytes (25,001 > 25,000)" in result.out
    assert "shorten the longest index lines first" in result.out


def test_both_dimensions_are_named(cli, tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(("y" * 139 + "\n") * 160)  # 160 lines, 22400 bytes
    result = cli("check", str(index))
    assert result.code == 1
    assert "lines (160 > 150) and bytes (22,400 > 20,480)" in result.out


def test_over_the_byte_cap_reports_bytes_only_because_it_is_not_read(cli, tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(("y" * 109 + "\n") * 250)  # 250 lines, 27500 bytes
    result = cli("check", str(index), "--format", "json")
    assert result.code == 2
    assert json.loads(result.out)["over"] == ["bytes"]
    assert json.loads(result.out)["lines"] is None


def test_empty_file_is_ok(cli, tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_bytes(b"")
    result = cli("check", str(index), "--format", "json")
    assert result.code == 0
    assert json.loads(result.out)["lines"] == 0


def test_bom_only_file_has_no_lines_but_three_bytes(cli, tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_bytes(b"\xef\xbb\xbf")
    report = json.loads(cli("check", str(index), "--format", "json").out)
    assert (report["lines"], report["bytes"]) == (0, 3)


def test_crlf_lines_count_once(cli, tmp_path: Path) -> None:
    index = write_lines(tmp_path / "MEMORY.md", 151, newline="\r\n")
    report = json.loads(cli("check", str(index), "--format", "json").out)
    assert report["lines"] == 151
    assert report["verdict"] == "warn"
    assert report["over"] == ["lines"]


def test_json_shape(cli) -> None:
    result = cli("check", str(EXAMPLE_STORE), "--format", "json")
    report = json.loads(result.out)
    assert set(report) == {"verdict", "lines", "bytes", "caps", "over", "profile", "profile_reason"}
    assert report["caps"] == {
        "warn_lines": 150,
        "hard_lines": 200,
        "warn_bytes": 20480,
        "hard_bytes": 25000,
    }
    assert report["verdict"] == "ok" and report["over"] == []
    assert report["bytes"] == (EXAMPLE_STORE / "MEMORY.md").stat().st_size


def test_over_the_hard_byte_cap_is_not_read(cli, tmp_path: Path, monkeypatch) -> None:
    index = tmp_path / "MEMORY.md"
    with index.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: 200 MB that costs nothing

    def refuse(*_args: object) -> bytes:
        raise AssertionError("an over-cap index must not be read")

    monkeypatch.setattr(fsutil.os, "read", refuse)
    # --profile: no note of the folder is read to detect it; only the index's read is refused
    result = cli("check", str(index), "--format", "json", "--profile", "engramory")
    monkeypatch.undo()
    report = json.loads(result.out)
    assert result.code == 2
    assert report["lines"] is None
    assert report["over"] == ["bytes"]
    text = cli("check", str(index))
    assert "not read" in text.out and "209,715,200 B" in text.out


def test_environment_caps_apply(cli, tmp_path: Path, monkeypatch) -> None:
    index = write_lines(tmp_path / "MEMORY.md", 12)
    monkeypatch.setenv("ENGRAMORY_HARD", "10")
    monkeypatch.setenv("ENGRAMORY_WARN", "5")
    assert cli("check", str(index)).code == 2


@pytest.mark.parametrize("junk", ["", "lots", "0", "-3", "10.5"])
def test_junk_environment_caps_fall_back_to_defaults(cli, tmp_path, monkeypatch, junk):
    index = write_lines(tmp_path / "MEMORY.md", 201)
    for name in CAP_ENV:
        monkeypatch.setenv(name, junk)
    result = cli("check", str(index), "--format", "json")
    assert result.code == 2
    assert json.loads(result.out)["caps"]["hard_lines"] == 200


def test_flags_override_environment(cli, tmp_path: Path, monkeypatch) -> None:
    index = write_lines(tmp_path / "MEMORY.md", 12)
    monkeypatch.setenv("ENGRAMORY_HARD", "10")
    result = cli("check", str(index), "--hard-lines", "50", "--warn-lines", "40")
    assert result.code == 0


def test_small_byte_caps_render_exactly(cli, tmp_path: Path) -> None:
    index = write_size(tmp_path / "MEMORY.md", 1500)
    result = cli("check", str(index), "--hard-bytes", "1000", "--warn-bytes", "900")
    assert "1,000 B" in result.out and "KB" not in result.out


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5"])
def test_bad_cap_flag_is_a_usage_error(cli, tmp_path: Path, value: str) -> None:
    index = write_lines(tmp_path / "MEMORY.md", 3)
    result = cli("check", str(index), "--hard-lines", value)
    assert result.code == 64
    assert "positive integer" in result.err


def test_unknown_flag_is_a_usage_error(cli) -> None:
    result = cli("check", str(EXAMPLE_STORE), "--json")
    assert result.code == 64
    assert "unrecognized arguments: --json" in result.err


def test_store_directory_measures_its_index(cli) -> None:
    result = cli("check", str(EXAMPLE_STORE))
    assert result.code == 0
    assert "MEMORY.md is" in result.out


def test_any_file_can_be_measured(cli, tmp_path: Path) -> None:
    index = write_lines(tmp_path / "INDEX.md", 3)
    assert cli("check", str(index)).code == 0


def test_missing_path_exits_66(cli, tmp_path: Path) -> None:
    result = cli("check", str(tmp_path / "nope" / "MEMORY.md"))
    assert result.code == 66
    assert "does not exist" in result.err
    assert result.out == ""


def test_directory_without_index_exits_66(cli, tmp_path: Path) -> None:
    result = cli("check", str(tmp_path))
    assert result.code == 66
    assert "is not a memory store" in result.err and "tried" in result.err


def test_store_without_index_exits_66(cli, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\nname: a\n---\nbody\n")
    result = cli("check", str(tmp_path))
    assert result.code == 66
    assert "has no MEMORY.md" in result.err


def test_index_that_is_a_directory_exits_66(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").mkdir()
    result = cli("check", str(tmp_path))
    assert result.code == 66
    assert "not a regular file" in result.err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX-only")
def test_fifo_exits_66_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "MEMORY.md"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path):
        proc = run_engramory("check", str(target), timeout=10)  # a hang fails by timeout
        assert proc.returncode == 66, proc.stderr
        assert b"not a regular file" in proc.stderr


def test_no_path_and_no_store_exits_66_naming_what_was_tried(tmp_path: Path) -> None:
    proc = run_engramory("check", cwd=tmp_path)
    assert proc.returncode == 66
    assert b"ENGRAMORY_MEMORY_ROOT" in proc.stderr and b".engramory-memory" in proc.stderr


def test_no_path_finds_the_default_store(tmp_path: Path) -> None:
    store = tmp_path / ".engramory-memory"
    store.mkdir()
    write_lines(store / "MEMORY.md", 4)
    proc = run_engramory("check", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(b"OK: .engramory-memory")


def test_non_utf8_console_does_not_crash(tmp_path: Path) -> None:
    store = tmp_path / "mémoire"
    store.mkdir()
    write_lines(store / "MEMORY.md", 151)
    proc = run_engramory("check", str(store), env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr
    assert b"m\\xe9moire" in proc.stdout


def test_python_dash_m_and_exit_codes_as_a_real_process(tmp_path: Path) -> None:
    index = write_lines(tmp_path / "MEMORY.md", 201)
    proc = run_engramory("check", str(index))
    assert proc.returncode == 2
    assert proc.stdout.startswith(b"OVER:")
