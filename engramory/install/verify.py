"""The installed guard, checked once and verifiable by hand, and ``init``'s closing lines.

The guard is run once on a harmless call (a problem step when it fails); the closing
lines add a command that pipes a write of the index into it, a warning when a host also
runs another host's hook configuration (the guard would run twice) and, for ``--native``,
which of the host's own memory folders became the store and by which rule.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from engramory.hosts.base import Host
from engramory.hosts.registry import HOSTS
from engramory.install import blocks, selfcommand
from engramory.install.files import absent, check_contained, read_target, shown_path
from engramory.install.hooks import HookPlan, guard_script, hook_interpreter
from engramory.install.layout import Layout, expand
from engramory.install.steps import HookRunner, Options, Step
from engramory.store import automemory
from engramory.store.discovery import INDEX_NAME
from engramory.util.errors import EngramoryError
from engramory.wiring import hookconfig, hookwiring
from engramory.wiring.refusal import Refusal

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


def _guard_argv(layout: Layout, options: Options) -> list[str]:
    """The index guard's command as the host runs it (without ``--index`` when guard-only)."""
    store = None if options.guard_only else str(layout.store.resolve())
    return layout.spec.guard_argv(hook_interpreter(options), guard_script(layout), store)


def guard_check_step(
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
    shown = shown_path(layout, hooks.path if hooks is not None else artifacts[0].path)
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


def verification_lines(layout: Layout, options: Options) -> list[str]:
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


def _holds_guard(layout: Layout, path: Path, form: hookconfig.HookFormat) -> bool:
    """Whether the hook config at ``path`` holds Engramory's index guard (unreadable: no)."""
    if absent(path):
        return False
    try:
        check_contained(layout, path, "a hook configuration")
        document = hookconfig.load(read_target(path, "the hooks", hookconfig.MAX_BYTES), form)
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


def init_closing(layout: Layout, options: Options) -> list[str]:
    """What ``init`` says after its steps: the store, what to do next (and why the rules name
    a long command), the hooks' interpreter, how to verify the guard, whether it would run
    twice, then the host's own lines."""
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
        lines.append(f"interpreter baked into the hooks: {hook_interpreter(options)}")
    if options.install_hooks and layout.spec.pre_write_hook:
        lines += verification_lines(layout, options)
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
