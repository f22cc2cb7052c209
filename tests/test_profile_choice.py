"""One profile for every store command (issue 31, item 1).

The profile is asked for (``--profile``, ``--native``), else found from where
the store really is (any ``<config dir>/projects/*/memory``, symlinks
resolved), else from the notes' dialect (a strict majority of the notes with
frontmatter written as Claude Code writes them). Every store command names
it and why; in claude-native nothing rewrites the host's frontmatter.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from daysseen import days_seen

from conftest import run_engramory
from doctorkit import make_store, note
from engramory.doctor.profile_choice import (
    DATE_KEYS,
    choose,
    dialect_reason,
    in_host_dialect,
    is_title,
)
from engramory.doctor.profiles import CLAUDE_NATIVE, ENGRAMORY
from engramory.mcp import update as mcp_update
from engramory.store.caps import Caps
from engramory.store.frontmatter import parse

# --- a small CRM assistant's memory, as Claude Code writes it -------------------------------------

LEADS = """\
---
name: Active Leads
description: Which prospects are live this quarter and who follows up on each
metadata:
  node_type: memory
  type: project
  originSessionId: 5b7e0c2d-91aa-4c3e-8f10-2d6b9e4a7c01
---

Three prospects are live; Dana follows up on the two in retail.

**Why:** the Monday review starts from this list.

**How to apply:** read it before drafting an outreach email.
"""

ROLE = """\
---
name: User role
description: Who the user is and what they sell
type: user
originSessionId: 0c4d8e2f-7a61-4b09-9e3d-51f2a8c6b7d4
---

Runs sales for a two-person bakery-equipment shop.
"""

TONE = """\
---
name: Email Tone
description: How outreach emails should sound
metadata:
  type: feedback
---

Short, warm, no exclamation marks.

**Why:** customers answered the plain ones more often.

**How to apply:** one paragraph, a question at the end.
"""

# The host's index: the leads pointer twice (a duplicate), the tone note not listed (an orphan).
HOST_INDEX = """\
- [Active Leads](active_leads.md) — live prospects and who follows up
- [User role](user_role.md) — who the user is
- [Active Leads](active_leads.md) — live prospects and who follows up
"""


def host_store(root: Path) -> Path:
    """The CRM memory folder: three notes in the host's dialect and its index."""
    return make_store(
        root,
        {"active_leads.md": LEADS, "user_role.md": ROLE, "feedback_tone.md": TONE},
        index=HOST_INDEX,
    )


def note_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.glob("*.md")) if p.name != "MEMORY.md"}


def config_dir() -> Path:
    """The tests' (empty, throw-away) Claude Code configuration folder (conftest sets it)."""
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def plain_note(slug: str) -> str:
    """A note in the protocol's own dialect (slug as name, dates)."""
    return note(slug)


# --- the dialect of one note (pure) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "native"),
    [
        ({"name": "Active Leads", "type": "project"}, True),
        ({"name": "active-leads", "metadata": "", "type": "project"}, True),
        ({"name": "active-leads", "originSessionId": "5b7e"}, True),
        ({"name": "active-leads", "type": "project"}, False),
        ({"name": "Active Leads", "created": "2026-01-02"}, False),
        ({"name": "Active Leads", "updated": "2026-01-02", "metadata": ""}, False),
        ({"description": "no name at all"}, False),
    ],
)
def test_a_note_is_in_the_host_dialect(fields: dict[str, str], native: bool) -> None:
    assert in_host_dialect(fields) is native


KEYS = st.sampled_from(["name", "description", "type", "metadata", "originSessionId", "scope"])


@given(st.dictionaries(KEYS, st.text(max_size=20)), st.sampled_from(DATE_KEYS))
def test_a_dated_note_is_never_in_the_host_dialect(fields: dict[str, str], dated: str) -> None:
    assert in_host_dialect({**fields, dated: "2026-05-01"}) is False


@given(st.from_regex(r"[a-z0-9][a-z0-9_-]{0,30}", fullmatch=True))
def test_a_slug_is_never_a_title(slug: str) -> None:
    assert not is_title(slug)


