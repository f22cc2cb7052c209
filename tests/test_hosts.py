"""The host registry and the behaviour of single hosts: `engramory hosts`, host refusals."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import sys
from pathlib import Path

import pytest
from installkit import WRITE_HOSTS, refused

from conftest import REPO
from engramory import dialects
from engramory.hosts import claude, registry
from engramory.hosts.base import BLOCK, DOCUMENTED, IGNORE_ALWAYS, Host
from engramory.install.apply import execute
from engramory.install.init import plan_init
from engramory.install.layout import Layout
from engramory.install.layout import resolve as resolve_layout
from engramory.install.steps import Options
from engramory.wiring import hookconfig, hookwiring
from engramory.wiring.hookwiring import GUARD_STATUS
from engramory.wiring.refusal import FlagRefusal, Refusal


def test_hermes_skill_needs_global(cli, project: Path, home: Path) -> None:
    refused = cli("init", "hermes", "--install-skill")
    assert refused.code == 64 and "--global" in refused.err
    assert cli("init", "hermes", "--global", "--install-skill").code == 0
    assert (home / ".hermes" / "skills" / "engramory" / "SKILL.md").is_file()
    assert "BEGIN ENGRAMORY HERMES" in (home / ".hermes" / "SOUL.md").read_text()


def test_cline_legacy_single_file(cli, project: Path) -> None:
    (project / ".clinerules").write_text("old rules\n")
    refused(cli, project, "init", "cline", match="single file")


def test_kiro_store_under_steering(cli, project: Path) -> None:
    refused(
        cli,
        project,
        "init",
        "kiro",
        "--memory-root",
        ".kiro/steering/memory",
        match="steering",
        code=64,
    )


def test_hosts_table_matches_init(cli, project: Path) -> None:
    rows = json.loads(cli("hosts", "--format", "json").out)
    assert [row["host"] for row in rows] == WRITE_HOSTS or sorted(
        r["host"] for r in rows
    ) == WRITE_HOSTS
    for row in rows:
        host = row["host"]
        root = project / host
        root.mkdir()
        (root / ".git").mkdir()
        extra = ["--install-skill"] if row["skill"] else []
        if row["hook_config"]:
            extra.append("--install-hooks")
        result = cli("init", host, "--project-root", str(root), *extra)
        assert result.code == 0, (host, result.err)
        if host != "hermes":
            assert (root / row["rules"]).is_file(), host
        if row["skill"]:
            assert (root / row["skill"] / "SKILL.md").is_file(), host
        if row["hook_config"]:
            assert (root / row["hook_config"]).is_file(), host
        assert row["wiring"] in ("verified", "documented")
    text = cli("hosts").out
    for row in rows:
        assert f"{row['host']} ({row['label']})" in text


def test_hermes_refuses_when_a_parent_context_file_wins(cli, project: Path) -> None:
    sub = project / "service"
    sub.mkdir()
    (project / ".hermes.md").write_text("# parent\n")
    refused(cli, project, "init", "hermes", "--project-root", str(sub), match="parent folder")


def test_hermes_refuses_to_hide_cursor_rules(cli, project: Path) -> None:
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / ".cursor" / "rules" / "team.mdc").write_text("x\n")
    refused(cli, project, "init", "hermes", match="cursor/rules")
    (project / "AGENTS.md").write_text("# agents\n")
    assert cli("init", "hermes").code == 0


# --- the registry and the Host interface ---------------------------------------------------------

INSTALL_MODULES = [
    *sorted((REPO / "engramory" / "install").glob("*.py")),
    *sorted((REPO / "engramory" / "wiring").glob("*.py")),
    REPO / "engramory" / "commands" / "install.py",
]


@pytest.mark.parametrize("path", INSTALL_MODULES, ids=lambda p: p.name)
def test_the_installer_never_names_a_host(path: Path) -> None:
    """What one host does differently is its Host's business: no host name in the installer."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = sorted(
        {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in registry.HOSTS
        }
    )
    assert named == [], f"{path.name} names {named}: move that behaviour into engramory/hosts/"


def test_every_host_module_is_registered() -> None:
    """A module under engramory/hosts/ that defines a host is in the registry, once."""
    registered = list(registry.HOSTS.values())
    assert len({id(host) for host in registered}) == len(registered)
    for info in pkgutil.iter_modules([str(REPO / "engramory" / "hosts")]):
        module = importlib.import_module(f"engramory.hosts.{info.name}")
        host = getattr(module, "HOST", None)
        if host is not None:
            assert registry.HOSTS[host.name] is host, info.name
    assert registry.HOSTS["claude"] is claude.HOST


def test_lookup_by_name_and_reader_form() -> None:
    assert registry.resolve("codex") == (registry.HOSTS["codex"], False)
    assert registry.resolve("codex-reader") == (registry.HOSTS["codex"], True)
    with pytest.raises(KeyError):
        registry.resolve("nobody")
    names = registry.host_names()
    assert names[: len(registry.HOSTS)] == list(registry.HOSTS)
    assert names[len(registry.HOSTS) :] == [f"{name}-reader" for name in registry.HOSTS]
    assert registry.hook_hosts() == [
        name for name, host in registry.HOSTS.items() if host.installs_hooks
    ]


