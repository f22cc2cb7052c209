"""``init --install-hooks``: the hook configuration read and merged once, the host's own
hook files, and the ignore rules for the machine-local paths they name."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engramory.continuity.state import EXPLICIT
from engramory.hosts.base import IGNORE_ALWAYS
from engramory.install.files import check_contained, read_target, shown_path, writer
from engramory.install.layout import Layout
from engramory.install.steps import Options, Step
from engramory.store.discovery import git_work_tree
from engramory.util import fsutil
from engramory.util.resources import shipped_path
from engramory.wiring import hookconfig, hookfiles, hookwiring, managed
from engramory.wiring.hookfiles import ConfigEdit, EditRefusal, HookContext, OwnedFile
from engramory.wiring.refusal import FlagRefusal, Refusal


def hook_interpreter(options: Options) -> str:
    """The Python the hooks run (absolute); refuses one that is not an executable file."""
    python = os.path.abspath(os.path.expanduser(options.hook_python or sys.executable))
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        refusal = FlagRefusal if options.hook_python else Refusal
        raise refusal(
            f"the hook interpreter {python} is not an executable file: pass --hook-python "
            "with the absolute path of a Python 3.9+ interpreter"
        )
    return python


def guard_script(layout: Layout) -> str:
    """The guard script's absolute path ("" for a host without a guard)."""
    if not layout.spec.pre_write_hook:
        return ""
    return str(shipped_path(hookwiring.GUARD_SCRIPT).resolve())


def _wanted_groups(layout: Layout, options: Options) -> dict[str, object]:
    python = hook_interpreter(options)
    if options.guard_only:
        return layout.spec.guard_only_groups(python, guard_script(layout))
    sync = str(shipped_path(hookwiring.SYNC_SCRIPT).resolve())
    store = str(layout.store.resolve())
    mode = options.mode or EXPLICIT
    return layout.spec.hook_groups(python, guard_script(layout), sync, store, mode)


def load_hook_config(
    path: Path, command: str, form: hookconfig.HookFormat
) -> tuple[str | None, hookconfig.Document]:
    """The hook configuration's text (``None`` when absent) and its tree; refuses a bad one."""
    text = read_target(path, "the hooks", hookconfig.MAX_BYTES)
    try:
        return text, hookconfig.load(text, form)
    except hookconfig.HookConfigError as exc:
        raise Refusal(f"{path} {exc}; fix it by hand, then run {command} again") from None


@dataclass(frozen=True)
class HookPlan:
    """The hook configuration as it is (``text``, ``None`` when absent) and as init wants it
    (``merged``, written as ``new_text``: the file's own text with our groups spliced in)."""

    path: Path
    text: str | None
    current: dict[str, object]
    merged: dict[str, object]
    new_text: str
    events: tuple[str, ...] = ()


def plan_hooks(layout: Layout, options: Options) -> HookPlan | None:
    """Read and merge the hook configuration once; refuses before anything is written."""
    if not options.install_hooks or layout.hook_config is None:
        return None
    path = layout.hook_config
    check_contained(layout, path, "the hook configuration")
    if fsutil.is_within(os.path.realpath(path), os.path.realpath(layout.store)):
        raise Refusal(f"the hook configuration {path} would be inside the memory store")
    text, document = load_hook_config(path, "init", layout.spec.hook_format)
    current = document.data()
    wanted = _wanted_groups(layout, options)
    document.merge(wanted)
    layout.spec.clean_hook_config(document)
    return HookPlan(path, text, current, document.data(), document.text(), tuple(wanted))


def _hooks_what(layout: Layout, events: tuple[str, ...]) -> str:
    """What the hook step registers, by event: the index guard's, then the continuity hooks'."""
    lifecycle = [event for event in events if event in layout.spec.lifecycle_hooks]
    guard = [event for event in events if event not in lifecycle]
    parts = []
    if guard:
        parts.append(f"the index guard ({', '.join(guard)})")
    if lifecycle:
        parts.append(f"the continuity hooks: {', '.join(lifecycle)}")
    return " and ".join(parts)


def hooks_step(layout: Layout, hooks: HookPlan | None) -> Step | None:
    """The step that writes the merged hook configuration (``None`` without hooks)."""
    if hooks is None:
        return None
    shown = shown_path(layout, hooks.path)
    what = _hooks_what(layout, hooks.events)
    if hooks.text is not None and hooks.current == hooks.merged:
        return Step("keep", shown, f"already registered: {what}")
    verb = "update" if hooks.text is not None else "create"
    return Step(verb, shown, what, writer(hooks.path, hooks.new_text))


def global_hooks(layout: Layout) -> bool:
    """Whether this host has user-wide hooks Engramory writes (for ``--global``)."""
    if layout.spec.hook_config is not None:
        return layout.hook_config is not None
    return bool(layout.spec.global_hook_files)


def hook_context(
    layout: Layout, options: Options, python: str | None = None, windows: bool | None = None
) -> HookContext:
    """What a host's :meth:`~engramory.hosts.base.Host.hook_artifacts` builds its files from."""
    return HookContext(
        python=python or hook_interpreter(options),
        guard=guard_script(layout),
        sync=str(shipped_path(hookwiring.SYNC_SCRIPT).resolve()),
        store=str(layout.store.resolve()),
        mode=options.mode or EXPLICIT,
        root=layout.root,
        home=layout.user_home or Path(os.path.expanduser("~")),
        global_=layout.global_,
        windows=os.name == "nt" if windows is None else windows,
        options=dict(options.host_options),
        guard_only=options.guard_only,
    )


