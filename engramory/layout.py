"""Where an install of one host puts things: rules file, store, skill, hook config.

A pure function of the host table, the command-line choices and the
environment (``HOME``, ``DSH_HOME``), plus a look at which of Hermes's
candidate files exist. Nothing here writes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engramory.discovery import DEFAULT_STORE_DIR
from engramory.hosts.specs import FILE, HostSpec

DEFAULT_STORE = DEFAULT_STORE_DIR


@dataclass(frozen=True)
class Layout:
    """The resolved targets of one install.

    ``root`` is the project root (the user's home for ``--global``);
    ``containment`` is the directory no target may resolve outside of.
    ``home_install`` is true for ``--global`` and for dsh in its own home:
    the block then names absolute paths.
    """

    spec: HostSpec
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

    @property
    def host(self) -> str:
        return self.spec.name + ("-reader" if self.reader else "")

    @property
    def store_text(self) -> str:
        """The store's path as the rules name it: relative to the project when inside it."""
        return self.display(self.store)

    def display(self, path: Path) -> str:
        """A path as the rules name it (POSIX separators)."""
        if not self.home_install:
            try:
                return path.relative_to(self.root).as_posix()
            except ValueError:
                pass
        return path.as_posix()


def home(environ: dict[str, str] | os._Environ[str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    configured = env.get("HOME", "").strip() or env.get("USERPROFILE", "").strip()
    return Path(configured) if configured else Path.home()


# Host homes that an environment variable may move, and where they are otherwise.
HOST_HOMES = {"DSH_HOME": ".dsh", "CODEX_HOME": ".codex", "HERMES_HOME": ".hermes"}


def expand(value: str, environ: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """``~``, ``$DSH_HOME``, ``$CODEX_HOME`` and ``$HERMES_HOME`` expanded; an absolute path.

    An unset or empty host-home variable means its usual folder in the home.
    """
    env = os.environ if environ is None else environ
    user_home = home(env)
    for variable, default in HOST_HOMES.items():
        if value.startswith("$" + variable):
            configured = env.get(variable, "").strip()
            base = Path(configured).expanduser() if configured else user_home / default
            value = str(base) + value[len(variable) + 1 :]
            break
    if value == "~" or value.startswith(("~/", "~\\")):
        value = str(user_home) + value[1:]
    return Path(os.path.abspath(value))


def _rules_target(spec: HostSpec, reader: bool, global_: bool, root: Path, env) -> Path | None:
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


def _global_kind(spec: HostSpec) -> str:
    """A dedicated file per project may be a shared file globally (Windsurf's global rules)."""
    return spec.global_rules_kind or spec.rules_kind


def resolve(
    spec: HostSpec,
    reader: bool,
    *,
    global_: bool = False,
    project_root: str | None = None,
    memory_root: str | None = None,
    environ: dict[str, str] | os._Environ[str] | None = None,
) -> Layout:
    """Every target of one install, from the host table and the command line."""
    env = os.environ if environ is None else environ
    user_home = home(env)
    if global_:
        root = expand("$DSH_HOME", env) if spec.name == "dsh" else user_home
    elif project_root is not None:
        root = expand(project_root, env)
    else:
        root = expand(spec.default_root, env) if spec.default_root != "." else Path.cwd()
    dsh_home = expand("$DSH_HOME", env)
    home_install = global_ or (spec.name == "dsh" and root == dsh_home)
    if memory_root is not None:
        store = expand(memory_root, env) if memory_root.startswith("~") else Path(memory_root)
        store = Path(os.path.abspath(root / store))
    else:
        store = root / DEFAULT_STORE
    skill_path = spec.global_skill if home_install else spec.skill
    skill = _place(skill_path, root, env) if not reader else None
    hook_path = spec.global_hook_config if global_ else spec.hook_config
    hook_config = _place(hook_path, root, env) if not reader else None
    rules_root = dsh_home if spec.name == "dsh" and home_install else root
    rules = _rules_target(spec, reader, global_ and spec.name != "dsh", rules_root, env)
    kind = _global_kind(spec) if global_ else spec.rules_kind
    return Layout(
        spec=spec,
        reader=reader,
        global_=global_,
        root=root,
        containment=user_home if global_ else root,
        home_install=home_install,
        store=store,
        rules=rules,
        rules_kind=kind,
        skill=skill,
        hook_config=hook_config,
        candidates=tuple(rules_root / name for name in spec.candidates) if not global_ else (),
    )
