"""`engramory import claude-memory`: adopting Claude Code's native auto-memory folder (issue 18)
on copies of corpus stores in the host's dialect; the source is never modified."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from test_import_memoir import snapshot

from doctorkit import doctor, valid_store
from engramory.interop import claude_import
from engramory.interop.importer import SourceFile
from engramory.store import automemory
from engramory.store.frontmatter import parse
from engramory.write.filedates import FileDates

CORPUS = Path(__file__).resolve().parent / "corpus" / "stores"
NESTED = CORPUS / "03-hydross77__leasing"  # metadata: type, no dates, 5 notes not indexed
MIXED = CORPUS / "06-1000ssam__claude-config"  # originSessionId, a bare file, a quoting slip
MTIME = datetime(2026, 3, 4, 12, 0, 0).timestamp()


def copy_source(store: Path, tmp_path: Path) -> Path:
    target = tmp_path / "native"
    shutil.copytree(store, target, symlinks=True)
    for path in target.rglob("*"):
        os.utime(path, (MTIME, MTIME), follow_symlinks=False)
    return target


def errors(root: Path) -> list[str]:
    return [f"{f.path}: {f.rule}" for f in doctor(root).findings if f.severity == "error"]


def body_of(text: str) -> str:
    return parse(text).body


@pytest.mark.parametrize("corpus_store", [NESTED, MIXED], ids=lambda p: p.name[:2])
def test_native_store_adopted_note_for_note(cli, tmp_path: Path, corpus_store: Path) -> None:
    source = copy_source(corpus_store, tmp_path)
    before = snapshot(source)
    store = tmp_path / "store"
    result = cli("import", "claude-memory", str(source), "--store", str(store), "--format", "json")
    assert result.code == 0, result
    report = json.loads(result.out)
    assert snapshot(source) == before  # bytes, modes and mtimes of the source unchanged
    notes = sorted(p.name for p in source.glob("*.md") if p.name != "MEMORY.md")
    assert sorted(report["notes"]) == notes  # no note lost
    assert report["skipped"] == {}
    assert errors(store) == []
    for name in notes:
        original = (source / name).read_text(encoding="utf-8")
        fields = parse((store / name).read_text(encoding="utf-8")).fields
        assert fields["type"] in ("user", "feedback", "project", "reference")
        assert "metadata" not in fields
        assert fields["created"] == fields["updated"] == "2026-03-04"  # the file's date
        if parse(original).present:
            assert body_of((store / name).read_text(encoding="utf-8")) == body_of(original)
            for key in ("originSessionId", "node_type"):
                assert fields.get(key) == parse(original).fields.get(key)
        else:
            assert body_of((store / name).read_text(encoding="utf-8")) == original
    assert {d["from"] for d in report["dates"]} == {"mtime"}


def test_nested_type_flattened_and_host_hooks_kept(cli, tmp_path: Path) -> None:
    source = copy_source(NESTED, tmp_path)
    store = tmp_path / "store"
    assert cli("import", "claude-memory", str(source), "--store", str(store)).code == 0
    text = (store / "feedback_workflow.md").read_text(encoding="utf-8")
    assert text.startswith(
        "---\nname: feedback_workflow\ndescription: Préférence utilisateur — avancer sans "
        "s'arrêter sur les clarifications, trancher et corriger ensuite\ntype: feedback\n"
        "created: 2026-03-04\nupdated: 2026-03-04\n---\n"
    )
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert (
        "- [Préférences de collaboration](feedback_workflow.md) — avancer sans s'arrêter sur "
        "les questions de clarification, trancher et corriger ensuite"
    ) in index
    feedback = index.split("## feedback")[1].split("##")[0]
    assert "feedback_workflow.md" in feedback
    # a note the host's index did not list gets a pointer from its description
    assert "(project_auth_dashboard.md)" in index


def test_origin_session_id_kept_under_the_key_the_doctor_knows(cli, tmp_path: Path) -> None:
    source = copy_source(MIXED, tmp_path)
    store = tmp_path / "store"
    assert cli("import", "claude-memory", str(source), "--store", str(store)).code == 0
    fields = parse((store / "feedback_branch-policy-strict.md").read_text(encoding="utf-8")).fields
    assert fields["originSessionId"] == "89dfab34-1de0-4da5-8f71-a42bbfe0e98f"
    assert fields["name"] == "feedback_branch-policy-strict"  # name: "" -> the file's name
    unknown = [f for f in doctor(store).findings if f.rule == "unknown-key"]
    assert unknown == []
    quoted = parse((store / "feedback_pass-means-merge.md").read_text(encoding="utf-8")).fields
    assert quoted["name"].startswith('"통과" 한마디')


def test_default_folder_is_this_projects_auto_memory(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    project = tmp_path / "app"
    project.mkdir()
    folder = automemory.resolve(project).path
    folder.parent.mkdir(parents=True)
    shutil.copytree(NESTED, folder)
    monkeypatch.chdir(project)
    result = cli("import", "claude-memory", "--format", "json")
    assert result.code == 0, result
    report = json.loads(result.out)
    assert report["store"] == str(project.resolve() / ".engramory-memory")
    assert len(report["notes"]) == 20


def test_no_auto_memory_folder_is_66(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("import", "claude-memory", "--store", str(tmp_path / "s"))
    assert result.code == 66, result
    assert "give the folder as DIR" in result.err
    assert not (tmp_path / "s").exists()


def test_store_that_is_the_source_folder_is_refused(cli, tmp_path: Path) -> None:
    source = copy_source(NESTED, tmp_path)
    before = snapshot(source)
    result = cli("import", "claude-memory", str(source), "--store", str(source))
    assert result.code == 1, result
    assert "init claude --native" in result.err
    assert snapshot(source) == before


def test_collisions_over_cap_and_overflow(cli, tmp_path: Path) -> None:
    source = copy_source(NESTED, tmp_path)
    store = valid_store(tmp_path / "store")
    (store / "User_Role.md").write_text(
        (store / "user-role.md").read_text(encoding="utf-8").replace("user-role", "User_Role"),
        encoding="utf-8",
    )
    index = store / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8") + "- [r](User_Role.md) — r\n", "utf-8")
    before = snapshot(store)
    refused = cli(
        "import", "claude-memory", str(source), "--store", str(store), "--hard-lines", "30"
    )
    assert refused.code == 1 and "of 19 fit" in refused.err, refused
    assert snapshot(store) == before
    result = cli(
        "import", "claude-memory", str(source), "--store", str(store), "--archive-overflow",
        "--warn-lines", "25", "--hard-lines", "30", "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result
    report = json.loads(result.out)
    assert report["skipped"] == {"collision": 1}
    assert len(report["notes"]) + len(report["archived"]) == 19
    assert len(index.read_text(encoding="utf-8").split("\n")) - 1 <= 25
    assert errors(store) == []


def test_frontmatter_error_is_listed_not_fatal(cli, tmp_path: Path) -> None:
    source = tmp_path / "native"
    source.mkdir()
    (source / "broken.md").write_text("---\nname: b\nno colon here\n---\nx\n", encoding="utf-8")
    (source / "user_ok.md").write_text("---\nname: ok\ndescription: d\n---\nok\n", "utf-8")
    result = cli("import", "claude-memory", str(source), "--store", str(tmp_path / "s"))
    assert result.code == 0, result
    assert "broken.md: frontmatter-error (line 3" in result.out
    fields = parse((tmp_path / "s" / "user_ok.md").read_text(encoding="utf-8")).fields
    assert fields["type"] == "user"  # no type: from the file name's prefix


def test_index_hooks_read_the_host_lines() -> None:
    hooks = claude_import.index_hooks(
        "# Memory\n- [Role](user_role.md) — the user's role\n* [T](./x.md): hook\n"
        "- [Out](../y.md) — no\n- [Web](https://e.com/z.md) — no\nno link\n"
    )
    assert hooks == {"user_role.md": ("Role", "the user's role"), "x.md": ("T", "hook")}


def test_map_note_reads_memoir_types_and_keeps_order() -> None:
    note = SourceFile("lesson_a.md", "---\nname: a\ntype: lesson\nmodified: x\n---\nbody\n", MTIME)
    mapped = claude_import.map_note(note, {}, lambda: FileDates("2026-03-01", "2026-03-04", "git"))
    assert mapped.note_type == "feedback"
    assert list(mapped.fields) == ["name", "description", "type", "created", "updated", "modified"]
    assert (mapped.fields["created"], mapped.fields["updated"]) == ("2026-03-01", "2026-03-04")
    assert mapped.fields["modified"] == "x" and mapped.dates_from == "git"


def test_a_secret_in_the_host_index_hook_is_redacted_or_skipped(cli, tmp_path: Path) -> None:
    key = "AKIA" + "QWERTYUIOPASDFGH"[::-1]
    source = tmp_path / "native"
    source.mkdir()
    (source / "user_a.md").write_text("---\nname: a\ndescription: d\ntype: user\n---\nx\n", "utf-8")
    (source / "MEMORY.md").write_text(f"- [A](user_a.md) — key {key}\n", encoding="utf-8")
    result = cli("import", "claude-memory", str(source), "--store", str(tmp_path / "s"))
    assert result.code == 0, result
    assert "user_a.md, its pointer: aws-access-key-id" in result.out
    index = (tmp_path / "s" / "MEMORY.md").read_text(encoding="utf-8")
    assert key not in result.out and key not in index
    assert "[redacted: aws-access-key-id]" in index
    skipped = cli(
        "import", "claude-memory", str(source), "--store", str(tmp_path / "t"), "--skip-secrets"
    )
    assert "user_a.md: secret (an AWS access key id in its pointer" in skipped.out
    assert not (tmp_path / "t" / "user_a.md").exists()