def test_the_hook_dialects_match_the_hosts_that_get_hooks() -> None:
    """The guard's and the sync hook's ``--host`` choices come from the host data."""
    assert registry.guard_hosts() == [
        "claude",
        "codex",
        "gemini",
        "qwen",
        "cursor",
        "copilot",
        "cline",
        "kiro",
        "opencode",
        "openclaw",
        "hermes",
    ]
    assert registry.lifecycle_hosts() == [
        "claude",
        "codex",
        "gemini",
        "qwen",
        "cursor",
        "copilot",
        "cline",
        "kiro",
        "opencode",
        "openclaw",
        "hermes",
    ]
    # the hook paths keep their own light lists (they must not import the registry)
    assert set(dialects.DIALECTS) == set(registry.guard_hosts())
    assert set(dialects.DIALECTS) == set(registry.lifecycle_hosts())
    for name in registry.lifecycle_hosts():
        host = registry.HOSTS[name]
        if host.hook_config is None:  # hook files (hook_artifacts): tested with each host
            continue
        assert set(host.hook_groups("py", "g", "s", "/st", "explicit")) >= set(host.lifecycle_hooks)


def test_a_data_only_host_has_the_neutral_behaviour() -> None:
    host = registry.HOSTS["windsurf"]
    assert type(host) is Host
    assert host.missing_skill() == "Windsurf has no documented skill directory"
    assert host.store_refusal(Path("/p"), Path("/p/.engramory-memory")) is None
    assert host.project_refusal(Path("/p"), ()) is None
    assert host.rules_addendum("m") == host.hooks_trust_note() == ""
    assert host.closing_lines(True) == ()
    assert host.hook_groups("py", "", "sync", "/s", "explicit") == {}
    assert host.hook_ignore_rule() is None


class Probe(Host):
    """A host that is not in the registry: its behaviour must reach init all the same."""

    def missing_skill(self) -> str:
        return "Probe keeps its skills elsewhere"

    def store_refusal(self, root: Path, store: Path) -> str | None:
        return "probe: not there" if store.name == "forbidden" else None

    def project_refusal(self, root: Path, candidates: tuple[Path, ...]) -> str | None:
        return "probe: this project hides the rules" if (root / "HIDE").exists() else None

    def rules_addendum(self, memory: str) -> str:
        return f"Probe also reads {memory}/extra."

    def hooks_trust_note(self) -> str:
        return "Probe asks first."

    def closing_lines(self, install_hooks: bool) -> tuple[str, ...]:
        return ("probe: trust the hooks",) if install_hooks else ("probe: done",)

    def hook_groups(
        self, python: str, guard: str, sync: str, store: str, mode: str
    ) -> dict[str, dict[str, object]]:
        handler = {"type": "command", "command": "probe", "statusMessage": GUARD_STATUS}
        return {"Stop": {"hooks": [handler]}}

    def clean_hook_config(self, document: hookconfig.Document) -> None:
        document.drop_key("legacy")


PROBE = Probe(
    name="probe",
    label="Probe",
    rules="PROBE.md",
    global_rules=None,
    rules_kind=BLOCK,
    skill=None,
    global_skill=None,
    verified=DOCUMENTED,
    enforcement="rules",
    hook_config=".probe/hooks.json",
    hook_config_ignore=IGNORE_ALWAYS,
    lifecycle_hooks=("Stop",),
)


def probe_layout(project: Path, **kwargs: str) -> Layout:
    return resolve_layout(PROBE, False, project_root=str(project), **kwargs)


def test_the_installer_asks_the_host_for_its_refusals(project: Path) -> None:
    skill = Options(install_skill=True)
    with pytest.raises(FlagRefusal, match="Probe keeps its skills elsewhere"):
        plan_init(probe_layout(project), skill)
    with pytest.raises(FlagRefusal, match="probe: not there"):
        plan_init(probe_layout(project, memory_root="forbidden"), Options())
    (project / "HIDE").write_text("")
    with pytest.raises(Refusal, match="hides the rules") as refusal:
        plan_init(probe_layout(project), Options())
    assert not isinstance(refusal.value, FlagRefusal)


def test_the_installer_takes_the_hosts_text_hooks_and_cleanup(project: Path) -> None:
    hooks = project / ".probe" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"legacy": "x", "hooks": {}}\n')
    options = Options(install_hooks=True, hook_python=sys.executable)
    plan = plan_init(probe_layout(project), options)
    assert plan.closing[-1] == "probe: trust the hooks"
    assert execute(plan, False, lambda line: None) == 0
    rules = (project / "PROBE.md").read_text()
    assert "Probe also reads .engramory-memory/extra." in rules
    assert "Probe asks first." in rules
    assert json.loads(hooks.read_text()) == {
        "hooks": {"Stop": [{"hooks": [PROBE.hook_groups("", "", "", "", "")["Stop"]["hooks"][0]]}]}
    }
    assert "/.probe/hooks.json" in (project / ".gitignore").read_text()
    assert "# Engramory Probe hooks" in (project / ".gitignore").read_text()


def test_codex_hooks_carry_a_powershell_line_on_windows() -> None:
    codex = registry.HOSTS["codex"]
    argv = ["C:\\Py\\python.exe", "-I", "-S", "s.py", "hook", "--host", "codex"]
    argv += ["--mode", "explicit", "--", "C:\\store"]
    groups = codex.hook_groups(
        "C:\\Py\\python.exe", "", "s.py", "C:\\store", "explicit", windows=True
    )
    handler = groups["SessionStart"]["hooks"][0]
    assert handler["commandWindows"] == hookwiring.powershell_line(argv)
    plain = codex.hook_groups(
        "C:\\Py\\python.exe", "", "s.py", "C:\\store", "explicit", windows=False
    )
    assert "commandWindows" not in plain["SessionStart"]["hooks"][0]
