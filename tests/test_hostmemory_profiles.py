"""The doctor profiles of the other hosts' memory (issue 38 item 3): each detected by where
the folder is or by its files' shape, the Codex and Hermes rules running only under their
profile, and every write command refusing Codex's host-managed folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engramory.doctor.profile_choice import choose
from engramory.doctor.profiles import CODEX_RULES, ENGRAMORY, HERMES_RULES, PROFILES

HOST_VARIABLES = (
    "QWEN_CODE_MEMORY_LOCAL",
    "QWEN_CODE_MEMORY_BASE_DIR",
    "QWEN_RUNTIME_DIR",
    "CODEX_HOME",
    "HERMES_HOME",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE",
    "ENGRAMORY_MEMORY_ROOT",
)
NOTE = "---\nname: user\ndescription: who the user is\ntype: user\n---\nA developer.\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for variable in HOST_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return folder


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A directory outside every project, to run from."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def notes_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- [User](user.md) — who the user is\n")
    (folder / "user.md").write_text(NOTE)
    return folder


def codex_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text("v1\nThe user prefers tabs.\n")
    (folder / "MEMORY.md").write_text("# Task Group: style\nscope: repo\n\n## Task 1\ntabs\n")
    return folder


# --- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "profile"),
    [
        (".qwen/projects/-any-project/memory", "qwen-native"),
        (".gemini/tmp/any-project/memory", "gemini-native"),
        (".codex/memories", "codex-memories"),
        (".hermes/memories", "hermes"),
    ],
)
def test_each_host_folder_is_detected_by_its_location(
    home: Path, elsewhere: Path, where: str, profile: str
) -> None:
    store = notes_folder(home / where)
    choice = choose(store, cwd=elsewhere)
    assert choice.profile.name == profile, choice.reason


def test_a_moved_base_dir_is_still_qwen(
    home: Path, elsewhere: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QWEN_CODE_MEMORY_BASE_DIR", str(tmp_path / "qbase"))
    store = notes_folder(tmp_path / "qbase" / "projects" / "-p" / "memory")
    assert choose(store, cwd=elsewhere).profile.name == "qwen-native"


def test_codex_and_hermes_copies_are_detected_by_shape(home: Path, tmp_path: Path) -> None:
    assert choose(codex_folder(tmp_path / "copy-a"), cwd=tmp_path).profile.name == "codex-memories"
    handbook = tmp_path / "copy-b"
    handbook.mkdir()
    (handbook / "MEMORY.md").write_text("# Task Group: x\n")
    assert choose(handbook, cwd=tmp_path).profile.name == "codex-memories"
    entries = tmp_path / "copy-c"
    entries.mkdir()
    (entries / "USER.md").write_text("Name: Ana\n§\nLikes tea\n")
    assert choose(entries, cwd=tmp_path).profile.name == "hermes"


def test_a_plain_store_stays_engramory(home: Path, tmp_path: Path) -> None:
    store = notes_folder(tmp_path / "store")
    (store / "user.md").write_text(NOTE.replace("type: user", "type: user\ncreated: 2026-01-01"))
    assert choose(store, cwd=tmp_path).profile is ENGRAMORY


def test_an_asked_for_profile_wins_over_the_shape(home: Path, tmp_path: Path) -> None:
    store = codex_folder(tmp_path / "copy")
    assert choose(store, "engramory", cwd=tmp_path).profile is ENGRAMORY


# --- which rules run ------------------------------------------------------------------------


def test_host_file_rules_run_only_under_their_profile() -> None:
    for name, profile in PROFILES.items():
        for rule_id in CODEX_RULES:
            assert profile.runs(rule_id) == (name == "codex-memories"), (name, rule_id)
        for rule_id in HERMES_RULES:
            assert profile.runs(rule_id) == (name == "hermes"), (name, rule_id)
    assert not PROFILES["codex-memories"].runs("orphan")
    assert PROFILES["codex-memories"].runs("secret-value")
    assert PROFILES["qwen-native"].runs("orphan") and PROFILES["gemini-native"].runs("orphan")


def doctor_rules(cli, store: Path, *flags: str) -> set[str]:
    result = cli("doctor", str(store), "--format", "json", *flags)
    assert result.code in (0, 1), result
    return {f["rule"] for f in json.loads(result.out)["findings"]}


def test_a_clean_codex_folder_has_no_findings(cli, home: Path, elsewhere: Path) -> None:
    assert doctor_rules(cli, codex_folder(home / ".codex" / "memories")) == set()


def test_a_codex_summary_edited_by_hand_fires_and_engramory_rules_stay_quiet(
    cli, home: Path
) -> None:
    folder = codex_folder(home / ".codex" / "memories")
    (folder / "memory_summary.md").write_text("Summary\n" + "y" * 11_000 + "\n")
    (folder / "raw_memories.md").write_text("no frontmatter here\n")
    assert doctor_rules(cli, folder) == {"codex-summary-header", "codex-summary-over-cut"}


def test_hermes_rules_fire_on_a_hermes_folder(cli, home: Path) -> None:
    folder = home / ".hermes" / "memories"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("tabs\n§\nuv\n§\ntabs\n§\nnote\n§ \n" + "z" * 2_300 + "\n")
    found = doctor_rules(cli, folder)
    assert found == {"hermes-duplicate-entry", "hermes-separator", "hermes-over-cap"}


def test_qwen_native_relaxes_dates_and_names(cli, home: Path, elsewhere: Path) -> None:
    folder = notes_folder(home / ".qwen" / "projects" / "-p" / "memory")
    found = json.loads(cli("doctor", str(folder), "--format", "json").out)
    assert found["profile"] == "qwen-native"
    severities = {f["rule"]: f["severity"] for f in found["findings"]}
    assert severities.get("missing-date") == "info"
    assert "name-mismatch" not in severities


# --- writes refused in Codex's folder -------------------------------------------------------


def write_commands(store: Path, tmp_path: Path) -> dict[str, list[str]]:
    return {
        "new": ["new", "user", "pets", "--description", "pets", "--store", str(store)],
        "new --dry-run": ["new", "user", "pets", "--description", "pets", "--store", str(store),
                          "--dry-run"],
        "archive": ["archive", "style", "--store", str(store)],
        "fix --apply": ["fix", str(store), "--apply"],
        "compact --apply": ["compact", str(store), "--apply"],
    }  # fmt: skip


@pytest.mark.parametrize("command", ["new", "new --dry-run", "archive", "fix --apply",
                                     "compact --apply"])  # fmt: skip
def test_every_write_command_refuses_codex_memories(
    cli, home: Path, tmp_path: Path, command: str
) -> None:
    store = codex_folder(home / ".codex" / "memories")
    before = {p.name: p.read_bytes() for p in store.iterdir()}
    result = cli(*write_commands(store, tmp_path)[command])
    assert result.code == 1, result
    assert "refused" in result.err and "nothing was written" in result.err
    assert "Codex manages this folder itself" in result.err
    assert {p.name: p.read_bytes() for p in store.iterdir()} == before


def test_restore_and_merge_refuse_codex_memories(cli, home: Path, tmp_path: Path) -> None:
    """The two write commands that take a snapshot or another folder refuse it too."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("history needs git")
    store = codex_folder(home / ".codex" / "memories")
    assert cli("history", "snapshot", "--store", str(store)).code == 0
    before = {p.name: p.read_bytes() for p in store.iterdir()}
    source = tmp_path / "from"
    source.mkdir()
    (source / "MEMORY.md").write_text("# Memory\n\n- [Pets](pets.md) - pets\n", "utf-8")
    (source / "pets.md").write_text(
        "---\nname: pets\ndescription: pets\ntype: user\n---\n\nA cat.\n", "utf-8"
    )
    for argv in (
        ["restore", "HEAD", "--store", str(store), "--apply"],
        ["merge", str(source), str(store), "--apply"],
    ):
        result = cli(*argv)
        assert result.code == 1, result
        assert "Codex manages this folder itself" in result.err, result
        assert {p.name: p.read_bytes() for p in store.iterdir()} == before


