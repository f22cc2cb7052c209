"""Findings are bounded: at most 20 of one rule per file, then one finding counting the rest.

Issue 10, item 9: a 4 MB note of ``x`` lines used to give 2,000,000 findings
(465 MB of JSON, 850 MB of memory).
"""

from __future__ import annotations

import json
import pickle
import tracemalloc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from doctorkit import TODAY, doctor, make_store, note
from engramory.doctor import engine, workers
from engramory.doctor.context import Options
from engramory.doctor.model import FINDINGS_PER_FILE, capped, overflow_message
from engramory.report import statistics
from engramory.store import frontmatter
from engramory.store.caps import Caps

MIB = 1024 * 1024
X_LINES = 2_000_000  # "x\n" lines: a 4 MB frontmatter block


def x_lines_note() -> str:
    return "---\n" + "x\n" * X_LINES + "---\n"


def text_line(finding: dict) -> str:
    """A JSON finding as the text report prints it."""
    where = finding["path"] if finding["line"] is None else f"{finding['path']}:{finding['line']}"
    return f"{where}: {finding['severity']}: {finding['message']} [{finding['rule']}]"


def test_cap_is_twenty_and_documented(cli) -> None:
    assert FINDINGS_PER_FILE == 20
    assert frontmatter.PROBLEMS_KEPT_PER_KIND >= FINDINGS_PER_FILE  # the cap sees enough
    assert "At most 20 findings of one rule" in " ".join(cli("doctor", "--help").out.split())
    page = Path(__file__).resolve().parent.parent / "docs" / "commands" / "doctor.md"
    assert "At most 20 findings of one rule" in " ".join(page.read_text(encoding="utf-8").split())


def test_a_4_mb_note_of_x_lines_gives_a_bounded_report(tmp_path: Path, cli) -> None:
    store = make_store(tmp_path / "s", {"n.md": x_lines_note()}, index="- [n](n.md) — x\n")
    as_json = cli("doctor", str(store), "--format", "json")
    assert as_json.code == 1, as_json.err
    assert len(as_json.out) < 20_000  # was 465 MB
    findings = json.loads(as_json.out)["findings"]
    per_rule = Counter(f["rule"] for f in findings if f["path"] == "n.md")
    assert per_rule["frontmatter-syntax"] == FINDINGS_PER_FILE + 1
    assert max(per_rule.values()) <= FINDINGS_PER_FILE + 1
    syntax = [f for f in findings if f["rule"] == "frontmatter-syntax"]
    counting = syntax[0]  # no line: first among the file's findings of that rule
    assert counting["line"] is None and counting["severity"] == "error"
    assert counting["message"] == (
        "... and 1,999,980 more `frontmatter-syntax` findings in this file; "
        "fix the first ones and re-run"
    )
    assert [f["line"] for f in syntax[1:]] == list(range(2, 22))  # the first twenty lines
    as_text = cli("doctor", str(store))
    printed = [line for line in as_text.out.splitlines() if line.startswith("n.md")]
    assert printed == [text_line(f) for f in findings if f["path"] == "n.md"]


def test_index_lines_are_capped_with_the_exact_remainder(tmp_path: Path) -> None:
    lines = 100_000
    store = make_store(tmp_path / "s", {}, index="x\n\n" * lines)
    report = doctor(store, caps=Caps(warn_bytes=MIB, hard_bytes=MIB))
    mine = [f for f in report.findings if f.rule == "index-line-not-pointer"]
    assert len(mine) == FINDINGS_PER_FILE + 1
    assert mine[0].line is None and mine[0].severity == "warning"
    assert mine[0].message == overflow_message("index-line-not-pointer", lines - 20)
    assert "99,980 more `index-line-not-pointer` findings" in mine[0].message
    assert [f.line for f in mine[1:]] == list(range(1, 41, 2))
    assert report.findings == sorted(report.findings, key=lambda f: f.sort_key())


def test_under_the_cap_nothing_changes(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {}, index="x\n\n" * FINDINGS_PER_FILE)
    mine = [f for f in doctor(store).findings if f.rule == "index-line-not-pointer"]
    assert [f.line for f in mine] == list(range(1, 2 * FINDINGS_PER_FILE, 2))


def test_one_more_is_singular() -> None:
    issues = [("a.md", n, "m") for n in range(1, 23)]
    *_, last = capped("orphan", iter(issues))
    assert last == ("a.md", None, overflow_message("orphan", 2))
    assert overflow_message("orphan", 1).startswith("... and 1 more `orphan` finding in")


