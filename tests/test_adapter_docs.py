"""The adapter READMEs say what the host table says (``engramory hosts``).

Each ``adapters/HOST/README.md`` opens with a table of what init writes: the
rules file, the skill directory (``--install-skill``) and, for hosts that have
them, the hooks (``--install-hooks``), each for a project and for
``--global``. Those cells, the "No hooks" and "No ``--global``" notes, and the
overview table in ``adapters/README.md`` are checked against
the host registry (``engramory/hosts/``), so a README cannot claim a flag its host lacks
or miss one it has.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import REPO
from engramory.hosts.base import Host
from engramory.hosts.registry import HOSTS

ADAPTERS = REPO / "adapters"
HOOK_HOSTS = {name for name, spec in HOSTS.items() if spec.installs_hooks}
NONE_WORDS = re.compile(r"^(none|not supported)\b", re.IGNORECASE)


def table_rows(text: str, heading: str) -> list[list[str]]:
    """The cells of the first table after the line starting with ``heading``."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(set(cell) <= set("-: ") for cell in cells):
                rows.append(cells)
        elif rows:
            break
    return rows


def code_paths(cell: str) -> set[str]:
    """The paths in a cell's code spans, without a trailing ``/`` or dsh's ``P/`` prefix."""
    return {re.sub(r"^P/", "", span).rstrip("/") for span in re.findall(r"`([^`]+)`", cell)}


def cell_problems(what: str, cell: str, expected: str | None) -> list[str]:
    """What is wrong with one cell that should name ``expected`` (``None``: unsupported)."""
    if expected is None:
        if NONE_WORDS.match(cell) and not code_paths(cell):
            return []
        return [f"{what}: says {cell!r}, but the host table has none"]
    if expected in code_paths(cell):
        return []
    return [f"{what}: says {cell!r}, but the host table has `{expected}`"]


def mentioned_hosts(text: str) -> set[str]:
    """The hosts named in ``text`` by label (``Codex CLI``) or by name (``codex``)."""
    found = set()
    for name, spec in HOSTS.items():
        short = spec.label.split(" (")[0].split(" ")[0]  # "Claude", "Codex", "DeepSeek"
        pattern = rf"\b({re.escape(spec.label)}|{re.escape(short)}|{re.escape(name)})\b"
        if re.search(pattern, text):
            found.add(name)
    return found


def bullet(text: str, title: str) -> str | None:
    """The text of the ``- **TITLE**`` bullet, continuation lines joined, or ``None``."""
    match = re.search(rf"^- \*\*{re.escape(title)}\*\*(.*(?:\n  .*)*)", text, re.MULTILINE)
    return " ".join(match.group(1).split()) if match else None


def hooks_problems(text: str, rows: dict[str, list[str]], spec: Host) -> list[str]:
    """The README's hooks row and "No hooks." note against the host's ``--install-hooks``."""
    problems: list[str] = []
    hooks = [cells for first, cells in rows.items() if "`--install-hooks`" in first]
    no_hooks = bullet(text, "No hooks.")
    if spec.installs_hooks:
        if no_hooks is not None:
            problems.append("says 'No hooks.', but the host has --install-hooks")
        if not hooks:
            problems.append("the host has --install-hooks, but the table has no hooks row")
        elif spec.hook_config:
            problems += cell_problems("hooks, project", hooks[0][0], spec.hook_config)
            problems += cell_problems("hooks, --global", hooks[0][1], spec.global_hook_config)
        else:  # hook files: the row names each file, its folder or its name
            for cell, files in ((0, spec.hook_files), (1, spec.global_hook_files)):
                for path in files or [None]:
                    folder, _, base = path.rpartition("/") if path else ("", "", "")
                    named = path is not None and bool({folder, base} & code_paths(hooks[0][cell]))
                    problems += [] if named else cell_problems("hook files", hooks[0][cell], path)
    else:
        if hooks:
            problems.append("has a hooks row, but the host has no --install-hooks")
        if no_hooks is None:
            problems.append("has no 'No hooks.' note, but the host has no --install-hooks")
        else:
            named = mentioned_hosts(no_hooks) - {spec.name}
            if named != HOOK_HOSTS:
                problems.append(
                    f"'No hooks.' names {sorted(named)} as the hosts with --install-hooks; "
                    f"the host table says {sorted(HOOK_HOSTS)}"
                )
    return problems


def readme_problems(text: str, spec: Host) -> list[str]:
    """Every claim of a host README that disagrees with the host's row in the table."""
    rows = {row[0]: row[1:] for row in table_rows(text, f"## What `engramory init {spec.name}`")}
    problems: list[str] = []
    if "rules" not in rows:
        return ["no `rules` row in the table of what init writes"]
    project, global_ = rows["rules"][:2]
    problems += cell_problems("rules, project", project, spec.rules)
    problems += cell_problems("rules, --global", global_, spec.global_rules)

    skill = rows.get("skill (`--install-skill`)")
    if skill is None:
        problems.append("no `skill (`--install-skill`)` row")
    else:
        problems += cell_problems("skill, project", skill[0], spec.skill)
        problems += cell_problems("skill, --global", skill[1], spec.global_skill)

    problems += hooks_problems(text, rows, spec)

    no_global = bullet(text, "No `--global`.")
    if (spec.global_rules is None) != (no_global is not None):
        problems.append(
            "a 'No `--global`.' note is missing"
            if spec.global_rules is None
            else "says 'No `--global`.', but the host has a --global rules file"
        )
    return problems


