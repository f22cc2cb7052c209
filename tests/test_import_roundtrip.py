"""Moving out and back in without invention (issues 18 and 31): `engramory export memoir`, then
`engramory import memoir` into an empty store, then a second export. On examples/store and on
every corpus store the notes come back as they were (type, every frontmatter key under its own
name with its value, body bytes), the second export is byte-identical to the first, and the
rebuilt store passes the doctor with no error the import made. A note the doctor finds without
its frontmatter is skipped and listed, never exported with made-up values."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLE_STORE
from doctorkit import doctor, make_store, note
from engramory.interop import importer, memoir_export, memoir_import
from engramory.interop.importer import Candidate
from engramory.interop.memoir_export import Entry, SourceNote
from engramory.interop.memoir_yaml import UnwritableValue, parse_frontmatter, split_entry
from engramory.store.frontmatter import parse, render
from engramory.write import notewrite
from engramory.write.filedates import FileDates

CORPUS = Path(__file__).resolve().parent / "corpus" / "stores"
STORES = [EXAMPLE_STORE, *sorted(p for p in CORPUS.iterdir() if p.is_dir())]


def original(store: Path, file_name: str) -> Path:
    """The source note the export wrote ``file_name`` from (a live one before an archived one)."""
    found = sorted(store.rglob(file_name), key=lambda p: ("archive" in p.parts, len(p.parts)))
    assert found, file_name
    return found[0]


def comparable(fields: dict[str, str]) -> dict[str, str]:
    """What the round trip promises to keep: every key and value. The empty ``metadata:``
    header of Claude Code's nested dialect is structure, not a value (its children are read
    as plain keys, and come back as plain keys)."""
    return {k: v for k, v in fields.items() if not (k == "metadata" and not v.strip())}


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))}


def export(cli, store: Path, out: Path):
    """Export with a fixed ``--project`` (the default is the name of the store's project
    folder, which differs between the source and the rebuilt store)."""
    return cli("export", "memoir", str(out), "--store", str(store), "--include-archive",
               "--project", "app", "--format", "json")  # fmt: skip


@pytest.mark.parametrize("store", STORES, ids=lambda p: p.name[:12])
def test_export_import_export_gives_back_the_same_notes_and_the_same_bytes(
    cli, tmp_path: Path, store: Path
) -> None:
    exported_dir, rebuilt, again = tmp_path / "memoir", tmp_path / "store", tmp_path / "again"
    out = export(cli, store, exported_dir)
    report = json.loads(out.out)
    if report["nothing_to_export"]:  # every note lacks its frontmatter: exit 1, nothing made
        assert out.code == 1 and not exported_dir.exists() and report["skipped"], out
        return
    assert out.code == 0, out
    entries = report["entries"]
    back = cli("import", "memoir", str(exported_dir), "--store", str(rebuilt), "--format", "json")
    assert back.code == 0, back
    imported = json.loads(back.out)
    assert imported["skipped"] == {}
    names = {e["file"] for e in entries}
    assert {p.rsplit("/", 1)[-1] for p in imported["notes"] + imported["archived"]} == names
    for entry in entries:
        name = entry["file"]
        was = parse(original(store, name).read_text(encoding="utf-8", errors="replace"))
        copy = rebuilt / name
        if not copy.exists():
            copy = rebuilt / "archive" / name
        now = parse(copy.read_text(encoding="utf-8"))
        assert now.body == was.body, name  # the body, byte for byte
        assert comparable(now.fields) == comparable(was.fields), name
    # No date was made up: a note comes back with exactly the dates it had.
    assert {d["from"] for d in imported["dates"]} <= {"entry", "as-exported"}
    second = export(cli, rebuilt, again)
    assert second.code == 0, second
    assert snapshot(again) == snapshot(exported_dir)  # stable: byte for byte
    made = [
        f"{f.path}: {f.rule}"
        for f in doctor(rebuilt).findings
        if f.severity == "error" and f.rule not in inherited(store, f.path)
    ]
    assert made == []


def inherited(store: Path, rel: str) -> set[str]:
    """The rules the doctor's note pass fires on the source note itself (dateless notes of
    the host's dialect, a feedback note without its How to apply: line...): the round trip
    keeps the note as it was, so it keeps those findings too."""
    if "/" in rel or not rel.endswith(".md"):
        return set()
    data = original(store, rel).read_bytes()
    return {i.rule for i in notewrite.note_issues(rel, data, date.today())}


NATIVE = (
    "---\nname: Active Leads\ndescription: who to call back this month\nmetadata:\n"
    "  node_type: memory\n  type: project\n  originSessionId: 918508de-c212-454e\n"
    "  modified: 2026-07-22T03:31:59.211Z\n---\n\n\nThree leads are open.\n\n"
    "**Why:** the pipeline review.\n\n**How to apply:** call them first.\n"
)
BLANK_FIRST = (
    "---\nname: staging\ndescription: the staging host\ntype: reference\n---\n\n\n"
    "  indented first line\nhttps://staging.example.com\n"
)


def test_round_trip_of_notes_without_frontmatter_with_leading_blanks_and_session_ids(
    cli, tmp_path: Path
) -> None:
    store = make_store(
        tmp_path / "store",
        {
            "user-role.md": note("user-role", originSessionId="abc-123", color="blue"),
            "active-leads.md": NATIVE,
            "staging.md": BLANK_FIRST,
            "loose.md": "\n# Loose notes\n\nNo frontmatter here.\n",
        },
    )
    out, rebuilt = tmp_path / "out", tmp_path / "rebuilt"
    report = json.loads(export(cli, store, out).out)
    assert [s["note"] for s in report["skipped"]] == ["loose.md"]  # skipped and listed
    assert "[no-frontmatter]" in report["skipped"][0]["reason"]
    assert not (out / "loose.md").exists()
    result = cli("import", "memoir", str(out), "--store", str(rebuilt), "--format", "json")
    assert result.code == 0, result
    assert not (rebuilt / "loose.md").exists()  # never comes back invented

    role = parse((rebuilt / "user-role.md").read_text(encoding="utf-8")).fields
    assert role["originSessionId"] == "abc-123" and role["color"] == "blue"
    assert not any(key.startswith("origin_") for key in role)

    leads = parse((rebuilt / "active-leads.md").read_text(encoding="utf-8"))
    assert leads.fields["originSessionId"] == "918508de-c212-454e"
    assert leads.fields["modified"] == "2026-07-22T03:31:59.211Z"
    assert leads.fields["node_type"] == "memory" and leads.fields["name"] == "Active Leads"
    assert leads.body == parse(NATIVE).body  # two leading blank lines kept
    assert "created" not in leads.fields and "scope" not in leads.fields  # nothing added

    staging = (rebuilt / "staging.md").read_text(encoding="utf-8")
    assert parse(staging).body == "\n\n  indented first line\nhttps://staging.example.com\n"
    assert staging.endswith(BLANK_FIRST[BLANK_FIRST.index("---\n\n\n") + 4 :])
    today = date.today().isoformat()
    for path in rebuilt.glob("*.md"):
        assert today not in path.read_text(encoding="utf-8"), path


# --- the same promise as a property, on the pure mapping -----------------------------------

BODY_TEXT = st.text(alphabet=st.sampled_from(list("ab #*-:'\"\n\r\t\u00e9\u4e2d")), max_size=60)
# Keys the mapping treats specially (memoir's own names, the host's, origin parts), and any.
SPECIAL_KEYS = ["tags", "aliases", "source", "origin", "project", "trigger", "node_type"]
SPECIAL_KEYS += ["modified", "origin_machine_id", "origin_session_id", "engramory_type"]
KEY = st.one_of(
    st.sampled_from(SPECIAL_KEYS),
    st.from_regex(r"[a-z][a-zA-Z_]{0,8}", fullmatch=True).filter(
        lambda k: k not in {"name", "description", "type", "created", "updated", "metadata"}
    ),
)
VALUE = st.text(alphabet=st.sampled_from(list("ab 1-:'#,.")), min_size=1, max_size=20).map(
    str.strip
)


def exported_text(text: str, rel: str = "x.md") -> str | None:
    """The entry file the export writes for a note's text (``None``: skipped)."""
    entry = memoir_export.to_entry(SourceNote(rel, parse(text)), "app")
    if not isinstance(entry, Entry):
        return None
    try:
        return memoir_export.entry_text(entry)
    except UnwritableValue:
        return None


