"""The package's layers, read from its source with ``ast`` (issue 22).

One test per rule runs it over the real package; a self-test per rule feeds it
a small fake module to prove it can fail (and that it does not fire on the
allowed form next to it). The rules:

* a host's knowledge lives in its two modules: only ``engramory/hosts/<host>.py`` and
  ``engramory/dialects/<host>.py`` compare a host's name (a string literal equal to a
  registered host name, or its ``-reader`` form, inside a comparison or an ``in`` test), and
  each only its own (the registries list names, they do not compare them);
* only ``engramory/commands/`` and ``engramory/cli.py`` import ``argparse``;
* every package and top-level module is in exactly one of the :data:`LAYERS`, and a module
  imports only its own package and lower layers (store path: core <- ``doctor`` <- ``write`` <-
  ``commands``, ``compact``, ``repair``, ``interop``, ``mcp``; the renderers of ``report/``
  below the commands that print what they return); a few packages also keep off some lower
  layers (:data:`KEEPS_OFF`: what runs inside a hook imports no install mechanics);
* a write command imports no other command;
* no import cycles among the package's modules (an import at any depth is an edge; a module's
  import of its own enclosing package is not, as Python has already started that package), nor
  between its packages.
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
# The layers, lowest first. Every package and top-level module of ``engramory/`` is in exactly
# one; a module imports from its own package and from lower layers only, at any depth (a lazy
# import is an edge too). The root package holds the version and imports nothing.
LAYERS = (
    ("__init__",),
    ("util",),  # atomic writes, terminal-safe text, errors, the shipped documents
    ("secrets",),  # the secret detector, and the safe excerpt of untrusted text it makes
    ("store",),  # caps, note and index formats, finding the store
    ("history", "cuts", "wiring"),  # snapshots; what a host cuts; the install mechanics
    ("doctor", "guard", "continuity"),  # the services: checking, guarding, the session state
    ("trace", "dialects", "write", "report"),  # transcripts; hook payloads; writes; renderers
    ("repair", "compact", "interop", "hosts"),  # the write path's users; the install specs
    ("install", "mcp"),  # the installer; the MCP server
    ("commands",),
    ("cli",),
    ("__main__",),
)
ROOT = "__init__"
# Lower layers a package also keeps off, for a reason the layers cannot say.
KEEPS_OFF = {
    # The hook imports its dialect before every tool call: no install mechanics, no doctor.
    "dialects": ("wiring", "doctor"),
    # The write path takes the store lock (continuity.state), never a session policy or the guard.
    "write": ("guard", "continuity.policy"),
    # A renderer prints what the doctor found.
    "report": ("guard", "continuity"),
}
TOP_LEVEL_MODULES_AT_MOST = 5


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


# --- rule: the layers -------------------------------------------------------------------------


def layer_units(root: Path = PACKAGE) -> list[str]:
    """The package's packages and top-level modules (``__init__`` for the root package)."""
    packages = [path.name for path in root.iterdir() if (path / "__init__.py").is_file()]
    return sorted([*packages, *(path.stem for path in root.glob("*.py"))])


def layer_table_problems(units: list[str], layers: tuple[tuple[str, ...], ...]) -> list[str]:
    """What is wrong with the table: a unit in no layer or in two, a name that is no unit."""
    listed = [unit for layer in layers for unit in layer]
    problems = [f"{unit} is in no layer" for unit in units if unit not in listed]
    problems += [
        f"{unit} is in {listed.count(unit)} layers" for unit in units if listed.count(unit) > 1
    ]
    problems += [
        f"{unit} is in a layer but is no package or module" for unit in listed if unit not in units
    ]
    return sorted(set(problems))


