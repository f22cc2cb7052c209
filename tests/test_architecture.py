"""The package's layers, read from its source with ``ast`` (issue 22).

One test per rule runs it over the real package; a self-test per rule feeds it
a small fake module to prove it can fail (and that it does not fire on the
allowed form next to it). The rules:

* a host's knowledge lives in its two modules: only ``engramory/hosts/<host>.py`` and
  ``engramory/dialects/<host>.py`` compare a host's name (a string literal equal to a
  registered host name, or its ``-reader`` form, inside a comparison or an ``in`` test), and
  each only its own (the registries list names, they do not compare them);
* only ``engramory/commands/`` and ``engramory/cli.py`` import ``argparse``;
* the core modules import nothing from the packages above them;
* ``guard/`` and ``doctor/`` import nothing from ``hosts/``, ``commands/``,
  ``install/``, ``continuity/`` or each other; ``guard/`` nothing from ``dialects/``;
  ``dialects/`` (what runs inside a hook) nothing from ``hosts/``, ``install/``,
  ``commands/`` or ``doctor/``; ``wiring/`` (the install mechanics hosts and installer
  share) nothing from ``hosts/``, ``install/``, ``dialects/``, ``commands/``, ``doctor/``
  or ``guard/``;
* the store write path (``write/``) sits between them and its users: core <-
  ``doctor`` <- ``write`` <- ``commands``, ``compact``, ``repair``, ``interop``,
  ``mcp``; it imports none of its users, ``hosts/``, ``install/`` or ``guard/``
  (only ``continuity.state``'s store lock from ``continuity/``), and ``mcp/``
  imports no command;
* the renderers (``report/``) import only the core and ``doctor``: the commands print
  what they return;
* no import cycles among the package's modules (an import at any depth is an edge; a module's
  import of its own enclosing package is not, as Python has already started that package).
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "engramory"
# The core packages: the store's formats and files, the helpers, the secret detector.
CORE = ("store", "util", "secrets")
WRITE_USERS = ("commands", "compact", "repair", "interop", "mcp")
UPPER_PACKAGES = (
    "commands", "hosts", "dialects", "install", "wiring", "doctor", "guard", "continuity",
    "write", "report", "trace", "history", "cuts",
)  # fmt: skip
UPPER_PACKAGES += tuple(name for name in WRITE_USERS if name not in UPPER_PACKAGES)
TOP_LEVEL_MODULES_AT_MOST = 5
# Package -> the packages it must not import.
SERVICE_FORBIDDEN = {
    "guard": ("hosts", "dialects", "commands", "install", "continuity", "doctor"),
    "doctor": ("hosts", "dialects", "commands", "install", "continuity", "guard", "write"),
    "dialects": ("hosts", "commands", "install", "wiring", "doctor"),
    "wiring": ("hosts", "install", "dialects", "commands", "doctor", "guard"),
    "write": ("hosts", "install", "guard", "continuity.policy", "report", *WRITE_USERS),
    "mcp": ("commands",),
    "report": ("commands", "hosts", "install", "guard", "continuity", "write", *WRITE_USERS),
}


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """``engramory/guard/decision.py`` -> ``engramory.guard.decision`` (a package's ``__init__``: the package)."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_sources(root: Path = PACKAGE) -> dict[str, tuple[str, str]]:
    """Module name -> (its path relative to the repository, its source), for every module."""
    return {
        module_name(path, root): (path.relative_to(root.parent).as_posix(), path.read_text("utf-8"))
        for path in sorted(root.rglob("*.py"))
    }


def _is_package(path: str) -> bool:
    return path.endswith("__init__.py")


def imported_modules(module: str, path: str, source: str) -> list[tuple[int, str]]:
    """(line, module) for every import, at any depth; ``from P import n`` yields ``P`` and ``P.n``.

    Relative imports are resolved against ``module``, so ``from ..hosts import
    claude`` is seen as ``engramory.hosts`` and ``engramory.hosts.claude``.
    """
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if _is_package(path) else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _by_place(violation: str) -> tuple[str, int]:
    """Sort key of ``path:line ...``: by path, then by line number."""
    path, line = violation.split(" ", 1)[0].rsplit(":", 1)
    return path, int(line)


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def forbidden_imports(
    sources: dict[str, tuple[str, str]], importers: Callable[[str], bool], forbidden: list[str]
) -> list[str]:
    """``path:line imports X`` for each module ``importers`` selects that imports from ``forbidden``.

    One line reports the outermost name it imports from a forbidden place
    (``from engramory.hosts.claude import x`` -> ``engramory.hosts.claude``).
    """
    violations = []
    for module, (path, source) in sources.items():
        if not importers(module):
            continue
        imports = imported_modules(module, path, source)
        hits = {(line, name) for line, name in imports if any(_within(name, t) for t in forbidden)}
        violations += [
            f"{path}:{line} imports {name}"
            for line, name in hits
            if (line, name.rpartition(".")[0]) not in hits
        ]
    return sorted(set(violations), key=_by_place)


# --- rule: host names are compared only in hosts/ --------------------------------------------


def registered_host_names() -> set[str]:
    """Every host ``engramory hosts`` lists, and its ``-reader`` form (read from the command's table)."""
    from engramory.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["hosts"]) == 0
    names = set(re.findall(r"^(\S+) \(", out.getvalue(), re.MULTILINE))
    assert len(names) >= 2, out.getvalue()
    return names | {f"{name}-reader" for name in names}


