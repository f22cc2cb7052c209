"""The gate before the shell parser (engramory.guard.shellgate) never lets a denied command through.

The full parser (:func:`engramory.guard.service.check_shell` with the gate forced
open) is the reference: on every ground-truth command of tests/data/shell_commands.txt
and on generated ones, in a scratch folder holding an index, a store, an alias of the
index under another name (a symbolic and a hard link) and a dangling link, with the
index known by name only and by its path (``--index``), a command the parser denies
is one the gate sends to it. The commands an agent runs all day are dismissed by the
gate, without the parser being imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import test_shell_groundtruth as groundtruth
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO
from engramory.guard import service, shellgate, shellparse
from engramory.guard.decision import DENY

EVERYDAY = (
    "python3 -m pytest",
    "python3 -m pytest -q tests/test_x.py",
    "git commit -m x",
    "git commit -am 'fix the parser'",
    "git status",
    "git diff HEAD",
    "npm test",
    "make -j2",
    "cargo test",
    "ls -la",
    "grep -rn TODO src",
)


def full_parser_denies(command: str, cwd: Path, index: str | None, monkeypatch) -> bool:
    """The verdict of the full parser alone (the gate forced open)."""
    with monkeypatch.context() as patch:
        patch.setattr(shellgate, "may_concern_store", lambda *args: True)
        return service.check_shell(command, str(cwd), {}, index).kind == DENY


def scratch_with_aliases(root: Path) -> Path:
    work = groundtruth.scratch(root)
    os.symlink("MEMORY.md", work / "shortcut")
    os.link(work / "MEMORY.md", work / "hardcopy")
    os.symlink("gone", work / "dangling")
    return work


@pytest.mark.parametrize(
    ("category", "flag", "command"),
    groundtruth.ROWS,
    ids=[r[2][:60] for r in groundtruth.ROWS],
)
def test_gate_passes_every_ground_truth_command_the_parser_denies(
    category: str, flag: str, command: str, tmp_path: Path, monkeypatch
) -> None:
    work = groundtruth.scratch(tmp_path)
    if category.startswith(("git", "read-git")):
        if groundtruth.shutil.which("git") is None:
            pytest.skip("git is not installed")
        groundtruth.make_repository(work)
    for index in (None, str(work / "MEMORY.md")):
        if full_parser_denies(command, work, index, monkeypatch):
            assert shellgate.may_concern_store(command, str(work), {}, index), (command, index)


_NAMES = [
    "MEMORY.md", "memory.MD", "store/MEMORY.md", "notes.md", "store", "sub", "out", ".", "..",
    "shortcut", "hardcopy", "dangling", "a.txt", "out.txt", "'short''cut'", '"hard"copy',
    "M\\EMORY.md", "MEM'ORY'.md", "x", "-rf", "-i", "-f", "-oshortcut", "of=hardcopy",
    "--output=shortcut", "other", "--", "-m",
]  # fmt: skip
_PROGRAMS = [
    "echo", "printf x", "cat", "tee", "tee -a", "sed -i s/a/b/", "touch", "truncate -s0", "rm",
    "rm -r", "mv", "cp", "cp -r", "ln -sf", "dd of=shortcut", "sort -o", "python3 -m pytest",
    "python3 -c \"open('shortcut','w')\"", "bash -c 'echo x >> shortcut'", "git commit -m",
    "git checkout", "git restore", "git stash", "git reset --hard", "find . -delete",
    "xargs rm", "tar -xf o.tar", "unzip -o o.zip", "cd store &&", "npm test", "make",
    "perl -pi -e s/a/b/", "awk '{print > \"shortcut\"}'", "vim", "curl -o", "gzip",
]  # fmt: skip
_JOINERS = [" ", " > ", " >> ", " ; ", " && ", " | ", " < ", " <<< ", " 2> "]


@st.composite
def commands(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        words = [draw(st.sampled_from(_PROGRAMS))]
        for _ in range(draw(st.integers(0, 3))):
            words.append(draw(st.sampled_from(_NAMES)))
            words.append(draw(st.sampled_from(_JOINERS)).strip() or " ")
        parts.append(" ".join(w for w in words if w.strip()))
    return draw(st.sampled_from([" ; ", " && ", " | ", "\n"])).join(parts)


@pytest.fixture(scope="module")
def aliased(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scratch_with_aliases(tmp_path_factory.mktemp("gate"))


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=commands(), by_path=st.booleans())
def test_gate_passes_every_generated_command_the_parser_denies(
    aliased: Path, command: str, by_path: bool, monkeypatch
) -> None:
    index = str(aliased / "MEMORY.md") if by_path else None
    if full_parser_denies(command, aliased, index, monkeypatch):
        assert shellgate.may_concern_store(command, str(aliased), {}, index), command


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_commands_are_dismissed_by_the_gate(command: str, tmp_path: Path) -> None:
    work = scratch_with_aliases(tmp_path)
    for index in (None, str(work / "MEMORY.md")):
        assert not shellgate.may_concern_store(command, str(work), {}, index), (command, index)


def test_a_dismissed_command_does_not_import_the_parser(tmp_path: Path) -> None:
    """As the hook runs it: ``python3 -m pytest`` ends at the gate, the parser never loaded."""
    work = scratch_with_aliases(tmp_path)
    code = (
        "import sys, json\n"
        "from engramory import dialects as entry\n"
        "print(json.dumps([entry.answer(sys.argv[1:], sys.stdin.buffer.read(), {}),"
        " 'engramory.guard.shellwrite' in sys.modules,"
        " 'engramory.guard.shellparse' in sys.modules]))\n"
    )
    for command, parsed in (("python3 -m pytest", False), ("rm -rf store", True)):
        payload = {"tool_name": "Bash", "cwd": str(work), "tool_input": {"command": command}}
        proc = subprocess.run(
            [sys.executable, "-c", code, "--index", str(work / "MEMORY.md")],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=True,
        )
        answer, shellwrite_loaded, shellparse_loaded = json.loads(proc.stdout)
        assert (shellwrite_loaded, shellparse_loaded) == (parsed, parsed), command
        assert ("deny" in answer[0]) is parsed, answer


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("echo x >> shortcut", "a symbolic link to the index"),
        ("tee -a hardcopy < a.txt", "a hard link to the index"),
        ("sort -oshortcut a.txt", "an alias attached to an option"),
        ("dd if=a.txt of=hardcopy", "an alias after ="),
        ("echo x > dangling", "a dangling link"),
    ],
)
def test_an_alias_of_the_known_index_is_parsed(command: str, why: str, tmp_path: Path) -> None:
    work = scratch_with_aliases(tmp_path)
    assert shellgate.may_concern_store(command, str(work), {}, str(work / "MEMORY.md")), why
    # known by name only, the parser would not see an alias either: nothing to parse for
    assert not shellgate.may_concern_store(command.replace("dangling", "d"), str(work), {}, None)


def test_a_known_index_that_does_not_exist_parses_every_writing_command(tmp_path: Path) -> None:
    assert shellgate.may_concern_store("git commit -m x", str(tmp_path), {}, str(tmp_path / "M.md"))
    assert not shellgate.may_concern_store("git commit -m x", str(tmp_path), {}, None)


def test_a_custom_index_name_is_looked_for(tmp_path: Path) -> None:
    environ = {"ENGRAMORY_INDEX_NAME": "INDEX.txt"}
    assert shellgate.may_concern_store("tee -a index.TXT", str(tmp_path), environ)
    assert not shellgate.may_concern_store("tee -a other.txt", str(tmp_path), environ)


def test_nesting_deeper_than_the_parser_follows_is_parsed(tmp_path: Path, monkeypatch) -> None:
    assert shellgate.NESTING_LIMIT == shellparse.MAX_DEPTH
    command = "true"
    for _ in range(shellparse.MAX_DEPTH + 1):
        command = "bash -c " + json.dumps(command)
    assert full_parser_denies(command, tmp_path, None, monkeypatch)
    assert shellgate.may_concern_store(command, str(tmp_path), {})


def test_a_long_command_is_parsed(tmp_path: Path) -> None:
    command = "git commit -m " + "x" * shellgate.MAX_GATED
    assert shellgate.may_concern_store(command, str(tmp_path), {})


def test_too_many_words_to_look_up_are_parsed(tmp_path: Path) -> None:
    (tmp_path / "the-index").write_text("x\n")
    index = str(tmp_path / "the-index")
    short = "git commit -m '" + " ".join(f"w{i}" for i in range(10)) + "'"
    command = "git commit -m '" + " ".join(f"w{i}" for i in range(shellgate.MAX_WORDS)) + "'"
    assert not shellgate.may_concern_store(short, str(tmp_path), {}, index)
    assert not shellgate.may_concern_store(command, str(tmp_path), {}, None)
    assert shellgate.may_concern_store(command, str(tmp_path), {}, index)


def test_cline_commands_escaped_twice_still_show_their_writers() -> None:
    """Cline's ``commands`` is a JSON list inside a JSON string: a line break is ``\\\\n``."""
    from engramory.dialects import cline

    def payload(commands: list[str]) -> bytes:
        call = {"toolName": "run_commands", "parameters": {"commands": json.dumps(commands)}}
        return json.dumps({"hookName": "PreToolUse", "preToolUse": call}).encode()

    assert cline.may_concern_index(payload(["echo x\nrm -rf store"]), {}, None)
    assert not cline.may_concern_index(payload(["echo x\nls"]), {}, None)


@pytest.mark.parametrize("host", ["claude", "codex"])
def test_the_dialects_apply_the_gate_on_the_raw_payload(host: str, tmp_path: Path) -> None:
    """Claude Code's and Codex's shell calls are gated before the payload is parsed."""
    from engramory import dialects as entry

    work = scratch_with_aliases(tmp_path)
    index = str(work / "MEMORY.md")

    def concerns(command: str, cwd: Path = work) -> bool:
        payload = {"tool_name": "Bash", "cwd": str(cwd), "tool_input": {"command": command}}
        raw = json.dumps(payload).encode()
        return entry.dialect(host).may_concern_index(raw, {}, index)

    assert not concerns("python3 -m pytest")
    assert not concerns("git commit -m 'say \"hi\"'")  # escaped quotes, still read
    assert concerns("rm -rf store")
    assert concerns("echo x >> shortcut")  # an alias: looked up from the payload's cwd
    assert not concerns("echo x >> shortcut", cwd=tmp_path)  # no such file there
    assert concerns("git commit -m caf\u00e9")  # json.dumps writes a \\u escape: parsed
