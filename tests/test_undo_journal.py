"""Undo keeps later work, and an apply is a journal (issue 32, item 2).

`fix --undo`, `compact --undo` and `import --undo` refuse, changing nothing, when a file they
would restore or remove changed since the apply (a later `new`, a hand edit, a deleted file),
and list what changed; `--force` undoes anyway after backing the current state up under a new
ID, which can itself be undone. A normal undo leaves nothing its apply made. An apply killed
at any phase (ENGRAMORY_TEST_CRASH_AT, a real SIGKILL) or stopped by a full disk is undone
byte for byte by the command it printed; a lock file left by a killed writer is removed.
"""

from __future__ import annotations

import errno
import io
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from fixkit import digest, fix
from hypothesis import given, settings
from hypothesis import strategies as st
from test_compact import COLD_CAPS, _cold_store, compact, memoir_store

from conftest import run_engramory
from doctorkit import make_store, note
from engramory.cli import main
from engramory.continuity import state
from engramory.util.crashpoint import ENV as CRASH_ENV
from engramory.write import backup
from engramory.write.undo import undo

FIX_NOTES = {"a.md": note("a", name="b"), "o.md": note("o"), "c.md": note("c", created="2026.1.3")}
FIX_INDEX = "## user\n- [A](a.md)\n- [C](c.md)\n"
ENTRY = "---\ntype: fact\nname: {name}\ndescription: the {name} in use\n---\n\n{name}.\n"


def everything(root: Path) -> tuple[dict[str, tuple[bytes, int]], set[str]]:
    """Every file (bytes, mode) and every folder under ``root``, backups and lock included."""
    folders = {
        (Path(d) / name).relative_to(root).as_posix()
        for d, dirs, _files in os.walk(root)
        for name in dirs
    }
    return digest(root, skip_backups=False), folders


def temporary_files(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix() for p in root.rglob(".engramory-*.tmp") if p.is_file()
    )


def fix_store(tmp_path: Path) -> Path:
    return make_store(tmp_path / "store", dict(FIX_NOTES), FIX_INDEX)


def memoir_source(tmp_path: Path) -> Path:
    source = tmp_path / "memoir"
    source.mkdir()
    for name in ("editor", "shell"):
        (source / f"fact_{name}.md").write_text(ENTRY.format(name=name), encoding="utf-8")
    return source


def new_note(root: Path, slug: str = "later-note") -> None:
    done = run_engramory(
        "new", "reference", slug, "--description", "written after the apply", "--store", str(root)
    )
    assert done.returncode == 0, done.stderr


def printed_id(out: str) -> str:
    """The ID of the one "undo: engramory COMMAND --undo ID ..." line."""
    (line,) = [x for x in out.splitlines() if x.startswith("undo: engramory ")]
    return line.split("--undo ", 1)[1].split()[0]


# -- refusals: later work is never lost ------------------------------------------------------


