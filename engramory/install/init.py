"""``engramory init``: every step planned (the store, ``.gitignore``, the skill, the hooks,
the rules, the guard check), each refusal raised before the first write."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from engramory.continuity.state import EXPLICIT
from engramory.hosts.base import BLOCK
from engramory.install import blocks, selfcommand
from engramory.install.files import (
    check_contained,
    check_store_placement,
    lexists,
    overlap,
    read_target,
    shown_path,
    writer,
)
from engramory.install.flags import check_flags, check_no_opposite_block, check_sources
from engramory.install.hooks import (
    HookPlan,
    IgnoreEdit,
    artifact_ignores,
    artifact_steps,
    hook_config_ignore,
    hook_interpreter,
    hooks_step,
    plan_hooks,
    planned_artifacts,
)
from engramory.install.layout import Layout
from engramory.install.steps import SKILL_DIRS, SKILL_FILES, Options, Plan, Step
from engramory.install.verify import guard_check_step, init_closing, verification_lines
from engramory.store import automemory
from engramory.store.discovery import INDEX_NAME, git_work_tree
from engramory.util import fsutil
from engramory.util.resources import ShippedDocumentMissingError, shipped_path
from engramory.wiring import hookwiring, managed
from engramory.wiring.refusal import FlagRefusal, Refusal


def _store_step(layout: Layout) -> Step:
    index = layout.store / INDEX_NAME
    shown = shown_path(layout, index)
    if layout.native is not None:
        return _native_store_step(layout, index)
    if layout.reader:
        if not os.path.isdir(layout.store):
            raise Refusal(
                f"{layout.store} is not an existing store: a reader needs --memory-root "
                "pointing at the store its owner writes"
            )
        if not os.path.lexists(index) or os.path.islink(index) or not os.path.isfile(index):
            raise Refusal(
                f"{index} is missing, a symlink or not a regular file: a reader needs a store "
                "whose MEMORY.md is a regular file inside it"
            )
        return Step("use", shown, "read-only: the store is neither created nor modified")
    if os.path.islink(index):
        raise Refusal(f"{index} is a symlink: Engramory will not write through it")
    if os.path.lexists(index):
        if not os.path.isfile(index):
            raise Refusal(f"{index} exists but is not a regular file")
        return Step("keep", shown, "existing index, left exactly as it is")
    template = shipped_path("templates/MEMORY.md").read_text(encoding="utf-8")
    return Step("create", shown, "from templates/MEMORY.md", writer(index, template))


def _native_store_step(layout: Layout, index: Path) -> Step:
    """The host's own memory folder as the store: its index is never modified, and one is
    created from the template only when the folder is missing or empty."""
    folder = layout.store
    _check_native_name_known(layout)
    if os.path.islink(index):
        raise Refusal(f"{index} is a symlink: Engramory will not write through it")
    if os.path.lexists(index):
        if not os.path.isfile(index):
            raise Refusal(f"{index} exists but is not a regular file")
        return Step("keep", str(index), "existing index, left exactly as it is")
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise Refusal(
            f"{folder} exists but is not a directory: {layout.spec.label}'s memory folder "
            "cannot be the store; move it aside, then run init again"
        )
    if os.path.isdir(folder) and not _is_empty_dir(folder):
        return Step(
            "skip",
            str(index),
            f"NOT created: the folder holds files but no {INDEX_NAME}, and an index from the "
            "template would leave them out; run `engramory doctor "
            f"{selfcommand.quote(str(folder), windows=os.name == 'nt')}` to see them, then "
            "write the index that points at them",
        )
    template = shipped_path("templates/MEMORY.md").read_text(encoding="utf-8")
    state = "empty" if os.path.isdir(folder) else "missing"
    why = f"from templates/MEMORY.md; the folder is {state}"
    return Step("create", str(index), why, writer(index, template))


def _check_native_name_known(layout: Layout) -> None:
    """Refuse a default folder whose real name cannot be known yet: past 200 characters the
    host appends a hash that differs between its builds, so only an existing folder tells it."""
    native = layout.native
    if native is None or native.rule != automemory.DEFAULT or native.candidates:
        return
    if len(automemory.project_key(layout.root)) <= automemory.KEY_LIMIT:
        return
    raise Refusal(
        f"the project's path is over {automemory.KEY_LIMIT} characters once encoded, so "
        f"{layout.spec.label} names its memory folder with a hash that differs between its "
        f"builds, and no such folder exists yet in {layout.store.parent.parent}; start "
        f"{layout.spec.label} in this project once so it creates the folder, then run init "
        "again (or pass --memory-root FOLDER instead of --native); nothing was written"
    )


def _is_empty_dir(folder: Path) -> bool:
    """Whether ``folder`` holds no entry at all (an unreadable one counts as not empty)."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def _store_ignore(layout: Layout) -> IgnoreEdit | str | None:
    """The edit that ignores the store, or why the store's entry is skipped."""
    if layout.reader:
        return None
    if layout.native is not None:
        return (
            f"no entry for the store: it is {layout.spec.label}'s own memory folder, outside "
            "the repository"
        )
    if not fsutil.is_within(str(layout.store), str(layout.root)):
        return (
            "the store is outside the project; if it sits in a shared git work tree, "
            "ignore it there yourself"
        )
    if git_work_tree(layout.store.parent) is None:
        return "the store is not inside a git work tree"
    relative = layout.store.relative_to(layout.root).as_posix()

    def edit(text: str) -> tuple[str, str]:
        return managed.ignore_store(text, relative)

    return edit