def planned_artifacts(
    layout: Layout, options: Options, python: str | None = None, uninstall: bool = False
) -> list[object]:
    """The host's hook files (``uninstall``: those to take back), each checked to stay inside
    the project (or home)."""
    if layout.reader or not layout.spec.hook_files:
        return []
    context = hook_context(layout, options, python)
    if uninstall:
        artifacts = layout.spec.uninstalled_artifacts(context)
    else:
        artifacts = layout.spec.hook_artifacts(context)
    for artifact in artifacts:
        check_contained(layout, artifact.path, "the hook file")
        if fsutil.is_within(os.path.realpath(artifact.path), os.path.realpath(layout.store)):
            raise Refusal(f"the hook file {artifact.path} would be inside the memory store")
    return artifacts


def _owned_file_step(layout: Layout, artifact: OwnedFile) -> Step:
    shown = shown_path(layout, artifact.path)
    text = read_target(artifact.path, "the hook")
    if text is not None and not hookfiles.is_owned(text):
        raise Refusal(
            f"{artifact.path} exists and is not Engramory's (it lacks the "
            f"{hookfiles.OWNED_MARKER} line): move it aside or merge it by hand, then run "
            "init again; nothing was written"
        )
    mode = 0o755 if artifact.executable else None
    current_mode = _mode_of(artifact.path)
    if text == artifact.text and (mode is None or current_mode == mode):
        return Step("keep", shown, f"already registered: {artifact.what}")
    verb = "update" if text is not None else "create"
    return Step(verb, shown, artifact.what, writer(artifact.path, artifact.text, mode))


def _mode_of(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def _config_edit_step(layout: Layout, artifact: ConfigEdit) -> Step:
    shown = shown_path(layout, artifact.path)
    text = read_target(artifact.path, "the hook")
    try:
        new = artifact.install(text)
    except EditRefusal as exc:
        raise Refusal(f"{artifact.path}: {exc}; nothing was written") from None
    if text == new:
        return Step("keep", shown, f"already registered: {artifact.what}")
    verb = "update" if text is not None else "create"
    return Step(verb, shown, artifact.what, writer(artifact.path, new))


def artifact_steps(artifacts: list[object], layout: Layout) -> list[Step]:
    """One step per hook file; every refusal is raised here, before anything is written."""
    steps = []
    for artifact in artifacts:
        if isinstance(artifact, OwnedFile):
            steps.append(_owned_file_step(layout, artifact))
        elif isinstance(artifact, ConfigEdit):
            steps.append(_config_edit_step(layout, artifact))
    return steps


IgnoreEdit = Callable[[str], tuple[str, str]]


def hook_config_ignore(layout: Layout, hooks: HookPlan | None) -> IgnoreEdit | None:
    """Ignore the project's hook config (machine-local paths) as the host table says.

    A machine-local file is always ignored; a shared one only while every
    handler in it is ours. The comment line marks the rule as init's own, so
    uninstall removes it only when init added it.
    """
    wanted = layout.spec.hook_ignore_rule()
    if hooks is None or wanted is None or layout.global_:
        return None
    if git_work_tree(layout.root) is None:
        return None
    rule, comment = wanted
    all_ours = layout.spec.hook_config_ignore == IGNORE_ALWAYS or hookconfig.only_ours(
        hooks.merged, layout.spec.hook_format
    )

    def edit(text: str) -> tuple[str, str]:
        if all_ours:
            if managed.has_gitignore_entry(text, rule):
                return text, f"already ignores {rule}"
            new = managed.add_ignore_rule(text, "/" + rule, comment)
            return new, f"ignore /{rule} (machine-local paths)"
        if managed.has_ignore_rule(text, rule, comment):
            new = managed.remove_ignore_rule(text, rule, comment)
            return new, f"stop ignoring {rule}: it holds other hooks or settings too"
        return text, f"{rule} holds other hooks or settings: not ignored"

    return edit


def artifact_ignores(layout: Layout, artifacts: list[object]) -> list[IgnoreEdit]:
    """Ignore each owned hook file that names machine-local paths (project installs in git)."""
    if layout.global_ or git_work_tree(layout.root) is None:
        return []
    edits: list[IgnoreEdit] = []
    for artifact in artifacts:
        if isinstance(artifact, OwnedFile) and artifact.ignore:
            edits.append(_ignore_edit(layout, artifact.path))
    return edits


def artifact_ignore_comment(layout: Layout) -> str:
    """The comment init writes above a hook file's ignore rule (uninstall looks for it)."""
    return f"# Engramory {layout.spec.label} hook (absolute machine-local paths, not portable)"


def _ignore_edit(layout: Layout, path: Path) -> IgnoreEdit:
    rule = path.relative_to(layout.root).as_posix()
    comment = artifact_ignore_comment(layout)

    def edit(text: str) -> tuple[str, str]:
        if managed.has_gitignore_entry(text, rule):
            return text, f"already ignores {rule}"
        return managed.add_ignore_rule(text, "/" + rule, comment), f"ignore /{rule}"

    return edit
