"""The golden record of what ``engramory init`` and ``uninstall`` write, host by host.

For every host in the table and every form it supports (writer and reader; a
project and, where the host has one, ``--global``; plain and with every
supported ``--install-skill`` / ``--install-hooks``), run ``init`` into a fresh
temporary folder holding an empty git project and an empty home, record every
file there (relative path -> bytes) and every folder, then run ``uninstall``
and record what is left. A few more cases (``SEEDED``) install over files
the user already has: a rules file, a ``.gitignore``, a hook configuration
with the user's own hooks. Machine-specific text is replaced by placeholders:
``{HOME}``, ``{PROJECT}``, ``{TMP}``, ``{PYTHON}`` (``sys.executable``),
``{SHIPPED}`` (where the shipped hooks and templates are found) and
``{AGENT_COMMAND}`` (the command the rules tell the agent to run).

File contents are stored once each, by SHA-256, so the record stays small.
``tests/test_install_golden.py`` replays every case and compares. Regenerate
only when a change to the installed bytes is intended, and say so in the
commit::

    python tests/make_install_golden.py          # rewrites tests/data/install_golden.json
    python tests/make_install_golden.py --check  # exit 1 when the record is stale
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

GOLDEN = REPO / "tests" / "data" / "install_golden.json"
ENGRAMORY_OWN = ("state", "cache")  # XDG folders of Engramory's own files, outside the snapshot
HOST_HOME_VARIABLES = ("DSH_HOME", "CODEX_HOME", "HERMES_HOME", "CLAUDE_CONFIG_DIR")
# The store a reader install recalls from: another agent's, already there (``{TMP}`` is the sandbox).
SHARED_STORE = "{TMP}/shared-store"
SHARED_INDEX = "# Memory index\n\n- [Build](build.md) - how the project builds\n"


# Installs into files the user already has: (init arguments, relative path -> text written first).
_USER_HOOK = {"type": "command", "command": "echo mine"}
SEEDED: dict[str, tuple[list[str], dict[str, str]]] = {
    "claude --install-hooks, over the user's files": (
        ["claude", "--install-hooks"],
        {
            "project/CLAUDE.md": "# My project\n\nBuild with make.\n",
            "project/.gitignore": "node_modules/\n",
            "project/.claude/settings.local.json": json.dumps(
                {
                    "permissions": {"allow": ["Bash(make:*)"]},
                    "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [_USER_HOOK]}]},
                },
                indent=2,
            )
            + "\n",
        },
    ),
    "codex --install-hooks, over the user's files and an old description key": (
        ["codex", "--install-hooks"],
        {
            "project/AGENTS.md": "# Agents\n\nRun the tests first.\n",
            "project/.codex/hooks.json": json.dumps(
                {
                    "description": "Engramory continuity hooks",
                    "hooks": {"SessionStart": [{"hooks": [_USER_HOOK]}]},
                },
                indent=2,
            )
            + "\n",
        },
    ),
    "hermes, into the context file the project already has": (
        ["hermes"],
        {"project/CLAUDE.md": "# Notes for agents\n"},
    ),
    "windsurf --global, into the user's global rules": (
        ["windsurf", "--global"],
        {"home/.codeium/windsurf/memories/global_rules.md": "Answer in English.\n"},
    ),
}


def cases() -> dict[str, list[str]]:
    """Case name -> the ``init`` arguments, for every host and form the host table supports."""
    from engramory.hosts.registry import HOSTS

    found: dict[str, list[str]] = {}
    for name, spec in HOSTS.items():
        for global_ in (False, True):
            if global_ and spec.global_rules is None:
                continue
            where = ["--global"] if global_ else []
            found[" ".join([name, *where])] = [name, *where]
            reader = [f"{name}-reader", *where]
            found[" ".join(reader)] = [*reader, "--memory-root", SHARED_STORE]
            extras = []
            if (spec.global_skill if global_ else spec.skill) is not None:
                extras.append("--install-skill")
            if (spec.global_hook_config if global_ else spec.hook_config) is not None:
                extras.append("--install-hooks")
            if extras:
                found[" ".join([name, *where, *extras])] = [name, *where, *extras]
    return found


@contextlib.contextmanager
def _sandbox(root: Path) -> Iterator[Path]:
    """A home and a git project under ``root``; ``HOME``, ``PATH`` and the cwd pointed there."""
    home, project, empty_path = root / "home", root / "project", root / "empty-path"
    for folder in (home, project / ".git", empty_path, root / "shared-store"):
        folder.mkdir(parents=True)
    (root / "shared-store" / "MEMORY.md").write_text(SHARED_INDEX, encoding="utf-8")
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    try:
        for variable in [
            *HOST_HOME_VARIABLES,
            *(v for v in os.environ if v.startswith("ENGRAMORY_")),
        ]:
            os.environ.pop(variable, None)
        os.environ["HOME"] = str(home)
        # Engramory's own state (the projects record, histories) and caches are not what init
        # installs, and the record holds today's date: kept out of the snapshot.
        for kind in ENGRAMORY_OWN:
            os.environ[f"XDG_{kind.upper()}_HOME"] = str(root / f"xdg-{kind}")
        # Nothing named `engramory` on PATH: the agent command is this installation's script or
        # interpreter, replaced by {AGENT_COMMAND} below, whatever the machine's PATH holds.
        os.environ["PATH"] = str(empty_path)
        os.chdir(project)
        yield project
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def _run(argv: list[str], root: Path) -> int:
    """``engramory ARGV`` (``{TMP}`` made ``root``) in this process, output swallowed; the exit code."""
    from engramory.cli import main

    argv = [arg.replace("{TMP}", str(root)) for arg in argv]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def _placeholders(root: Path) -> list[tuple[str, str]]:
    """(machine text, placeholder), longest text first so a path inside another loses."""
    from engramory.install import selfcommand
    from engramory.util.resources import shipped_path

    pairs = {
        selfcommand.current().text: "{AGENT_COMMAND}",
        str(root / "home"): "{HOME}",
        str(root / "project"): "{PROJECT}",
        str(root): "{TMP}",
        os.path.abspath(sys.executable): "{PYTHON}",
        str(shipped_path("hooks").resolve().parent): "{SHIPPED}",
    }
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


def _snapshot(root: Path, placeholders: list[tuple[str, str]], blobs: dict[str, str]) -> dict:
    """Every folder and file under ``root`` (the project's ``.git`` aside), contents as hashes."""
    files: dict[str, str] = {}
    folders: list[str] = []
    for top, dirs, names in os.walk(root):
        relative_top = Path(top).relative_to(root)
        dirs[:] = sorted(
            d
            for d in dirs
            if (relative_top / d).as_posix()
            not in ("project/.git", "empty-path", *(f"xdg-{kind}" for kind in ENGRAMORY_OWN))
        )
        folders += [(relative_top / d).as_posix() for d in dirs]
        for name in sorted(names):
            text = (Path(top) / name).read_bytes().decode("utf-8", errors="surrogateescape")
            for machine, placeholder in placeholders:
                text = text.replace(machine, placeholder)
            digest = hashlib.sha256(text.encode("utf-8", errors="surrogateescape")).hexdigest()
            blobs[digest] = text
            files[(relative_top / name).as_posix()] = digest
    return {"files": dict(sorted(files.items())), "folders": sorted(folders)}


def record_case(
    init_args: list[str], blobs: dict[str, str], seed: dict[str, str] | None = None
) -> dict:
    """Run one init then its uninstall in a fresh sandbox (``seed`` written first); what each left."""
    root = Path(tempfile.mkdtemp(prefix="engramory-golden-")).resolve()
    try:
        with _sandbox(root):
            for relative, text in (seed or {}).items():
                (root / relative).parent.mkdir(parents=True, exist_ok=True)
                (root / relative).write_text(text, encoding="utf-8")
            placeholders = _placeholders(root)
            init_code = _run(["init", *init_args], root)
            after_init = _snapshot(root, placeholders, blobs)
            uninstall_args = [arg for arg in init_args if not arg.startswith("--install-")]
            uninstall_code = _run(["uninstall", *uninstall_args], root)
            after_uninstall = _snapshot(root, placeholders, blobs)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {
        **({"seed": seed} if seed else {}),
        "init": init_args,
        "init_exit": init_code,
        "after_init": after_init,
        "uninstall": uninstall_args,
        "uninstall_exit": uninstall_code,
        "after_uninstall": after_uninstall,
    }


def generate() -> dict:
    """The whole record: every case, and each distinct file content once."""
    blobs: dict[str, str] = {}
    recorded = {name: record_case(args, blobs) for name, args in cases().items()}
    recorded.update({name: record_case(args, blobs, seed) for name, (args, seed) in SEEDED.items()})
    return {"cases": recorded, "blobs": dict(sorted(blobs.items()))}


def dumps(record: dict) -> str:
    """The record as the file stores it."""
    return json.dumps(record, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of rewriting")
    args = parser.parse_args()
    text = dumps(generate())
    if args.check:
        stale = not GOLDEN.is_file() or GOLDEN.read_text(encoding="utf-8") != text
        print(f"{GOLDEN}: {'stale' if stale else 'up to date'}")
        return 1 if stale else 0
    GOLDEN.write_text(text, encoding="utf-8")
    print(f"wrote {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