def _gitignore_steps(
    layout: Layout, hooks: HookPlan | None, artifacts: list[object] | None = None
) -> list[Step]:
    """One step for the project's ``.gitignore``: every ignore edit composed, written once.

    When the store gets no entry, why not is said on that same line (one line, one verb).
    """
    edits: list[IgnoreEdit] = []
    store = _store_ignore(layout)
    skipped = store if isinstance(store, str) else None
    if store is not None and skipped is None:
        edits.append(store)
    hook_config = hook_config_ignore(layout, hooks)
    if hook_config is not None:
        edits.append(hook_config)
    edits += artifact_ignores(layout, artifacts or [])
    if not edits:
        return [Step("skip", ".gitignore", skipped)] if skipped is not None else []
    path = layout.root / ".gitignore"
    check_contained(layout, path, ".gitignore")
    original = read_target(path, "the ignore entry")
    text, changed, kept = original or "", [], []
    for edit in edits:
        new, detail = edit(text)
        (changed if new != text else kept).append(detail)
        text = new
    shown = shown_path(layout, path)
    if text == (original or ""):
        return [Step("keep", shown, "; ".join([*kept, *([skipped] if skipped else [])]))]
    if original is None and skipped is not None:
        text = managed.mark_created(text)  # only rules uninstall takes back: it may delete it
    verb = "update" if lexists(path) else "create"
    why = "; ".join([*changed, *([skipped] if skipped else [])])
    return [Step(verb, shown, why, writer(path, text))]


def _copy_skill(skill: Path) -> Callable[[], None]:
    def run() -> None:
        for name in SKILL_FILES:
            _copy_file(shipped_path(name), skill / name)
        for directory in SKILL_DIRS:
            source = shipped_path(directory)
            for item in sorted(source.rglob("*")):
                if item.is_file() and "__pycache__" not in item.parts:
                    _copy_file(item, skill / directory / item.relative_to(source))

    return run


def _copy_file(source: Path, target: Path) -> None:
    """Copy one shipped file atomically, creating the directories above it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fsutil.write_atomic(target, source.read_bytes())


def _skill_step(layout: Layout, options: Options) -> Step | None:
    if not options.install_skill or layout.skill is None:
        return None
    skill = layout.skill
    check_contained(layout, skill, "the skill directory")
    if overlap(skill, layout.store):
        raise FlagRefusal(
            f"the memory store {layout.store} and the skill directory {skill} overlap: "
            "keep the store outside the skill"
        )
    shown = shown_path(layout, skill)
    if lexists(skill) and not skill.is_dir():
        raise Refusal(f"{skill} exists and is not a directory")
    if skill.is_dir() and any(skill.iterdir()):
        if not options.force:
            return Step("keep", shown, "an existing copy; --force replaces it")
        return Step("replace", shown, "the protocol documents (--force)", _copy_skill(skill))
    return Step("create", shown, "SKILL.md and the protocol documents", _copy_skill(skill))


def _protocol_path(layout: Layout, options: Options) -> str:
    """The ``SKILL.md`` the agent can open: the installed skill's, else the shipped copy."""
    if options.install_skill and layout.skill is not None:
        return layout.display(layout.skill / "SKILL.md")
    return Path(os.path.abspath(shipped_path("SKILL.md"))).as_posix()


def _rules_text(layout: Layout, options: Options) -> str:
    command = options.command.text if options.command is not None else blocks.COMMAND
    text = blocks.body(
        layout.spec,
        layout.reader,
        layout.store_text,
        hooks=options.install_hooks,
        protocol=None if layout.reader else _protocol_path(layout, options),
        mode=options.mode or EXPLICIT,
        command=command,
        native=layout.native is not None,
    )
    if layout.rules_kind == BLOCK:
        return blocks.block(layout.spec, layout.reader, text)
    return blocks.dedicated_file(layout.spec, layout.reader, text)


