"""``engramory compact`` that a person would accept (issue 31, item 3): nothing done to an
index within the target unless a step is named; cold order by when a note last changed
(``modified``/``updated``, git, mtime), never by name, and never a note without a
pointer; inline pointers under their type's section, within the line limit, with a
description a person can read; fix's orphan lines within the same limit; titles from
slugs keep their acronyms."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixkit import digest, fix

from doctorkit import doctor, make_store, note
from engramory.cli import main
from engramory.compact import cold, inline, naming
from engramory.compact.model import ColdCandidate
from engramory.store.markdown import find_links
from engramory.write.indexedit import pointer_line
from engramory.write.pointertext import ELLIPSIS, fitted_pointer_line, shorten, title_from_slug


def compact(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["compact", *args])
    return code, out.getvalue(), err.getvalue()


def index_of(root: Path) -> str:
    return (root / "MEMORY.md").read_text(encoding="utf-8")


def rules_fired(root: Path) -> set[str]:
    return {f.rule for f in doctor(root).findings if f.severity in ("error", "warning")}


# -- 1. an index within the target is left alone unless a step is named -----------------------


def _eighty_line_store(root: Path) -> Path:
    """An 80-line index (under the 150-line soft cap) holding prose blocks inline could move."""
    store = make_store(root, {"a.md": note("a")}, index=None)
    lines = ["# Memory", "", "## User", "- [A](a.md) — the user", ""]
    topic = 0
    while len(lines) < 80:
        lines += [f"## Topic {topic}", f"Prose about topic {topic}. More words.", ""]
        topic += 1
    (store / "MEMORY.md").write_text("\n".join(lines[:80]) + "\n", encoding="utf-8")
    return store


def test_an_80_line_index_gets_no_plan_and_says_why(tmp_path: Path) -> None:
    root = _eighty_line_store(tmp_path / "s")
    assert len(index_of(root).splitlines()) == 80
    tree = digest(root, skip_backups=False)
    code, out, _ = compact(str(root), "--apply")
    assert code == 0
    assert "within the soft cap, so no step runs" in out and "--step inline" in out
    assert digest(root, skip_backups=False) == tree
    code, out, _ = compact(str(root), "--format", "json")
    assert code == 0 and json.loads(out)["steps"] == []


def test_archive_cold_within_the_target_archives_nothing(tmp_path: Path) -> None:
    root = _eighty_line_store(tmp_path / "s")
    tree = digest(root, skip_backups=False)
    assert compact(str(root), "--apply", "--archive-cold")[0] == 0
    assert digest(root, skip_backups=False) == tree


def test_a_named_step_runs_within_the_target_and_only_it(tmp_path: Path) -> None:
    root = _eighty_line_store(tmp_path / "s")
    code, out, _ = compact(str(root), "--format", "json", "--step", "inline")
    assert code == 1
    report = json.loads(out)
    assert [s["step"] for s in report["steps"]] == ["inline"]
    assert "topic-0.md" in report["steps"][0]["created"]
    code, out, _ = compact(str(root), "--apply", "--step", "inline")
    assert code == 0 and (root / "topic-0.md").is_file()


@pytest.mark.parametrize("step", ["inlines", "cold-notes", ""])
def test_a_step_that_does_not_exist_is_a_usage_error(tmp_path: Path, step: str) -> None:
    root = _eighty_line_store(tmp_path / "s")
    tree = digest(root, skip_backups=False)
    code, _out, err = compact(str(root), "--apply", "--step", step)
    assert code == 64 and "--step" in err
    assert digest(root, skip_backups=False) == tree


# -- 2. the cold step's order ------------------------------------------------------------------

CAPS = ("--warn-lines", "4", "--hard-lines", "5")


def _cold_store(root: Path, notes: dict[str, str], unindexed: tuple[str, ...] = ()) -> Path:
    store = make_store(root, notes, index=None)
    pointed = [rel for rel in notes if rel not in unindexed]
    lines = [f"- [{rel[:-3]}]({rel}) — hook" for rel in pointed]
    (store / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return store


def _archived(root: Path) -> list[str]:
    folder = root / "archive"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _reference(slug: str, **fields: str) -> str:
    """A reference note with only the dates given (``note`` drops after it sets)."""
    drop = tuple(key for key in ("updated", "created") if key not in fields)
    return note(slug, type="reference", drop=drop, **fields)


def test_cold_order_follows_the_modified_field_not_the_name(tmp_path: Path) -> None:
    notes = {
        "a.md": _reference("a", modified="2026-05-01T10:00:00Z"),
        "b.md": _reference("b", modified="2026-03-01T10:00:00Z"),
        "c.md": _reference("c", modified="2025-12-01T10:00:00Z"),
        "d.md": _reference("d", modified="2026-06-01T10:00:00Z"),
        "e.md": _reference("e", modified="2026-07-01T10:00:00Z"),
        "f.md": _reference("f", modified="2026-08-01T10:00:00Z"),
    }
    root = _cold_store(tmp_path / "s", notes)
    code, out, _ = compact(str(root), "--archive-cold", "--apply", *CAPS)
    assert code == 0, out
    assert _archived(root) == ["b.md", "c.md"]  # the two oldest, though not first by name


def test_cold_order_uses_updated_when_there_is_no_modified(tmp_path: Path) -> None:
    notes = {
        "a.md": _reference("a", updated="2026-05-01"),
        "b.md": _reference("b", updated="2026-04-01"),
        "c.md": _reference("c", modified="2026-01-01"),
        "d.md": _reference("d", updated="2026-06-01"),
        "e.md": _reference("e", updated="2026-07-01"),
        "z.md": _reference("z", updated="2025-01-01"),
    }
    root = _cold_store(tmp_path / "s", notes)
    assert compact(str(root), "--archive-cold", "--apply", *CAPS)[0] == 0
    assert _archived(root) == ["c.md", "z.md"]


def _git(root: Path, *args: str, when: str | None = None) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    if when:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def test_cold_order_falls_back_to_the_last_git_commit(tmp_path: Path) -> None:
    slugs = ["a", "b", "c", "d", "e", "f"]
    root = _cold_store(tmp_path / "s", {f"{s}.md": _reference(s) for s in slugs})
    _git(root, "init", "-q")
    committed = {"a": "2026-05-01", "b": "2026-06-01", "c": "2026-07-01"}
    committed |= {"d": "2025-01-01", "e": "2026-08-01", "f": "2025-02-01"}
    for slug, day in sorted(committed.items(), key=lambda item: item[1]):
        _git(root, "add", f"{slug}.md")
        _git(root, "commit", "-q", "-m", slug, when=f"{day}T12:00:00")
    _git(root, "add", "MEMORY.md")
    _git(root, "commit", "-q", "-m", "index")
    for slug in slugs:  # the files' times say the opposite: git wins
        os.utime(root / f"{slug}.md", (1e9 + ord(slug) * 1e6,) * 2)
    assert compact(str(root), "--archive-cold", "--apply", *CAPS)[0] == 0
    assert _archived(root) == ["d.md", "f.md"]


def test_cold_order_falls_back_to_the_modification_time(tmp_path: Path) -> None:
    slugs = ["a", "b", "c", "d", "e", "f"]
    root = _cold_store(tmp_path / "s", {f"{s}.md": _reference(s) for s in slugs})
    now = time.time()
    ages = {"a": 10, "b": 400, "c": 20, "d": 30, "e": 300, "f": 40}  # days ago
    for slug, days in ages.items():
        os.utime(root / f"{slug}.md", (now - days * 86400,) * 2)
    assert compact(str(root), "--archive-cold", "--apply", *CAPS)[0] == 0
    assert _archived(root) == ["b.md", "e.md"]


def test_cold_never_archives_a_note_without_a_pointer(tmp_path: Path) -> None:
    notes = {
        "old.md": _reference("old", updated="2020-01-01"),  # the coldest, but not indexed
        **{f"n{i}.md": _reference(f"n{i}", updated=f"2026-0{i + 1}-01") for i in range(6)},
    }
    root = _cold_store(tmp_path / "s", notes, unindexed=("old.md",))
    assert compact(str(root), "--archive-cold", "--apply", *CAPS)[0] == 0
    assert _archived(root) == ["n0.md", "n1.md"] and (root / "old.md").is_file()


def test_cold_order_of_candidates_by_each_source() -> None:
    candidates = [
        ColdCandidate("a.md", "reference", None, None, mtime=2e9),
        ColdCandidate("b.md", "reference", None, None, committed="2025-06-01", mtime=1.0e9),
        ColdCandidate("c.md", "reference", "2025-03-01", None, mtime=1.0e9),
        ColdCandidate("d.md", "reference", "2027-01-01", None, modified="2024-01-01"),
        ColdCandidate("e.md", "reference", None, None),
    ]
    assert [c.rel for c in cold.order(candidates)] == ["e.md", "d.md", "c.md", "b.md", "a.md"]


# -- 3. the inline step ------------------------------------------------------------------------


def _inline(root: Path, index: str, *args: str) -> str:
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    code, out, _ = compact(str(root), "--apply", "--step", "inline", *args)
    assert code == 0, out
    return index_of(root)


WHY_HOW = "**Why:** it broke twice.\n**How to apply:** check first.\n"


def test_a_pointer_goes_under_its_types_section(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a"), "r.md": note("r", type="reference")})
    index = (
        "# M\n\n## User\n- [A](a.md) — who\n\n## Deploy notes\nShip on Fridays never.\n\n"
        "## Reference\n- [R](r.md) — docs\n"
    )
    after = _inline(root, index)
    assert after == (
        "# M\n\n## User\n- [A](a.md) — who\n\n## Reference\n- [R](r.md) — docs\n"
        "- [Deploy notes](deploy-notes.md) — Ship on Fridays never.\n"
    )
    assert "pointer-section-mismatch" not in rules_fired(root)


def test_a_missing_type_section_is_added_in_the_canonical_order(tmp_path: Path) -> None:
    notes = {"a.md": note("a"), "p.md": note("p", type="project")}
    root = make_store(tmp_path / "s", notes)
    index = (
        "# M\n\n## User\n- [A](a.md) — who\n\n## Release rule\nTag before you push.\n\n"
        "## Project\n- [P](p.md) — plan\n"
    )
    after = _inline(root, index)
    assert after == (
        "# M\n\n## User\n- [A](a.md) — who\n\n## Project\n- [P](p.md) — plan\n\n"
        "## Reference\n- [Release rule](release-rule.md) — Tag before you push.\n"
    )
    assert "pointer-section-mismatch" not in rules_fired(root)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("feedback", "## User\n- [A](a.md)\n\n## Feedback\n- new\n\n## Project\n- [P](p.md)\n"),
        ("user", "## User\n- [A](a.md)\n- new\n\n## Project\n- [P](p.md)\n"),
        ("reference", "## User\n- [A](a.md)\n\n## Project\n- [P](p.md)\n\n## Reference\n- new\n"),
    ],
)
def test_sections_are_added_before_the_first_later_type(kind: str, expected: str) -> None:
    index = "## User\n- [A](a.md)\n\n## Project\n- [P](p.md)\n"
    assert inline.add_in_type_order(index, kind, ["- new"]) == expected


def test_a_new_section_follows_the_indexs_heading_case() -> None:
    index = "## user\n- [A](a.md)\n"
    assert (
        inline.add_in_type_order(index, "reference", ["- new"]) == index + "\n## reference\n- new\n"
    )


def test_a_type_heading_left_empty_by_the_move_goes(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")})
    index = "# M\n\n## User\n- [A](a.md) — who\n\n## Project\nShip it soon.\n"
    after = _inline(root, index)
    assert after == (
        "# M\n\n## User\n- [A](a.md) — who\n\n"
        "## Reference\n- [Ship it soon](ship-it-soon.md) — Ship it soon.\n"
    )
    assert "pointer-section-mismatch" not in rules_fired(root)


def test_inline_pointer_lines_stay_within_max_index_line(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")})
    heading = "Build pipeline stages"
    prose = " ".join(f"word{i}" for i in range(80))
    index = f"# M\n\n## User\n- [A](a.md)\n\n## {heading}\n{prose}\n"
    after = _inline(root, index, "--max-index-line", "120")
    line = next(x for x in after.splitlines() if "](build-pipeline-stages.md)" in x)
    assert len(line) <= 120 and line.endswith(ELLIPSIS)
    hook = line.split(" — ", 1)[1][: -len(ELLIPSIS)]
    assert prose.startswith(hook) and prose[len(hook)] == " "  # cut between two words
    tree = digest(root, skip_backups=False)
    steps = ("--step", "inline", "--step", "long-lines", "--max-index-line", "120")
    code, out, _ = compact(str(root), "--apply", *steps)
    assert code == 0 and "undo:" not in out
    assert digest(root, skip_backups=False) == tree


def test_the_description_joins_list_items_and_does_not_stop_at_a_number(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")})
    index = (
        "# M\n\n## User\n- [A](a.md)\n\n## Auth features\n- Login/Logout views and forms\n"
        "- Admin dashboard\n\n## Setup steps\n1. Install the tools\n2. Run make\n"
    )
    after = _inline(root, index)
    assert "(auth-features.md) — Login/Logout views and forms; Admin dashboard" in after
    assert "(setup-steps.md) — Install the tools; Run make" in after


@pytest.mark.parametrize(
    ("lines", "description"),
    [
        (["First one. Second."], "First one."),
        (["Topic 4. A second sentence."], "Topic 4."),
        (["Steps: 1. build 2. push"], "Steps: 1. build 2. push"),
        (["Use e.g. make. Then test."], "Use e.g. make."),
        (["Features:", "", "- login", "- logout."], "Features: login; logout"),
        (["### Sub heading", "text"], "Sub heading"),
        (["```bash", "make test", "```"], "make test"),
        (["- [ ] todo item", "- [x] done"], "[ ] todo item; [x] done"),
    ],
)
def test_description_rules(lines: list[str], description: str) -> None:
    assert naming.description_for(lines, "t") == description


def test_a_description_is_never_cut_inside_a_word_number_or_link() -> None:
    text = "Read " + "[the deployment guide for every service](guide.md) " * 5
    cut = naming.description_for([text], "t")
    assert cut.endswith(ELLIPSIS) and len(cut) <= naming.DESCRIPTION_LIMIT
    assert cut.count("[") == cut.count("](") == cut.count(")")  # whole links only
    numbers = "Totals: " + " ".join(f"{n:,}" for n in range(100_000, 100_060))
    cut = naming.description_for([numbers], "t")
    assert numbers.startswith(cut[: -len(ELLIPSIS)] + " ")


def test_brackets_in_text_stay_as_written(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")})
    index = "# M\n\n## User\n- [A](a.md)\n\n## Todo list\n- [ ] write docs\n- [x] ship\n"
    after = _inline(root, index)
    assert "(todo-list.md) — [ ] write docs; [x] ship" in after
    assert "&#91;" not in after and "&#93;" not in after
    assert "description: '[ ] write docs; [x] ship'" in (root / "todo-list.md").read_text(
        encoding="utf-8"
    ) or "[ ] write docs; [x] ship" in (root / "todo-list.md").read_text(encoding="utf-8")


def test_link_text_escapes_brackets_with_a_backslash_and_stays_one_link() -> None:
    line = pointer_line("Arrays [a] and a](b) tricks", "n.md", "see [ ] and [[wiki]]")
    assert "&#91;" not in line and "&#93;" not in line
    assert line.startswith("- [Arrays \\[a\\] and a\\]\\(b) tricks](n.md) — ")
    assert [link.target for link in find_links(line)] == ["n.md"]
    assert pointer_line("T", "n.md", "a [ ] box").endswith(" — a [ ] box")
    assert pointer_line("T", "n.md", "[docs](https://example.com)").endswith(
        " — [docs](https://example.com)"
    )


@settings(max_examples=200, deadline=None)
@given(
    title=st.text(alphabet="ab []()`\\*-.", min_size=1, max_size=60),
    hook=st.text(alphabet="ab []()`\\*-.:/", max_size=300),
    limit=st.integers(min_value=40, max_value=200),
)
def test_fitted_pointer_lines_hold_one_link_within_the_limit(
    title: str, hook: str, limit: int
) -> None:
    if not title.strip():
        title = "t"
    line = fitted_pointer_line(title, "note.md", hook, limit)
    assert len(line) <= limit
    assert [link.target for link in find_links(line)][:1] == ["note.md"]
    assert not [link for link in find_links(line)[1:] if not link.target.startswith(("http",))]


def test_shorten_keeps_what_fits_and_cuts_at_a_word() -> None:
    assert shorten("short", 10) == "short"
    assert shorten("alpha beta gamma", 12) == "alpha beta…"
    assert shorten("unbreakable" * 5, 20) == ""
    assert shorten("see `a code span here` end", 12) == "see…"


def test_the_text_helpers_stay_linear_on_mebibytes() -> None:
    for size in (1, 4):
        big = "e.g. 1. [x](y " * (size * 1024 * 1024 // 14)
        started = time.perf_counter()
        naming.description_for([big, big], "t")
        fitted_pointer_line("T", "t.md", big, 200)
        shorten(big, 150)
        assert time.perf_counter() - started < 5


# -- 5. fix's orphan step ----------------------------------------------------------------------


def test_fix_orphan_pointer_line_stays_within_the_line_limit(tmp_path: Path) -> None:
    description = (
        "How the nightly export job reads the ledger tables, retries the flaky upstream "
        "calls with backoff, writes partitioned parquet files to the bucket, and alerts "
        "the on-call channel when a partition is late by more than two hours or rows drop"
    )
    assert len(f"- [Nightly export job](nightly-export-job.md) — {description}") > 200
    root = make_store(
        tmp_path / "s",
        {
            "a.md": note("a"),
            "nightly-export-job.md": note(
                "nightly-export-job", type="reference", description=description
            ),
        },
        index=None,
    )
    (root / "MEMORY.md").write_text("# M\n\n## User\n- [A](a.md) — who\n", encoding="utf-8")
    code, out, _ = fix(str(root), "--apply", "--select", "orphan")
    assert code == 0, out
    line = next(x for x in index_of(root).splitlines() if "nightly-export-job.md" in x)
    assert len(line) <= 200 and line.endswith(ELLIPSIS)
    kept = line.split(" — ", 1)[1][: -len(ELLIPSIS)]
    assert description.startswith(kept) and description[len(kept)] == " "
    assert "index-line-too-long" not in rules_fired(root)


# -- 6. titles from slugs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("slug", "title"),
    [
        ("ci-dashboard", "CI dashboard"),
        ("api-v2", "API v2"),
        ("deploy_AWS-notes", "Deploy AWS notes"),
        ("user-id-and-jwt", "User ID and JWT"),
        ("mcp_server_tls", "MCP server TLS"),
        ("deploy-rules", "Deploy rules"),
        ("osmosis", "Osmosis"),
    ],
)
def test_titles_from_slugs_keep_acronyms(slug: str, title: str) -> None:
    assert title_from_slug(slug) == title


def test_new_and_fix_use_the_same_titles(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")})
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(
            ["new", "reference", "ci-dashboard", "--description", "d", "--store", str(root)]
        )
    assert code == 0, out.getvalue() + err.getvalue()
    assert "- [CI dashboard](ci-dashboard.md)" in index_of(root)
    (root / "api-v2.md").write_text(note("api-v2", type="reference"), encoding="utf-8")
    assert fix(str(root), "--apply", "--select", "orphan")[0] == 0
    assert "- [API v2](api-v2.md)" in index_of(root)


def test_inline_keeps_crlf_line_endings_and_a_missing_final_newline(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")})
    index = "# M\r\n\r\n## User\r\n- [A](a.md)\r\n\r\n## Notes\r\nSome prose."
    (root / "MEMORY.md").write_bytes(index.encode("utf-8"))
    assert compact(str(root), "--apply", "--step", "inline")[0] == 0
    after = (root / "MEMORY.md").read_bytes().decode("utf-8")
    assert after == (
        "# M\r\n\r\n## User\r\n- [A](a.md)\r\n\r\n## Reference\r\n- [Notes](notes.md) — Some prose."
    )


def test_inline_on_thousands_of_blocks_stays_fast(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    lines = ["# M", ""]
    for i in range(3000):
        lines += [f"## Topic {i}", f"Prose {i}. More.", f"- item {i}", ""]
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.perf_counter()
    code, out, _ = compact(str(root), "--format", "json")
    assert code == 1 and len(json.loads(out)["steps"][1]["created"]) == 3000
    assert time.perf_counter() - started < 30


def test_step_cold_runs_the_cold_step_alone(tmp_path: Path) -> None:
    notes = {f"n{i}.md": _reference(f"n{i}", updated=f"2026-0{i + 1}-01") for i in range(6)}
    root = _cold_store(tmp_path / "s", notes)
    (root / "MEMORY.md").write_text(
        index_of(root) + "\n## Loose prose\nA block inline would move.\n", encoding="utf-8"
    )
    code, out, _ = compact(str(root), "--format", "json", "--step", "cold", *CAPS)
    report = json.loads(out)
    assert code == 1 and [s["step"] for s in report["steps"]] == ["cold"]
    assert report["steps"][0]["archived"] == ["n0.md", "n1.md", "n2.md", "n3.md", "n4.md"]


def test_long_lines_never_cut_inside_a_link(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a", body="Body.\n")}, index=None)
    hook = "see " + "[the runbook for every deploy step](https://example.com/runbook) " * 4
    (root / "MEMORY.md").write_text(f"# M\n\n## User\n- [A](a.md) — {hook}\n", encoding="utf-8")
    assert compact(str(root), "--apply", "--step", "long-lines")[0] == 0
    line = index_of(root).splitlines()[3]
    assert len(line) <= 200 and line.endswith(ELLIPSIS)
    assert line.count("[") == line.count("](") == line.count(")")
    assert next(link.target for link in find_links(line)) == "a.md"
