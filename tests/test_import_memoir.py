"""`engramory import memoir`: the memoir reading rules (issue 18), through the CLI and the pure
mapping, and the import core's rules (collisions, caps, overflow, dry run, refusals, undo)."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from doctorkit import doctor, make_store, note, valid_store
from engramory.interop import memoir_import
from engramory.interop.importer import Candidate, Skip
from engramory.store.frontmatter import parse
from engramory.util import fsutil
from engramory.write import backup
from engramory.write.filedates import FileDates

ENTRIES = {
    "fact_staging.md": """---
type: fact
name: Staging API endpoints
description: Base URLs and auth mode for the staging environment
created: 2026-05-14
updated: 2026-05-20
project: acme-api
source: https://staging.api.example.com/docs
tags:
  - staging
  - api
aliases: [ignored]
origin:
  tool: memoir-cli
  session_id: 3f2a9c11
---

Staging runs at `https://staging.api.example.com`. See [[decision_local-db]].
""",
    "preference_commits.md": """---
type: preference
name: Commit message style
description: Imperative mood, no trailers, reference the issue number
scope: project
created: 2026-05-01
---

Commit subjects in imperative mood.
""",
    "decision_local-db.md": """---
type: decision
name: Local store is SQLite, not Postgres
description: Single-file embedded DB for the local cache
date: 2026-05-02
why: Zero-dependency install matters more than concurrent writers.
rejected: Postgres, a daemon dependency in a CLI install.
---

Applies to the local derived cache only.
""",
    "lesson_migrations.md": """---
type: lesson
name: Rehearse destructive migrations on a copy first
description: Never run a schema migration against the only copy of the data
trigger: About to run a migration that drops columns
how_to_apply: Restore the latest backup to a scratch database and run it there first.
created: 2026-04-11
---

**Why:** A migration was run against the only database.
""",
    "goal_importer.md": """---
type: goal
name: Ship v1 of the importer
description: End-to-end import from the three legacy formats
set_on: 2026-06-01
---

Done means: all three formats round-trip in CI.
""",
    "next_action_retry.md": """---
type: next_action
name: Add retry with backoff to the sync client
description: Sync fails hard on transient 5xx
added: 2026-06-12T09:30:00Z
---

Touch only `src/sync/client.js`.
""",
    "decision_hidden.md": """---
type: decision
name: Use Mongo
description: a hidden decision
hidden: true
hidden_at: 2026-06-02
---

Mongo everywhere.
""",
    "decision_purged.md": """---
type: decision
name: "[purged]"
hidden: true
hidden_at: 2026-06-03
text_hash: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
---
""",
    "next_action_done.md": """---
type: next_action
name: Fix the flaky test
description: done already
added: 2026-06-01
done_at: 2026-06-05
---
""",
    "widget_x.md": "---\ntype: widget\nname: A widget\n---\nw\n",
    "fact_future.md": "---\ntype: fact\nname: From the future\nschema_version: 2\n---\nf\n",
    "legacy_feedback.md": """---
name: legacy feedback
description: Run the linter before committing
metadata:
  node_type: memory
  type: feedback
  originSessionId: 1b2c3d
---

Lint first.

**Why:** CI fails otherwise.

**How to apply:** run ruff before git commit.
""",
    "bare.md": "# Notes on the deploy pipeline\n\nIt deploys on tag.\n",
}
# aliases in flow style is outside memoir's subset: that one entry is a syntax skip.
ENTRIES["fact_staging.md"] = ENTRIES["fact_staging.md"].replace(
    "aliases: [ignored]\n", "aliases:\n  - stage\n"
)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def snapshot(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every file's hash, mode and mtime (ns): a read-only source or a refusal keeps it equal."""
    out = {}
    if not root.exists():
        return out
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        out[path.relative_to(root).as_posix()] = (digest, info.st_mode, info.st_mtime_ns)
    return out


def fields_of(path: Path) -> dict[str, str]:
    return parse(path.read_text(encoding="utf-8")).fields


def errors(root: Path) -> list[str]:
    return [f"{f.path}: {f.rule}" for f in doctor(root).findings if f.severity == "error"]


# The entry files' modification time: what an entry without dates of its own is dated from.
FILE_DAY = "2026-04-07"
FILE_TIME = datetime(2026, 4, 7, 12, 0, 0).timestamp()


