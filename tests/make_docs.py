"""Regenerate the parts of the documents that are generated from the code.

* Between ``<!-- hosts-table:begin -->`` and ``<!-- hosts-table:end -->`` in
  README.md, PORTING.md, AGENT-SETUP.md and adapters/README.md: the table of
  what each host gets, exactly as ``engramory hosts --format markdown`` prints
  it (:func:`engramory.hosts.summary.markdown_table`).
* ``docs/rules.md``: the doctor's rule catalogue, from the rule registry
  (:data:`engramory.doctor.rules.REGISTRY`), the examples ``--explain`` shows.

``tests/test_generated_docs.py`` fails when a document differs from what this
writes. Run from the repository root::

    python3 tests/make_docs.py          # rewrites the generated parts
    python3 tests/make_docs.py --check  # exit 1 naming each stale document
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from engramory import secrets  # noqa: E402
from engramory.doctor.model import Rule  # noqa: E402
from engramory.doctor.profiles import PROFILES  # noqa: E402
from engramory.doctor.rules import REGISTRY  # noqa: E402
from engramory.hosts.summary import BEGIN_MARKER, END_MARKER, markdown_table  # noqa: E402
from engramory.report.catalogue import example_text, profile_severity  # noqa: E402

REGENERATE = "python3 tests/make_docs.py"
HOSTS_TABLE_DOCUMENTS = ("README.md", "PORTING.md", "AGENT-SETUP.md", "adapters/README.md")
RULES_PAGE = "docs/rules.md"

# Why each area's rules matter, keyed by the module a rule lives in.
AREA_WHY = {
    "codex": "Codex injects only memory_summary.md, cut silently in the middle past 2,500 "
    "tokens, and keeps MEMORY.md as a handbook of task groups; these rules run only under "
    "the codex-memories profile and never write Codex's managed folder.",
    "hermes": "Hermes keeps MEMORY.md and USER.md as entries split by lines holding `§`, each "
    "file under a character cap its memory tool enforces by refusing adds; these rules run "
    "only under the hermes profile.",
    "index": "The index is the one file the host loads every session, and only its first "
    "200 lines / 25,000 bytes: an index the host cannot read, or one whose pointers lead "
    "nowhere or out of the store, loses memories silently or exposes files that are not "
    "memories.",
    "notes": "Every live note must be a readable file inside the store that the index "
    "reaches; a note nobody can reach is never recalled, and a file outside the store is "
    "not the store's to read.",
    "schema": "The frontmatter is what an agent reads before it opens a note (the name, the "
    "one-line description, the type and the dates); a missing or malformed field makes "
    "recall and curation guess.",
    "content": "A memory holds settled facts in absolute terms; relative dates, current "
    "state and logs go stale within days and mislead the next session.",
    "duplicates": "Two notes that say the same thing split one fact in two: the index pays "
    "twice and the copies drift apart.",
    "secrets": "The store is plain text an agent pastes into every session; a credential "
    "written there leaks into transcripts, commits and other tools.",
    "history": "Hosts delete memory themselves (a background consolidation, a session "
    "cleanup) without passing a hook; the store's history is what can give it back, and only "
    "while someone notices.",
    "elsewhere": "The host files a project's memory under its path: a project moved, renamed "
    "or cloned twice starts from an empty folder while its notes sit in another, unloaded.",
}


def _prose(text: str) -> str:
    """A rule's own words as Markdown text: a link written as an example
    (``[title](note.md)`` in a hint) becomes a code span, not a link."""
    return re.sub(r"\[[^\]\n]*\]\([^)\n]*\)", lambda m: f"`{m.group(0)}`", text)


def hosts_region() -> str:
    return f"{BEGIN_MARKER}\n{markdown_table()}{END_MARKER}"


def with_hosts_table(text: str) -> str:
    """``text`` with its hosts-table region (which must exist, once) regenerated."""
    start = text.index(BEGIN_MARKER)
    end = text.index(END_MARKER, start) + len(END_MARKER)
    if BEGIN_MARKER in text[end:]:
        raise ValueError("more than one hosts-table region")
    return text[:start] + hosts_region() + text[end:]


def _area(rule: Rule) -> str:
    return rule.check.__module__.rsplit(".", 1)[-1]


def _severity_line(rule: Rule) -> str:
    by_profile = {p.name: profile_severity(p, rule) for p in PROFILES.values() if p.differs(rule)}
    others = [f"{name}: {sev}" for name, sev in by_profile.items() if sev != rule.severity]
    extra = f" (profile {'; '.join(others)})" if others else ""
    schema = "; a schema rule (`--no-schema` skips it)" if rule.schema else ""
    return f"**Severity:** {rule.severity}{extra}{schema}."


def _allow_line(rule: Rule) -> str:
    return (
        f"**Allow it:** `<!-- engramory: allow {rule.id} -->` on the finding's line, or "
        "alone on the line above it (a finding without a line: anywhere in `MEMORY.md`); "
        f"or leave the rule out of a run with `engramory doctor --ignore {rule.id}`."
    )


def _repair_line(rule: Rule) -> str:
    """Whether ``engramory fix`` repairs the rule's findings, and with which repair."""
    if rule.repair is None:
        return "**Fixed by `engramory fix`:** no."
    only = ""
    if rule.repair_keys is not None:
        keys = ", ".join(f"`{key}`" for key in rule.repair_keys)
        only = f", only its findings about {keys}"
    return (
        f"**Fixed by `engramory fix`:** yes, by its `{rule.repair}` repair "
        f"(`engramory fix --select {rule.repair}`){only}."
    )


