"""``engramory merge FROM [TO]`` (issue 39): one memory folder's notes into another, planned,
applied, undone byte for byte, in Claude Code's own dialect."""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.cli import main

NATIVE = "---\nname: {title}\ndescription: {hook}\nmetadata:\n  type: {kind}\n  originSessionId: s-1\n---\n\n{body}\n"


def note(title: str, kind: str = "feedback", body: str = "") -> str:
    return NATIVE.format(title=title, hook=f"when {title}", kind=kind, body=body or title)


def folder(path: Path, notes: dict[str, str], index: str | None = None) -> Path:
    """A memory folder as Claude Code writes it: notes and a flat index of pointers."""
    path.mkdir(parents=True)
    for name, text in notes.items():
        (path / name).write_text(text)
    if index is None:
        index = "".join(f"- [{n[:-3]}]({n}) — why\n" for n in notes)
    (path / "MEMORY.md").write_text(index)
    return path


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but the backups, by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".engramory" not in p.parts
    }


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    source = folder(
        tmp_path / "old" / "memory",
        {
            "feedback_tabs.md": note("Tabs"),
            "user_role.md": note("Role", "user"),
            "project_deploy.md": note("Deploy", "project"),
        },
        "- [Use tabs](feedback_tabs.md) — how we indent\n- [Role](user_role.md) — who\n",
    )
    target = folder(
        tmp_path / "new" / "memory",
        {"user_role.md": note("Role", "user"), "feedback_tabs.md": note("Spaces")},
    )
    return source, target


def backup_id(out: str) -> str:
    found = re.search(r"undo: engramory merge --undo (\S+)", out)
    assert found, out
    return found.group(1)


def test_the_plan_writes_nothing(cli, pair) -> None:
    source, target = pair
    before = (tree(source), tree(target))
    result = cli("merge", str(source), str(target))
    assert result.code == 0, result
    assert "would merge 1 feedback, 1 project" in result.out
    assert "feedback_tabs.md -> feedback_tabs-2.md" in result.out
    assert "user_role.md = user_role.md" in result.out
    assert "nothing written" in result.out
    assert (tree(source), tree(target)) == before
    assert not (target / ".engramory").exists()


def test_apply_copies_bytes_renames_collisions_and_skips_duplicates(cli, pair) -> None:
    source, target = pair
    before = tree(source)
    result = cli("merge", str(source), str(target), "--apply")
    assert result.code == 0, result
    assert tree(source) == before  # FROM untouched
    assert (target / "feedback_tabs-2.md").read_bytes() == (
        source / "feedback_tabs.md"
    ).read_bytes()
    assert (target / "project_deploy.md").read_bytes() == (
        source / "project_deploy.md"
    ).read_bytes()
    assert (target / "feedback_tabs.md").read_text() == note("Spaces")  # never overwritten
    index = (target / "MEMORY.md").read_text()
    assert index.endswith(  # flat, as the host writes it; FROM's title and hook kept
        "- [Use tabs](feedback_tabs-2.md) — how we indent\n"
        "- [Deploy](project_deploy.md) — when Deploy\n"
    )
    assert "## " not in index


def test_undo_gives_back_the_exact_bytes(cli, pair) -> None:
    source, target = pair
    before = tree(target)
    applied = cli("merge", str(source), str(target), "--apply")
    assert tree(target) != before
    undone = cli("merge", "--undo", backup_id(applied.out), str(target))
    assert undone.code == 0, undone
    assert tree(target) == before


def test_pointers_go_under_the_type_sections_of_a_sectioned_index(cli, tmp_path) -> None:
    source = folder(tmp_path / "a", {"feedback_x.md": note("X")})
    target = folder(
        tmp_path / "b",
        {"user_y.md": note("Y", "user")},
        "# Memory\n\n## feedback\n\n## user\n- [Y](user_y.md) — who\n",
    )
    assert cli("merge", str(source), str(target), "--apply").code == 0
    assert (target / "MEMORY.md").read_text() == (
        "# Memory\n\n## feedback\n- [feedback_x](feedback_x.md) — why\n\n"
        "## user\n- [Y](user_y.md) — who\n"
    )


def test_pointers_over_the_hard_cap_are_refused(cli, tmp_path) -> None:
    notes = {f"user_n{i}.md": note(f"N{i}", "user") for i in range(12)}
    source = folder(tmp_path / "a", notes)
    target = folder(tmp_path / "b", {"user_keep.md": note("Keep", "user")})
    before = tree(target)
    result = cli("merge", str(source), str(target), "--apply", "--hard-lines", "8")
    assert result.code == 1
    assert "would take MEMORY.md over its hard cap" in result.err
    assert "Nothing was written" in result.err
    assert tree(target) == before


