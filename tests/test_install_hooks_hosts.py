"""`init --install-hooks` for the hosts that get the index guard beside Claude Code: Codex CLI,
Gemini CLI, GitHub Copilot and Cursor -- their hook files, the check of the installed guard, the
command that verifies it, and a guard registered twice."""

from __future__ import annotations

import base64
import json
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from installkit import SCHEMAS, digest, refused

from engramory.hosts import registry
from engramory.hosts.base import (
    BLOCK,
    DENY_HOOK,
    DENY_HOOK_UNVERIFIED,
    DOCUMENTED,
    RULES_AND_CHECK,
    Host,
)
from engramory.install import verify
from engramory.install.apply import execute
from engramory.install.init import plan_init
from engramory.install.layout import resolve as resolve_layout
from engramory.install.steps import Options
from engramory.wiring import hookconfig, hookwiring
from engramory.wiring.refusal import FlagRefusal

HOSTS = registry.HOSTS
GUARDED = ("codex", "gemini", "copilot", "cursor")
HOOK_FILE = {
    "claude": ".claude/settings.local.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "copilot": ".github/hooks/engramory.json",
    "cursor": ".cursor/hooks.json",
}
# A config of the user's, in the host's own format; each mentions Engramory somewhere that does
# not make a handler ours (another field, another word).
USER_CONFIG: dict[str, dict] = {
    "codex": {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "command", "command": "lint", "statusMessage": "engramory lint"}
                    ],
                }
            ]
        }
    },
    "gemini": {
        "ui": {"theme": "GitHub"},
        "hooks": {
            "BeforeTool": [
                {
                    "matcher": "write_file",
                    "hooks": [
                        {
                            "type": "command",
                            "name": "my-check",
                            "command": "lint",
                            "description": hookwiring.GUARD_NAME,
                            "timeout": 5000,
                        }
                    ],
                }
            ]
        },
    },
    "copilot": {
        "version": 1,
        "hooks": {
            "preToolUse": [
                {
                    "type": "command",
                    "bash": "./scripts/lint.sh",
                    "powershell": "./scripts/lint.ps1",
                    "cwd": "engramory_index_guard.py",
                    "timeoutSec": 5,
                }
            ]
        },
    },
    "cursor": {
        "version": 1,
        "hooks": {
            "preToolUse": [{"command": "./hooks/format.sh", "matcher": "Write"}],
            "afterFileEdit": [{"command": "./hooks/engramory_index_guard.py.sh"}],
        },
    },
}
STYLES = {
    "2-space": lambda c: json.dumps(c, indent=2) + "\n",
    "tabs": lambda c: json.dumps(c, indent="\t") + "\n",
    "crlf": lambda c: (json.dumps(c, indent=4) + "\n").replace("\n", "\r\n"),
    "compact": lambda c: json.dumps(c, separators=(",", ":")),
}


def hook_path(project: Path, host: str) -> Path:
    return project / HOOK_FILE[host]


def ours_by_place(host: str, config: dict) -> dict[tuple[str, str], int]:
    """How many of our handlers each (event, matcher) holds."""
    form = HOSTS[host].hook_format
    counts: dict[tuple[str, str], int] = {}
    for event, entries in config["hooks"].items():
        for entry in entries:
            if form.shape == hookconfig.FLAT:
                handlers, matcher = [entry], entry.get("matcher", "")
            else:
                handlers, matcher = entry["hooks"], entry.get("matcher", "")
            for handler in handlers:
                if form.marker.owns(handler):
                    counts[event, matcher] = counts.get((event, matcher), 0) + 1
    return counts


def validate(host: str, config: dict) -> None:
    """Against the host's published schema, where there is one."""
    schema = {
        "claude": "claude-code-settings",
        "codex": "codex-hooks",
        "gemini": "gemini-cli-settings",
    }.get(host)
    if schema is not None:
        jsonschema.validate(config, json.loads((SCHEMAS / f"{schema}.schema.json").read_text()))


