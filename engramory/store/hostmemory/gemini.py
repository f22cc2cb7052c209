"""Gemini CLI's private project memory: ``~/.gemini/tmp/<slug>/memory/``.

The slug is the project's entry in ``~/.gemini/projects.json`` (``{"projects":
{"<absolute path>": "<slug>"}}``). A project not registered yet gets, when
Gemini CLI first runs there, its folder's name slugified (lower case, every run
of characters outside ``a-z0-9`` one ``-``), with ``-1``, ``-2``... when another
project holds that slug: that is the folder reported, marked as not registered.
The project is the folder Gemini CLI is started in (``--project-root``, else
the git work tree's top). The registry is read bounded; a file that is not a
JSON object is ignored as if absent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from engramory.store import automemory
from engramory.store.hostmemory.model import COMPUTED, REGISTRY, Found
from engramory.util import fastjson, fsutil

HOST = "gemini"
LABEL = "Gemini CLI"
REGISTRY_NAME = "projects.json"
REGISTRY_LIMIT = 1024 * 1024
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def gemini_home(environ: Mapping[str, str]) -> Path:
    """``~/.gemini``."""
    return automemory.home(environ) / ".gemini"  # type: ignore[arg-type]


def slugify(name: str) -> str:
    """A folder name as Gemini CLI slugs it (``My App`` -> ``my-app``; empty -> ``project``)."""
    return _NOT_SLUG.sub("-", name.lower()).strip("-") or "project"


def registered(data: bytes) -> dict[str, str]:
    """The ``projects`` map of a ``projects.json`` (path -> slug); ``{}`` when unreadable."""
    try:
        parsed = fastjson.loads(data.decode("utf-8", "replace").lstrip("\ufeff"))
    except (ValueError, RecursionError):
        return {}
    projects = parsed.get("projects") if isinstance(parsed, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {k: v for k, v in projects.items() if isinstance(k, str) and isinstance(v, str)}


def slug_for(project: str, projects: Mapping[str, str]) -> tuple[str, bool]:
    """The project's slug and whether the registry holds it (else the one it would get)."""
    for key in (project, os.path.realpath(project)):
        slug = projects.get(key) or projects.get(key.rstrip("/\\"))
        if slug and "/" not in slug and "\\" not in slug and slug not in (".", ".."):
            return slug, True
    wanted = slugify(os.path.basename(project.rstrip("/\\")))
    taken = set(projects.values())
    slug, number = wanted, 0
    while slug in taken:
        number += 1
        slug = f"{wanted}-{number}"
    return slug, False


def _registry(path: Path) -> dict[str, str]:
    try:
        data = fsutil.read_bounded(path, REGISTRY_LIMIT)
    except OSError:
        return {}
    return registered(data)


def find(project: Path, environ: Mapping[str, str]) -> Found:
    """The project's Gemini CLI memory folder, by its registered slug."""
    home = gemini_home(environ)
    registry_file = home / REGISTRY_NAME
    slug, known = slug_for(os.path.abspath(project), _registry(registry_file))
    if known:
        rule, words = REGISTRY, f"the project's slug {slug!r} in {registry_file}"
    else:
        rule, words = (
            COMPUTED,
            f"not in {registry_file} yet: the slug {slug!r} Gemini CLI would give it",
        )
    layers = (("global memory", home / "GEMINI.md"), ("project memory", project / "GEMINI.md"))
    return Found(
        HOST,
        LABEL,
        home / "tmp" / slug / "memory",
        rule,
        words,
        ("MEMORY.md",),
        True,
        False,
        layers,
    )