def _rules_step(layout: Layout, options: Options) -> Step:
    path = layout.rules
    assert path is not None
    check_contained(layout, path, "the rules file")
    shown = shown_path(layout, path)
    wanted = _rules_text(layout, options)
    current = read_target(path, "the rules")
    if layout.rules_kind == BLOCK:
        begin = blocks.begin_marker(layout.spec, layout.reader)
        end = blocks.end_marker(layout.spec, layout.reader)
        try:
            new = managed.install_block(current or "", wanted, begin, end)
        except managed.UnclosedFenceError as exc:
            raise Refusal(f"{path} has {exc}: close the fence, then run init again") from None
        except ValueError as exc:
            raise Refusal(
                f"{path} has {exc}: remove the broken Engramory lines by hand, then run init again"
            ) from None
        if new == current:
            return Step("keep", shown, "the Engramory block is already current")
        verb = "create" if current is None else "update"
        return Step(verb, shown, "the Engramory block", writer(path, new))
    if current == wanted:
        return Step("keep", shown, "already current")
    if current is not None and blocks.MANAGED_HEADER not in current:
        if not options.force:
            raise Refusal(
                f"{path} exists and was not written by Engramory: move it aside, or pass "
                "--force to replace it"
            )
        return Step(
            "replace", shown, "a file not written by Engramory (--force)", writer(path, wanted)
        )
    verb = "create" if current is None else "update"
    return Step(verb, shown, "Engramory's rules file", writer(path, wanted))


def plan_init(layout: Layout, options: Options) -> Plan:
    """Every step of ``engramory init`` for this layout; raises :class:`Refusal` first."""
    check_flags(layout, options)
    check_sources(layout, options)
    check_store_placement(layout)
    check_contained(layout, layout.rules, "the rules file")
    check_no_opposite_block(layout)
    if options.command is None and not layout.reader:
        options = replace(options, command=selfcommand.current())
    if not layout.reader:
        check_contained(layout, layout.store, "the memory store")
    hooks = plan_hooks(layout, options)
    artifacts = planned_artifacts(layout, options) if options.install_hooks else []
    steps = [
        _store_step(layout),
        *_gitignore_steps(layout, hooks, artifacts),
        _skill_step(layout, options),
        hooks_step(layout, hooks),
        *artifact_steps(artifacts, layout),
        _rules_step(layout, options),
        guard_check_step(layout, options, hooks, artifacts),
    ]
    plan = Plan(f"engramory init {layout.host}: {layout.spec.label} in {layout.root}")
    plan.steps = [step for step in steps if step is not None]
    plan.closing = init_closing(layout, options)
    return plan


def plan_guard_only(layout: Layout, options: Options) -> Plan:
    """``init HOST --global --guard-only``: the index guard alone in the user-wide hook config.

    No rules, no store, no skill, no continuity hooks; the handlers name no index
    (DESIGN §4: a user-wide hook serves every project). ``uninstall HOST --global``
    removes exactly these handlers.
    """
    if layout.hook_config is None and not layout.spec.global_hook_files:
        raise FlagRefusal(f"{layout.spec.label} has no user-wide hook configuration")
    options = replace(options, install_hooks=True, guard_only=True)
    try:
        shipped_path(hookwiring.GUARD_SCRIPT)
    except ShippedDocumentMissingError as exc:
        raise Refusal(str(exc)) from None
    hooks = plan_hooks(layout, options) if layout.hook_config is not None else None
    artifacts = planned_artifacts(layout, options) if hooks is None else []  # a config of its own
    steps = [
        hooks_step(layout, hooks),
        *artifact_steps(artifacts, layout),
        guard_check_step(layout, options, hooks, artifacts),
    ]
    plan = Plan(f"engramory init {layout.host} --global --guard-only: {layout.spec.label}")
    plan.steps = [step for step in steps if step is not None]
    plan.closing = [
        "only the index guard is registered: no rules block, no store, no skill, no "
        "continuity hooks",
        f"every project's {INDEX_NAME} ({layout.spec.label}'s own memory index included) is "
        "held under its caps before each write; after each shell command, the index found "
        "from the command's directory is measured",
        f"interpreter baked into the hooks: {hook_interpreter(options)}",
        *verification_lines(layout, options),
        f"next: start a new {layout.spec.label} session so the settings load. To remove the "
        f"guard: `engramory uninstall {layout.spec.name} --global`.",
    ]
    return plan