def host_name_comparisons(path: str, source: str, hosts: set[str]) -> list[str]:
    """``path:line compares 'NAME'`` for each host-name literal inside a comparison's operands."""
    violations = []
    for node in ast.walk(ast.parse(source, path)):
        if not isinstance(node, ast.Compare):
            continue
        for operand in [node.left, *node.comparators]:
            for inner in ast.walk(operand):
                if isinstance(inner, ast.Constant) and inner.value in hosts:
                    violations.append(f"{path}:{node.lineno} compares {inner.value!r}")
    return violations


def _own_host(module: str) -> str | None:
    """``claude`` for ``engramory.hosts.claude`` or ``engramory.dialects.claude``, else ``None``."""
    for package in ("engramory.hosts.", "engramory.dialects."):
        if module.startswith(package) and "." not in module[len(package) :]:
            return module[len(package) :]
    return None


def host_name_violations(sources: dict[str, tuple[str, str]], hosts: set[str]) -> list[str]:
    """Host-name comparisons anywhere but in a host's own two modules, of its own name."""
    violations = []
    for module, (path, source) in sources.items():
        own = _own_host(module)
        allowed = {own, f"{own}-reader"} if own is not None else set()
        violations += host_name_comparisons(path, source, hosts - allowed)
    return sorted(violations, key=_by_place)


def test_a_hosts_name_is_compared_only_in_its_own_two_modules() -> None:
    violations = host_name_violations(package_sources(), registered_host_names())
    assert not violations, "\n".join(violations)


def test_host_name_rule_can_fail() -> None:
    hosts = {"claude", "codex", "codex-reader"}
    fake = {
        "engramory.install.fake": (
            "engramory/install/fake.py",
            'def f(spec, name):\n    if spec.name == "codex":\n        pass\n'
            '    return name in ("claude", "x")\n',
        ),
        "engramory.commands.fake": ("engramory/commands/fake.py", 'ok = x == "codexx"\n'),
        "engramory.hosts.claude": ("engramory/hosts/claude.py", 'mine = name == "claude"\n'),
        "engramory.dialects.claude": (
            "engramory/dialects/claude.py",
            'mine = name == "claude-reader"\nother = name != "codex"\n',
        ),
        "engramory.hosts.registry": ("engramory/hosts/registry.py", 'if n in ("codex",): pass\n'),
        "engramory.guard.fake": ("engramory/guard/fake.py", 'argv = ["--host", "claude"]\n'),
    }
    assert host_name_violations(fake, hosts) == [
        "engramory/dialects/claude.py:2 compares 'codex'",
        "engramory/hosts/registry.py:1 compares 'codex'",
        "engramory/install/fake.py:2 compares 'codex'",
        "engramory/install/fake.py:4 compares 'claude'",
    ]


# --- rule: argparse lives in commands/ (and cli.py) ------------------------------------------


def argparse_violations(sources: dict[str, tuple[str, str]]) -> list[str]:
    """Imports of ``argparse`` outside ``engramory.commands`` and ``engramory.cli``."""
    return forbidden_imports(
        sources,
        lambda module: not (_within(module, "engramory.commands") or module == "engramory.cli"),
        ["argparse"],
    )


def test_only_commands_imports_argparse() -> None:
    violations = argparse_violations(package_sources())
    assert not violations, "\n".join(violations)


