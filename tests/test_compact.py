"""``engramory compact`` (issue 25): the steps, the plan, --apply, --undo, refusals."""

from __future__ import annotations

import io
import json
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixkit import digest
from hookkit import answer, run_hook

from doctorkit import TODAY, doctor, make_store, note
from engramory.cli import main
from engramory.compact import cold, naming
from engramory.compact.long_lines import FROM_INDEX, cut_line
from engramory.compact.model import ColdCandidate
from engramory.doctor import engine
from engramory.doctor.context import Options
from engramory.doctor.profiles import CLAUDE_NATIVE
from engramory.store.caps import Caps
from engramory.store.frontmatter import decode, parse
from engramory.store.markdown import classify_index


def compact(*args: str) -> tuple[int, str, str]:
    """Run ``engramory compact ARGS`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["compact", *args])
    return code, out.getvalue(), err.getvalue()


def undo_id(stdout: str) -> str:
    (line,) = [x for x in stdout.splitlines() if x.startswith("undo: engramory compact --undo ")]
    return line.split()[4]


def errors(root: Path) -> list:
    return [f for f in doctor(root).findings if f.severity == "error"]


def fields(path: Path) -> dict[str, str]:
    return dict(parse(decode(path.read_bytes())).fields)


def memoir_store(root: Path, sections: int = 40, pointers: int = 60) -> Path:
    """Inline sections in the top half, pointers past line 200."""
    notes = {f"note-{i}.md": note(f"note-{i}", type="reference") for i in range(pointers)}
    make_store(root, notes, index=None)
    lines = ["# Memory", "", "> loaded every session", ""]
    for i in range(sections):
        lines += [
            f"## Topic {i}",
            f"Prose about topic {i}. A second sentence.",
            f"- bullet {i}",
            "",
        ]
    lines.append("## Reference")
    lines += [f"- [Note {i}](note-{i}.md) — hook {i}" for i in range(pointers)]
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


# -- the memoir-style index -------------------------------------------------------------------


def test_memoir_index_apply_brings_every_pointer_within_the_cut(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s")
    before = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert len(before.splitlines()) > 200
    code, out, _ = compact(str(root), "--apply")
    assert code == 0, out
    index = (root / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    assert len(index) <= 150
    for i in range(60):
        assert any(f"(note-{i}.md)" in line for line in index[:200])
    for i in range(40):
        created = root / f"topic-{i}.md"
        text = created.read_text(encoding="utf-8")
        assert text.endswith(
            f"## Topic {i}\nProse about topic {i}. A second sentence.\n- bullet {i}\n"
        )
        assert fields(created)["description"] == f"Prose about topic {i}."
        assert fields(created)["type"] == "reference"
        assert f"- [Topic {i}](topic-{i}.md) — Prose about topic {i}." in index
    assert index[:4] == ["# Memory", "", "> loaded every session", ""]
    assert errors(root) == []


def test_plan_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s")
    tree = digest(root, skip_backups=False)
    code, out, _ = compact(str(root))
    assert code == 1
    assert "+- [Topic 0](topic-0.md)" in out and "would create topic-0.md" in out
    assert digest(root, skip_backups=False) == tree


def test_apply_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s")
    assert compact(str(root), "--apply")[0] == 0
    tree = digest(root, skip_backups=False)
    code, out, _ = compact(str(root), "--apply")
    assert code == 0 and "undo:" not in out
    assert digest(root, skip_backups=False) == tree
    assert compact(str(root))[0] == 0


def test_undo_gives_back_every_byte_and_removes_created_files(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s")
    tree = digest(root)
    _code, out, _ = compact(str(root), "--apply", "--archive-cold", "--to", "hard")
    assert digest(root) != tree
    code, undone, _ = compact(str(root), "--undo", undo_id(out))
    assert code == 0 and "removed topic-0.md" in undone
    assert digest(root) == tree


def _folders(root: Path) -> set[str]:
    """Every folder under ``root`` (the backups left out): the file digest misses empty ones."""
    found = set()
    for directory, dirs, _files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".engramory"]
        found.update((Path(directory) / d).relative_to(root).as_posix() for d in dirs)
    return found


def _cold_store(root: Path) -> Path:
    """Six reference notes under a six-pointer index: two must go for a 4-line cap."""
    notes = {
        f"n{i}.md": note(f"n{i}", type="reference", updated=f"2025-01-0{i + 1}") for i in range(6)
    }
    store = make_store(root, notes, index=None)
    lines = [f"- [N{i}](n{i}.md) — hook" for i in range(6)]
    (store / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return store


COLD_CAPS = ("--archive-cold", "--apply", "--warn-lines", "4", "--hard-lines", "5")


def test_undo_removes_the_archive_folder_the_cold_step_made(tmp_path: Path) -> None:
    root = _cold_store(tmp_path / "s")
    tree, folders = digest(root), _folders(root)
    code, out, _ = compact(str(root), *COLD_CAPS)
    assert code == 0 and sorted(p.name for p in (root / "archive").iterdir()) == ["n0.md", "n1.md"]
    code, _undone, _ = compact(str(root), "--undo", undo_id(out))
    assert code == 0 and _folders(root) == folders and digest(root) == tree


def test_undo_keeps_an_archive_folder_that_was_there(tmp_path: Path) -> None:
    root = _cold_store(tmp_path / "s")
    (root / "archive").mkdir()
    _code, out, _ = compact(str(root), *COLD_CAPS)
    compact(str(root), "--undo", undo_id(out))
    assert (root / "archive").is_dir()


def test_undo_refuses_when_a_created_file_changed(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s")
    _code, out, _ = compact(str(root), "--apply")
    with (root / "topic-3.md").open("a", encoding="utf-8") as handle:
        handle.write("edited since\n")
    tree = digest(root, skip_backups=False)
    code, _out, err = compact(str(root), "--undo", undo_id(out))
    assert code == 1 and "topic-3.md" in err
    assert digest(root, skip_backups=False) == tree


@pytest.mark.parametrize(
    ("backup_id", "code"), [("20000101T000000Z", 66), ("../x", 64), ("a/b", 64)]
)
def test_undo_unknown_or_path_id(tmp_path: Path, backup_id: str, code: int) -> None:
    root = memoir_store(tmp_path / "s", 2, 2)
    tree = digest(root, skip_backups=False)
    assert compact(str(root), "--undo", backup_id)[0] == code
    assert digest(root, skip_backups=False) == tree


def test_json_shape(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s", 3, 3)
    code, out, _ = compact(str(root), "--format", "json", "--archive-cold", "--warn-lines", "12")
    assert code == 1
    report = json.loads(out)
    assert set(report) == {
        *("store", "before", "after", "target", "steps", "applied", "undo"),
        *("profile", "profile_reason"),
    }
    assert report["target"] == "soft" and report["applied"] is False and report["undo"] is None
    assert [s["step"] for s in report["steps"]] == ["duplicates", "inline", "long-lines", "cold"]
    inline = report["steps"][1]
    assert inline["created"] == ["topic-0.md", "topic-1.md", "topic-2.md"]
    assert inline["lines_saved"] == 9  # 3 blocks of 3 lines and a blank; 3 pointers added
    assert set(inline) == {"step", "lines_saved", "bytes_saved", "created", "archived", "touched"}
    code, out, _ = compact(str(root), "--format", "json", "--apply", "--warn-lines", "12")
    report = json.loads(out)
    assert code == 0 and report["applied"] is True and report["undo"]
    assert [s["step"] for s in report["steps"]] == ["duplicates", "inline", "long-lines"]


def test_within_target_nothing_to_do_exits_0(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")})
    code, out, _ = compact(str(root))
    assert code == 0 and "nothing to compact" in out


# -- the steps ----------------------------------------------------------------------------------


def test_duplicates_keep_the_first_line_with_the_longest_hook(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a"), "b.md": note("b")}, index=None)
    (root / "MEMORY.md").write_text(
        "# M\n\n## User\n- [A](a.md) — short\n- [B](b.md) — b\n- [A again](./a.md) — a much longer hook\n",
        encoding="utf-8",
    )
    assert compact(str(root), "--apply", "--step", "duplicates")[0] == 0
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == (
        "# M\n\n## User\n- [A again](./a.md) — a much longer hook\n- [B](b.md) — b\n"
    )


def test_long_line_is_cut_at_a_word_and_the_rest_goes_to_the_note(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a", body="Body.\n")}, index=None)
    hook = " ".join(f"word{i}" for i in range(60))
    (root / "MEMORY.md").write_text(f"# M\n\n## User\n- [A](a.md) — {hook}\n", encoding="utf-8")
    before_fields = fields(root / "a.md")
    assert compact(str(root), "--apply", "--step", "long-lines")[0] == 0
    line = (root / "MEMORY.md").read_text(encoding="utf-8").splitlines()[3]
    kept = line.split(" — ", 1)[1]
    assert len(line) <= 200 and kept.endswith("…") and hook.startswith(kept[:-1] + " ")
    rest = hook[len(kept) - 1 :].strip()
    text = (root / "a.md").read_text(encoding="utf-8")
    assert text.endswith(f"\n{FROM_INDEX}\n\n{rest}\n")
    assert fields(root / "a.md") == before_fields  # updated is the fact's date, unchanged
    assert errors(root) == []


def test_long_line_text_already_in_the_note_is_not_appended_again(tmp_path: Path) -> None:
    hook = " ".join(f"word{i}" for i in range(60))
    root = make_store(tmp_path / "s", {"a.md": note("a", body=hook + "\n")}, index=None)
    (root / "MEMORY.md").write_text(f"# M\n\n## User\n- [A](a.md) — {hook}\n", encoding="utf-8")
    note_before = (root / "a.md").read_bytes()
    assert compact(str(root), "--apply", "--step", "long-lines")[0] == 0
    assert (root / "a.md").read_bytes() == note_before
    assert len((root / "MEMORY.md").read_text(encoding="utf-8").splitlines()[3]) <= 200


def test_long_lines_left_alone_missing_target_or_hook_first(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a"), "b.md": note("b")}, index=None)
    long = "x " * 120
    index = f"# M\n\n## User\n- [A](a.md)\n- [Gone](gone.md) — {long}\n- {long} see [B](b.md)\n"
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    tree = digest(root)
    code, _out, _ = compact(str(root), "--apply", "--step", "long-lines")
    assert digest(root) == tree
    assert code == 0  # within the soft cap; nothing it may touch
    assert cut_line(f"- {long} see [B](b.md)", 200) is None


def test_left_alone_preamble_breaks_and_blocks_with_a_pointer(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    index = (
        "# M\n\nPreamble prose stays.\n> quote\n\n---\n\n## Group\n\nProse next to a pointer.\n"
        "- [Broken](missing.md)\n\n***\n\n## User\n- [A](a.md)\n"
    )
    (root / "MEMORY.md").write_text(index, encoding="utf-8")
    tree = digest(root)
    code, out, _ = compact(str(root))
    assert code == 0, out
    assert digest(root) == tree


def test_type_heading_with_prose_keeps_the_heading(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    body = "Always run the tests first. They are fast.\n**Why:** CI is slow.\n**How to apply:** run pytest.\n"
    (root / "MEMORY.md").write_text(
        f"# M\n\n## Feedback\n{body}\n## User\n- [A](a.md)\n", encoding="utf-8"
    )
    assert compact(str(root), "--apply", "--step", "inline")[0] == 0
    index = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert index.startswith(
        "# M\n\n## Feedback\n- [Always run the tests first. They](always-run-the-tests-first-they.md)"
    )
    created = root / "always-run-the-tests-first-they.md"
    assert created.read_text(encoding="utf-8").endswith("---\n\n" + body)
    assert fields(created)["type"] == "feedback"
    assert errors(root) == []


def test_feedback_without_why_becomes_reference(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    (root / "MEMORY.md").write_text(
        "# M\n\n## Project\n### Plan\nShip it.\n\n## User\n- [A](a.md)\n", encoding="utf-8"
    )
    assert compact(str(root), "--apply", "--step", "inline")[0] == 0
    assert fields(root / "plan.md")["type"] == "reference"
    assert errors(root) == []


def test_slug_unique_against_store_and_archive(tmp_path: Path) -> None:
    root = make_store(
        tmp_path / "s",
        {"topic.md": note("topic"), "archive/topic-2.md": note("topic-2")},
        index=None,
    )
    (root / "MEMORY.md").write_text(
        "# M\n\n## Topic\nText.\n\n## User\n- [T](topic.md)\n", encoding="utf-8"
    )
    assert compact(str(root), "--apply", "--step", "inline")[0] == 0
    assert (root / "topic-3.md").is_file()
    assert "(topic-3.md)" in (root / "MEMORY.md").read_text(encoding="utf-8")


# -- naming rules -------------------------------------------------------------------------------


def test_slug_rules() -> None:
    assert naming.slug_for("Café Déjà-vu: Ünïcode!", "b") == "cafe-deja-vu-unicode"
    assert len(naming.slug_for("word " * 30, "b")) <= 60
    assert not naming.slug_for("word " * 30, "b").endswith("-")
    import hashlib

    sha = hashlib.sha256(b"block").hexdigest()[:8]
    assert naming.slug_for("設計メモ", "block") == f"note-{sha}"
    assert naming.slug_for("한국어 a", "block") == f"note-{sha}"
    taken = {"x", "x-2"}
    assert naming.unique_slug("x", taken) == "x-3" and "x-3" in taken


def test_description_rules() -> None:
    assert naming.description_for(["First one. Second."], "t") == "First one."
    long = "word " * 50
    cut = naming.description_for([long], "t")
    assert len(cut) <= 150 and cut.endswith("word…") and long.startswith(cut[:-1])
    cjk = "設" * 200
    assert naming.description_for([cjk], "t") == "設" * 149 + "…"
    unbalanced = "a " * 70 + "**bold words here that run past the limit** end"
    assert naming.description_for([unbalanced], "t").count("**") % 2 == 0
    ticks = "a " * 70 + "`code span running past the limit` end"
    assert "`" not in naming.description_for([ticks], "t")
    assert naming.description_for(["- bullet first"], "t") == "bullet first"


# -- the cold step ------------------------------------------------------------------------------


def test_cold_order_and_exemptions() -> None:
    candidates = [
        ColdCandidate("new.md", "project", "2026-05-01", "2026-01-01"),
        ColdCandidate("b.md", "reference", "2025-01-01", "2024-02-01"),
        ColdCandidate("a.md", "reference", "2025-01-01", "2024-02-01"),
        ColdCandidate("c.md", "reference", "2025-01-01", "2024-01-01"),
        ColdCandidate("nodate.md", "project", None, None),
        ColdCandidate("bad.md", "project", "soon", None),
        ColdCandidate("me.md", "user", None, None),
        ColdCandidate("fb.md", "feedback", "2000-01-01", None),
    ]
    assert [c.rel for c in cold.order(candidates)] == [
        "bad.md",
        "nodate.md",
        "c.md",
        "a.md",
        "b.md",
        "new.md",
    ]


def test_archive_cold_archives_until_the_target_and_spares_user_feedback(tmp_path: Path) -> None:
    notes = {}
    lines = ["# M", "", "## Reference"]
    for i in range(12):
        kind = ("user", "feedback", "reference")[i % 3]
        notes[f"n{i:02}.md"] = note(f"n{i:02}", type=kind, updated=f"2025-01-{i + 1:02}")
        lines.append(f"- [N{i}](n{i:02}.md) — hook")
    root = make_store(tmp_path / "s", notes, index=None)
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    tree = digest(root)
    code, out, _ = compact(
        str(root), "--archive-cold", "--apply", "--warn-lines", "13", "--hard-lines", "14"
    )
    assert code == 0, out
    assert sorted(p.name for p in (root / "archive").iterdir()) == ["n02.md", "n05.md"]
    assert "(n02.md)" not in (root / "MEMORY.md").read_text(encoding="utf-8")
    assert "(n03.md)" in (root / "MEMORY.md").read_text(encoding="utf-8")  # feedback: spared
    code, out, _ = compact(
        str(root), "--archive-cold", "--apply", "--warn-lines", "3", "--hard-lines", "14"
    )
    assert code == 1 and "still over" in out
    archived = sorted(p.name for p in (root / "archive").iterdir())
    assert archived == ["n02.md", "n05.md", "n08.md", "n11.md"]
    compact(str(root), "--undo", undo_id(out))
    assert (root / "n08.md").is_file() and not (root / "archive" / "n08.md").exists()
    assert (root / "archive" / "n05.md").is_file()
    assert digest(root) != tree


# -- native store, refusals, caps, the guard ----------------------------------------------------


def test_native_store_notes_follow_the_host_dialect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "claude"
    root = config / "projects" / "-home-me-proj" / "memory"
    root.mkdir(parents=True)
    (root / "role.md").write_text(
        "---\nname: My role\ndescription: d\ntype: user\n---\n\nBody.\n", encoding="utf-8"
    )
    (root / "MEMORY.md").write_text(
        "# M\n\n## Build Tips\nUse make. Fast.\n\n## User\n- [My role](role.md)\n", encoding="utf-8"
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    assert compact(str(root), "--apply", "--step", "inline")[0] == 0
    created = fields(root / "build-tips.md")
    assert created["name"] == "Build Tips" and created["type"] == "reference"
    assert set(created) == {"name", "description", "type", "created", "updated"}
    options = Options(profile=CLAUDE_NATIVE, today=TODAY, stale_days=0)
    report = engine.run(str(root), Caps(), options)
    assert [f for f in report.findings if f.severity == "error"] == []


def test_refusals_leave_the_tree_unchanged(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s", 3, 3)
    (root / "MEMORY.md").write_bytes((root / "MEMORY.md").read_bytes() + b"\xff\xfe bad\n")
    tree = digest(root, skip_backups=False)
    assert compact(str(root), "--apply")[0] == 1
    assert compact(str(root), "--max-index-line", "0")[0] == 64
    assert compact(str(root), "--to", "medium")[0] == 64
    assert compact(str(tmp_path / "nope"), "--apply")[0] == 66
    assert digest(root, skip_backups=False) == tree


def test_an_index_over_the_read_limit_is_refused(tmp_path: Path) -> None:
    root = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    (root / "MEMORY.md").write_text("# M\n\n## X\n" + "prose line\n" * 120_000, encoding="utf-8")
    tree = digest(root, skip_backups=False)
    code, _out, err = compact(str(root), "--apply")
    assert code == 1 and "too large" in err
    assert digest(root, skip_backups=False) == tree


def test_a_write_the_guard_denied_passes_after_compaction(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s", 50, 60)
    (root / "new.md").write_text(note("new"), encoding="utf-8")

    def verdict() -> str:
        text = (root / "MEMORY.md").read_text(encoding="utf-8") + "- [New](new.md) — new\n"
        payload = {
            "tool_name": "Write",
            "tool_input": {"file_path": str(root / "MEMORY.md"), "content": text},
        }
        output = answer(run_hook("claude", payload, cwd=root))
        inner = (output or {}).get("hookSpecificOutput", {})
        return inner.get("permissionDecision", "allow")

    assert verdict() == "deny"
    assert compact(str(root), "--apply", "--to", "hard")[0] == 0
    assert verdict() != "deny"


def test_classify_sees_the_same_lines() -> None:
    assert [e.kind for e in classify_index("# M\n\n## X\nText\n")] == [
        "heading",
        "blank",
        "heading",
        "text",
    ]


def test_an_index_symlinked_out_of_the_store_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# M\n\n## X\nProse.\n", encoding="utf-8")
    root = make_store(tmp_path / "s", {"a.md": note("a")}, index=None)
    (root / "MEMORY.md").symlink_to(outside)
    tree = digest(root, skip_backups=False)
    code, _out, err = compact(str(root), "--apply")
    assert code == 1 and "symlink" in err
    assert digest(root, skip_backups=False) == tree
    assert outside.read_text(encoding="utf-8") == "# M\n\n## X\nProse.\n"


def test_cold_uses_an_existing_capitalised_archive_folder(tmp_path: Path) -> None:
    notes = {
        "old.md": note("old", type="reference", updated="2020-01-01"),
        "Archive/x.md": note("x"),
    }
    root = make_store(tmp_path / "s", notes, index=None)
    (root / "MEMORY.md").write_text("# M\n\n## Reference\n- [Old](old.md)\n", encoding="utf-8")
    code, out, _ = compact(str(root), "--archive-cold", "--apply", "--warn-lines", "3")
    assert code == 0, out
    assert (root / "Archive" / "old.md").is_file() and not (root / "archive").exists()


def test_cold_skips_a_note_whose_archive_would_leave_orphans(tmp_path: Path) -> None:
    notes = {
        "hub.md": note("hub", type="reference", updated="2020-01-01", body="See [[leaf]].\n"),
        "leaf.md": note("leaf", type="user"),
        "later.md": note("later", type="reference", updated="2021-01-01"),
    }
    root = make_store(tmp_path / "s", notes, index=None)
    (root / "MEMORY.md").write_text(
        "# M\n\n## Reference\n- [Hub](hub.md)\n- [Later](later.md)\n", encoding="utf-8"
    )
    code, out, _ = compact(str(root), "--archive-cold", "--apply", "--warn-lines", "4")
    assert code == 0, out
    assert (root / "hub.md").is_file() and (root / "archive" / "later.md").is_file()
