"""The doctor's result cache: a cached report is the uncached one, byte for byte.

Every test runs ``engramory doctor --format json`` in-process through ``main()``
with ``ENGRAMORY_CACHE_DIR`` set to a folder of its own, and compares it with
``--no-cache``. A spy on the engine's note reads shows whether a run took its
notes from the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from conftest import REPO
from doctorkit import coarse_clock, note
from engramory.cli import main
from engramory.commands import doctor as doctor_command
from engramory.doctor import cache, engine, outputcache, runcache
from engramory.doctor.model import Finding, sort_findings

CORPUS = sorted(p for p in (REPO / "tests" / "corpus" / "stores").iterdir() if p.is_dir())
TOKEN = "ghp_Q8r2Lm9XvT4kPz7NwB3yHc6JdF1sGa5eRu0i"  # made up, shaped like a GitHub token
TOKEN_PRINT = hashlib.sha256(TOKEN.encode()).hexdigest()[:16]

BODIES = (
    "A plain fact about the build, nothing more.\n",
    "See [[alpha]] and [[beta]] before a release; [[nowhere]] is not written yet.\n",
    "Yesterday the tests were green on main.\n",
    f"The deploy token is {TOKEN}.\n",
    "Currently the tip of main is at version 3.2.\n<!-- engramory: allow current-state -->\n",
    "Link to a path: [[sub/gamma]] and to [[ALPHA]].\n",
)
SLUGS = ("alpha", "beta", "gamma", "delta", "sub/gamma", "sub/eps")
TYPES = ("user", "feedback", "project", "reference")


class Reads:
    """Counts the notes the engine reads from disk."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = engine.read_file

        def counted(path: str, limit: int):  # type: ignore[no-untyped-def]
            self.count += 1
            return real(path, limit)

        monkeypatch.setattr(engine, "read_file", counted)

    def take(self) -> int:
        seen, self.count = self.count, 0
        return seen


def doctor_json(store: Path, *flags: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["doctor", str(store), "--format", "json", *flags])
    return code, capsys.readouterr().out