def test_fix_and_compact_without_apply_still_read_codex_memories(cli, home: Path) -> None:
    store = codex_folder(home / ".codex" / "memories")
    for command in ("fix", "compact"):
        result = cli(command, str(store))
        assert "refused" not in result.err, result


def test_the_import_refusal_comes_from_the_shared_profile_check(home: Path) -> None:
    import argparse

    from engramory.commands.options import profile_from_args
    from engramory.util.errors import EngramoryError

    store = codex_folder(home / ".codex" / "memories")
    args = argparse.Namespace(profile=None, native=False)
    assert profile_from_args(args, store).profile.name == "codex-memories"
    with pytest.raises(EngramoryError, match=r"refused \(the import would write the store\)"):
        profile_from_args(args, store, writes="the import")


def test_mcp_write_tools_refuse_and_read_tools_answer(home: Path) -> None:
    from mcpkit import call, line, session

    store = codex_folder(home / ".codex" / "memories")
    before = {p.name: p.read_bytes() for p in store.iterdir()}
    raw = line(call(1, "memory_write", {"slug": "pets", "type": "user", "description": "pets",
                                        "body": "Two cats."}))  # fmt: skip
    raw += line(call(2, "memory_index", {}))
    result, out = session(store, raw)
    assert result.returncode == 0, result.stderr
    by_id = {message["id"]: message["result"] for message in out}
    assert (
        by_id[1]["isError"] and "Codex manages this folder itself" in by_id[1]["content"][0]["text"]
    )
    assert not by_id[2]["isError"]
    assert {p.name: p.read_bytes() for p in store.iterdir()} == before


# --- worst inputs stay linear ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule_module", "name", "line"),
    [("codex", "MEMORY.md", "# Heading\n"), ("hermes", "MEMORY.md", "§ \n"),
     ("hermes", "USER.md", "x\n§\n")],
)  # fmt: skip
def test_host_file_rules_read_a_4_mib_file_quickly(
    tmp_path: Path, rule_module: str, name: str, line: str
) -> None:
    import importlib
    import time
    from types import SimpleNamespace

    from engramory.doctor.rules import REGISTRY

    data = (line * (4 * 1024 * 1024 // len(line.encode("utf-8"))))[: 4 * 1024 * 1024 - 8]
    (tmp_path / name).write_text(data, encoding="utf-8")
    view = SimpleNamespace(root=str(tmp_path))
    module = importlib.import_module(f"engramory.doctor.rules.{rule_module}")
    started = time.perf_counter()
    fired = 0
    for rule in REGISTRY:
        if rule.check.__module__ == module.__name__:
            fired += sum(1 for _ in rule.check(view))
    assert fired > 0
    assert time.perf_counter() - started < 30  # linear: a quadratic scan would take hours