def _example_block(heading: str, rule: Rule, index: int) -> Iterator[str]:
    examples = rule.fires if heading == "Fires on" else rule.quiet
    yield f"**{heading}:**"
    yield ""
    yield "```text"
    yield from (secrets.redact(line) for line in example_text(examples[index]))
    yield "```"
    yield ""


def rule_section(rule: Rule) -> list[str]:
    return [
        f"## `{rule.id}`",
        "",
        f"**What it checks:** {_prose(rule.summary)}.",
        "",
        _severity_line(rule),
        "",
        f"**Why:** {AREA_WHY[_area(rule)]}",
        "",
        *_example_block("Fires on", rule, 0),
        *_example_block("Quiet on", rule, 0),
        f"**Fix:** {_prose(rule.fix)}.",
        "",
        _repair_line(rule),
        "",
        _allow_line(rule),
        "",
    ]


def rules_page() -> str:
    head = [
        "# The doctor's rules",
        "",
        f"<!-- generated by `{REGENERATE}` from the rule registry; do not edit by hand -->",
        "",
        f"`engramory doctor` checks a store against these {len(REGISTRY)} rules, in this "
        "order. `engramory doctor --list-rules` prints the catalogue and `engramory doctor "
        "--explain RULE` one rule with every example; each example below is a store the "
        "test suite runs the rule on. Severities are the `engramory` profile's.",
        "",
        "| rule | severity | what it checks |",
        "|---|---|---|",
        *(f"| [`{r.id}`](#{r.id}) | {r.severity} | {_prose(r.summary)} |" for r in REGISTRY),
        "",
    ]
    body = [line for rule in REGISTRY for line in rule_section(rule)]
    return "\n".join(head + body).rstrip("\n") + "\n"


def generated() -> dict[str, str]:
    """Every generated document's expected text, by repository-relative path."""
    expected = {
        rel: with_hosts_table((REPO / rel).read_text(encoding="utf-8"))
        for rel in HOSTS_TABLE_DOCUMENTS
    }
    expected[RULES_PAGE] = rules_page()
    return expected


def stale() -> list[str]:
    """The generated documents whose text differs from :func:`generated`."""
    out = []
    for rel, text in generated().items():
        path = REPO / rel
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            out.append(rel)
    return out


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        names = stale()
        for rel in names:
            print(f"{rel}: stale; run {REGENERATE}")
        return 1 if names else 0
    for rel, text in generated().items():
        (REPO / rel).write_text(text, encoding="utf-8")
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
