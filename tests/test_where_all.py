"""``engramory where claude --all`` (issue 39): every memory folder, with its project, its git
identity and the flags orphaned, split and moved, on layouts copied from Claude Code's."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engramory.history import projectrecord
from engramory.history.gitidentity import without_credentials
from engramory.history.memoryfolders import project_of_key

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "-c", "init.defaultBranch=main"]


def key_of(path: Path | str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    monkeypatch.setenv("ENGRAMORY_STATE_DIR", str(tmp_path / "state"))
    return folder


def memory_folder(config: Path, key: str, notes: int = 1, cwd: str | None = None) -> Path:
    """``<config>/projects/<key>/memory`` with ``notes`` notes and an index, and a session
    transcript recording ``cwd`` (after a first record without one, as the host writes)."""
    memory = config / "projects" / key / "memory"
    memory.mkdir(parents=True)
    lines = []
    for number in range(notes):
        (memory / f"note_{number}.md").write_text(
            f"---\nname: Note {number}\ndescription: d\ntype: user\n---\n\nbody {number}\n"
        )
        lines.append(f"- [Note {number}](note_{number}.md) — d")
    (memory / "MEMORY.md").write_text("\n".join(lines) + "\n")
    if cwd is not None:
        records = [{"type": "summary"}, {"type": "user", "cwd": cwd, "sessionId": "s1"}]
        (memory.parent / "s1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return memory


def git_repo(path: Path, remote: str | None = None) -> str:
    path.mkdir(parents=True)
    subprocess.run([*GIT, "init", "-q", str(path)], check=True)
    subprocess.run([*GIT, "-C", str(path), "commit", "-q", "--allow-empty", "-m", "1"], check=True)
    if remote:
        subprocess.run([*GIT, "-C", str(path), "remote", "add", "origin", remote], check=True)
    out = subprocess.run(
        [*GIT, "-C", str(path), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    )
    return out.stdout.strip()


def folders(cli) -> dict[str, dict]:
    result = cli("where", "claude", "--all", "--format", "json")
    assert result.code == 0, result
    return {f["key"]: f for f in json.loads(result.out)["folders"]}


def test_a_folder_whose_session_path_exists_is_not_flagged(cli, tmp_path: Path, config) -> None:
    project = tmp_path / "app"
    project.mkdir()
    memory_folder(config, key_of(project), notes=2, cwd=str(project / "src"))
    found = folders(cli)[key_of(project)]
    assert found["project"] == str(project)  # the session began in a sub-folder
    assert (found["project_from"], found["project_exists"]) == ("session", True)
    assert found["session_cwd"] == str(project / "src")
    assert found["notes"] == 2 and found["index"]["lines"] == 2
    assert found["flags"] == [] and found["merge"] is None


def test_without_record_an_orphan_is_only_orphaned(cli, tmp_path: Path, config) -> None:
    gone = tmp_path / "old-app"
    memory_folder(config, key_of(gone), cwd=str(gone))
    (tmp_path / "app").mkdir()  # a folder of a like name is not a guess
    memory_folder(config, key_of(tmp_path / "app"), cwd=str(tmp_path / "app"))
    found = folders(cli)[key_of(gone)]
    assert found["flags"] == ["orphaned"]
    assert found["moved_to"] is None and found["root_commit"] is None


def test_a_folder_with_no_session_and_no_record_has_no_project(cli, config) -> None:
    memory_folder(config, "-somewhere-else")
    found = folders(cli)["-somewhere-else"]
    assert (found["project"], found["project_exists"], found["flags"]) == (None, None, [])


@needs_git
def test_a_moved_project_is_orphaned_and_moved(cli, tmp_path: Path, config) -> None:
    old = tmp_path / "code" / "app"
    git_repo(old, "https://ann:secret-token@example.com/ann/app.git")
    assert cli("where", "claude", "--project-root", str(old)).code == 0  # recorded here
    memory_folder(config, key_of(old), notes=3, cwd=str(old))
    new = tmp_path / "work" / "app"
    new.parent.mkdir()
    old.rename(new)
    memory_folder(config, key_of(new), notes=1, cwd=str(new))
    found = folders(cli)
    orphan = found[key_of(old)]
    assert orphan["flags"] == ["orphaned", "split", "moved"]
    assert orphan["moved_to"] == str(new) and orphan["git_from"] == "record"
    assert orphan["remote"] == "https://example.com/ann/app.git"  # credentials never kept
    assert orphan["merge"] == f"engramory merge {config}/projects/{key_of(old)}/memory " + str(
        config / "projects" / key_of(new) / "memory"
    )
    assert found[key_of(new)]["flags"] == ["split"]
    text = cli("where", "claude", "--all").out
    assert "[orphaned, split, moved]" in text and f"moved: the project is now at {new}" in text
    assert "secret-token" not in text


@needs_git
def test_a_project_cloned_twice_is_split_by_root_commit(cli, tmp_path: Path, config) -> None:
    first = tmp_path / "a" / "app"
    git_repo(first)
    second = tmp_path / "b" / "app"
    subprocess.run([*GIT, "clone", "-q", str(first), str(second)], check=True)
    subprocess.run([*GIT, "-C", str(second), "remote", "remove", "origin"], check=True)
    memory_folder(config, key_of(first), cwd=str(first))
    memory_folder(config, key_of(second), cwd=str(second))
    found = folders(cli)
    assert found[key_of(first)]["flags"] == ["split"]
    assert found[key_of(first)]["split_with"] == [key_of(second)]
    assert found[key_of(second)]["root_commit"] == found[key_of(first)]["root_commit"]


def test_a_windows_key_next_to_a_posix_one(cli, tmp_path: Path, config) -> None:
    project = tmp_path / "app"
    project.mkdir()
    windows = "C:\\Users\\ann\\app"
    memory_folder(config, key_of(windows), cwd=windows + "\\src")
    memory_folder(config, key_of(project), cwd=str(project))
    found = folders(cli)
    assert found["C--Users-ann-app"]["project"] == windows
    assert found["C--Users-ann-app"]["flags"] == ["orphaned"]  # not guessed from the name
    assert found[key_of(project)]["flags"] == []


def test_sessions_with_the_same_cwd_split_two_folders(cli, tmp_path: Path, config) -> None:
    project = tmp_path / "app"
    project.mkdir()
    memory_folder(config, key_of(project), cwd=str(project))
    memory_folder(config, "C--Users-ann-app", cwd=str(project))  # filed under another key
    found = folders(cli)
    assert found["C--Users-ann-app"]["flags"] == ["split"]
    assert found[key_of(project)]["split_with"] == ["C--Users-ann-app"]


def test_a_transcript_is_read_only_up_to_its_bound(cli, tmp_path: Path, config) -> None:
    project = tmp_path / "app"
    project.mkdir()
    memory = memory_folder(config, key_of(project))
    filler = json.dumps({"type": "x", "text": "y" * 300}) + "\n"
    late = json.dumps({"cwd": str(project)}) + "\n"
    (memory.parent / "big.jsonl").write_text(filler * 2000 + late)
    assert folders(cli)[key_of(project)]["session_cwd"] is None


def test_project_of_key_takes_the_parent_the_key_names() -> None:
    assert project_of_key("-a-b", "/a/b/c/d") == "/a/b"
    assert project_of_key("C--x-y", "C:\\x\\y\\z") == "C:\\x\\y"
    assert project_of_key("-other", "/a/b") == "/a/b"


def test_credentials_are_cut_from_a_remote() -> None:
    assert without_credentials("https://u:p@h.example/r.git") == "https://h.example/r.git"
    assert without_credentials("git@github.com:o/r.git") == "git@github.com:o/r.git"


# --- the projects record -------------------------------------------------------------------


def test_where_records_the_project_private_and_once_a_day(cli, tmp_path: Path, config) -> None:
    project = tmp_path / "app"
    project.mkdir()
    assert cli("where", "claude", "--project-root", str(project)).code == 0
    record = tmp_path / "state" / "projects.json"
    assert (record.stat().st_mode & 0o777, record.parent.stat().st_mode & 0o777) == (0o600, 0o700)
    entry = json.loads(record.read_text())["projects"][0]
    assert entry["path"] == str(project) and entry["key"] == key_of(project)
    before = record.stat().st_mtime_ns
    os.utime(record, ns=(before - 10**9, before - 10**9))
    assert cli("where", "claude", "--project-root", str(project)).code == 0
    assert record.stat().st_mtime_ns == before - 10**9  # nothing changed: not rewritten


@pytest.mark.parametrize("junk", [b"{not json", b"[1, 2]", b'{"projects": [{"path": 3}]}'])
def test_a_corrupt_record_is_ignored_and_rebuilt(cli, tmp_path: Path, config, junk) -> None:
    record = tmp_path / "state" / "projects.json"
    record.parent.mkdir()
    record.write_bytes(junk)
    assert projectrecord.load() == {}
    project = tmp_path / "app"
    project.mkdir()
    assert cli("where", "claude", "--project-root", str(project)).code == 0
    assert [p["path"] for p in json.loads(record.read_text())["projects"]] == [str(project)]


def test_a_record_entry_with_a_relative_or_nul_path_is_dropped(
    cli, tmp_path: Path, config, monkeypatch
) -> None:
    """The record holds absolute paths only; ``.`` would be read against the current folder,
    so an orphan showed as moved there, with a merge hint into the current project's folder."""
    orphan = tmp_path / "gone"
    memory_folder(config, key_of(orphan), notes=1)
    memory_folder(config, "-rel", notes=1)
    commit = "a" * 40
    entries = [
        {"path": str(orphan), "key": key_of(orphan), "root_commit": commit, "last_seen": "x"},
        {"path": ".", "key": "-rel", "root_commit": commit, "last_seen": "y"},
        {"path": "rel/dir", "key": "-rel2", "root_commit": commit},
        {"path": "/a\u0000b", "key": "-nul", "root_commit": commit},
    ]
    record = tmp_path / "state" / "projects.json"
    record.parent.mkdir()
    record.write_text(json.dumps({"schema_version": 1, "projects": entries}))
    assert list(projectrecord.load()) == [str(orphan)]
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    found = folders(cli)[key_of(orphan)]
    assert found["moved_to"] is None and found["merge"] is None
    assert "moved" not in found["flags"]


