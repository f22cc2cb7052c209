"""Issue 24: Claude Code's own auto-memory folder as the store (`init claude --native`), and
the index guard alone in the user's Claude Code settings (`init claude --global --guard-only`),
run as Claude Code runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from installkit import SCHEMAS, digest, refused

from conftest import REPO

TEMPLATE = (REPO / "templates" / "MEMORY.md").read_bytes()
SETTINGS_SCHEMA = json.loads((SCHEMAS / "claude-code-settings.schema.json").read_text())
OUTPUT_SCHEMA = json.loads((SCHEMAS / "claude-code-hook-output.schema.json").read_text())


def key(project: Path) -> str:
    """The folder name Claude Code gives a project (ASCII paths: every other character -> -)."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(project.resolve()))


def native_folder(home: Path, project: Path) -> Path:
    return home / ".claude" / "projects" / key(project) / "memory"


def index_lines(n: int) -> str:
    return "".join(f"- [Note {i}](note-{i}.md) - hook\n" for i in range(n))


# --- init claude --native ---------------------------------------------------------------------


def test_native_store_is_the_auto_memory_folder(cli, home: Path, project: Path) -> None:
    folder = native_folder(home, project)
    result = cli("init", "claude", "--native")
    assert result.code == 0, result
    assert (folder / "MEMORY.md").read_bytes() == TEMPLATE  # the folder was missing
    assert "rule: default" in result.out
    block = (project / "CLAUDE.md").read_text()
    tilde = f"~/.claude/projects/{key(project)}/memory"
    assert f"check {tilde}`" in block and f"`{tilde}/`" in block
    assert str(home) not in block  # named with ~, not the absolute home
    assert "Set up by `engramory init claude --native`" in block
    assert "own memory folder" in block
    assert not (project / ".gitignore").exists()  # no .gitignore edit
    assert re.search(r"skipped\s+\.gitignore \(no entry for the store", result.out)
    assert not (project / ".engramory-memory").exists()
    again = digest(project.parent)
    assert cli("init", "claude", "--native").code == 0
    assert digest(project.parent) == again  # re-running is byte-identical


def test_native_uninstall_leaves_the_folder(cli, home: Path, project: Path) -> None:
    folder = native_folder(home, project)
    assert cli("init", "claude", "--native", "--install-hooks").code == 0
    handler = json.loads((project / ".claude" / "settings.local.json").read_text())
    args = handler["hooks"]["PreToolUse"][0]["hooks"][0]["args"]
    assert args[-2:] == ["--index", str(folder / "MEMORY.md")]
    (folder / "note.md").write_text("---\nname: n\n---\nbody\n")
    before = digest(folder)
    result = cli("uninstall", "claude", "--native")
    assert result.code == 0, result
    assert f"NOT touched - Claude Code's own memory folder {folder}" in result.out
    assert digest(folder) == before
    assert not (project / "CLAUDE.md").exists()
    assert not (project / ".claude").exists()


def test_native_existing_index_is_never_modified(cli, home: Path, project: Path) -> None:
    folder = native_folder(home, project)
    folder.mkdir(parents=True)
    index = folder / "MEMORY.md"
    index.write_bytes(b"- [Testing](feedback_testing.md) \xe2\x80\x94 run the suite\r\n")
    (folder / "feedback_testing.md").write_text("---\nname: Testing\ntype: feedback\n---\nx\n")
    before = digest(folder)
    result = cli("init", "claude", "--native")
    assert result.code == 0, result
    assert re.search(r"kept\s+\S+/memory/MEMORY\.md \(existing index", result.out)
    assert digest(folder) == before


def test_native_empty_folder_gets_the_template(cli, home: Path, project: Path) -> None:
    folder = native_folder(home, project)
    folder.mkdir(parents=True)
    result = cli("init", "claude", "--native")
    assert result.code == 0, result
    assert "the folder is empty" in result.out
    assert (folder / "MEMORY.md").read_bytes() == TEMPLATE


