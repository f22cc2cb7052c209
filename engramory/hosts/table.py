"""The hosts that are data only: no refusal, rules text or hook form of their own.

Each is a plain :class:`~engramory.hosts.base.Host`; a host that needs
behaviour gets its own module instead (``claude.py``, ``codex.py``, ...).
:mod:`engramory.hosts.registry` lists every host, in the order ``engramory
hosts`` prints them. Facts come from each host's own documentation; where it
is unclear the documented behaviour is used and the host is marked
``documented`` rather than ``verified``.
"""

from __future__ import annotations

from engramory.hosts.base import BLOCK, DOCUMENTED, FILE, Host

WINDSURF = Host(
    name="windsurf",
    label="Windsurf",
    rules=".windsurf/rules/engramory.md",
    global_rules="~/.codeium/windsurf/memories/global_rules.md",
    rules_kind=FILE,
    frontmatter=("trigger: always_on",),
    reader_rules=".windsurf/rules/engramory-recall.md",
    reader_frontmatter=("trigger: always_on",),
    skill=None,
    global_skill=None,
    verified=DOCUMENTED,
    enforcement="rules plus `engramory check` after each index edit; in Devin Desktop "
    "(Windsurf's successor) the Claude Code guard covers it: Devin runs the hooks in .claude/, "
    "so run `engramory init claude --install-hooks` in the project (legacy Cascade "
    "pre_write_code hooks: documented only, not installed)",
    native_memory="the memories Cascade generates on its own",
    global_rules_kind=BLOCK,
    notes=(
        "Windsurf limits a rules file to 12,000 characters; the Engramory file stays "
        "well under it.",
        "The global rules file is shared: --global writes a marked block into it.",
        "Devin Desktop runs Claude Code's hooks (.claude/settings*.json) with its own tool "
        "names (write, edit, apply_patch, exec) and no cwd; the guard reads them "
        "($DEVIN_PROJECT_DIR for the project). Unverified against a running Devin.",
    ),
)
CONTINUE = Host(
    name="continue",
    label="Continue",
    rules=".continue/rules/engramory.md",
    global_rules="~/.continue/rules/engramory.md",
    rules_kind=FILE,
    frontmatter=("name: Engramory memory", "alwaysApply: true"),
    reader_rules=".continue/rules/engramory-recall.md",
    reader_frontmatter=("name: Engramory read-only memory", "alwaysApply: true"),
    skill=".continue/skills/engramory",
    global_skill="~/.continue/skills/engramory",
    verified=DOCUMENTED,
    enforcement="rules plus `engramory check` after each index edit: Continue's hooks never "
    "fire today (its cn CLI parses hook configs, its own and Claude Code's, but nothing runs "
    "them), so no guard or reminder is installed",
)
DSH = Host(
    name="dsh",
    label="DeepSeek Harness (dsh)",
    rules="AGENTS.md",
    global_rules="$DSH_HOME/AGENTS.md",
    rules_kind=BLOCK,
    skill=".dsh/skills/engramory",
    global_skill="$DSH_HOME/skills/engramory",
    default_root="$DSH_HOME",
    own_home="$DSH_HOME",
    verified=DOCUMENTED,
    enforcement="rules plus `engramory check` after each index edit (a deny needs the "
    "dsh-engramory plugin, not shipped here)",
    notes=("A global (dsh home) block names absolute paths; a project block relative ones.",),
)