def test_a_title_has_a_space_or_a_capital_and_a_slug_has_neither() -> None:
    assert is_title("Active Leads") and is_title("Leads") and is_title("active leads")
    assert not is_title("active-leads") and not is_title("active_leads") and not is_title("")


# --- (a) the location -----------------------------------------------------------------------------


def test_a_symlinked_native_folder_is_native_by_location(tmp_path: Path) -> None:
    """The owner keeps the notes elsewhere and links ``memory`` to them; run on the target."""
    target = make_store(tmp_path / "dotfiles" / "crm-memory", {"pets.md": plain_note("pets")})
    project = config_dir() / "projects" / "-home-dana-crm"
    project.mkdir(parents=True)
    (project / "memory").symlink_to(target, target_is_directory=True)
    choice = choose(target, cwd=tmp_path)
    assert choice.profile is CLAUDE_NATIVE
    assert choice.reason == (
        f"a Claude Code auto-memory folder (<config dir>/projects/*/memory, through "
        f"{project / 'memory'})"
    )
    # the notes alone say engramory: it is the location that decided
    (project / "memory").unlink()
    assert choose(target, cwd=tmp_path).profile is ENGRAMORY


def test_any_project_counts_not_only_the_current_one(tmp_path: Path, cli) -> None:
    folder = make_store(
        config_dir() / "projects" / "-srv-other-project" / "memory", {"pets.md": plain_note("pets")}
    )
    choice = choose(folder, cwd=tmp_path)
    assert choice.profile is CLAUDE_NATIVE and choice.reason.startswith("a Claude Code auto-memory")
    result = cli("fix", str(folder))
    assert result.out.splitlines()[0] == (
        "profile claude-native: a Claude Code auto-memory folder (<config dir>/projects/*/memory)"
    )


def test_a_folder_named_memory_elsewhere_is_not_located_as_native(tmp_path: Path) -> None:
    folder = make_store(tmp_path / "work" / "memory", {"pets.md": plain_note("pets")})
    assert choose(folder, cwd=tmp_path).profile is ENGRAMORY


# --- (b) the notes --------------------------------------------------------------------------------


def test_a_native_store_copied_to_tmp_is_native_by_its_notes(tmp_path: Path) -> None:
    copy = shutil.copytree(host_store(tmp_path / "original"), tmp_path / "backup-copy")
    choice = choose(copy, cwd=tmp_path)
    assert choice.profile is CLAUDE_NATIVE
    assert choice.reason == "3 of 3 notes with frontmatter are in Claude Code's dialect"


@pytest.mark.parametrize(("native", "plain"), [(1, 2), (2, 2)])
def test_a_mixed_store_without_a_native_majority_stays_engramory(
    tmp_path: Path, native: int, plain: int
) -> None:
    host = [LEADS, ROLE][:native]
    notes = {f"host_{i}.md": text for i, text in enumerate(host)}
    notes.update({f"own-{i}.md": plain_note(f"own-{i}") for i in range(plain)})
    store = make_store(tmp_path / "s", notes)
    choice = choose(store, cwd=tmp_path)
    assert choice.profile is ENGRAMORY
    assert choice.reason == dialect_reason(native, native + plain)
    assert "not a majority" in choice.reason


def test_notes_without_frontmatter_do_not_count(tmp_path: Path) -> None:
    notes = {"active_leads.md": LEADS, "scratch-1.md": "just text\n", "scratch-2.md": "more\n"}
    store = make_store(tmp_path / "s", notes)
    assert choose(store, cwd=tmp_path).reason == (
        "1 of 1 notes with frontmatter are in Claude Code's dialect"
    )


