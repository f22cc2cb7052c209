"""Hermes' ``config.yaml`` as ``init hermes --install-hooks`` edits it: the text edit on a table
of inputs (install -> install again -> remove gives the input's exact bytes back; refused shapes),
a generated round trip, and the installer's round trip through the CLI with ``$HERMES_HOME``."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from installkit import digest

from engramory.hosts import hermes, hermes_config
from engramory.hosts.registry import HOSTS
from engramory.wiring.hookfiles import EditRefusal

ENTRIES = {
    "pre_tool_call": [
        {
            "matcher": "write_file|patch|terminal",
            "command": "/py -I -S '/opt/my guard.py' --host hermes",
            "timeout": 10,
            "fail_closed": False,
        }
    ],
    "pre_llm_call": [{"command": "/py -I -S /s.py hook --host hermes", "timeout": 10}],
}

# (id, the file's text before (None: absent))
EDITABLE = [
    ("absent", None),
    ("empty", ""),
    ("only a comment", "# my settings\n"),
    ("no hooks key", "model: gpt\ndisplay:\n  skin: mono\n"),
    ("no final newline", "model: gpt"),
    ("document start", "---\nmodel: gpt\n"),
    ("hooks with another event", "model: x\nhooks:\n    post_tool_call:\n      - command: a\nother: 1\n"),
    ("hooks with comments", "hooks:  # mine\n# a note at column 0\n  on_session_end:\n    - command: b\n"),
    ("existing pre_tool_call list", "hooks:\n  pre_tool_call:\n    - matcher: \".*\"\n      command: mine\n"),
    ("compact list at the key's indent", "hooks:\n  pre_tool_call:\n  - command: mine\n  pre_llm_call:\n  - command: ctx\n"),
    ("an empty event", "hooks:\n  pre_tool_call:\n  post_tool_call:\n    - command: a\n"),
    ("an empty event at the end, no newline", "hooks:\n  pre_tool_call:"),
    ("hooks with no value", "hooks:\nmodel: x\n"),
    ("hooks last, no newline", "model: x\nhooks:"),
    ("CRLF", "model: x\r\nhooks:\r\n  pre_llm_call:\r\n    - command: x\r\n"),
    ("CRLF, no hooks", "model: x\r\n"),
    ("a matcher with a star", "hooks:\n  pre_tool_call:\n    - matcher: \"write_.*\"\n      command: mine\n"),
]  # fmt: skip

REFUSED = [
    ("flow style hooks", "hooks: {pre_tool_call: []}\n"),
    ("flow style event", "hooks:\n  pre_tool_call: []\n"),
    ("an event that is a mapping", "hooks:\n  pre_tool_call:\n    command: x\n"),
    ("hooks as a list", "hooks:\n  - command: x\n"),
    ("tabs", "hooks:\n\tpre_tool_call:\n"),
    ("an anchor on hooks", "hooks: &h\n  post_tool_call: []\n"),
    ("an alias in hooks", "hooks:\n  pre_tool_call:\n    - *shared\n"),
    ("a tag in hooks", "hooks:\n  pre_tool_call: !!seq\n"),
    ("a merge key", "hooks:\n  <<: *base\n"),
    ("a top-level merge key", "<<: *base\nmodel: x\n"),
    ("a quoted hooks key", '"hooks":\n  post_tool_call: []\n'),
    ("two hooks keys", "hooks:\n  a: 1\nhooks:\n  b: 2\n"),
    ("a repeated event", "hooks:\n  pre_tool_call:\n    - command: a\n  pre_tool_call:\n    - command: b\n"),
    ("an indented top level", "  model: x\n"),
    ("a top-level list", "- model\n"),
    ("two documents", "a: 1\n---\nb: 2\n"),
    ("a directive", "%YAML 1.2\n---\na: 1\n"),
    ("a scalar hooks value", "hooks: null\n"),
]  # fmt: skip


def test_the_marker_records_a_folder_init_created() -> None:
    installed = hermes_config.install(None, ENTRIES, new_folder=True)
    assert hermes_config.created_folder(installed) and hermes_config.remove(installed) is None
    assert hermes_config.install(installed, ENTRIES) == installed  # the record survives re-init
    plain = hermes_config.install(None, ENTRIES)
    assert not hermes_config.created_folder(plain) and hermes_config.remove(plain) is None
    kept = hermes_config.install("model: x\n", ENTRIES, new_folder=True)  # the file existed
    assert not hermes_config.created_folder(kept)


@pytest.mark.parametrize("text", [r[1] for r in EDITABLE], ids=[r[0] for r in EDITABLE])
def test_install_then_remove_gives_the_exact_bytes_back(text: str | None) -> None:
    installed = hermes_config.install(text, ENTRIES)
    assert hermes_config.is_ours(installed)
    assert hermes_config.install(installed, ENTRIES) == installed  # re-init: byte-identical
    assert hermes_config.remove(installed) == text
    assert ('"write_file|patch|terminal"') in installed
    assert json.dumps(ENTRIES["pre_tool_call"][0]["command"]) in installed
    if text is not None and "\r\n" in text:
        assert "\n" not in installed.replace("\r\n", "")  # one line ending throughout
    if text is not None:
        assert set(text.splitlines()) <= set(installed.splitlines())  # the user's lines stay


@pytest.mark.parametrize("text", [r[1] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_a_shape_it_cannot_edit_safely_is_refused_with_the_lines_to_add(text: str) -> None:
    with pytest.raises(EditRefusal) as refusal:
        hermes_config.install(text, ENTRIES)
    message = str(refusal.value)
    assert "by hand" in message
    assert '  pre_tool_call:\n    - matcher: "write_file|patch|terminal"\n' in message
    assert "fail_closed: false" in message


def test_a_new_event_key_goes_first_in_the_users_hooks_mapping() -> None:
    text = "model: x\nhooks:\n    post_tool_call:\n      - command: a\nother: 1\n"
    installed = hermes_config.install(text, ENTRIES)
    lines = installed.splitlines()
    assert lines[2] == f"    {hermes_config.BEGIN}"
    assert lines[3] == "    pre_tool_call:"  # the user's indentation
    assert lines[4] == '      - matcher: "write_file|patch|terminal"'
    assert lines[-3:] == ["    post_tool_call:", "      - command: a", "other: 1"]


def test_our_item_goes_first_in_an_existing_event_list() -> None:
    text = "hooks:\n  pre_tool_call:\n  - command: mine\n"
    lines = hermes_config.install(text, ENTRIES).splitlines()
    at = lines.index("  pre_tool_call:")
    assert lines[at + 1 : at + 3] == [
        f"  {hermes_config.BEGIN}",
        '  - matcher: "write_file|patch|terminal"',
    ]
    assert lines[-1] == "  - command: mine"


def test_a_file_init_created_is_deleted_only_while_nothing_else_is_in_it() -> None:
    created = hermes_config.install(None, ENTRIES)
    assert hermes_config.CREATED in created.splitlines()[0]
    assert hermes_config.remove(created) is None
    assert hermes_config.remove(created + "model: x\n") == "model: x\n"
    emptied = hermes_config.install("", ENTRIES)
    assert hermes_config.remove(emptied) == ""  # the user's empty file stays


def test_a_break_init_added_stays_when_the_user_wrote_after_the_block() -> None:
    installed = hermes_config.install("model: x", ENTRIES)
    assert hermes_config.remove(installed) == "model: x"
    assert hermes_config.remove(installed + "later: 1\n") == "model: x\nlater: 1\n"


@pytest.mark.parametrize(
    "text",
    [
        f"{hermes_config.BEGIN}\nhooks:\n",
        f"hooks:\n{hermes_config.END}\n",
        f"{hermes_config.BEGIN}\n{hermes_config.BEGIN}\n{hermes_config.END}\n",
    ],
    ids=["no end", "no begin", "nested"],
)
def test_unbalanced_markers_are_left_for_the_user(text: str) -> None:
    with pytest.raises(EditRefusal, match="do not pair up"):
        hermes_config.remove(text)


# --- generated configs ---------------------------------------------------------------------

NAMES = st.sampled_from(["model", "display", "agent", "toolsets", "x_1", "memory"])
EVENTS = st.sampled_from(["pre_tool_call", "post_tool_call", "pre_llm_call", "on_session_end"])
VALUES = st.sampled_from(["1", "true", '"a b"', "gpt-5", "'q'", ""])


@st.composite
def simple_yaml(draw: st.DrawFn) -> str:
    """A block-style config: scalars, nested mappings, maybe a ``hooks:`` block with lists."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    indent = " " * draw(st.sampled_from([2, 4]))
    lines: list[str] = []
    keys = draw(st.lists(NAMES, unique=True, max_size=4))
    hooks_at = draw(st.integers(min_value=-1, max_value=len(keys)))
    for number, key in enumerate([*keys, None]):
        if number == hooks_at:
            lines.append("hooks:")
            for event in draw(st.lists(EVENTS, unique=True, max_size=3)):
                lines.append(f"{indent}{event}:")
                item = indent * 2 if draw(st.booleans()) else indent
                for value in draw(st.lists(VALUES, max_size=2)):
                    lines.append(f"{item}- command: {value or 'x'}")
                    lines.append(f"{item}  timeout: 5")
        if key is None:
            break
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(VALUES)}".rstrip())
        else:
            lines.append(f"{key}:")
            lines.append(f"{indent}inner: {draw(VALUES)}".rstrip())
        if draw(st.booleans()):
            lines.append("# a comment")
    text = nl.join(lines)
    return text + (nl if draw(st.booleans()) else "")