@pytest.fixture
def memoir(tmp_path: Path) -> Path:
    source = write_tree(tmp_path / "memoir", ENTRIES)
    (source / "session.json").write_text('{"version": 1, "current": {}}', encoding="utf-8")
    for path in source.iterdir():
        os.utime(path, (FILE_TIME, FILE_TIME))
    return source


def test_hand_written_store_imports_as_the_rules_say(cli, memoir: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    before = snapshot(memoir)
    result = cli("import", "memoir", str(memoir), "--store", str(store), "--format", "json")
    assert result.code == 0, result
    report = json.loads(result.out)
    assert report["imported"] == {"reference": 2, "feedback": 3, "project": 3}
    assert report["skipped"] == {
        "hidden": 1,
        "purged": 1,
        "newer-version": 1,
        "done": 1,
        "unknown-type": 1,
    }
    assert [s["source"] for s in report["skipped_files"] if s["reason"] == "unknown-type"] == [
        "widget_x.md"
    ]
    assert report["created_store"] is True
    assert any("upgrade" in w for w in report["warnings"])
    assert any("session.json ignored" in n for n in report["notes_said"])
    assert snapshot(memoir) == before  # the source is only read
    assert errors(store) == []
    names = sorted(p.name for p in store.glob("*.md"))
    assert names == [
        "MEMORY.md",
        "bare.md",
        "decision_local-db.md",
        "fact_staging.md",
        "goal_importer.md",
        "legacy_feedback.md",
        "lesson_migrations.md",
        "next_action_retry.md",
        "preference_commits.md",
    ]

    fact = fields_of(store / "fact_staging.md")
    assert fact["type"] == "reference" and fact["scope"] == "repo"
    assert fact["tags"] == "staging, api" and fact["aliases"] == "stage"
    assert fact["origin_session_id"] == "3f2a9c11" and fact["origin_tool"] == "memoir-cli"
    assert fact["source"] == "https://staging.api.example.com/docs"
    assert fact["created"] == "2026-05-14" and fact["updated"] == "2026-05-20"

    preference = (store / "preference_commits.md").read_text(encoding="utf-8")
    assert fields_of(store / "preference_commits.md")["scope"] == "repo"
    assert "**Why:** a stated preference of the user" in preference

    decision = (store / "decision_local-db.md").read_text(encoding="utf-8")
    assert fields_of(store / "decision_local-db.md")["type"] == "project"
    assert "**Why:** Zero-dependency install matters more than concurrent writers." in decision
    assert "Postgres, a daemon dependency in a CLI install." in decision

    lesson = (store / "lesson_migrations.md").read_text(encoding="utf-8")
    assert fields_of(store / "lesson_migrations.md")["type"] == "feedback"
    assert lesson.count("**Why:**") == 1  # the body's own Why: kept, the trigger not added
    assert "**How to apply:** Restore the latest backup" in lesson

    for goal in ("goal_importer.md", "next_action_retry.md"):
        assert fields_of(store / goal)["type"] == "project"
    assert fields_of(store / "next_action_retry.md")["created"] == "2026-06-12"

    legacy = fields_of(store / "legacy_feedback.md")
    assert legacy["type"] == "feedback" and legacy["originSessionId"] == "1b2c3d"
    assert legacy["node_type"] == "memory" and "metadata" not in legacy
    assert legacy["created"] == legacy["updated"] == FILE_DAY  # the file's, not today's

    bare = fields_of(store / "bare.md")
    assert bare["type"] == "reference" and bare["description"] == "Notes on the deploy pipeline"
    assert bare["created"] == bare["updated"] == FILE_DAY
    text = (store / "bare.md").read_text(encoding="utf-8")
    assert parse(text).body == ENTRIES["bare.md"]  # byte for byte: no blank line added
    dates = {d["note"]: d["from"] for d in report["dates"]}
    assert dates["bare.md"] == dates["legacy_feedback.md"] == "mtime"
    assert dates["fact_staging.md"] == "entry"

    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert "- [Staging API endpoints](fact_staging.md) — Base URLs" in index
    for gone in ("decision_hidden", "decision_purged", "next_action_done", "widget_x"):
        assert gone not in index and not (store / f"{gone}.md").exists()


def test_text_report_names_store_counts_and_next_step(cli, memoir: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    result = cli("import", "memoir", str(memoir), "--store", str(store))
    assert result.code == 0, result
    assert f"store {store}" in result.out
    assert "imported 3 feedback, 3 project, 2 reference" in result.out
    assert "skipped 5: 1 hidden, 1 purged, 1 newer-version, 1 done, 1 unknown-type" in result.out
    assert f"next: engramory doctor {store}" in result.out
    assert result.out.count("upgrade") == 1  # one warning, however many newer entries


def test_store_given_before_the_action_is_the_store(
    cli, memoir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "store"
    result = cli("import", "--store", str(store), "memoir", str(memoir))
    assert result.code == 0, result
    assert f"next: engramory doctor {store}" in result.out
    assert (store / "MEMORY.md").is_file()
    assert not (tmp_path / ".engramory-memory").exists()  # not the default store instead


def test_dry_run_writes_nothing(cli, memoir: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    result = cli("import", "memoir", str(memoir), "--store", str(store), "--dry-run")
    assert result.code == 0, result
    assert "would import 3 feedback" in result.out and "--dry-run" in result.out
    assert not store.exists()
    existing = valid_store(tmp_path / "existing")
    before = snapshot(existing)
    assert cli("import", "memoir", str(memoir), "--store", str(existing), "--dry-run").code == 0
    assert snapshot(existing) == before


def test_into_an_existing_store_collisions_skipped_never_overwritten(
    cli, memoir: Path, tmp_path: Path
) -> None:
    store = valid_store(tmp_path / "store")
    (store / "archive").mkdir()
    (store / "archive" / "Goal_Importer.md").write_text(note("goal_importer"), encoding="utf-8")
    (store / "Bare.md").write_text(note("bare"), encoding="utf-8")
    index = store / "MEMORY.md"
    index.write_text(index.read_text(encoding="utf-8") + "- [b](Bare.md) — b\n", encoding="utf-8")
    kept = (store / "Bare.md").read_bytes()
    result = cli("import", "memoir", str(memoir), "--store", str(store), "--format", "json")
    assert result.code == 0, result
    report = json.loads(result.out)
    collided = sorted(s["source"] for s in report["skipped_files"] if s["reason"] == "collision")
    assert collided == ["bare.md", "goal_importer.md"]
    assert (store / "Bare.md").read_bytes() == kept
    assert not (store / "goal_importer.md").exists()
    assert errors(store) == []


def test_over_hard_cap_refuses_and_writes_nothing(cli, memoir: Path, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "store")
    lines = len((store / "MEMORY.md").read_text(encoding="utf-8").split("\n")) - 1
    before = snapshot(store)
    result = cli(
        "import", "memoir", str(memoir), "--store", str(store), "--hard-lines", str(lines + 3)
    )
    assert result.code == 1, result
    assert "of 8 fit" in result.err and "Nothing was written" in result.err
    assert snapshot(store) == before
    fresh = tmp_path / "fresh"
    assert (
        cli("import", "memoir", str(memoir), "--store", str(fresh), "--hard-lines", "5").code == 1
    )
    assert not fresh.exists()


def test_archive_overflow_keeps_soft_cap_and_loses_nothing(
    cli, memoir: Path, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    result = cli(
        "import", "memoir", str(memoir), "--store", str(store), "--archive-overflow",
        "--warn-lines", "16", "--hard-lines", "17", "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result
    report = json.loads(result.out)
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert len(index.split("\n")) - 1 <= 16
    live = {p.name for p in store.glob("*.md")} - {"MEMORY.md"}
    archived = {p.name for p in (store / "archive").glob("*.md")}
    assert len(live) + len(archived) == 8 and not live & archived
    assert archived and {f"archive/{n}" for n in archived} == set(report["archived"])
    # the most recently updated stay live: next_action (2026-06-12) before the goal (06-01)
    assert "next_action_retry.md" in live
    assert all(name not in index for name in archived)
    assert errors(store) == []


def test_undo_takes_the_import_back(cli, memoir: Path, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "store")
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    result = cli("import", "memoir", str(memoir), "--store", str(store), "--format", "json")
    backup_id = json.loads(result.out)["backup"]
    assert cli("import", "--undo", backup_id, "--store", str(store)).code == 0
    after = {
        p: p.read_bytes() for p in store.rglob("*") if p.is_file() and ".engramory" not in p.parts
    }
    assert after == before


def test_store_that_is_the_memoir_folder_is_refused(cli, memoir: Path) -> None:
    before = snapshot(memoir)
    result = cli("import", "memoir", str(memoir), "--store", str(memoir))
    assert result.code == 1 and "give another --store" in result.err, result
    assert snapshot(memoir) == before


def test_a_write_failing_midway_says_what_was_written_and_undo_repairs(
    cli, memoir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = valid_store(tmp_path / "store")
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    real = fsutil.write_atomic

    def failing(path, data, mode=None):  # the index write fails after the notes were made
        if os.path.basename(path) == "MEMORY.md" and ".engramory" not in str(path):
            raise OSError(28, "No space left on device")
        return real(path, data, mode)

    monkeypatch.setattr(backup.fsutil, "write_atomic", failing)
    result = cli("import", "memoir", str(memoir), "--store", str(store))
    assert result.code == 1, result
    assert "engramory import --undo" in result.err
    assert "written before it failed: " in result.err and "fact_staging.md" in result.err
    monkeypatch.setattr(backup.fsutil, "write_atomic", real)
    backup_id = result.err.split("--undo ")[1].split(")")[0].split(";")[0].split()[0]
    assert cli("import", "--undo", backup_id, "--store", str(store)).code == 0
    after = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    assert {p: b for p, b in after.items() if ".engramory" not in p.parts} == before


def test_missing_source_is_66_and_usage_is_64(cli, tmp_path: Path) -> None:
    assert (
        cli("import", "memoir", str(tmp_path / "nope"), "--store", str(tmp_path / "s")).code == 66
    )
    assert cli("import", "memoir").code == 64
    assert cli("import", "memoir", str(tmp_path), "--bogus").code == 64
    assert not (tmp_path / "s").exists()


def test_unparseable_session_json_is_quarantined_not_fatal(
    cli, memoir: Path, tmp_path: Path
) -> None:
    (memoir / "session.json").write_text("{not json", encoding="utf-8")
    result = cli("import", "memoir", str(memoir), "--store", str(tmp_path / "s"))
    assert result.code == 0, result
    assert "session.json could not be parsed: quarantined" in result.out
    assert (memoir / "session.json").read_text(encoding="utf-8") == "{not json"


def test_newer_session_json_is_not_interpreted(cli, tmp_path: Path) -> None:
    source = write_tree(tmp_path / "m", {"fact_a.md": ENTRIES["fact_staging.md"]})
    (source / "session.json").write_text('{"version": 2}', encoding="utf-8")
    result = cli("import", "memoir", str(source), "--store", str(tmp_path / "s"))
    assert result.code == 0, result
    assert "session.json written by a newer memoir" in result.out


def test_syntax_error_entry_is_listed_with_its_line(cli, tmp_path: Path) -> None:
    source = write_tree(tmp_path / "m", {"fact_a.md": "---\ntype: fact\nname: [a, b]\n---\nx\n"})
    result = cli(
        "import", "memoir", str(source), "--store", str(tmp_path / "s"), "--format", "json"
    )
    assert result.code == 0, result
    skipped = json.loads(result.out)["skipped_files"]
    assert skipped[0]["source"] == "fact_a.md" and skipped[0]["reason"] == "syntax"
    assert "line 3" in skipped[0]["detail"]


def test_a_secret_in_an_entry_is_written_redacted_and_listed(cli, tmp_path: Path) -> None:
    """Issue 33: import never loses a note to a secret: the value is replaced by
    ``[redacted: <detector>]``, the replacement listed (note, line, detector), the source kept."""
    key = "AKIA" + "QWERTYUIOPASDFGH"[::-1]
    password = "Hx9#kQ2" + "!mZ7pL"
    entry = f"---\ntype: fact\nname: a\npassword: {password}\n---\naws key {key}\nmore\n"
    source = write_tree(tmp_path / "m", {"fact_a.md": entry})
    result = cli("import", "memoir", str(source), "--store", str(tmp_path / "s"))
    assert result.code == 0, result
    assert key not in result.out + result.err and password not in result.out + result.err
    written = (tmp_path / "s" / "fact_a.md").read_text(encoding="utf-8")
    assert key not in written and password not in written
    assert "aws key [redacted: aws-access-key-id]\nmore\n" in written
    assert "[redacted: labelled-secret]" in written
    lines = written.split("\n")
    key_line = next(n for n, line in enumerate(lines, 1) if "aws-access-key-id" in line)
    assert f"fact_a.md, line {key_line}: aws-access-key-id" in result.out
    assert "the source still holds the original" in result.out
    assert (source / "fact_a.md").read_text(encoding="utf-8") == entry  # never modified
    report = json.loads(
        cli("import", "memoir", str(source), "--store", str(tmp_path / "j"), "--format", "json").out
    )
    assert {r["detector"] for r in report["redacted"]} == {"aws-access-key-id", "labelled-secret"}
    assert all(r["note"] == "fact_a.md" for r in report["redacted"])


def test_a_secret_repeated_without_its_label_is_redacted_everywhere(cli, tmp_path: Path) -> None:
    """A value the detector found under its label is a secret wherever else it stands in the
    note: in the body without the label, in another frontmatter value, in the pointer."""
    password = "Hx9#kQ2" + "!mZ7pL"
    entry = (
        f"---\ntype: fact\nname: a\ndescription: the value is {password}\n"
        f"copy: {password}\n---\npassword: {password}\nagain {password} here\n"
    )
    source = write_tree(tmp_path / "m", {"fact_a.md": entry})
    result = cli(
        "import", "memoir", str(source), "--store", str(tmp_path / "s"), "--format", "json"
    )
    assert result.code == 0, result
    written = (tmp_path / "s" / "fact_a.md").read_text(encoding="utf-8")
    index = (tmp_path / "s" / "MEMORY.md").read_text(encoding="utf-8")
    assert password not in written and password not in index
    assert password not in result.out + result.err
    assert "again [redacted: labelled-secret] here\n" in written
    lines = written.split("\n")
    listed = {(r["line"], r["detector"]) for r in json.loads(result.out)["redacted"]}
    for number, line in enumerate(lines, 1):
        if "[redacted:" in line:
            assert (number, "labelled-secret") in listed
    assert (None, "labelled-secret") in listed  # the pointer's hook


def test_a_secret_found_in_one_note_is_redacted_in_every_note(cli, tmp_path: Path) -> None:
    """The same value without its label in another note of the same import is a secret too:
    written redacted and listed (``--skip-secrets``: that note left out as well)."""
    password = "Hx9#kQ2" + "!mZ7pL"
    source = write_tree(
        tmp_path / "m",
        {
            "fact_a.md": f"---\ntype: fact\nname: a\n---\npassword: {password}\n",
            "fact_b.md": f"---\ntype: fact\nname: b\n---\nthe value {password} again\n",
            "fact_c.md": ENTRIES["fact_staging.md"],
        },
    )
    result = cli(
        "import", "memoir", str(source), "--store", str(tmp_path / "s"), "--format", "json"
    )
    assert result.code == 0, result
    written = (tmp_path / "s" / "fact_b.md").read_text(encoding="utf-8")
    assert "the value [redacted: labelled-secret] again\n" in written
    assert {r["note"] for r in json.loads(result.out)["redacted"]} == {"fact_a.md", "fact_b.md"}
    skipping = cli(
        "import",
        "memoir",
        str(source),
        "--store",
        str(tmp_path / "t"),
        "--skip-secrets",
        "--format",
        "json",
    )
    assert json.loads(skipping.out)["notes"] == ["fact_c.md"]
    assert password not in skipping.out + skipping.err


def test_a_secret_in_the_file_name_is_never_written_nor_echoed(cli, tmp_path: Path) -> None:
    """A file name cannot be redacted (the pointer links to it): such a note is skipped and
    listed by the secret's kind, the value neither written to the store nor printed."""
    key = "AKIA" + "QWERTYUIOPASDFGH"[::-1]
    source = write_tree(
        tmp_path / "m",
        {f"{key}.md": "# heading\nbody\n", f"fact_{key}.md": "---\ntype: fact\n---\nbody\n"}
        | {"fact_a.md": ENTRIES["fact_staging.md"]},
    )
    for form in ("text", "json"):
        store = tmp_path / f"s-{form}"
        result = cli("import", "memoir", str(source), "--store", str(store), "--format", form)
        assert result.code == 0, result
        assert key not in result.out + result.err
        assert sorted(p.name for p in store.glob("*.md")) == ["MEMORY.md", "fact_a.md"]
        assert key not in (store / "MEMORY.md").read_text(encoding="utf-8")
    report = json.loads(result.out)
    secret_skips = [s for s in report["skipped_files"] if s["reason"] == "secret"]
    assert len(secret_skips) == 2
    assert all("file name" in s["detail"] for s in secret_skips)


def test_a_windows_device_name_is_skipped_as_a_bad_name(cli, tmp_path: Path) -> None:
    """``NUL.md``, ``con.md``, ``COM1.md`` name devices on Windows: the note would be written to
    the device (lost) and its pointer left dangling. Skipped and listed, the rest imported."""
    names = ["NUL", "con", "COM1", "lpt9", "Aux"]
    files = {f"{name}.md": ENTRIES["fact_staging.md"] for name in names}
    files["console.md"] = ENTRIES["fact_staging.md"]
    source = write_tree(tmp_path / "m", files)
    result = cli(
        "import", "memoir", str(source), "--store", str(tmp_path / "s"), "--format", "json"
    )
    assert result.code == 0, result
    report = json.loads(result.out)
    assert report["notes"] == ["console.md"]
    bad = {s["source"]: s for s in report["skipped_files"]}
    assert set(bad) == {f"{name}.md" for name in names}
    assert all(s["reason"] == "bad-name" and "Windows" in s["detail"] for s in bad.values())


def test_names_equal_after_unicode_normalisation_collide(cli, tmp_path: Path) -> None:
    """``café`` composed and decomposed are one file name on macOS and look the same
    everywhere: the second is a collision, as a name differing only in letter case is."""
    composed, decomposed = "fact_caf\u00e9", "fact_cafe\u0301"
    source = write_tree(
        tmp_path / "m",
        {
            f"{composed}.md": ENTRIES["fact_staging.md"],
            f"{decomposed}.md": ENTRIES["fact_staging.md"],
        },
    )
    result = cli(
        "import", "memoir", str(source), "--store", str(tmp_path / "s"), "--format", "json"
    )
    assert result.code == 0, result
    report = json.loads(result.out)
    assert len(report["notes"]) == 1
    assert [s["reason"] for s in report["skipped_files"]] == ["collision"]
    again = cli("import", "memoir", str(source), "--store", str(tmp_path / "s"), "--format", "json")
    assert json.loads(again.out)["notes"] == []  # the store's own name collides too


def test_skip_secrets_leaves_such_a_note_out_without_echoing_it(cli, tmp_path: Path) -> None:
    key = "AKIA" + "QWERTYUIOPASDFGH"[::-1]
    source = write_tree(
        tmp_path / "m", {"fact_a.md": f"---\ntype: fact\nname: a\n---\naws key {key}\n"}
    )
    result = cli("import", "memoir", str(source), "--store", str(tmp_path / "s"), "--skip-secrets")
    assert result.code == 0, result
    assert "an AWS access key id on line" in result.out and key not in result.out + result.err
    assert not (tmp_path / "s" / "fact_a.md").exists()


def test_symlink_and_fifo_in_the_source_are_not_followed(cli, tmp_path: Path) -> None:
    outside = write_tree(tmp_path / "outside", {"secret.md": ENTRIES["fact_staging.md"]})
    source = write_tree(tmp_path / "m", {"fact_a.md": ENTRIES["fact_staging.md"]})
    os.symlink(outside / "secret.md", source / "fact_link.md")
    if hasattr(os, "mkfifo"):
        os.mkfifo(source / "fifo.md")
    result = cli(
        "import", "memoir", str(source), "--store", str(tmp_path / "s"), "--format", "json"
    )
    assert result.code == 0, result
    report = json.loads(result.out)
    assert report["notes"] == ["fact_a.md"]
    assert {s["source"] for s in report["skipped_files"]} >= {"fact_link.md"}


# The mapping as pure functions.


def file_dates() -> FileDates:
    return FileDates("2026-01-02", "2026-01-03", "git")


def mapped(meta: dict[str, object] | None, body: str = "\nBody.\n") -> Candidate | Skip:
    return memoir_import.map_entry("x", meta, body, file_dates, "x.md")


def test_engramory_type_wins_and_export_fields_are_dropped() -> None:
    meta = {
        "type": "lesson",
        "name": "feedback-tests",
        "description": "How tests are written",
        "created": "2026-01-10",
        "updated": "2026-01-12",
        "trigger": "How tests are written",
        "how_to_apply": "one behaviour per test",
        "engramory_type": "feedback",
        "scope": "repo",
        "project": "app",
        "origin": {"tool": "engramory", "session_id": "abc"},
    }
    body = "\nSmall tests.\n\n**Why:** review.\n\n**How to apply:** one behaviour per test\n"
    result = mapped(meta, body)
    assert isinstance(result, Candidate)
    assert result.fields == {
        "name": "feedback-tests",
        "description": "How tests are written",
        "created": "2026-01-10",
        "updated": "2026-01-12",
        "type": "feedback",
        "scope": "repo",
        "originSessionId": "abc",
    }
    assert result.body == body


def test_done_at_before_added_is_a_revival_and_comes_back() -> None:
    revived = mapped(
        {"type": "next_action", "name": "n", "added": "2026-06-10", "done_at": "2026-06-05"}
    )
    assert isinstance(revived, Candidate)
    done = mapped({"type": "goal", "name": "g", "set_on": "2026-06-05", "done_at": "2026-06-05"})
    assert isinstance(done, Skip) and done.reason == "done"
    undated = mapped({"type": "goal", "name": "g", "done_at": "2026-06-05"})
    assert isinstance(undated, Skip) and undated.reason == "done"


def test_legacy_top_level_origin_session_id_and_bad_version() -> None:
    result = mapped({"type": "user", "name": "u", "originSessionId": "s1"})
    assert isinstance(result, Candidate) and result.fields["originSessionId"] == "s1"
    assert "origin_session_id" not in result.fields
    bad = mapped({"type": "fact", "name": "f", "schema_version": "two"})
    assert isinstance(bad, Skip) and bad.reason == "invalid"
    ok = mapped({"type": "fact", "name": "f", "schema_version": 1})
    assert isinstance(ok, Candidate) and "schema_version" not in ok.fields


def test_entry_without_dates_takes_the_file_dates() -> None:
    result = mapped({"type": "fact", "name": "f", "description": "d"})
    assert isinstance(result, Candidate)
    assert (result.fields["created"], result.fields["updated"]) == ("2026-01-02", "2026-01-03")
    assert result.dates_from == "git"


def test_entry_dates_win_and_the_file_is_not_asked() -> None:
    def never() -> FileDates:
        raise AssertionError("the file's dates were looked up")

    native = {"type": "fact", "name": "f", "metadata": {"modified": "2026-07-22T03:31:59.211Z"}}
    result = memoir_import.map_entry("x", native, "b\n", never, "x.md")
    assert isinstance(result, Candidate) and result.dates_from == "entry"
    assert (result.fields["created"], result.fields["updated"]) == ("2026-07-22", "2026-07-22")
    assert result.fields["modified"] == "2026-07-22T03:31:59.211Z"  # kept, name and value


def test_no_date_anywhere_writes_none() -> None:
    result = memoir_import.map_entry("x", None, "# T\n", lambda: FileDates(why="no"), "x.md")
    assert isinstance(result, Candidate) and result.dates_from == "none"
    assert "created" not in result.fields and "updated" not in result.fields
    assert result.body == "# T\n"


def test_make_store_helper_index_is_untouched_by_a_skip_only_import(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {"user-a.md": note("user-a")})
    source = write_tree(tmp_path / "m", {"widget.md": ENTRIES["widget_x.md"]})
    before = snapshot(store)
    result = cli("import", "memoir", str(source), "--store", str(store))
    assert result.code == 0, result
    assert snapshot(store) == before  # nothing to write: no backup folder either


def test_a_symlinked_index_is_refused_before_any_write(cli, memoir: Path, tmp_path: Path) -> None:
    store = valid_store(tmp_path / "store")
    real = store / "real-index.txt"
    (store / "MEMORY.md").rename(real)
    (store / "MEMORY.md").symlink_to(real.name)
    before = snapshot(store)
    result = cli("import", "memoir", str(memoir), "--store", str(store))
    assert result.code == 1 and "symlink" in result.err, result
    assert snapshot(store) == before
