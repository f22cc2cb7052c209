"""`--install-hooks`: the handlers each host gets, merged into and removed from its hook config."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import jsonschema
import pytest
from installkit import (
    SCHEMAS,
    digest,
    init,
    refused,
    uninstall,
)


def test_claude_hooks_are_valid_merged_and_removed(cli, project: Path) -> None:
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    theirs = {
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-hook"}]},
                {"matcher": "Write", "hooks": []},
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}],
        },
    }
    settings.write_text(json.dumps(theirs, indent=4) + "\n")
    for _ in range(3):
        assert init(cli, "claude", project, "--install-hooks").code == 0
    config = json.loads(settings.read_text())
    schema = json.loads((SCHEMAS / "claude-code-settings.schema.json").read_text())
    jsonschema.validate(config, schema)
    pre = config["hooks"]["PreToolUse"]
    ours = [
        g
        for g in pre
        if any(h.get("statusMessage", "").startswith("Engramory") for h in g["hooks"])
    ]
    assert len(ours) == 1 and ours[0]["matcher"] == "Write|Edit|MultiEdit|Bash"
    handler = ours[0]["hooks"][0]
    assert os.path.isabs(handler["command"]) and handler["args"][:2] == ["-I", "-S"]
    assert Path(handler["args"][2]).is_file()
    index = str(project / ".engramory-memory" / "MEMORY.md")
    assert handler["args"][3:] == ["--index", index]  # the guard knows the index by identity
    post = config["hooks"]["PostToolUse"][0]["hooks"][0]
    assert post["args"][-1] == index
    assert settings.read_text().startswith('{\n    "permissions"')  # their indentation kept
    assert uninstall(cli, "claude", project).code == 0
    assert json.loads(settings.read_text()) == theirs


def test_claude_hooks_file_of_our_own_is_deleted(cli, project: Path) -> None:
    assert init(cli, "claude", project, "--install-hooks").code == 0
    assert (project / ".claude" / "settings.local.json").is_file()
    assert uninstall(cli, "claude", project).code == 0
    assert not (project / ".claude").exists()


def test_claude_global_install(cli, home: Path, project: Path) -> None:
    result = cli("init", "claude", "--global", "--install-hooks", "--install-skill")
    assert result.code == 0, result.err
    assert "BEGIN ENGRAMORY CLAUDE" in (home / ".claude" / "CLAUDE.md").read_text()
    config = json.loads((home / ".claude" / "settings.json").read_text())
    jsonschema.validate(
        config, json.loads((SCHEMAS / "claude-code-settings.schema.json").read_text())
    )
    assert (home / ".claude" / "skills" / "engramory" / "SKILL.md").is_file()
    assert (home / ".engramory-memory" / "MEMORY.md").is_file()
    assert str(home / ".engramory-memory") in (home / ".claude" / "CLAUDE.md").read_text()
    assert not (project / "CLAUDE.md").exists()
    assert cli("uninstall", "claude", "--global").code == 0
    assert not (home / ".claude").exists()
    assert (home / ".engramory-memory" / "MEMORY.md").is_file()


def test_installed_guard_actually_denies(cli, project: Path) -> None:
    import subprocess

    assert init(cli, "claude", project, "--install-hooks").code == 0
    config = json.loads((project / ".claude" / "settings.local.json").read_text())
    handler = config["hooks"]["PreToolUse"][0]["hooks"][0]
    payload = {
        "tool_name": "Write",
        "tool_input": {
            "file_path": str(project / ".engramory-memory" / "MEMORY.md"),
            "content": "x\n" * 300,
        },
    }
    proc = subprocess.run(
        [handler["command"], *handler["args"]],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[1, 2]",
        '{"hooks": []}',
        '{"hooks": {"PreToolUse": {}}}',
        '{"hooks": {"PreToolUse": [{"hooks": ["x"]}]}}',
    ],
)
def test_bad_hook_config(cli, project: Path, content: str) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(content)
    refused(cli, project, "init", "claude", "--install-hooks", match="settings.local.json")


def codex_config(project: Path) -> dict:
    return json.loads((project / ".codex" / "hooks.json").read_text())


def ours(config: dict, event: str) -> list[dict]:
    return [
        h
        for g in config["hooks"].get(event, [])
        for h in g["hooks"]
        if h.get("statusMessage", "").startswith("Engramory")
    ]


def test_codex_lifecycle_hooks_are_valid_and_runnable(cli, project: Path) -> None:
    import subprocess

    for _ in range(2):
        result = cli("init", "codex", "--install-hooks", "--mode", "assisted")
        assert result.code == 0, result.err
    assert "/hooks" in result.out  # the trust step is named
    config = codex_config(project)
    jsonschema.validate(config, json.loads((SCHEMAS / "codex-hooks.schema.json").read_text()))
    for name in ("SessionStart", "UserPromptSubmit", "PreCompact"):
        assert len(ours(config, name)) == 1
    assert config["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    command = ours(config, "SessionStart")[0]["command"]
    assert "--mode assisted" in command
    payload = json.dumps(
        {"hook_event_name": "SessionStart", "session_id": "abc", "source": "startup"}
    )
    proc = subprocess.run(
        ["/bin/sh", "-lc", command],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        "mark-synced --session-id=abc"
        in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    )
    assert "Continuity hooks are installed (assisted mode)" in (project / "AGENTS.md").read_text()
    assert "/.codex/hooks.json" in (project / ".gitignore").read_text()


def test_codex_hooks_keep_foreign_handlers_and_drop_the_legacy_description(
    cli, project: Path
) -> None:
    (project / ".codex").mkdir()
    foreign = {"type": "command", "command": "notify-me", "statusMessage": "team hook"}
    legacy = {
        "type": "command",
        "command": "old engramory",
        "statusMessage": "Loading Engramory continuity context",
    }
    original = {
        "description": "Project lifecycle hooks, including Engramory continuity checks.",
        "hooks": {"SessionStart": [{"hooks": [foreign, legacy]}], "Stop": [{"hooks": [foreign]}]},
    }
    (project / ".codex" / "hooks.json").write_text(json.dumps(original))
    assert cli("init", "codex", "--install-hooks").code == 0
    config = codex_config(project)
    assert "description" not in config
    jsonschema.validate(config, json.loads((SCHEMAS / "codex-hooks.schema.json").read_text()))
    handlers = [h for g in config["hooks"]["SessionStart"] for h in g["hooks"]]
    assert foreign in handlers and legacy not in handlers and len(ours(config, "SessionStart")) == 1
    assert len(ours(config, "PreToolUse")) == 1  # the upgrade adds the index guard
    assert config["hooks"]["Stop"] == original["hooks"]["Stop"]
    gitignore = project / ".gitignore"
    assert "/.codex/hooks.json" not in (gitignore.read_text() if gitignore.exists() else "")
    assert cli("uninstall", "codex").code == 0
    left = codex_config(project)
    assert left == {
        "hooks": {"SessionStart": [{"hooks": [foreign]}], "Stop": [{"hooks": [foreign]}]}
    }


def test_codex_ignore_rule_follows_ownership(cli, project: Path) -> None:
    assert cli("init", "codex", "--install-hooks").code == 0
    assert "/.codex/hooks.json" in (project / ".gitignore").read_text()
    config = codex_config(project)
    config["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "teammate"}]}]
    (project / ".codex" / "hooks.json").write_text(json.dumps(config, indent=2))
    result = cli("init", "codex", "--install-hooks")
    assert "stop ignoring" in result.out
    assert "/.codex/hooks.json" not in (project / ".gitignore").read_text()
    (project / ".gitignore").write_text(
        (project / ".gitignore").read_text() + "/.codex/hooks.json\n"
    )
    assert cli("init", "codex", "--install-hooks").code == 0
    assert "/.codex/hooks.json" in (project / ".gitignore").read_text()  # the user's own rule stays


def test_codex_hooks_uninstall_restores_everything(cli, project: Path) -> None:
    before = digest(project)
    assert cli("init", "codex", "--install-hooks", "--install-skill").code == 0
    assert cli("uninstall", "codex").code == 0
    after = digest(project, skip=(".git", ".engramory-memory"))
    gitignore = (project / ".gitignore").read_text()
    assert "/.codex/hooks.json" not in gitignore and "/.engramory-memory/" in gitignore
    assert {k: v for k, v in after.items() if k != ".gitignore"} == before


def test_claude_gets_lifecycle_hooks_beside_the_guard(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks").code == 0
    config = json.loads((project / ".claude" / "settings.local.json").read_text())
    for name in ("PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "PreCompact"):
        assert len(ours(config, name)) == 1, name
    handler = ours(config, "PreCompact")[0]
    assert handler["args"][:2] == ["-I", "-S"] and "--host" in handler["args"]
    assert handler["args"][handler["args"].index("--host") + 1] == "claude"
    assert "Continuity hooks are installed (explicit mode)" in (project / "CLAUDE.md").read_text()
    assert cli("uninstall", "claude").code == 0
    assert not (project / ".claude").exists()


CLAUDE_SETTINGS = ".claude/settings.local.json"


SPELLINGS = ("1e2", "1.0", "1E+1", "12345678901234567890123", "2.5E-3")


NUMBER_KEY = {"claude": "timeout", "codex": "x-weight"}  # Codex wants an integer timeout


def their_settings(host: str) -> dict:
    """A config of the user's (the numbers stand for SPELLINGS, spliced into the text)."""
    key = NUMBER_KEY[host]
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint", key: "1e2"}]}
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "café", key: n} for n in SPELLINGS[1:]]}
        ],
    }
    if host == "codex":
        return {"hooks": hooks}
    return {"permissions": {"allow": ["Bash(ls:*)"], "deny": []}, "hooks": hooks}