def test_fix_undo_after_a_later_new_refuses_and_shows_the_new_pointer(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    new_note(root)
    tree = everything(root)
    code, out, err = fix(str(root), "--undo", backup_id)
    assert code == 1 and "restored" not in out
    assert "MEMORY.md: modified" in err and "added since: '- [Later note](later-note.md)" in err
    assert "1 file changed since fix" in err and "--force" in err
    assert everything(root) == tree


def test_fix_undo_after_a_hand_edit_of_a_restored_file_refuses(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    with (root / "a.md").open("a", encoding="utf-8") as handle:
        handle.write("a line written by hand\n")
    tree = everything(root)
    code, _out, err = fix(str(root), "--undo", backup_id)
    assert code == 1 and "  a.md: modified" in err and "c.md" not in err
    assert everything(root) == tree


def test_fix_undo_after_a_deleted_file_refuses(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    (root / "c.md").unlink()
    tree = everything(root)
    code, _out, err = fix(str(root), "--undo", backup_id)
    assert code == 1 and "  c.md: deleted" in err
    assert everything(root) == tree


def test_fix_undo_after_a_mode_change_refuses(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    (root / "a.md").chmod(0o600)
    code, _out, err = fix(str(root), "--undo", backup_id)
    assert code == 1 and "  a.md: mode changed" in err


def test_compact_undo_after_a_later_new_and_a_hand_edit_of_a_created_file(tmp_path: Path) -> None:
    root = memoir_store(tmp_path / "s")
    _code, out, _ = compact(str(root), "--apply")
    new_note(root)
    with (root / "topic-3.md").open("a", encoding="utf-8") as handle:
        handle.write("edited since\n")
    tree = everything(root)
    code, _out, err = compact(str(root), "--undo", printed_id(out))
    assert code == 1
    assert "  MEMORY.md: modified" in err and "later-note.md" in err
    assert "  topic-3.md: modified" in err and "2 files changed since compact" in err
    assert everything(root) == tree


def test_compact_undo_after_a_file_it_removed_came_back_refuses(tmp_path: Path) -> None:
    root = _cold_store(tmp_path / "s")
    _code, out, _ = compact(str(root), *COLD_CAPS)
    (root / "n0.md").write_text(note("n0", type="reference", description="a new n0"))
    tree = everything(root)
    code, _out, err = compact(str(root), "--undo", printed_id(out))
    assert code == 1 and "  n0.md: created since" in err
    assert everything(root) == tree


def test_import_undo_after_a_later_new_refuses(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", {"deploy.md": note("deploy")})
    result = cli("import", "memoir", str(memoir_source(tmp_path)), "--store", str(store))
    backup_id = printed_id(result.out)
    new_note(store)
    tree = everything(store)
    refused = cli("import", "--undo", backup_id, "--store", str(store))
    assert refused.code == 1 and "  MEMORY.md: modified" in refused.err
    assert "later-note.md" in refused.err
    assert everything(store) == tree


def test_a_created_file_deleted_since_is_no_later_work(tmp_path: Path) -> None:
    root = _cold_store(tmp_path / "s")
    before = everything(root)
    _code, out, _ = compact(str(root), *COLD_CAPS)
    (root / "archive" / "n0.md").unlink()  # undo would remove it anyway: nothing is lost
    assert compact(str(root), "--undo", printed_id(out))[0] == 0
    assert everything(root) == before


def test_undo_with_another_commands_id_names_that_command(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    tree = everything(root)
    code, _out, err = compact(str(root), "--undo", backup_id)
    assert code == 1 and f"run engramory fix --undo {backup_id}" in err
    assert everything(root) == tree


def test_a_restored_file_replaced_by_a_symlink_is_refused_even_with_force(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    outside = tmp_path / "outside.md"
    outside.write_text("not the store's\n")
    (root / "a.md").unlink()
    (root / "a.md").symlink_to(outside)
    tree = everything(root)
    for extra in ((), ("--force",)):
        code, _out, err = fix(str(root), "--undo", backup_id, *extra)
        assert code == 1 and "a.md" in err and "not a plain readable file" in err
        assert everything(root) == tree
    assert outside.read_text() == "not the store's\n"


@pytest.mark.parametrize("rel", ["../outside.md", "/etc/passwd", ".engramory/x.md", "a/../../x"])
def test_a_journal_naming_a_path_out_of_the_store_is_refused(tmp_path: Path, rel: str) -> None:
    root = fix_store(tmp_path)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    journal = root / ".engramory" / "backup" / backup_id / backup.JOURNAL_NAME
    text = journal.read_text().replace('"a.md"', f'"{rel}"')
    assert rel in text
    journal.write_text(text)
    tree = everything(root)
    code, _out, err = fix(str(root), "--undo", backup_id)
    assert code == 1 and "journal" in err and "cannot be read" in err
    assert everything(root) == tree


def test_an_archive_folder_swapped_for_a_symlink_out_is_refused_before_any_write(
    tmp_path: Path,
) -> None:
    """The created notes' folder now leads out of the store: the undo refuses whole, before
    it writes the index or any note back (it used to stop half-way, the index put back and
    the removed notes not)."""
    root = _cold_store(tmp_path / "s")
    _code, out, _ = compact(str(root), *COLD_CAPS)
    backup_id = printed_id(out)
    outside = tmp_path / "outside"
    (root / "archive").rename(outside)
    for moved in outside.iterdir():
        moved.unlink()
    (root / "archive").symlink_to(outside)
    tree = everything(root)
    for extra in ((), ("--force",)):
        code, _out, err = compact(str(root), "--undo", backup_id, *extra)
        assert code == 1 and "archive/" in err and "outside the store" in err, err
        assert "Traceback" not in err
        assert everything(root) == tree
    assert list(outside.iterdir()) == []


# -- --force: undone anyway, and undoable ----------------------------------------------------


def test_forced_fix_undo_backs_up_the_later_work_and_can_itself_be_undone(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    before = digest(root)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    new_note(root)
    with (root / "a.md").open("a", encoding="utf-8") as handle:
        handle.write("a line written by hand\n")
    later = digest(root)
    code, out, _err = fix(str(root), "--undo", backup_id, "--force")
    assert code == 0 and f"undid fix {backup_id}: by force" in out
    forced_id = printed_id(out)
    assert forced_id != backup_id
    backups = root / ".engramory" / "backup"
    assert sorted(p.name for p in backups.iterdir()) == [forced_id]  # the new backup is kept
    now = digest(root)
    assert {rel: now[rel] for rel in before} == before  # every journaled file put back
    assert now["later-note.md"] == later["later-note.md"]  # not the apply's: left alone
    assert fix(str(root), "--undo", forced_id)[0] == 0
    assert digest(root) == later
    assert not (root / ".engramory").exists()


def test_forced_compact_undo_restores_removed_notes_and_removes_created_ones(
    tmp_path: Path,
) -> None:
    root = _cold_store(tmp_path / "s")
    before = digest(root)
    _code, out, _ = compact(str(root), *COLD_CAPS)
    (root / "archive" / "n1.md").write_text("kept by hand\n")
    later = digest(root)
    code, forced, _ = compact(str(root), "--undo", printed_id(out), "--force")
    assert code == 0 and digest(root) == before
    assert compact(str(root), "--undo", printed_id(forced))[0] == 0
    assert digest(root) == later


def test_force_without_undo_is_a_usage_error(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    assert fix(str(root), "--force")[0] == 64
    assert compact(str(root), "--force")[0] == 64


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a.md", "b.md", "c.md", "d.md", "MEMORY.md"]),
        st.tuples(
            st.sampled_from(["keep", "change", "remove"]),
            st.binary(max_size=64),
            st.binary(max_size=64),
            st.sampled_from([0o644, 0o600, 0o640]),
        ),
    ),
    st.dictionaries(st.sampled_from(["n.md", "sub/m.md", "archive/o.md"]), st.binary(max_size=64)),
)
def test_any_apply_then_undo_is_byte_exact(files: dict, created: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "store"
        root.mkdir()
        for rel, (_what, old, _new, mode) in files.items():
            (root / rel).write_bytes(old)
            (root / rel).chmod(mode)
        before = everything(root)
        sources = {rel: old for rel, (_w, old, _n, _m) in files.items()}
        changes = {rel: new for rel, (w, _o, new, _m) in files.items() if w == "change"}
        removed = [rel for rel, (w, _o, _n, _m) in files.items() if w == "remove"]
        with redirect_stdout(io.StringIO()):
            backup_id = backup.apply(
                str(root), sources, changes, created=created, removed=removed, command="fix"
            )
            assert undo(str(root), backup_id, "fix") == 0
        assert everything(root) == before


# -- a normal undo leaves nothing the apply made ---------------------------------------------


def test_fix_undo_leaves_no_backup_and_no_engramory_folder(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    before = everything(root)
    backup_id = printed_id(fix(str(root), "--apply")[1])
    assert fix(str(root), "--undo", backup_id)[0] == 0
    assert everything(root) == before


def test_undo_keeps_the_engramory_folder_it_did_not_make(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    first = printed_id(fix(str(root), "--apply")[1])
    (root / "a.md").write_text(note("a", name="c"))
    second = printed_id(fix(str(root), "--apply")[1])
    assert fix(str(root), "--undo", second)[0] == 0
    backups = root / ".engramory" / "backup"
    assert sorted(p.name for p in backups.iterdir()) == [first]


def test_import_undo_into_a_new_store_removes_the_store(cli, tmp_path: Path) -> None:
    store = tmp_path / "project" / ".engramory-memory"
    store.parent.mkdir()
    result = cli("import", "memoir", str(memoir_source(tmp_path)), "--store", str(store))
    assert result.code == 0 and (store / "MEMORY.md").is_file()
    assert cli("import", "--undo", printed_id(result.out), "--store", str(store)).code == 0
    assert not store.exists()  # no empty store left to shadow discovery


def test_import_undo_into_an_existing_store_leaves_it_as_it_was(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", {"deploy.md": note("deploy")})
    before = everything(store)
    result = cli("import", "memoir", str(memoir_source(tmp_path)), "--store", str(store))
    assert cli("import", "--undo", printed_id(result.out), "--store", str(store)).code == 0
    assert everything(store) == before


def test_the_undo_line_comes_before_the_store_is_written(tmp_path: Path, monkeypatch) -> None:
    root = fix_store(tmp_path)
    seen: list[str] = []
    real = backup.fsutil.write_atomic

    def watching(path, data, mode=None):  # type: ignore[no-untyped-def]
        if ".engramory" not in str(path):
            seen.append(printed.getvalue())
        return real(path, data, mode)

    monkeypatch.setattr(backup.fsutil, "write_atomic", watching)
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert main(["fix", str(root), "--apply"]) == 0
    assert seen and all("undo: engramory fix --undo " in text for text in seen)


# -- backup IDs ------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["fix", "compact", "import"])
@pytest.mark.parametrize("value", [".", "..", "../x", "", "a/b", "2026", "20261202T031500Z/.."])
def test_an_id_not_of_the_written_form_is_a_usage_error(
    cli, tmp_path: Path, command: str, value: str
) -> None:
    root = fix_store(tmp_path)
    tree = everything(root)
    result = cli(command, *([] if command == "import" else [str(root)]), "--undo", value,
                 *(["--store", str(root)] if command == "import" else []))  # fmt: skip
    assert result.code == 64 and "such as 20261202T031500Z" in result.err
    assert everything(root) == tree


@pytest.mark.parametrize("value", ["20261202T031500Z", "20261202T031500Z-2"])
def test_an_id_of_the_written_form_that_is_not_there_is_66(tmp_path: Path, value: str) -> None:
    root = fix_store(tmp_path)
    assert fix(str(root), "--undo", value)[0] == 66


# -- disk full -------------------------------------------------------------------------------


def test_disk_full_while_creating_notes_is_undone_by_the_printed_command(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path / "store", {"deploy.md": note("deploy")})
    before = everything(store)
    real = backup.write_new_file
    calls: list[str] = []

    def disk_full(path, data, mode, durable):  # type: ignore[no-untyped-def]
        calls.append(path)
        if len(calls) == 2:  # the second note: created, then no space for its bytes
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data, mode, durable)

    monkeypatch.setattr(backup, "write_new_file", disk_full)
    result = cli("import", "memoir", str(memoir_source(tmp_path)), "--store", str(store))
    assert result.code == 1 and "No space left on device" in result.err
    assert Path(calls[1]).stat().st_size == 0  # the 0-byte note the full disk left
    monkeypatch.setattr(backup, "write_new_file", real)
    assert cli("import", "--undo", printed_id(result.out), "--store", str(store)).code == 0
    assert everything(store) == before


def test_disk_full_while_undoing_says_to_run_the_undo_again_and_that_works(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engramory.write import undo as undoing

    root = _cold_store(tmp_path / "s")
    before = digest(root)
    _code, out, _ = compact(str(root), *COLD_CAPS)
    backup_id = printed_id(out)
    real = undoing.fsutil.write_atomic
    calls: list[str] = []

    def disk_full(path, data, mode=None):  # type: ignore[no-untyped-def]
        calls.append(path)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data, mode)

    monkeypatch.setattr(undoing.fsutil, "write_atomic", disk_full)
    result = cli("compact", str(root), "--undo", backup_id)
    assert result.code == 1 and "No space left on device" in result.err
    assert f"compact --undo {backup_id}" in result.err
    monkeypatch.setattr(undoing.fsutil, "write_atomic", real)
    assert cli("compact", str(root), "--undo", backup_id).code == 0
    assert digest(root) == before


# -- kill -9 at every phase ------------------------------------------------------------------


def _killed(args: list[str], phase: str) -> str:
    done = run_engramory(*args, env={CRASH_ENV: phase})
    assert done.returncode == -signal.SIGKILL, (phase, done.stdout, done.stderr)
    return done.stdout.decode()


def _undo_printed_or_found(out: str, root: Path, store_args: list[str]) -> None:
    """Run the printed undo command; before it was printed, the ID the backup folder holds."""
    lines = [x for x in out.splitlines() if x.startswith("undo: engramory ")]
    if lines:
        argv = shlex.split(lines[0][len("undo: engramory ") :])
    else:
        (found,) = os.listdir(root / ".engramory" / "backup")
        argv = [*store_args, "--undo", found]
    done = run_engramory(*argv)
    assert done.returncode == 0, (argv, done.stdout, done.stderr)


FIX_PHASES = [
    "atomic-temp:1",  # a half-written copy inside the backup
    "backup-saved",
    "journaled",
    "announced",
    "atomic-temp:6",  # a half-written store file (3 copies, the index after, the journal)
    "changed",
    "applied",  # every write done, the lock file still there
]
COMPACT_PHASES = ["backup-saved", "journaled", "announced", "create-opened", "created"]
COMPACT_PHASES += ["changed", "removed", "applied"]
IMPORT_PHASES = ["journaled", "announced", "create-opened", "created", "atomic-temp:4"]
IMPORT_PHASES += ["changed", "applied"]


@pytest.mark.parametrize("phase", FIX_PHASES)
def test_fix_killed_at_each_phase_is_undone_byte_exact(tmp_path: Path, phase: str) -> None:
    root = fix_store(tmp_path)
    before = everything(root)
    out = _killed(["fix", str(root), "--apply"], phase)
    if phase == "atomic-temp:1":
        assert temporary_files(root / ".engramory")
    if phase == "atomic-temp:6":
        assert [t for t in temporary_files(root) if not t.startswith(".engramory/")]
    _undo_printed_or_found(out, root, ["fix", str(root)])
    assert everything(root) == before and not temporary_files(root)


@pytest.mark.parametrize("phase", COMPACT_PHASES)
def test_compact_killed_at_each_phase_is_undone_byte_exact(tmp_path: Path, phase: str) -> None:
    root = _cold_store(tmp_path / "s")
    before = everything(root)
    out = _killed(["compact", str(root), *COLD_CAPS], phase)
    _undo_printed_or_found(out, root, ["compact", str(root)])
    assert everything(root) == before and not temporary_files(root)


@pytest.mark.parametrize("phase", IMPORT_PHASES)
def test_import_killed_at_each_phase_is_undone_byte_exact(tmp_path: Path, phase: str) -> None:
    store = make_store(tmp_path / "store", {"deploy.md": note("deploy")})
    before = everything(store)
    out = _killed(["import", "memoir", str(memoir_source(tmp_path)), "--store", str(store)], phase)
    if phase == "create-opened":
        assert [p for p in store.glob("*.md") if p.stat().st_size == 0]
    _undo_printed_or_found(out, store, ["import", "--store", str(store)])
    assert everything(store) == before and not temporary_files(store)


@pytest.mark.parametrize("phase", ["announced", "created", "applied"])
def test_import_into_a_new_store_killed_is_undone_to_no_store(tmp_path: Path, phase: str) -> None:
    store = tmp_path / "project" / ".engramory-memory"
    store.parent.mkdir()
    out = _killed(["import", "memoir", str(memoir_source(tmp_path)), "--store", str(store)], phase)
    _undo_printed_or_found(out, store, ["import", "--store", str(store)])
    assert not store.exists()


# -- the lock --------------------------------------------------------------------------------


def _killed_holder(root: Path) -> None:
    """A writer that takes the store lock (creating its file) and is killed holding it."""
    code = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from engramory.continuity.state import locked\n"
        "with locked(Path(sys.argv[1]), leave_no_file=True):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run([sys.executable, "-c", code, str(root)], env=env, check=False)
    assert done.returncode == -signal.SIGKILL


def test_a_stale_lock_of_a_killed_writer_is_released_and_removed(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    _killed_holder(root)
    lock = root / state.LOCK_NAME
    assert lock.is_file()  # left behind by the killed writer
    started = time.monotonic()
    with state.locked(root, timeout=5, leave_no_file=True):
        assert time.monotonic() - started < 1  # not waited for: the OS released it
    assert not lock.exists()


def test_a_lock_file_of_a_live_process_stays(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        lock = root / state.LOCK_NAME
        lock.write_text(f"{sleeper.pid}\n")
        with state.locked(root, timeout=5, leave_no_file=True):
            pass
        assert lock.read_text() == f"{sleeper.pid}\n"
    finally:
        sleeper.kill()
        sleeper.wait()


def test_an_undo_after_a_killed_apply_leaves_no_lock_file(tmp_path: Path) -> None:
    root = fix_store(tmp_path)
    out = _killed(["fix", str(root), "--apply"], "applied")
    assert (root / state.LOCK_NAME).is_file()
    _undo_printed_or_found(out, root, ["fix", str(root)])
    assert not (root / state.LOCK_NAME).exists()


def test_compact_plans_under_the_lock_so_a_writer_cannot_void_its_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(state, "LOCK_TIMEOUT", 10.0)
    root = memoir_store(tmp_path / "s")
    result: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: result.append(compact(str(root), "--apply")))
    with state.locked(root, leave_no_file=True):  # a writer (as `new` and the MCP server)
        worker.start()
        time.sleep(0.5)  # compact is waiting for the lock now
        (root / "late.md").write_text(note("late", type="reference"), encoding="utf-8")
        index = root / "MEMORY.md"
        index.write_text(index.read_text() + "- [Late](late.md) — written meanwhile\n")
    worker.join(30)
    code, out, err = result[0]
    assert code == 0, err
    assert "written meanwhile" in (root / "MEMORY.md").read_text()
    assert compact(str(root), "--undo", printed_id(out))[0] == 0
    assert (root / "MEMORY.md").read_text().endswith("— written meanwhile\n")
