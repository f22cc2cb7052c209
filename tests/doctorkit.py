"""Builders for doctor tests: valid notes, small stores, and running the engine on them."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import Any

from engramory.doctor import engine
from engramory.doctor.context import Options
from engramory.doctor.model import Finding
from engramory.store.caps import Caps
from engramory.store.frontmatter import render

TODAY = date(2026, 11, 30)


def note(
    slug: str,
    type: str = "user",
    body: str | None = None,
    drop: tuple[str, ...] = (),
    **fields: str,
) -> str:
    """A valid note for ``slug`` (feedback/project ones carry Why/How and a scope).

    ``fields`` override or add frontmatter keys; ``drop`` removes keys.
    """
    values = {
        "name": slug,
        "description": f"When to open {slug}: a one-line hook",
        "type": type,
        "created": "2026-01-10",
        "updated": "2026-01-12",
    }
    if type in ("feedback", "project"):
        values["scope"] = "repo"
    values.update(fields)
    for key in drop:
        values.pop(key, None)
    if body is None:
        body = f"The fact behind {slug}, in a sentence or two.\n"
        if type in ("feedback", "project"):
            body += "\n**Why:** the reason it matters.\n\n**How to apply:** the next action.\n"
    return render(values) + "\n" + body


def index_for(notes: dict[str, str], extra: str = "") -> str:
    """An index pointing to every top-level note, under the heading of its type."""
    sections: dict[str, list[str]] = {t: [] for t in ("user", "feedback", "project", "reference")}
    for rel, text in notes.items():
        if "/" in rel:
            continue
        kind = next(
            (
                line.split(":", 1)[1].strip()
                for line in text.splitlines()
                if line.startswith("type:")
            ),
            "user",
        )
        sections.setdefault(kind if kind in sections else "user", []).append(
            f"- [{rel[:-3]}]({rel}) — open when it matters"
        )
    out = ["# Memory index", ""]
    for kind, lines in sections.items():
        out += [f"## {kind}", *lines, ""]
    return "\n".join(out) + extra


def make_store(root: Path, notes: dict[str, str | bytes], index: str | None = "auto") -> Path:
    """Write a store: ``notes`` maps store-relative paths to content.

    ``index="auto"`` writes an index pointing to every top-level note; ``None``
    writes no index.
    """
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    if index == "auto":
        index = index_for({k: v for k, v in notes.items() if isinstance(v, str)})
    if index is not None:
        (root / "MEMORY.md").write_text(index, encoding="utf-8")
    return root


def doctor(
    root: Path,
    *,
    schema: bool = True,
    caps: Caps | None = None,
    max_index_line: int = 200,
    select: set[str] | None = None,
    stale_days: int = 0,
) -> engine.Report:
    """Run the doctor as of :data:`TODAY`; ``stale_days`` is 0 (stale-project off) unless a
    test is about it, since the sample notes date from early 2026."""
    options = Options(
        schema=schema, max_index_line=max_index_line, today=TODAY, stale_days=stale_days
    )
    return engine.run(str(root), caps or Caps(), options, select)


def fired(root: Path, rule: str, **kwargs: object) -> list[Finding]:
    """The findings of one rule."""
    return [f for f in doctor(root, **kwargs).findings if f.rule == rule]  # type: ignore[arg-type]


def rules(root: Path, **kwargs: object) -> set[str]:
    """The ids of every rule that fired."""
    return {f.rule for f in doctor(root, **kwargs).findings}  # type: ignore[arg-type]


def valid_store(root: Path) -> Path:
    """A small valid store with all four types and a wikilink."""
    return make_store(
        root,
        {
            "user-role.md": note("user-role", "user"),
            "feedback-tests.md": note("feedback-tests", "feedback"),
            "project-migration.md": note(
                "project-migration",
                "project",
                body="Goal and status.\n\nWhy: the reason.\n\nHow to apply: resume here; see "
                "[[reference-logs]].\n",
            ),
            "reference-logs.md": note("reference-logs", "reference"),
        },
    )


def coarse_clock(patch: Any, tick: int) -> None:
    """Make the walk see timestamps of ``tick`` ns, as on FAT (2 s), HFS+ or ext3 (1 s)
    (``patch``: a ``pytest.MonkeyPatch``)."""
    from engramory.store import disk

    real = disk._lstat_key

    def coarse(entry: os.DirEntry[str]) -> tuple[int, int, int, int, int] | None:
        info = real(entry)
        if info is None:
            return None
        size, mtime, ctime, inode, device = info
        return (size, mtime - mtime % tick, ctime - ctime % tick, inode, device)

    patch.setattr(disk, "_lstat_key", coarse)
