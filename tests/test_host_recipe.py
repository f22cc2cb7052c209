"""Adding a host takes its two modules and one registry line each (CONTRIBUTING's recipe, tried).

A made-up host, "quill", is written into a temporary package: its dialect (what runs inside
its hook) and its install spec (a module-level ``HOST``). Registering them -- one entry in
:data:`engramory.dialects.DIALECTS`, one in :data:`engramory.hosts.registry.HOSTS` -- is
all ``init --install-hooks``, ``engramory hosts`` and the guard need.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

from engramory import dialects
from engramory.hosts import registry

DIALECT = '''"""Quill's hook: {"tool": "put_file", "args": {"target", "text"}, "cwd"}."""

from __future__ import annotations

from engramory.dialects import fields
from engramory.dialects.rawjson import json_string
from engramory.guard import toolcall
from engramory.guard.toolcall import ToolCall

PATH_KEYS = (b"target",)


def may_concern_index(raw, environ, index=None):
    if json_string(raw, b"tool") != b"put_file":
        return False
    return fields.path_may_be_index(raw, PATH_KEYS, environ, index)


def oversized_call(raw):
    return ToolCall(toolcall.UNKNOWN)


def tool_calls(payload):
    args = payload.get("args") if isinstance(payload, dict) else None
    if payload.get("tool") != "put_file" or not isinstance(args, dict):
        return []
    return [ToolCall(toolcall.WRITE, args.get("target"), cwd=payload.get("cwd"),
                     content=args.get("text"))]


def render(verdict, event):
    if verdict.kind != "deny":
        return "", 0
    return '{"refuse": %s}' % __import__("json").dumps(verdict.message), 0


def render_lifecycle(reply):
    return "", 0
'''

HOST = '''"""Quill as engramory init sees it."""

from __future__ import annotations

from engramory.hosts.base import BLOCK, DENY_HOOK, DOCUMENTED, IGNORE_ALWAYS, Host
from engramory.wiring import hookwiring


class Quill(Host):
    """Claude's settings form, the guard in Quill's own dialect."""

    def hook_groups(self, python, guard, sync, store, mode):
        argv = self.guard_argv(python, guard, store)[3:]  # the script and its arguments
        handler = hookwiring.exec_handler(python, argv, hookwiring.GUARD_STATUS)
        return {"PreToolUse": {"matcher": "put_file", "hooks": [handler]}}


HOST = Quill(
    name="quill",
    label="Quill",
    rules="QUILL.md",
    global_rules=None,
    rules_kind=BLOCK,
    skill=None,
    global_skill=None,
    verified=DOCUMENTED,
    enforcement="pre-write deny hook",
    hook_config=".quill/settings.json",
    hook_config_ignore=IGNORE_ALWAYS,
    cap_enforcement=DENY_HOOK,
)
'''


@pytest.fixture
def quill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    """The two modules in a package of their own, and one registry line each."""
    package = tmp_path / "quillhost"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "dialect.py").write_text(DIALECT)
    (package / "host.py").write_text(HOST)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(dialects.DIALECTS, "quill", "quillhost.dialect")
    spec = importlib.import_module("quillhost.host").HOST
    monkeypatch.setitem(registry.HOSTS, "quill", spec)
    yield spec
    for name in ("quillhost", "quillhost.dialect", "quillhost.host"):
        sys.modules.pop(name, None)


def test_a_new_host_is_listed_installed_and_guarded(cli, project: Path, quill: object) -> None:
    listed = cli("hosts")
    assert listed.code == 0 and "quill (Quill)" in listed.out
    assert cli("init", "quill", "--install-hooks").code == 0
    assert "<!-- BEGIN ENGRAMORY QUILL -->" in (project / "QUILL.md").read_text()
    settings = (project / ".quill" / "settings.json").read_text()
    assert '"--host"' in settings and '"quill"' in settings  # the guard runs in its dialect

    index = project / ".engramory-memory" / "MEMORY.md"
    grown = {"tool": "put_file", "args": {"target": str(index), "text": "- x\n" * 400}}
    raw = json.dumps({**grown, "cwd": str(project)}).encode()
    text, code = dialects.answer(["--host", "quill", "--index", str(index)], raw, {})[:2]
    assert code == 0 and "over" in json.loads(text)["refuse"]
    other = json.dumps({**grown, "args": {"target": "app.py", "text": "x"}}).encode()
    assert dialects.answer(["--host", "quill"], other, {})[:2] == ("", 0)


def test_without_its_registry_line_the_guard_does_not_know_it(quill: object) -> None:
    del dialects.DIALECTS["quill"]
    raw = json.dumps({"tool": "put_file", "args": {"target": "MEMORY.md", "text": "x"}})
    assert dialects.answer(["--host", "quill"], raw.encode(), {}) == ("", 0)
