"""Each host's own memory found as the host finds it (issue 38 item 2): Qwen Code, Gemini
CLI, Codex and Hermes, each rule of each host; ``where HOST`` and ``where --all``; discovery's
fallback to Qwen's and Gemini's folders. Fixtures follow each host's documented layout."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from engramory.store import discovery
from engramory.store.hostmemory import codex, gemini, hermes, qwen, registry

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


def key_of(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path.resolve()))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for variable in HOST_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "work" / "My App"
    (folder / ".git").mkdir(parents=True)
    (folder / "src").mkdir()
    return folder


# --- Qwen Code ------------------------------------------------------------------------------


def test_qwen_default_is_under_dot_qwen_keyed_by_the_git_root(home: Path, project: Path) -> None:
    found = qwen.find(project / "src", os.environ)
    assert found.path == home / ".qwen" / "projects" / key_of(project) / "memory"
    assert (found.rule, found.notes_store, found.read_only) == ("default", True, False)
    assert dict(found.layers) == {
        "user layer": home / ".qwen" / "memories",
        "team layer": project.resolve() / ".qwen" / "team-memory",
    }


def test_qwen_base_dir_wins_over_the_runtime_dir(
    home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(tmp_path / "runtime"))
    found = qwen.find(project, os.environ)
    assert found.path == tmp_path / "runtime" / "projects" / key_of(project) / "memory"
    assert (found.rule, found.rule_text) == ("runtime-env", "$QWEN_RUNTIME_DIR")
    monkeypatch.setenv("QWEN_CODE_MEMORY_BASE_DIR", "~/qbase")
    found = qwen.find(project, os.environ)
    assert found.path == home / "qbase" / "projects" / key_of(project) / "memory"
    assert (found.rule, found.rule_text) == ("env", "$QWEN_CODE_MEMORY_BASE_DIR")


def test_qwen_local_memory_lives_in_the_project(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QWEN_CODE_MEMORY_LOCAL", "1")
    found = qwen.find(project / "src", os.environ)
    assert (found.path, found.rule) == (project.resolve() / ".qwen" / "memory", "local")


def test_qwen_keys_a_linked_worktree_by_its_own_root(home: Path, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/wt\n")
    found = qwen.find(worktree, os.environ)
    assert found.path.parent.name == key_of(worktree)


# --- Gemini CLI -----------------------------------------------------------------------------


def write_registry(home: Path, projects: object) -> None:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "projects.json").write_text(json.dumps(projects), encoding="utf-8")


def test_gemini_takes_the_registered_slug(home: Path, project: Path) -> None:
    write_registry(home, {"projects": {str(project): "my-app-2"}})
    found = gemini.find(project, os.environ)
    assert found.path == home / ".gemini" / "tmp" / "my-app-2" / "memory"
    assert found.rule == "registry" and "projects.json" in found.rule_text


def test_gemini_unregistered_gets_the_slug_the_host_would_give(home: Path, project: Path) -> None:
    found = gemini.find(project, os.environ)
    assert (found.path.parent.name, found.rule) == ("my-app", "computed")
    write_registry(home, {"projects": {"/other/my-app": "my-app", "/x/my-app": "my-app-1"}})
    assert gemini.find(project, os.environ).path.parent.name == "my-app-2"


@pytest.mark.parametrize(
    "registry_text", ["not json", "[1, 2]", '{"projects": ["a"]}', '{"projects": {"P": "../x"}}']
)
def test_gemini_ignores_a_registry_it_cannot_use(
    home: Path, project: Path, registry_text: str
) -> None:
    (home / ".gemini").mkdir()
    text = registry_text.replace('"P"', json.dumps(str(project)))
    (home / ".gemini" / "projects.json").write_text(text, encoding="utf-8")
    found = gemini.find(project, os.environ)
    assert (found.path.parent.name, found.rule) == ("my-app", "computed")


def test_gemini_slugify() -> None:
    assert gemini.slugify("My App") == "my-app"
    assert gemini.slugify("__") == "project"
    assert gemini.slugify("Ünï--code") == "n-code"


# --- Codex and Hermes -----------------------------------------------------------------------


def test_codex_home_moves_the_memories_folder(
    home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = codex.find(project, os.environ)
    assert (found.path, found.rule, found.read_only) == (
        home / ".codex" / "memories",
        "default",
        True,
    )
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    found = codex.find(project, os.environ)
    assert (found.path, found.rule, found.notes_store) == (
        tmp_path / "cx" / "memories",
        "env",
        False,
    )


def test_hermes_home_moves_the_memories_folder(
    home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert hermes.find(project, os.environ).path == home / ".hermes" / "memories"
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "hh"))
    found = hermes.find(project, os.environ)
    assert (found.path, found.rule, found.loaded) == (
        tmp_path / "hh" / "memories",
        "env",
        ("MEMORY.md", "USER.md"),
    )


# --- where ----------------------------------------------------------------------------------


def test_where_qwen_json_shape(cli, home: Path, project: Path) -> None:
    folder = home / ".qwen" / "projects" / key_of(project) / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- [Tabs](feedback.md) — indent with tabs\n")
    (folder / "feedback.md").write_text("---\nname: feedback\n---\n日本\n", encoding="utf-8")
    result = cli("where", "qwen", "--project-root", str(project), "--format", "json")
    assert result.code == 0, result
    data = json.loads(result.out)
    assert set(data) == {
        "host", "label", "project", "path", "rule", "rule_text", "exists", "notes_store",
        "read_only", "loaded", "layers", "files",
    }  # fmt: skip
    assert (data["host"], data["path"], data["exists"]) == ("qwen", str(folder), True)
    files = {f["name"]: f for f in data["files"]}
    index = files["MEMORY.md"]
    assert index["cut"]["measure"] == "utf16-units" and index["cut"]["loads_all"] is True
    topic = files["feedback.md"]
    assert (topic["lines"], topic["bytes"], topic["chars"], topic["cut"]) == (4, 30, 26, None)


def test_where_missing_folder_says_so(cli, home: Path, project: Path) -> None:
    result = cli("where", "hermes", "--project-root", str(project))
    assert result.code == 0
    assert f"{home / '.hermes' / 'memories'} (does not exist)" in result.out
    assert "chosen by: the host's default: ~/.hermes" in result.out


def test_where_codex_says_it_is_read_only_and_measures_the_summary(
    cli, home: Path, project: Path
) -> None:
    folder = home / ".codex" / "memories"
    folder.mkdir(parents=True)
    (folder / "memory_summary.md").write_text("v1\n" + "x" * 12_000 + "\n")
    (folder / "MEMORY.md").write_text("# Task Group: a\n")
    out = cli("where", "codex", "--project-root", str(project)).out
    assert "managed by the host: Engramory reads it and never writes it" in out
    assert "memory_summary.md: 2 lines, 12,004 bytes" in out
    assert "3,001 of 2,500 tokens: 1 line not loaded" in out
    assert "MEMORY.md: 1 line, 16 bytes, 16 characters\n" in out


def test_where_does_not_follow_a_symlinked_memory_file(
    cli, home: Path, project: Path, tmp_path: Path
) -> None:
    folder = home / ".hermes" / "memories"
    folder.mkdir(parents=True)
    secret = tmp_path / "secret.md"
    secret.write_text("not a memory\n")
    (folder / "MEMORY.md").symlink_to(secret)
    data = json.loads(cli("where", "hermes", "--format", "json").out)
    assert data["files"][0]["problem"] == "a symlink: not followed"
    assert data["files"][0]["lines"] is None


def test_where_all_lists_every_host_with_sizes_against_each_cut(
    cli, home: Path, project: Path
) -> None:
    (home / ".hermes" / "memories").mkdir(parents=True)
    (home / ".hermes" / "memories" / "USER.md").write_text("a" * 1_400 + "\n")
    claude = home / ".claude" / "projects" / key_of(project) / "memory"
    claude.mkdir(parents=True)
    (claude / "MEMORY.md").write_text("- [A](a.md) — a\n")
    result = cli("where", "--all", "--project-root", str(project), "--format", "json")
    assert result.code == 0, result
    data = json.loads(result.out)
    assert data["project"] == str(project)
    assert [h["host"] for h in data["hosts"]] == ["claude", "qwen", "gemini", "codex", "hermes"]
    by_host = {h["host"]: h for h in data["hosts"]}
    assert by_host["claude"]["exists"] and by_host["claude"]["files"][0]["cut"]["loads_all"]
    user = by_host["hermes"]["files"][0]
    assert (user["name"], user["cut"]["limit"], user["cut"]["over_by"]) == ("USER.md", 1_375, 25)
    text = cli("where", "--all", "--project-root", str(project)).out
    assert text.splitlines()[0] == f"every host's memory for {project}:"
    assert "1,400 of 1,375 characters: " in text
    for label in ("Claude Code:", "Qwen Code:", "Gemini CLI:", "Codex:", "Hermes:"):
        assert f"\n{label}\n" in text


def test_where_needs_a_host_or_all(cli, home: Path) -> None:
    result = cli("where")
    assert result.code == 64 and "or give --all" in result.err


def test_registry_order() -> None:
    assert registry.HOSTS == ("claude", "qwen", "gemini", "codex", "hermes")
    assert registry.NOTES_FALLBACK == ("qwen", "gemini")


# --- discovery ------------------------------------------------------------------------------


def test_discovery_falls_back_to_qwen_then_gemini(home: Path, project: Path) -> None:
    qwen_folder = home / ".qwen" / "projects" / key_of(project) / "memory"
    gemini_folder = home / ".gemini" / "tmp" / "my-app" / "memory"
    gemini_folder.mkdir(parents=True)
    (gemini_folder / "MEMORY.md").write_text("- [A](a.md) — a\n")
    found = discovery.locate(cwd=project)
    assert found.root == gemini_folder and "Gemini CLI's memory folder" in found.source
    qwen_folder.mkdir(parents=True)
    (qwen_folder / "MEMORY.md").write_text("- [A](a.md) — a\n")
    found = discovery.locate(cwd=project)
    assert found.root == qwen_folder and "Qwen Code's memory folder" in found.source


def test_discovery_never_takes_codex_or_hermes(home: Path, project: Path) -> None:
    for folder in (home / ".codex" / "memories", home / ".hermes" / "memories"):
        folder.mkdir(parents=True)
        (folder / "MEMORY.md").write_text("x\n")
    with pytest.raises(Exception) as raised:
        discovery.locate(cwd=project)
    message = str(raised.value)
    assert "no memory store found" in message
    assert "Qwen Code's memory folder" in message and "Gemini CLI's memory folder" in message


def test_every_host_whose_memory_is_found_says_where_it_keeps_it() -> None:
    """`engramory hosts` cannot say "no memory" of a host that `where` and `check --host` read."""
    from engramory.cuts import registry as cuts_registry
    from engramory.store.hostmemory import facts

    for host in (*registry.HOSTS, *cuts_registry.HOSTS):
        found = facts.facts_for(host)
        assert found.where is not None and found.cap != facts.NO_MEMORY, host