def unit_of(module: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> str | None:
    """``guard`` for ``engramory.guard.service``; the root for ``engramory`` and its attributes
    (``engramory.__version__``); ``None`` outside the package."""
    parts = module.split(".")
    if parts[0] != PACKAGE.name:
        return None
    units = {unit for layer in layers for unit in layer}
    return parts[1] if len(parts) > 1 and parts[1] in units else ROOT


def layer_violations(
    sources: dict[str, tuple[str, str]], layers: tuple[tuple[str, ...], ...] = LAYERS
) -> list[str]:
    """``path:line imports X`` for each import of a unit in the importer's own layer or above."""
    rank = {unit: number for number, layer in enumerate(layers) for unit in layer}
    violations = []
    for unit, number in rank.items():
        above = [other for other, at in rank.items() if at >= number and other not in (unit, ROOT)]
        violations += forbidden_imports(
            sources,
            lambda module, unit=unit: unit_of(module, layers) == unit,
            [f"{PACKAGE.name}.{other}" for other in above],
        )
    return sorted(set(violations), key=_by_place)


def keeps_off_violations(sources: dict[str, tuple[str, str]]) -> list[str]:
    """Imports by a package of the lower layers :data:`KEEPS_OFF` names for it."""
    return sorted(
        (
            violation
            for unit, kept_off in KEEPS_OFF.items()
            for violation in forbidden_imports(
                sources,
                lambda module, unit=unit: _within(module, f"{PACKAGE.name}.{unit}"),
                [f"{PACKAGE.name}.{name}" for name in kept_off],
            )
        ),
        key=_by_place,
    )


def test_every_package_and_top_level_module_is_in_exactly_one_layer() -> None:
    assert layer_table_problems(layer_units(), LAYERS) == []


def test_layer_table_check_can_fail() -> None:
    layers = (("__init__",), ("util", "store"), ("store",), ("ghost",))
    assert layer_table_problems(["__init__", "cli", "store", "util"], layers) == [
        "cli is in no layer",
        "ghost is in a layer but is no package or module",
        "store is in 2 layers",
    ]


def test_no_module_imports_its_own_layer_or_above() -> None:
    violations = layer_violations(package_sources())
    assert not violations, "\n".join(violations)


def test_the_few_lower_layers_a_package_keeps_off() -> None:
    violations = keeps_off_violations(package_sources())
    assert not violations, "\n".join(violations)


def contributing_layout_problems(text: str, units: list[str]) -> list[str]:
    """What CONTRIBUTING.md's layout misses: a unit not in its tree, or a layer line that is
    not :data:`LAYERS` (``a`` < ``b``, ``c`` < ...)."""
    tree = text.split("```\nengramory/\n", 1)[-1].split("```", 1)[0]
    named = set(re.findall(r"(?:^|\s)([\w]+)(?:/|\.py)(?=\s)", tree))
    problems = [f"{unit} is not in the layout" for unit in units if unit not in named]
    order = " < ".join(", ".join(f"`{unit}`" for unit in layer) for layer in LAYERS[1:])
    if order not in " ".join(text.split()):
        problems.append(f"the layer line is not: {order}")
    return problems


def test_contributing_layout_lists_every_package_in_its_layer() -> None:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert contributing_layout_problems(text, layer_units()) == []


def test_contributing_layout_check_can_fail() -> None:
    text = "```\nengramory/\n  cli.py  the entry\n  util/  helpers\n```\n`util` < `cli`\n"
    problems = contributing_layout_problems(text, ["cli", "store", "util"])
    assert problems[0] == "store is not in the layout"
    assert problems[1].startswith("the layer line is not: `util` < `secrets` < ")
    assert len(problems) == 2


def test_the_top_level_holds_a_few_modules() -> None:
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(modules) <= TOP_LEVEL_MODULES_AT_MOST, modules


def test_layer_rule_can_fail() -> None:
    fake = {
        "engramory.store.disk": (
            "engramory/store/disk.py",
            "from engramory.store import caps\nfrom engramory import guard\nfrom .. import util\n",
        ),
        "engramory.util.textfmt": (
            "engramory/util/textfmt.py",
            "def f():\n    from engramory.secrets import redact\n",
        ),
        "engramory.guard.service": (
            "engramory/guard/service.py",
            "from engramory.doctor import model\nfrom engramory.cuts import hint\n",
        ),
        "engramory.mcp.tools": (
            "engramory/mcp/tools.py",
            "from engramory.commands import new\nfrom engramory.write import newnote\n",
        ),
        "engramory.report": ("engramory/report/__init__.py", "from engramory import __version__\n"),
        "engramory.cli": ("engramory/cli.py", "from engramory.commands import doctor\n"),
        "engramory.commands.check": ("engramory/commands/check.py", "import engramory.cli\n"),
    }
    assert layer_violations(fake) == [
        "engramory/commands/check.py:1 imports engramory.cli",
        "engramory/guard/service.py:1 imports engramory.doctor",
        "engramory/mcp/tools.py:1 imports engramory.commands",
        "engramory/store/disk.py:2 imports engramory.guard",
        "engramory/util/textfmt.py:2 imports engramory.secrets",
    ]


def test_keeps_off_rule_can_fail() -> None:
    fake = {
        "engramory.dialects.claude": (
            "engramory/dialects/claude.py",
            "from engramory.guard import service\nfrom engramory.wiring import hookwiring\n",
        ),
        "engramory.write.newnote": (
            "engramory/write/newnote.py",
            "from engramory.continuity.state import locked\n"
            "def f():\n    from engramory.continuity.policy import answer\n",
        ),
        "engramory.report.text": (
            "engramory/report/text.py",
            "from engramory.doctor import model\n",
        ),
    }
    assert keeps_off_violations(fake) == [
        "engramory/dialects/claude.py:2 imports engramory.wiring",
        "engramory/write/newnote.py:3 imports engramory.continuity.policy",
    ]


def test_the_write_path_modules_are_in_write() -> None:
    sources = package_sources()
    moved = ("notewrite", "indexedit", "pointertext", "backup", "undo", "filedates")
    assert [name for name in moved if f"engramory.write.{name}" not in sources] == []
    assert [name for name in moved if f"engramory.{name}" in sources] == []


# --- rule: a host's two modules hold short functions ----------------------------------------

# McCabe 15 holds there too: ruff's C901 checks hosts/ and dialects/ (pyproject.toml).
LONGEST_FUNCTION = 60
SHORT_FUNCTION_PACKAGES = ("hosts", "dialects")


def long_functions(sources: dict[str, tuple[str, str]], packages: tuple[str, ...]) -> list[str]:
    """``path:line NAME has N lines`` for each function in ``packages`` over
    :data:`LONGEST_FUNCTION` lines (its decorators included)."""
    long = []
    for module, (path, source) in sources.items():
        if not any(_within(module, f"{PACKAGE.name}.{name}") for name in packages):
            continue
        for node in ast.walk(ast.parse(source, path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = node.end_lineno - first + 1 if node.end_lineno else 0
                if lines > LONGEST_FUNCTION:
                    long.append(f"{path}:{first} {node.name} has {lines} lines")
    return sorted(long, key=_by_place)


def test_no_function_in_hosts_or_dialects_is_over_60_lines() -> None:
    long = long_functions(package_sources(), SHORT_FUNCTION_PACKAGES)
    assert not long, "\n".join(long)


def test_long_function_rule_can_fail() -> None:
    body = "".join(f"    x{n} = {n}\n" for n in range(60))
    fake = {
        "engramory.hosts.probe": (
            "engramory/hosts/probe.py",
            f"@dataclass\nclass Probe:\n  @staticmethod\n  def long():\n{body}",
        ),
        "engramory.dialects.probe": (  # 60 lines: the limit, not over it
            "engramory/dialects/probe.py",
            "def fits():\n" + "".join(f"    y{n} = {n}\n" for n in range(59)),
        ),
        "engramory.install.probe": ("engramory/install/probe.py", f"def long():\n{body}"),
    }
    assert long_functions(fake, SHORT_FUNCTION_PACKAGES) == [
        "engramory/hosts/probe.py:3 long has 62 lines"
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


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph between the layers' units: a package and all its modules are one node."""
    units: dict[str, set[str]] = {}
    for module, targets in graph.items():
        unit = str(unit_of(module))
        units.setdefault(unit, set()).update(str(unit_of(target)) for target in targets)
        units[unit].discard(unit)
    return units


def test_no_import_cycles_between_packages() -> None:
    cycles = import_cycles(package_graph(import_graph(package_sources())))
    assert cycles == [], "\n".join(" <-> ".join(cycle) for cycle in cycles)


def test_package_cycle_rule_can_fail() -> None:
    fake = {
        "engramory.util.textfmt": (
            "engramory/util/textfmt.py",
            "def f():\n    from engramory.secrets.scan import redact\n",
        ),
        "engramory.secrets.scan": (
            "engramory/secrets/scan.py",
            "from engramory.util import fsutil\n",
        ),
        "engramory.util.fsutil": ("engramory/util/fsutil.py", "import os\n"),
        "engramory.store.caps": ("engramory/store/caps.py", "from engramory.util import fsutil\n"),
    }
    assert import_cycles(package_graph(import_graph(fake))) == [["secrets", "util"]]


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
    assert layer_violations(fake) == [
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
