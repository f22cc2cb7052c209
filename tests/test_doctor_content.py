"""The content rules (issue 14) and the inline allow comment, case by case.

Each rule's own examples run in tests/test_doctor_rules.py; here are the cases of the
issue's "Done when" and the edges around them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from doctorkit import doctor, fired, make_store, note
from engramory.doctor import workers
from engramory.doctor.rules import content, schema

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def body_store(root: Path, body: str, type: str = "user", **fields: str) -> Path:
    return make_store(root, {"x.md": note("x", type, body=body, **fields)})


def lines_of(root: Path, rule: str, **kwargs: object) -> list[int | None]:
    return [f.line for f in fired(root, rule, **kwargs)]


# --- relative-date ------------------------------------------------------------------------------


def test_relative_words_fire_once_per_line(tmp_path: Path) -> None:
    store = body_store(tmp_path, "Shipped yesterday, fixed today.\nplain\nReviewed 3 days ago.\n")
    found = fired(store, "relative-date")
    assert [f.line for f in found] == [9, 11]  # frontmatter is lines 1-7, a blank line 8
    assert found[0].message.startswith("'yesterday' is a relative date")


@pytest.mark.parametrize(
    "body",
    [
        "We met last Friday.\n",
        "Due next quarter.\n",
        "Two weeks ago we chose X.\n",
        "2 weeks ago we chose X.\n",
        "We ship this month.\n",
        "今天发布。\n",
        "截止上个月。\n",
    ],
)
def test_each_relative_form_fires(tmp_path: Path, body: str) -> None:
    if body.startswith("Two"):  # a number written as a word is not in the list
        assert lines_of(body_store(tmp_path, body), "relative-date") == []
    else:
        assert lines_of(body_store(tmp_path, body), "relative-date") == [9]


@pytest.mark.parametrize(
    "body",
    [
        "Run `deploy --today` first.\n",
        "```\nrelease tomorrow\n```\n",
        "Shipped yesterday (2026-01-11).\n",
        "See todays_report and yesterdays.\n",
        'The demo prompt "it broke this morning" shows intent.\n',
        "The week was long.\n",
    ],
)
def test_relative_words_that_do_not_fire(tmp_path: Path, body: str) -> None:
    assert lines_of(body_store(tmp_path, body), "relative-date") == []


# issue 31: a length of time, "today" naming a calendar day, and code are not relative dates
@pytest.mark.parametrize(
    "body",
    [
        "Remind me in 7 days.\n",
        "Revenue in the last 30 days.\n",
        "It ran for 3 weeks.\n",
        "0 bookings in 30 days.\n",
        "Expect a crash in 3 weeks at this rate.\n",
        "No family calendar events in 7 days.\n",
        "The calendar shows today highlighted in red.\n",
        "Excludes today (d-1…).\n",
        "The export excludes today.\n",
        "Counts including today.\n",
        "Tap the Today button.\n",
        "Today highlighted, weekends greyed.\n",
        "Run `report --since yesterday` first.\n",
        "Call `last_week()` and `this sprint`.\n",
        "```\ntoday we decided\n```\n",
        "~~~\nnext Friday\n~~~\n",
    ],
)
def test_durations_calendar_days_and_code_are_quiet(tmp_path: Path, body: str) -> None:
    assert lines_of(body_store(tmp_path, body), "relative-date") == []


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("Deployed yesterday.\n", "yesterday"),
        ("Refactored last week.\n", "last week"),
        ("Demo next Friday.\n", "next friday"),
        ("Today we decided to pin it.\n", "today"),
        ("Freeze the schema this sprint.\n", "this sprint"),
        ("Rotated the key 3 days ago.\n", "3 days ago"),
        ("We shipped today.\n", "today"),
        ("Today's build is red.\n", "today"),
        ("The widget preexcludes today.\n", "today"),  # a longer word is not 'excludes'
        ("昨天发布了。\n", "昨天"),
        ("下周上线。\n", "下周"),
        ("Run `x` then ship next sprint.\n", "next sprint"),
    ],
)
def test_true_relative_dates_still_fire(tmp_path: Path, body: str, words: str) -> None:
    (finding,) = fired(body_store(tmp_path, body), "relative-date")
    assert finding.line == 9 and finding.message.startswith(f"'{words}' is a relative date")


_PIECES = st.sampled_from(
    ["yesterday", "Today", "tonight", "this week", "last Friday", "next quarter", "past year",
     "coming month", "3 days ago", "in 2 weeks", "12 months ago", "昨天", "mondays", "ago",
     "day", "todays_report", "2026-01-11", "x", " ", "\n", ".", "`", "\t", "5", "in", "weeks",
     "this sprint", "excludes", "highlighted"]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=12).map("".join))
def test_the_gate_never_hides_a_relative_date(text: str) -> None:
    """The quick keyword gate only skips texts the full search finds nothing in."""
    low = text.lower()
    if not content.may_hold_relative(low):
        gate = content.may_hold_relative
        try:
            content.may_hold_relative = lambda _low: True
            assert content.relative_spans(low) == []
        finally:
            content.may_hold_relative = gate


CASE_BLIND = {"why": "why", "how": "how", "label": "why|how"}


@given(st.lists(st.sampled_from(["Why", "why:", "HOW", "how to apply:", "wHy", "x", "\n", " ",
                                 "\u0130", "h\u00f6w", "\u017f"]),
                max_size=16).map("".join))  # fmt: skip
def test_the_label_search_agrees_with_a_case_blind_pattern(text: str) -> None:
    """Found in folded text with str.find, the lines holding a label word are the lines a
    case-blind pattern finds, in any script, for each word and for either."""
    for word in ("why", "how", "label"):
        lines = list(schema._lines_holding(text, word))
        pattern = re.compile(CASE_BLIND[word], re.IGNORECASE)
        expected = [number for number, line in enumerate(text.split("\n")) if pattern.search(line)]
        assert [number for number, _offset, _line in lines] == expected


def test_relative_word_in_the_description(tmp_path: Path) -> None:
    store = body_store(tmp_path, "A fact.\n", description="what we decided yesterday")
    assert lines_of(store, "relative-date") == [3]


def test_relative_word_after_a_code_span_on_the_same_line_fires(tmp_path: Path) -> None:
    assert lines_of(body_store(tmp_path, "Run `x` tomorrow.\n"), "relative-date") == [9]


# --- current-state ------------------------------------------------------------------------------

HEX40 = "0123456789abcdef" * 2 + "01234567"


@pytest.mark.parametrize(
    "line",
    [
        f"Deployed {HEX40}.",
        "HEAD is at 3f9c2ab now.",
        "The tip of main: 3f9c2ab1.",
        "412 tests pass.",
        "All 98 tests green",
        "Currently running v3.2 in prod.",
        "currently on 12",
        "Latest version: 2.4.1",
        "The current version is v7",
    ],
)
def test_current_state_fires_in_a_project_note(tmp_path: Path, line: str) -> None:
    body = f"{line}\n\n**Why:** r.\n\n**How to apply:** s.\n"
    assert lines_of(body_store(tmp_path, body, "project"), "current-state") == [10]


@pytest.mark.parametrize(
    "line",
    [
        "HEAD of the team is Defaced.",
        "A sha256 " + "ab" * 32 + " is not a commit id.",
        "Tests pass: run `make test` for the count.",
        "The version is pinned in pyproject.toml.",
    ],
)
def test_current_state_quiet_in_a_project_note(tmp_path: Path, line: str) -> None:
    body = f"{line}\n\n**Why:** r.\n\n**How to apply:** s.\n"
    assert lines_of(body_store(tmp_path, body, "project"), "current-state") == []


def test_a_commit_id_in_a_reference_note_is_quiet(tmp_path: Path) -> None:
    store = body_store(tmp_path, f"Fixed in {HEX40}; 412 tests pass.\n", "reference")
    assert lines_of(store, "current-state") == []


def test_current_state_once_per_line(tmp_path: Path) -> None:
    body = f"{HEX40} and 412 tests pass\n\n**Why:** r.\n\n**How to apply:** s.\n"
    found = fired(body_store(tmp_path, body, "project"), "current-state")
    assert [f.line for f in found] == [10]
    assert "a commit id" in found[0].message


# --- per-turn-log -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lines",
    [
        [f"- 2026-01-0{d}: worked" for d in range(1, 6)],
        [f"[2026-01-0{d}] worked" for d in range(1, 6)],
        [f"## 2026-01-0{d} 10:00 turn" for d in range(1, 6)],
        [f"> 9:0{d} asked" for d in range(5)],
    ],
)
def test_five_timestamped_lines_are_a_log(tmp_path: Path, lines: list[str]) -> None:
    body = "Intro.\n" + "\n".join(lines) + "\n"
    assert lines_of(body_store(tmp_path, body), "per-turn-log") == [10]


def test_four_timestamped_lines_are_not_a_log(tmp_path: Path) -> None:
    body = "".join(f"- 2026-01-0{d}: worked\n" for d in range(1, 5)) + "Decided on 2026-01-05.\n"
    assert lines_of(body_store(tmp_path, body), "per-turn-log") == []


# --- stale-project ------------------------------------------------------------------------------


def test_stale_project_follows_stale_days(tmp_path: Path) -> None:
    store = body_store(tmp_path, "Goal.\n\nWhy: r.\n\nHow to apply: s.\n", "project")
    found = fired(store, "stale-project", stale_days=90)  # doctorkit.TODAY is 2026-11-30
    assert [(f.line, f.severity) for f in found] == [(6, "info")]
    assert "not updated for 322 days (more than 90)" in found[0].message
    assert fired(store, "stale-project", stale_days=400) == []
    assert fired(store, "stale-project", stale_days=0) == []


def test_stale_project_only_for_project_notes_with_a_valid_date(tmp_path: Path) -> None:
    store = make_store(
        tmp_path,
        {
            "u.md": note("u", "user"),
            "p.md": note("p", "project", updated="2026-02-30"),
            "q.md": note("q", "project", drop=("updated",)),
        },
    )
    assert fired(store, "stale-project", stale_days=1) == []


def test_stale_days_flag(cli, tmp_path: Path) -> None:
    store = body_store(tmp_path, "Goal.\n\nWhy: r.\n\nHow to apply: s.\n", "project")
    shown = cli("doctor", str(store), "--format", "json", "--select", "stale-project")
    assert [f["rule"] for f in json.loads(shown.out)["findings"]] == ["stale-project"]
    off = cli("doctor", str(store), "--stale-days", "0", "--select", "stale-project")
    assert off.code == 0 and "stale-project" not in off.out
    bad = cli("doctor", str(store), "--stale-days", "-1")
    assert bad.code == 64
    assert "--stale-days" in cli("doctor", "--help").out


# --- dated-series -------------------------------------------------------------------------------


def test_a_three_note_dated_series(tmp_path: Path) -> None:
    slugs = ["status-2026-03-01", "status-2026-03-08", "Status_20260315"]
    store = make_store(tmp_path, {f"{s}.md": note(s) for s in slugs})
    found = fired(store, "dated-series")
    assert sorted(f.path for f in found) == sorted(f"{s}.md" for s in slugs)
    assert all(f.line is None and "one of 3 live notes" in f.message for f in found)


def test_dated_series_with_the_live_undated_note(tmp_path: Path) -> None:
    store = make_store(tmp_path, {"plan.md": note("plan"), "plan-2026-03.md": note("plan-2026-03")})
    assert sorted(f.path for f in fired(store, "dated-series")) == ["plan-2026-03.md", "plan.md"]


def test_dated_series_quiet(tmp_path: Path) -> None:
    store = make_store(
        tmp_path,
        {
            "status-2026-03-01.md": note("status-2026-03-01"),
            "archive/status-2026-02-01.md": note("status-2026-02-01"),
            "ticket-12345678.md": note("ticket-12345678"),
            "ticket-87654321.md": note("ticket-87654321"),  # not dates: month 56 and 65
            "a.md": note("a"),
            "b.md": note("b"),
        },
    )
    assert fired(store, "dated-series") == []


# --- handoff-store ------------------------------------------------------------------------------


def test_handoff_store_entries(tmp_path: Path) -> None:
    store = make_store(
        tmp_path,
        {
            "x.md": note("x"),
            "HANDOFF.md": "# Handoff\n",
            "Hand-Off-2026.txt": "next\n",
            "sessions/a.md": note("a"),
            "Logs/run.txt": "x\n",
            "topic/state/b.md": note("b"),
            "archive/handoff.md": "old\n",
            "archive/sessions/c.md": note("c"),
            ".cache/handoff.md": "hidden\n",
            "statement.md": note("statement"),
        },
    )
    found = fired(store, "handoff-store")
    assert [f.path for f in found] == [
        "HANDOFF.md",
        "Hand-Off-2026.txt",
        "Logs",
        "sessions",
        "topic/state",
    ]
    assert all(f.line is None for f in found)


# --- not-gitignored -----------------------------------------------------------------------------


def git(*args: str, cwd: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run([GIT or "git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def repo_with_store(tmp_path: Path, index: str | None = "auto") -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", cwd=repo)
    return make_store(repo / ".engramory-memory", {"x.md": note("x")}, index=index)


@needs_git
def test_store_inside_a_repo_without_its_ignore_entry(tmp_path: Path) -> None:
    store = repo_with_store(tmp_path)
    found = fired(store, "not-gitignored")
    assert [(f.path, f.line, f.severity) for f in found] == [("MEMORY.md", None, "warning")]
    (tmp_path / "repo" / ".gitignore").write_text(".engramory-memory/\n", encoding="utf-8")
    assert fired(store, "not-gitignored") == []


@needs_git
def test_store_that_is_its_own_repo(tmp_path: Path) -> None:
    store = make_store(tmp_path / "memory", {"x.md": note("x")})
    git("init", "-q", cwd=store)
    assert fired(store, "not-gitignored") == []


@needs_git
def test_allow_comment_in_the_index_silences_not_gitignored(tmp_path: Path) -> None:
    index = "# Memory index\n\n- [x](x.md) — when\n\n<!-- engramory: allow not-gitignored -->\n"
    store = repo_with_store(tmp_path, index=index)
    assert fired(store, "not-gitignored") == []
    assert doctor(store).findings == []  # and the comment is no finding of its own


@needs_git
def test_git_missing_or_failing_is_not_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = repo_with_store(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert fired(store, "not-gitignored") == []
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text("#!/bin/sh\necho broken >&2\nexit 2\n", encoding="utf-8")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    assert fired(store, "not-gitignored") == []


def test_outside_any_repo_is_quiet(tmp_path: Path) -> None:
    assert fired(make_store(tmp_path / "s", {"x.md": note("x")}), "not-gitignored") == []


# --- the allow comment --------------------------------------------------------------------------


def test_allow_on_the_line_and_alone_on_the_line_above(tmp_path: Path) -> None:
    body = (
        "Shipped yesterday. <!-- engramory: allow relative-date -->\n"
        "<!-- engramory: allow relative-date, current-state -->\n"
        "Fixed today.\n"
        "Checked today.\n"
    )
    assert lines_of(body_store(tmp_path, body), "relative-date") == [12]


def test_allow_above_that_is_not_alone_silences_only_its_own_line(tmp_path: Path) -> None:
    body = "Note <!-- engramory: allow relative-date --> here.\nFixed today.\n"
    assert lines_of(body_store(tmp_path, body), "relative-date") == [10]


def test_allow_names_only_its_rules_and_ignores_unknown_ids(tmp_path: Path) -> None:
    body = "<!-- engramory: allow no-such-rule,per-turn-log -->\nFixed today.\n"
    assert lines_of(body_store(tmp_path, body), "relative-date") == [10]


def test_allow_in_the_index_on_the_line_above(tmp_path: Path) -> None:
    index = (
        "# Memory index\n\n- [x](x.md) — when\n"
        "<!-- engramory: allow index-line-not-pointer -->\n"
        "a prose line\n"
        "\n"
        "another prose line\n"
    )
    store = make_store(tmp_path, {"x.md": note("x")}, index=index)
    found = fired(store, "index-line-not-pointer")
    assert [f.line for f in found] == [7]


def test_allow_on_an_index_line(tmp_path: Path) -> None:
    index = "# Index\n\n- [x](x.md) — when\n- [gone](gone.md) <!-- engramory: allow pointer-missing -->\n"
    store = make_store(tmp_path, {"x.md": note("x")}, index=index)
    assert fired(store, "pointer-missing") == []


def test_a_line_less_note_finding_is_silenced_from_the_index(tmp_path: Path) -> None:
    notes = {"s-2026-01-01.md": note("s-2026-01-01"), "s-2026-01-02.md": note("s-2026-01-02")}
    store = make_store(tmp_path, notes)
    assert len(fired(store, "dated-series")) == 2
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    (store / "MEMORY.md").write_text(
        index + "<!-- engramory: allow dated-series -->\n", encoding="utf-8"
    )
    assert fired(store, "dated-series") == []


def test_a_line_less_finding_is_not_silenced_by_a_note(tmp_path: Path) -> None:
    notes = {
        "s-2026-01-01.md": note("s-2026-01-01", body="<!-- engramory: allow dated-series -->\n"),
        "s-2026-01-02.md": note("s-2026-01-02"),
    }
    assert len(fired(make_store(tmp_path, notes), "dated-series")) == 2


@pytest.fixture
def tiny_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "MIN_NOTES", 1)
    monkeypatch.setattr(workers, "CHUNK", 2)


@pytest.mark.skipif(not workers.fork_is_safe(), reason="workers need fork")
def test_allow_in_notes_checked_by_workers(tmp_path: Path, tiny_ranges: None) -> None:
    from engramory.doctor import engine
    from engramory.doctor.context import Options
    from engramory.store.caps import Caps

    allowed = "Fixed today. <!-- engramory: allow relative-date,wikilink-missing --> [[gone]]\n"
    notes = {
        f"n{i}.md": note(f"n{i}", body=allowed if i % 2 else "Fixed today.\n") for i in range(7)
    }
    store = make_store(tmp_path, notes)
    report = engine.run(str(store), Caps(), Options(stale_days=0), jobs=2)
    chosen = {"relative-date", "wikilink-missing"}
    assert sorted(f.path for f in report.findings if f.rule in chosen) == [
        "n0.md",
        "n2.md",
        "n4.md",
        "n6.md",
    ]


def test_the_comment_itself_is_never_a_finding(tmp_path: Path) -> None:
    comment = "<!-- engramory: allow orphan, no-such-rule -->\n"
    store = make_store(
        tmp_path,
        {"x.md": note("x", body="A fact.\n" + comment)},
        index="# Memory index\n\n" + comment + "- [x](x.md) — when it matters\n" + comment,
    )
    assert doctor(store).findings == []
