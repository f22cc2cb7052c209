"""``engramory history`` and ``engramory restore`` with a real git (issue 37)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from historykit import make_store, needs_git, picture, place

from conftest import REPO, run_engramory
from engramory.history import alarm, gitrun, location, repo, retention, snapshot
from engramory.history.gitrun import EXIT_UNAVAILABLE

pytestmark = needs_git
AWS = "AKIA" + "QZ7Y" * 4  # the detector's shape, not a real key


def ids(store: Path) -> list[str]:
    return [s.id for s in repo.log(place(store))]


def test_a_snapshot_is_taken_only_when_something_changed(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 3)
    first = cli("history", "snapshot", str(store))
    assert first.code == 0 and "snapshot " in first.out
    again = cli("history", "snapshot", str(store))
    assert again.code == 0 and "nothing changed" in again.out
    assert len(ids(store)) == 1
    (store / "note-001.md").write_text("changed\n")
    assert cli("history", "snapshot", str(store), "--reason", "edited by hand").code == 0
    listed = json.loads(cli("history", str(store), "--format", "json").out)["snapshots"]
    assert [s["reason"] for s in listed] == ["edited by hand", "manual snapshot"]
    assert (listed[0]["added"], listed[0]["removed"], listed[0]["changed"]) == (0, 0, 1)
    assert listed[1]["added"] == 3 and listed[1]["index_lines"] == "- -> 6"


def test_the_store_is_byte_identical_after_every_snapshot(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 5)
    (store / "archive").mkdir()
    (store / "archive" / "old.md").write_text("retired\n")
    (store / ".engramory").mkdir()
    before = picture(store)
    for _ in range(2):
        assert cli("history", "snapshot", str(store)).code == 0
        assert picture(store) == before
    (store / "note-002.md").unlink()
    before = picture(store)
    assert cli("history", "snapshot", str(store)).code == 0
    assert picture(store) == before


def test_history_lives_outside_the_store_private_and_names_it(tmp_path: Path) -> None:
    store = make_store(tmp_path / "my store", 1)
    snapshot.take(place(store), "first")
    where = Path(place(store).git_dir)
    assert where.parent == Path(os.environ["XDG_STATE_HOME"]) / "engramory" / "history"
    assert where.name.startswith("my-store-") and where.name.endswith(".git")
    assert (where / location.STORE_RECORD).read_text() == f"{store.resolve()}\n"
    assert oct(where.stat().st_mode & 0o777) == oct(0o700)
    assert oct(where.parent.stat().st_mode & 0o777) == oct(0o700)


def test_history_dir_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAMORY_HISTORY_DIR", str(tmp_path / "elsewhere"))
    store = make_store(tmp_path / "store", 1)
    snapshot.take(place(store), "first")
    assert Path(place(store).git_dir).parent == tmp_path / "elsewhere"


def test_hidden_folders_and_symlinks_are_not_kept(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 1)
    (store / ".engramory").mkdir()
    (store / ".engramory" / "x.md").write_text("backup\n")
    outside = tmp_path / "outside.md"
    outside.write_text("not the store's\n")
    (store / "link.md").symlink_to(outside)
    (store / "archive").mkdir()
    (store / "archive" / "old.md").write_text("retired\n")
    result = snapshot.take(place(store), "first")
    files = repo.tree(place(store), result.commit)
    assert sorted(files) == ["MEMORY.md", "archive/old.md", "note-000.md"]


def test_a_secret_is_redacted_in_the_snapshot_and_the_listing_says_so(cli, tmp_path) -> None:
    store = make_store(tmp_path / "store", 1)
    (store / "deploy.md").write_text(f"The deploy key is {AWS}.\n")
    assert cli("history", "snapshot", str(store)).code == 0
    head = repo.head(place(store))
    kept = cli("history", "--store", str(store), "show", head[:10], "deploy.md")
    assert kept.code == 0 and AWS not in kept.out
    assert "[redacted: aws-access-key-id]" in kept.out or "[redacted: " in kept.out
    assert "redacted" in cli("history", str(store)).out
    everything = subprocess.run(
        ["git", "--git-dir", place(store).git_dir, "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    ).stdout
    assert AWS.encode() not in everything


def test_show_and_diff(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 2)
    snapshot.take(place(store), "first")
    first = repo.head(place(store))
    (store / "note-000.md").write_text("rewritten\n")
    (store / "note-001.md").unlink()
    (store / "fresh.md").write_text("new\n")
    now = cli("history", "--store", str(store), "diff")
    assert now.code == 1
    assert "+1 -1 ~1 notes" in now.out and "+rewritten" in now.out and "-The fact 1." in now.out
    snapshot.take(place(store), "second")
    between = cli("history", "--store", str(store), "diff", first[:8], "HEAD")
    assert between.code == 1 and "+1 -1 ~1 notes" in between.out
    assert cli("history", "--store", str(store), "diff").code == 0  # nothing since the last
    listing = cli("history", "--store", str(store), "show", first[:8])
    assert "0o600  note-000.md" in listing.out and "0o644  note-001.md" in listing.out
    unknown = cli("history", "--store", str(store), "show", "0000000", "x.md")
    assert unknown.code == 1 and "no snapshot" in unknown.err


def test_mass_deletion_restored_byte_exact_with_modes(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 30)
    (store / "note-004.md").chmod(0o640)
    snapshot.take(place(store), "session start")
    then = picture(store)
    for i in range(23):
        (store / f"note-{i:03d}.md").unlink()
    plan = cli("restore", "--store", str(store), ids(store)[0][:10])
    assert plan.code == 0 and plan.out.count("comes back:") == 23
    assert "nothing written" in plan.out and len(list(store.glob("*.md"))) == 8
    applied = cli("restore", "--store", str(store), ids(store)[0][:10], "--apply")
    assert applied.code == 0, applied.err
    now = picture(store)
    assert {k: (v[0], v[2]) for k, v in now.items()} == {k: (v[0], v[2]) for k, v in then.items()}
    assert "undo: engramory restore " in applied.out


def test_restore_keeps_notes_added_since_unless_exact_and_undo_gives_the_state_back(
    cli, tmp_path: Path
) -> None:
    store = make_store(tmp_path / "store", 3)
    snapshot.take(place(store), "first")
    old = repo.head(place(store))
    (store / "later.md").write_text("added since\n")
    (store / "note-000.md").unlink()
    before = picture(store)
    kept = cli("restore", "--store", str(store), old, "--apply")
    assert "kept (added since; --exact removes it): later.md" in kept.out
    assert (store / "later.md").exists() and (store / "note-000.md").exists()
    undo = kept.out.split("undo: ", 1)[1].split()  # engramory restore ID --exact --apply
    assert cli(*undo[1:], "--store", str(store)).code == 0
    assert {k: v[2] for k, v in picture(store).items()} == {k: v[2] for k, v in before.items()}
    exact = cli("restore", "--store", str(store), old, "--exact", "--apply")
    assert exact.code == 0 and not (store / "later.md").exists()


def test_the_printed_undo_of_a_restore_with_store_names_the_store(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from elsewhere with --store, the printed undo must act on that store as printed."""
    import shlex

    store = make_store(tmp_path / "my store $(x)", 2)
    snapshot.take(place(store), "first")
    old = repo.head(place(store))
    (store / "note-000.md").write_text("edited\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    applied = cli("restore", "--store", str(store), old, "--apply")
    assert applied.code == 0, applied.err
    undo = shlex.split(applied.out.split("undo: ", 1)[1].splitlines()[0])
    assert undo[0] == "engramory" and "--store" in undo
    assert cli(*undo[1:]).code == 0
    assert (store / "note-000.md").read_text() == "edited\n"


def test_restore_over_the_cap_brings_back_only_what_fits(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 6)
    snapshot.take(place(store), "first")
    old = repo.head(place(store))
    for i in range(6):
        (store / f"note-{i:03d}.md").unlink()
    # the index now holds 3 headings and 6 other lines: 9 of a 12-line cap
    index = "# Memory index\n\n## project\n" + "".join(f"- kept line {i}\n" for i in range(6))
    (store / "MEMORY.md").write_text(index)
    result = cli("restore", "--store", str(store), old, "--apply", "--hard-lines", "12")
    assert result.code == 1
    assert result.out.count("comes back:") == 3 and result.out.count("left out") >= 3
    assert "3 notes left out" in result.out
    text = (store / "MEMORY.md").read_text()
    assert len(text.splitlines()) == 12
    assert [line for line in text.splitlines() if "kept line" in line] == [
        f"- kept line {i}" for i in range(6)
    ]
    assert text.index("## project") < text.index("note-000")  # back under its heading
    back = sorted(p.name for p in store.glob("note-*.md"))
    assert back == ["note-000.md", "note-001.md", "note-002.md"]
    assert all(f"({name})" in text for name in back)


def test_restore_refuses_a_symlinked_target_before_writing(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 3)
    snapshot.take(place(store), "first")
    old = repo.head(place(store))
    (store / "note-000.md").unlink()
    (store / "note-001.md").unlink()
    victim = tmp_path / "victim.md"
    victim.write_text("outside\n")
    (store / "note-001.md").symlink_to(victim)
    result = cli("restore", "--store", str(store), old, "--apply")
    assert result.code == 1 and "nothing was written" in result.err
    assert victim.read_text() == "outside\n" and not (store / "note-000.md").exists()


def test_restore_refuses_to_write_over_a_note_no_snapshot_can_keep(cli, tmp_path: Path) -> None:
    """A note grown over the 4 MiB read limit is not in the snapshot taken before the restore:
    writing the old version over it would lose it for good, so nothing is written."""
    store = make_store(tmp_path / "store", 2)
    snapshot.take(place(store), "first")
    old = repo.head(place(store))
    big = b"x" * (5 * 1024 * 1024)
    (store / "note-001.md").write_bytes(big)
    before = picture(store)
    for extra in ((), ("--apply",), ("--exact", "--apply")):
        result = cli("restore", "--store", str(store), old, *extra)
        assert result.code == 1 and "note-001.md" in result.err, result.err
        assert "nothing was written" in result.err
        assert (store / "note-001.md").read_bytes() == big
    assert {k: v[2] for k, v in picture(store).items()} == {k: v[2] for k, v in before.items()}
    other = cli("restore", "--store", str(store), old, "note-000.md", "--apply")
    assert other.code == 0 and (store / "note-001.md").read_bytes() == big


def test_restore_refuses_to_write_over_a_note_past_the_snapshot_file_cap(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engramory.history import capture

    store = make_store(tmp_path / "store", 2)
    (store / "archive").mkdir()
    (store / "archive" / "old.md").write_text("retired\n")
    snapshot.take(place(store), "first")
    old = repo.head(place(store))
    (store / "archive" / "old.md").write_text("edited since\n")
    monkeypatch.setattr(capture, "MAX_FILES", 2)  # the top folder fills it: archive/ unread
    result = cli("restore", "--store", str(store), old, "--apply")
    assert (
        result.code == 1 and "archive/old.md" in result.err and "nothing was written" in result.err
    )
    assert (store / "archive" / "old.md").read_text() == "edited since\n"


def test_restore_refuses_to_overwrite_or_remove_a_note_holding_a_secret(cli, tmp_path) -> None:
    """History keeps a secret only as its placeholder, so the restore's undo could not give
    back a note holding one that the restore overwrote or removed: refused, value unshown."""
    store = make_store(tmp_path / "store", 2)
    snapshot.take(place(store), "first")
    old = repo.head(place(store))
    edited = f"The deploy key is {AWS}.\n"
    (store / "note-000.md").write_text(edited)
    (store / "later.md").write_text(f"added since: {AWS}\n")
    (store / "note-001.md").unlink()
    before = picture(store)
    for extra in (("--apply",), ("note-000.md", "--apply"), ("later.md", "--exact", "--apply")):
        result = cli("restore", "--store", str(store), old, *extra)
        assert result.code == 1 and "nothing was written" in result.err, result.err
        assert "secret" in result.err and AWS not in result.err + result.out
        assert picture(store) == before
    back = cli("restore", "--store", str(store), old, "note-001.md", "--apply")
    assert back.code == 0 and (store / "note-001.md").exists()
    assert (store / "note-000.md").read_text() == edited and AWS in (store / "later.md").read_text()


def test_a_restore_that_fails_half_way_names_its_undo_without_a_traceback(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engramory.history import restore as restoring

    store = make_store(tmp_path / "store", 3)
    snapshot.take(place(store), "first")
    old = repo.head(place(store))
    for i in range(3):
        (store / f"note-{i:03d}.md").write_text(f"edited {i}\n")
    real = restoring.fsutil.write_atomic
    calls = []

    def full_disk(path, data, mode=None):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(path, data, mode)

    monkeypatch.setattr(restoring.fsutil, "write_atomic", full_disk)
    result = cli("restore", "--store", str(store), old, "--apply")
    assert result.code == 1 and "No space left on device" in result.err
    assert "engramory restore " in result.err and "--exact --apply" in result.err
    monkeypatch.setattr(restoring.fsutil, "write_atomic", real)
    undo = result.err.split("engramory restore ", 1)[1].split()[0]
    assert cli("restore", "--store", str(store), undo, "--exact", "--apply").code == 0
    assert [(store / f"note-{i:03d}.md").read_text() for i in range(3)] == [
        f"edited {i}\n" for i in range(3)
    ]


def test_no_git_on_path_says_so_and_nothing_else_changes(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 1)
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {"PATH": str(empty)}
    for args in (("history", str(store)), ("history", "snapshot", str(store)), ("restore", "x")):
        done = run_engramory(*args, env=env, cwd=store)
        assert done.returncode == EXIT_UNAVAILABLE
        assert b"git is not installed" in done.stderr and b"Traceback" not in done.stderr
    made = run_engramory(
        "new", "user", "role", "--description", "Role", "--store", str(store), env=env
    )
    assert made.returncode == 0 and made.stderr == b""


def test_a_store_path_with_spaces_quotes_and_a_command_substitution(cli, tmp_path) -> None:
    store = make_store(tmp_path / 'it\'s a "store" $(touch pwned) `touch pwned2`', 2)
    assert cli("history", "snapshot", str(store)).code == 0
    (store / "note-000.md").unlink()
    assert cli("restore", "--store", str(store), ids(store)[0], "--apply").code == 0
    assert (store / "note-000.md").exists()
    assert not list(tmp_path.rglob("pwned*")) and not list(Path.cwd().glob("pwned*"))


def test_a_global_git_config_with_hooks_signing_and_templates_is_not_used(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    hooks = tmp_path / "hooks"
    template = tmp_path / "template"
    for folder in (home, hooks, template / "hooks", home / ".config" / "git"):
        folder.mkdir(parents=True)
    marker = tmp_path / "hook-ran"
    for name in ("pre-commit", "post-commit", "reference-transaction", "post-rewrite"):
        script = hooks / name
        script.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
        script.chmod(0o755)
    (template / "from-template").write_text("copied\n")
    config = (
        f"[core]\n\thooksPath = {hooks}\n\tfsmonitor = true\n\tautocrlf = true\n"
        f"[init]\n\ttemplateDir = {template}\n\tdefaultBranch = trunk\n"
        "[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = /bin/false\n"
        "[user]\n\tname = Someone\n\temail = someone@example.com\n"
    )
    (home / ".gitconfig").write_text(config)
    (home / ".config" / "git" / "config").write_text(config)
    store = make_store(tmp_path / "store", 2)
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_DIR": str(tmp_path / "elsewhere"),
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_AUTHOR_NAME": "Someone",
    }
    for _ in range(2):
        done = run_engramory("history", "snapshot", str(store), env=env)
        assert done.returncode == 0, done.stderr
        (store / "note-000.md").write_text(f"changed {time.time()}\n")
    assert not marker.exists() and not (tmp_path / "elsewhere").exists()
    git_dir = Path(place(store).git_dir)
    assert not (git_dir / "from-template").exists() and not (git_dir / "hooks").exists()
    author = subprocess.run(
        ["git", "--git-dir", str(git_dir), "log", "-1", "--format=%an %G?", "history"],
        capture_output=True,
        check=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull},
    ).stdout.decode()
    assert author.strip() == "Engramory N"


def test_two_processes_snapshotting_at_once(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 20)
    script = (
        "import sys\nfrom pathlib import Path\nfrom engramory.history import location, snapshot\n"
        "store = Path(sys.argv[1])\n"
        "for i in range(5):\n"
        "    (store / f'by-{sys.argv[2]}-{i}.md').write_text('x')\n"
        "    snapshot.take(location.place_of(str(store)), 'race ' + sys.argv[2])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [
        subprocess.Popen([sys.executable, "-c", script, str(store), tag], env=env)
        for tag in ("a", "b")
    ]
    assert [p.wait(timeout=120) for p in runs] == [0, 0]
    git_dir = place(store).git_dir
    fsck = subprocess.run(
        ["git", "--git-dir", git_dir, "fsck", "--strict"], capture_output=True, check=False
    )
    assert fsck.returncode == 0, fsck.stderr
    newest = repo.tree(place(store), repo.head(place(store)))
    assert sum(1 for rel in newest if rel.startswith("by-")) == 10
    assert 2 <= len(ids(store)) <= 10


@pytest.mark.parametrize("damage", ["ref", "objects", "not-a-repo"])
def test_a_broken_history_names_forget_and_never_a_traceback(cli, tmp_path, damage) -> None:
    store = make_store(tmp_path / "store", 2)
    snapshot.take(place(store), "first")
    git_dir = Path(place(store).git_dir)
    if damage == "ref":
        (git_dir / "refs" / "heads" / "history").write_text("f" * 40 + "\n")
    elif damage == "objects":
        for pack in (git_dir / "objects").rglob("*"):
            if pack.is_file():
                pack.write_bytes(b"garbage")
    else:
        for child in git_dir.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()
    for args in (("history", str(store)), ("history", "snapshot", str(store))):
        result = cli(*args)
        assert result.code == 1 and "Traceback" not in result.err
        assert "engramory history forget --yes" in result.err
    assert cli("history", "forget", str(store)).code == 1  # asks for --yes
    assert git_dir.exists()
    assert cli("history", "forget", str(store), "--yes").code == 0 and not git_dir.exists()
    assert cli("history", "snapshot", str(store)).code == 0  # afresh


def test_a_deleted_history_starts_afresh(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 2)
    snapshot.take(place(store), "first")
    retention.forget(place(store))
    assert "no snapshots yet" in cli("history", str(store)).out
    assert cli("history", "snapshot", str(store)).code == 0 and len(ids(store)) == 1


def test_prune_keeps_the_newer_snapshots_with_their_trees_and_times(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 2)
    for i in range(3):
        (store / f"step-{i}.md").write_text(f"{i}\n")
        snapshot.take(place(store), f"step {i}")
    before = repo.log(place(store))
    trees = [repo.tree(place(store), s.id) for s in before]
    dropped, kept = retention.prune(place(store), 60, now=time.time() + 3600)
    assert (dropped, kept) == (2, 1)
    after = repo.log(place(store))
    assert len(after) == 1 and after[0].reason == "step 2" and after[0].time == before[0].time
    assert repo.tree(place(store), after[0].id) == trees[0]
    assert retention.prune(place(store), 60) == (0, 1)


def test_ids_printed_before_a_prune_still_name_their_snapshots(
    cli, tmp_path: Path, monkeypatch
) -> None:
    store = make_store(tmp_path / "store", 2)
    clock = [1_800_000_000]
    monkeypatch.setattr(snapshot.time, "time", lambda: clock[0])
    for i in range(4):
        clock[0] += 1000
        (store / f"step-{i}.md").write_text(f"{i}\n")
        snapshot.take(place(store), f"step {i}")
    before = repo.log(place(store))  # newest first: steps 3, 2, 1, 0
    retention.prune(place(store), 1500, now=before[0].time + 500)  # keeps steps 3 and 2
    after = repo.log(place(store))
    assert [s.reason for s in after] == ["step 3", "step 2"]
    assert before[0].id != after[0].id
    assert repo.resolve(place(store), before[0].id) == after[0].id
    assert repo.resolve(place(store), before[1].id[:10]) == after[1].id
    shown = cli("history", "--store", str(store), "show", before[1].id[:12])
    assert shown.code == 0 and "step-2.md" in shown.out and "step-3.md" not in shown.out
    # a second prune carries the first one's ids along; a dropped snapshot's id names nothing
    retention.prune(place(store), 100, now=before[0].time + 50)  # keeps step 3
    newest = repo.log(place(store))
    assert [s.reason for s in newest] == ["step 3"]
    assert repo.resolve(place(store), before[0].id) == newest[0].id
    assert repo.resolve(place(store), after[0].id) == newest[0].id
    for gone in (before[1].id, after[1].id, before[3].id):
        with pytest.raises(gitrun.GitError, match="no snapshot"):
            repo.resolve(place(store), gone)


def test_a_broken_map_of_renamed_ids_is_no_map(tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 2)
    snapshot.take(place(store), "first")
    path = Path(place(store).git_dir) / repo.RENAMED_NAME
    path.write_bytes(b"\xff not a map\n" + b"a" * 40 + b" zz\n")
    assert repo.renamed_ids(place(store)) == {}
    with pytest.raises(gitrun.GitError, match="no snapshot"):
        repo.resolve(place(store), "a" * 40)


def test_prune_and_since_parse_ages(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 1)
    snapshot.take(place(store), "first")
    assert cli("history", "prune", str(store), "--older-than", "tomorrow").code == 64
    assert cli("history", "prune", str(store), "--older-than", "180d").code == 0
    assert len(ids(store)) == 1
    recent = json.loads(cli("history", str(store), "--since", "1d", "--format", "json").out)
    assert len(recent["snapshots"]) == 1
    old = json.loads(cli("history", str(store), "--since", "2099-01-01", "--format", "json").out)
    assert old["snapshots"] == []


def test_engramory_writes_snapshot_before_and_after(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 1)
    (store / "by-hand.md").write_text("written outside engramory\n")
    made = cli("new", "user", "role", "--description", "Role", "--store", str(store))
    assert made.code == 0
    reasons = [s.reason for s in repo.log(place(store))]
    assert reasons == ["after new", "before new"]
    first = repo.tree(place(store), ids(store)[1])
    assert "by-hand.md" in first and "role.md" not in first
    assert "role.md" in repo.tree(place(store), ids(store)[0])


@pytest.mark.parametrize(
    ("notes", "setting", "expected"),
    [(100, "", 5), (10, "", 2), (100, "3", 3), (40, "50%", 20), (40, "junk", 5)],
)
def test_the_alarm_threshold(notes: int, setting: str, expected: float) -> None:
    assert alarm.threshold(notes, setting) == expected


def test_a_note_moved_to_the_archive_is_not_gone() -> None:
    then = dict.fromkeys(["MEMORY.md", "a.md", "b.md"])
    now = dict.fromkeys(["MEMORY.md", "archive/a.md"])
    assert alarm.gone_notes(then, now) == ["b.md"]


def test_uninstall_keeps_history_and_says_where(cli, project: Path, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 1)
    snapshot.take(place(store), "first")
    assert cli("init", "claude").code == 0
    result = cli("uninstall", "claude")
    assert result.code == 0
    assert f"store history kept in {location.base_dir()}" in result.out
    assert Path(place(store).git_dir).is_dir()


def test_note_names_with_quotes_spaces_and_accents_round_trip(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", 1)
    odd = store / 'it\'s "odd" é\t.md'
    odd.write_text("odd name\n")
    snapshot.take(place(store), "first")
    assert odd.name in repo.tree(place(store), repo.head(place(store)))
    odd.unlink()
    assert cli("restore", "--store", str(store), "HEAD", "--apply").code == 0
    assert odd.read_text() == "odd name\n"


def test_a_failing_history_never_fails_the_write_and_says_so_once(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engramory.history import auto

    monkeypatch.setattr(auto, "_said", [])
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the history folder should be\n")
    monkeypatch.setenv("ENGRAMORY_HISTORY_DIR", str(blocker / "history"))
    store = make_store(tmp_path / "store", 1)
    made = cli("new", "user", "role", "--description", "Role", "--store", str(store))
    assert (made.code == 0 and (store / "user-role.md").exists()) or (store / "role.md").exists()
    assert made.err.count("history snapshot skipped") == 1


def test_history_off_takes_no_automatic_snapshot(cli, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ENGRAMORY_HISTORY", "off")
    store = make_store(tmp_path / "store", 1)
    assert cli("new", "user", "role", "--description", "Role", "--store", str(store)).code == 0
    assert not location.exists(place(store))
