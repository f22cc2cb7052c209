"""The refusals ``init`` raises before it plans a step: flag combinations a host cannot take
(usage errors, exit 64), shipped documents that are missing, and a reader block beside a
writer block of the same host."""

from __future__ import annotations

import shlex
from pathlib import Path

from engramory.hosts.base import BLOCK, Host
from engramory.hosts.registry import HOSTS, hook_hosts
from engramory.install import blocks
from engramory.install.files import read_target
from engramory.install.hooks import global_hooks
from engramory.install.layout import Layout
from engramory.install.steps import SKILL_DIRS, SKILL_FILES, Options
from engramory.util import snippet
from engramory.util.resources import ShippedDocumentMissingError, shipped_path
from engramory.wiring import hookwiring, managed
from engramory.wiring.refusal import FlagRefusal, Refusal


def check_flags(layout: Layout, options: Options) -> None:
    """Refuse flag combinations this host cannot take (usage errors, exit 64)."""
    spec, host = layout.spec, layout.host
    if (
        options.install_hooks
        and layout.global_
        and spec.installs_hooks
        and not global_hooks(layout)
    ):
        raise FlagRefusal(
            f"--install-hooks with --global: {spec.label} has no user-wide hook configuration "
            "Engramory writes; install the hooks per project (drop --global)"
        )
    if layout.rules is None:
        raise FlagRefusal(f"{spec.label} has no user-wide rules file: --global is not available")
    if layout.reader and (options.install_skill or options.install_hooks):
        raise FlagRefusal(
            f"{host} is read-only: it installs no skill and no hooks "
            "(drop --install-skill/--install-hooks)"
        )
    if options.install_hooks and not spec.installs_hooks:
        raise FlagRefusal(
            f"--install-hooks is supported only for {', '.join(hook_hosts())}; "
            f"{spec.label} gets the rules and `engramory check` instead"
        )
    if options.mode is not None and not options.install_hooks:
        raise FlagRefusal("--mode sets the lifecycle hooks' policy: add --install-hooks")
    if options.install_skill and layout.skill is None:
        raise FlagRefusal(f"--install-skill: {spec.missing_skill()}")
    if not layout.global_:
        refusal = spec.project_refusal(layout.root, layout.candidates)
        if refusal is not None:
            raise Refusal(refusal)


def check_native_flags(spec: Host, reader: bool, *, global_: bool, memory_root: str | None) -> None:
    """Refuse ``--native`` where it cannot apply (usage errors, exit 64): checked before the
    layout, which resolves the folder."""
    if spec.native_folder is None or reader:
        natives = ", ".join(h.name for h in HOSTS.values() if h.native_folder is not None)
        host = spec.name + ("-reader" if reader else "")
        raise FlagRefusal(
            f"--native uses the host's own memory folder as the store, which only {natives} "
            f"offers (as a writer); {host} does not: drop --native"
        )
    if memory_root is not None:
        raise FlagRefusal(
            "--native and --memory-root both choose the store: --native takes "
            f"{spec.label}'s own memory folder, --memory-root another; pass one of them"
        )
    if global_:
        raise FlagRefusal(
            f"--native uses one project's {spec.label} memory folder, and --global has no "
            "project: drop --global (and run it in the project), or drop --native"
        )


def check_guard_only_flags(
    spec: Host,
    reader: bool,
    options: Options,
    *,
    global_: bool,
    memory_root: str | None,
    native: bool,
) -> None:
    """Refuse ``--guard-only`` with anything it does not install (usage errors, exit 64).

    ``--install-hooks`` is accepted: the guard is a hook, so it is implied.
    """
    if not spec.guard_only or reader:
        offered = ", ".join(h.name for h in HOSTS.values() if h.guard_only)
        host = spec.name + ("-reader" if reader else "")
        raise FlagRefusal(f"--guard-only is available for {offered}, not for {host}")
    if not global_:
        raise FlagRefusal(
            "--guard-only registers the index guard in the user-wide settings, for every "
            f"project: add --global (e.g. engramory init {spec.name} --global --guard-only)"
        )
    conflicts = [
        flag
        for flag, given in (
            ("--native", native),
            ("--memory-root", memory_root is not None),
            ("--install-skill", options.install_skill),
            ("--mode", options.mode is not None),
        )
        if given
    ]
    if conflicts:
        raise FlagRefusal(
            f"--guard-only installs the index guard and nothing else (no store, no rules, no "
            f"skill, no continuity hooks): drop {', '.join(conflicts)}"
        )


def check_sources(layout: Layout, options: Options) -> None:
    """Refuse when a shipped document this install copies or names is missing."""
    names = [snippet.READER_SNIPPET if layout.reader else snippet.WRITER_SNIPPET]
    if not layout.reader:
        names += ["templates/MEMORY.md", "SKILL.md"]
    if options.install_skill:
        names += [*SKILL_FILES, *SKILL_DIRS]
    if options.install_hooks:
        names.append(hookwiring.SYNC_SCRIPT)
        if layout.spec.pre_write_hook:
            names.append(hookwiring.GUARD_SCRIPT)
    for name in names:
        try:
            shipped_path(name)
        except ShippedDocumentMissingError as exc:
            raise Refusal(str(exc)) from None


def check_no_opposite_block(layout: Layout) -> None:
    """Refuse to put a reader block beside a writer block of the same host (or the reverse).

    The two contradict each other (one says the agent writes the store, the
    other that it never does), so the user uninstalls one first.
    """
    if layout.rules_kind != BLOCK or layout.rules is None:
        return
    text = read_target(layout.rules, "the rules")
    if text is None:
        return
    other = not layout.reader
    begin = blocks.begin_marker(layout.spec, other)
    end = blocks.end_marker(layout.spec, other)
    if managed.find_block(text, begin, end).status == managed.ABSENT:
        return
    host = layout.spec.name + ("-reader" if other else "")
    flags = " --global" if layout.global_ else ""
    if not layout.global_ and layout.root != Path.cwd():
        flags = f" --project-root {shlex.quote(str(layout.root))}"
    this, that = ("read-only", "writer") if layout.reader else ("writer", "read-only")
    raise Refusal(
        f"{layout.rules} already holds Engramory's {that} block for {layout.spec.label} "
        f"({begin}); a {this} block beside it would contradict it. Run "
        f"`engramory uninstall {host}{flags}` first, then run init again; nothing was written"
    )