def test_an_empty_store_is_engramory(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", {})
    choice = choose(store, cwd=tmp_path)
    assert choice.profile is ENGRAMORY
    assert choice.reason == "not a Claude Code memory folder, and no note has frontmatter"


def test_symlinked_notes_and_fifos_are_not_read(tmp_path: Path) -> None:
    """Notes linked from outside do not vote, and a FIFO never blocks the choice."""
    outside = tmp_path / "outside"
    outside.mkdir()
    for i in range(3):
        (outside / f"n{i}.md").write_text(LEADS, encoding="utf-8")
    store = make_store(tmp_path / "s", {"own.md": plain_note("own")})
    for i in range(3):
        (store / f"n{i}.md").symlink_to(outside / f"n{i}.md")
    if hasattr(os, "mkfifo"):
        os.mkfifo(store / "pipe.md")
    started = time.monotonic()
    choice = choose(store, cwd=tmp_path)
    assert time.monotonic() - started < 10
    assert choice.profile is ENGRAMORY
    assert choice.reason == dialect_reason(0, 1)


def test_a_huge_note_is_read_only_at_its_head(tmp_path: Path) -> None:
    big = LEADS + "x" * (8 * 1024 * 1024)
    store = make_store(tmp_path / "s", {"active_leads.md": big})
    assert choose(store, cwd=tmp_path).profile is CLAUDE_NATIVE


# --- asking ---------------------------------------------------------------------------------------


def test_profile_engramory_overrides_detection(tmp_path: Path, cli) -> None:
    store = host_store(tmp_path / "s")
    result = cli("doctor", str(store), "--profile", "engramory", "--format", "json")
    report = json.loads(result.out)
    assert report["profile"] == "engramory"
    assert report["profile_reason"] == "asked for with --profile"
    assert "missing-date" in {f["rule"] for f in report["findings"]}
    detected = json.loads(cli("doctor", str(store), "--format", "json").out)
    assert detected["profile"] == "claude-native"


def test_profile_beats_native(tmp_path: Path) -> None:
    store = host_store(tmp_path / "s")
    choice = choose(store, "engramory", native_flag=True, cwd=tmp_path)
    assert choice.profile is ENGRAMORY and choice.reason == "asked for with --profile"
    assert choose(store, native_flag=True, cwd=tmp_path).reason == "asked for with --native"


def _memoir_source(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "fact_oven.md").write_text(
        "---\ntype: fact\nname: Oven supplier\ndescription: Who supplies the deck ovens\n"
        "created: 2026-05-14\n---\n\nThe ovens come from a supplier in Lyon.\n",
        encoding="utf-8",
    )
    return root


def command_argv(name: str, store: Path, tmp_path: Path) -> list[str]:
    """A run of each store command on ``store`` that writes nothing."""
    return {
        "fix": ["fix", str(store)],
        "compact": ["compact", str(store)],
        "new": ["new", "user", "pets", "--description", "The user's pets", "--body", "Two cats.",
                "--store", str(store), "--dry-run"],
        "archive": ["archive", "user_role", "--store", str(store), "--dry-run"],
        "import": ["import", "memoir", str(_memoir_source(tmp_path / "memoir")), "--store",
                   str(store), "--dry-run"],
        "export": ["export", "memoir", str(tmp_path / "out"), "--store", str(store), "--dry-run"],
        "check": ["check", str(store)],
        "doctor": ["doctor", str(store)],
    }[name]  # fmt: skip


COMMANDS = ("fix", "compact", "new", "archive", "import", "export", "check", "doctor")
DETECTED = "3 of 3 notes with frontmatter are in Claude Code's dialect"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_says_which_profile_and_why(name: str, tmp_path: Path, cli) -> None:
    store = host_store(tmp_path / "s")
    before = note_bytes(store)
    result = cli(*command_argv(name, store, tmp_path))
    assert result.code in (0, 1), result
    if name == "doctor":  # the doctor's summary line ends with it
        assert f"profile claude-native ({DETECTED})" in result.out
    else:  # check keeps stdout to its one verdict line: its profile line is on stderr
        said = result.err if name == "check" else result.out
        assert f"profile claude-native: {DETECTED}" in said.splitlines()
    assert note_bytes(store) == before


@pytest.mark.parametrize("name", [c for c in COMMANDS if c != "doctor"])
def test_native_is_an_alias_of_profile_claude_native(name: str, tmp_path: Path, cli) -> None:
    store = make_store(tmp_path / "s", {"user_role.md": plain_note("user_role")})
    result = cli(*command_argv(name, store, tmp_path), "--native")
    assert result.code in (0, 1), result
    said = result.err if name == "check" else result.out
    assert "profile claude-native: asked for with --native" in said.splitlines()


@pytest.mark.parametrize("name", [*COMMANDS, "mcp"])
def test_an_unknown_profile_is_a_usage_error(name: str, tmp_path: Path, cli) -> None:
    store = host_store(tmp_path / "s")
    argv = ["mcp", "--store", str(store)] if name == "mcp" else command_argv(name, store, tmp_path)
    result = cli(*argv, "--profile", "bogus")
    assert result.code == 64
    assert "bogus" in result.err and result.out == ""


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("compact", ["--format", "json"]),
        ("check", ["--format", "json"]),
        ("export", ["--format", "json"]),
        ("import", ["--format", "json"]),
        ("new", ["--format", "json"]),
    ],
)
def test_json_outputs_carry_the_profile_and_say_it_on_stderr(
    name: str, argv: list[str], tmp_path: Path, cli
) -> None:
    store = host_store(tmp_path / "s")
    result = cli(*command_argv(name, store, tmp_path), *argv)
    report = json.loads(result.out)
    assert report["profile"] == "claude-native" and report["profile_reason"] == DETECTED
    assert f"profile claude-native: {DETECTED}" in result.err