@settings(max_examples=300, deadline=None)
@given(simple_yaml())
def test_generated_configs_round_trip(text: str) -> None:
    installed = hermes_config.install(text, ENTRIES)
    assert hermes_config.install(installed, ENTRIES) == installed
    assert hermes_config.remove(installed) == text


# --- the installer ---------------------------------------------------------------------------


@pytest.fixture
def hermes_home(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "hermes-home"
    path.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(path))
    return path


def test_the_host_facts() -> None:
    host = HOSTS["hermes"]
    assert host.pre_write_hook and host.cap_enforcement == "deny-hook"
    assert host.hook_files == ("$HERMES_HOME/config.yaml",) == host.global_hook_files
    assert host.lifecycle_hooks == ("on_session_start", "pre_llm_call")


@pytest.mark.parametrize("text", [r[1] for r in EDITABLE[1:]], ids=[r[0] for r in EDITABLE[1:]])
def test_init_reinit_uninstall_give_the_users_bytes_back(
    cli, project: Path, hermes_home: Path, text: str
) -> None:
    config = hermes_home / "config.yaml"
    original = text.encode()
    config.write_bytes(original)
    first = cli("init", "hermes", "--install-hooks")
    assert first.code == 0, first
    installed = config.read_bytes()
    assert installed != original and hermes_config.BEGIN.encode() in installed
    again = cli("init", "hermes", "--install-hooks")
    assert again.code == 0 and config.read_bytes() == installed
    assert "already registered" in again.out
    assert cli("uninstall", "hermes").code == 0
    assert config.read_bytes() == original