# --- init -> re-init -> uninstall, over a config of the user's ------------------------------


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("host", GUARDED)
def test_hooks_merge_stay_single_and_uninstall_to_the_original_bytes(
    cli, project: Path, host: str, style: str
) -> None:
    path = hook_path(project, host)
    path.parent.mkdir(parents=True)
    original = STYLES[style](USER_CONFIG[host]).encode()
    path.write_bytes(original)
    first = cli("init", host, "--install-hooks")
    assert first.code == 0, first
    installed = path.read_bytes()
    for _ in range(2):
        again = cli("init", host, "--install-hooks")
        assert again.code == 0 and path.read_bytes() == installed
        assert "already registered" in again.out
    assert (b"\r\n" in installed) == (b"\r\n" in original)
    assert (b"\n" in installed) == (b"\n" in original)
    config = json.loads(installed)
    validate(host, config)
    counts = ours_by_place(host, config)
    assert counts and set(counts.values()) == {1}, counts  # one of ours per event and matcher
    for event, entries in USER_CONFIG[host]["hooks"].items():
        for entry in entries:
            assert entry in config["hooks"][event]  # the user's handlers, untouched
    assert cli("uninstall", host).code == 0
    assert path.read_bytes() == original


@pytest.mark.parametrize("host", GUARDED)
def test_a_hook_file_init_created_is_deleted_again(cli, project: Path, host: str) -> None:
    before = digest(project)
    assert cli("init", host, "--install-hooks", "--install-skill").code == 0
    config = json.loads(hook_path(project, host).read_text())
    validate(host, config)
    if HOSTS[host].hook_format.shape == hookconfig.FLAT:
        assert list(config) == ["version", "hooks"] and config["version"] == 1
    assert cli("uninstall", host).code == 0
    after = digest(project, skip=(".git", ".engramory-memory"))
    assert {k: v for k, v in after.items() if k != ".gitignore"} == before
    assert HOOK_FILE[host] not in (project / ".gitignore").read_text()


@pytest.mark.parametrize("host", GUARDED)
def test_uninstall_keeps_what_the_user_added_after_init(cli, project: Path, host: str) -> None:
    assert cli("init", host, "--install-hooks").code == 0
    path = hook_path(project, host)
    config = json.loads(path.read_text())
    config["theirs"] = {"added": True}
    path.write_text(json.dumps(config, indent=2) + "\n")
    assert cli("uninstall", host).code == 0
    left = json.loads(path.read_text())
    assert left["theirs"] == {"added": True}
    assert hookconfig.count_ours(left, HOSTS[host].hook_format) == 0


def test_the_guard_lines_each_host_registers(cli, project: Path) -> None:
    for host in GUARDED:
        assert cli("init", host, "--install-hooks").code == 0
    index = str(project / ".engramory-memory" / "MEMORY.md")
    codex = json.loads(hook_path(project, "codex").read_text())["hooks"]["PreToolUse"][0]
    assert codex["matcher"] == "^(apply_patch|Bash)$"
    argv = shlex.split(codex["hooks"][0]["command"])
    assert argv[1:3] == ["-I", "-S"] and argv[4:] == ["--host", "codex", "--index", index]
    assert Path(argv[0]).is_file() and Path(argv[3]).name == "engramory_index_guard.py"
    gemini = json.loads(hook_path(project, "gemini").read_text())["hooks"]["BeforeTool"][0]
    assert gemini["matcher"] == "^(write_file|replace|run_shell_command)$"
    handler = gemini["hooks"][0]
    assert handler["name"] == hookwiring.GUARD_NAME and handler["timeout"] == 10_000  # ms
    gemini_argv = [*argv[:4], "--host", "gemini", "--index", index]
    assert handler["command"] == shlex.join(gemini_argv) + " || true"
    copilot = json.loads(hook_path(project, "copilot").read_text())["hooks"]["preToolUse"][0]
    assert copilot["matcher"] == "create|edit|apply_patch|bash|powershell"
    assert copilot["timeoutSec"] == 10 and copilot["bash"].endswith(" || true")
    assert copilot["powershell"].endswith("exit 0")
    cursor = json.loads(hook_path(project, "cursor").read_text())["hooks"]
    assert [h["matcher"] for h in cursor["preToolUse"]] == ["Write", "StrReplace", "ApplyPatch"]
    assert [set(h) for h in cursor["beforeShellExecution"]] == [{"command"}]
    assert shlex.split(cursor["beforeShellExecution"][0]["command"])[4:6] == ["--host", "cursor"]