def test_argparse_rule_can_fail() -> None:
    fake = {
        "engramory.continuity.policy": (
            "engramory/continuity/policy.py",
            "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from argparse import Namespace\n",
        ),
        "engramory.store.disk": ("engramory/store/disk.py", "def f():\n    import argparse\n"),
        "engramory.commands.check": ("engramory/commands/check.py", "import argparse\n"),
        "engramory.cli": ("engramory/cli.py", "import argparse\n"),
        "engramory.store.caps": ("engramory/store/caps.py", "import argparser\n"),
    }
    assert argparse_violations(fake) == [
        "engramory/continuity/policy.py:4 imports argparse",
        "engramory/store/disk.py:2 imports argparse",
    ]


# --- rule: the core imports nothing above it -------------------------------------------------


def core_violations(sources: dict[str, tuple[str, str]]) -> list[str]:
    """Imports by the core of the packages above it (:data:`UPPER_PACKAGES`)."""
    return forbidden_imports(
        sources,
        lambda module: any(_within(module, f"engramory.{name}") for name in CORE),
        [f"engramory.{name}" for name in UPPER_PACKAGES],
    )


def test_the_core_packages_exist() -> None:
    sources = package_sources()
    assert [name for name in CORE if f"engramory.{name}" not in sources] == []


def test_the_top_level_holds_a_few_modules() -> None:
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(modules) <= TOP_LEVEL_MODULES_AT_MOST, modules


def test_the_core_imports_nothing_above_it() -> None:
    violations = core_violations(package_sources())
    assert not violations, "\n".join(violations)


def test_core_rule_can_fail() -> None:
    fake = {
        "engramory.store.disk": (
            "engramory/store/disk.py",
            "from engramory.store import caps\nfrom engramory import guard\nfrom .. import install\n",
        ),
        "engramory.util.textfmt": (
            "engramory/util/textfmt.py",
            "def f():\n    from engramory.hosts.claude import x\n",
        ),
        "engramory.store.caps": (
            "engramory/store/caps.py",
            "from engramory.guardian import x\nimport os\n",
        ),
        "engramory.install.plan": ("engramory/install/plan.py", "from engramory import guard\n"),
    }
    assert core_violations(fake) == [
        "engramory/store/disk.py:2 imports engramory.guard",
        "engramory/store/disk.py:3 imports engramory.install",
        "engramory/util/textfmt.py:2 imports engramory.hosts.claude",
    ]


# --- rule: guard/ and doctor/ are services that know no host, command or installer -----------


def service_violations(sources: dict[str, tuple[str, str]]) -> list[str]:
    """Imports by ``guard`` / ``doctor`` of the packages :data:`SERVICE_FORBIDDEN` names."""
    return sorted(
        violation
        for service, forbidden in SERVICE_FORBIDDEN.items()
        for violation in forbidden_imports(
            sources,
            lambda module, service=service: _within(module, f"engramory.{service}"),
            [f"engramory.{name}" for name in forbidden],
        )
    )


def test_the_write_path_modules_are_in_write() -> None:
    sources = package_sources()
    moved = ("notewrite", "indexedit", "pointertext", "backup", "undo", "filedates")
    assert [name for name in moved if f"engramory.write.{name}" not in sources] == []
    assert [name for name in moved if f"engramory.{name}" in sources] == []


def test_guard_and_doctor_import_no_host_command_installer_or_each_other() -> None:
    violations = service_violations(package_sources())
    assert not violations, "\n".join(violations)


def test_service_rule_can_fail() -> None:
    fake = {
        "engramory.guard.service": (
            "engramory/guard/service.py",
            "from engramory.hosts import claude\nfrom engramory.guard import edits\n",
        ),
        "engramory.doctor.rules.index": (
            "engramory/doctor/rules/index.py",
            "from ...guard import decision\nfrom ..model import Finding\nfrom engramory import caps\n",
        ),
        "engramory.doctor": ("engramory/doctor/__init__.py", "from .. import continuity\n"),
        "engramory.hosts.claude": ("engramory/hosts/claude.py", "from engramory.guard import x\n"),
        "engramory.dialects.claude": (
            "engramory/dialects/claude.py",
            "from engramory.guard import service\nfrom engramory.hosts import registry\n",
        ),
        "engramory.guard.toolcall": ("engramory/guard/toolcall.py", "import engramory.dialects\n"),
    }
    assert service_violations(fake) == [
        "engramory/dialects/claude.py:2 imports engramory.hosts",
        "engramory/doctor/__init__.py:1 imports engramory.continuity",
        "engramory/doctor/rules/index.py:1 imports engramory.guard",
        "engramory/guard/service.py:1 imports engramory.hosts",
        "engramory/guard/toolcall.py:1 imports engramory.dialects",
    ]