def test_a_config_init_created_is_removed_again(cli, project: Path, hermes_home: Path) -> None:
    result = cli("init", "hermes", "--install-hooks")
    assert result.code == 0, result
    config = hermes_home / "config.yaml"
    assert config.is_file()
    assert "--accept-hooks" in result.out and "HERMES_ACCEPT_HOOKS=1" in result.out
    assert cli("uninstall", "hermes").code == 0
    assert not config.exists()
    assert hermes_home.is_dir()  # the folder was there before init: kept, empty or not


def test_the_hermes_folder_init_created_goes_with_the_config(
    cli, project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HERMES_HOME", raising=False)
    folder = home / ".hermes"
    result = cli("init", "hermes", "--install-hooks")
    assert result.code == 0, result
    config = (folder / "config.yaml").read_text()
    assert hermes_config.CREATED_WITH_FOLDER in config.splitlines()[0]
    assert cli("init", "hermes", "--install-hooks").code == 0  # re-init keeps the record
    assert (folder / "config.yaml").read_text() == config
    result = cli("uninstall", "hermes")
    assert result.code == 0, result
    assert "then its folder, which init created" in result.out
    assert not folder.exists() and home.is_dir()


def test_a_folder_init_created_that_holds_more_now_is_kept(
    cli, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "new-hermes-home"
    monkeypatch.setenv("HERMES_HOME", str(folder))
    assert cli("init", "hermes", "--install-hooks").code == 0
    (folder / "sessions").mkdir()  # Hermes ran since
    assert cli("uninstall", "hermes").code == 0
    assert not (folder / "config.yaml").exists()
    assert sorted(p.name for p in folder.iterdir()) == ["sessions"]


def test_the_registered_commands_name_no_store(cli, project: Path, hermes_home: Path) -> None:
    assert cli("init", "hermes", "--install-hooks").code == 0
    text = (hermes_home / "config.yaml").read_text()
    commands = [
        json.loads(line.split("command: ", 1)[1])
        for line in text.splitlines()
        if "command:" in line
    ]
    guard, after, start, sync = (shlex.split(command) for command in commands)
    assert guard[1:3] == ["-I", "-S"] and guard[3].endswith("engramory_index_guard.py")
    assert guard[4:] == ["--host", "hermes"]
    assert after[:4] == guard[:4] and after[4:] == ["--host", "hermes", "--event", "post"]
    assert start[3].endswith("engramory_sync.py")
    assert start[4:] == [
        "hook",
        "--host",
        "hermes",
        "--event",
        "SessionStart",
        "--mode",
        "explicit",
    ]
    assert sync[3].endswith("engramory_sync.py")
    assert sync[4:] == ["hook", "--host", "hermes", "--mode", "explicit"]
    assert re.search(r"^  on_session_start:\n    - command: .*--event SessionStart", text, re.M)
    assert str(project) not in text  # user-wide: each call finds its store from its cwd
    assert 'matcher: "write_file|patch|terminal"' in text and "fail_closed: false" in text


@pytest.mark.parametrize("text", [r[1] for r in REFUSED[:4]], ids=[r[0] for r in REFUSED[:4]])
def test_a_refused_config_writes_nothing(
    cli, project: Path, hermes_home: Path, tmp_path: Path, text: str
) -> None:
    (hermes_home / "config.yaml").write_text(text)
    before = digest(tmp_path)
    result = cli("init", "hermes", "--install-hooks")
    assert result.code == 1
    assert "by hand" in result.err and "nothing was written" in result.err
    assert digest(tmp_path) == before


def test_dry_run_writes_nothing(cli, project: Path, hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "config.yaml").write_text("model: x\n")
    before = digest(tmp_path)
    result = cli("init", "hermes", "--install-hooks", "--dry-run")
    assert result.code == 0, result
    assert "config.yaml" in result.out
    assert digest(tmp_path) == before


def test_global_install_edits_the_same_file(cli, home: Path, hermes_home: Path) -> None:
    result = cli("init", "hermes", "--global", "--install-hooks")
    assert result.code == 0, result
    assert hermes_config.is_ours((hermes_home / "config.yaml").read_text())
    assert cli("uninstall", "hermes", "--global").code == 0
    assert not (hermes_home / "config.yaml").exists()
    assert hermes_home.is_dir()  # there before init (empty): never deleted on emptiness alone


def test_hook_entries_on_windows_are_one_windows_command_line() -> None:
    from engramory.wiring.hookfiles import HookContext

    context = HookContext(
        python="C:\\Program Files\\Py\\python.exe",
        guard="C:\\g.py",
        sync="C:\\s.py",
        store=None,
        mode="explicit",
        root=Path("/p"),
        home=Path("/h"),
        windows=True,
    )
    command = hermes.hook_entries(context)["pre_tool_call"][0]["command"]
    assert command == '"C:\\Program Files\\Py\\python.exe" -I -S C:\\g.py --host hermes'


def test_the_rules_say_no_compaction_is_held_back(cli, project: Path, hermes_home: Path) -> None:
    assert cli("init", "hermes", "--install-hooks").code == 0
    rules = (project / "AGENTS.md").read_text()
    assert "Hermes Agent offers no way to hold a compaction back" in rules
    assert "A manual compaction waits" not in rules
    assert "use write_file/patch" in rules
