"""Warn before the cut (issue 24): past a soft cap, the SessionStart context gives the index's
size against the hard caps, so the agent compacts before the guard has to deny a write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO
from engramory.continuity import policy
from engramory.continuity import state as continuity
from engramory.dialects import lifecycle
from engramory.store.caps import Caps, Measurement

HOOK = REPO / "hooks" / "engramory_sync.py"
CLAUDE_OUTPUT = json.loads(
    (REPO / "tests" / "schemas" / "claude-code-hook-output.schema.json").read_text()
)


def index_of(lines: int, size: int) -> bytes:
    """An index of exactly ``lines`` lines (each ending in a newline) and ``size`` bytes."""
    width, extra = divmod(size, lines)
    assert width >= 2
    rows = [b"x" * (width - 1 + (1 if i < extra else 0)) + b"\n" for i in range(lines)]
    data = b"".join(rows)
    assert Measurement.of_raw(data) == Measurement(lines, size)
    return data


def store_with(tmp_path: Path, data: bytes | None) -> Path:
    store = tmp_path / "store"
    store.mkdir()
    if data is not None:
        (store / "MEMORY.md").write_bytes(data)
    return store


def context(store: Path, sid: str = "s1") -> str:
    """The SessionStart context as Claude Code receives it (validated against its schema)."""
    payload = {"hook_event_name": "SessionStart", "session_id": sid, "source": "startup"}
    text, code = lifecycle.render_lifecycle(
        "claude", policy.handle(payload, store, "claude", "explicit")
    )
    assert code == 0
    output = json.loads(text)
    jsonschema.validate(output, CLAUDE_OUTPUT)
    return output["hookSpecificOutput"]["additionalContext"]


def size_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "Memory index" in line and " of " in line]


def test_past_the_soft_cap_the_context_gives_the_exact_figures(tmp_path: Path) -> None:
    store = store_with(tmp_path, index_of(182, 21_812))  # 21,812 bytes
    text = context(store)
    assert size_lines(text) == [
        "Memory index: 182 of 200 lines, 21,812 of 25,000 B, past the soft cap "
        "(150 lines / 20,480 B) — compact it (merge, shorten, archive cold pointers; "
        "`engramory compact` plans it, `--apply` does it) before adding a pointer; a write past "
        "the hard cap is denied."
    ]
    lines = text.splitlines()
    assert lines.index(size_lines(text)[0]) == 2  # right after the index's path: never truncated


@pytest.mark.parametrize(
    ("lines", "size", "figures"),
    [
        (151, 3_000, "151 of 200 lines, 3,000 of 25,000 B"),  # past the soft cap on lines only
        (40, 20_481, "40 of 200 lines, 20,481 of 25,000 B"),  # on bytes only, by one byte
        (200, 25_000, "200 of 200 lines, 25,000 of 25,000 B"),  # at the hard caps: still loaded
    ],
)
def test_either_soft_cap_triggers_the_warning(
    tmp_path: Path, lines: int, size: int, figures: str
) -> None:
    (line,) = size_lines(context(store_with(tmp_path, index_of(lines, size))))
    assert line.startswith(f"Memory index: {figures}, past the soft cap")


@pytest.mark.parametrize(("lines", "size"), [(150, 20_480), (1, 2), (0, 0)])
def test_at_or_below_the_soft_caps_it_adds_nothing(tmp_path: Path, lines: int, size: int) -> None:
    data = index_of(lines, size) if lines else b""
    text = context(store_with(tmp_path, data))
    assert size_lines(text) == []
    assert "soft cap" not in text and "KB" not in text


def test_over_the_hard_cap_on_lines_says_the_tail_is_cut(tmp_path: Path) -> None:
    (line,) = size_lines(context(store_with(tmp_path, index_of(230, 9_000))))
    assert line.startswith("Memory index: 230 of 200 lines, 9,000 of 25,000 B, over the hard cap")
    assert "compact it before anything else (`engramory compact --apply`)" in line


def test_an_index_too_large_to_read_is_given_by_its_size_alone(tmp_path: Path) -> None:
    (line,) = size_lines(context(store_with(tmp_path, b"x\n" * 15_000)))  # 30,000 bytes
    assert line.startswith(
        "Memory index: 30,000 of 25,000 B (lines not counted: too large to read), over the hard cap"
    )
    assert "of 200 lines" not in line  # no line count invented


def test_the_caps_come_from_the_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ENGRAMORY_WARN", "10")
    monkeypatch.setenv("ENGRAMORY_HARD", "20")
    (line,) = size_lines(context(store_with(tmp_path, index_of(12, 600))))
    assert line.startswith("Memory index: 12 of 20 lines, 600 of 25,000 B, past the soft cap")


def test_an_index_that_cannot_be_measured_gets_no_figure(tmp_path: Path) -> None:
    store = store_with(tmp_path, None)
    (tmp_path / "elsewhere.md").write_bytes(index_of(182, 21_812))
    os.symlink(tmp_path / "elsewhere.md", store / "MEMORY.md")
    text = context(store)
    (line,) = [line for line in text.splitlines() if "size unknown" in line]
    assert line == (
        "Memory index size unknown (MEMORY.md is a symlink): run engramory check before adding "
        "a pointer."
    )
    assert "182" not in text and "KB" not in text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_a_missing_index_neither_blocks_nor_warns(tmp_path: Path) -> None:
    store = store_with(tmp_path, None)
    assert size_lines(context(store)) == []
    os.mkfifo(store / "MEMORY.md")
    text = context(store, "s2")  # returns: the FIFO is never opened for reading
    assert size_lines(text) == [] and "size unknown" not in text


def test_a_measurement_that_fails_never_costs_the_context(tmp_path: Path, monkeypatch) -> None:
    def boom(*_args: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(continuity, "inspect_index", boom)
    text = context(store_with(tmp_path, index_of(182, 21_812)))
    assert "mark-synced" in text and size_lines(text) == []


def test_the_warning_survives_an_unreadable_state(tmp_path: Path) -> None:
    store = store_with(tmp_path, index_of(182, 21_812))
    continuity.state_path(store).write_text('{"schema_version": 9, "sessions": {}}')
    text = context(store)
    assert "<untrusted-diagnostic>" in text
    assert size_lines(text)[0].startswith("Memory index: 182 of 200 lines, 21,812 of 25,000 B")


def test_the_pure_wording(tmp_path: Path) -> None:
    info = continuity.IndexInfo(True, tmp_path / "MEMORY.md", Measurement(182, 21_812))
    assert policy.index_size_warning(info, Caps()).startswith(
        "Memory index: 182 of 200 lines, 21,812 of 25,000 B, past the soft cap"
    )
    assert policy.index_size_warning(info, Caps(warn_lines=200, warn_bytes=25_000)) == ""
    missing = continuity.IndexInfo(False, tmp_path / "MEMORY.md", error=continuity.INDEX_MISSING)
    assert policy.index_size_warning(missing, Caps()) == ""


def test_the_hook_as_claude_code_runs_it(tmp_path: Path) -> None:
    store = store_with(tmp_path, index_of(182, 21_812))
    payload = {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(HOOK), "hook", "--host", "claude", "--", str(store)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")},
    )
    assert proc.returncode == 0 and proc.stderr == ""
    output = json.loads(proc.stdout)
    jsonschema.validate(output, CLAUDE_OUTPUT)
    text = output["hookSpecificOutput"]["additionalContext"]
    assert "Memory index: 182 of 200 lines, 21,812 of 25,000 B, past the soft cap" in text