def styled(
    indent: int | str | None, separators: tuple[str, str] | None, newline: str, final: bool
) -> dict[str, bytes]:
    """The settings of each host in one style; numbers spelled as in SPELLINGS, é escaped."""
    out = {}
    for host, key in NUMBER_KEY.items():
        text = json.dumps(their_settings(host), indent=indent, separators=separators)
        text = re.sub(key + r'("\s*:\s*)"([^"]+)"', key + r"\1\2", text)
        text = text.replace("\n", newline)
        out[host] = (text + newline if final else text).encode()
    return out


HOOK_STYLES = {
    "compact": styled(None, (",", ":"), "\n", False),
    "one-line-spaced": styled(None, None, "\n", True),
    "2-space": styled(2, None, "\n", True),
    "4-space": styled(4, None, "\n", True),
    "tabs": styled("\t", None, "\n", True),
    "crlf": styled(2, None, "\r\n", True),
    "crlf-no-final-newline": styled(4, None, "\r\n", False),
    "no-final-newline": styled(2, None, "\n", False),
    "spaced-colons": styled(2, (",", " : "), "\n", True),
}


@pytest.mark.parametrize("style", sorted(HOOK_STYLES))
@pytest.mark.parametrize("host", ["claude", "codex"])
def test_hook_config_round_trips_byte_for_byte(cli, project: Path, host: str, style: str) -> None:
    path = project / (CLAUDE_SETTINGS if host == "claude" else ".codex/hooks.json")
    path.parent.mkdir()
    original = HOOK_STYLES[style][host]
    path.write_bytes(original)
    assert cli("init", host, "--install-hooks").code == 0
    installed = path.read_bytes()
    spelled = re.findall(rb'"%s"\s*:\s*([^,}\s]+)' % NUMBER_KEY[host].encode(), installed)
    assert [n for n in spelled if n != b"10"] == [n.encode() for n in SPELLINGS]  # 10: ours
    assert b'"caf\\u00e9"' in installed
    assert (b"\r\n" in installed) == (b"\r\n" in original)
    assert installed.endswith(b"\n") == original.endswith(b"\n")
    config = json.loads(installed)
    assert len(ours(config, "SessionStart")) == 1
    schema = "claude-code-settings" if host == "claude" else "codex-hooks"
    jsonschema.validate(config, json.loads((SCHEMAS / f"{schema}.schema.json").read_text()))
    again = cli("init", host, "--install-hooks")
    assert again.code == 0 and path.read_bytes() == installed
    assert "already registered" in again.out
    assert cli("uninstall", host).code == 0
    assert path.read_bytes() == original


