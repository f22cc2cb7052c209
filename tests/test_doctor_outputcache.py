"""The doctor's printed-output cache: a replayed output is the uncached one, byte for byte.

A warm run on an unchanged store prints what the last run printed without
running the engine (a spy on ``engine.run`` tells); anything about the saved
file it cannot trust (corrupt, foreign, truncated, a symlink, another user's)
or any change of what the output depends on (the store, today's date, the
rules, the profile, the allow list, the version, the format) means a full run.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import date
from pathlib import Path

import pytest
from test_doctor_cache import (
    BODIES,
    TOKEN_PRINT,
    drop_outputs,
    drop_run_cache,
    small_store,
    tree,
    write_store,
)

from doctorkit import coarse_clock, note
from engramory.cli import main
from engramory.commands import doctor as doctor_command
from engramory.doctor import cache, dialectcache, engine, outputcache

FORMATS = ("json", "text", "sarif", "github")


class Runs:
    """Counts the engine's full runs (a replayed output makes none)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = engine.run

        def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.count += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(engine, "run", counted)

    def take(self) -> int:
        seen, self.count = self.count, 0
        return seen


@pytest.fixture(autouse=True)
def _notes_settle_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests write their notes just before a run, on a file system with nanosecond
    timestamps: no racy window (the racy tests set it back)."""
    monkeypatch.setattr(cache, "RACY_NS", 0)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache-home"
    monkeypatch.setenv("ENGRAMORY_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Runs:
    return Runs(monkeypatch)


def doctor(store: Path, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["doctor", str(store), *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def outputs(home: Path, store: Path) -> list[Path]:
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    return sorted(folder.glob(f"{outputcache.FILE_PREFIX}*{outputcache.FILE_SUFFIX}"))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("strict", [False, True])
def test_a_warm_run_replays_the_output_without_running_the_engine(
    tmp_path: Path,
    home: Path,
    runs: Runs,
    capsys: pytest.CaptureFixture[str],
    fmt: str,
    strict: bool,
) -> None:
    store = small_store(tmp_path / "store")
    flags = ("--format", fmt, *(("--strict",) if strict else ()))
    plain = doctor(store, *flags, "--no-cache", capsys=capsys)
    assert doctor(store, *flags, capsys=capsys) == plain
    assert runs.take() == 2
    assert doctor(store, *flags, capsys=capsys) == plain
    assert runs.take() == 0  # replayed: no note read, no rule run but the outside ones
    assert plain[0] == 1 and plain[1]


def test_each_format_keeps_its_own_output(
    tmp_path: Path, home: Path, runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    printed = {fmt: doctor(store, "--format", fmt, capsys=capsys) for fmt in FORMATS}
    runs.take()
    for fmt in FORMATS:
        assert doctor(store, "--format", fmt, capsys=capsys) == printed[fmt]
    assert runs.take() == 0
    assert len(outputs(home, store)) == len(FORMATS)


def _spoil(saved: bytes, how: str) -> bytes:
    header = saved[: outputcache.HEADER_SIZE]
    body = saved[outputcache.HEADER_SIZE + 1 :]
    fields = json.loads(header)

    def redone(**changed: object) -> bytes:
        made = json.dumps({**fields, **changed}).encode().ljust(outputcache.HEADER_SIZE)
        return made + b"\n" + body

    if how == "not json":
        return b"\x00\xff not json at all".ljust(outputcache.HEADER_SIZE) + b"\n" + body
    if how == "empty":
        return b""
    if how == "no header line":
        return header
    if how == "another state":
        return redone(state="0" * 64)
    if how == "another slot":
        return redone(slot="0" * 64)
    if how == "another format":
        return redone(format=0)
    if how == "another exit code type":
        return redone(code="1")
    if how == "an exit code out of range":  # sys.exit(256) exits 0
        return redone(code=256)
    if how == "a negative exit code":
        return redone(code=-255)
    if how == "a byte changed":
        return saved[:-2] + b"X" + saved[-1:]
    if how == "a line more":
        return saved + b"forged finding\n"
    if how == "a longer header":
        return header + b" \n" + body
    assert how == "cut"
    return saved[:-10]


SPOILS = [
    "not json",
    "empty",
    "no header line",
    "another state",
    "another slot",
    "another format",
    "another exit code type",
    "an exit code out of range",
    "a negative exit code",
    "a byte changed",
    "a line more",
    "a longer header",
    "cut",
]


@pytest.mark.parametrize("how", SPOILS)
def test_a_corrupt_foreign_or_truncated_output_is_ignored_and_replaced(
    tmp_path: Path, home: Path, runs: Runs, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    store = small_store(tmp_path / "store")
    plain = doctor(store, "--format", "text", "--no-cache", capsys=capsys)
    doctor(store, "--format", "text", capsys=capsys)
    (path,) = outputs(home, store)
    saved = path.read_bytes()
    path.write_bytes(_spoil(saved, how))
    runs.take()
    assert doctor(store, "--format", "text", capsys=capsys) == plain
    assert runs.take() == 1  # not replayed...
    assert path.read_bytes() == saved  # ...and written afresh
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp left


def test_the_output_file_is_private_and_nothing_is_written_in_the_store(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    before = tree(store)
    doctor(store, capsys=capsys)
    doctor(store, capsys=capsys)
    assert tree(store) == before
    (path,) = outputs(home, store)
    for folder in (home, home / "doctor", path.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_symlinked_output_file_is_not_trusted(
    tmp_path: Path, home: Path, runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    plain = doctor(store, "--no-cache", capsys=capsys)
    doctor(store, capsys=capsys)
    (path,) = outputs(home, store)
    elsewhere = tmp_path / "planted.txt"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere)
    runs.take()
    assert doctor(store, capsys=capsys) == plain
    assert runs.take() == 1
    assert not path.is_symlink()  # replaced by a file of its own


def test_a_file_of_another_user_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "output.txt"
    path.write_bytes(b"kept\n")
    assert outputcache.read_private(str(path), 1024) == b"kept\n"
    owner = path.stat().st_uid
    monkeypatch.setattr(outputcache.os, "getuid", lambda: owner + 1)
    assert outputcache.read_private(str(path), 1024) is None
    monkeypatch.undo()
    assert outputcache.read_private(str(path), 4) is None  # over the limit
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert outputcache.read_private(str(fifo), 1024) is None  # never blocks on a FIFO


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_an_output_file_chowned_to_another_user_is_not_replayed(
    tmp_path: Path, home: Path, runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    plain = doctor(store, "--no-cache", capsys=capsys)
    doctor(store, capsys=capsys)
    (path,) = outputs(home, store)
    path.write_bytes(path.read_bytes().replace(b'"notes": 4', b'"notes": 5'))
    os.chown(path, 12345, 12345)
    runs.take()
    assert doctor(store, capsys=capsys) == plain
    assert runs.take() == 1


def test_another_day_is_not_replayed(
    tmp_path: Path,
    home: Path,
    runs: Runs,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """stale-project and relative-date depend on today's date."""
    store = write_store(
        tmp_path / "store",
        {"alpha.md": note("alpha", "project", updated=date.today().isoformat())},
    )
    doctor(store, "--stale-days", "1", capsys=capsys)

    class Later(date):
        @classmethod
        def today(cls) -> date:
            return date.fromordinal(date.today().toordinal() + 3)

    runs.take()
    with monkeypatch.context() as patched:
        patched.setattr(doctor_command, "date", Later)
        later = doctor(store, "--stale-days", "1", capsys=capsys)
        assert runs.take() == 1
        assert later == doctor(store, "--stale-days", "1", "--no-cache", capsys=capsys)
    assert "stale-project" in later[1]
    assert "stale-project" not in doctor(store, "--stale-days", "1", capsys=capsys)[1]


