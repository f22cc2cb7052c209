"""Rules text in the files the hosts load: marked blocks in shared files, dedicated files."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from installkit import (
    WRITE_HOSTS,
    digest,
    init,
    refused,
    rules_path,
    uninstall,
)

from engramory.hosts.base import BLOCK
from engramory.hosts.registry import HOSTS
from engramory.install import blocks


@pytest.mark.parametrize("host", [h for h in WRITE_HOSTS if HOSTS[h].rules_kind == BLOCK])
def test_existing_user_content_and_other_blocks_survive(cli, project: Path, host: str) -> None:
    target = rules_path(host, project)
    other = "<!-- BEGIN ENGRAMORY SOMEONE -->\nanother host's block\n<!-- END ENGRAMORY SOMEONE -->"
    original = (
        f"# Team rules\r\n\r\nUse tabs.\r\n\r\n{other.replace(chr(10), chr(13) + chr(10))}\r\n"
    )
    target.write_bytes(original.encode())
    target.chmod(0o640)
    assert init(cli, host, project).code == 0
    installed = target.read_bytes()
    assert installed.startswith(original.encode())
    assert b"\n" not in installed.replace(b"\r\n", b"")  # CRLF kept throughout
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert uninstall(cli, host, project).code == 0
    assert target.read_bytes() == original.encode()


BLOCK_HOSTS = [h for h in WRITE_HOSTS if HOSTS[h].rules_kind == BLOCK]


LINE_ENDING_FILES = {
    "lf": "# Team rules\n\nUse tabs.\n",
    "crlf": "# Team rules\r\n\r\nUse tabs.\r\n",
    "mixed": "# Team rules\r\n\nUse tabs.\r\nKeep it short.\n",
    "lone-cr": "# Team rules\r\rUse tabs.\r",
    "no-final-newline": "# Team rules\r\n\nUse tabs.",
}


@pytest.mark.parametrize("style", sorted(LINE_ENDING_FILES))
@pytest.mark.parametrize("host", BLOCK_HOSTS)
def test_rules_file_line_endings_survive_install_reinstall_uninstall(
    cli, project: Path, host: str, style: str
) -> None:
    target = rules_path(host, project)
    target.parent.mkdir(parents=True, exist_ok=True)
    original = LINE_ENDING_FILES[style].encode()
    target.write_bytes(original)
    assert init(cli, host, project).code == 0
    installed = target.read_bytes()
    assert installed.startswith(original.rstrip(b"\r\n"))
    again = init(cli, host, project)
    assert again.code == 0 and "kept" in again.out and "updated" not in again.out
    assert target.read_bytes() == installed
    assert uninstall(cli, host, project).code == 0
    assert target.read_bytes() == original


FENCED_RULES = (
    "# Rules\n\nOur install adds lines like these:\n\n```md\n"
    "<!-- BEGIN ENGRAMORY {0} -->\n(the rules)\n<!-- END ENGRAMORY {0} -->\n```\n"
)


@pytest.mark.parametrize("host", BLOCK_HOSTS)
def test_markers_quoted_in_a_code_fence_are_kept(cli, project: Path, host: str) -> None:
    target = rules_path(host, project)
    target.parent.mkdir(parents=True, exist_ok=True)
    original = FENCED_RULES.format(HOSTS[host].marker)
    target.write_text(original)
    assert init(cli, host, project).code == 0
    installed = target.read_text()
    assert installed.startswith(original) and "## Memory (Engramory)" in installed
    assert init(cli, host, project).code == 0 and target.read_text() == installed
    assert uninstall(cli, host, project).code == 0
    assert target.read_text() == original


def test_a_block_after_an_unclosed_fence_is_refused(cli, project: Path) -> None:
    (project / "CLAUDE.md").write_text("# Rules\n\n```\nnever closed\n")
    refused(cli, project, "init", "claude", match="never closed")


@pytest.mark.parametrize("host", [h for h in WRITE_HOSTS if HOSTS[h].rules_kind != BLOCK])
def test_dedicated_files_leave_neighbours_alone(cli, project: Path, host: str) -> None:
    target = rules_path(host, project)
    target.parent.mkdir(parents=True, exist_ok=True)
    neighbour = target.parent / "team.md"
    neighbour.write_text("team rule\n")
    assert init(cli, host, project).code == 0
    assert neighbour.read_text() == "team rule\n"
    assert uninstall(cli, host, project).code == 0
    assert not target.exists() and neighbour.read_text() == "team rule\n"


@pytest.mark.parametrize("host", [h for h in WRITE_HOSTS if HOSTS[h].rules_kind != BLOCK])
def test_a_dedicated_file_we_did_not_write_is_refused_then_replaced_with_force(
    cli, project: Path, host: str
) -> None:
    target = rules_path(host, project)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("the user's own rules\n")
    before = digest(project)
    refused = init(cli, host, project)
    assert refused.code == 1 and "not written by Engramory" in refused.err
    assert digest(project) == before
    assert uninstall(cli, host, project).code == 0
    assert target.read_text() == "the user's own rules\n"  # uninstall leaves it too
    assert init(cli, host, project, "--force").code == 0
    assert "<!-- Managed by Engramory:" in target.read_text()


def test_damaged_markers_refuse_init_and_survive_uninstall(cli, project: Path) -> None:
    damaged = "# Rules\n<!-- BEGIN ENGRAMORY CLAUDE -->\nhalf a block\n"
    (project / "CLAUDE.md").write_text(damaged)
    refused(cli, project, "init", "claude", match="damaged Engramory markers")
    result = cli("uninstall", "claude")
    assert result.code == 1 and "LEFT UNTOUCHED" in result.out and "by hand" in result.out
    assert (project / "CLAUDE.md").read_text() == damaged
    dry = cli("uninstall", "claude", "--dry-run")
    assert dry.code == 1 and "would leave 1 file(s) to fix by hand" in dry.out


# The edit tools each guarded host's agent is sent to when the guard turns a shell write away.
OWN_EDIT_TOOLS = {
    "claude": "Edit/Write",
    "codex": "apply_patch",
    "gemini": "write_file/replace",
    "qwen": "write_file/edit",
    "copilot": "create/edit",
    "cursor": "Write/StrReplace",
    "cline": "editor/apply_patch",
    "hermes": "write_file/patch",
    "kiro": "fs_write",
    "opencode": "edit/write",
    "openclaw": "edit/write",
}


def test_every_guarded_host_has_its_edit_tools_listed_here() -> None:
    assert set(OWN_EDIT_TOOLS) == {name for name, spec in HOSTS.items() if spec.pre_write_hook}


@pytest.mark.parametrize("host", sorted(OWN_EDIT_TOOLS))
def test_the_host_note_names_the_hosts_own_edit_tools(host: str) -> None:
    note = blocks.host_note(HOSTS[host], False, ".engramory-memory", hooks=True)
    assert f"(use {OWN_EDIT_TOOLS[host]})" in note
    others = {tools for name, tools in OWN_EDIT_TOOLS.items() if tools != OWN_EDIT_TOOLS[host]}
    assert not any(f"(use {tools})" in note for tools in others)