def test_a_record_that_is_a_symlink_is_not_read(tmp_path: Path, config) -> None:
    (tmp_path / "state").mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"projects": [{"path": "/x", "key": "-x"}]}')
    (tmp_path / "state" / "projects.json").symlink_to(elsewhere)
    assert projectrecord.load() == {}


def test_concurrent_writers_keep_every_project(tmp_path: Path, config) -> None:
    script = (
        "import sys\nfrom engramory.history import projectrecord as r\n"
        "for i in range(15):\n"
        "    r.update(r.Project(f'/p/{sys.argv[1]}-{i}', 'k', None, None, r.today()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    runs = [subprocess.Popen(["python3", "-c", script, str(n)], env=env) for n in range(4)]
    assert [run.wait(timeout=60) for run in runs] == [0, 0, 0, 0]
    assert len(projectrecord.load()) == 60


def test_recording_never_fails_the_command(cli, tmp_path: Path, config, monkeypatch) -> None:
    (tmp_path / "blocker").write_text("a file where the state folder should be")
    monkeypatch.setenv("ENGRAMORY_STATE_DIR", str(tmp_path / "blocker" / "state"))
    project = tmp_path / "app"
    project.mkdir()
    assert projectrecord.remember(project) is None
    assert cli("where", "claude", "--project-root", str(project)).code == 0


def test_doctor_and_the_session_start_hook_record_the_project(
    cli, tmp_path: Path, config, monkeypatch
) -> None:
    project = tmp_path / "app"
    store = project / ".engramory-memory"
    store.mkdir(parents=True)
    (store / "MEMORY.md").write_text("# Memory\n")
    monkeypatch.chdir(project)
    cli("doctor", str(store))
    assert list(projectrecord.load()) == [str(project)]
    other = tmp_path / "other"
    other.mkdir()
    from engramory.continuity.policy import handle

    payload = {"hook_event_name": "SessionStart", "session_id": "s1", "cwd": str(other)}
    handle(payload, store, "claude", "explicit")
    assert sorted(projectrecord.load()) == [str(project), str(other)]


@needs_git
def test_doctor_names_the_orphaned_folder_of_a_moved_project(
    cli, tmp_path: Path, config, monkeypatch
) -> None:
    old = tmp_path / "code" / "app"
    git_repo(old)
    assert cli("where", "claude", "--project-root", str(old)).code == 0
    orphan = memory_folder(config, key_of(old), cwd=str(old))
    new = tmp_path / "work" / "app"
    new.parent.mkdir()
    old.rename(new)
    here = memory_folder(config, key_of(new), cwd=str(new))
    monkeypatch.chdir(new)
    result = cli("doctor", "--native", "--format", "json")
    found = [f for f in json.loads(result.out)["findings"] if f["rule"] == "memory-elsewhere"]
    assert len(found) == 1 and found[0]["severity"] == "info"
    assert f"also in {orphan} (orphaned: its project {old} no longer exists)" in found[0]["message"]
    assert f"`engramory merge {orphan} {here}`" in found[0]["message"]


def test_doctor_is_quiet_on_a_project_with_one_folder(
    cli, tmp_path: Path, config, monkeypatch
) -> None:
    project = tmp_path / "app"
    project.mkdir()
    memory_folder(config, key_of(project), cwd=str(project))
    monkeypatch.chdir(project)
    result = cli("doctor", "--native", "--format", "json")
    assert not [f for f in json.loads(result.out)["findings"] if f["rule"] == "memory-elsewhere"]


def test_a_huge_cwd_is_not_taken(cli, tmp_path: Path, config) -> None:
    memory_folder(config, "-x", cwd="/" + "a" * 5000)
    assert folders(cli)["-x"]["session_cwd"] is None


@needs_git
def test_moved_to_a_project_with_no_folder_yet_is_found_in_the_record(
    cli, tmp_path: Path, config
) -> None:
    old = tmp_path / "code" / "app"
    git_repo(old)
    assert cli("where", "claude", "--project-root", str(old)).code == 0
    memory_folder(config, key_of(old), cwd=str(old))
    new = tmp_path / "work" / "app"
    new.parent.mkdir()
    old.rename(new)
    assert cli("where", "claude", "--project-root", str(new)).code == 0  # seen at its new path
    found = folders(cli)[key_of(old)]
    assert found["flags"] == ["orphaned", "moved"] and found["moved_to"] == str(new)
    target = config / "projects" / key_of(new) / "memory"
    assert found["merge"] == f"engramory merge {config}/projects/{key_of(old)}/memory {target}"