def test_the_mcp_server_logs_its_profile(tmp_path: Path) -> None:
    store = host_store(tmp_path / "s")
    done = run_engramory("mcp", "--store", str(store), stdin=b"")
    assert done.returncode == 0
    assert f"profile claude-native: {DETECTED}".encode() in done.stderr
    assert done.stdout == b""


def test_doctor_native_keeps_its_folder_meaning_and_help_says_both(cli) -> None:
    text = cli("doctor", "--help").out
    assert "--native" in text and "claude-native" in text
    assert "--native checks the current" in " ".join(text.split())


# --- fix: only the index in claude-native ---------------------------------------------------------


def test_fix_on_a_native_store_changes_no_note_and_repairs_the_index(tmp_path: Path, cli) -> None:
    store = host_store(tmp_path / "s")
    before = note_bytes(store)
    planned = cli("fix", str(store))
    assert planned.code == 1, planned
    changed = [line for line in planned.out.splitlines() if line.startswith("+++ ")]
    assert changed == ["+++ b/MEMORY.md"]
    assert "active_leads" not in planned.out.split("+++ b/MEMORY.md", 1)[0]
    applied = cli("fix", str(store), "--apply")
    assert applied.code == 0, applied
    assert note_bytes(store) == before  # every note byte-identical: names, metadata:, no dates
    index = (store / "MEMORY.md").read_text(encoding="utf-8")
    assert index.count("(active_leads.md)") == 1
    assert "(feedback_tone.md)" in index
    doctor = json.loads(cli("doctor", str(store), "--format", "json").out)
    rules = {f["rule"] for f in doctor["findings"]}
    assert not rules & {"orphan", "duplicate-pointer", "name-mismatch"}
    assert cli("fix", str(store)).code == 0  # nothing left that claude-native may fix


def test_fix_native_refuses_a_frontmatter_fix_by_name(tmp_path: Path, cli) -> None:
    store = host_store(tmp_path / "s")
    before = note_bytes(store)
    result = cli("fix", str(store), "--select", "missing-date", "--apply")
    assert result.code == 64
    assert "missing-date" in result.err and "--profile engramory" in result.err
    assert note_bytes(store) == before


def test_fix_engramory_on_the_same_store_still_fixes_dates(tmp_path: Path, cli) -> None:
    store = host_store(tmp_path / "s")
    result = cli("fix", str(store), "--profile", "engramory", "--dates-from", "mtime")
    assert "+++ b/active_leads.md" in result.out  # names and dates: the protocol's fixes


# --- new and memory_update ------------------------------------------------------------------------