def test_new_hook_config_is_two_space_json_and_is_deleted_again(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks").code == 0
    text = (project / CLAUDE_SETTINGS).read_text()
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert cli("uninstall", "claude").code == 0
    assert not (project / CLAUDE_SETTINGS).exists()


@pytest.mark.parametrize(
    "original",
    [
        '{"hooks": {}, "permissions": {"allow": []}}\n',
        '{\n  "hooks": {},\n  "env": {}\n}\n',
        '{\n  "hooks": {\n    "Stop": []\n  },\n  "env": {}\n}\n',
    ],
)
def test_empty_objects_the_user_had_are_kept(cli, project: Path, original: str) -> None:
    path = project / CLAUDE_SETTINGS
    path.parent.mkdir()
    path.write_text(original)
    assert cli("init", "claude", "--install-hooks").code == 0
    assert cli("uninstall", "claude").code == 0
    assert path.read_text() == original


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ('{"hooks": {}, "hooks": {"Stop": []}}', '"hooks" twice in the top-level object'),
        (
            '{"hooks": {"PreToolUse": [{"matcher": "Bash", "matcher": "Write", "hooks": []}]}}',
            '"matcher" twice in hooks.PreToolUse[0]',
        ),
        (
            '{"env": {"A": "1", "B": "2", "A": "3"}}',
            '"A" twice in env',
        ),
    ],
)
def test_duplicate_keys_are_refused_at_any_depth(
    cli, project: Path, content: str, key: str
) -> None:
    (project / ".claude").mkdir()
    (project / CLAUDE_SETTINGS).write_text(content)
    refused(cli, project, "init", "claude", "--install-hooks", match=key)
    refused(cli, project, "uninstall", "claude", match=key)


