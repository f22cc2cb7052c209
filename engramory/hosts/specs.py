"""Every agent host Engramory can wire, as data: where its rules, skills and hooks go.

The installer (``engramory init`` / ``uninstall``), ``engramory hosts``, the
documents' consistency tests and the adapter READMEs all read this table, so
what the table says is what init does. Facts come from each host's own
documentation (below); a host not run against is marked ``documented`` rather
than ``verified``.

Paths starting with ``~`` are in the user's home (``--global``); other paths
are relative to the project root.

Sources, each host's own documentation:

- claude: https://code.claude.com/docs/en/memory, /skills, /hooks, /settings
- codex: https://developers.openai.com/codex/guides/agents-md, /codex/skills, /codex/hooks
- gemini: https://github.com/google-gemini/gemini-cli, docs/cli/gemini-md.md and docs/cli/skills.md
- cursor: https://cursor.com/docs/context/rules, /docs/context/skills
- copilot: https://docs.github.com/en/copilot (custom instructions; .github/instructions)
- windsurf: https://docs.windsurf.com/windsurf/cascade/memories
- cline: https://github.com/cline/cline, docs/customization/cline-rules.mdx and skills.mdx
- kiro: https://kiro.dev/docs/steering, https://kiro.dev/docs/skills
- continue: https://docs.continue.dev/customize/deep-dives/rules
- opencode: https://opencode.ai/docs/rules, https://opencode.ai/docs/skills
- openclaw: https://docs.openclaw.ai/concepts/agent, /tools/skills
- hermes: https://hermes-agent.nousresearch.com/docs/user-guide/features/context-files, /skills
- dsh: no public documentation could be checked (see adapters/dsh/README.md)
"""

from __future__ import annotations

from dataclasses import dataclass, field

BLOCK = "block"  # a marked block inside a shared rules file
FILE = "file"  # a dedicated rules file, owned whole

VERIFIED = "verified"
DOCUMENTED = "documented"

# How a project's hook config, which holds machine-local absolute paths, is git-ignored.
IGNORE_ALWAYS = "always"  # a machine-local file by the host's own convention
IGNORE_WHILE_OURS = "while-ours"  # a shared file: ignored only while every handler is ours


@dataclass(frozen=True)
class HostSpec:
    """One agent host.

    ``rules`` / ``global_rules``: the always-loaded rules file for a project and
    for ``--global`` (``None``: not supported). ``rules_kind``: ``block`` or
    ``file``; a dedicated file starts with ``frontmatter`` lines;
    ``global_rules_kind`` overrides the kind for ``--global`` (a shared file).
    ``reader_rules``: the dedicated file a reader install writes (block hosts
    reuse ``rules``). ``candidates``: files the host loads instead of ``rules``
    when they exist (the first one found is used). Paths may start with ``~``
    or ``$DSH_HOME``, ``$CODEX_HOME``, ``$HERMES_HOME``. ``skill`` / ``global_skill``:
    the skill directory. ``hook_config`` / ``global_hook_config``: where
    ``--install-hooks`` merges handlers; ``hook_config_ignore`` (``IGNORE_*``) says
    whether init git-ignores the project's hook config. ``store_may_be_native``: whether the
    host's own memory folder is a plain directory Engramory may use as the store.
    """

    name: str
    label: str
    rules: str | None
    global_rules: str | None
    rules_kind: str
    skill: str | None
    global_skill: str | None
    verified: str
    enforcement: str
    frontmatter: tuple[str, ...] = ()
    reader_rules: str | None = None
    reader_frontmatter: tuple[str, ...] = ()
    global_rules_kind: str | None = None
    default_root: str = "."
    hook_config: str | None = None
    global_hook_config: str | None = None
    hook_config_ignore: str | None = None
    pre_write_hook: bool = False
    lifecycle_hooks: tuple[str, ...] = ()
    native_memory: str = ""
    store_may_be_native: bool = False
    candidates: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def marker(self) -> str:
        """The upper-case name in the block markers: ``<!-- BEGIN ENGRAMORY CLAUDE -->``."""
        return self.name.upper()


HOSTS: dict[str, HostSpec] = {}


