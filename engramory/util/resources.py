"""Find the documents Engramory ships (SKILL.md, templates/, hooks/, ...).

The installer copies these documents into agent hosts, so they must be found
whether Engramory runs from a checkout or from an installed wheel:

* in a wheel they travel inside the package, under ``engramory/_shipped/``
  (see ``[tool.hatch.build.targets.wheel.force-include]`` in pyproject.toml);
* in a checkout (or an editable install) they sit at the top of the
  repository, beside the ``engramory/`` package.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from engramory.util.errors import EngramoryError

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # engramory/, above util/
SHIPPED_DIR = PACKAGE_DIR / "_shipped"


class ShippedDocumentMissingError(EngramoryError):
    """A document that should ship with Engramory is not where it should be."""


def _checkout_root() -> Path | None:
    """The repository root when this package runs from a checkout, else ``None``."""
    root = PACKAGE_DIR.parent
    try:
        project = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if 'name = "engramory"' in project else None


def search_roots() -> list[Path]:
    """Where shipped documents are looked for, in order."""
    roots = [SHIPPED_DIR]
    checkout = _checkout_root()
    if checkout is not None:
        roots.append(checkout)
    return roots


def shipped_path(name: str) -> Path:
    """The path of a shipped document, e.g. ``shipped_path("templates/MEMORY.md")``.

    ``name`` is a relative, ``/``-separated path; anything that could leave
    the search roots (``..``, an absolute path) is rejected.
    """
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts or "\\" in name:
        raise ValueError(f"not a shipped document name: {name!r}")
    for root in search_roots():
        candidate = root.joinpath(*relative.parts)
        if candidate.exists():
            return candidate
    tried = ", ".join(str(root) for root in search_roots())
    raise ShippedDocumentMissingError(
        f"the shipped document {name} is missing (looked in {tried}); "
        "reinstall Engramory (pip install --force-reinstall engramory)"
    )