def overview_problems(text: str) -> list[str]:
    """Claims of ``adapters/README.md``'s table about hooks and ``--global``, per host."""
    problems = []
    by_label = {spec.label: spec for spec in HOSTS.values()}
    rows = [row for row in table_rows(text, "| host | README |") if row[0] in by_label]
    if {row[0] for row in rows} != set(by_label):
        problems.append(f"hosts missing from the overview: {set(by_label) - {r[0] for r in rows}}")
    for host, _readme, _project, global_, enforcement, _wiring in rows:
        spec = by_label[host]
        if ("--install-hooks" in enforcement) != spec.installs_hooks:
            problems.append(f"{host}: the hooks claim ({enforcement!r}) disagrees with the table")
        if (global_ == "not supported") != (spec.global_rules is None):
            problems.append(f"{host}: the --global claim ({global_!r}) disagrees with the table")
    return problems


def reader_problems(text: str) -> list[str]:
    """Claims of the reader README: every host has a reader; --global where the host has it."""
    rows = {
        row[0].strip("`"): row for row in table_rows(text, "| reader |") + reader_file_rows(text)
    }
    problems = []
    for name, spec in HOSTS.items():
        row = rows.get(f"{name}-reader")
        if row is None:
            problems.append(f"{name}-reader is not in the reader tables")
        elif (row[-1] == "not supported") != (spec.global_rules is None):
            problems.append(f"{name}-reader: the --global claim {row[-1]!r} disagrees")
    if not re.search(r"`--install-skill` and `--install-hooks`\s+are refused", text):
        problems.append("the reader README no longer says readers refuse skill and hooks")
    return problems


def reader_file_rows(text: str) -> list[list[str]]:
    return table_rows(text, "Hosts that load a folder of rule files")


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_adapter_readme_matches_the_host_table(host: str) -> None:
    text = (ADAPTERS / host / "README.md").read_text(encoding="utf-8")
    assert readme_problems(text, HOSTS[host]) == []


def test_every_adapter_folder_is_a_host() -> None:
    folders = {p.name for p in ADAPTERS.iterdir() if p.is_dir()}
    assert folders == set(HOSTS) | {"reader", "mcp"}  # mcp: engramory mcp, not a host to init


def test_overview_table_matches_the_host_table() -> None:
    assert overview_problems((ADAPTERS / "README.md").read_text(encoding="utf-8")) == []


def test_reader_readme_matches_the_host_table() -> None:
    assert reader_problems((ADAPTERS / "reader" / "README.md").read_text(encoding="utf-8")) == []


# --- the checks can fail: wrong READMEs, written to a temporary copy ------------------


def copy_of(tmp_path: Path, relative: str) -> Path:
    target = tmp_path / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ADAPTERS / relative, target)
    return target


def test_a_readme_calling_install_hooks_claude_only_is_caught(tmp_path: Path) -> None:
    readme = copy_of(tmp_path, "continue/README.md")
    text = readme.read_text(encoding="utf-8")
    wrong = re.sub(
        r"- \*\*No hooks\.\*\*.*?\n(?=\n)",
        "- **No hooks.** `--install-hooks` applies to Claude Code only.\n",
        text,
        flags=re.DOTALL,
    )
    assert wrong != text
    readme.write_text(wrong, encoding="utf-8")
    problems = readme_problems(readme.read_text(encoding="utf-8"), HOSTS["continue"])
    assert len(problems) == 1 and "'No hooks.' names ['claude']" in problems[0]


def test_a_readme_denying_hooks_to_a_host_that_has_them_is_caught(tmp_path: Path) -> None:
    readme = copy_of(tmp_path, "codex/README.md")
    text = readme.read_text(encoding="utf-8")
    wrong = re.sub(r"^\| continuity hooks .*\n", "", text, flags=re.MULTILINE)
    wrong = wrong.replace("- **Rules.**", "- **No hooks.** None here.\n- **Rules.**", 1)
    readme.write_text(wrong, encoding="utf-8")
    problems = readme_problems(readme.read_text(encoding="utf-8"), HOSTS["codex"])
    assert any("no hooks row" in p for p in problems)
    assert any("says 'No hooks.'" in p for p in problems)


def test_a_readme_with_a_wrong_path_or_global_claim_is_caught(tmp_path: Path) -> None:
    readme = copy_of(tmp_path, "gemini/README.md")
    text = readme.read_text(encoding="utf-8")
    wrong = text.replace("`~/.gemini/skills/engramory/`", "not supported", 1)
    wrong = wrong.replace("| rules | marked block in `GEMINI.md`", "| rules | `AGENTS.md`", 1)
    wrong += "\n- **No `--global`.** Project installs only.\n"
    readme.write_text(wrong, encoding="utf-8")
    problems = readme_problems(readme.read_text(encoding="utf-8"), HOSTS["gemini"])
    assert any(p.startswith("skill, --global") for p in problems)
    assert any(p.startswith("rules, project") for p in problems)
    assert any("No `--global`" in p for p in problems)


def test_an_overview_claiming_hooks_for_the_wrong_host_is_caught(tmp_path: Path) -> None:
    overview = copy_of(tmp_path, "README.md")
    text = overview.read_text(encoding="utf-8")
    wrong = text.replace(
        "deny hook with `--install-hooks`, once trusted", "deny hook, once trusted"
    )
    wrong = wrong.replace(
        "| block in `~/.gemini/GEMINI.md` | deny hook with `--install-hooks` (runs in",
        "| not supported | rules + `engramory check` (runs in",
    )
    overview.write_text(wrong, encoding="utf-8")
    problems = overview_problems(overview.read_text(encoding="utf-8"))
    assert sorted(p.split(":")[0] for p in problems) == ["Codex CLI", "Gemini CLI", "Gemini CLI"]