@pytest.mark.parametrize(
    "flags",
    [
        ("--select", "orphan"),
        ("--ignore", "secret-value"),
        ("--profile", "claude-native"),
        ("--no-schema",),
        ("--stale-days", "0"),
        ("--max-index-line", "20"),
        ("--strict",),
        ("--warn-lines", "1"),
    ],
)
def test_other_options_are_not_replayed(
    tmp_path: Path,
    home: Path,
    runs: Runs,
    capsys: pytest.CaptureFixture[str],
    flags: tuple[str, ...],
) -> None:
    store = small_store(tmp_path / "store")
    doctor(store, capsys=capsys)
    runs.take()
    assert doctor(store, *flags, capsys=capsys) == doctor(
        store, *flags, "--no-cache", capsys=capsys
    )
    assert runs.take() == 2


def test_an_allow_list_change_is_not_replayed(
    tmp_path: Path, home: Path, runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    first = doctor(store, capsys=capsys)
    assert "secret-value" in first[1]
    (store / ".engramory").mkdir()
    (store / ".engramory" / "allow-secrets").write_text(TOKEN_PRINT + "\n", encoding="utf-8")
    runs.take()
    allowed = doctor(store, capsys=capsys)
    assert runs.take() == 1
    assert allowed == doctor(store, "--no-cache", capsys=capsys)
    assert "secret-value" not in allowed[1]
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    (store / "MEMORY.md").write_text(index + "<!-- engramory: allow orphan -->\n", "utf-8")
    assert doctor(store, capsys=capsys) == doctor(store, "--no-cache", capsys=capsys)


def test_another_version_is_not_replayed(
    tmp_path: Path,
    home: Path,
    runs: Runs,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = small_store(tmp_path / "store")
    with monkeypatch.context() as patched:
        patched.setattr(outputcache, "__version__", "0.0.1")
        doctor(store, capsys=capsys)
    runs.take()
    doctor(store, capsys=capsys)
    assert runs.take() == 1


def test_control_characters_are_escaped_as_uncached(
    tmp_path: Path, home: Path, runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    (store / "bell\x07\x1b[31m.md").write_text(
        note("bell", body="A \x1b[2J screen wipe and \udcff.\n"),
        encoding="utf-8",
        errors="surrogateescape",
    )
    for fmt in FORMATS:
        plain = doctor(store, "--format", fmt, "--no-cache", capsys=capsys)
        assert doctor(store, "--format", fmt, capsys=capsys) == plain
        runs.take()
        assert doctor(store, "--format", fmt, capsys=capsys) == plain
        assert runs.take() == 0
        assert "\x1b" not in plain[1] and "\x07" not in plain[1], fmt


def test_a_store_change_of_any_kind_is_not_replayed(
    tmp_path: Path, home: Path, runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    doctor(store, capsys=capsys)
    changes = [
        lambda: (store / "beta.md").write_text(note("beta", "project", body=BODIES[0]), "utf-8"),
        lambda: os.utime(store / "alpha.md", ns=(1_600_000_000_000_000_000,) * 2),
        lambda: (store / "delta.md").write_text(note("delta"), "utf-8"),
        lambda: os.replace(store / "delta.md", store / "sub" / "delta.md"),
        (store / "sub" / "eps.md").unlink,
        lambda: (store / "MEMORY.md").write_text("# Memory\n\n- [alpha](alpha.md) — x\n", "utf-8"),
        (store / "archive").mkdir,
    ]
    for change in changes:
        change()
        runs.take()
        assert doctor(store, capsys=capsys) == doctor(store, "--no-cache", capsys=capsys)
        assert runs.take() == 2


def test_the_dialect_memo_follows_the_notes(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A note turned to Claude Code's dialect changes the profile chosen, memo or not."""
    host = {"name": "Alpha Fact", "drop": ("created", "updated")}
    store = write_store(
        tmp_path / "store",
        {
            "alpha.md": note("alpha", **host),  # type: ignore[arg-type]
            "beta.md": note("beta"),
        },
    )
    plain = doctor(store, "--no-cache", capsys=capsys)
    assert doctor(store, capsys=capsys) == plain
    assert "profile engramory" in plain[1]
    (store / "beta.md").write_text(note("beta", name="Beta Fact", drop=("created", "updated")))
    native = doctor(store, capsys=capsys)
    assert native == doctor(store, "--no-cache", capsys=capsys)
    assert "claude-native" in native[1]
    memo = Path(cache.store_folder(str(home), os.path.realpath(store))) / dialectcache.FILE_NAME
    kept = json.loads(memo.read_bytes())
    assert sorted(row[-1] for row in kept["notes"]) == [dialectcache.NATIVE] * 2
    memo.write_bytes(b"\x00 not json")
    assert doctor(store, capsys=capsys) == native
    memo.write_text(json.dumps({**kept, "notes": [["beta.md", 1, 2, 3, 4, 5, 9]]}))
    assert doctor(store, capsys=capsys) == native
    assert json.loads(memo.read_bytes()) == kept  # written afresh


def test_a_run_whose_printing_fails_part_way_keeps_no_output(
    tmp_path: Path, home: Path, runs: Runs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader of the output goes away: nothing half printed is kept."""
    import io
    import sys

    store = small_store(tmp_path / "store")

    class Closing(io.StringIO):
        def write(self, text: str) -> int:
            if self.tell() > 100:
                raise OSError(5, "the reader went away")
            return super().write(text)

    monkeypatch.setattr(sys, "stdout", Closing())
    with pytest.raises(OSError):
        main(["doctor", str(store), "--format", "text"])
    monkeypatch.undo()
    assert outputs(home, store) == []
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    assert not [p for p in folder.iterdir() if p.name.startswith(".output-")]


def test_the_header_holds_the_largest_values() -> None:
    fields = {"format": 99, "slot": "f" * 64, "state": "f" * 64, "code": 255}
    fields.update(length=outputcache.FILE_LIMIT, sha256="f" * 64)
    assert len(json.dumps(fields, separators=(",", ":"))) <= outputcache.HEADER_SIZE


def _within_one_tick(tick: int, path: Path, before: str, run: object, after: str) -> bool:
    """Write ``before`` to ``path``, ``run()``, then write ``after`` in its place (the
    same inode), all at the start of one timestamp tick; whether all ran within it."""
    import time

    time.sleep((tick - time.time_ns() % tick) / 1e9 + 0.01)
    started = time.time_ns() // tick
    path.write_text(before, encoding="utf-8")
    run()  # type: ignore[operator]
    path.write_text(after, encoding="utf-8")
    return time.time_ns() // tick == started


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_same_size_edit_within_one_timestamp_tick_is_not_replayed(
    tmp_path: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fmt: str,
) -> None:
    """Racy git: a note rewritten in place, with the same size, in the timestamp tick of
    the run that cached it keeps its ``lstat``; a note changed that recently is not
    trusted to its ``lstat`` (neither the output, the report nor the note's own cache)."""
    tick = 2_000_000_000
    monkeypatch.setattr(cache, "RACY_NS", tick)
    coarse_clock(monkeypatch, tick)
    store = small_store(tmp_path / "store")
    path = store / "alpha.md"
    plain, secret = note("alpha", body=BODIES[0]), note("alpha", body=BODIES[3])
    plain = plain.replace(BODIES[0], BODIES[0].rstrip("\n").ljust(len(BODIES[3]) - 1) + "\n")
    assert len(plain) == len(secret) and plain != secret
    for _attempt in range(3):
        if _within_one_tick(
            tick, path, plain, lambda: doctor(store, "--format", fmt, capsys=capsys), secret
        ):
            break
    else:
        pytest.skip("the machine is too slow for a run within one tick")
    now = doctor(store, "--format", fmt, capsys=capsys)
    assert "secret-value" in now[1]
    assert now == doctor(store, "--format", fmt, "--no-cache", capsys=capsys)
    for drop in (drop_outputs, drop_run_cache):  # the notes' own cache on its own
        drop(home, store)
        assert doctor(store, "--format", fmt, capsys=capsys) == now


def test_the_dialect_memo_does_not_keep_a_note_changed_within_one_tick(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The profile chosen by the notes' dialect follows a same-size edit made within the
    timestamp tick of the run that kept the note's verdict."""
    tick = 2_000_000_000
    monkeypatch.setattr(cache, "RACY_NS", tick)
    coarse_clock(monkeypatch, tick)
    host_alpha = note("alpha", name="Alpha Fact", drop=("created", "updated"))
    store = write_store(tmp_path / "store", {"alpha.md": host_alpha, "beta.md": note("beta")})
    path = store / "beta.md"
    body = "The fact behind beta.\n"
    ours = note("beta", body=body)
    host = note("beta", name="Beta Fact", drop=("created", "updated"), body=body)
    host = host.replace(body, body[:-1].ljust(len(body) - 1 + len(ours) - len(host)) + "\n")
    assert len(ours) == len(host) and ours != host
    for _attempt in range(3):
        if _within_one_tick(tick, path, ours, lambda: doctor(store, capsys=capsys), host):
            break
    else:
        pytest.skip("the machine is too slow for a run within one tick")
    drop_run_cache(home, store)
    now = doctor(store, capsys=capsys)
    assert "claude-native" in now[1]
    assert now == doctor(store, "--no-cache", capsys=capsys)


@pytest.mark.parametrize(
    ("level", "mode", "used"),
    [
        ("home", 0o777, False),
        ("home", 0o770, False),
        ("home", 0o1777, True),  # sticky, as /tmp: others cannot move what is not theirs
        ("home", 0o755, True),
        ("doctor", 0o777, False),
        ("doctor", 0o1777, False),
        ("doctor", 0o770, False),
    ],
)
def test_a_cache_folder_others_can_write_above_the_stores_is_not_used(
    tmp_path: Path,
    home: Path,
    runs: Runs,
    capsys: pytest.CaptureFixture[str],
    level: str,
    mode: int,
    used: bool,
) -> None:
    """Another user who can write the folder above a store's cache folder can swap that
    folder for a symlink after it is checked: a run there is an uncached one."""
    store = small_store(tmp_path / "store")
    plain = doctor(store, "--no-cache", capsys=capsys)
    assert doctor(store, capsys=capsys) == plain
    (path,) = outputs(home, store)
    path.unlink()
    (home if level == "home" else home / "doctor").chmod(mode)
    runs.take()
    assert doctor(store, capsys=capsys) == plain
    assert doctor(store, capsys=capsys) == plain
    assert runs.take() == (1 if used else 2)  # replayed or not...
    assert len(outputs(home, store)) == used  # ...written or not


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_a_cache_base_of_another_user_is_not_used(
    tmp_path: Path, home: Path, runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    """The owner of the base folder can move ``doctor/`` whatever its mode."""
    store = small_store(tmp_path / "store")
    plain = doctor(store, capsys=capsys)
    (path,) = outputs(home, store)
    path.unlink()
    os.chown(home, 12345, 12345)
    runs.take()
    assert doctor(store, capsys=capsys) == plain
    assert doctor(store, capsys=capsys) == plain
    assert runs.take() == 2


def test_a_temporary_file_left_by_a_killed_run_is_removed_once_old(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run killed part way (a hook's timeout) leaves its temporary files behind: the next
    run that writes the cache removes those an hour old, never a live run's."""
    store = small_store(tmp_path / "store")
    doctor(store, "--format", "json", capsys=capsys)
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    names = (".output-a1.tmp", ".notes-b2.tmp", ".report-c3.tmp", ".dialect.json-d4.tmp")
    old = [folder / n for n in names]
    fresh = [folder / n.replace("-", "-new-", 1) for n in names]
    for path in old + fresh:
        path.write_bytes(b"half written")
    for path in old:
        os.utime(path, ns=(1_600_000_000_000_000_000,) * 2)
    (store / "beta.md").write_text(note("beta", "project", body=BODIES[0]), "utf-8")
    doctor(store, "--format", "text", capsys=capsys)
    assert [p.name for p in old if p.exists()] == []
    assert [p.name for p in fresh if p.exists()] == [p.name for p in fresh]


@pytest.mark.parametrize("kind", ["output", "notes", "report", "dialect"])
@pytest.mark.parametrize("what", ["fifo", "directory", "symlink to /dev/zero"])
def test_a_cache_file_that_is_no_regular_file_never_blocks_and_is_replaced(
    tmp_path: Path,
    home: Path,
    runs: Runs,
    capsys: pytest.CaptureFixture[str],
    kind: str,
    what: str,
) -> None:
    import signal

    store = small_store(tmp_path / "store")
    plain = doctor(store, "--no-cache", capsys=capsys)
    doctor(store, capsys=capsys)
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    patterns = {"output": "output-*", "notes": "notes-*", "report": "report-*"}
    (path,) = folder.glob(patterns.get(kind, dialectcache.FILE_NAME))
    path.unlink()
    if kind in ("notes", "dialect"):  # read only when no saved report or output is used
        drop_run_cache(home, store)
    elif kind == "report":
        drop_outputs(home, store)
    if what == "fifo":
        os.mkfifo(path)
    elif what == "directory":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.alarm(60)  # a read that blocks fails the test instead of hanging it
    try:
        assert doctor(store, capsys=capsys) == plain
        assert doctor(store, capsys=capsys) == plain
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if what != "directory":  # a directory cannot be renamed over; the run is simply uncached
        assert path.is_file() and not path.is_symlink()