def uncached(store: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return doctor_json(store, "--no-cache", capsys=capsys)


def cached(store: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    return doctor_json(store, capsys=capsys)


def write_store(root: Path, notes: dict[str, str], index: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    top = sorted(rel[:-3] for rel in notes if "/" not in rel)
    default = "# Memory\n\n" + "".join(f"- [{s}]({s}.md) — when it matters\n" for s in top)
    (root / "MEMORY.md").write_text(default if index is None else index, encoding="utf-8")
    return root


def small_store(root: Path) -> Path:
    return write_store(
        root,
        {
            "alpha.md": note("alpha", body=BODIES[1]),
            "beta.md": note("beta", "project", body=BODIES[2]),
            "gamma.md": note("gamma", "reference", body=BODIES[3]),
            "sub/eps.md": note("eps", body=BODIES[4]),
        },
    )


def cache_file(home: Path, store: Path) -> Path:
    """The store's one cache file (the tests run with one signature per store)."""
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    (found,) = folder.glob(f"{cache.FILE_PREFIX}*{cache.FILE_SUFFIX}")
    return found


def drop_run_cache(home: Path, store: Path) -> None:
    """Delete the saved reports and outputs: the next run takes its notes from the notes cache."""
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    for path in folder.glob(f"{runcache.FILE_PREFIX}*{runcache.FILE_SUFFIX}"):
        path.unlink()
    drop_outputs(home, store)


def drop_outputs(home: Path, store: Path) -> None:
    """Delete the saved outputs: the next run rebuilds its report (from the saved one)."""
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    for path in folder.glob(f"{outputcache.FILE_PREFIX}*{outputcache.FILE_SUFFIX}"):
        path.unlink()


def cache_files(home: Path, store: Path, prefix: str) -> list[Path]:
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    return sorted(folder.glob(f"{prefix}*"))


def tree(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every entry under ``root`` with its mode, mtime and bytes (a file's)."""
    found = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        data = path.read_bytes() if path.is_file() else b""
        found[str(path.relative_to(root))] = (info.st_mode, info.st_mtime_ns, data)
    return found


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
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    return Reads(monkeypatch)


def test_a_warm_run_reads_no_note_and_reports_the_same(
    tmp_path: Path, home: Path, reads: Reads, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    plain = uncached(store, capsys)
    reads.take()
    assert cached(store, capsys) == plain
    assert reads.take() == 4
    assert cached(store, capsys) == plain
    assert reads.take() == 0
    assert json.loads(plain[1])["findings"]  # the store has findings to cache


def test_an_edited_note_alone_is_read_again(
    tmp_path: Path, home: Path, reads: Reads, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    cached(store, capsys)
    (store / "beta.md").write_text(note("beta", "project", body=BODIES[0]), encoding="utf-8")
    reads.take()
    assert cached(store, capsys) == uncached(store, capsys)
    assert reads.take() == 1 + 4  # the edited note, then the uncached run's four


def test_the_cache_folders_are_private_and_outside_the_store(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    before = tree(store)
    cached(store, capsys)
    cached(store, capsys)
    assert tree(store) == before  # nothing written in the store
    made = cache_file(home, store)
    assert made.is_file()
    for folder in (home, home / "doctor", made.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(made.stat().st_mode) & 0o077 == 0


def test_a_cache_folder_inside_the_store_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    monkeypatch.setenv("ENGRAMORY_CACHE_DIR", str(store / "cache"))
    before = tree(store)
    assert cached(store, capsys) == uncached(store, capsys)
    assert tree(store) == before


@pytest.mark.parametrize("switch", ["flag", "env"])
def test_no_cache_neither_reads_nor_writes_the_cache(
    tmp_path: Path,
    home: Path,
    reads: Reads,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    switch: str,
) -> None:
    store = small_store(tmp_path / "store")
    flags = ("--no-cache",) if switch == "flag" else ()
    with monkeypatch.context() as patched:
        if switch == "env":
            patched.setenv("ENGRAMORY_NO_CACHE", "1")
        doctor_json(store, *flags, capsys=capsys)
    assert not home.exists()  # nothing written
    cached(store, capsys)  # now the cache is filled
    written = cache_file(home, store).read_bytes()
    (store / "beta.md").write_text(note("beta", "project"), encoding="utf-8")
    reads.take()
    with monkeypatch.context() as patched:
        if switch == "env":
            patched.setenv("ENGRAMORY_NO_CACHE", "1")
        doctor_json(store, *flags, capsys=capsys)
    assert reads.take() == 4  # nothing taken from the cache
    assert cache_file(home, store).read_bytes() == written  # nor updated


def test_an_unwritable_cache_folder_means_an_uncached_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    monkeypatch.setenv("ENGRAMORY_CACHE_DIR", str(blocker / "cache"))
    code, out = cached(store, capsys)
    assert (code, out) == uncached(store, capsys)
    assert code == 1  # the store has errors: the exit code is the uncached one
    assert capsys.readouterr().err == ""  # silently


@pytest.mark.parametrize(
    "garbage",
    [
        b"\x00\xff not json at all",
        b"",
        b"[1, 2, 3]\n",
        b'{"signature": "something else"}\n["alpha.md"]\n',
        b"HEADER\n" + b'["alpha.md", 1, 2]\n',
        b"HEADER\n" + b'{"rel": "alpha.md"}\n',
        b"HEADER\n" + b'["alpha.md"' + b", 0" * 11 + b"]\n",
    ],
)
def test_a_corrupt_or_foreign_cache_file_is_ignored_and_replaced(
    tmp_path: Path, home: Path, reads: Reads, capsys: pytest.CaptureFixture[str], garbage: bytes
) -> None:
    store = small_store(tmp_path / "store")
    plain = uncached(store, capsys)
    cached(store, capsys)
    path = cache_file(home, store)
    header = path.read_bytes().split(b"\n", 1)[0]
    path.write_bytes(garbage.replace(b"HEADER", header))
    drop_run_cache(home, store)
    reads.take()
    assert cached(store, capsys) == plain
    assert reads.take() == 4  # nothing taken from the garbage
    assert path.read_bytes().split(b"\n", 1)[0] == header  # replaced by a whole file
    assert cached(store, capsys) == plain
    assert reads.take() == 0


def test_a_truncated_cache_file_is_not_trusted_past_the_cut(
    tmp_path: Path, home: Path, reads: Reads, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    plain = uncached(store, capsys)
    cached(store, capsys)
    path = cache_file(home, store)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 10])  # the last note's line is cut
    drop_run_cache(home, store)
    reads.take()
    assert cached(store, capsys) == plain
    assert reads.take() == 1


def test_a_cache_written_by_another_version_is_ignored(
    tmp_path: Path,
    home: Path,
    reads: Reads,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = small_store(tmp_path / "store")
    with monkeypatch.context() as patched:
        patched.setattr(cache, "__version__", "0.0.1")
        cached(store, capsys)
    reads.take()
    assert cached(store, capsys) == uncached(store, capsys)
    assert reads.take() == 4 + 4


def test_another_day_is_another_run_signature(
    tmp_path: Path,
    home: Path,
    reads: Reads,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = small_store(tmp_path / "store")
    cached(store, capsys)
    reads.take()

    class Tomorrow(date):
        @classmethod
        def today(cls) -> date:
            return date.fromordinal(date.today().toordinal() + 1)

    with monkeypatch.context() as patched:
        patched.setattr(doctor_command, "date", Tomorrow)
        cached(store, capsys)
    assert reads.take() == 4


def test_other_rule_selections_keep_their_own_files_and_the_oldest_go(
    tmp_path: Path, home: Path, reads: Reads, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    cached(store, capsys)
    selections = ("orphan", "missing-field", "relative-date", "secret-value", "current-state")
    for number, rule_id in enumerate(selections):
        doctor_json(store, "--select", rule_id, capsys=capsys)
        for prefix in (cache.FILE_PREFIX, runcache.FILE_PREFIX):
            kept = cache_files(home, store, prefix)
            assert len(kept) == min(number + 2, cache.KEPT_FILES), kept
    reads.take()
    doctor_json(store, "--select", "current-state", capsys=capsys)
    assert reads.take() == 0  # a recent selection's file is still there
    cached(store, capsys)
    assert reads.take() == 4  # the default selection's was the oldest: pruned


def test_a_note_changed_within_one_mtime_tick_is_caught_by_its_size(
    tmp_path: Path,
    home: Path,
    reads: Reads,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A file system whose ctime says nothing (too coarse) and an edit in place that keeps
    the mtime: the size alone tells the two versions apart."""
    from engramory.store import disk

    monkeypatch.setattr(
        cache,
        "note_key",
        lambda rel, info: (rel, info.st_size, info.st_mtime_ns, 0, info.st_ino, info.st_dev),
    )
    walked_key = disk._lstat_key
    monkeypatch.setattr(
        disk, "_lstat_key", lambda entry: (*walked_key(entry)[:2], 0, *walked_key(entry)[3:])
    )
    store = small_store(tmp_path / "store")
    target = store / "alpha.md"
    cached(store, capsys)
    before = target.stat()
    target.write_text(note("alpha", body=BODIES[2]), encoding="utf-8")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size != before.st_size
    reads.take()
    assert cached(store, capsys) == uncached(store, capsys)
    assert reads.take() == 1 + 4


def test_workers_and_cache_give_the_same_report(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from engramory.doctor import workers

    monkeypatch.setattr(workers, "MIN_NOTES", 1)
    monkeypatch.setattr(workers, "CHUNK", 3)
    notes = {f"n{i:02}.md": note(f"n{i:02}", TYPES[i % 4], body=BODIES[i % 6]) for i in range(14)}
    store = write_store(tmp_path / "store", notes)
    plain = uncached(store, capsys)
    assert doctor_json(store, "--jobs", "2", capsys=capsys) == plain
    (store / "n03.md").write_text(note("n03", body=BODIES[1]), encoding="utf-8")
    (store / "n11.md").unlink()
    plain = uncached(store, capsys)
    assert doctor_json(store, "--jobs", "2", capsys=capsys) == plain


@pytest.mark.parametrize("store", CORPUS, ids=lambda p: p.name)
def test_the_corpus_reports_are_the_same_with_and_without_the_cache(
    store: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = uncached(store, capsys)
    assert cached(store, capsys) == plain  # cold
    assert cached(store, capsys) == plain  # warm


def test_a_run_that_changed_no_note_leaves_the_notes_file_as_it_was(
    tmp_path: Path, home: Path, reads: Reads, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    cached(store, capsys)
    path = cache_file(home, store)
    before = path.stat()
    (store / "MEMORY.md").write_text("# Memory\n\n- [alpha](alpha.md) — always\n", "utf-8")
    reads.take()
    assert cached(store, capsys) == uncached(store, capsys)
    assert reads.take() == 4  # the uncached run's: every note from the notes cache
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    (store / "beta.md").write_text(note("beta", "project", body=BODIES[0]), encoding="utf-8")
    assert cached(store, capsys) == uncached(store, capsys)
    assert path.stat().st_ino != before.st_ino  # a note checked afresh: a new file


def _spoil(saved: bytes, how: str) -> bytes:
    header, *chunks = saved.splitlines(keepends=True)
    fields = json.loads(header)
    if how == "not json":
        return b"\x00\xff not json at all\n"
    if how == "another digest":
        return json.dumps({**fields, "inputs": "0" * 64}).encode() + b"\n" + b"".join(chunks)
    if how == "one finding more":
        return (
            json.dumps({**fields, "findings": fields["findings"] + 1}).encode()
            + b"\n"
            + b"".join(chunks)
        )
    if how == "a finding of the wrong shape":
        return header + b'[["orphan", "error", "x.md", "1"]]\n'
    if how == "a line more":
        return saved + b"[]\n"
    if how in ("an unknown rule", "an unknown severity"):  # of the right shape otherwise
        first = json.loads(chunks[0])
        first[0][0 if how == "an unknown rule" else 1] = "bogus"
        return header + json.dumps(first).encode() + b"\n" + b"".join(chunks[1:])
    assert how == "cut"
    return saved[:-10]


@pytest.mark.parametrize(
    "how",
    [
        "not json",
        "another digest",
        "one finding more",
        "a finding of the wrong shape",
        "a line more",
        "an unknown rule",
        "an unknown severity",
        "cut",
    ],
)
def test_a_corrupt_or_foreign_saved_report_is_not_used(
    tmp_path: Path, home: Path, reads: Reads, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    store = small_store(tmp_path / "store")
    plain = uncached(store, capsys)
    cached(store, capsys)
    (path,) = cache_files(home, store, runcache.FILE_PREFIX)
    saved = path.read_bytes()
    assert json.loads(saved.splitlines()[0])["findings"] > 0
    path.write_bytes(_spoil(saved, how))
    drop_outputs(home, store)
    reads.take()
    assert cached(store, capsys) == plain
    assert reads.take() == 0  # a full run over the notes cache (no note read)...
    assert path.read_bytes() == saved  # ...which saved the report afresh


def test_the_saved_report_is_not_used_once_an_archived_note_or_a_folder_changes(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = small_store(tmp_path / "store")
    (store / "archive").mkdir()
    (store / "archive" / "old.md").write_text(note("old", body=BODIES[0]), encoding="utf-8")
    cached(store, capsys)
    (store / "archive" / "old.md").write_text(note("old", body=BODIES[1] * 3), encoding="utf-8")
    assert cached(store, capsys) == uncached(store, capsys)
    (store / "sessions").mkdir()
    assert cached(store, capsys) == uncached(store, capsys)
    (store / "handoff.txt").write_text("left for the next session\n", encoding="utf-8")
    assert cached(store, capsys) == uncached(store, capsys)


def test_selections_of_store_rules_alone_keep_their_own_reports(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two selections with the same note rules (none) and other store rules."""
    store = small_store(tmp_path / "store")
    (store / "MEMORY.md").write_text("# Memory\n\n- [alpha](alpha.md) — always\n", "utf-8")
    for rule_id in ("orphan", "nested-note", "orphan"):
        plain = doctor_json(store, "--select", rule_id, "--no-cache", capsys=capsys)
        assert rule_id in plain[1]
        assert doctor_json(store, "--select", rule_id, capsys=capsys) == plain


def test_the_git_rule_runs_again_on_a_warm_run(
    tmp_path: Path, home: Path, reads: Reads, capsys: pytest.CaptureFixture[str]
) -> None:
    """``not-gitignored`` reads git, outside the store: a saved report does not hold it."""
    repo = tmp_path / "repo"
    store = small_store(repo / "store")
    cached(store, capsys)
    git(repo, "init", "-q")
    reads.take()
    warm = cached(store, capsys)
    assert reads.take() == 0
    assert warm == uncached(store, capsys)
    assert "not-gitignored" in warm[1]
    (repo / ".gitignore").write_text("store/\n", encoding="utf-8")
    assert cached(store, capsys) == uncached(store, capsys)
    assert "not-gitignored" not in cached(store, capsys)[1]


def git(repo: Path, *args: str) -> None:
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def test_values_round_trip_through_the_cache_encoding() -> None:
    value = [None, True, 3, 2.5, "x", b"\x00\xff", (1, (b"a", "b")), {"k": (1, 2), 3: [4]}]
    assert cache.decode(json.loads(json.dumps(cache.encode(value)))) == value
    with pytest.raises(cache.Unencodable):
        cache.encode({1, 2})
    for bad in ({"x": 1}, {"b": 3}, {"t": 1, "b": "x"}, {"d": [[[1], 2]]}):
        with pytest.raises((ValueError, TypeError)):
            cache.decode(bad)


@given(st.binary(max_size=200))
def test_cached_bytes_round_trip_and_only_canonical_base64_is_taken(data: bytes) -> None:
    encoded = cache.encode(data)
    assert cache.decode(json.loads(json.dumps(encoded))) == data
    text = encoded["b"]
    for bad in (text + "\n", " " + text, text.rstrip("=") if text.endswith("=") else text + "!"):
        with pytest.raises(ValueError):
            cache.decode({"b": bad})


def test_a_cached_fact_in_non_canonical_base64_is_refused() -> None:
    for bad in ("QQ", "QR==", "Q Q==", "QQ==\n", "é", "\udc80"):
        with pytest.raises(ValueError):
            cache.decode({"b": bad})
    assert cache.decode({"b": "QQ=="}) == b"A"


def test_findings_sort_as_by_their_sort_key() -> None:
    rows = [("b.md", None, "z"), ("a.md", 3, "x"), ("a.md", None, "y"), ("a.md", 3, "a")]
    rows += [("a.md", 0, "x"), ("a.md", -2, "x"), ("b.md", 12, "a"), ("a.md", 3, "x")]
    found = [
        Finding(rule, "info", path, line, f"m{n}") for n, (path, line, rule) in enumerate(rows)
    ]
    expected = sorted(found, key=Finding.sort_key)
    sort_findings(found)
    assert [f.message for f in found] == [f.message for f in expected]


# --- the property: after any sequence of changes, cached equals uncached -------------------

OUTPUTS = (
    ("--format", "json"),
    ("--format", "text"),
    ("--format", "text", "--color", "always"),
    ("--format", "text", "--statistics"),
    ("--format", "text", "--max-findings", "2"),
    ("--format", "sarif"),
    ("--format", "github"),
)
CONTENTS = st.tuples(st.sampled_from(TYPES), st.sampled_from(BODIES), st.booleans())


class CachedEqualsUncached(RuleBasedStateMachine):
    """Edits, additions, deletions, renames, touches, index and allow-list edits."""

    def __init__(self) -> None:
        super().__init__()
        import tempfile

        self.base = Path(tempfile.mkdtemp(prefix="engramory-cache-test-"))
        self.store = write_store(self.base / "store", {"alpha.md": note("alpha")})
        self.home = self.base / "home"
        self.patch = pytest.MonkeyPatch()
        self.patch.setenv("ENGRAMORY_CACHE_DIR", str(self.home))
        self.clock = 1_700_000_000_000_000_000
        self.flags: tuple[str, ...] = ("--format", "json")

    def teardown(self) -> None:
        import shutil

        self.patch.undo()
        shutil.rmtree(self.base, ignore_errors=True)

    def notes(self) -> list[str]:
        return sorted(
            str(p.relative_to(self.store))
            for p in self.store.rglob("*.md")
            if p.name != "MEMORY.md" and p.parts[len(self.store.parts)] != "archive"
        )

    def _write(self, rel: str, kind: tuple[str, str, bool]) -> None:
        note_type, body, broken = kind
        slug = rel.rsplit("/", 1)[-1][:-3]
        text = note(slug, note_type, body=body, drop=("description",) if broken else ())
        path = self.store / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    @rule(slug=st.sampled_from(SLUGS), kind=CONTENTS)
    def write_note(self, slug: str, kind: tuple[str, str, bool]) -> None:
        self._write(slug + ".md", kind)

    @precondition(lambda self: self.notes())
    @rule(data=st.data())
    def delete_note(self, data: st.DataObject) -> None:
        (self.store / data.draw(st.sampled_from(self.notes()))).unlink()

    @precondition(lambda self: self.notes())
    @rule(data=st.data(), slug=st.sampled_from(SLUGS))
    def rename_note(self, data: st.DataObject, slug: str) -> None:
        source = self.store / data.draw(st.sampled_from(self.notes()))
        target = self.store / (slug + ".md")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)

    @precondition(lambda self: self.notes())
    @rule(data=st.data(), back=st.booleans())
    def touch_note(self, data: st.DataObject, back: bool) -> None:
        path = self.store / data.draw(st.sampled_from(self.notes()))
        self.clock += 1_000_000_000
        stamp = 1_600_000_000_000_000_000 if back else self.clock
        os.utime(path, ns=(stamp, stamp))

    @rule(
        pointed=st.lists(st.sampled_from(SLUGS), max_size=4),
        allow=st.sampled_from(("", "relative-date", "secret-value", "orphan,missing-field")),
    )
    def edit_index(self, pointed: list[str], allow: str) -> None:
        lines = ["# Memory", ""]
        lines += [f"- [{s}]({s}.md) — when it matters" for s in pointed]
        if allow:
            lines.append(f"<!-- engramory: allow {allow} -->")
        (self.store / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")

    @rule(allowed=st.booleans())
    def edit_allow_list(self, allowed: bool) -> None:
        folder = self.store / ".engramory"
        folder.mkdir(exist_ok=True)
        entry = TOKEN_PRINT if allowed else "# nothing allowed"
        (folder / "allow-secrets").write_text(entry + "\n", encoding="utf-8")

    @rule(ignored=st.sampled_from(("", "store/\n", "other/\n")))
    def change_git_state(self, ignored: str) -> None:
        """The store inside a git repository (made on first use), ignored or not."""
        if not (self.base / ".git").exists():
            git(self.base, "init", "-q")
        (self.base / ".gitignore").write_text(ignored, encoding="utf-8")

    @rule(data=st.data(), kind=CONTENTS)
    def change_around_the_notes(self, data: st.DataObject, kind: tuple[str, str, bool]) -> None:
        """An archived note, a parallel-store folder, a loose handoff file."""
        what = data.draw(st.sampled_from(("archive", "folder", "loose")))
        if what == "archive":
            self._write("archive/" + data.draw(st.sampled_from(SLUGS[:4])) + ".md", kind)
        elif what == "folder":
            (self.store / "sessions").mkdir(exist_ok=True)
        else:
            (self.store / "handoff.txt").write_text(kind[1], encoding="utf-8")

    @rule(
        output=st.sampled_from(OUTPUTS),
        strict=st.booleans(),
        profile=st.sampled_from(("", "engramory", "claude-native")),
    )
    def change_output(self, output: tuple[str, ...], strict: bool, profile: str) -> None:
        """Another format (and its options), --strict, --profile: another saved output."""
        self.flags = (*output, *(("--strict",) if strict else ()))
        self.flags += ("--profile", profile) if profile else ()

    @invariant()
    def cached_equals_uncached(self) -> None:
        plain = self._run("--no-cache")
        assert self._run() == plain
        assert self._run() == plain  # and once warm (the saved output replayed)
        drop_outputs(self.home, self.store)
        assert self._run() == plain  # the saved report, rendered afresh
        drop_run_cache(self.home, self.store)
        assert self._run() == plain  # every note from the notes cache, store rules run

    def _run(self, *flags: str) -> tuple[int, str, str]:
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["doctor", str(self.store), *self.flags, *flags])
        return code, out.getvalue(), err.getvalue()


CachedEqualsUncached.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
test_cached_equals_uncached = CachedEqualsUncached.TestCase


class CoarseClockCachedEqualsUncached(CachedEqualsUncached):
    """The same on a file system with 2-second timestamps (FAT), with the racy window on:
    a note rewritten in place with the same size, in one tick, keeps its ``lstat``."""

    TICK = 2_000_000_000

    def __init__(self) -> None:
        super().__init__()
        tick = self.TICK
        coarse_clock(self.patch, tick)
        self.patch.setattr(cache, "RACY_NS", tick)

    @precondition(lambda self: self.notes())
    @rule(data=st.data(), kind=CONTENTS)
    def rewrite_in_place_with_the_same_size(
        self, data: st.DataObject, kind: tuple[str, str, bool]
    ) -> None:
        path = self.store / data.draw(st.sampled_from(self.notes()))
        size = path.stat().st_size
        note_type, body, broken = kind
        slug = path.name[:-3]
        text = note(slug, note_type, body=body, drop=("description",) if broken else ())
        if len(text.encode()) < size:  # padded to the old size (else simply rewritten)
            text = text[:-1] + " " * (size - len(text.encode())) + "\n"
        with open(path, "r+b") as handle:  # the same inode
            handle.write(text.encode())
            handle.truncate()


CoarseClockCachedEqualsUncached.TestCase.settings = settings(
    max_examples=10,
    stateful_step_count=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
test_coarse_clock_cached_equals_uncached = CoarseClockCachedEqualsUncached.TestCase


def test_a_cached_finding_keeps_what_its_repair_reads(home: Path, tmp_path: Path) -> None:
    """``fix`` chooses missing-field's findings by their key: a warm run must keep it."""
    from engramory.store.caps import Caps

    store = write_store(tmp_path / "s", {"alpha.md": note("alpha", body=BODIES[1])})
    text = (store / "alpha.md").read_text(encoding="utf-8").replace("name: alpha\n", "")
    (store / "alpha.md").write_text(text, encoding="utf-8")

    def keys() -> list[tuple[str, object, object]]:
        report = engine.run(str(store), Caps(), cache_home=str(home))
        return sorted((f.rule, f.key, f.detector) for f in report.findings)

    cold = keys()
    assert ("missing-field", "name", None) in cold
    assert cache_file(home, store).exists()
    assert keys() == cold  # from the cache now


def test_a_notes_or_report_file_of_another_user_is_not_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the output cache's files: another user's file (root's, in the user's own
    folder, say) is not trusted, nor is a FIFO or a symlink."""
    path = tmp_path / "notes.jsonl"
    path.write_text("kept\n", encoding="utf-8")
    with cache.open_text(str(path)) as handle:  # type: ignore[union-attr]
        assert handle.read() == "kept\n"
    owner = path.stat().st_uid
    monkeypatch.setattr(cache.os, "getuid", lambda: owner + 1)
    assert cache.open_text(str(path)) is None
    monkeypatch.undo()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert cache.open_text(str(fifo)) is None
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    assert cache.open_text(str(link)) is None


def test_the_notes_and_report_files_are_flushed_to_disk_before_the_rename(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """temp + fsync + rename: a crash leaves the old file or the whole new one."""
    synced: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}") if os.path.isdir("/proc") else "?")
        real_fsync(fd)

    def replace(source: str, target: str) -> None:
        if str(home) in source:
            assert "?" in synced or os.path.realpath(source) in synced, source
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    store = small_store(tmp_path / "store")
    cached(store, capsys)
    folder = Path(cache.store_folder(str(home), os.path.realpath(store)))
    names = sorted(p.name.split("-")[0] for p in folder.iterdir())
    assert names == ["dialect.json", "notes", "output", "report"]


CODEX_HANDBOOK = "# Task Group: deploys\nscope: repo\n\n## Task 1\nship it\n"


@pytest.mark.parametrize("first, then", [("json", "text"), ("text", "sarif"), ("sarif", "json")])
def test_an_outside_rules_finding_silenced_in_its_note_stays_silenced_in_a_reused_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], first: str, then: str
) -> None:
    """A report taken from the saved one (another format) runs the outside rules again: a
    note's own allow comment must silence them then as in a full run, not only MEMORY.md's."""
    store = tmp_path / "codex"
    store.mkdir()
    (store / "MEMORY.md").write_text(CODEX_HANDBOOK, encoding="utf-8")
    summary = "# Summary <!-- engramory: allow codex-summary-header -->\nprefers tabs\n"
    (store / "memory_summary.md").write_text(summary, encoding="utf-8")
    flags = ["--profile", "codex-memories"]

    def run(fmt: str, *more: str) -> tuple[int, str]:
        capsys.readouterr()
        code = main(["doctor", str(store), "--format", fmt, *flags, *more])
        return code, capsys.readouterr().out

    for fmt in (first, then, first):
        fresh = run(fmt, "--no-cache")
        assert "edited by hand" not in fresh[1]  # the finding's message: silenced
        assert run(fmt) == fresh, fmt