def test_native_notes_without_an_index_create_nothing(cli, home: Path, project: Path) -> None:
    folder = native_folder(home, project)
    folder.mkdir(parents=True)
    (folder / "user_role.md").write_text("---\nname: Role\ntype: user\n---\nx\n")
    before = digest(folder)
    result = cli("init", "claude", "--native")
    assert result.code == 0, result
    assert "NOT created: the folder holds files but no MEMORY.md" in result.out
    assert f"engramory doctor {folder}" in result.out
    assert digest(folder) == before
    assert (project / "CLAUDE.md").is_file()  # the rules are still written


def test_native_folder_from_the_local_settings(cli, home: Path, project: Path, tmp_path) -> None:
    chosen = tmp_path / "elsewhere" / "memory"
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"autoMemoryDirectory": str(chosen)}))
    shared = project / ".claude" / "settings.json"  # ignored by the host: a clone cannot redirect
    shared.write_text(json.dumps({"autoMemoryDirectory": str(tmp_path / "attacker")}))
    result = cli("init", "claude", "--native")
    assert result.code == 0, result
    assert f"rule: settings file - autoMemoryDirectory in {settings}" in result.out
    assert (chosen / "MEMORY.md").is_file()
    assert not (tmp_path / "attacker").exists()
    assert f"`{chosen.as_posix()}/`" in (project / "CLAUDE.md").read_text()  # outside home


def test_native_folder_from_the_override(
    cli, home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = home / "cowork" / "mem"
    monkeypatch.setenv("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", str(chosen))
    result = cli("init", "claude", "--native", "--dry-run")
    assert result.code == 0, result
    assert "rule: override - $CLAUDE_COWORK_MEMORY_PATH_OVERRIDE names it" in result.out
    assert not chosen.exists() and not (project / "CLAUDE.md").exists()


def test_native_long_key_with_several_candidates(
    cli, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / ("a" * 120) / ("b" * 120)
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    cut = key(project)[:200]
    assert len(key(project)) > 200
    projects = home / ".claude" / "projects"
    older, newer = projects / f"{cut}-111", projects / f"{cut}-222"
    for folder, mtime in ((older, 1_000_000), (newer, 2_000_000)):
        (folder / "memory").mkdir(parents=True)
        (folder / "memory" / "MEMORY.md").write_text("# index\n")
        os.utime(folder / "memory" / "MEMORY.md", (mtime, mtime))
    result = cli("init", "claude", "--native")
    assert result.code == 0, result
    assert "2 folders share the first 200 characters" in result.out
    assert f"using {newer}" in result.out
    assert f"~/.claude/projects/{newer.name}/memory" in (project / "CLAUDE.md").read_text()


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["init", "claude", "--native", "--memory-root", "m"], "--native and --memory-root"),
        (["init", "claude", "--native", "--global"], "drop --global"),
        (["init", "codex", "--native"], "codex does not: drop --native"),
        (["init", "claude-reader", "--native"], "claude-reader does not"),
        (["uninstall", "claude", "--native", "--memory-root", "m"], "--native and --memory-root"),
        (["uninstall", "claude", "--native", "--global"], "drop --global"),
    ],
)
def test_native_refusals(cli, home: Path, project: Path, args: list[str], match: str) -> None:
    refused(cli, project, *args, match=match, code=64)


# --- init claude --global --guard-only ----------------------------------------------------------


