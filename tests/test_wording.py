"""Wording (issue 10 item 19, issue 11 item 12): counts, masked paths, symlink loops, long names.

Each message says what is true: "1 line", not "1 lines"; a path is shown, not
masked as a credential; a symlink loop is not "dangling"; a name too long is
not a permission problem; the guard says "compact" once; check says who did
not read an oversized index.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from engramory.guard import decision as guard
from engramory.secrets.excerpts import excerpt
from engramory.store.breach import words as breach_words
from engramory.store.caps import Caps, Measurement
from engramory.util import fsutil

NOTE = "---\nname: {name}\ndescription: d\ntype: user\n---\nbody\n"


def doctor_json(cli, store: Path) -> dict:
    return json.loads(cli("doctor", str(store), "--format", "json").out)


def by_rule(report: dict, rule: str) -> list[dict]:
    return [f for f in report["findings"] if f["rule"] == rule]


# --- "1 lines" ---------------------------------------------------------------------------------


def test_check_says_1_line(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("- [a](a.md)\n")
    out = cli("check", str(tmp_path), "--hard-lines", "1", "--warn-lines", "1").out
    assert "is 1 line / " in out and "1 lines" not in out
    assert "soft cap 1 line / " in out and "hard cap 1 line / " in out


def test_doctor_summary_says_1_line(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# Memory\n")
    out = cli("doctor", str(tmp_path), "--hard-lines", "1").out
    assert "index 1 line / " in out and "(hard cap 1 line / " in out and "1 lines" not in out


def test_doctor_over_cap_message_says_1_line(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("- [a](a.md) " + "x" * 30000 + "\n")
    report = doctor_json(cli, tmp_path)
    (finding,) = by_rule(report, "index-over-hard-cap")
    assert "1 line / " in finding["message"] and "1 lines" not in finding["message"]


def test_guard_messages_say_1_line_and_1_byte() -> None:
    caps = Caps(warn_lines=1, hard_lines=1, warn_bytes=1, hard_bytes=1)
    verdict = guard.decide(Measurement(0, 0), Measurement(1, 2), caps)
    assert verdict.kind == guard.DENY
    assert "soft cap 1 line / 1 B, hard cap 1 line / 1 B" in verdict.message
    assert "1 lines" not in verdict.message


def test_file_too_large_error_counts_bytes_in_words() -> None:
    assert "1 byte is over" in str(fsutil.FileTooLargeError("x", 1, 0))


# --- the secret masker and paths ----------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "%2e%2e/outside/secret.md",
        "../../outside/project-notes/runbook.md",
        "archive/2026-11-20/checklist-v2.md",
        "sub%2Fdir/encoded%20name.md",
    ],
)
def test_excerpt_shows_paths_whole(path: str) -> None:
    assert excerpt(path) == f"'{path}'"


@pytest.mark.parametrize(
    "secret",
    ["AbCdEf1234567890/XyZ12abcdEFGH5678", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
)
def test_excerpt_still_masks_a_key_that_holds_a_slash(secret: str) -> None:
    shown = excerpt(f"key = {secret}")
    assert secret not in shown and secret[:4] in shown


def test_a_percent_encoded_escape_is_reported_with_its_path(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("- [Secret](%2e%2e/outside/secret.md) — hook\n")
    report = doctor_json(cli, tmp_path)
    (finding,) = by_rule(report, "pointer-escapes-store")
    assert "'%2e%2e/outside/secret.md'" in finding["message"]


def test_excerpt_still_truncates_a_huge_path() -> None:
    shown = excerpt("a/" * 5000)
    assert len(shown) <= 44 and shown.endswith("…'")


# --- symlink loops ---------------------------------------------------------------------------


def test_a_note_symlink_loop_is_not_called_dangling(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("- [A](a.md) — a\n")
    (tmp_path / "a.md").symlink_to("b.md")
    (tmp_path / "b.md").symlink_to("a.md")
    report = doctor_json(cli, tmp_path)
    messages = [f["message"] for f in by_rule(report, "note-unreadable")]
    assert messages and all("symlink loop" in m and "dangling" not in m for m in messages)


def test_a_dangling_note_symlink_is_still_dangling(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("- [A](a.md) — a\n")
    (tmp_path / "a.md").symlink_to("gone.md")
    (finding,) = by_rule(doctor_json(cli, tmp_path), "note-unreadable")
    assert "dangling" in finding["message"]


def test_an_index_symlink_loop_is_not_called_dangling(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").symlink_to("loop.md")
    (tmp_path / "loop.md").symlink_to("MEMORY.md")
    (finding,) = by_rule(doctor_json(cli, tmp_path), "no-index")
    assert "symlink loop" in finding["message"] and "dangling" not in finding["message"]
    check = cli("check", str(tmp_path))
    assert check.code == 66 and "symlink loop" in check.err


# --- names too long ---------------------------------------------------------------------------


def _too_deep(store: Path) -> None:
    """Directories nested past PATH_MAX (each made relative to its parent's descriptor)."""
    fd = os.open(store, os.O_RDONLY)
    try:
        for _ in range(30):
            os.mkdir("d" * 200, dir_fd=fd)
            child = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def test_a_path_too_long_is_not_advised_as_a_permission_problem(cli, tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "MEMORY.md").write_text("# Memory\n")
    _too_deep(store)
    report = doctor_json(cli, store)
    findings = by_rule(report, "directory-unreadable")
    assert findings and all("too long" in f["message"] for f in findings)
    text = cli("doctor", str(store)).out
    (hint,) = [line for line in text.splitlines() if "fix directory-unreadable" in line]
    assert "shorten" in hint and "permission" not in hint


def test_os_error_text_words() -> None:
    assert "too long" in fsutil.os_error_text(OSError(errno.ENAMETOOLONG, "File name too long"))
    assert "permission" not in fsutil.os_error_text(OSError(errno.ENAMETOOLONG, "x")).lower()
    assert fsutil.os_error_text(OSError(errno.ELOOP, "x")) == fsutil.SYMLINK_LOOP
    assert fsutil.os_error_text(OSError(errno.EIO, "Input/output error")) == "Input/output error"


# --- the guard's after-the-fact reason ---------------------------------------------------------


@pytest.mark.parametrize(("lines", "size"), [(250, 9000), (None, 90000)])
def test_after_the_fact_says_compact_once(lines: int | None, size: int) -> None:
    verdict = guard.after_the_fact(Measurement(lines, size), Caps())
    assert verdict.kind == guard.DENY
    assert verdict.message.count("Compact") == 1  # one instruction, not two
    assert "Compact it now, before anything else: " in verdict.message
    assert "Compact instead" not in verdict.message
    assert "`engramory compact --apply` does it mechanically" in verdict.message


def test_the_deny_before_a_write_keeps_its_own_compaction_steps() -> None:
    verdict = guard.decide(Measurement(10, 100), Measurement(300, 9000), Caps())
    assert "Do not append. Compact instead: merge duplicate pointers" in verdict.message
    assert "`engramory compact` plans it mechanically" in verdict.message


# --- check's oversized index -------------------------------------------------------------------


def test_check_says_it_did_not_read_an_oversized_index(cli, tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_bytes(b"x" * 30000)
    result = cli("check", str(tmp_path))
    assert result.code == 2
    assert "check did not read it: it is larger than the " in result.out
    assert "not read, it is too large to load" not in result.out


# --- one wording of a breach (issue 22) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "breach"),
    [
        ("- [a](a.md)\n" * 201, "over the hard cap on lines (201 > 200)"),
        ("- [a](a.md) " + "x" * 25000 + "\n", "over the hard cap on bytes (25,013 > 25,000)"),
    ],
)
def test_check_doctor_guard_and_sync_word_a_breach_alike(
    cli, tmp_path: Path, content: str, breach: str
) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text(content)
    assert breach in cli("check", str(tmp_path)).out
    (finding,) = by_rule(doctor_json(cli, tmp_path), "index-over-hard-cap")
    assert breach in finding["message"]
    assert breach in guard.after_the_fact(Measurement.of_raw(index.read_bytes()), Caps()).message
    assert breach in cli("sync", "status", str(tmp_path)).out


def test_check_doctor_and_guard_give_the_same_advice(cli, tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("- [a](a.md)\n" * 201)
    measured = Measurement.of_raw(index.read_bytes())
    advice = breach_words(measured, Caps())[1]
    assert advice.startswith("merge duplicate pointers")
    assert f"Compact now: {advice}, " in cli("check", str(tmp_path)).out
    assert f"fix index-over-hard-cap: compact the index now: {advice}" in (
        cli("doctor", str(tmp_path)).out
    )
    assert f"Compact it now, before anything else: {advice}." in (
        guard.after_the_fact(measured, Caps()).message
    )


def test_a_breach_is_worded_only_for_the_dimensions_asked() -> None:
    measured = Measurement(201, 25001)
    assert breach_words(measured, Caps(), dims=["bytes"])[0] == (
        "over the hard cap on bytes (25,001 > 25,000)"
    )
    assert breach_words(Measurement(151, 10), Caps(), hard=False)[0] == (
        "over the soft cap on lines (151 > 150)"
    )
    assert breach_words(Measurement(None, 30000), Caps())[0].endswith("bytes (30,000 > 25,000)")
    assert breach_words(Measurement(200, 25000), Caps()) == ("", "")


def test_the_advice_starts_with_the_bytes_then_the_lines() -> None:
    advice = breach_words(Measurement(201, 25001), Caps())[1]
    assert advice.startswith("shorten the longest index lines first")
    assert "; then merge duplicate pointers" in advice and "compact" not in advice.lower()