def _add(spec: HostSpec) -> None:
    HOSTS[spec.name] = spec


_add(
    HostSpec(
        name="claude",
        label="Claude Code",
        rules="CLAUDE.md",
        global_rules="~/.claude/CLAUDE.md",
        rules_kind=BLOCK,
        skill=".claude/skills/engramory",
        global_skill="~/.claude/skills/engramory",
        verified=VERIFIED,
        enforcement="pre-write deny hook (PreToolUse guard on Write|Edit|MultiEdit|Bash) "
        "plus a PostToolUse size check",
        hook_config=".claude/settings.local.json",
        global_hook_config="~/.claude/settings.json",
        hook_config_ignore=IGNORE_ALWAYS,
        pre_write_hook=True,
        lifecycle_hooks=("SessionStart", "UserPromptSubmit", "PreCompact"),
        native_memory="auto-memory in ~/.claude/projects/<project>/memory/ (plain files)",
        store_may_be_native=True,
    )
)
_add(
    HostSpec(
        name="codex",
        label="Codex CLI",
        rules="AGENTS.md",
        global_rules="$CODEX_HOME/AGENTS.md",
        rules_kind=BLOCK,
        candidates=("AGENTS.override.md", "AGENTS.md"),
        skill=".agents/skills/engramory",
        global_skill="~/.agents/skills/engramory",
        verified=VERIFIED,
        enforcement="rules plus `engramory check` after each index edit (Codex edits files "
        "through apply_patch; no pre-write guard is installed)",
        hook_config=".codex/hooks.json",
        global_hook_config="$CODEX_HOME/hooks.json",
        hook_config_ignore=IGNORE_WHILE_OURS,
        lifecycle_hooks=("SessionStart", "UserPromptSubmit", "PreCompact"),
        native_memory="Codex Memories, which Codex generates and manages",
    )
)
_add(
    HostSpec(
        name="gemini",
        label="Gemini CLI",
        rules="GEMINI.md",
        global_rules="~/.gemini/GEMINI.md",
        rules_kind=BLOCK,
        skill=".gemini/skills/engramory",
        global_skill="~/.gemini/skills/engramory",
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit (Gemini CLI has a "
        "BeforeTool hook; Engramory does not install one yet)",
        native_memory="the private project memory the CLI keeps under ~/.gemini/tmp/",
    )
)
_add(
    HostSpec(
        name="cursor",
        label="Cursor",
        rules=".cursor/rules/engramory.mdc",
        global_rules=None,
        rules_kind=FILE,
        frontmatter=("description: Engramory memory discipline (always on)", "alwaysApply: true"),
        reader_rules=".cursor/rules/engramory-recall.mdc",
        reader_frontmatter=(
            "description: Engramory read-only memory recall (always on)",
            "alwaysApply: true",
        ),
        skill=".cursor/skills/engramory",
        global_skill=None,
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit",
        notes=("Cursor's user-wide rules live in its settings, not in a file: no --global.",),
    )
)
_add(
    HostSpec(
        name="copilot",
        label="GitHub Copilot",
        rules=".github/instructions/engramory.instructions.md",
        global_rules=None,
        rules_kind=FILE,
        frontmatter=('applyTo: "**"',),
        reader_rules=".github/instructions/engramory-recall.instructions.md",
        reader_frontmatter=('applyTo: "**"',),
        skill=".github/skills/engramory",
        global_skill=None,
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit",
        notes=("Copilot's instruction files are per repository: no --global.",),
    )
)
_add(
    HostSpec(
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
        enforcement="rules plus `engramory check` after each index edit",
        native_memory="the memories Cascade generates on its own",
        global_rules_kind=BLOCK,
        notes=(
            "Windsurf limits a rules file to 12,000 characters; the Engramory file stays "
            "well under it.",
            "The global rules file is shared: --global writes a marked block into it.",
        ),
    )
)
_add(
    HostSpec(
        name="cline",
        label="Cline",
        rules=".clinerules/engramory.md",
        global_rules="~/Documents/Cline/Rules/engramory.md",
        rules_kind=FILE,
        reader_rules=".clinerules/engramory-recall.md",
        skill=".cline/skills/engramory",
        global_skill="~/.cline/skills/engramory",
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit",
        notes=(
            "A legacy single-file .clinerules must become a folder before init can add "
            "a rule file to it.",
        ),
    )
)
_add(
    HostSpec(
        name="kiro",
        label="Kiro",
        rules=".kiro/steering/engramory.md",
        global_rules="~/.kiro/steering/engramory.md",
        rules_kind=FILE,
        frontmatter=("inclusion: always",),
        reader_rules=".kiro/steering/engramory-recall.md",
        reader_frontmatter=("inclusion: always",),
        skill=".kiro/skills/engramory",
        global_skill="~/.kiro/skills/engramory",
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit",
        notes=(
            "The steering file pulls in the live index with #[[file:...]]; notes must never "
            "go under .kiro/steering/, where every file loads into every request.",
        ),
    )
)
_add(
    HostSpec(
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
        enforcement="rules plus `engramory check` after each index edit (Continue's cn CLI "
        "reads Claude Code hooks but runs them through a shell, without the exec-form `args` "
        "the guard uses)",
    )
)
_add(
    HostSpec(
        name="opencode",
        label="opencode",
        rules="AGENTS.md",
        global_rules="~/.config/opencode/AGENTS.md",
        rules_kind=BLOCK,
        candidates=("AGENTS.md", "CLAUDE.md"),
        skill=".opencode/skills/engramory",
        global_skill="~/.config/opencode/skills/engramory",
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit (a deny needs an "
        "in-process plugin; none is shipped)",
    )
)
_add(
    HostSpec(
        name="openclaw",
        label="OpenClaw",
        rules="AGENTS.md",
        global_rules="~/.openclaw/workspace/AGENTS.md",
        rules_kind=BLOCK,
        skill="skills/engramory",
        global_skill="~/.openclaw/skills/engramory",
        default_root="~/.openclaw/workspace",
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit (a deny needs a "
        "before_tool_call plugin; none is shipped)",
        native_memory="the workspace MEMORY.md and daily memory files OpenClaw writes",
    )
)
_add(
    HostSpec(
        name="hermes",
        label="Hermes Agent",
        rules="AGENTS.md",
        global_rules="$HERMES_HOME/SOUL.md",
        rules_kind=BLOCK,
        candidates=(
            ".hermes.md",
            "HERMES.md",
            "AGENTS.override.md",
            "AGENTS.md",
            "CLAUDE.md",
            ".cursorrules",
        ),
        skill=None,
        global_skill="$HERMES_HOME/skills/engramory",
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit",
        native_memory="~/.hermes/memories/, which its memory tool manages and caps",
        notes=(
            "Hermes loads only the first project context file it finds; the block goes into "
            "that file.",
            "Hermes loads skills only from ~/.hermes/skills: the skill needs --global.",
            "A .hermes.md or HERMES.md in a parent folder, or .cursor/rules/*.mdc with no "
            "other context file, would win over the file init writes: init refuses then.",
        ),
    )
)
_add(
    HostSpec(
        name="dsh",
        label="DeepSeek Harness (dsh)",
        rules="AGENTS.md",
        global_rules="$DSH_HOME/AGENTS.md",
        rules_kind=BLOCK,
        skill=".dsh/skills/engramory",
        global_skill="$DSH_HOME/skills/engramory",
        default_root="$DSH_HOME",
        verified=DOCUMENTED,
        enforcement="rules plus `engramory check` after each index edit (a deny needs the "
        "dsh-engramory plugin, not shipped here)",
        notes=("A global (dsh home) block names absolute paths; a project block relative ones.",),
    )
)


def host_names() -> list[str]:
    """Write hosts and their ``-reader`` forms, in table order."""
    names = list(HOSTS)
    return names + [f"{name}-reader" for name in names]


def resolve(name: str) -> tuple[HostSpec, bool]:
    """``(spec, reader)`` for ``claude`` or ``claude-reader``; ``KeyError`` if unknown."""
    reader = name.endswith("-reader")
    return HOSTS[name[: -len("-reader")] if reader else name], reader