def test_new_in_native_names_the_note_by_its_title(tmp_path: Path, cli) -> None:
    store = host_store(tmp_path / "s")
    result = cli("new", "user", "pets", "--description", "The user's pets", "--body", "Two cats.",
                 "--store", str(store), "--title", "User's pets")  # fmt: skip
    assert result.code == 0, result
    fields = parse((store / "pets.md").read_text(encoding="utf-8")).fields
    assert fields["name"] == "User's pets"
    plain = make_store(tmp_path / "p", {"own.md": plain_note("own")})
    assert cli("new", "user", "pets", "--description", "The user's pets", "--body", "Two cats.",
               "--store", str(plain)).code == 0  # fmt: skip
    assert parse((plain / "pets.md").read_text(encoding="utf-8")).fields["name"] == "pets"


@pytest.mark.parametrize("native", [True, False])
def test_memory_update_keeps_the_metadata_block(tmp_path: Path, native: bool) -> None:
    store = host_store(tmp_path / "s")
    change = mcp_update.NoteChange(description="Live prospects and their owners")
    with days_seen() as days:
        mcp_update.update("active_leads", change, str(store), Caps(), native)
    text = (store / "active_leads.md").read_text(encoding="utf-8")
    described = LEADS.replace(
        "description: Which prospects are live this quarter and who follows up on each",
        "description: Live prospects and their owners",
    )
    expected = [described]
    if not native:  # the protocol's date, on its own line; nothing else moves
        expected = [
            described.replace(
                "  originSessionId: 5b7e0c2d-91aa-4c3e-8f10-2d6b9e4a7c01\n",
                f"  originSessionId: 5b7e0c2d-91aa-4c3e-8f10-2d6b9e4a7c01\nupdated: {day}\n",
            )
            for day in days
        ]
    assert text in expected


def test_memory_update_of_the_body_keeps_the_frontmatter_bytes(tmp_path: Path) -> None:
    store = host_store(tmp_path / "s")
    change = mcp_update.NoteChange(body="Four prospects are live now.")
    mcp_update.update("user_role", change, str(store), Caps(), True)
    text = (store / "user_role.md").read_text(encoding="utf-8")
    head = ROLE.split("---\n\n", 1)[0]
    assert text.startswith(head + "---\n") and "Four prospects are live now." in text


def test_a_key_added_to_a_note_with_a_metadata_block_goes_after_the_block() -> None:
    """(--profile engramory on a host note) the block stays whole: no line lands inside it."""
    from engramory.repair.fmedit import set_field

    edited = set_field(LEADS.encode(), "created", "2026-05-01").decode()
    assert (
        "metadata:\n  node_type: memory\n  type: project\n"
        "  originSessionId: 5b7e0c2d-91aa-4c3e-8f10-2d6b9e4a7c01\ncreated: 2026-05-01\n---\n"
    ) in edited


# --- every corpus store in the profile it is detected in ------------------------------------------

CORPUS_STORES = sorted(
    p for p in (Path(__file__).parent / "corpus" / "stores").iterdir() if p.is_dir()
)


def all_bytes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".engramory" not in p.parts
    }


@pytest.mark.parametrize("store", CORPUS_STORES, ids=[p.name for p in CORPUS_STORES])
def test_fix_in_the_detected_profile_on_every_corpus_store(
    store: Path, tmp_path: Path, cli
) -> None:
    """Detected native: no note byte changes; apply twice is a no-op; undo is byte-exact."""
    root = shutil.copytree(store, tmp_path / store.name, symlinks=True)
    before = all_bytes(root)
    choice = choose(root, cwd=tmp_path)
    first = cli("fix", str(root), "--apply")
    assert first.code == 0, first
    assert first.out.splitlines()[0] == choice.line()
    after = all_bytes(root)
    if choice.profile is CLAUDE_NATIVE:
        assert {rel for rel in after if after[rel] != before.get(rel)} <= {"MEMORY.md"}
    assert "nothing to fix" in cli("fix", str(root), "--apply").out
    assert all_bytes(root) == after
    undo = [line for line in first.out.splitlines() if line.startswith("undo: ")]
    if undo:
        assert cli("fix", str(root), "--undo", undo[0].split()[4]).code == 0
    assert all_bytes(root) == before
