"""A note whose file name is not valid UTF-8 (issue 32): every command that lists files, in
every output format, names it with escapes and never with a traceback.

Linux keeps any bytes in a file name; Python hands them over as lone surrogates
(``caf\\udce9.md`` for the bytes ``caf\\xe9.md``). The text outputs print that escape,
JSON escapes it itself, SARIF percent-encodes the original bytes (``caf%E9.md``).
Each command runs as a real process, so its output must also be valid UTF-8.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from tracekit import Tree, user, write_lines

from conftest import run_engramory
from doctorkit import note, valid_store

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="only Linux file systems keep names that are not UTF-8"
)

RAW = b"caf\xe9"  # Latin-1 "café": not UTF-8
NAME = os.fsdecode(RAW)  # 'caf\udce9', as os.listdir gives it
SHOWN = "caf\\udce9"  # how the text outputs print it
BODY = note("cafe")


def odd_store(root: Path) -> Path:
    """A valid store plus a note whose file name is not UTF-8 (an orphan, named 'cafe')."""
    store = valid_store(root)
    (store / (NAME + ".md")).write_bytes(BODY.encode("utf-8"))
    return store


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """Run a command; no traceback, and its output, which must be UTF-8, as one string: with
    ``--format json`` or ``sarif`` only stdout (what a program parses; stderr is still checked)."""
    result = run_engramory(*args, env=env, cwd=cwd)
    err = result.stderr.decode("utf-8")
    assert "Traceback" not in err, err
    assert result.returncode in (0, 1), (result.returncode, err)
    out = result.stdout.decode("utf-8")
    machine = any(a in ("json", "sarif") for a in args)
    return out if machine else out + err


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return odd_store(tmp_path / "s")


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_doctor_text_formats_escape_the_name(store: Path, fmt: str) -> None:
    out = run("doctor", str(store), "--format", fmt)
    assert f"{SHOWN}.md" in out
    assert "orphan" in out


def test_doctor_json_escapes_the_name(store: Path) -> None:
    out = run("doctor", str(store), "--format", "json")
    findings = json.loads(out)["findings"]
    assert {f["rule"] for f in findings if f["path"] == NAME + ".md"} >= {"orphan"}
    assert '"caf\\udce9.md"' in out  # a JSON escape, never the raw byte


def test_doctor_sarif_percent_encodes_the_bytes(store: Path, tmp_path: Path) -> None:
    out = run("doctor", str(store), "--format", "sarif", cwd=tmp_path)
    results = json.loads(out)["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert "s/caf%E9.md" in uris


def test_doctor_statistics_count_the_findings(store: Path) -> None:
    out = run("doctor", str(store), "--statistics")
    assert any(line.split()[:3] == ["1", "error", "orphan"] for line in out.splitlines())


@pytest.mark.parametrize("apply", [False, True], ids=["dry", "apply"])
def test_fix_leaves_the_note_and_says_why(store: Path, apply: bool) -> None:
    note_path = store / (NAME + ".md")
    out = run("fix", str(store), *(["--apply"] if apply else []))
    assert f"{SHOWN}.md: left as it is: its file name is not valid UTF-8" in out
    assert f"{SHOWN}.md: not indexed: its file name is not valid UTF-8" in out
    assert note_path.read_bytes() == BODY.encode("utf-8")
    assert b"\xe9" not in (store / "MEMORY.md").read_bytes()


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_compact_runs_past_the_name(store: Path, fmt: str) -> None:
    out = run("compact", str(store), "--to", "soft", "--warn-lines", "3", "--format", fmt)
    if fmt == "json":
        json.loads(out)


def test_archive_moves_the_note_and_escapes_its_name(store: Path) -> None:
    out = run("archive", NAME, "--store", str(store))
    assert f"moved {SHOWN}.md -> archive/{SHOWN}.md" in out
    assert (store / "archive" / (NAME + ".md")).read_bytes() == BODY.encode("utf-8")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_export_keeps_the_name_and_escapes_it(store: Path, tmp_path: Path, fmt: str) -> None:
    out = run("export", "memoir", "--store", str(store), "--format", fmt, str(tmp_path / "out"))
    assert (tmp_path / "out" / (NAME + ".md")).is_file()
    if fmt == "json":
        assert NAME + ".md" in [e["file"] for e in json.loads(out)["entries"]]


@pytest.mark.parametrize("source", ["memoir", "claude-memory"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_import_skips_the_file_and_names_it(tmp_path: Path, source: str, fmt: str) -> None:
    folder = tmp_path / "source"
    folder.mkdir()
    if source == "memoir":
        run("export", "memoir", "--store", str(odd_store(tmp_path / "s")), str(folder))
    else:
        for path in odd_store(tmp_path / "s").glob("*.md"):
            shutil.copy(path, folder / path.name)
    target = tmp_path / "target"
    out = run("import", source, str(folder), "--store", str(target), "--format", fmt)
    if fmt == "json":
        skipped = json.loads(out)["skipped_files"]
        assert [s["source"] for s in skipped] == [NAME + ".md"]
        assert "not valid UTF-8" in skipped[0]["detail"]
    else:
        assert f"{SHOWN}.md: not-read (its file name is not valid UTF-8" in out
    assert not (target / (NAME + ".md")).exists()
    (target / "MEMORY.md").read_bytes().decode("utf-8")  # the index stays UTF-8


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_trace_names_a_session_file_with_escapes(tmp_path: Path, fmt: str) -> None:
    tree = Tree(tmp_path)
    folder = tree.folder(tree.project)
    message = user("u1", "the parser broke", str(tree.project), "2026-07-13T10:00:00Z")
    write_lines(folder / (NAME + ".jsonl"), [message])
    out = run("trace", "parser", "--format", fmt, env=tree.env(), cwd=tree.project)
    if fmt == "json":
        (hit,) = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert hit["file"].endswith(NAME + ".jsonl")
    else:
        assert SHOWN in out and "parser" in out
