"""The pre-commit hooks and the GitHub Action (issue 19), run for real.

* ``.pre-commit-hooks.yaml``: each hook's entry runs the way pre-commit runs
  it (the files its ``files`` pattern selects, appended after the entry) on a
  temporary git repository holding a good and a broken store; then the real
  ``pre-commit`` runs ``try-repo`` on this checkout and docs/ci.md's
  ``.pre-commit-config.yaml`` snippet (pointed at a clone of this checkout).
* ``action.yml``: its shell steps run as written, with the inputs and the
  ``${{ }}`` expressions the runner would give them.
* ``docs/snippets/``: the sections of docs/ci.md, which these tests read verbatim.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from doctorkit import make_store, note
from engramory.commands.precommit import store_of, stores_of

HOOKS_FILE = REPO / ".pre-commit-hooks.yaml"
ACTION_FILE = REPO / "action.yml"
SNIPPETS = REPO / "docs" / "snippets"
PRE_COMMIT_SNIPPET = SNIPPETS / "readme-pre-commit.md"
CI_SNIPPET = SNIPPETS / "readme-ci.md"
ALLOW_COMMITTED = "<!-- engramory: allow not-gitignored -->\n"
# What pip says when it cannot reach a package index to build the hook's environment.
OFFLINE_SIGNS = (
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "No matching distribution found",
    "Could not find a version that satisfies",
)


# --- small readers for our own YAML files (flat, known shapes; no YAML library needed) ------


def hook_definitions(text: str) -> list[dict[str, str]]:
    """``.pre-commit-hooks.yaml``: a list of flat mappings of scalars."""
    hooks: list[dict[str, str]] = []
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if raw.startswith("- "):
            hooks.append({})
        key, _, value = raw.lstrip("- ").partition(":")
        hooks[-1][key] = value.strip()
    return hooks


def yaml_blocks(lines: list[str], key: str) -> list[tuple[int, list[str]]]:
    """Each ``key: |`` block scalar: (its key's indentation, its lines dedented)."""
    blocks = []
    for n, line in enumerate(lines):
        if line.strip() != f"{key}: |":
            continue
        indent = len(line) - len(line.lstrip())
        body = []
        for inner in lines[n + 1 :]:
            if inner.strip() and len(inner) - len(inner.lstrip()) <= indent:
                break
            body.append(inner)
        width = min(len(b) - len(b.lstrip()) for b in body if b.strip())
        blocks.append((n, [b[width:] for b in body]))
    return blocks


def action_steps(text: str) -> list[tuple[dict[str, str], str]]:
    """``action.yml``'s steps: (their ``env:`` mapping, their ``run:`` script)."""
    lines = text.splitlines()
    steps = []
    for start, script in yaml_blocks(lines, "run"):
        env: dict[str, str] = {}
        n = start - 1
        while not lines[n].strip().startswith("env:"):
            key, _, value = lines[n].strip().partition(": ")
            env[key] = value
            n -= 1
        steps.append((env, "\n".join(script) + "\n"))
    return steps


def action_inputs(text: str) -> dict[str, str]:
    """``action.yml``'s inputs and their defaults."""
    lines = text.splitlines()
    start = lines.index("inputs:")
    inputs: dict[str, str] = {}
    name = ""
    for line in lines[start + 1 :]:
        if line and not line.startswith(" "):
            break
        if line.startswith("  ") and not line.startswith("   ") and line.endswith(":"):
            name = line.strip()[:-1]
        elif line.strip().startswith("default:"):
            inputs[name] = json.loads(line.split(":", 1)[1].strip())
    return inputs


def fenced_yaml(markdown: str) -> list[str]:
    """The ```yaml blocks of a markdown text."""
    return re.findall(r"```yaml\n(.*?)```", markdown, re.S)


# --- the temporary repository --------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def memory_repo(root: Path) -> Path:
    """A git repository with a good store (``good/``), a broken one (``team/.engramory-memory/``,
    index over its hard cap) and a markdown file in no store."""
    notes = {"user-role.md": note("user-role"), "ref-x.md": note("ref-x", "reference")}
    good = make_store(root / "good", notes)
    (good / "MEMORY.md").write_text(
        ALLOW_COMMITTED + (good / "MEMORY.md").read_text("utf-8"), "utf-8"
    )
    bad = make_store(
        root / "team" / ".engramory-memory",
        {"x.md": "no frontmatter here\n"},
        index=ALLOW_COMMITTED + "# Index\n- [x](x.md)\n" + "\n" * 201,
    )
    (bad / "archive").mkdir()
    (bad / "archive" / "old.md").write_text(note("old"), "utf-8")
    (root / "README.md").write_text("# a project\n", "utf-8")
    (root / "notes.txt").write_text("not markdown\n", "utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "stores")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return memory_repo(tmp_path / "repo")


def test_store_of_finds_the_nearest_store_and_skips_files_in_none(tmp_path: Path) -> None:
    top = memory_repo(tmp_path / "repo")
    bad = top / "team" / ".engramory-memory"
    assert store_of(str(top / "good" / "user-role.md"), top) == top / "good"
    assert store_of(str(bad / "archive" / "old.md"), top) == bad
    assert store_of(str(bad / "MEMORY.md"), top) == bad
    assert store_of(str(top / "README.md"), top) is None
    assert store_of(str(top / "team" / "gone.md"), top) is None  # a deleted file: its folder
    files = [str(top / p) for p in ("good/user-role.md", "README.md", "good/ref-x.md")]
    stores, orphans = stores_of(files, top)
    assert list(stores) == [top / "good"]
    assert len(stores[top / "good"]) == 2
    assert len(orphans) == 1


def test_hook_definitions() -> None:
    hooks = {h["id"]: h for h in hook_definitions(HOOKS_FILE.read_text("utf-8"))}
    assert set(hooks) == {"engramory-doctor", "engramory-check"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["pass_filenames"] == "true"
        assert hook["files"] == r"\.md$"
    assert hooks["engramory-doctor"]["entry"] == "engramory precommit doctor"
    assert hooks["engramory-check"]["entry"] == "engramory precommit check"


def run_hook_entry(hook_id: str, repo: Path, files: list[str] | None = None, args=()) -> tuple:
    """Run a hook as pre-commit does: entry, args, then the files its pattern selects."""
    hook = {h["id"]: h for h in hook_definitions(HOOKS_FILE.read_text("utf-8"))}[hook_id]
    if files is None:
        files = git(repo, "ls-files").splitlines()
    chosen = [f for f in files if re.search(hook["files"], f)]
    words = shlex.split(hook["entry"])
    assert words[0] == "engramory"
    command = [sys.executable, "-m", "engramory", *words[1:], *args, *chosen]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(command, cwd=repo, capture_output=True, text=True, env=env, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def test_doctor_hook_runs_once_per_store_and_skips_files_in_none(repo: Path) -> None:
    code, out = run_hook_entry("engramory-doctor", repo)
    assert code == 1
    assert out.count("engramory precommit: doctor on the store ") == 2
    assert "engramory precommit: doctor on the store good (3 changed files)" in out
    assert "doctor on the store team/.engramory-memory (3 changed files)" in out
    assert "x.md:1: error: no frontmatter" in out
    assert "1 file in no store skipped (no MEMORY.md above it): README.md" in out
    assert "notes.txt" not in out
    code, out = run_hook_entry("engramory-doctor", repo, ["good/user-role.md", "README.md"])
    assert code == 0, out
    assert "team" not in out
    assert run_hook_entry("engramory-doctor", repo, ["README.md"])[0] == 0
    assert run_hook_entry("engramory-doctor", repo, [])[0] == 0


def test_doctor_hook_passes_args_before_the_files(repo: Path) -> None:
    (repo / "good" / "user-role.md").write_text(
        note("user-role", updated="2026-01-01", created="2026-01-05"), "utf-8"
    )  # date-order: a warning
    assert run_hook_entry("engramory-doctor", repo, ["good/user-role.md"])[0] == 0
    code, out = run_hook_entry("engramory-doctor", repo, ["good/user-role.md"], ["--strict"])
    assert code == 1
    assert "[date-order]" in out


def test_check_hook_exit_is_the_worst_store(repo: Path) -> None:
    code, out = run_hook_entry("engramory-check", repo)
    assert code == 2
    assert "OK: good/MEMORY.md" in out
    assert "OVER: team/.engramory-memory/MEMORY.md" in out
    assert run_hook_entry("engramory-check", repo, ["good/ref-x.md"])[0] == 0


def test_precommit_usage_errors(repo: Path) -> None:
    code, _ = run_hook_entry("engramory-doctor", repo, [], ["--select", "no-such-rule"])
    assert code == 0  # no file: nothing runs, so nothing to reject
    code, _ = run_hook_entry("engramory-doctor", repo, ["good/a.md"], ["--no-such-flag"])
    assert code == 64


# --- the real pre-commit ---------------------------------------------------------------------


def pre_commit(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", GIT_CONFIG_NOSYSTEM="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    log = home / "pre-commit.log"
    text = proc.stdout + proc.stderr + (log.read_text("utf-8") if log.is_file() else "")
    if "An unexpected error has occurred" in text:
        sign = next((s for s in OFFLINE_SIGNS if s in text), None)
        if sign is not None:
            pytest.skip(
                f"pre-commit cannot build the hook's environment offline: pip said {sign!r}"
            )
    return proc


needs_pre_commit = pytest.mark.skipif(
    importlib.util.find_spec("pre_commit") is None or not (REPO / ".git").exists(),
    reason="needs pre-commit (pip install -e '.[test]' installs it) and a git checkout",
)


@needs_pre_commit
def test_real_pre_commit_try_repo(repo: Path, tmp_path: Path) -> None:
    """``pre-commit try-repo <checkout> engramory-doctor --files ...``: pre-commit builds the
    hook's environment from this checkout (uncommitted changes included) and runs it."""
    home = tmp_path / "pre-commit-home"
    files = ["good/user-role.md", "team/.engramory-memory/x.md", "README.md"]
    proc = pre_commit(["try-repo", str(REPO), "engramory-doctor", "--files", *files], repo, home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "engramory doctor" in out and "Failed" in out
    assert "x.md:1: error: no frontmatter" in out
    assert "1 file in no store skipped" in out
    proc = pre_commit(["try-repo", str(REPO), "engramory-doctor", "--files", files[0]], repo, home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


@needs_pre_commit
def test_readme_pre_commit_snippet_with_the_real_pre_commit(repo: Path, tmp_path: Path) -> None:
    """docs/ci.md's ``.pre-commit-config.yaml``, verbatim but for ``repo:`` and ``rev:``,
    which point at a clone of this checkout's last commit."""
    clone = tmp_path / "engramory-clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    head = git(clone, "rev-parse", "HEAD").strip()
    (config,) = fenced_yaml(PRE_COMMIT_SNIPPET.read_text("utf-8"))
    config = re.sub(r"(?m)^(\s*- repo: )\S+$", lambda m: m.group(1) + str(clone), config)
    assert re.search(r"(?m)^\s*rev: <tag or commit>$", config)  # a placeholder, not a tag
    config = re.sub(r"(?m)^(\s*rev: ).+$", lambda m: m.group(1) + head, config)
    (repo / ".pre-commit-config.yaml").write_text(config, "utf-8")
    home = tmp_path / "pre-commit-home"
    everything = ["run", "--files", *git(repo, "ls-files").splitlines()]
    proc = pre_commit(everything, repo, home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert re.search(r"engramory doctor\.+Failed", out), out
    assert re.search(r"engramory check\.+Failed", out), out
    assert "OVER: team/.engramory-memory/MEMORY.md" in out
    proc = pre_commit(["run", "--files", "good/user-role.md", "README.md"], repo, home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"engramory check\.+Passed", proc.stdout)


# --- the GitHub Action -----------------------------------------------------------------------


def run_action(
    store: str, strict: str, workspace: Path, runner_temp: Path, steps: slice = slice(None)
) -> tuple[int, str]:
    """Run ``action.yml``'s ``steps`` as the runner would (inputs through ``${{ }}``), with
    ``python3`` this interpreter; the last step's exit code and output."""
    text = ACTION_FILE.read_text("utf-8")
    inputs = {**action_inputs(text), "store": store, "strict": strict}
    context = {"github.action_path": str(REPO), **{f"inputs.{k}": v for k, v in inputs.items()}}
    bindir = runner_temp / "bin"
    bindir.mkdir(exist_ok=True)
    if not (bindir / "python3").exists():
        (bindir / "python3").symlink_to(sys.executable)
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    base.update(PATH=f"{bindir}{os.pathsep}{base.get('PATH', '')}", RUNNER_TEMP=str(runner_temp))
    code, out = 0, ""
    for env, script in action_steps(text)[steps]:
        values = {
            key: re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: context[m.group(1)], value)
            for key, value in env.items()
        }
        proc = subprocess.run(
            ["bash", "-c", script],
            cwd=workspace,
            env={**base, **values},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        code, out = proc.returncode, proc.stdout + proc.stderr
        if code and any(sign in out for sign in OFFLINE_SIGNS):
            pytest.skip(f"the action's install step needs a package index: {out[-300:]}")
        if code:
            break
    return code, out


def test_action_inputs_match_the_readme_snippet() -> None:
    inputs = action_inputs(ACTION_FILE.read_text("utf-8"))
    assert inputs == {"store": "", "strict": "false", "version": ""}
    uses = fenced_yaml(CI_SNIPPET.read_text("utf-8"))[0]
    used = re.findall(r"(?m)^\s{10}(\w+):", uses.split("with:", 1)[1])
    assert set(used) <= set(inputs)
    assert "runs:\n  using: composite" in ACTION_FILE.read_text("utf-8")


def test_action_steps_install_and_annotate(repo: Path, tmp_path: Path) -> None:
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    code, out = run_action("team/.engramory-memory", "false", repo, runner_temp)
    assert code == 1, out
    assert "::error file=team/.engramory-memory/x.md,line=1,title=no-frontmatter::" in out
    assert "::error file=team/.engramory-memory/MEMORY.md,title=index-over-hard-cap::" in out
    doctor_step = slice(1, None)  # installed once above; the doctor step again
    code, out = run_action("good", "false", repo, runner_temp, doctor_step)
    assert code == 0  # no annotation; the profile and why, on stderr, is the only line
    assert [line.split(":", 1)[0] for line in out.splitlines()] == ["profile engramory"]
    (repo / "good" / "user-role.md").write_text(
        note("user-role", updated="2026-01-01", created="2026-01-05"), "utf-8"
    )
    code, out = run_action("good", "false", repo, runner_temp, doctor_step)
    assert code == 0, out
    assert "::warning file=good/user-role.md" in out
    code, out = run_action("good", "true", repo, runner_temp, doctor_step)
    assert code == 1, out
    # No store input: discovery from the workspace (the .engramory-memory/ in its top).
    shutil.copytree(repo / "team" / ".engramory-memory", repo / ".engramory-memory")
    code, out = run_action("", "false", repo, runner_temp, doctor_step)
    assert code == 1, out
    assert "::error file=.engramory-memory/x.md,line=1," in out


def test_ci_snippet_sarif_line_runs_verbatim(repo: Path, tmp_path: Path) -> None:
    """docs/ci.md's SARIF step, run as written, with ``engramory`` this checkout's."""
    blocks = fenced_yaml(CI_SNIPPET.read_text("utf-8"))
    (line,) = [m.group(1) for m in re.finditer(r"(?m)^\s*- run: (engramory .*)$", blocks[1])]
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "engramory"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m engramory "$@"\n', "utf-8")
    shim.chmod(0o755)
    (repo / ".engramory-memory").mkdir()
    shutil.copytree(
        repo / "team" / ".engramory-memory", repo / ".engramory-memory", dirs_exist_ok=True
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
    }
    proc = subprocess.run(
        ["bash", "-c", line], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    log = json.loads((repo / "engramory.sarif").read_text("utf-8"))
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert ".engramory-memory/x.md" in uris


# --- the CI page's sections ---------------------------------------------------------------------


CI_PAGE = (REPO / "docs" / "ci.md").read_text("utf-8")


@pytest.mark.parametrize("snippet", [PRE_COMMIT_SNIPPET, CI_SNIPPET], ids=lambda p: p.name)
def test_the_ci_page_holds_the_snippets_verbatim(snippet: Path) -> None:
    assert snippet.read_text("utf-8") in CI_PAGE