def test_archive_overflow_archives_what_does_not_fit(cli, tmp_path) -> None:
    notes = {f"user_n{i}.md": note(f"N{i}", "user") for i in range(12)}
    source = folder(tmp_path / "a", notes)
    target = folder(tmp_path / "b", {"user_keep.md": note("Keep", "user")})
    args = ("--hard-lines", "8", "--warn-lines", "6", "--archive-overflow", "--format", "json")
    result = cli("merge", str(source), str(target), "--apply", *args)
    assert result.code == 0, result
    data = json.loads(result.out)
    assert len(data["notes"]) == 5 and len(data["archived"]) == 7
    assert len((target / "MEMORY.md").read_text().splitlines()) == 6
    assert all((target / rel).is_file() for rel in data["archived"])
    assert all(rel.startswith("archive/") for rel in data["archived"])


def test_remove_source_renames_from_and_never_deletes_it(cli, pair) -> None:
    source, target = pair
    before = tree(source)
    result = cli("merge", str(source), str(target), "--apply", "--remove-source")
    assert result.code == 0, result
    assert not source.exists()
    moved = [p for p in source.parent.iterdir() if p.name.startswith("memory.merged-")]
    assert len(moved) == 1 and re.fullmatch(r"memory\.merged-\d{4}-\d{2}-\d{2}", moved[0].name)
    assert tree(moved[0]) == before


def test_remove_source_with_nothing_to_write_promises_no_undo(cli, tmp_path) -> None:
    """Every note a duplicate: no backup, no undo ID, so the report may not say that
    ``merge --undo`` renames FROM back; it says to rename it back by hand."""
    source = folder(tmp_path / "old" / "memory", {"user_role.md": note("Role", "user")})
    target = folder(tmp_path / "new" / "memory", {"user_role.md": note("Role", "user")})
    result = cli("merge", str(source), str(target), "--apply", "--remove-source")
    assert result.code == 0, result
    assert "undo: engramory merge" not in result.out + result.err
    assert "merge --undo renames it back" not in result.out
    assert "no undo" in result.out and "rename it back by hand" in result.out
    assert not source.exists()


def test_remove_source_without_apply_only_says_it(cli, pair) -> None:
    source, target = pair
    result = cli("merge", str(source), str(target), "--remove-source")
    assert "FROM would be renamed" in result.out and source.is_dir()


def test_a_note_holding_a_secret_is_never_copied(cli, tmp_path) -> None:
    key = "AKIA" + "QWERTYUIOPASDFGH"[::-1]
    source = folder(tmp_path / "a", {"reference_aws.md": note("Aws", "reference", f"key {key}")})
    target = folder(tmp_path / "b", {})
    result = cli("merge", str(source), str(target), "--apply")
    assert result.code == 0
    assert "reference_aws.md: secret" in result.out and key not in result.out
    assert not (target / "reference_aws.md").exists()


def test_default_target_is_the_current_projects_claude_folder(cli, tmp_path, monkeypatch) -> None:
    config = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    source = folder(tmp_path / "old", {"user_a.md": note("A", "user")})
    result = cli("merge", str(source), "--apply")
    assert result.code == 0, result
    key = re.sub(r"[^A-Za-z0-9]", "-", str(project.resolve()))
    made = config / "projects" / key / "memory"
    assert (made / "user_a.md").read_bytes() == (source / "user_a.md").read_bytes()
    assert (made / "MEMORY.md").read_text() == "- [user_a](user_a.md) — why\n"


def test_the_same_folder_is_refused(cli, pair) -> None:
    source, _target = pair
    result = cli("merge", str(source), str(source))
    assert result.code == 1 and "nothing to merge" in result.err


def test_a_missing_from_is_exit_66(cli, tmp_path) -> None:
    assert cli("merge", str(tmp_path / "nope"), str(tmp_path)).code == 66


# --- properties: every FROM note is accounted for, and undo is exact ----------------------

NAMES = st.sampled_from(["user_a", "user_A", "feedback_b", "project_c", "reference_d", "user_a-2"])
BODIES = st.sampled_from(["one", "two", "three"])
FOLDER = st.dictionaries(NAMES, BODIES, max_size=5)


