"""``engramory init`` and ``engramory uninstall``: plan every step, refuse early, then act.

Planning reads the file system and decides everything: what each step will
write, and every reason to refuse (bad flag combinations, missing source
documents, a store that is the project root or overlaps the skill, a target
that is or passes through a symlink leading out of the project, a hook
configuration that is not valid JSON of the expected shape, damaged block
markers...). A refusal happens before the first write; one caused by the
command line alone is a usage error (exit 64), one caused by the state of the
files exits 1. Acting then runs the planned steps in order; every write is
atomic and keeps the file's mode, and a failure midway reports which steps
completed. The report is printed only after the last write, so a closed
output (``engramory init ... | head -1``) cannot stop an install half-way.

Uninstall removes only what init wrote and can prove is its own: the marked
block, a dedicated rules file that still carries Engramory's header, the skill
payload (file by file), the handlers carrying Engramory's fingerprint, init's
ignore rules, and a ``.gitignore`` or a folder whose marker records that init
created it, once nothing else is in it. It never touches the memory store or
its ``.gitignore`` entry.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from engramory.continuity.state import EXPLICIT
from engramory.hosts.base import BLOCK, IGNORE_ALWAYS, Host
from engramory.hosts.registry import HOSTS, hook_hosts
from engramory.install import blocks, selfcommand
from engramory.install.layout import Layout, expand, resolve
from engramory.store import automemory
from engramory.store.discovery import INDEX_NAME, git_work_tree
from engramory.util import fsutil
from engramory.util.errors import EngramoryError
from engramory.util.resources import ShippedDocumentMissingError, shipped_path
from engramory.util.textfmt import plural
from engramory.wiring import hookconfig, hookfiles, hookwiring, managed
from engramory.wiring.hookfiles import ConfigEdit, EditRefusal, HookContext, OwnedFile
from engramory.wiring.refusal import FlagRefusal, Refusal

SKILL_FILES = ("SKILL.md", "rules-snippet.md", "PORTING.md", "AGENT-SETUP.md", "LICENSE")
SKILL_DIRS = ("templates",)
SKILL_FINGERPRINT = ("SKILL.md", "rules-snippet.md", "AGENT-SETUP.md")


PAST = {
    "create": "created",
    "update": "updated",
    "keep": "kept",
    "skip": "skipped",
    "remove": "removed",
    "leave": "left",
    "replace": "replaced",
    "use": "using",
    "check": "checked",
}


@dataclass
class Step:
    """One line of the plan: what happens to ``target`` and why, and how to do it.

    ``problem`` marks a step that leaves something for the user to fix by hand
    (the run then exits 1, after doing everything else).
    """

    verb: str
    target: str
    why: str = ""
    run: Callable[[], None] | None = None
    problem: bool = False
    fix: str = ""  # for a problem that is not a file left by hand: what to do (closing line)

    def line(self, dry_run: bool) -> str:
        verb = f"would {self.verb}" if dry_run else PAST.get(self.verb, self.verb)
        why = f" ({self.why})" if self.why else ""
        return f"  {verb:<15} {self.target}{why}"


@dataclass
class Plan:
    """The steps of one run, and what to tell the user afterwards."""

    title: str
    steps: list[Step] = field(default_factory=list)
    closing: list[str] = field(default_factory=list)


HookRunner = Callable[[list[str], bytes, Path, float], "subprocess.CompletedProcess[bytes]"]
HOOK_CHECK_TIMEOUT = 10.0


def run_hook(
    argv: list[str], payload: bytes, cwd: Path, timeout: float
) -> subprocess.CompletedProcess[bytes]:
    """Run a registered hook command once (argv form, no shell) with ``payload`` on stdin.

    Raises ``OSError`` when it cannot start and ``subprocess.TimeoutExpired``.
    """
    return subprocess.run(
        argv, input=payload, capture_output=True, cwd=cwd, timeout=timeout, check=False
    )


@dataclass(frozen=True)
class Options:
    """The command-line choices of ``init`` (``hook_runner``: how the installed guard is run
    once to check it; default :func:`run_hook`; ``host_options``: host-specific values such
    as ``kiro_agent``)."""

    install_skill: bool = False
    install_hooks: bool = False
    hook_python: str | None = None
    force: bool = False
    mode: str | None = None
    guard_only: bool = False
    command: selfcommand.AgentCommand | None = None  # decided by plan_init when not given
    hook_runner: HookRunner | None = None
    host_options: dict[str, str] = field(default_factory=dict)


# --- small file helpers -------------------------------------------------------------


def _lexists(path: Path) -> bool:
    return os.path.lexists(path)


def _absent(path: Path) -> bool:
    """Nothing to uninstall at ``path``: missing, a dangling symlink, or a directory.

    Any other error (a symlink loop, a directory that may not be searched) is
    not absence: reading the file then refuses with that error.
    """
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _read_text(path: Path, what: str, limit: int = 16 * 1024 * 1024) -> str | None:
    """A target file's text (``None`` when absent); refuses non-regular or non-UTF-8 files,
    and files over ``limit`` bytes."""
    if not _lexists(path):
        return None
    real = Path(os.path.realpath(path))
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return None  # a dangling symlink: written as a new file at its target
    except OSError as exc:  # a symlink loop, a name too long, a directory we may not search...
        raise Refusal(f"cannot read {path}: {exc.strerror or exc}; nothing was written") from None
    if not stat.S_ISREG(mode):
        raise Refusal(f"{path} is not a regular file; {what} cannot be written there")
    try:
        return fsutil.read_bounded(real, limit).decode("utf-8")
    except fsutil.FileTooLargeError as exc:
        raise Refusal(
            f"{path} is {exc.size} bytes, over the {limit}-byte read limit for a file that "
            f"{what} would go into; nothing was written"
        ) from None
    except UnicodeDecodeError:
        raise Refusal(f"{path} is not UTF-8 text; {what} cannot be merged into it") from None
    except OSError as exc:
        raise Refusal(f"cannot read {path}: {exc.strerror or exc}; nothing was written") from None


def _write(path: Path, text: str, mode: int | None = None) -> Callable[[], None]:
    """An atomic write of ``text`` to ``path`` (through a symlink, to its target); ``mode``
    sets the permission bits (default: the file's own, or 0644 less the umask)."""

    def run() -> None:
        real = Path(os.path.realpath(path))
        real.parent.mkdir(parents=True, exist_ok=True)
        fsutil.write_atomic(real, text.encode("utf-8"), mode)

    return run


def _delete(path: Path, stop: Path) -> Callable[[], None]:
    """Delete a file, then the directories above it that it leaves empty (up to ``stop``)."""

    def run() -> None:
        os.unlink(path)
        _prune_empty(path.parent, stop)

    return run


def _delete_recorded(path: Path, folder: bool) -> Callable[[], None]:
    """Delete a file, then (``folder``: init recorded that it created it) its folder when that
    is left empty; no other folder, whatever it holds."""

    def run() -> None:
        os.unlink(path)
        if folder:
            try:
                path.parent.rmdir()
            except OSError:  # not empty (or gone): left as it is
                pass

    return run


def _prune_empty(directory: Path, stop: Path) -> None:
    stop = Path(os.path.abspath(stop))
    current = Path(os.path.abspath(directory))
    while current != stop and fsutil.is_within(str(current), str(stop)):
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


def _shown(layout: Layout, path: Path) -> str:
    """A path for the report: relative to the project root when inside it."""
    try:
        return path.relative_to(layout.root).as_posix() or "."
    except ValueError:
        return str(path)


# --- checks shared by init and uninstall ---------------------------------------------


def _check_contained(layout: Layout, path: Path | None, what: str) -> None:
    """Refuse a target that is, or passes through, a symlink leading out of the project.

    A target named outside the project on purpose (``--memory-root`` elsewhere,
    ``$CODEX_HOME``) is the user's choice and is not refused.
    """
    if path is None:
        return
    nominal = os.path.abspath(path)
    if not fsutil.is_within(nominal, os.path.abspath(layout.containment)):
        return
    real = os.path.realpath(path)
    root = os.path.realpath(layout.containment)
    if not fsutil.is_within(real, root):
        raise Refusal(
            f"{what} {path} resolves to {real}, outside {layout.containment}: it is or passes "
            "through a symlink leading out of the project; nothing was written"
        )


def _overlap(a: Path, b: Path) -> bool:
    ra, rb = os.path.realpath(a), os.path.realpath(b)
    return fsutil.is_within(ra, rb) or fsutil.is_within(rb, ra)


def _check_store_placement(layout: Layout) -> None:
    """Refuse a store where the command line put it wrongly (a usage error)."""
    if os.path.realpath(layout.store) == os.path.realpath(layout.root):
        raise FlagRefusal(
            f"the memory root {layout.store} is the project root itself: pass a directory "
            "inside or outside the project, e.g. --memory-root .engramory-memory"
        )
    if layout.rules is not None and fsutil.is_within(
        os.path.realpath(layout.rules), os.path.realpath(layout.store)
    ):
        raise FlagRefusal(f"the rules file {layout.rules} would be inside the memory store")
    refusal = layout.spec.store_refusal(layout.root, layout.store)
    if refusal is not None:
        raise FlagRefusal(refusal)


# --- init -------------------------------------------------------------------------------


def _check_flags(layout: Layout, options: Options) -> None:
    """Refuse flag combinations this host cannot take (usage errors, exit 64)."""
    spec, host = layout.spec, layout.host
    if (
        options.install_hooks
        and layout.global_
        and spec.installs_hooks
        and not _global_hooks(layout)
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


def _check_sources(layout: Layout, options: Options) -> None:
    names = [blocks.READER_SNIPPET if layout.reader else blocks.WRITER_SNIPPET]
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


def _store_step(layout: Layout) -> Step:
    index = layout.store / INDEX_NAME
    shown = _shown(layout, index)
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
    return Step("create", shown, "from templates/MEMORY.md", _write(index, template))


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
    return Step("create", str(index), why, _write(index, template))


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


IgnoreEdit = Callable[[str], tuple[str, str]]


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


def _hook_config_ignore(layout: Layout, hooks: HookPlan | None) -> IgnoreEdit | None:
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
    hook_config = _hook_config_ignore(layout, hooks)
    if hook_config is not None:
        edits.append(hook_config)
    edits += _artifact_ignores(layout, artifacts or [])
    if not edits:
        return [Step("skip", ".gitignore", skipped)] if skipped is not None else []
    path = layout.root / ".gitignore"
    _check_contained(layout, path, ".gitignore")
    original = _read_text(path, "the ignore entry")
    text, changed, kept = original or "", [], []
    for edit in edits:
        new, detail = edit(text)
        (changed if new != text else kept).append(detail)
        text = new
    shown = _shown(layout, path)
    if text == (original or ""):
        return [Step("keep", shown, "; ".join([*kept, *([skipped] if skipped else [])]))]
    if original is None and skipped is not None:
        text = managed.mark_created(text)  # only rules uninstall takes back: it may delete it
    verb = "update" if _lexists(path) else "create"
    why = "; ".join([*changed, *([skipped] if skipped else [])])
    return [Step(verb, shown, why, _write(path, text))]


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
    _check_contained(layout, skill, "the skill directory")
    if _overlap(skill, layout.store):
        raise FlagRefusal(
            f"the memory store {layout.store} and the skill directory {skill} overlap: "
            "keep the store outside the skill"
        )
    shown = _shown(layout, skill)
    if _lexists(skill) and not skill.is_dir():
        raise Refusal(f"{skill} exists and is not a directory")
    if skill.is_dir() and any(skill.iterdir()):
        if not options.force:
            return Step("keep", shown, "an existing copy; --force replaces it")
        return Step("replace", shown, "the protocol documents (--force)", _copy_skill(skill))
    return Step("create", shown, "SKILL.md and the protocol documents", _copy_skill(skill))


def _python(options: Options) -> str:
    python = os.path.abspath(os.path.expanduser(options.hook_python or sys.executable))
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        refusal = FlagRefusal if options.hook_python else Refusal
        raise refusal(
            f"the hook interpreter {python} is not an executable file: pass --hook-python "
            "with the absolute path of a Python 3.9+ interpreter"
        )
    return python


def _guard_script(layout: Layout) -> str:
    """The guard script's absolute path ("" for a host without a guard)."""
    if not layout.spec.pre_write_hook:
        return ""
    return str(shipped_path(hookwiring.GUARD_SCRIPT).resolve())


def _wanted_groups(layout: Layout, options: Options) -> dict[str, object]:
    python = _python(options)
    if options.guard_only:
        return layout.spec.guard_only_groups(python, _guard_script(layout))
    sync = str(shipped_path(hookwiring.SYNC_SCRIPT).resolve())
    store = str(layout.store.resolve())
    mode = options.mode or EXPLICIT
    return layout.spec.hook_groups(python, _guard_script(layout), sync, store, mode)


def _load_hook_config(
    path: Path, command: str, form: hookconfig.HookFormat
) -> tuple[str | None, hookconfig.Document]:
    """The hook configuration's text (``None`` when absent) and its tree; refuses a bad one."""
    text = _read_text(path, "the hooks", hookconfig.MAX_BYTES)
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


def _plan_hooks(layout: Layout, options: Options) -> HookPlan | None:
    """Read and merge the hook configuration once; refuses before anything is written."""
    if not options.install_hooks or layout.hook_config is None:
        return None
    path = layout.hook_config
    _check_contained(layout, path, "the hook configuration")
    if fsutil.is_within(os.path.realpath(path), os.path.realpath(layout.store)):
        raise Refusal(f"the hook configuration {path} would be inside the memory store")
    text, document = _load_hook_config(path, "init", layout.spec.hook_format)
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


def _hooks_step(layout: Layout, hooks: HookPlan | None) -> Step | None:
    if hooks is None:
        return None
    shown = _shown(layout, hooks.path)
    what = _hooks_what(layout, hooks.events)
    if hooks.text is not None and hooks.current == hooks.merged:
        return Step("keep", shown, f"already registered: {what}")
    verb = "update" if hooks.text is not None else "create"
    return Step(verb, shown, what, _write(hooks.path, hooks.new_text))


def _global_hooks(layout: Layout) -> bool:
    """Whether this host has user-wide hooks Engramory writes (for ``--global``)."""
    if layout.spec.hook_config is not None:
        return layout.hook_config is not None
    return bool(layout.spec.global_hook_files)


def hook_context(
    layout: Layout, options: Options, python: str | None = None, windows: bool | None = None
) -> HookContext:
    """What a host's :meth:`~engramory.hosts.base.Host.hook_artifacts` builds its files from."""
    return HookContext(
        python=python or _python(options),
        guard=_guard_script(layout),
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


def _artifacts(
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
        _check_contained(layout, artifact.path, "the hook file")
        if fsutil.is_within(os.path.realpath(artifact.path), os.path.realpath(layout.store)):
            raise Refusal(f"the hook file {artifact.path} would be inside the memory store")
    return artifacts


def _owned_file_step(layout: Layout, artifact: OwnedFile) -> Step:
    shown = _shown(layout, artifact.path)
    text = _read_text(artifact.path, "the hook")
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
    return Step(verb, shown, artifact.what, _write(artifact.path, artifact.text, mode))


def _mode_of(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def _config_edit_step(layout: Layout, artifact: ConfigEdit) -> Step:
    shown = _shown(layout, artifact.path)
    text = _read_text(artifact.path, "the hook")
    try:
        new = artifact.install(text)
    except EditRefusal as exc:
        raise Refusal(f"{artifact.path}: {exc}; nothing was written") from None
    if text == new:
        return Step("keep", shown, f"already registered: {artifact.what}")
    verb = "update" if text is not None else "create"
    return Step(verb, shown, artifact.what, _write(artifact.path, new))


def _artifact_steps(artifacts: list[object], layout: Layout) -> list[Step]:
    """One step per hook file; every refusal is raised here, before anything is written."""
    steps = []
    for artifact in artifacts:
        if isinstance(artifact, OwnedFile):
            steps.append(_owned_file_step(layout, artifact))
        elif isinstance(artifact, ConfigEdit):
            steps.append(_config_edit_step(layout, artifact))
    return steps


def _artifact_ignores(layout: Layout, artifacts: list[object]) -> list[IgnoreEdit]:
    """Ignore each owned hook file that names machine-local paths (project installs in git)."""
    if layout.global_ or git_work_tree(layout.root) is None:
        return []
    edits: list[IgnoreEdit] = []
    for artifact in artifacts:
        if isinstance(artifact, OwnedFile) and artifact.ignore:
            edits.append(_ignore_edit(layout, artifact.path))
    return edits


def _artifact_ignore_comment(layout: Layout) -> str:
    return f"# Engramory {layout.spec.label} hook (absolute machine-local paths, not portable)"


def _ignore_edit(layout: Layout, path: Path) -> IgnoreEdit:
    rule = path.relative_to(layout.root).as_posix()
    comment = _artifact_ignore_comment(layout)

    def edit(text: str) -> tuple[str, str]:
        if managed.has_gitignore_entry(text, rule):
            return text, f"already ignores {rule}"
        return managed.add_ignore_rule(text, "/" + rule, comment), f"ignore /{rule}"

    return edit


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
    _check_contained(layout, path, "the rules file")
    shown = _shown(layout, path)
    wanted = _rules_text(layout, options)
    current = _read_text(path, "the rules")
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
        return Step(verb, shown, "the Engramory block", _write(path, new))
    if current == wanted:
        return Step("keep", shown, "already current")
    if current is not None and blocks.MANAGED_HEADER not in current:
        if not options.force:
            raise Refusal(
                f"{path} exists and was not written by Engramory: move it aside, or pass "
                "--force to replace it"
            )
        return Step(
            "replace", shown, "a file not written by Engramory (--force)", _write(path, wanted)
        )
    verb = "create" if current is None else "update"
    return Step(verb, shown, "Engramory's rules file", _write(path, wanted))


def _check_no_opposite_block(layout: Layout) -> None:
    """Refuse to put a reader block beside a writer block of the same host (or the reverse).

    The two contradict each other (one says the agent writes the store, the
    other that it never does), so the user uninstalls one first.
    """
    if layout.rules_kind != BLOCK or layout.rules is None:
        return
    text = _read_text(layout.rules, "the rules")
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


def plan_init(layout: Layout, options: Options) -> Plan:
    """Every step of ``engramory init`` for this layout; raises :class:`Refusal` first."""
    _check_flags(layout, options)
    _check_sources(layout, options)
    _check_store_placement(layout)
    _check_contained(layout, layout.rules, "the rules file")
    _check_no_opposite_block(layout)
    if options.command is None and not layout.reader:
        options = replace(options, command=selfcommand.current())
    if not layout.reader:
        _check_contained(layout, layout.store, "the memory store")
    hooks = _plan_hooks(layout, options)
    artifacts = _artifacts(layout, options) if options.install_hooks else []
    steps = [
        _store_step(layout),
        *_gitignore_steps(layout, hooks, artifacts),
        _skill_step(layout, options),
        _hooks_step(layout, hooks),
        *_artifact_steps(artifacts, layout),
        _rules_step(layout, options),
        _guard_check_step(layout, options, hooks, artifacts),
    ]
    plan = Plan(f"engramory init {layout.host}: {layout.spec.label} in {layout.root}")
    plan.steps = [step for step in steps if step is not None]
    plan.closing = _init_closing(layout, options)
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
    hooks = _plan_hooks(layout, options) if layout.hook_config is not None else None
    artifacts = _artifacts(layout, options) if hooks is None else []  # a config of its own
    steps = [
        _hooks_step(layout, hooks),
        *_artifact_steps(artifacts, layout),
        _guard_check_step(layout, options, hooks, artifacts),
    ]
    plan = Plan(f"engramory init {layout.host} --global --guard-only: {layout.spec.label}")
    plan.steps = [step for step in steps if step is not None]
    plan.closing = [
        "only the index guard is registered: no rules block, no store, no skill, no "
        "continuity hooks",
        f"every project's {INDEX_NAME} ({layout.spec.label}'s own memory index included) is "
        "held under its caps before each write; after each shell command, the index found "
        "from the command's directory is measured",
        f"interpreter baked into the hooks: {_python(options)}",
        *_verification_lines(layout, options),
        f"next: start a new {layout.spec.label} session so the settings load. To remove the "
        f"guard: `engramory uninstall {layout.spec.name} --global`.",
    ]
    return plan


# --- the installed guard: checked once, and a command to verify it ---------------------------


def _guard_argv(layout: Layout, options: Options) -> list[str]:
    """The index guard's command as the host runs it (without ``--index`` when guard-only)."""
    store = None if options.guard_only else str(layout.store.resolve())
    return layout.spec.guard_argv(_python(options), _guard_script(layout), store)


def _guard_check_step(
    layout: Layout, options: Options, hooks: HookPlan | None, artifacts: list[object] | None = None
) -> Step | None:
    """Run the registered guard once on a harmless call (a shell write of another file).

    It must exit 0 and print nothing; anything else means the hook will not
    work (an interpreter that cannot start, a package that fails to load), and
    the step becomes a problem (exit 1).
    """
    if (hooks is None and not artifacts) or not layout.spec.pre_write_hook:
        return None
    argv = _guard_argv(layout, options)
    probe = os.path.join(str(layout.root), "engramory-hook-check.txt")
    command = f"echo ok > {shlex.quote(probe)}"
    payload = json.dumps(layout.spec.shell_payload(command, str(layout.root))).encode("utf-8")
    shown = _shown(layout, hooks.path if hooks is not None else artifacts[0].path)
    step = Step("check", shown, "ran the registered guard once on a harmless call")

    def run() -> None:
        problem = _guard_problem(argv, payload, layout.root, options.hook_runner or run_hook)
        if problem is None:
            step.why = "the registered guard ran once on a harmless call: silent, exit 0"
            return
        step.verb, step.problem = "PROBLEM", True
        step.why = f"the index guard hook will NOT work: {problem}"
        step.fix = (
            f"the guard in {shown} will not work ({problem}); fix it (e.g. pass --hook-python "
            "with a working Python 3.9+), then run init again; exit 1"
        )

    step.run = run
    return step


def _guard_problem(argv: list[str], payload: bytes, cwd: Path, runner: HookRunner) -> str | None:
    """Why the guard command failed its check on a harmless call (``None``: it passed)."""
    try:
        done = runner(argv, payload, cwd, HOOK_CHECK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"it did not answer within {HOOK_CHECK_TIMEOUT:g} s"
    except OSError as exc:
        return f"{argv[0]} cannot start ({exc.strerror or exc})"
    if done.returncode != 0:
        return f"it exited with {done.returncode}{_said(done.stderr)}"
    if done.stdout.strip():
        return f"it answered a harmless call with output{_said(done.stdout)}"
    return None


def _said(output: bytes, limit: int = 200) -> str:
    """The last non-blank line of a command's output, shortened, for a message ("" if none)."""
    tail = output[-4096:].decode("utf-8", "replace")
    lines = [line for line in tail.splitlines() if line.strip()]
    if not lines:
        return ""
    last = lines[-1].strip()
    return f": {last[:limit]}{'…' if len(last) > limit else ''}"


def _verification_lines(layout: Layout, options: Options) -> list[str]:
    """A command that pipes a shell write of the index, in the host's shape, into the guard."""
    argv = _guard_argv(layout, options)
    store = layout.root / "any-project" if options.guard_only else layout.store.resolve()
    index = os.path.join(str(store), INDEX_NAME)
    payload = layout.spec.shell_payload(f"echo x >> {shlex.quote(index)}", str(layout.root))
    command = hookwiring.verification_command(argv, payload, windows=os.name == "nt")
    return [
        "verify the guard (a shell write of the index, as the host would send it; the answer "
        "must be a deny):",
        f"  {command}",
    ]


# --- a guard that runs twice: a host that also runs another host's hook config -------------


def _holds_guard(layout: Layout, path: Path, form: hookconfig.HookFormat) -> bool:
    """Whether the hook config at ``path`` holds Engramory's index guard (unreadable: no)."""
    if _absent(path):
        return False
    try:
        _check_contained(layout, path, "a hook configuration")
        document = hookconfig.load(_read_text(path, "the hooks", hookconfig.MAX_BYTES), form)
    except (Refusal, hookconfig.HookConfigError):
        return False
    return hookconfig.count_ours(document.data(), form, form.guard) > 0


def _config_path(layout: Layout, value: str) -> Path:
    """A host-table path: under the home (``~``), else under the project root."""
    return expand(value) if value.startswith("~") else layout.root / value


def _double_guard_lines(layout: Layout) -> list[str]:
    """Say so when the guard now runs twice: this host also runs a config that holds it, or
    another host runs the config this one writes while its own holds it too."""
    spec = layout.spec
    lines = []
    for owner_name, value in spec.runs_hooks_of:
        owner = HOSTS.get(owner_name)
        try:
            path = _config_path(layout, value)
        except EngramoryError:  # no usable home: nothing there to run twice
            continue
        if owner is not None and _holds_guard(layout, path, owner.hook_format):
            lines.append(_double_guard_line(spec, owner, path, value))
    if layout.global_ or layout.hook_config is None:
        return lines
    for other in HOSTS.values():
        if other.hook_config is None or other.name == spec.name:
            continue
        runs_ours = any(
            owner_name == spec.name
            and not value.startswith("~")
            and layout.root / value == layout.hook_config
            for owner_name, value in other.runs_hooks_of
        )
        theirs = layout.root / other.hook_config
        if runs_ours and _holds_guard(layout, theirs, other.hook_format):
            lines.append(
                _double_guard_line(other, spec, layout.hook_config, spec.hook_config or "")
            )
    return lines


def _double_guard_line(runner: Host, owner: Host, path: Path, shown: str) -> str:
    hint = f", {runner.double_guard_hint}" if runner.double_guard_hint else ""
    return (
        f"note: {runner.label} also runs {owner.label}'s hooks in {shown} ({path}), which "
        f"hold Engramory's index guard too: with both installed, {runner.label} runs the "
        "guard twice on each matching call (the same verdict; harmless but slower). To keep "
        f"one, uninstall the other (`engramory uninstall {owner.name}` or `engramory "
        f"uninstall {runner.name}`){hint}."
    )


NATIVE_RULES = {
    automemory.OVERRIDE: "override",
    automemory.SETTINGS: "settings file",
    automemory.DEFAULT: "default",
}


def _native_lines(layout: Layout) -> list[str]:
    """Which folder ``--native`` chose and by which rule; the other candidates, if any."""
    native = layout.native
    assert native is not None
    label = layout.spec.label
    why = {
        automemory.OVERRIDE: f"${automemory.OVERRIDE_ENV} names it",
        automemory.SETTINGS: f"{automemory.SETTING} in {native.settings_file}",
        automemory.DEFAULT: "the folder the host derives from the project's path",
    }.get(native.rule, native.rule)
    lines = [
        f"store: {label}'s own memory folder {layout.store} "
        f"(rule: {NATIVE_RULES.get(native.rule, native.rule)} - {why})"
    ]
    if len(native.candidates) > 1:
        names = ", ".join(str(c) for c in native.candidates)
        lines.append(
            f"note: the project's folder name is over 200 characters, so the host adds a hash "
            f"that differs between its builds; {len(native.candidates)} folders share the first "
            f"200 characters ({names}): using {layout.store.parent}, whose {INDEX_NAME} changed "
            "last. To use another, run init with --memory-root FOLDER instead of --native."
        )
    return lines


def _init_closing(layout: Layout, options: Options) -> list[str]:
    store_lines = _native_lines(layout) if layout.native else [f"store: {layout.store}"]
    lines = [*layout.found, *store_lines]
    if layout.reader:
        lines.append(
            f"next: start a new {layout.spec.label} session; it will recall from the store "
            "and never write to it."
        )
        return lines
    command = options.command or selfcommand.AgentCommand(blocks.COMMAND)
    store = selfcommand.quote(str(layout.store), windows=os.name == "nt")
    lines.append(
        f"next: start a new {layout.spec.label} session so the rules load; after editing the "
        f"index, run `{command.text} check {store}`."
    )
    if command.fallback:
        lines.append(_command_warning(command))
    if options.install_hooks:
        lines.append(f"interpreter baked into the hooks: {_python(options)}")
    if options.install_hooks and layout.spec.pre_write_hook:
        lines += _verification_lines(layout, options)
        lines += _double_guard_lines(layout)
    lines += layout.spec.closing_lines(options.install_hooks)
    return lines


def _command_warning(command: selfcommand.AgentCommand) -> str:
    """Why the rules name a long command, and how to get the short one."""
    cure = "pipx install <your Engramory checkout or wheel>"
    if command.script_dir:
        cure += f", or put {command.script_dir} on the agent's PATH"
    return (
        f"warning: {command.fallback}, so the rules tell the agent to run `{command.text}`. "
        f"For a plain `engramory` in every shell: {cure}; then run init again."
    )


# --- uninstall ----------------------------------------------------------------------------


def _uninstall_rules(layout: Layout) -> list[Step]:
    paths = [layout.rules] if layout.rules is not None else []
    paths += [p for p in layout.candidates if p not in paths]
    steps = []
    for path in paths:
        if path is None or _absent(path):
            if path == layout.rules:
                steps.append(Step("skip", _shown(layout, path), "absent"))
            continue
        _check_contained(layout, path, "the rules file")
        step = _uninstall_rules_file(layout, path)
        if step is not None:
            steps.append(step)
    return steps


def _uninstall_rules_file(layout: Layout, path: Path) -> Step | None:
    shown = _shown(layout, path)
    text = _read_text(path, "the rules") or ""
    if layout.rules_kind != BLOCK and path == layout.rules:
        if blocks.MANAGED_HEADER not in text:
            return Step("leave", shown, "not written by Engramory (no Engramory header)")
        return Step("remove", shown, "Engramory's rules file", _delete(path, layout.root))
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
        return Step("remove", shown, "it held only the Engramory block", _delete(path, layout.root))
    return Step("update", shown, "removed the Engramory block", _write(path, remaining))


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
    shown = _shown(layout, skill)
    if not skill.is_dir():
        return Step("skip", shown, "absent")
    _check_contained(layout, skill, "the skill directory")
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
        _prune_empty(skill, layout.root if not layout.home_install else layout.containment)

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
    shown = _shown(layout, path)
    if _absent(path):
        return [Step("skip", shown, "absent")]
    _check_contained(layout, path, "the hook configuration")
    form = layout.spec.hook_format
    _, document = _load_hook_config(path, "uninstall", form)
    steps = []
    if hookconfig.count_ours(document.data(), form) == 0:
        steps.append(Step("skip", shown, "no Engramory handlers"))
    else:
        document.remove()
        layout.spec.clean_hook_config(document)
        if hookconfig.is_empty(document.data(), form):
            steps.append(
                Step(
                    "remove", shown, "it held only Engramory's handlers", _delete(path, layout.root)
                )
            )
        else:
            steps.append(
                Step(
                    "update",
                    shown,
                    "removed Engramory's handlers, kept the rest",
                    _write(path, document.text()),
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
    _check_contained(layout, ignore, ".gitignore")
    original = _read_text(ignore, "the ignore rule") or ""
    text, dropped = original, []
    for rule, comment in rules:
        if managed.has_ignore_rule(text, rule, comment):
            text = managed.remove_ignore_rule(text, rule, comment)
            dropped.append(rule)
    what = f"dropped the {', '.join(dropped)} rule{'s' if len(dropped) > 1 else ''}"
    shown = _shown(layout, ignore)
    if managed.only_created_marker(text):  # also when init itself took its last rule back
        why = "init created it and nothing else is left"
        why = f"{what}; {why}" if dropped else why
        return Step("remove", shown, why, _delete(ignore, layout.root))
    if not dropped:
        return None
    return Step("update", shown, what, _write(ignore, text))


def _uninstall_owned_file(layout: Layout, artifact: OwnedFile) -> list[Step]:
    shown = _shown(layout, artifact.path)
    if _absent(artifact.path):
        return [Step("skip", shown, "absent")]
    text = _read_text(artifact.path, "the hook") or ""
    if not hookfiles.is_owned(text):
        return [Step("leave", shown, "not Engramory's (no marker line): left as it is")]
    return [Step("remove", shown, artifact.what, _delete(artifact.path, layout.root))]


def _artifact_ignore_rules(layout: Layout, artifacts: list[object]) -> list[IgnoreRule]:
    """The ignore rule of each owned hook file a project install git-ignores."""
    if layout.global_:
        return []
    comment = _artifact_ignore_comment(layout)
    return [
        (artifact.path.relative_to(layout.root).as_posix(), comment)
        for artifact in artifacts
        if isinstance(artifact, OwnedFile) and artifact.ignore
    ]


def _uninstall_config_edit(layout: Layout, artifact: ConfigEdit) -> list[Step]:
    shown = _shown(layout, artifact.path)
    if _absent(artifact.path):
        return [Step("skip", shown, "absent")]
    try:
        text = _read_text(artifact.path, "the hook") or ""
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
                    _delete(artifact.path, layout.root),
                )
            ]
        folder = artifact.created_folder(text)
        why = "it held only Engramory's hooks" + (
            "; then its folder, which init created, if nothing else is in it" if folder else ""
        )
        return [Step("remove", shown, why, _delete_recorded(artifact.path, folder))]
    return [
        Step("update", shown, f"removed {artifact.what}, kept the rest", _write(artifact.path, new))
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
    return _artifacts(layout, options, os.path.abspath(sys.executable), uninstall=True)


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


# --- acting --------------------------------------------------------------------------------


def execute(plan: Plan, dry_run: bool, out: Callable[[str], None]) -> int:
    """Carry out the plan (unless ``dry_run``), then print the report; returns the exit code.

    Every write happens before the first line is printed, so a closed output
    cannot stop the run half-way. Exit 1 when a step failed or left something
    to fix by hand.
    """
    report, code = _act(plan, dry_run)
    for line in report:
        out(line)
    return code


def _act(plan: Plan, dry_run: bool) -> tuple[list[str], int]:
    """Run the steps in order; the report's lines and the exit code."""
    report = [plan.title + (" (dry run: nothing will be written)" if dry_run else "")]
    for step in plan.steps:
        if not dry_run and step.run is not None:
            try:
                step.run()
            except OSError as exc:
                report.append(f"  FAILED          {step.target}: {exc.strerror or exc}")
                report.append(
                    "stopped: the steps above this line completed; nothing after it was done. "
                    "Every write is atomic, so no file is half-written; fix the problem and run "
                    "the same command again."
                )
                return report, 1
        report.append(step.line(dry_run))
    report += plan.closing
    problems = [step.target for step in plan.steps if step.problem and not step.fix]
    if problems:
        report.append(
            f"{'would leave' if dry_run else 'left'} {len(problems)} file(s) to fix by hand "
            f"({', '.join(problems)}): see LEFT UNTOUCHED above; exit 1"
        )
    report += [step.fix for step in plan.steps if step.problem and step.fix]
    if dry_run:
        report.append("(--dry-run: nothing was written)")
    return report, 1 if any(step.problem for step in plan.steps) else 0
