"""``engramory export memoir DIR`` (issue 18): every entry memoir-valid, nothing lost silently.

The exported entries of examples/store and of every corpus store validate against memoir's
entry schema (tests/schemas/memoir/, vendored) and carry what a canonical entry
needs; PyYAML reads each file to the mapping our reader reads; refusals and --dry-run write
nothing; archived notes only on request; skipped notes are listed with their reason.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from conftest import EXAMPLE_STORE, REPO
from doctorkit import doctor, make_store, note
from engramory.interop import memoir_export
from engramory.interop.memoir_yaml import parse_frontmatter, split_entry
from engramory.store.frontmatter import parse
from engramory.util import fsutil

yaml = pytest.importorskip("yaml")
jsonschema = pytest.importorskip("jsonschema")

SCHEMA_PATH = REPO / "tests" / "schemas" / "memoir" / "entry.schema.json"
CORPUS = REPO / "tests" / "corpus" / "stores"
CORPUS_STORES = sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []
SECRET = "AKIA" + "QZ7Y" * 4


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.Draft202012Validator
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def export(cli, store: Path, out: Path, *more: str):
    return cli("export", "memoir", str(out), "--store", str(store), *more)


def export_json(cli, store: Path, out: Path, *more: str) -> dict:
    result = export(cli, store, out, "--format", "json", *more)
    assert result.code == 0, result
    return json.loads(result.out)


def entries(out: Path) -> dict[str, tuple[dict, str]]:
    """Every exported file: name -> (mapping as our reader reads it, body)."""
    found = {}
    for path in sorted(out.iterdir()):
        front, body, _line = split_entry(path.read_text(encoding="utf-8"))
        assert front is not None, path
        found[path.name] = (parse_frontmatter(front), body)
    return found


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def live_notes(store: Path) -> dict[str, bytes]:
    """Live notes as the exporter sees them (not MEMORY.md, archive/, templates/, hidden)."""
    found = {}
    for path in sorted(store.rglob("*.md")):
        rel = path.relative_to(store)
        if rel.parts[0].lower() in ("archive", "templates") and len(rel.parts) > 1:
            continue
        if any(part.startswith(".") for part in rel.parts) or str(rel) == "MEMORY.md":
            continue
        found[rel.as_posix()] = path.read_bytes()
    return found


# --- every entry of the example store and of the corpus is a canonical memoir entry ------------


@pytest.mark.parametrize("store", [EXAMPLE_STORE, *CORPUS_STORES], ids=lambda p: p.name)
def test_every_exported_entry_is_a_valid_canonical_memoir_entry(
    cli, validator, store: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = export(cli, store, out, "--include-archive", "--format", "json")
    report = json.loads(result.out)
    assert result.code == (1 if report["nothing_to_export"] else 0), result
    assert out.exists() != report["nothing_to_export"]  # nothing to write: DIR not created
    notes = live_notes(store)
    exported = entries(out) if out.exists() else {}
    # Nothing lost silently: every live note is exported or listed with a reason.
    skipped = {s["note"] for s in report["skipped"]}
    for rel in notes:
        name = rel.rsplit("/", 1)[-1]
        assert name in exported or rel in skipped, rel
    for name, (mapping, body) in exported.items():
        text = (out / name).read_text(encoding="utf-8")
        front = split_entry(text)[0]
        assert yaml.safe_load(front) == mapping, name  # PyYAML reads what we read
        errors = [e.message for e in validator.iter_errors(mapping)]
        assert not errors, (name, errors)
        assert mapping["origin"]["tool"] == "engramory"
        assert mapping["name"]
        if mapping["type"] == "lesson":
            assert mapping["trigger"] and mapping["how_to_apply"]
        source_rel = next((r for r in notes if r.rsplit("/", 1)[-1] == name), None)
        if source_rel is None:  # an archived note
            assert mapping.get("engramory_archived") is True
            continue
        parsed = parse(notes[source_rel].decode("utf-8").removeprefix("\ufeff"))
        assert body == parsed.body  # the body, byte for byte
        kind = parsed.fields.get("type")
        assert mapping.get("engramory_type") == kind
        if kind == "project" and parsed.fields.get("created"):
            assert mapping["set_on"] == parsed.fields["created"]
        for key in ("created", "updated", "description"):
            if parsed.fields.get(key, "").strip():
                assert mapping[key] == parsed.fields[key].strip()
            else:
                assert key not in mapping


def test_the_example_store_maps_each_type(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    export(cli, EXAMPLE_STORE, out, "--project", "billing")
    found = entries(out)
    lesson = found["feedback-run-tests-before-done.md"][0]
    assert lesson["type"] == "lesson"
    assert lesson["trigger"] == lesson["description"]
    assert lesson["how_to_apply"].startswith("after an edit, run the narrowest test command")
    assert lesson["how_to_apply"].endswith("If no test covers it, say so plainly.")
    assert "project" not in lesson  # scope: global
    commit = found["feedback-commit-style.md"][0]
    assert commit["project"] == "billing"  # scope: repo
    assert commit["how_to_apply"].startswith("before committing")
    goal = found["project-invoice-migration.md"][0]
    assert (goal["type"], goal["set_on"], goal["engramory_type"]) == (
        "goal",
        "2026-10-01",
        "project",
    )
    assert found["user-role.md"][0]["type"] == "fact"
    assert found["reference-staging-observability.md"][0]["type"] == "fact"
    text = (out / "user-role.md").read_text(encoding="utf-8")
    assert "created: '2026-09-02'\n" in text  # a date is quoted: YAML would read a date object
    assert "origin:\n  tool: engramory\n" in text  # block style, never {tool: engramory}


# --- the mapping, case by case --------------------------------------------------------------


def test_a_native_dialect_store_without_dates_still_exports(cli, validator, tmp_path: Path) -> None:
    native = (
        "---\nname: Deploy rule\ndescription: deploy only from main\nmetadata:\n  type: feedback\n"
        "  node_type: memory\n  originSessionId: 1f0c-session\n---\n\nDeploy from main.\n\n"
        "**Why:** a branch deploy broke prod.\n\n**How to apply:** check the branch first.\n"
    )
    project = "---\nname: plan\ndescription: the plan\ntype: project\n---\nShip it.\n"
    store = make_store(tmp_path / "store", {"deploy.md": native, "plan.md": project})
    out = tmp_path / "out"
    report = export_json(cli, store, out)
    assert report["skipped"] == []
    found = entries(out)
    lesson = found["deploy.md"][0]
    assert lesson["type"] == "lesson"
    assert lesson["how_to_apply"] == "check the branch first."
    assert lesson["origin"] == {"tool": "engramory", "session_id": "1f0c-session"}
    assert lesson["node_type"] == "memory"
    assert "metadata" not in lesson and "originSessionId" not in lesson
    for key in ("created", "updated"):
        assert key not in lesson
    goal = found["plan.md"][0]
    assert goal["type"] == "goal" and "set_on" not in goal and "created" not in goal
    for mapping, _body in found.values():
        assert not list(validator.iter_errors(mapping))


def test_notes_the_doctor_finds_without_their_frontmatter_are_skipped_never_made_up(
    cli, tmp_path: Path
) -> None:
    files = {
        "good.md": note("good"),
        "loose.md": "# Loose\n\nA fact.\n",  # no frontmatter
        "blank-first.md": "\n---\nname: b\ndescription: d\ntype: user\n---\nb\n",  # none either
        "noname.md": "---\ndescription: d\ntype: user\n---\nx\n",
        "nodesc.md": "---\nname: nodesc\ndescription:   \ntype: user\n---\nx\n",
        "notype.md": "---\nname: notype\ndescription: d\n---\nx\n",
    }
    store = make_store(tmp_path / "store", files)
    out = tmp_path / "out"
    report = export_json(cli, store, out)
    assert sorted(p.name for p in out.iterdir()) == ["good.md"]
    reasons = {s["note"]: s["reason"] for s in report["skipped"]}
    assert (
        "[no-frontmatter]" in reasons["loose.md"]
        and "[no-frontmatter]" in reasons["blank-first.md"]
    )
    assert reasons["noname.md"].startswith("name missing or empty [missing-field]")
    assert reasons["nodesc.md"].startswith("description missing or empty [missing-field]")
    assert reasons["notype.md"].startswith("type missing or empty [missing-field]")
    # The same notes the doctor reports with a frontmatter error, no more, no fewer.
    frontmatter_rules = {"no-frontmatter", "missing-field", "frontmatter-syntax", "invalid-type"}
    flagged = {f.path for f in doctor(store).findings if f.rule in frontmatter_rules}
    assert flagged == set(reasons)


def test_an_export_with_nothing_to_write_exits_1_and_creates_nothing(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", {"loose.md": "# Loose\n\nA fact.\n"})
    out = tmp_path / "new" / "out"
    result = export(cli, store, out)
    assert result.code == 1, result
    assert "nothing to export" in result.out and "loose.md" in result.out
    assert "exported" not in result.out
    assert not (tmp_path / "new").exists()  # not even the destination folder
    as_json = export(cli, store, out, "--format", "json")
    assert as_json.code == 1 and json.loads(as_json.out)["nothing_to_export"] is True
    empty = make_store(tmp_path / "empty", {})
    assert export(cli, empty, out).code == 1 and not (tmp_path / "new").exists()
    assert export(cli, store, out, "--dry-run").code == 1


def test_a_feedback_note_without_how_to_apply_becomes_a_fact(cli, tmp_path: Path) -> None:
    text = "---\nname: x\ndescription: d\ntype: feedback\n---\nJust a story.\n"
    store = make_store(tmp_path / "store", {"x.md": text})
    out = tmp_path / "out"
    result = export(cli, store, out)
    mapping = entries(out)["x.md"][0]
    assert (mapping["type"], mapping["engramory_type"]) == ("fact", "feedback")
    assert "trigger" not in mapping
    assert "exported as a fact" in result.out


@pytest.mark.parametrize(
    ("body", "source"),
    [
        (
            "Dashboards at https://grafana.example.com/d/abc. Ask first.",
            "https://grafana.example.com/d/abc",
        ),
        (
            "See [the runbook](https://wiki.example.com/run?x=1) and /etc/x.",
            "https://wiki.example.com/run?x=1",
        ),
        (
            "Config lives in `~/.config/tool/config.toml`, then https://x.example",
            "~/.config/tool/config.toml",
        ),
        ("The script is `scripts/mint-token.sh`.", "scripts/mint-token.sh"),
        ("Logs: /var/log/app.log", "/var/log/app.log"),
        ("Read and/or write, 1/2 of it.", None),
        ("No link here.", None),
    ],
)
def test_a_reference_gets_the_first_url_or_path_as_its_source(
    body: str, source: str | None
) -> None:
    assert memoir_export.first_source(body) == source


@pytest.mark.parametrize(
    ("body", "how"),
    [
        ("**How to apply:** do x\nand y.\n\nNext para.", "do x and y."),
        ("How to apply: do x\n**Why:** because", "do x"),
        ("**Why:** w\n\n**How to apply:**\ndo  x\n", "do x"),
        ("- How to apply: listed\n", "listed"),
        ("Why: only why\n", ""),
        ("", ""),
    ],
)
def test_how_to_apply_is_the_labels_paragraph_on_one_line(body: str, how: str) -> None:
    assert memoir_export.how_to_apply(body) == how


def test_scope_maps_to_project_and_extra_fields_are_kept_unmisread(
    cli, validator, tmp_path: Path
) -> None:
    text = (
        "---\nname: u\ndescription: d\ntype: user\nscope: repo\ncreated: 2026-01-02\n"
        "updated: 2026-01-03\nmodified: 2026-01-04\nsource: my head\ntags: a, b\n"
        "origin_machine_id: m1\n---\nBody\n"
    )
    store = make_store(tmp_path / "proj" / ".engramory-memory", {"u.md": text})
    out = tmp_path / "out"
    export(cli, store, out)
    mapping = entries(out)["u.md"][0]
    assert mapping["project"] == "proj"  # the folder holding .engramory-memory
    assert "scope" not in mapping
    assert mapping["modified"] == "2026-01-04"
    assert mapping["engramory_source"] == "my head"  # memoir's source means something else
    assert mapping["tags"] == ["a", "b"]
    assert mapping["origin"] == {"tool": "engramory", "machine_id": "m1"}
    assert not list(validator.iter_errors(mapping))


# --- values with quotes, secrets ------------------------------------------------------------


def test_values_with_both_quote_kinds(cli, tmp_path: Path) -> None:
    plain = note("plain", description='it\'s the "real" one')
    needs_quotes = note("quoted", description="'sharp' \"edges\": both")
    how = (
        "---\nname: how\ndescription: d\ntype: feedback\n---\n"
        '**How to apply:** don\'t say "done": run the tests.\n'
    )
    store = make_store(
        tmp_path / "store", {"plain.md": plain, "quoted.md": needs_quotes, "how.md": how}
    )
    out = tmp_path / "out"
    report = export_json(cli, store, out)
    found = entries(out)
    assert found["plain.md"][0]["description"] == 'it\'s the "real" one'
    assert "quoted.md" not in found
    assert [s["note"] for s in report["skipped"]] == ["quoted.md"]
    assert "both quote kinds" in report["skipped"][0]["reason"]
    assert found["how.md"][0]["how_to_apply"] == "don't say \u201cdone\u201d: run the tests."
    assert '"done"' in found["how.md"][1]  # the body keeps the original
    for name in found:
        front = split_entry((out / name).read_text(encoding="utf-8"))[0]
        assert yaml.safe_load(front) == found[name][0]


def test_a_secret_is_exported_and_named_but_never_echoed(cli, tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "store", {"keys.md": note("keys", body=f"The deploy key is {SECRET}.")}
    )
    out = tmp_path / "out"
    result = export(cli, store, out)
    assert result.code == 0
    assert (out / "keys.md").exists()
    assert "keys.md" in result.out and "may hold a secret" in result.out
    assert SECRET not in result.out + result.err
    report = export_json(cli, store, tmp_path / "out2")
    assert report["secrets"][0]["note"] == "keys.md"
    assert SECRET not in json.dumps(report)


def test_names_equal_after_unicode_normalisation_are_one_entry_name(cli, tmp_path: Path) -> None:
    """Two notes named ``café`` (composed, decomposed) would be one file on macOS: the second
    is skipped as a clash, as names differing only in letter case are."""
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    store = make_store(
        tmp_path / "store",
        {f"{composed}.md": note(composed), f"{decomposed}.md": note(decomposed)},
    )
    report = export_json(cli, store, tmp_path / "out")
    assert len(report["entries"]) == 1
    assert len(report["skipped"]) == 1 and "rename one" in report["skipped"][0]["reason"]
    assert len(list((tmp_path / "out").iterdir())) == 1


# --- skipped notes are listed -----------------------------------------------------------------


def test_notes_with_frontmatter_errors_are_skipped_and_listed(cli, tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "store",
        {
            "good.md": note("good"),
            "syntax.md": "---\nname: syntax\nthis is not a field\n---\n",
            "badtype.md": note("badtype", type="memory"),
            "feb30.md": note("feb30", created="2026-02-30"),
            "slashes.md": note("slashes", updated="15/01/2026"),
            "latin1.md": b"---\nname: l\ntype: user\n---\ncaf\xe9\n",
        },
    )
    out = tmp_path / "out"
    result = export(cli, store, out)
    assert result.code == 0
    assert sorted(p.name for p in out.iterdir()) == ["good.md"]
    for rel, words in (
        ("syntax.md", "frontmatter line 3"),
        ("badtype.md", "not one of"),
        ("feb30.md", "not a real date"),
        ("slashes.md", "not a real date"),
        ("latin1.md", "not valid UTF-8"),
    ):
        line = next(line for line in result.out.splitlines() if line.strip().startswith(rel))
        assert words in line, line
    assert "skipped 5 notes" in result.out


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_note_leading_out_of_the_store_is_skipped_unread(cli, tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text(note("secret", body="outside text"), encoding="utf-8")
    store = make_store(tmp_path / "store", {"a.md": note("a")})
    (store / "link.md").symlink_to(outside)
    (store / "archive").mkdir()
    (store / "archive" / "old.md").symlink_to(outside)
    out = tmp_path / "out"
    report = export_json(cli, store, out, "--include-archive")
    assert sorted(p.name for p in out.iterdir()) == ["a.md"]
    assert {s["note"] for s in report["skipped"]} == {"link.md", "archive/old.md"}
    assert all("leading out" in s["reason"] for s in report["skipped"])


def test_two_notes_of_one_file_name_export_the_first_and_list_the_second(
    cli, tmp_path: Path
) -> None:
    store = make_store(tmp_path / "store", {"a.md": note("a"), "sub/a.md": note("a")})
    out = tmp_path / "out"
    report = export_json(cli, store, out)
    assert sorted(p.name for p in out.iterdir()) == ["a.md"]
    assert [s["note"] for s in report["skipped"]] == ["sub/a.md"]


# --- archive, refusals, dry run ---------------------------------------------------------------


def test_archived_notes_only_with_include_archive(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    export(cli, EXAMPLE_STORE, out)
    assert "project-search-rewrite.md" not in {p.name for p in out.iterdir()}
    assert all("engramory_archived" not in m for m, _ in entries(out).values())
    out2 = tmp_path / "out2"
    export(cli, EXAMPLE_STORE, out2, "--include-archive")
    mapping = entries(out2)["project-search-rewrite.md"][0]
    assert mapping["engramory_archived"] is True
    assert sum("engramory_archived" in m for m, _ in entries(out2).values()) == 1


def test_an_existing_target_refuses_and_writes_nothing(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "user-role.md").write_text("someone else's entry\n", encoding="utf-8")
    (out / "unrelated.txt").write_text("x", encoding="utf-8")
    before = snapshot(out)
    result = export(cli, EXAMPLE_STORE, out)
    assert result.code == 1
    assert "user-role.md" in result.err and "nothing written" in result.err
    assert snapshot(out) == before


def test_an_existing_target_refuses_in_a_dry_run_too(cli, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "user-role.md").write_text("x", encoding="utf-8")
    assert export(cli, EXAMPLE_STORE, out, "--dry-run").code == 1


def test_dry_run_writes_nothing(cli, tmp_path: Path) -> None:
    out = tmp_path / "new" / "out"
    result = export(cli, EXAMPLE_STORE, out, "--dry-run")
    assert result.code == 0
    assert "would export 5 notes" in result.out and "nothing written" in result.out
    assert not (tmp_path / "new").exists()


def test_a_directory_inside_the_store_is_refused(cli, tmp_path: Path) -> None:
    store = make_store(tmp_path / "store", {"a.md": note("a")})
    before = snapshot(store)
    result = export(cli, store, store / "memoir")
    assert result.code == 1 and "inside the store" in result.err
    assert snapshot(store) == before


def test_a_file_as_dir_is_refused(cli, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    result = export(cli, EXAMPLE_STORE, target)
    assert result.code == 1 and "not a directory" in result.err
    assert target.read_text(encoding="utf-8") == "x"


def test_a_failed_write_removes_what_this_run_wrote(cli, tmp_path: Path, monkeypatch) -> None:
    real = fsutil.write_atomic
    calls = []

    def failing(path, data, mode=None):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real(path, data, mode)

    monkeypatch.setattr(fsutil, "write_atomic", failing)
    out = tmp_path / "out"
    result = export(cli, EXAMPLE_STORE, out)
    assert result.code == 1 and "removed again" in result.err
    assert not out.exists()


def test_usage_and_missing_store(cli, tmp_path: Path) -> None:
    assert cli("export").code == 64
    assert cli("export", "memoir").code == 64
    assert cli("export", "memoir", str(tmp_path / "o"), "--project", "").code == 64
    assert (
        cli("export", "memoir", str(tmp_path / "o"), "--store", str(tmp_path / "nope")).code == 66
    )
    help_text = cli("export", "memoir", "--help").out
    assert "engramory export memoir" in help_text and "--include-archive" in help_text