def imported_text(entry_text: str) -> str:
    """The note the import writes from an entry file's text."""
    head, body, _line = split_entry(entry_text)
    assert head is not None
    candidate = memoir_import.map_entry("x", parse_frontmatter(head), body, no_dates, "x.md")
    assert isinstance(candidate, Candidate)
    return importer.note_data(candidate).decode("utf-8")


def no_dates() -> FileDates:
    raise AssertionError("an exported note's dates are never looked up")


@settings(max_examples=200, deadline=None)
@given(
    body=BODY_TEXT,
    extra=st.dictionaries(KEY, VALUE.filter(bool), max_size=3),
    session=st.one_of(st.none(), VALUE.filter(bool)),
)
def test_export_import_export_is_stable_for_any_body_and_keys(
    body: str, extra: dict[str, str], session: str | None
) -> None:
    fields = {"name": "Some Title", "description": "when to open it", "type": "user", **extra}
    if session is not None:
        fields["originSessionId"] = session
    try:
        text = render(fields) + body
    except ValueError:
        return  # a key or value our own frontmatter cannot hold
    first = exported_text(text)
    if first is None:
        return  # skipped and listed (a value no quoting makes YAML and memoir-cli read alike)
    note_back = imported_text(first)
    assert parse(note_back).body == parse(text).body  # byte for byte, leading blanks included
    assert parse(note_back).fields == parse(text).fields  # every key, its name and value
    assert exported_text(note_back) == first  # stable
