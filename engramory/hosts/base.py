"""The Host interface: what Engramory knows about one agent host, as data plus optional behaviour.

A :class:`Host` holds the facts the installer (``engramory init`` /
``uninstall``), ``engramory hosts``, the documents' consistency tests and the
adapter READMEs read: where the host's rules, skills and hooks go. A host
with behaviour of its own (a refusal, extra rules text, its own hook form, a
closing note) is a subclass in its own module under ``engramory/hosts/`` that
overrides the methods below; every method has a neutral default, so a host
that is data only is a plain :class:`Host` in :mod:`engramory.hosts.table`.
:mod:`engramory.hosts.registry` lists them all.

Paths starting with ``~`` are in the user's home (``--global``); other paths
are relative to the project root.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engramory.dialects import DEFAULT_HOST
from engramory.wiring import hookconfig, hookwiring

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from engramory.store.automemory import Resolution
    from engramory.wiring.hookconfig import Document
    from engramory.wiring.hookfiles import ConfigEdit, HookContext, OwnedFile

BLOCK = "block"  # a marked block inside a shared rules file
FILE = "file"  # a dedicated rules file, owned whole

VERIFIED = "verified"
DOCUMENTED = "documented"

# How a project's hook config, which holds machine-local absolute paths, is git-ignored.
IGNORE_ALWAYS = "always"  # a machine-local file by the host's own convention
IGNORE_WHILE_OURS = "while-ours"  # a shared file: ignored only while it holds nothing but ours

# How the index cap is enforced on a host (``engramory hosts``' ``cap_enforcement``).
DENY_HOOK = "deny-hook"  # a pre-write hook denies an index edit over the cap
DENY_HOOK_UNVERIFIED = "deny-hook-unverified"  # the same, on a payload the host does not document
RULES_AND_CHECK = "rules-and-check"  # the rules, and `engramory check` after each edit
# Who sees the check after a write (``engramory hosts``' ``after_write_check``).
AFTER_TO_AGENT = "agent"  # the host feeds the hook's answer back to the agent
AFTER_TO_LOG = "stderr"  # the host has no channel to the agent: a warning on stderr / its log
AFTER_WRITE_TEXT = {
    AFTER_TO_AGENT: "yes, the agent is told what to undo (--install-hooks)",
    AFTER_TO_LOG: "yes, a warning on stderr / the host's hook log only: the host gives the "
    "after-tool hook no channel to the agent (--install-hooks)",
    "": "no",
}
CAP_ENFORCEMENT_TEXT = {
    DENY_HOOK: "deny hook",
    DENY_HOOK_UNVERIFIED: "deny hook (unverified payload)",
    RULES_AND_CHECK: "rules + check",
}


@dataclass(frozen=True)
class Host:
    """One agent host.

    ``rules`` / ``global_rules``: the always-loaded rules file for a project and
    for ``--global`` (``None``: not supported). ``rules_kind``: ``block`` or
    ``file``; a dedicated file starts with ``frontmatter`` lines;
    ``global_rules_kind`` overrides the kind for ``--global`` (a shared file).
    ``reader_rules``: the dedicated file a reader install writes (block hosts
    reuse ``rules``). ``candidates``: files the host loads instead of ``rules``
    when they exist (the first one found is used). Paths may start with ``~``
    or ``$DSH_HOME``, ``$CODEX_HOME``, ``$HERMES_HOME``. ``skill`` / ``global_skill``:
    the skill directory. ``hook_config`` / ``global_hook_config``: where
    ``--install-hooks`` merges handlers; ``hook_config_ignore`` (``IGNORE_*``) says
    whether init git-ignores the project's hook config; ``hook_format`` is its shape and how
    Engramory's handlers are recognised in it. ``cap_enforcement`` (``DENY_HOOK``...) says how
    the index cap is enforced; :attr:`pre_write_hook` follows from it. ``edit_tools``: the
    host's own tools for editing a file, which the rules name when the guard turns a shell
    write of the index away (default: Claude Code's). ``runs_hooks_of``:
    (host name, path) of other hosts' hook configs this host also runs, so a guard there runs
    twice; ``double_guard_hint`` says how to keep one. ``store_may_be_native``: whether the
    host's own memory folder is a plain directory Engramory may use as the store;
    ``native_folder(project, environ)`` finds that folder for a project, as the host does
    (``init --native``; ``None``: the host has none). ``guard_only``: whether ``init
    --global --guard-only`` can register the index guard alone in
    :attr:`global_hook_config`, naming no store.
    ``hook_files`` / ``global_hook_files``: for a host whose hooks are not a JSON hook
    config, the files ``--install-hooks`` writes or edits (shown by ``engramory hosts``;
    :meth:`hook_artifacts` builds them). ``option_flags``: ``(flag, dest, help)`` of
    command-line options of init/uninstall that only this host takes; their values reach
    :meth:`hook_artifacts` as ``context.options[dest]``.
    ``lifecycle_hooks``: the host's events the continuity hooks are installed on;
    ``holds_compaction``: whether its compaction event can hold a compaction back
    (``False``: the host only observes one, and the gate is a reminder).
    ``after_write``: who sees the check after a write that ``--install-hooks`` registers
    (``AFTER_TO_AGENT``, ``AFTER_TO_LOG``; "": none is registered).
    ``own_home``: a host whose home folder is also its project (dsh's ``$DSH_HOME``):
    ``--global`` installs there, and an install in that folder names absolute
    paths and writes its rules there, as a global one does.
    """

    name: str
    label: str
    rules: str | None
    global_rules: str | None
    rules_kind: str
    skill: str | None
    global_skill: str | None
    verified: str
    enforcement: str
    frontmatter: tuple[str, ...] = ()
    reader_rules: str | None = None
    reader_frontmatter: tuple[str, ...] = ()
    global_rules_kind: str | None = None
    default_root: str = "."
    own_home: str | None = None
    hook_config: str | None = None
    global_hook_config: str | None = None
    hook_config_ignore: str | None = None
    hook_files: tuple[str, ...] = ()
    global_hook_files: tuple[str, ...] = ()
    option_flags: tuple[tuple[str, str, str], ...] = ()
    hook_format: hookconfig.HookFormat = hookwiring.STATUS_FORMAT
    cap_enforcement: str = RULES_AND_CHECK
    edit_tools: tuple[str, ...] = ("Edit", "Write")
    runs_hooks_of: tuple[tuple[str, str], ...] = ()
    double_guard_hint: str = ""
    after_write: str = ""
    lifecycle_hooks: tuple[str, ...] = ()
    holds_compaction: bool = True
    native_memory: str = ""
    store_may_be_native: bool = False
    native_folder: Callable[[Path, Mapping[str, str]], Resolution] | None = None
    guard_only: bool = False
    candidates: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def pre_write_hook(self) -> bool:
        """Whether ``--install-hooks`` registers the index guard (a pre-write deny hook)."""
        return self.cap_enforcement in (DENY_HOOK, DENY_HOOK_UNVERIFIED)

    @property
    def installs_hooks(self) -> bool:
        """Whether ``--install-hooks`` has anything to install for this host."""
        return self.hook_config is not None or bool(self.hook_files)

    @property
    def hook_locations(self) -> tuple[str, ...]:
        """Where a project's hooks go, for help and ``engramory hosts``."""
        return (self.hook_config,) if self.hook_config is not None else self.hook_files

    @property
    def marker(self) -> str:
        """The upper-case name in the block markers: ``<!-- BEGIN ENGRAMORY CLAUDE -->``."""
        return self.name.upper()

    # --- refusals -----------------------------------------------------------------------

    def missing_skill(self) -> str:
        """Why ``--install-skill`` cannot go ahead where this host has no skill directory."""
        return f"{self.label} has no documented skill directory"

    def store_refusal(self, root: Path, store: Path) -> str | None:
        """Why the store may not be at ``store`` in the project at ``root`` (a usage error)."""
        return None

    def project_refusal(self, root: Path, candidates: tuple[Path, ...]) -> str | None:
        """Why a project install at ``root`` would not be read by the host (refused, exit 1).

        ``candidates`` are the project's candidate rules files (:attr:`candidates`
        placed under ``root``). Not asked for ``--global``.
        """
        return None

    # --- the rules and the report ---------------------------------------------------------

    def rules_addendum(self, memory: str) -> str:
        """A paragraph the rules carry for this host after the shared snippet ("": none).

        ``memory`` is the store's path as the rules name it.
        """
        return ""

    def hooks_trust_note(self) -> str:
        """A sentence the rules add when hooks are installed: what the host needs to run them."""
        return ""

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        """Lines the ``init`` report ends with for this host."""
        return ()

    # --- hooks ----------------------------------------------------------------------------

    def hook_groups(
        self, python: str, guard: str, sync: str, store: str, mode: str
    ) -> dict[str, hookwiring.Group]:
        """The hook groups ``--install-hooks`` merges into :attr:`hook_config`, by event.

        The default is Claude Code's settings form (exec-form handlers: the
        interpreter in ``command``, the script and its arguments in ``args``):
        the index guard when the host has a :attr:`pre_write_hook` (``guard``
        is the guard script; empty otherwise) and the continuity hooks when it
        has :attr:`lifecycle_hooks`. ``sync`` is the sync script, ``store`` the
        store's absolute path and ``mode`` the continuity policy.
        """
        groups = hookwiring.guard_groups(python, guard, store) if self.pre_write_hook else {}
        if self.lifecycle_hooks:
            args = hookwiring.sync_args(sync, self.name, mode, store)
            groups.update(
                hookwiring.lifecycle_groups(
                    lambda status: hookwiring.exec_handler(python, args, status)
                )
            )
        return groups

    def guard_only_groups(self, python: str, guard: str) -> dict[str, hookwiring.Group]:
        """The groups of ``init --global --guard-only``: the index guard alone, naming no index
        (a user-wide handler serves every project). Default: Claude Code's settings form."""
        return hookwiring.guard_groups(python, guard, None)

    def guard_argv(self, python: str, guard: str, store: str | None) -> list[str]:
        """The index guard's command as registered (argv), in this host's dialect: ``--host``
        names it unless it is the guard's default dialect (Claude Code's).

        ``store`` ``None``: the guard alone, registered without ``--index``.
        """
        host = None if self.name == DEFAULT_HOST else self.name
        return hookwiring.guard_argv(python, guard, store, host)

    def shell_payload(self, command: str, cwd: str) -> dict[str, object]:
        """A hook payload for a shell tool call running ``command``, in this host's shape.

        ``init`` pipes one into the registered guard to check it (and prints one
        that writes the index, which the guard must deny). Default: Claude Code's.
        """
        return {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "cwd": cwd,
        }

    def hook_artifacts(self, context: HookContext) -> list[OwnedFile | ConfigEdit]:
        """The hook files ``--install-hooks`` writes or edits, for a host whose hooks are not
        a JSON hook config (:mod:`engramory.wiring.hookfiles`). Default: none.

        Uninstall calls it too, through :meth:`uninstalled_artifacts`, to learn which
        files to take back.
        """
        return []

    def uninstalled_artifacts(self, context: HookContext) -> list[OwnedFile | ConfigEdit]:
        """The hook files uninstall takes Engramory's parts out of. Default: those
        :meth:`hook_artifacts` names; a host whose hooks may sit in files the user chose
        (Kiro's agents) also searches for them."""
        return self.hook_artifacts(context)

    def clean_hook_config(self, document: Document) -> None:
        """Tidy the hook config after Engramory's handlers were merged or removed (default: no)."""

    def hook_ignore_rule(self) -> tuple[str, str] | None:
        """The ignore rule and Engramory's comment above it for a project's hook config, if any."""
        if self.hook_config is None or self.hook_config_ignore is None:
            return None
        name = self.name.capitalize()
        comment = f"# Engramory {name} hooks (absolute machine-local paths, not portable)"
        return self.hook_config, comment
