"""``engramory fix``: each fix (firing and not), byte preservation, backup and undo, refusals."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixkit import bodies, digest, fix, undo_id

from conftest import run_engramory
from doctorkit import fired, make_store, note
from engramory.commands.fix import apply, plan_store
from engramory.repair.fmedit import set_field
from engramory.repair.invalid_date import normalise
from engramory.store.caps import Caps
from engramory.store.frontmatter import parse
from engramory.util.errors import EngramoryError
from engramory.write.pointertext import title_from_slug

OLD = 1_600_000_000  # 2020-09-13: an mtime that is not today


def _store(tmp_path: Path, notes: dict[str, str | bytes], index: str | None = "auto") -> Path:
    return make_store(tmp_path / "store", notes, index)


# -- each fix ---------------------------------------------------------------------------


def test_name_mismatch_is_set_to_the_slug(tmp_path: Path) -> None:
    root = _store(tmp_path, {"deploy.md": note("deploy", name="release-rules")})
    assert fix(str(root), "--apply")[0] == 0
    assert "name: deploy\n" in (root / "deploy.md").read_text()
    assert not fired(root, "name-mismatch")


def test_missing_name_is_added_after_the_fence(tmp_path: Path) -> None:
    root = _store(tmp_path, {"deploy.md": note("deploy", drop=("name",))})
    fix(str(root), "--apply")
    assert (root / "deploy.md").read_text().startswith("---\nname: deploy\ndescription:")
    assert not fired(root, "missing-field")


def test_a_matching_name_is_left_alone(tmp_path: Path) -> None:
    root = _store(tmp_path, {"feedback_x.md": note("x", "feedback")})
    before = digest(root)
    code, out, _ = fix(str(root))
    assert code == 0 and "nothing to fix" in out
    assert digest(root) == before


@pytest.mark.parametrize(
    ("value", "fixed"),
    [
        ("2026/03/01", "2026-03-01"),
        ("2026-3-1", "2026-03-01"),
        ("20260301", "2026-03-01"),
        ("2026.03.01", "2026-03-01"),
        ("15/01/2026", None),
        ("2026-02-30", None),
        ("2026/03-01", None),
        ("２０２６-03-01", None),
        ("March 1", None),
    ],
)
def test_invalid_date_forms(value: str, fixed: str | None) -> None:
    assert normalise(value) == fixed


def test_invalid_date_is_rewritten_and_an_ambiguous_one_left(tmp_path: Path) -> None:
    root = _store(
        tmp_path,
        {
            "a.md": note("a", created="2026/01/05"),
            "b.md": note("b", created="05/01/2026"),
        },
    )
    fix(str(root), "--apply")
    assert "created: 2026-01-05\n" in (root / "a.md").read_text()
    assert "created: 05/01/2026\n" in (root / "b.md").read_text()
    assert [f.path for f in fired(root, "invalid-date")] == ["b.md"]


def test_missing_dates_from_mtime(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", drop=("created", "updated"))})
    os.utime(root / "a.md", (OLD, OLD))
    fix(str(root), "--apply", "--dates-from", "mtime")
    text = (root / "a.md").read_text()
    day = __import__("datetime").date.fromtimestamp(OLD).isoformat()
    assert f"created: {day}\nupdated: {day}\n---\n" in text
    assert not fired(root, "missing-date")


def test_missing_dates_outside_git_are_left(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", drop=("updated",))})
    before = digest(root)
    code, out, _ = fix(str(root), "--apply")
    assert code == 0 and "not in a git work tree" in out
    assert digest(root) == before


def test_mtime_today_gives_no_date(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", drop=("updated",))})
    before = digest(root)
    _code, out, _ = fix(str(root), "--dates-from", "mtime")
    assert "modification date is today" in out
    assert digest(root) == before


def _git(root: Path, *args: str, when: str = "") -> None:
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


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_missing_dates_from_git_history(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", drop=("created", "updated"))})
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one", when="2025-03-04T12:00:00+00:00")
    with (root / "a.md").open("a") as handle:
        handle.write("More.\n")
    _git(root, "commit", "-qam", "two", when="2025-06-07T12:00:00+00:00")
    fix(str(root), "--apply")
    assert "created: 2025-03-04\nupdated: 2025-06-07\n" in (root / "a.md").read_text()
    assert not fired(root, "missing-date")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_git_ignored_store_names_dates_from_mtime(tmp_path: Path) -> None:
    project = tmp_path / "project"
    root = make_store(project / ".engramory-memory", {"a.md": note("a", drop=("updated",))})
    (project / ".gitignore").write_text(".engramory-memory/\n")  # as `init` may write it
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "one")
    before = digest(root)
    code, out, _ = fix(str(root), "--apply")
    assert code == 0 and "git has no commit of it (--dates-from mtime uses" in out
    assert digest(root) == before


def test_orphan_gets_a_pointer_under_its_type(tmp_path: Path) -> None:
    index = "# Memory index\n\n## feedback\n- [B](b.md) — when b\n\n## user\n"
    root = _store(
        tmp_path,
        {"b.md": note("b", "feedback"), "deploy-rules.md": note("deploy-rules", "feedback")},
        index,
    )
    fix(str(root), "--apply")
    text = (root / "MEMORY.md").read_text()
    hook = "When to open deploy-rules: a one-line hook"
    assert text == index.replace(
        "when b\n", f"when b\n- [Deploy rules](deploy-rules.md) — {hook}\n"
    )
    assert not fired(root, "orphan")


def test_orphan_with_frontmatter_errors_is_not_indexed(tmp_path: Path) -> None:
    root = _store(tmp_path, {"x.md": "# no frontmatter\n"}, "# Memory index\n")
    before = digest(root)
    code, out, _ = fix(str(root), "--apply")
    assert code == 0 and "x.md: not indexed" in out
    assert digest(root) == before


def test_orphan_over_the_hard_cap_is_left(tmp_path: Path) -> None:
    index = "# Memory index\n" + "\n" * 198 + "## user\n"
    root = _store(tmp_path, {"x.md": note("x")}, index)
    before = digest(root)
    code, out, _ = fix(str(root), "--apply")
    assert code == 0 and "over the hard cap" in out
    assert digest(root) == before


def test_duplicate_pointer_keeps_the_first(tmp_path: Path) -> None:
    index = "## user\n- [A](a.md) — first\n- [A again](./a.md) — later\n- [B](b.md) — b\n"
    root = _store(tmp_path, {"a.md": note("a"), "b.md": note("b")}, index)
    fix(str(root), "--apply")
    assert (root / "MEMORY.md").read_text() == "## user\n- [A](a.md) — first\n- [B](b.md) — b\n"
    assert not fired(root, "duplicate-pointer")


def test_pointer_section_mismatch_moves_the_line(tmp_path: Path) -> None:
    index = "## user\n- [X](x.md) — x\n- [U](u.md) — u\n\n## feedback\n- [F](f.md) — f\n"
    root = _store(
        tmp_path,
        {"x.md": note("x", "feedback"), "u.md": note("u"), "f.md": note("f", "feedback")},
        index,
    )
    fix(str(root), "--apply")
    assert (root / "MEMORY.md").read_text() == (
        "## user\n- [U](u.md) — u\n\n## feedback\n- [F](f.md) — f\n- [X](x.md) — x\n"
    )
    assert not fired(root, "pointer-section-mismatch")


def test_a_clean_store_needs_nothing(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a"), "f.md": note("f", "feedback")})
    code, out, _ = fix(str(root), "--apply")
    assert code == 0 and "nothing to fix" in out and "undo:" not in out
    assert not (root / ".engramory").exists()


# -- bytes kept -------------------------------------------------------------------------


def test_crlf_bom_comments_key_order_and_body_are_kept(tmp_path: Path) -> None:
    raw = (
        "\ufeff---\r\n"
        "# a comment\r\n"
        "type: user\r\n"
        "name: wrong-name\r\n"
        "description: d: with a colon\r\n"
        "created: 2026/1/2\r\n"
        "---\r\n"
        "Body line \xe9\r\n"
        "  trailing   \r\n"
    ).encode()
    index = "\ufeff## user\r\n- [X](x.md) — x\r\n"
    root = _store(tmp_path, {"x.md": raw, "o.md": note("o")}, None)
    (root / "MEMORY.md").write_bytes(index.encode())
    fix(str(root), "--apply")
    expected = raw.replace(b"wrong-name", b"x").replace(b"2026/1/2", b"2026-01-02")
    assert (root / "x.md").read_bytes() == expected
    new_index = (root / "MEMORY.md").read_bytes()
    assert new_index.startswith(b"\xef\xbb\xbf## user\r\n- [X](x.md)")
    assert b"- [O](o.md)" in new_index and b"\n" not in new_index.replace(b"\r\n", b"")


def test_invalid_utf8_elsewhere_in_a_note_survives(tmp_path: Path) -> None:
    raw = b"---\nname: other\ndescription: d \xff\xfe\ntype: user\n---\nbody \xc3\n"
    root = _store(tmp_path, {"x.md": raw})
    fix(str(root), "--apply")
    assert (root / "x.md").read_bytes() == raw.replace(b"name: other", b"name: x")


_VALUES = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=30
)


@given(value=_VALUES, crlf=st.booleans(), present=st.booleans())
def test_set_field_round_trips_and_touches_one_line(value: str, crlf: bool, present: bool) -> None:
    end = "\r\n" if crlf else "\n"
    head = ["---", "# keep", "name: n", "description: d"] + (["scope: repo"] if present else [])
    text = end.join([*head, "---", "body", ""])
    new = set_field(text.encode(), "scope", value).decode()
    assert parse(new).fields["scope"] == value
    old_lines = text.split(end)
    new_lines = new.split(end)
    assert len(new_lines) == len(old_lines) + (0 if present else 1)
    assert [x for x in new_lines if not x.startswith("scope:")] == [
        x for x in old_lines if not x.startswith("scope:")
    ]


# -- dry run, backup and undo -----------------------------------------------------------


def test_dry_run_prints_a_diff_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", name="b")})
    before = digest(root, skip_backups=False)
    code, out, _ = fix(str(root))
    assert code == 1
    assert "--- a/a.md\n+++ b/a.md\n" in out and "-name: b\n+name: a\n" in out
    assert "would fix 1 finding in 1 file: name-mismatch 1" in out
    assert "left for a person" not in out
    assert digest(root, skip_backups=False) == before


def test_apply_then_undo_gives_back_every_byte_and_mode(tmp_path: Path) -> None:
    root = _store(
        tmp_path,
        {"a.md": note("a", name="b"), "o.md": note("o"), "c.md": note("c", created="2026.1.3")},
        "## user\n- [A](a.md)\n- [C](c.md)\n",
    )
    (root / "a.md").chmod(0o600)
    before = digest(root)
    before_bodies = bodies(root)
    code, out, _ = fix(str(root), "--apply")
    assert code == 0
    assert bodies(root) == before_bodies
    assert oct((root / "a.md").stat().st_mode & 0o777) == oct(0o600)
    backup = undo_id(out)
    saved = root / ".engramory" / "backup" / backup
    saved_copies = sorted(p.name for p in saved.iterdir() if not p.name.startswith(".engramory-"))
    assert saved_copies == ["MEMORY.md", "a.md", "c.md"]
    assert (saved / ".engramory-journal").is_file()
    again = fix(str(root), "--apply")
    assert again[0] == 0 and "nothing to fix" in again[1]
    assert fix(str(root), "--undo", backup)[0] == 0
    assert digest(root) == before


def test_two_applies_in_one_second_get_two_ids(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", name="b")})
    first = undo_id(fix(str(root), "--apply")[1])
    (root / "a.md").write_text(note("a", name="c"))
    second = undo_id(fix(str(root), "--apply")[1])
    assert first != second
    fix(str(root), "--undo", second)
    assert "name: c\n" in (root / "a.md").read_text()


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--select", "orphan,no-such-rule"), 64),
        (("--undo", "../x"), 64),
        (("--undo", "a/b"), 64),
        (("--undo", "20200101T000000Z"), 66),
    ],
)
def test_refusals_leave_the_tree_identical(
    tmp_path: Path, args: tuple[str, ...], code: int
) -> None:
    root = _store(tmp_path, {"a.md": note("a", name="b")})
    before = digest(root, skip_backups=False)
    assert fix(str(root), *args)[0] == code
    assert digest(root, skip_backups=False) == before


def test_a_backup_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", name="b")})
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".engramory").symlink_to(outside)
    before = digest(root, skip_backups=False)
    code, _out, err = fix(str(root), "--apply")
    assert code == 1 and "symlink" in err
    assert digest(root, skip_backups=False) == before
    assert list(outside.iterdir()) == []


def test_select_limits_the_fixes(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", name="b", created="2026/1/1")})
    fix(str(root), "--apply", "--select", "invalid-date")
    text = (root / "a.md").read_text()
    assert "created: 2026-01-01" in text and "name: b\n" in text


def test_a_symlinked_note_is_not_written(tmp_path: Path) -> None:
    root = _store(tmp_path, {"real.md": note("real"), "sub/x.md": note("zz")})
    (root / "link.md").symlink_to(root / "sub" / "x.md")
    (root / "MEMORY.md").write_text("## user\n- [R](real.md)\n- [L](link.md)\n- [X](sub/x.md)\n")
    before = digest(root)
    code, out, _ = fix(str(root), "--apply")
    assert code == 0 and "symlink" in out
    assert digest(root)["link.md"] == before["link.md"]


def test_the_real_cli(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", name="b")})
    proc = run_engramory("fix", str(root))
    assert proc.returncode == 1 and b"+name: a" in proc.stdout
    proc = run_engramory("fix", str(root), "--apply")
    assert proc.returncode == 0, proc.stderr
    backup = undo_id(proc.stdout.decode())
    assert run_engramory("fix", str(root), "--undo", backup).returncode == 0
    assert "name: b\n" in (root / "a.md").read_text()


def test_the_diff_hides_a_secret_in_a_context_line(tmp_path: Path) -> None:
    key = "AKIA" + "QZ7Y" * 4
    root = _store(tmp_path, {"a.md": note("a", name="b", description=f"the key {key}")})
    code, out, _ = fix(str(root))
    assert code == 1 and "+name: a" in out
    assert key not in out and "secret hidden" in out


def test_a_file_changed_after_planning_is_refused_before_any_write(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", name="b"), "c.md": note("c", name="d")})
    report = __import__("doctorkit").doctor(root)
    planned = plan_store(str(root.resolve()), report.findings, Caps(), ["name-mismatch"], "git")
    assert sorted(planned.changes) == ["a.md", "c.md"]
    (root / "c.md").write_text(note("c", name="e"))
    before = digest(root, skip_backups=False)
    with pytest.raises(EngramoryError, match="changed while fix ran"):
        apply(str(root.resolve()), planned.sources, planned.changes)
    assert digest(root, skip_backups=False) == before


def test_titles_from_slugs() -> None:
    assert title_from_slug("deploy-rules") == "Deploy rules"
    assert title_from_slug("project_auth_dashboard") == "Project auth dashboard"


def test_undo_with_apply_is_a_usage_error(tmp_path: Path) -> None:
    root = _store(tmp_path, {"a.md": note("a", name="b")})
    before = digest(root, skip_backups=False)
    assert fix(str(root), "--apply", "--undo", "20200101T000000Z")[0] == 64
    assert digest(root, skip_backups=False) == before


def test_missing_git_means_no_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _store(tmp_path, {"a.md": note("a", drop=("updated",))})
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    before = digest(root)
    code, out, _ = fix(str(root), "--apply")
    assert code == 0 and "git is missing" in out
    assert digest(root) == before