def test_the_cap_is_per_path_and_keeps_other_paths_whole() -> None:
    issues = [("a.md", n, "m") for n in range(1, 31)] + [("b.md", 1, "m"), ("b.md", 2, "m")]
    out = list(capped("r", iter(issues)))
    assert Counter(path for path, _line, _message in out) == {"a.md": 21, "b.md": 2}
    assert out[-1] == ("a.md", None, overflow_message("r", 10))


def test_findings_past_the_cap_are_dropped_as_they_are_made() -> None:
    """Memory stays flat: 200,000 issues pass through (about 15 MB if held), never together."""

    def many() -> Iterator[tuple[str, int, str]]:
        for n in range(200_000):
            yield ("a.md", n + 1, "a message")

    tracemalloc.start()
    try:
        kept = list(capped("r", many()))
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(kept) == FINDINGS_PER_FILE + 1
    assert peak < MIB


def test_the_parser_keeps_the_first_problems_and_counts_the_rest() -> None:
    parsed = frontmatter.parse("---\n" + "x\n" * 1000 + ": empty\n" * 5 + "---\n")
    kinds = Counter(p.kind for p in parsed.problems)
    kept = frontmatter.PROBLEMS_KEPT_PER_KIND
    assert kinds == {frontmatter.MALFORMED_LINE: kept, frontmatter.EMPTY_KEY: 5}
    assert parsed.dropped == {frontmatter.MALFORMED_LINE: 1000 - kept}
    assert [p.line for p in parsed.problems][:kept] == list(range(2, kept + 2))


def test_duplicate_keys_are_capped_too(tmp_path: Path) -> None:
    block = "".join(f"k{n}: a\nk{n}: b\n" for n in range(100))
    store = make_store(tmp_path / "s", {"n.md": "---\n" + block + "---\n"})
    mine = [f for f in doctor(store).findings if f.rule == "duplicate-key"]
    assert len(mine) == FINDINGS_PER_FILE + 1
    assert mine[0].message == overflow_message("duplicate-key", 80)


@pytest.mark.skipif(not workers.fork_is_safe(), reason="workers are Linux-only")
def test_workers_give_the_same_capped_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = {f"n{i}.md": note(f"n{i}", body="[[missing]]\n" * (10 * i)) for i in range(8)}
    notes.update({f"f{i}.md": "---\n" + "x\n" * (15 * i) + "---\n" for i in range(8)})
    store = make_store(tmp_path / "s", notes)

    def report(jobs: int) -> list[dict]:
        run = engine.run(str(store), Caps(), Options(today=TODAY), None, jobs)
        return [f.as_dict() for f in run.findings]

    alone = report(1)
    monkeypatch.setattr(workers, "MIN_NOTES", 1)
    monkeypatch.setattr(workers, "CHUNK", 3)
    assert report(2) == alone
    counted = [f for f in alone if f["message"].startswith("... and ")]
    assert {f["rule"] for f in counted} == {"frontmatter-syntax", "wikilink-missing"}


# --- issue 32: --statistics counts every finding, also those the cap left out -----------


def test_statistics_count_every_finding_past_the_per_file_cap(tmp_path: Path, cli) -> None:
    index = "".join(f"- [gone {n}](gone-{n}.md) — a broken pointer\n" for n in range(201))
    store = make_store(tmp_path / "s", {}, index=index)
    listed = json.loads(cli("doctor", str(store), "--format", "json").out)["findings"]
    assert sum(f["rule"] == "pointer-missing" for f in listed) == FINDINGS_PER_FILE + 1
    rows = cli("doctor", str(store), "--statistics").out.splitlines()
    assert rows[0].split()[:3] == ["201", "error", "pointer-missing"]
    hint = cli("doctor", str(store), "--max-findings", "3").out
    assert "--statistics counts every finding by rule" in hint


@pytest.mark.skipif(not workers.fork_is_safe(), reason="workers are Linux-only")
def test_workers_carry_the_count_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_store(
        tmp_path / "s", {f"f{i}.md": "---\n" + "x\n" * 30 + "---\n" for i in range(4)}
    )
    monkeypatch.setattr(workers, "MIN_NOTES", 1)
    monkeypatch.setattr(workers, "CHUNK", 1)
    run = engine.run(str(store), Caps(), Options(today=TODAY), None, 2)
    rows = {row.rule: row.count for row in statistics.rows(run.findings, run.hints)}
    assert rows["frontmatter-syntax"] == 4 * 30


def test_an_overflow_message_is_still_the_plain_message() -> None:
    *_, last = capped("orphan", iter([("a.md", n, "m") for n in range(1, 26)]))
    assert last[2] == overflow_message("orphan", 5) and last[2].more == 5
    assert pickle.loads(pickle.dumps(last[2])).more == 5
