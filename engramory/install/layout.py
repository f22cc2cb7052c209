"""Where an install of one host puts things: rules file, store, skill, hook config.

A pure function of the host table, the command-line choices and the
environment (``HOME``, ``DSH_HOME``, ``CODEX_HOME``, ``HERMES_HOME``,
``CLAUDE_CONFIG_DIR``), plus a look at the file system: which of Hermes's
candidate files exist, the git work tree around the current directory, an
existing store in it, and (``--native``) the host's own memory folder for the
project. Nothing here writes.

A home that is unset, empty or relative is refused rather than guessed: an
empty ``HOME`` would otherwise put user-wide files at the filesystem root.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engramory.hosts.base import FILE, Host
from engramory.store.discovery import DEFAULT_STORE_DIR, INDEX_NAME, git_work_tree
from engramory.wiring.homes import EnvironmentRefusal, expand, home

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engramory.store.automemory import Resolution

DEFAULT_STORE = DEFAULT_STORE_DIR


@dataclass(frozen=True)
class Layout:
    """The resolved targets of one install.

    ``root`` is the project root (the user's home for ``--global``);
    ``containment`` is the directory no target may resolve outside of.
    ``home_install`` is true for ``--global`` and for an install in the
    host's own home (dsh's ``$DSH_HOME``): the block then names absolute
    paths. ``found`` says, for the report, what was worked out rather than
    given (the project root from the git work tree, an existing store in it).
    ``native``: with ``--native``, how the host's own memory folder (the store)
    was found.
    """

    spec: Host
    reader: bool
    global_: bool
    root: Path
    containment: Path
    home_install: bool
    store: Path
    rules: Path | None
    rules_kind: str
    skill: Path | None
    hook_config: Path | None
    candidates: tuple[Path, ...] = ()
    found: tuple[str, ...] = ()
    native: Resolution | None = None
    user_home: Path | None = None

    @property
    def host(self) -> str:
        return self.spec.name + ("-reader" if self.reader else "")

    @property
    def store_text(self) -> str:
        """The store's path as the rules name it: relative to the project when inside it.

        The host's own memory folder (``--native``) is named by absolute path, with
        ``~`` for the home directory when it is under it.
        """
        if self.native is None:
            return self.display(self.store)
        if self.user_home is not None:
            try:
                return "~/" + self.store.relative_to(self.user_home).as_posix()
            except ValueError:
                pass
        return self.store.as_posix()

    def display(self, path: Path) -> str:
        """A path as the rules name it (POSIX separators)."""
        if not self.home_install:
            try:
                return path.relative_to(self.root).as_posix()
            except ValueError:
                pass
        return path.as_posix()


def _rules_target(spec: Host, reader: bool, global_: bool, root: Path, env) -> Path | None:
    if global_:
        if spec.global_rules is None:
            return None
        path = expand(spec.global_rules, env)
        if reader and spec.reader_rules and _global_kind(spec) == FILE:
            return path.parent / Path(spec.reader_rules).name
        return path
    if spec.candidates:
        for name in spec.candidates:
            candidate = root / name
            if candidate.is_file():
                return candidate
        return root / (spec.rules or "AGENTS.md")
    relative = spec.reader_rules if reader and spec.reader_rules else spec.rules
    return root / relative if relative else None


def _place(value: str | None, root: Path, env) -> Path | None:  # type: ignore[no-untyped-def]
    """A host-table path: under the home or a host home (``~``, ``$...``), else under ``root``."""
    if value is None:
        return None
    return expand(value, env) if value[:1] in "~$" else root / value


def _global_kind(spec: Host) -> str:
    """A dedicated file per project may be a shared file globally (Windsurf's global rules)."""
    return spec.global_rules_kind or spec.rules_kind


def _default_root(cwd: Path) -> tuple[Path, str]:
    """The project root when none is given: the git work-tree top above ``cwd``, else ``cwd``."""
    top = git_work_tree(cwd)
    if top is None or top == cwd:
        return cwd, ""
    return top, (
        f"project root: {top} (the top of the git work tree holding the current directory; "
        "pass --project-root to choose another)"
    )


def _existing_store(cwd: Path, root: Path) -> Path | None:
    """The nearest ``.engramory-memory/MEMORY.md`` from ``cwd`` up to ``root`` (inclusive)."""
    for candidate in (cwd, *cwd.parents):
        store = candidate / DEFAULT_STORE
        if os.path.isfile(store / INDEX_NAME):
            return store
        if candidate == root:
            break
    return None


def resolve(
    spec: Host,
    reader: bool,
    *,
    global_: bool = False,
    project_root: str | None = None,
    memory_root: str | None = None,
    native: bool = False,
    environ: dict[str, str] | os._Environ[str] | None = None,
) -> Layout:
    """Every target of one install, from the host table and the command line.

    Without ``--project-root`` a host whose project is the current directory
    uses the top of the git work tree holding it, and an existing store
    between the two is used rather than a second one created. With ``native``
    the store is the host's own memory folder for the project
    (:attr:`Host.native_folder`; the caller checked that the host has one).
    """
    env = os.environ if environ is None else environ
    found: list[str] = []
    discovered = False
    if global_:
        root = expand(spec.own_home, env) if spec.own_home else home(env)
    elif project_root is not None:
        root = expand(project_root, env)
    elif spec.default_root != ".":
        root = expand(spec.default_root, env)
    else:
        cwd = Path.cwd()
        root, why = _default_root(cwd)
        found += [why] if why else []
        discovered = True
    own_home = expand(spec.own_home, env) if spec.own_home else None
    home_install = global_ or (own_home is not None and root == own_home)
    resolution = None
    if native and spec.native_folder is not None:
        resolution = spec.native_folder(root, env)
        store = Path(os.path.abspath(resolution.path))
    elif memory_root is not None:
        store = expand(memory_root, env) if memory_root.startswith("~") else Path(memory_root)
        store = Path(os.path.abspath(root / store))
    else:
        existing = _existing_store(cwd, root) if discovered else None
        store = existing if existing is not None else root / DEFAULT_STORE
        if existing is not None and existing != root / DEFAULT_STORE:
            found.append(
                f"using the existing store {existing} (the nearest one from the current "
                "directory up; pass --memory-root to choose another)"
            )
    skill_path = spec.global_skill if home_install else spec.skill
    skill = _place(skill_path, root, env) if not reader else None
    hook_path = spec.global_hook_config if global_ else spec.hook_config
    hook_config = _place(hook_path, root, env) if not reader else None
    rules_root = own_home if own_home is not None and home_install else root
    rules = _rules_target(spec, reader, global_ and own_home is None, rules_root, env)
    kind = _global_kind(spec) if global_ else spec.rules_kind
    return Layout(
        spec=spec,
        reader=reader,
        global_=global_,
        root=root,
        containment=home(env) if global_ else root,
        home_install=home_install,
        store=store,
        rules=rules,
        rules_kind=kind,
        skill=skill,
        hook_config=hook_config,
        candidates=tuple(rules_root / name for name in spec.candidates) if not global_ else (),
        found=tuple(found),
        native=resolution,
        user_home=_home_or_none(env) if resolution is not None else None,
    )


def _home_or_none(env) -> Path | None:  # type: ignore[no-untyped-def]
    """The user's home when it can be placed (for naming a path with ``~``), else ``None``."""
    try:
        return home(env)
    except EnvironmentRefusal:
        return None