@pytest.mark.parametrize("host", ["gemini", "copilot"])
def test_a_missing_interpreter_cannot_block_a_host_that_blocks_on_failure(
    project: Path, host: str
) -> None:
    groups = HOSTS[host].hook_groups("/no/such/python", "/no/guard.py", "s", "/st", "explicit")
    handler = next(iter(groups.values()))
    handler = handler["hooks"][0] if isinstance(handler, dict) else handler[0]
    line = handler.get("command") or handler["bash"]
    assert line.endswith(" || true")
    done = subprocess.run(["/bin/sh", "-c", line], capture_output=True, timeout=30, check=False)
    assert done.returncode == 0  # without `|| true` it would be 127, which blocks every call


# --- Windows lines -------------------------------------------------------------------------


def decoded(line: str) -> str:
    """The PowerShell script of a ``powershell.exe -EncodedCommand`` line."""
    return base64.b64decode(line.rsplit(" ", 1)[1]).decode("utf-16-le")


def test_windows_lines_exit_0_where_a_failure_blocks() -> None:
    args = ("C:\\Py\\python.exe", "C:\\e\\hooks\\engramory_index_guard.py", "s", "C:\\st", "x")
    gemini = HOSTS["gemini"].hook_groups(*args, windows=True)["BeforeTool"]["hooks"][0]
    script = decoded(gemini["command"])
    assert script.startswith("try { ") and script.endswith("} catch { }; exit 0")
    assert "'--host' 'gemini'" in script and "$LASTEXITCODE" not in script
    codex = HOSTS["codex"].hook_groups(*args, windows=True)["PreToolUse"]["hooks"][0]
    assert decoded(codex["commandWindows"]).endswith("; exit $LASTEXITCODE")  # Codex fails open
    copilot = HOSTS["copilot"].hook_groups(*args)["preToolUse"][0]
    assert copilot["powershell"] == (
        "try { & 'C:\\Py\\python.exe' '-I' '-S' 'C:\\e\\hooks\\engramory_index_guard.py' "
        "'--host' 'copilot' '--index' 'C:\\st"
        + ("\\" if sys.platform == "win32" else "/")
        + "MEMORY.md' } catch { }; exit 0"
    )


def test_an_encoded_windows_line_is_still_recognised_as_ours() -> None:
    hooks = "C:\\e\\hooks\\"
    args = ("C:\\Py\\python.exe", hooks + "engramory_index_guard.py", hooks + "engramory_sync.py")
    groups = HOSTS["cursor"].hook_groups(*args, "C:\\st", "x", windows=True)
    form = HOSTS["cursor"].hook_format
    document = hookconfig.load(None, form)
    document.merge(groups)
    document.merge(groups)
    assert hookconfig.count_ours(document.data(), form) == 9  # 4 guards, 2 after, 3 continuity
    assert "engramory_index_guard" not in document.text()  # only inside the encoded script
    assert "engramory_sync" not in document.text()
    document.remove()
    assert hookconfig.is_empty(document.data(), form)


# --- the installed guard: run once, and a command to verify it ------------------------------


def verification_line(out: str) -> str:
    """The verification command init printed (the line after its introduction)."""
    lines = out.splitlines()
    return lines[next(i for i, line in enumerate(lines) if line.startswith("verify the guard")) + 1]


SHELL_WRITE = {
    "claude": lambda c, cwd: {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": c},
        "cwd": cwd,
    },
    "codex": lambda c, cwd: {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": c},
        "cwd": cwd,
    },
    "gemini": lambda c, cwd: {
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": c},
        "cwd": cwd,
    },
    "copilot": lambda c, cwd: {
        "toolName": "bash",
        "toolArgs": json.dumps({"command": c}),
        "cwd": cwd,
    },
    "cursor": lambda c, cwd: {"hook_event_name": "beforeShellExecution", "command": c, "cwd": cwd},
}


