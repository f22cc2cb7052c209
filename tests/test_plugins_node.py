"""Engramory's OpenCode and OpenClaw plugins, run under Node by a stand-in host
(tests/pluginharness.mjs), and their install round trip.

The plugin tested is the text ``init --install-hooks`` writes (the real interpreter, guard,
sync script and a throw-away store baked in); the failure cases bake in a guard that is
missing, too slow, or answers garbage. Skipped without ``node``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hookkit import lines
from installkit import digest, refused

from conftest import REPO
from engramory.hosts import opencode
from engramory.hosts.registry import HOSTS
from engramory.util.resources import shipped_path
from engramory.wiring import hookfiles
from engramory.wiring.hookfiles import HookContext

NODE = shutil.which("node")
HARNESS = REPO / "tests" / "pluginharness.mjs"
GUARD = REPO / "hooks" / "engramory_index_guard.py"
SYNC = REPO / "hooks" / "engramory_sync.py"
TEMPLATE = {
    "opencode": opencode.PLUGIN_TEMPLATE,
    "openclaw": "adapters/openclaw/engramory-guard/index.js",
}
UNIQUE_TAIL = lines(198) + "tail\n"
GROW = "would GROW the memory index"
SHELL = "this shell command would write the memory index"
needs_node = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the plugins run on Node"
)


def context(tmp_path: Path, store: Path) -> HookContext:
    return HookContext(
        python=sys.executable,
        guard=str(GUARD),
        sync=str(SYNC),
        store=str(store),
        mode="explicit",
        root=tmp_path,
        home=tmp_path / "home",
    )


def installed_plugin(host: str, tmp_path: Path, store: Path) -> Path:
    """The plugin's entry exactly as init writes it, as an ES module file."""
    (entry,) = [
        a for a in HOSTS[host].hook_artifacts(context(tmp_path, store)) if a.path.suffix == ".js"
    ]
    path = tmp_path / f"{host}-plugin.mjs"
    path.write_text(entry.text, encoding="utf-8")
    return path


def configured_plugin(host: str, tmp_path: Path, guard: list[str] | None, **extra: object) -> Path:
    """The plugin template with a configuration of the test's (``guard`` None: unconfigured)."""
    template = shipped_path(TEMPLATE[host]).read_text(encoding="utf-8")
    config = (
        None if guard is None else {"guard": guard, "sync": guard, "store": str(tmp_path), **extra}
    )
    text = template if config is None else opencode.plugin_text(template, config)
    path = tmp_path / f"{host}-test-plugin.mjs"
    path.write_text(text, encoding="utf-8")
    return path


