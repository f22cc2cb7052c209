"""``engramory uninstall``: take back only what ``init`` wrote and can prove is its own.

The marked block, a dedicated rules file that still carries Engramory's header, the skill
payload (file by file), the handlers carrying Engramory's fingerprint, init's ignore rules,
and a ``.gitignore`` or a folder whose marker records that init created it, once nothing
else is in it. It never touches the memory store or its ``.gitignore`` entry.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from engramory.hosts.base import BLOCK
from engramory.hosts.registry import HOSTS
from engramory.install import blocks
from engramory.install.files import (
    absent,
    check_contained,
    deleter,
    prune_empty,
    read_target,
    recorded_deleter,
    shown_path,
    writer,
)
from engramory.install.hooks import artifact_ignore_comment, load_hook_config, planned_artifacts
from engramory.install.layout import Layout, resolve
from engramory.install.steps import SKILL_DIRS, SKILL_FILES, SKILL_FINGERPRINT, Options, Plan, Step
from engramory.util.resources import shipped_path
from engramory.util.textfmt import plural
from engramory.wiring import hookconfig, hookfiles, managed
from engramory.wiring.hookfiles import ConfigEdit, EditRefusal, OwnedFile
from engramory.wiring.refusal import Refusal


def _uninstall_rules(layout: Layout) -> list[Step]:
    paths = [layout.rules] if layout.rules is not None else []
    paths += [p for p in layout.candidates if p not in paths]
    steps = []
    for path in paths:
        if path is None or absent(path):
            if path == layout.rules:
                steps.append(Step("skip", shown_path(layout, path), "absent"))
            continue
        check_contained(layout, path, "the rules file")
        step = _uninstall_rules_file(layout, path)
        if step is not None:
            steps.append(step)
    return steps


def _uninstall_rules_file(layout: Layout, path: Path) -> Step | None:
    shown = shown_path(layout, path)
    text = read_target(path, "the rules") or ""
    if layout.rules_kind != BLOCK and path == layout.rules:
        if blocks.MANAGED_HEADER not in text:
            return Step("leave", shown, "not written by Engramory (no Engramory header)")
        return Step("remove", shown, "Engramory's rules file", deleter(path, layout.root))
    begin = blocks.begin_marker(layout.spec, layout.reader)
    end = blocks.end_marker(layout.spec, layout.reader)
    state = managed.find_block(text, begin, end)
    if state.status == managed.ABSENT:
        return Step("skip", shown, "no Engramory block") if path == layout.rules else None
    if state.status == managed.DAMAGED:
        return Step(
            "leave",
            shown,
            f"LEFT UNTOUCHED: damaged Engramory markers ({state.detail}); remove the "
            f"{begin} ... {end} lines and what is between them by hand",
            problem=True,
        )
    remaining = managed.remove_block(text, begin, end)
    if not remaining.strip():
        return Step("remove", shown, "it held only the Engramory block", deleter(path, layout.root))
    return Step("update", shown, "removed the Engramory block", writer(path, remaining))


def _skill_is_ours(skill: Path) -> bool:
    if not all((skill / name).is_file() for name in SKILL_FINGERPRINT):
        return False
    head = (skill / "SKILL.md").read_text(encoding="utf-8", errors="replace")[:300]
    return "name: engramory" in head


def _still_wired_elsewhere(layout: Layout) -> str | None:
    """Another write host that shares this skill directory and still has its block."""
    for other in HOSTS.values():
        if other.name == layout.spec.name:
            continue
        other_layout = resolve(other, False, global_=layout.global_, project_root=str(layout.root))
        if other_layout.skill is None or other_layout.skill != layout.skill:
            continue
        if other_layout.rules is not None and os.path.isfile(other_layout.rules):
            text = other_layout.rules.read_text(encoding="utf-8", errors="replace")
            if blocks.begin_marker(other, False) in text or blocks.MANAGED_HEADER in text:
                return other.name
    return None


def _uninstall_skill(layout: Layout) -> Step | None:
    skill = layout.skill
    if skill is None:
        return None
    shown = shown_path(layout, skill)
    if not skill.is_dir():
        return Step("skip", shown, "absent")
    check_contained(layout, skill, "the skill directory")
    if not _skill_is_ours(skill):
        return Step("leave", shown, "not recognisable as Engramory's skill")
    sharer = _still_wired_elsewhere(layout)
    if sharer is not None:
        return Step("leave", shown, f"still used by {sharer}")
    ours = [skill / name for name in SKILL_FILES] + [skill / name for name in SKILL_DIRS]
    others = sorted(p.name for p in skill.iterdir() if p not in ours)

    def run() -> None:
        for path in ours:
            if path.is_dir() and not path.is_symlink():
                _remove_tree_of_our_files(path)
            elif path.is_file():
                path.unlink()
        prune_empty(skill, layout.root if not layout.home_install else layout.containment)

    why = "the protocol documents"
    if others:
        why += f"; kept the directory: {plural(len(others), 'other entry', 'other entries')}"
    return Step("remove", shown, why, run)


def _remove_tree_of_our_files(directory: Path) -> None:
    """Remove the files Engramory copied (templates/) and the directories they leave empty."""
    source = shipped_path(directory.name)
    for item in sorted(directory.rglob("*"), reverse=True):
        if item.is_file() and (source / item.relative_to(directory)).is_file():
            item.unlink()
        elif item.is_dir():
            try:
                item.rmdir()
            except OSError:
                pass
    try:
        directory.rmdir()
    except OSError:
        pass


def _uninstall_hooks(layout: Layout) -> list[Step]:
    path = layout.hook_config
    if path is None:
        return []
    shown = shown_path(layout, path)
    if absent(path):
        return [Step("skip", shown, "absent")]
    check_contained(layout, path, "the hook configuration")
    form = layout.spec.hook_format
    _, document = load_hook_config(path, "uninstall", form)
    steps = []
    if hookconfig.count_ours(document.data(), form) == 0:
        steps.append(Step("skip", shown, "no Engramory handlers"))
    else:
        document.remove()
        layout.spec.clean_hook_config(document)
        if hookconfig.is_empty(document.data(), form):
            steps.append(
                Step(
                    "remove", shown, "it held only Engramory's handlers", deleter(path, layout.root)
                )
            )
        else:
            steps.append(
                Step(
                    "update",
                    shown,
                    "removed Engramory's handlers, kept the rest",
                    writer(path, document.text()),
                )
            )
    return steps


# An ignore rule uninstall takes back: (rule, init's comment line above it).
IgnoreRule = tuple[str, str]


def _hook_ignore_rules(layout: Layout) -> list[IgnoreRule]:
    """The hook config's ignore rule, when this host has one (taken back only under init's
    comment)."""
    wanted = layout.spec.hook_ignore_rule()
    return [] if wanted is None or layout.global_ or layout.reader else [wanted]


def _uninstall_gitignore(layout: Layout, rules: list[IgnoreRule]) -> Step | None:
    """One step for the project's ``.gitignore``: every rule of init's dropped, written once;
    the file deleted when init created it (its first line says so) and nothing else is left."""
    ignore = layout.root / ".gitignore"
    if not rules or layout.global_ or not ignore.is_file():
        return None
    check_contained(layout, ignore, ".gitignore")
    original = read_target(ignore, "the ignore rule") or ""
    text, dropped = original, []
    for rule, comment in rules:
        if managed.has_ignore_rule(text, rule, comment):
            text = managed.remove_ignore_rule(text, rule, comment)
            dropped.append(rule)
    what = f"dropped the {', '.join(dropped)} rule{'s' if len(dropped) > 1 else ''}"
    shown = shown_path(layout, ignore)
    if managed.only_created_marker(text):  # also when init itself took its last rule back
        why = "init created it and nothing else is left"
        why = f"{what}; {why}" if dropped else why
        return Step("remove", shown, why, deleter(ignore, layout.root))
    if not dropped:
        return None
    return Step("update", shown, what, writer(ignore, text))


def _uninstall_owned_file(layout: Layout, artifact: OwnedFile) -> list[Step]:
    shown = shown_path(layout, artifact.path)
    if absent(artifact.path):
        return [Step("skip", shown, "absent")]
    text = read_target(artifact.path, "the hook") or ""
    if not hookfiles.is_owned(text):
        return [Step("leave", shown, "not Engramory's (no marker line): left as it is")]
    return [Step("remove", shown, artifact.what, deleter(artifact.path, layout.root))]


def _artifact_ignore_rules(layout: Layout, artifacts: list[object]) -> list[IgnoreRule]:
    """The ignore rule of each owned hook file a project install git-ignores."""
    if layout.global_:
        return []
    comment = artifact_ignore_comment(layout)
    return [
        (artifact.path.relative_to(layout.root).as_posix(), comment)
        for artifact in artifacts
        if isinstance(artifact, OwnedFile) and artifact.ignore
    ]


def _uninstall_config_edit(layout: Layout, artifact: ConfigEdit) -> list[Step]:
    shown = shown_path(layout, artifact.path)
    if absent(artifact.path):
        return [Step("skip", shown, "absent")]
    try:
        text = read_target(artifact.path, "the hook") or ""
    except Refusal as exc:
        if not artifact.searched:
            raise
        return [Step("leave", shown, f"not searched for Engramory's hooks: {exc}")]
    if not artifact.is_ours(text):
        return [] if artifact.searched else [Step("skip", shown, "no Engramory hooks")]
    try:
        new = artifact.remove(text)
    except EditRefusal as exc:
        return [Step("LEFT UNTOUCHED", shown, str(exc), problem=True)]
    if new is None:
        if artifact.created_folder is None:
            return [
                Step(
                    "remove",
                    shown,
                    "it held only Engramory's hooks",
                    deleter(artifact.path, layout.root),
                )
            ]
        folder = artifact.created_folder(text)
        why = "it held only Engramory's hooks" + (
            "; then its folder, which init created, if nothing else is in it" if folder else ""
        )
        return [Step("remove", shown, why, recorded_deleter(artifact.path, folder))]
    return [
        Step("update", shown, f"removed {artifact.what}, kept the rest", writer(artifact.path, new))
    ]


def _uninstall_artifacts(layout: Layout, artifacts: list[object]) -> list[Step]:
    """Take back the host's hook files: only what still carries Engramory's marks."""
    steps: list[Step] = []
    for artifact in artifacts:
        if isinstance(artifact, OwnedFile):
            steps += _uninstall_owned_file(layout, artifact)
        elif isinstance(artifact, ConfigEdit):
            steps += _uninstall_config_edit(layout, artifact)
    return steps


def _installed_artifacts(layout: Layout, options: Options) -> list[object]:
    """The hook files init would have written for this layout (none for a reader)."""
    if layout.reader or not layout.spec.hook_files:
        return []
    if layout.global_ and not layout.spec.global_hook_files:
        return []
    return planned_artifacts(layout, options, os.path.abspath(sys.executable), uninstall=True)


def plan_uninstall(layout: Layout, options: Options | None = None) -> Plan:
    """Every step of ``engramory uninstall``; the store and its ignore entry are never steps."""
    steps = _uninstall_rules(layout)
    skill = _uninstall_skill(layout)
    if skill is not None:
        steps.append(skill)
    if not layout.reader:
        artifacts = _installed_artifacts(layout, options or Options())
        steps += _uninstall_hooks(layout)
        steps += _uninstall_artifacts(layout, artifacts)
        rules = _hook_ignore_rules(layout) + _artifact_ignore_rules(layout, artifacts)
        ignore = _uninstall_gitignore(layout, rules)
        if ignore is not None:
            steps.append(ignore)
    plan = Plan(f"engramory uninstall {layout.host}: {layout.spec.label} in {layout.root}", steps)
    plan.closing += layout.found
    if layout.native is not None:
        plan.closing.append(
            f"memory store: NOT touched - {layout.spec.label}'s own memory folder "
            f"{layout.store} (notes and index left exactly as they are)"
        )
    elif os.path.isdir(layout.store):
        plan.closing.append(
            f"memory store: NOT touched - {layout.store} (notes and index left exactly as they "
            "are; its .gitignore entry too)"
        )
    elif not layout.global_:  # a user-wide install (the guard alone) may have no store at all
        plan.closing.append(
            f"memory store: none found at {layout.store}; nothing about any other store was "
            "checked (pass --memory-root to name yours)"
        )
    return plan
