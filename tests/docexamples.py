"""Checked examples in the documents: run the commands a block shows, compare the output.

A checked example is a fenced ``console`` block right after a line
``<!-- example -->`` in README.md or a page under docs/. Its ``$ `` lines are
commands, run one after the other with bash in one scratch project that holds a
copy of ``examples/store`` (and nothing else: a fresh git work tree, its own
HOME); every other line is the output the command before it prints (stdout
and stderr). Paths and dates are normalised before comparing: the project is
``/home/me/app``, its home ``/home/me``, the checkout ``/opt/engramory``, the
interpreter ``/usr/bin/python3``, today ``2026-12-01`` (a time of today
``09:30:00Z``) and a backup id ``20261201T093000Z``.

``tests/test_doc_examples.py`` checks every block. To rewrite the outputs
after a deliberate change of wording::

    python3 tests/docexamples.py --update
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MARKER = "<!-- example -->"
FENCE_OPEN = "```console"
FENCE_CLOSE = "```"
PROMPT = "$ "
UPDATE = "python3 tests/docexamples.py --update"
PROJECT, HOME, CHECKOUT, PYTHON = "/home/me/app", "/home/me", "/opt/engramory", "/usr/bin/python3"
TODAY, TIME, BACKUP_ID = "2026-12-01", "09:30:00Z", "20261201T093000Z"
TIMEOUT = 60


@dataclass(frozen=True)
class Block:
    """One checked example: where it is and the (command, output lines) it shows."""

    path: Path
    line: int  # 1-based line of the opening fence
    steps: tuple[tuple[str, tuple[str, ...]], ...]
    end: int  # 1-based line of the closing fence


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def parse(path: Path) -> list[Block]:
    """Every checked example of ``path``; a marker without its block is a ``ValueError``."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        if i + 1 >= len(lines) or lines[i + 1] != FENCE_OPEN:
            raise ValueError(f"{path}:{i + 1}: {MARKER} is not followed by {FENCE_OPEN}")
        steps: list[tuple[str, list[str]]] = []
        j = i + 2
        while j < len(lines) and lines[j] != FENCE_CLOSE:
            if lines[j].startswith(PROMPT):
                steps.append((lines[j][len(PROMPT) :], []))
            elif not steps:
                raise ValueError(f"{path}:{j + 1}: output before the first command")
            else:
                steps[-1][1].append(lines[j])
            j += 1
        if j >= len(lines):
            raise ValueError(f"{path}:{i + 2}: the example block is not closed")
        frozen = tuple((cmd, tuple(out)) for cmd, out in steps)
        blocks.append(Block(path, i + 2, frozen, j + 1))
    return blocks


def normalise(text: str, root: Path) -> str:
    """``text`` with the scratch paths, the interpreter, the checkout and dates made fixed."""
    today = datetime.date.today().isoformat()
    project_key = re.sub(r"[^A-Za-z0-9]", "-", str(root / "app"))  # Claude Code's folder name
    text = text.replace(project_key, re.sub(r"[^A-Za-z0-9]", "-", PROJECT))
    for real, shown in (
        (str(root / "app"), PROJECT),
        (str(root / "home"), HOME),
        (str(root / "bin"), f"{HOME}/.local/bin"),
        (os.path.realpath(sys.executable), PYTHON),
        (sys.executable, PYTHON),
        (str(REPO), CHECKOUT),
    ):
        text = text.replace(real, shown)
    text = re.sub(r"\b\d{8}T\d{6}Z\b", BACKUP_ID, text)
    text = re.sub(rf"\b{today}T\d\d:\d\d:\d\dZ", f"{TODAY}T{TIME}", text)
    return text.replace(today, TODAY)


def scratch(root: Path) -> dict[str, str]:
    """Make the scratch project under ``root``; the environment to run commands in."""
    app, home, bindir = root / "app", root / "home", root / "bin"
    shutil.copytree(REPO / "examples" / "store", app / "examples" / "store")
    home.mkdir()
    bindir.mkdir()
    shim = bindir / "engramory"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m engramory "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "PYTHONPATH": str(REPO),
        "NO_COLOR": "1",
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "init", "-q", str(app)], check=True, env=env)
    return env


def run(block: Block) -> list[tuple[str, list[str]]]:
    """Each command of ``block`` with the output it prints now (normalised)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp))
        env = scratch(root)
        results = []
        for command, _shown in block.steps:
            proc = subprocess.run(
                ["bash", "-c", f"exec 2>&1\n{command}"],
                cwd=root / "app",
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
            out = normalise(proc.stdout, root).rstrip("\n")
            results.append((command, [line.rstrip() for line in out.split("\n")] if out else []))
        return results


def update(path: Path) -> bool:
    """Rewrite every checked example of ``path`` with its output now; whether it changed."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for block in reversed(parse(path)):
        body = []
        for command, out in run(block):
            body += [PROMPT + command, *out]
        lines[block.line : block.end - 1] = body
    text = "\n".join(lines)
    changed = text != path.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    if argv != ["--update"]:
        print(__doc__, file=sys.stderr)
        return 64
    for path in documents():
        if update(path):
            print(f"updated {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