def run_quietly(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    return code, out.getvalue()


@settings(max_examples=40, deadline=None)
@given(source_notes=FOLDER, target_notes=FOLDER)
def test_every_note_is_copied_or_a_duplicate_and_undo_is_exact(
    source_notes: dict[str, str], target_notes: dict[str, str]
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        texts = {f"{n}.md": note(n, "user", body) for n, body in source_notes.items()}
        kept = {f"{n}.md": note(n, "user", body) for n, body in target_notes.items()}
        source = folder(root / "a", _one_per_case(texts))
        target = folder(root / "b", _one_per_case(kept))
        before = (tree(source), tree(target))
        code, out = run_quietly("merge", str(source), str(target), "--apply", "--format", "json")
        assert code == 0, out
        data = json.loads(out)
        after = tree(target)
        copied = {entry["source"]: entry["as"] for entry in data["renamed"]}
        for name in tree(source):
            if name == "MEMORY.md":
                continue
            landed = copied.get(name, name)
            duplicate = [d for d in data["duplicates"] if d["source"] == name]
            assert duplicate or after[landed] == before[0][name], name
            if duplicate:
                assert after[duplicate[0]["same_as"]] == before[0][name]
        assert tree(source) == before[0]
        if data["backup"] is not None:
            code, _out = run_quietly("merge", "--undo", data["backup"], str(target))
            assert code == 0
        assert tree(target) == before[1]


def _one_per_case(files: dict[str, str]) -> dict[str, str]:
    """The files a case-insensitive file system could hold together (the first of each)."""
    seen: dict[str, str] = {}
    for name in files:
        seen.setdefault(name.casefold(), name)
    return {name: files[name] for name in seen.values()}


def test_undo_renames_a_removed_source_back(cli, pair) -> None:
    source, target = pair
    before = tree(source)
    applied = cli("merge", str(source), str(target), "--apply", "--remove-source")
    assert applied.code == 0 and not source.exists()
    undone = cli("merge", "--undo", backup_id(applied.out), str(target))
    assert undone.code == 0, undone
    assert f"FROM renamed back: {source}.merged-" in undone.out
    assert tree(source) == before
    assert not [p for p in source.parent.iterdir() if ".merged-" in p.name]


def test_undo_leaves_the_renamed_source_when_its_name_is_taken_again(cli, pair) -> None:
    source, target = pair
    applied = cli("merge", str(source), str(target), "--apply", "--remove-source")
    source.mkdir()  # a new folder of that name since the merge
    (source / "MEMORY.md").write_text("- new\n")
    undone = cli("merge", "--undo", backup_id(applied.out), str(target))
    assert undone.code == 0, undone
    assert "exists again; rename it by hand" in undone.out
    assert (source / "MEMORY.md").read_text() == "- new\n"
    assert len([p for p in source.parent.iterdir() if ".merged-" in p.name]) == 1


def test_a_forged_rename_record_renames_nothing(cli, pair, tmp_path) -> None:
    source, target = pair
    applied = cli("merge", str(source), str(target), "--apply")
    victim = tmp_path / "elsewhere"
    victim.mkdir()
    record = target / ".engramory" / "backup" / backup_id(applied.out) / "merge-source.json"
    record.write_text(json.dumps({"from": str(tmp_path / "stolen"), "renamed_to": str(victim)}))
    undone = cli("merge", "--undo", backup_id(applied.out), str(target))
    assert undone.code == 0, undone
    assert victim.is_dir() and not (tmp_path / "stolen").exists()
    assert "renamed back" not in undone.out


@pytest.mark.parametrize(
    "record",
    [
        b"",
        b"[]",
        b'{"from": "relative/memory", "renamed_to": "relative/memory.merged-2026-12-04"}',
        b'{"from": "/a/memory", "renamed_to": "/b/memory.merged-2026-12-04"}',
        b'{"from": "/a/memory", "renamed_to": "/a/other.merged-2026-12-04"}',
        b'{"from": "/a/../memory", "renamed_to": "/a/../memory.merged-x"}',
        b'{"from": "/a/memory", "renamed_to": 3}',
        b"\xff\xfe",
    ],
)
def test_only_a_record_merge_could_write_is_read(record: bytes) -> None:
    from engramory.interop import merge as merging

    assert merging.read_source_record(record) is None


def test_the_record_merge_writes_reads_back() -> None:
    from engramory.interop import merge as merging

    written = merging.source_record("/a/memory", "/a/memory.merged-2026-12-04-2")
    assert merging.read_source_record(written) == ("/a/memory", "/a/memory.merged-2026-12-04-2")