# --- rule: no import cycles -------------------------------------------------------------------


def import_graph(sources: dict[str, tuple[str, str]]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (at any depth, also for annotations only).

    A module's import of one of its own enclosing packages is left out: Python has started
    that package before the module, so it cannot make a cycle the code could remove.
    """
    graph: dict[str, set[str]] = {}
    for module, (path, source) in sources.items():
        graph[module] = {
            name
            for _, name in imported_modules(module, path, source)
            if name in sources and name != module and not module.startswith(name + ".")
        }
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return sorted(cycles)


def test_no_import_cycles() -> None:
    cycles = import_cycles(import_graph(package_sources()))
    assert cycles == [], "\n".join(" <-> ".join(cycle) for cycle in cycles)


def test_cycle_rule_can_fail() -> None:
    fake = {
        "engramory.guard": ("engramory/guard/__init__.py", ""),
        "engramory.guard.service": (
            "engramory/guard/service.py",
            "def f():\n    from engramory.guard.secretcheck import check\n",
        ),
        "engramory.guard.secretcheck": (
            "engramory/guard/secretcheck.py",
            "from engramory.guard import service\n",
        ),
        "engramory.secrets": ("engramory/secrets/__init__.py", "from .scan import find\n"),
        "engramory.secrets.scan": (
            "engramory/secrets/scan.py",
            "from engramory.secrets import x\n",
        ),
        "engramory.a": ("engramory/a.py", "import engramory.b\n"),
        "engramory.b": ("engramory/b.py", "import engramory.c\n"),
        "engramory.c": ("engramory/c.py", "from engramory import a\n"),
    }
    assert import_cycles(import_graph(fake)) == [
        ["engramory.a", "engramory.b", "engramory.c"],
        ["engramory.guard.secretcheck", "engramory.guard.service"],
    ]


def test_a_write_command_imports_no_other_command() -> None:
    writers = {f"engramory.commands.{name}" for name in ("new", "archive", "compact", "fix")}
    others = [
        f"engramory.commands.{path.stem}"
        for path in (PACKAGE / "commands").glob("*.py")
        if path.stem not in ("__init__", "options")
    ]
    violations = forbidden_imports(package_sources(), writers.__contains__, others)
    assert not violations, "\n".join(violations)


def test_write_rule_can_fail() -> None:
    fake = {
        "engramory.write.newnote": (
            "engramory/write/newnote.py",
            "from engramory.commands.options import x\nfrom engramory.doctor.model import ERROR\n"
            "from engramory.continuity.state import locked\n",
        ),
        "engramory.write.undo": ("engramory/write/undo.py", "from ..repair import plan\n"),
        "engramory.doctor.engine": (
            "engramory/doctor/engine.py",
            "from engramory.write import gate\n",
        ),
        "engramory.mcp.tools": (
            "engramory/mcp/tools.py",
            "from engramory.commands import new\nfrom engramory.write import newnote\n",
        ),
    }
    assert service_violations(fake) == [
        "engramory/doctor/engine.py:1 imports engramory.write",
        "engramory/mcp/tools.py:1 imports engramory.commands",
        "engramory/write/newnote.py:1 imports engramory.commands.options",
        "engramory/write/undo.py:1 imports engramory.repair",
    ]


@pytest.mark.parametrize(
    ("module", "path", "source", "expected"),
    [
        (
            "engramory.doctor.rules.index",
            "x/index.py",
            "from ..model import F\n",
            "engramory.doctor.model",
        ),
        (
            "engramory.doctor.rules",
            "x/__init__.py",
            "from . import index\n",
            "engramory.doctor.rules.index",
        ),
        ("engramory.doctor", "x/__init__.py", "from .. import guard\n", "engramory.guard"),
    ],
)
def test_relative_imports_resolve_against_the_importing_module(
    module: str, path: str, source: str, expected: str
) -> None:
    assert expected in [name for _, name in imported_modules(module, path, source)]