def registered_argv(project: Path, host: str) -> list[str]:
    """The guard's argv, read back from the host's hook file."""
    config = json.loads(hook_path(project, host).read_text())["hooks"]
    if host == "claude":
        handler = config["PreToolUse"][0]["hooks"][0]
        return [handler["command"], *handler["args"]]
    line = {
        "codex": lambda: config["PreToolUse"][0]["hooks"][0]["command"],
        "gemini": lambda: config["BeforeTool"][0]["hooks"][0]["command"],
        "copilot": lambda: config["preToolUse"][0]["bash"],
        "cursor": lambda: config["beforeShellExecution"][0]["command"],
    }[host]()
    return shlex.split(line.removesuffix(" || true"))


@pytest.mark.parametrize("host", ["claude", *GUARDED])
def test_init_prints_a_verification_command_in_the_hosts_shape(
    cli, project: Path, host: str
) -> None:
    result = cli("init", host, "--install-hooks")
    assert result.code == 0, result
    line = verification_line(result.out)
    words = shlex.split(line)
    assert words[:2] == ["printf", "%s\\n"] and words[3] == "|"
    index = project / ".engramory-memory" / "MEMORY.md"
    expected = SHELL_WRITE[host](f"echo x >> {index}", str(project))
    assert json.loads(words[2]) == expected
    assert words[4:] == registered_argv(project, host)
    done = subprocess.run(["/bin/sh", "-c", line], capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr  # the guard always exits 0 (the deny is its output)


class Runner:
    """A stand-in for the real run: records each call and answers as told."""

    def __init__(self, answer: object) -> None:
        self.answer = answer
        self.calls: list[tuple[list[str], bytes, Path, float]] = []

    def __call__(self, argv: list[str], payload: bytes, cwd: Path, timeout: float):
        self.calls.append((argv, payload, cwd, timeout))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


def done(code: int, out: bytes = b"", err: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.CompletedProcess([], code, out, err)


@pytest.mark.parametrize("host", ["claude", *GUARDED])
def test_the_installed_guard_is_run_once_on_a_harmless_call(
    cli, project: Path, host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = Runner(done(0))
    monkeypatch.setattr(verify, "run_hook", runner)
    result = cli("init", host, "--install-hooks")
    assert result.code == 0, result
    [(argv, payload, cwd, timeout)] = runner.calls
    assert argv == registered_argv(project, host) and cwd == project and timeout == 10
    probe = project / "engramory-hook-check.txt"
    assert json.loads(payload) == SHELL_WRITE[host](f"echo ok > {probe}", str(project))
    assert f"checked         {HOOK_FILE[host]} (the registered guard ran once" in result.out
    assert not probe.exists()


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (
            done(1, err=b"Traceback...\nModuleNotFoundError: x\n"),
            "exited with 1: ModuleNotFoundError: x",
        ),
        (
            done(0, out=b'{"decision": "deny"}\n'),
            'answered a harmless call with output: {"decision"',
        ),
        (subprocess.TimeoutExpired(["py"], 10), "did not answer within 10 s"),
        (
            FileNotFoundError(2, "No such file or directory"),
            "cannot start (No such file or directory)",
        ),
    ],
)
def test_a_guard_that_fails_its_check_is_a_problem(
    cli, project: Path, monkeypatch: pytest.MonkeyPatch, answer: object, why: str
) -> None:
    monkeypatch.setattr(verify, "run_hook", Runner(answer))
    result = cli("init", "gemini", "--install-hooks")
    assert result.code == 1
    assert (
        "PROBLEM         .gemini/settings.json (the index guard hook will NOT work: " in result.out
    )
    assert why in result.out
    assert "run init again; exit 1" in result.out.splitlines()[-1]
    assert hook_path(project, "gemini").is_file()  # everything else was done


def test_a_broken_interpreter_is_caught_by_the_real_run(cli, project: Path, tmp_path: Path) -> None:
    python = tmp_path / "python3"
    python.write_text("#!/bin/sh\necho 'cannot start: bad interpreter' >&2\nexit 3\n")
    python.chmod(0o755)
    result = cli("init", "cursor", "--install-hooks", "--hook-python", str(python))
    assert result.code == 1
    assert "will NOT work: it exited with 3: cannot start: bad interpreter" in result.out


def test_dry_run_runs_nothing(cli, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = Runner(done(1))
    monkeypatch.setattr(verify, "run_hook", runner)
    result = cli("init", "copilot", "--install-hooks", "--dry-run")
    assert result.code == 0 and runner.calls == []
    assert "would check     .github/hooks/engramory.json" in result.out
    assert "verify the guard" in result.out
    assert not hook_path(project, "copilot").exists()


def test_the_runner_is_an_option_of_the_plan(project: Path) -> None:
    runner = Runner(done(0, out=b"surprise"))
    layout = resolve_layout(HOSTS["codex"], False, project_root=str(project))
    options = Options(install_hooks=True, hook_python=sys.executable, hook_runner=runner)
    lines: list[str] = []
    assert execute(plan_init(layout, options), False, lines.append) == 1
    assert len(runner.calls) == 1 and any("surprise" in line for line in lines)


# --- the hosts table --------------------------------------------------------------------------


def test_the_hosts_table_says_how_the_cap_is_enforced(cli) -> None:
    rows = {row["host"]: row for row in json.loads(cli("hosts", "--format", "json").out)}
    expected = dict.fromkeys(rows, RULES_AND_CHECK)
    expected.update(
        dict.fromkeys(
            (
                "claude",
                "codex",
                "gemini",
                "qwen",
                "copilot",
                "cline",
                "kiro",
                "opencode",
                "hermes",
            ),
            DENY_HOOK,
        )
    )
    expected.update(dict.fromkeys(("cursor", "openclaw"), DENY_HOOK_UNVERIFIED))
    assert {name: row["cap_enforcement"] for name, row in rows.items()} == expected
    for row in rows.values():
        assert row["pre_write_hook"] == (row["cap_enforcement"] != RULES_AND_CHECK)
    text = cli("hosts").out
    kinds = list(expected.values())
    assert text.count("  cap enforcement: deny hook\n") == kinds.count(DENY_HOOK)
    unverified = kinds.count(DENY_HOOK_UNVERIFIED)
    assert text.count("  cap enforcement: deny hook (unverified payload)\n") == unverified
    assert text.count("  cap enforcement: rules + check\n") == kinds.count(RULES_AND_CHECK)
    help_text = " ".join(cli("init", "--help").out.split())
    assert "gemini: the index guard and continuity hooks in .gemini/settings.json" in help_text
    assert "codex: the index guard and continuity hooks in .codex/hooks.json" in help_text
    assert "hermes: the index guard and continuity hooks in $HERMES_HOME/config.yaml" in help_text


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["copilot", "cursor"])
def test_global_hooks_are_refused_for_project_only_hosts(cli, project: Path, host: str) -> None:
    refused(
        cli,
        project,
        *("init", host, "--global", "--install-hooks"),
        match="has no user-wide hook configuration Engramory writes; install the hooks per project",
        code=64,
    )


def test_global_hooks_without_a_user_wide_hook_config_are_refused(project: Path) -> None:
    probe = Host(
        name="probe",
        label="Probe",
        rules="PROBE.md",
        global_rules="~/PROBE.md",
        rules_kind=BLOCK,
        skill=None,
        global_skill=None,
        verified=DOCUMENTED,
        enforcement="rules",
        hook_config=".probe/hooks.json",
    )
    layout = resolve_layout(probe, False, global_=True)
    with pytest.raises(FlagRefusal, match="no user-wide hook configuration"):
        plan_init(layout, Options(install_hooks=True))


@pytest.mark.parametrize("host", GUARDED)
@pytest.mark.parametrize("content", ["{not json", '{"hooks": []}', '{"hooks": {"x": [5]}}'])
def test_a_malformed_hook_file_is_refused(cli, project: Path, host: str, content: str) -> None:
    path = hook_path(project, host)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    refused(cli, project, "init", host, "--install-hooks", match=HOOK_FILE[host])
    refused(cli, project, "uninstall", host, match=HOOK_FILE[host])


# --- the git-ignore rule of a shared hook file --------------------------------------------------


def test_a_shared_settings_file_is_ignored_only_while_it_holds_nothing_but_ours(
    cli, project: Path
) -> None:
    assert cli("init", "gemini", "--install-hooks").code == 0
    assert "/.gemini/settings.json" in (project / ".gitignore").read_text()
    path = hook_path(project, "gemini")
    config = json.loads(path.read_text())
    config["model"] = {"name": "gemini-2.5-pro"}
    path.write_text(json.dumps(config, indent=2) + "\n")
    result = cli("init", "gemini", "--install-hooks")
    assert "stop ignoring .gemini/settings.json: it holds other hooks or settings" in result.out
    assert "/.gemini/settings.json" not in (project / ".gitignore").read_text()


# --- a guard registered twice --------------------------------------------------------------------


def notes(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("note: ")]


@pytest.mark.parametrize("host", ["copilot", "cursor"])
def test_a_host_that_also_runs_claudes_guard_says_so(cli, project: Path, host: str) -> None:
    assert cli("init", "claude", "--install-hooks").code == 0
    [line] = notes(cli("init", host, "--install-hooks").out)
    label = HOSTS[host].label
    assert line.startswith(
        f"note: {label} also runs Claude Code's hooks in .claude/settings.local.json"
    )
    assert "runs the guard twice" in line and f"`engramory uninstall {host}`" in line
    assert ("include third-party configs" in line) == (host == "cursor")
    [back] = notes(cli("init", "claude", "--install-hooks").out)  # and from the other side
    assert back == line
    assert notes(cli("init", "codex", "--install-hooks").out) == []


def test_vs_code_reads_the_users_claude_settings_too(cli, home: Path, project: Path) -> None:
    assert cli("init", "claude", "--global", "--install-hooks").code == 0
    [line] = notes(cli("init", "copilot", "--install-hooks").out)
    assert f"~/.claude/settings.json ({home / '.claude' / 'settings.json'})" in line
    assert notes(cli("init", "cursor", "--install-hooks").out) == []  # Cursor reads the project's


def test_no_note_without_our_guard_in_the_other_file(cli, project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": "x",
                                    "statusMessage": hookwiring.START_STATUS,
                                }
                            ]
                        }
                    ]
                }
            }
        )
    )
    assert notes(cli("init", "copilot", "--install-hooks").out) == []
    settings.write_text("{broken")
    assert notes(cli("init", "cursor", "--install-hooks").out) == []  # unreadable: no guess
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": "x",
                                    "statusMessage": hookwiring.GUARD_STATUS,
                                }
                            ]
                        }
                    ]
                }
            }
        )
    )
    assert len(notes(cli("init", "cursor", "--install-hooks").out)) == 1


def test_no_home_is_no_reason_to_fail_the_double_guard_check(
    cli, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOME")
    result = cli("init", "copilot", "--install-hooks")
    assert result.code == 0, result
    assert notes(result.out) == []


def test_the_verification_command_for_windows_is_powershell() -> None:
    payload = {"command": "echo it's >> C:\\m\\MEMORY.md"}
    line = hookwiring.verification_command(["C:\\py.exe", "-I", "g.py"], payload, windows=True)
    assert line == (
        "'{\"command\": \"echo it''s >> C:\\\\m\\\\MEMORY.md\"}' | & 'C:\\py.exe' '-I' 'g.py'"
    )
    posix = hookwiring.verification_command(["/py", "g.py"], payload, windows=False)
    assert shlex.split(posix)[2] == json.dumps(payload)