def installed_then(cli, project: Path, settings: str) -> None:
    """Install the rules block, then put ``settings`` in place of the hook configuration."""
    assert cli("init", "claude").code == 0
    (project / ".claude").mkdir(exist_ok=True)
    (project / CLAUDE_SETTINGS).write_text(settings)


def with_status(event: str, status: object) -> str:
    """A config whose one handler under ``event`` has ``status`` as its statusMessage."""
    handler = {"type": "command", "command": "x", "statusMessage": status}
    return json.dumps({"hooks": {event: [{"hooks": [handler]}]}})


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        (
            with_status("PreToolUse", ["a"]),
            '"statusMessage" in "hooks.PreToolUse[0].hooks[0]" that is not a string',
        ),
        (
            with_status("Stop", {"a": 1}),
            '"statusMessage" in "hooks.Stop[0].hooks[0]" that is not a string',
        ),
        ('{"hooks": {"Stop": [{"hooks": [5]}]}}', 'handler "hooks.Stop[0].hooks[0]" that is not'),
        ('{"hooks": {"Stop": ' + "[" * 100_000 + "]" * 100_000 + "}}", "deeper than 64 levels"),
        ('{"a": NaN}', "not valid JSON"),
    ],
)
def test_malformed_hook_configs_are_refused_by_init_and_uninstall(
    cli, project: Path, settings: str, match: str
) -> None:
    installed_then(cli, project, settings)
    refused(cli, project, "init", "claude", "--install-hooks", match=match)
    refused(cli, project, "uninstall", "claude", match=match)
    result = cli("uninstall", "claude")
    assert CLAUDE_SETTINGS in result.err and "fix it by hand, then run uninstall" in result.err


@pytest.mark.parametrize("target", ["CLAUDE.md", CLAUDE_SETTINGS])
def test_a_symlink_loop_is_a_refusal_not_a_traceback(cli, project: Path, target: str) -> None:
    (project / ".claude").mkdir()
    (project / target).symlink_to(project / target)
    refused(
        cli, project, "init", "claude", "--install-hooks", match=f"cannot read {project / target}"
    )
    refused(cli, project, "uninstall", "claude", match="Too many levels of symbolic links")


def test_an_oversized_hook_config_is_refused(cli, project: Path) -> None:
    (project / ".claude").mkdir()
    (project / CLAUDE_SETTINGS).write_text('{"env": {"A": "' + "x" * (3 * 1024 * 1024) + '"}}')
    refused(cli, project, "init", "claude", "--install-hooks", match="-byte read limit")


def test_a_non_object_handler_beside_ours_is_refused_on_uninstall(cli, project: Path) -> None:
    assert cli("init", "claude", "--install-hooks").code == 0
    settings = project / CLAUDE_SETTINGS
    config = json.loads(settings.read_text())
    config["hooks"]["Stop"] = [{"hooks": [5]}]
    settings.write_text(json.dumps(config, indent=2))
    refused(cli, project, "uninstall", "claude", match='handler "hooks.Stop[0].hooks[0]"')