@pytest.fixture
def config(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude Code configuration folder outside the home, named by $CLAUDE_CONFIG_DIR."""
    path = tmp_path / "claude-config"
    path.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(path))
    return path


def test_guard_only_registers_the_guard_and_nothing_else(
    cli, home: Path, project: Path, config: Path
) -> None:
    result = cli("init", "claude", "--global", "--guard-only")
    assert result.code == 0, result
    settings = config / "settings.json"
    data = json.loads(settings.read_text())
    jsonschema.validate(data, SETTINGS_SCHEMA)
    assert set(data["hooks"]) == {"PreToolUse", "PostToolUse"}
    for event in data["hooks"].values():
        [group] = event
        [handler] = group["hooks"]
        assert "--index" not in handler["args"]
    assert data["hooks"]["PostToolUse"][0]["hooks"][0]["args"][-2:] == ["--event", "post"]
    assert digest(home) == {}  # no rules block, no store, no skill, not even ~/.claude
    assert digest(project) == {}
    first = settings.read_bytes()
    assert cli("init", "claude", "--global", "--guard-only", "--install-hooks").code == 0
    assert settings.read_bytes() == first  # twice = byte-identical (--install-hooks is implied)
    assert cli("uninstall", "claude", "--global").code == 0
    assert not settings.exists()  # init created it and nothing else is in it


def test_guard_only_uninstall_gives_back_the_users_bytes(
    cli, home: Path, project: Path, config: Path
) -> None:
    settings = config / "settings.json"
    original = (
        b'{\r\n\t"model": "opus",\r\n\t"permissions": {"allow": ["Bash(ls:*)"]},\r\n'
        b'\t"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}\r\n}\r\n'
    )
    settings.write_bytes(original)
    rules = config / "CLAUDE.md"
    rules.write_text("Answer in English.\n")  # no Engramory block in it
    home_rules = home / ".claude" / "CLAUDE.md"
    home_rules.parent.mkdir()
    home_rules.write_text("Be brief.\n")
    assert cli("init", "claude", "--global", "--guard-only").code == 0
    data = json.loads(settings.read_text())
    jsonschema.validate(data, SETTINGS_SCHEMA)
    assert data["model"] == "opus" and "Stop" in data["hooks"]
    result = cli("uninstall", "claude", "--global")
    assert result.code == 0, result
    assert settings.read_bytes() == original
    assert home_rules.read_text() == "Be brief.\n"
    assert rules.read_text() == "Answer in English.\n"


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ([], "add --global"),
        (["--global", "--install-skill"], "drop --install-skill"),
        (["--global", "--native"], "drop --native"),
        (["--global", "--memory-root", "m"], "drop --memory-root"),
        (["--global", "--install-hooks", "--mode", "assisted"], "drop --mode"),
    ],
)
def test_guard_only_refusals(cli, home: Path, project: Path, extra: list[str], match: str) -> None:
    refused(cli, project, "init", "claude", "--guard-only", *extra, match=match, code=64)


@pytest.mark.parametrize("host", ["codex", "gemini", "claude-reader"])
def test_guard_only_other_hosts_refused(cli, home: Path, project: Path, host: str) -> None:
    refused(cli, project, "init", host, "--global", "--guard-only", match="not for", code=64)


# --- the registered hook, run as Claude Code runs it ----------------------------------------------


@pytest.fixture
def guard(cli, home: Path, project: Path, config: Path):
    """The guard-only handlers' argv (PreToolUse, PostToolUse), read from the written settings,
    and the native folder of ``project`` (empty)."""
    assert cli("init", "claude", "--global", "--guard-only").code == 0
    data = json.loads((config / "settings.json").read_text())
    pre, post = (data["hooks"][event][0]["hooks"][0] for event in ("PreToolUse", "PostToolUse"))
    folder = config / "projects" / key(project) / "memory"
    folder.mkdir(parents=True)
    return [pre["command"], *pre["args"]], [post["command"], *post["args"]], folder


def run(argv: list[str], payload: object = None, raw: bytes | None = None) -> dict | None:
    """Run one hook as Claude Code does (exec form, JSON on stdin); its JSON answer or None."""
    data = raw if raw is not None else json.dumps(payload).encode()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAMORY_")}
    proc = subprocess.run(argv, input=data, capture_output=True, env=env, timeout=30, check=False)
    assert proc.returncode == 0 and proc.stderr == b"", proc
    if not proc.stdout.strip():
        return None
    answer = json.loads(proc.stdout)
    jsonschema.validate(answer, OUTPUT_SCHEMA)
    return answer


def decision(answer: dict | None) -> str | None:
    return None if answer is None else answer["hookSpecificOutput"].get("permissionDecision")


def grow_by_two(index: Path, project: Path) -> list[dict]:
    """A Write and an Edit that each add two lines to ``index``."""
    text = index.read_text()
    last = text.splitlines(keepends=True)[-1]
    write = {"file_path": str(index), "content": text + "- a\n- b\n"}
    edit = {"file_path": str(index), "old_string": last, "new_string": last + "- a\n- b\n"}
    return [
        {"tool_name": "Write", "tool_input": write, "cwd": str(project)},
        {"tool_name": "Edit", "tool_input": edit, "cwd": str(project)},
    ]


def test_registered_guard_denies_growth_past_the_cap(guard, project: Path) -> None:
    pre, _post, folder = guard
    index = folder / "MEMORY.md"
    index.write_text(index_lines(199))
    for payload in grow_by_two(index, project):
        answer = run(pre, payload)
        assert decision(answer) == "deny", payload["tool_name"]
        assert "201 lines" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    index.write_text(index_lines(150))
    for payload in grow_by_two(index, project):
        assert decision(run(pre, payload)) is None, payload["tool_name"]


def test_registered_guard_lets_a_shrinking_edit_through(guard, project: Path) -> None:
    pre, _post, folder = guard
    index = folder / "MEMORY.md"
    index.write_text(index_lines(230))
    first = index_lines(230).splitlines(keepends=True)[0]
    payload = {
        "tool_name": "Edit",
        "tool_input": {"file_path": str(index), "old_string": first, "new_string": ""},
        "cwd": str(project),
    }
    assert decision(run(pre, payload)) is None


def test_registered_guard_never_reads_an_unrelated_file(guard, project: Path) -> None:
    pre, _post, folder = guard
    (folder / "MEMORY.md").write_text(index_lines(199))
    fifo = project / "notes.md"
    os.mkfifo(fifo)  # opening it to read would block until the timeout
    payload = {
        "tool_name": "Edit",
        "tool_input": {"file_path": str(fifo), "old_string": "a", "new_string": "b" * 99999},
        "cwd": str(project),
    }
    assert run(pre, payload) is None
    write = {"tool_name": "Write", "tool_input": {"file_path": str(fifo), "content": "x\n" * 500}}
    assert run(pre, {**write, "cwd": str(project)}) is None


def bash_done(cwd: Path | str) -> dict[str, object]:
    return {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "make notes"},
        "tool_response": {"stdout": "done", "stderr": "", "interrupted": False},
        "cwd": str(cwd),
    }


def test_post_check_measures_the_native_index(guard, project: Path) -> None:
    _pre, post, folder = guard
    index = folder / "MEMORY.md"
    index.write_text(index_lines(230))
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    for cwd in (project, sub):
        answer = run(post, bash_done(cwd))
        assert answer is not None and answer["decision"] == "block"
        assert "230 lines" in answer["reason"]
        assert f"Index measured: {index}" in answer["reason"]
        assert "Claude Code's auto-memory folder" in answer["reason"]
    index.write_text(index_lines(150))
    assert run(post, bash_done(project)) is None


def test_post_check_prefers_the_projects_own_store(guard, project: Path) -> None:
    _pre, post, folder = guard
    (folder / "MEMORY.md").write_text(index_lines(10))
    own = project / ".engramory-memory" / "MEMORY.md"
    own.parent.mkdir()
    own.write_text(index_lines(240))
    answer = run(post, bash_done(project))
    assert answer is not None and f"Index measured: {own}" in answer["reason"]


def test_post_check_is_silent_on_bad_input(guard, project: Path, tmp_path: Path) -> None:
    _pre, post, folder = guard
    (folder / "MEMORY.md").write_text(index_lines(230))
    assert run(post, raw=b"\xff\xfe not json {") is None
    assert run(post, raw=b"[1, 2]") is None
    assert run(post, raw=b"") is None
    assert run(post, bash_done(tmp_path / "gone")) is None
    assert run(post, bash_done("relative/dir")) is None
    huge = json.dumps(bash_done(project)).encode()[:-1] + b', "pad": "'
    huge += b"x" * (70 * 1024 * 1024) + b'"}'
    assert run(post, raw=huge) is None
    assert run(post, bash_done(project)) is not None  # the same index, a normal payload: reported


def test_post_check_never_blocks_on_a_fifo_index(guard, project: Path) -> None:
    _pre, post, folder = guard
    (folder / "MEMORY.md").write_text(index_lines(230))
    own = project / ".engramory-memory"
    own.mkdir()
    os.mkfifo(own / "MEMORY.md")  # the store found first; reading it would block
    assert run(post, bash_done(project)) is None


def test_native_long_key_without_a_folder_is_refused(
    cli, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / ("a" * 120) / ("b" * 120)
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    before = digest(tmp_path)
    result = cli("init", "claude", "--native")
    assert result.code == 1, result
    assert "a hash that differs between its builds" in result.err
    assert digest(tmp_path) == before  # no folder the host would never read