def host_calls(plugin: Path, host: str, directory: Path, calls: list[tuple[str, list]]) -> dict:
    """Make ``calls`` (hook name, arguments) on the plugin in a stand-in host; its report."""
    scenario = {"directory": str(directory), "calls": [{"hook": h, "args": a} for h, a in calls]}
    proc = subprocess.run(
        [NODE, str(HARNESS), str(plugin), host],
        input=json.dumps(scenario),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def tool_call(host: str, tool: str, args: dict) -> tuple[str, list]:
    """A tool call as the host hands it to the plugin."""
    if host == "opencode":
        return "tool.execute.before", [
            {"tool": tool, "sessionID": "s1", "callID": "c1"},
            {"args": args},
        ]
    return "before_tool_call", [
        {"toolName": tool, "params": args, "toolCallId": "c1"},
        {"sessionKey": "k1"},
    ]


def blocked(host: str, result: dict) -> str | None:
    """The reason a call was stopped (``None``: it goes ahead)."""
    if host == "opencode":
        assert result.get("returned") is None or "threw" in result
        return result.get("threw")
    assert "threw" not in result  # OpenClaw would block on a throw: the plugin never throws
    returned = result["returned"]
    if returned is None:
        return None
    assert returned["block"] is True and set(returned) == {"block", "blockReason"}
    return returned["blockReason"]


def store_at(tmp_path: Path, index: str) -> Path:
    (tmp_path / "MEMORY.md").write_text(index)
    return tmp_path


PATCH = "*** Begin Patch\n*** Update File: MEMORY.md\n@@\n tail\n+a\n+b\n+c\n*** End Patch\n"
# (host, tool, arguments, the phrase of the reason; "" = the call goes ahead)
CALLS = [
    ("opencode", "write", {"filePath": "MEMORY.md", "content": lines(250)}, GROW),
    ("opencode", "write", {"filePath": "notes.txt", "content": lines(250)}, ""),
    ("opencode", "edit", {"filePath": "MEMORY.md", "oldString": "tail\n", "newString": lines(5), "replaceAll": False}, GROW),
    ("opencode", "edit", {"filePath": "MEMORY.md", "oldString": "tail\n", "newString": ""}, ""),
    ("opencode", "apply_patch", {"patchText": PATCH}, GROW),
    ("opencode", "bash", {"command": "echo x >> MEMORY.md", "description": "append"}, SHELL),
    ("opencode", "shell", {"command": "echo x >> MEMORY.md"}, SHELL),
    ("opencode", "bash", {"command": "ls -la"}, ""),
    ("opencode", "read", {"filePath": "MEMORY.md"}, ""),
    ("openclaw", "write", {"path": "MEMORY.md", "content": lines(250)}, GROW),
    ("openclaw", "write", {"file_path": "notes.txt", "content": lines(250)}, ""),
    ("openclaw", "edit", {"path": "MEMORY.md", "oldText": "tail\n", "newText": lines(5)}, GROW),
    ("openclaw", "apply_patch", {"input": PATCH}, GROW),
    ("openclaw", "exec", {"command": "echo x >> MEMORY.md"}, SHELL),
    ("openclaw", "exec", {"command": "ls -la"}, ""),
    ("openclaw", "read", {"path": "MEMORY.md"}, ""),
]  # fmt: skip


@needs_node
@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_the_installed_plugin_stops_what_the_guard_denies(host: str, tmp_path: Path) -> None:
    store = store_at(tmp_path, UNIQUE_TAIL)
    cases = [(tool, args, phrase) for h, tool, args, phrase in CALLS if h == host]
    report = host_calls(
        installed_plugin(host, tmp_path, store),
        host,
        tmp_path,
        [tool_call(host, tool, args) for tool, args, _ in cases],
    )
    for (tool, args, phrase), result in zip(cases, report["results"]):
        reason = blocked(host, result)
        if phrase:
            assert reason is not None and phrase in reason, (tool, args, result)
        else:
            assert reason is None, (tool, args, result)
    assert report["errors"] == []
    assert (tmp_path / "MEMORY.md").read_text() == UNIQUE_TAIL
    if host == "openclaw":
        assert report["options"]["before_tool_call"] == {
            "matcher": ["write", "edit", "apply_patch", "exec", "bash"]
        }


@needs_node
def test_opencode_tells_the_agent_after_a_shell_call_that_overfilled_the_index(
    tmp_path: Path,
) -> None:
    """tool.execute.after: the arguments tool.execute.before saw are checked after the call,
    and what to undo is added to the tool's output, which the model reads."""
    store = store_at(tmp_path, UNIQUE_TAIL)
    args = {"command": "sh tools/merge.sh"}
    before = tool_call("opencode", "bash", args)
    after = ("tool.execute.after", [before[1][0], {"title": "", "output": "done", "metadata": {}}])
    (tmp_path / "MEMORY.md").write_text(lines(230))  # what the script did
    report = host_calls(installed_plugin("opencode", tmp_path, store), "opencode", tmp_path, [
        before,
        after,
    ])  # fmt: skip
    first, second = report["results"]
    assert blocked("opencode", first) is None and "threw" not in second
    output = second["args"][1]["output"]
    assert output.startswith("done\n\n") and "lines (230 > 200)" in output
    assert report["errors"] == []


@needs_node
def test_openclaw_logs_what_to_undo_after_a_call(tmp_path: Path) -> None:
    store = store_at(tmp_path, UNIQUE_TAIL)
    (tmp_path / "MEMORY.md").write_text(lines(230))
    event = {"toolName": "exec", "params": {"command": "sh tools/merge.sh"}, "result": "ok"}
    report = host_calls(installed_plugin("openclaw", tmp_path, store), "openclaw", tmp_path, [
        ("after_tool_call", [event, {"sessionKey": "k1"}]),
        ("after_tool_call", [{**event, "toolName": "read"}, {"sessionKey": "k1"}]),
    ])  # fmt: skip
    assert [r["returned"] for r in report["results"]] == [None, None]
    assert len(report["warnings"]) == 1 and "lines (230 > 200)" in report["warnings"][0]
    assert report["errors"] == []


def failing_guards() -> list[tuple[str, list[str], dict, str]]:
    python = sys.executable
    return [
        ("missing", ["/nonexistent/engramory-python", "guard.py"], {}, "ENOENT"),
        ("too slow", [python, "-c", "import time; time.sleep(30)"], {"timeout_ms": 400}, "no answer within 400 ms"),
        ("garbage", [python, "-c", "print('not json {')"], {}, "unreadable output"),
        ("not an object", [python, "-c", "print('[1, 2]')"], {}, "unexpected output"),
        ("exits non-zero", [python, "-c", "import sys; sys.exit(3)"], {}, "(3)"),
    ]  # fmt: skip


@needs_node
@pytest.mark.parametrize("host", ["opencode", "openclaw"])
@pytest.mark.parametrize(
    ("guard", "extra", "said"),
    [case[1:] for case in failing_guards()],
    ids=[case[0] for case in failing_guards()],
)
def test_a_failing_guard_lets_calls_through_and_says_so_once(
    host: str, tmp_path: Path, guard: list[str], extra: dict, said: str
) -> None:
    store_at(tmp_path, UNIQUE_TAIL)
    plugin = configured_plugin(host, tmp_path, guard, **extra)
    tool, key = ("bash", "filePath") if host == "opencode" else ("exec", "path")
    calls = [
        tool_call(host, "write", {key: "MEMORY.md", "content": lines(250)}),
        tool_call(host, tool, {"command": "echo x >> MEMORY.md"}),
    ]
    report = host_calls(plugin, host, tmp_path, calls)
    assert [blocked(host, r) for r in report["results"]] == [None, None]
    assert len(report["errors"]) == 1, report["errors"]
    assert "engramory: the index guard did not run" in report["errors"][0]
    assert said in report["errors"][0]


@needs_node
@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_the_unconfigured_template_lets_calls_through_and_says_so_once(
    host: str, tmp_path: Path
) -> None:
    plugin = configured_plugin(host, tmp_path, None)
    key = "filePath" if host == "opencode" else "path"
    calls = [tool_call(host, "write", {key: "MEMORY.md", "content": lines(250)})] * 2
    report = host_calls(plugin, host, tmp_path, calls)
    assert [blocked(host, r) for r in report["results"]] == [None, None]
    assert len(report["errors"]) == 1 and "not configured" in report["errors"][0]


@needs_node
def test_opencode_lifecycle_adds_the_context_and_the_reminder_to_a_compaction(
    tmp_path: Path,
) -> None:
    store = store_at(tmp_path, "- [a](a.md)\n")
    plugin = installed_plugin("opencode", tmp_path, store)
    created = {"event": {"type": "session.created", "properties": {"info": {"id": "ses_1"}}}}
    calls = [
        ("event", [created]),
        ("experimental.session.compacting", [{"sessionID": "ses_1"}, {"context": []}]),
        ("chat.message", [{"sessionID": "ses_1"}, {"parts": [{"type": "text", "text": "fix it"}]}]),
        ("experimental.session.compacting", [{"sessionID": "ses_1"}, {"context": []}]),
        ("event", [{"event": {"type": "file.edited", "properties": {}}}]),
    ]
    report = host_calls(plugin, "opencode", tmp_path, calls)
    assert all("threw" not in r for r in report["results"]) and report["errors"] == []
    clean = report["results"][1]["args"][1]["context"]
    assert len(clean) == 1 and str(store / "MEMORY.md") in clean[0]  # the store's context only
    dirty = report["results"][3]["args"][1]["context"]
    assert len(dirty) == 2 and dirty[0] == clean[0] and "mark-synced" in dirty[1]


@needs_node
def test_openclaw_lifecycle_prepends_the_context_once_and_logs_the_reminder(tmp_path: Path) -> None:
    store = store_at(tmp_path, "- [a](a.md)\n")
    plugin = installed_plugin("openclaw", tmp_path, store)
    ctx = {"sessionKey": "k1", "workspaceDir": str(tmp_path)}
    calls = [
        ("before_prompt_build", [{"prompt": "fix it", "messages": []}, ctx]),
        ("before_prompt_build", [{"prompt": "and this", "messages": []}, ctx]),
        ("before_compaction", [{"messageCount": 3}, ctx]),
        ("before_prompt_build", [{"prompt": "no session"}, {}]),
    ]
    report = host_calls(plugin, "openclaw", tmp_path, calls)
    first, second, compaction, anonymous = report["results"]
    assert str(store / "MEMORY.md") in first["returned"]["prependContext"]
    assert second["returned"] is None and compaction["returned"] is None
    assert anonymous["returned"] is None
    assert len(report["warnings"]) == 1 and "mark-synced" in report["warnings"][0]
    assert report["errors"] == []


# --- install round trip --------------------------------------------------------------------

PLUGIN_FILES = {
    "opencode": [".opencode/plugins/engramory-guard.js"],
    "openclaw": [f".openclaw/extensions/engramory-guard/{name}" for name in ("index.js", "openclaw.plugin.json", "package.json")],
}  # fmt: skip


def args_for(host: str, project: Path) -> list[str]:
    return ["--project-root", str(project)] if host == "openclaw" else []


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_init_reinit_uninstall_round_trip(cli, project: Path, host: str) -> None:
    (project / "AGENTS.md").write_bytes(b"# Ours\r\nKeep this.\r\n")
    (project / ".gitignore").write_text("node_modules/\n")
    before = digest(project)
    first = cli("init", host, "--install-hooks", *args_for(host, project))
    assert first.code == 0, first
    installed = {name: (project / name).read_bytes() for name in PLUGIN_FILES[host]}
    for name, data in installed.items():
        assert hookfiles.is_owned(data.decode()), name
        if name.endswith(".json"):
            json.loads(data)  # the manifests stay plain JSON
    assert "the registered guard ran once on a harmless call: silent, exit 0" in first.out
    again = cli("init", host, "--install-hooks", *args_for(host, project))
    assert again.code == 0
    assert {name: (project / name).read_bytes() for name in PLUGIN_FILES[host]} == installed
    assert again.out.count("already registered") == len(PLUGIN_FILES[host])
    ignore = (project / ".gitignore").read_text()
    assert f"/{PLUGIN_FILES[host][0]}\n" in ignore  # the entry names machine-local paths
    assert cli("uninstall", host, *args_for(host, project)).code == 0
    after = digest(project, skip=(".git", ".engramory-memory"))
    assert {k: v for k, v in after.items() if k != ".gitignore"} == {
        k: v for k, v in before.items() if k != ".gitignore"
    }
    ignore = (project / ".gitignore").read_text()  # the store's entry stays; the plugin's goes
    assert ignore.startswith("node_modules/\n") and PLUGIN_FILES[host][0] not in ignore


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_a_users_own_plugin_of_the_same_name_is_refused(cli, project: Path, host: str) -> None:
    mine = project / PLUGIN_FILES[host][0]
    mine.parent.mkdir(parents=True)
    mine.write_text("export const Mine = async () => ({});\n")
    refused(
        cli,
        project,
        *("init", host, "--install-hooks", *args_for(host, project)),
        match="exists and is not Engramory's",
    )
    assert cli("uninstall", host, *args_for(host, project)).code == 0
    assert mine.read_text() == "export const Mine = async () => ({});\n"


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_dry_run_writes_nothing(cli, project: Path, host: str) -> None:
    before = digest(project.parent)
    result = cli("init", host, "--install-hooks", "--dry-run", *args_for(host, project))
    assert result.code == 0 and PLUGIN_FILES[host][0] in result.out
    assert digest(project.parent) == before


@pytest.mark.parametrize("host", ["opencode", "openclaw"])
def test_global_install_writes_the_plugin_in_the_home(
    cli, home: Path, project: Path, host: str
) -> None:
    assert cli("init", host, "--global", "--install-hooks").code == 0
    folder = {
        "opencode": ".config/opencode/plugins",
        "openclaw": ".openclaw/extensions/engramory-guard",
    }
    written = sorted(p.name for p in (home / folder[host]).iterdir())
    assert written == sorted(Path(name).name for name in PLUGIN_FILES[host])
    assert not (project / ".opencode").exists() and not (project / ".openclaw").exists()
    assert cli("uninstall", host, "--global").code == 0
    assert not (home / folder[host]).exists() or not any((home / folder[host]).iterdir())


def test_the_baked_configuration_cannot_break_out_of_its_literal(tmp_path: Path) -> None:
    hostile = tmp_path / "st\u2028ore\"; process.exit(1); //'`${x}`"
    text = HOSTS["opencode"].hook_artifacts(context(tmp_path, hostile))[0].text
    line = next(line for line in text.splitlines() if line.startswith("const CONFIG = "))
    config = json.loads(line[len("const CONFIG = ") : -1])
    assert config["store"] == str(hostile) and line.isascii()
    with pytest.raises(ValueError, match="placeholder"):
        opencode.plugin_text("no placeholder", {})
