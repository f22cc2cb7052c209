"""Schema rules: frontmatter fields and the lines each type requires."""

from __future__ import annotations

from pathlib import Path

import pytest

from doctorkit import doctor, fired, make_store, note, rules
from engramory.doctor.rules.schema import find_labels

FM = "---\nname: x\ndescription: d\ntype: {type}\ncreated: 2026-01-10\nupdated: 2026-01-12\n---\n"


def one(tmp_path: Path, text: str | bytes, name: str = "x.md") -> Path:
    return make_store(tmp_path / "s", {name: text}, index=f"- [x]({name})\n")


def body_note(type: str, body: str) -> str:
    return FM.format(type=type) + "\n" + body


def test_valid_notes_of_every_type_are_clean(tmp_path: Path) -> None:
    for kind in ("user", "feedback", "project", "reference"):
        store = one(tmp_path / kind, note("x", kind))
        assert doctor(store).findings == [], kind


# --- no-frontmatter / frontmatter-syntax / duplicate-key ---------------------------------


def test_no_frontmatter(tmp_path: Path) -> None:
    store = one(tmp_path, "# Title\n\ntext\n")
    assert [(f.rule, f.line) for f in doctor(store).findings] == [("no-frontmatter", 1)]


def test_leading_blank_line_means_no_frontmatter(tmp_path: Path) -> None:
    assert "no-frontmatter" in rules(one(tmp_path, "\n" + note("x")))


def test_bom_and_crlf_notes_are_clean(tmp_path: Path) -> None:
    text = note("x", "feedback").replace("\n", "\r\n").encode()
    store = one(tmp_path, b"\xef\xbb\xbf" + text)
    assert doctor(store).findings == []


@pytest.mark.parametrize(
    ("line", "problem_line"),
    [("tags:\n  - a", 8), ("oops", 7), (": value", 7), ('description2: "unclosed', 7)],
)
def test_frontmatter_syntax_with_line(tmp_path: Path, line: str, problem_line: int) -> None:
    text = note("x").replace("updated: 2026-01-12\n", f"updated: 2026-01-12\n{line}\n")
    found = fired(one(tmp_path, text), "frontmatter-syntax")
    assert [f.line for f in found] == [problem_line]


def test_unclosed_fence_is_syntax_and_nothing_else(tmp_path: Path) -> None:
    store = one(tmp_path, "---\nname: x\ntype: feedback\n\nbody without a fence\n")
    assert [(f.rule, f.line) for f in doctor(store).findings] == [("frontmatter-syntax", 1)]


def test_duplicate_key_is_its_own_rule(tmp_path: Path) -> None:
    text = note("x", "feedback").replace("type: feedback\n", "type: feedback\ntype: user\n")
    found = doctor(one(tmp_path, text)).findings
    assert [(f.rule, f.line) for f in found] == [("duplicate-key", 5)]


def test_nested_metadata_type_is_read(tmp_path: Path) -> None:
    text = (
        "---\nname: x\ndescription: d\nmetadata: \n  node_type: memory\n  type: reference\n"
        "  originSessionId: 89dfab34-1de0-4da5-8f71-a42bbfe0e98f\n"
        "created: 2026-01-10\nupdated: 2026-01-12\n---\n\nbody\n"
    )
    assert doctor(one(tmp_path, text)).findings == []


# --- missing-field / invalid-type / invalid-scope ------------------------------------------


@pytest.mark.parametrize("field", ["name", "description", "type"])
def test_missing_field(tmp_path: Path, field: str) -> None:
    found = fired(one(tmp_path, note("x", drop=(field,))), "missing-field")
    assert len(found) == 1 and f"'{field}' is missing" in found[0].message


@pytest.mark.parametrize("value", ['""', "''", '"   "', ""])
def test_empty_field_after_trimming(tmp_path: Path, value: str) -> None:
    text = note("x").replace(
        "description: When to open x: a one-line hook", f"description: {value}"
    )
    found = fired(one(tmp_path, text), "missing-field")
    assert len(found) == 1 and "is empty" in found[0].message and found[0].line == 3


@pytest.mark.parametrize("value", ["Feedback", "handoff", "notes", "user, feedback"])
def test_invalid_type(tmp_path: Path, value: str) -> None:
    (finding,) = fired(one(tmp_path, note("x", type=value)), "invalid-type")
    assert finding.line == 4


def test_quoted_type_is_valid(tmp_path: Path) -> None:
    text = note("x", "reference").replace("type: reference", 'type: "reference"')
    assert fired(one(tmp_path, text), "invalid-type") == []


@pytest.mark.parametrize("value", ["Global", "machine", "repo-only"])
def test_invalid_scope(tmp_path: Path, value: str) -> None:
    assert len(fired(one(tmp_path, note("x", "feedback", scope=value)), "invalid-scope")) == 1


@pytest.mark.parametrize("value", ["global", "repo", ""])
def test_valid_or_empty_scope(tmp_path: Path, value: str) -> None:
    assert fired(one(tmp_path, note("x", "user", scope=value)), "invalid-scope") == []


# --- dates ----------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["created", "updated"])
def test_missing_date(tmp_path: Path, field: str) -> None:
    found = fired(one(tmp_path, note("x", drop=(field,))), "missing-date")
    assert len(found) == 1 and field in found[0].message


@pytest.mark.parametrize(
    "value",
    [
        "2026-1-5",
        "2026-02-30",
        "2026-13-01",
        "0000-01-01",
        "15/01/2026",
        '2026-01-01"',
        "２０２６-０１-０１",
        "2026-01-01T10:00",
        "yesterday",
    ],
)
def test_invalid_date(tmp_path: Path, value: str) -> None:
    assert len(fired(one(tmp_path, note("x", created=value)), "invalid-date")) == 1


@pytest.mark.parametrize("value", ["2024-02-29", '"2026-01-10"'])
def test_valid_dates(tmp_path: Path, value: str) -> None:
    text = note("x").replace("created: 2026-01-10", f"created: {value}")
    assert fired(one(tmp_path, text), "invalid-date") == []


def test_date_order(tmp_path: Path) -> None:
    text = note("x", created="2026-05-01", updated="2026-04-01")
    (finding,) = fired(one(tmp_path, text), "date-order")
    assert finding.severity == "warning" and finding.line == 6


def test_same_day_is_in_order(tmp_path: Path) -> None:
    assert (
        fired(one(tmp_path, note("x", created="2026-05-01", updated="2026-05-01")), "date-order")
        == []
    )


def test_future_date(tmp_path: Path) -> None:
    # doctorkit runs with today = 2026-11-30: tomorrow is fine, the day after is not
    assert fired(one(tmp_path / "a", note("x", updated="2026-12-01")), "future-date") == []
    (finding,) = fired(one(tmp_path / "b", note("x", updated="2026-12-02")), "future-date")
    assert finding.severity == "warning"


# --- Why / How to apply ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "label",
    [
        "Why: r",
        "**Why:** r",
        "**Why**: r",
        "Why：r",
        "## Why: r",
        "- Why: r",
        "* Why: r",
        "> Why: r",
        "why: r",
        "Why : r",
        "    Why: r",
        "\tWhy: r",
        "***Why:*** r",
        "- **Why:** r",
        # issue 31: a heading of any level, with or without more words
        "# Why",
        "## Why",
        "###### why",
        "## Why this matters",
        "### Why this is a standing instruction and not a nicety",
        "## **Why**",
        # issue 31: more words before the colon, or a dash
        "**Why (context):** r",
        "**Why this matters:** r",
        "Why it broke: the cache",
        "**WHY \u2014 the reason:** r",
        "Why \u2014 because r",
        "Why - because r",
        "- **Why** \u2013 r",
    ],
)
def test_accepted_why_labels(tmp_path: Path, label: str) -> None:
    body = f"Fact.\n\n{label}\n\nHow to apply: act.\n"
    assert fired(one(tmp_path, body_note("feedback", body)), "missing-why") == []


@pytest.mark.parametrize(
    "label",
    [
        "_Why:_ r",
        "1. Why: r",
        "| Why: | r |",
        "the Why: it matters",
        "Whyever: r",
        "## Whyever",
        "**Why**",
        "Why",
        "Why does the build fail? See: the log",
        "Why we moved. The new host: faster",
        "Why " + "x" * 80 + ": too long a phrase for a label",
    ],
)
def test_rejected_why_labels(tmp_path: Path, label: str) -> None:
    body = f"Fact.\n\n{label}\n\nHow to apply: act.\n"
    (finding,) = fired(one(tmp_path, body_note("feedback", body)), "missing-why")
    assert finding.severity == "error"


def test_why_near_miss_gets_a_hint(tmp_path: Path) -> None:
    body = "Fact.\n\n1. Why\nbecause\n\nHow to apply: act.\n"
    (finding,) = fired(one(tmp_path, body_note("project", body)), "missing-why")
    assert "line 11 is close" in finding.message and "colon" in finding.message


@pytest.mark.parametrize(
    "label",
    [
        "How to apply: a",
        "**How to apply:** a",
        "### How to apply: a",
        "* How to apply: a",
        "how  to  apply: a",
        "How to apply： a",
        # issue 31
        "## How to apply",
        "# how to apply this in CI",
        "**How to apply \u2014 the pattern:** a",
        "**How to apply (priority order \u2014 cut from the bottom up if time-pressured):**",
        "How to apply - steps: a",
        "HOW TO APPLY - a",
        "**How to apply (context):** a",
    ],
)
def test_accepted_how_labels(tmp_path: Path, label: str) -> None:
    body = f"Fact.\n\nWhy: r\n\n{label}\n"
    assert fired(one(tmp_path, body_note("project", body)), "missing-how-to-apply") == []


@pytest.mark.parametrize(
    "label",
    ["How: a", "**How:** a", "How-to-apply: a", "How to apply a", "## How to applying it"],
)
def test_short_how_labels_are_rejected_with_a_hint(tmp_path: Path, label: str) -> None:
    body = f"Fact.\n\nWhy: r\n\n{label}\n"
    (finding,) = fired(one(tmp_path, body_note("project", body)), "missing-how-to-apply")
    assert "full 'How to apply:' label" in finding.message


@pytest.mark.parametrize(
    ("line", "end"),
    [
        ("**Why:** r", 6),
        ("**Why (context):** r", 16),
        ("**How to apply \u2014 the pattern:** r", 29),
        ("How to apply - steps: r", 21),
        ("Why \u2014 because", 5),
        ("## Why this matters", 19),
        ("## Why: r", 7),
    ],
)
def test_a_labels_text_starts_after_its_colon_or_dash_or_heading(line: str, end: int) -> None:
    """``end`` is where the label's text starts (what empty-label and export read): after
    the colon when there is one, after a dash, else (a heading) at the end of the line."""
    ((_word, start, found),) = find_labels(line)
    assert (start, found) == (0, end)


def test_heading_labels_followed_by_their_text_are_not_empty(tmp_path: Path) -> None:
    body = "## Why this is a standing instruction\n\nThe reason.\n\n## How to apply\n\n- act\n"
    store = one(tmp_path, body_note("feedback", body))
    assert not rules(store) & {"missing-why", "missing-how-to-apply", "empty-label"}


def test_a_heading_label_with_nothing_under_it_is_empty(tmp_path: Path) -> None:
    body = "## Why\n\n## How to apply\n\n- act\n"
    (finding,) = fired(one(tmp_path, body_note("feedback", body)), "empty-label")
    assert finding.line == 9 and "'Why:' has nothing after it" in finding.message


def test_labels_inside_the_frontmatter_do_not_count(tmp_path: Path) -> None:
    text = FM.format(type="feedback")
    text = text.replace("updated: 2026-01-12\n", "updated: 2026-01-12\nWhy: x\nHow to apply: y\n")
    text += "\nbody\n"
    found = rules(one(tmp_path, text))
    assert {"missing-why", "missing-how-to-apply"} <= found


def test_user_and_reference_notes_need_no_labels(tmp_path: Path) -> None:
    for kind in ("user", "reference"):
        store = one(tmp_path / kind, body_note(kind, "just a fact\n"))
        assert not rules(store) & {"missing-why", "missing-how-to-apply"}


def test_invalid_type_skips_the_label_rules(tmp_path: Path) -> None:
    store = one(tmp_path, body_note("Feedback", "no labels\n"))
    assert not rules(store) & {"missing-why", "missing-how-to-apply"}


# --- empty-label --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "**Why:**\n**How to apply:** act\n",
        "Why:\n\n## Next\ntext\nHow to apply: act\n",
        "Why: r\nHow to apply:\n",
    ],
)
def test_empty_label(tmp_path: Path, body: str) -> None:
    (finding,) = fired(one(tmp_path, body_note("feedback", body)), "empty-label")
    assert finding.severity == "warning" and finding.line is not None


@pytest.mark.parametrize(
    "body",
    [
        "**Why:**\nbecause of X\n\n**How to apply:**\n- step one\n",
        "Why: r\nHow to apply: a\n",
        "**Why:**\n\n---\n\nthe reason\nHow to apply: a\n",
    ],
)
def test_label_with_text_below_is_not_empty(tmp_path: Path, body: str) -> None:
    assert fired(one(tmp_path, body_note("project", body)), "empty-label") == []


# --- name-mismatch / missing-scope / unknown-key -------------------------------------------


@pytest.mark.parametrize(
    ("name", "file"),
    [
        ("a-b-c", "a_b_c.md"),
        ("audit-methodology", "feedback_audit_methodology.md"),
        ("feedback-audit", "audit.md"),
        ("A-Note", "a-note.md"),
        ("x", "x.MD"),
    ],
)
def test_name_matches_with_tolerances(tmp_path: Path, name: str, file: str) -> None:
    store = one(tmp_path, note(name), name=file)
    assert fired(store, "name-mismatch") == []


@pytest.mark.parametrize(
    ("name", "file"), [("deploy-rules", "release.md"), ("my-note", "my note.md")]
)
def test_name_mismatch(tmp_path: Path, name: str, file: str) -> None:
    (finding,) = fired(one(tmp_path, note(name), name=file), "name-mismatch")
    assert finding.severity == "info" and finding.line == 2


def test_missing_scope_once_per_note_for_feedback_and_project(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {
            "f.md": note("f", "feedback", drop=("scope",)),
            "p.md": note("p", "project", scope=""),
            "u.md": note("u", "user"),
            "r.md": note("r", "reference"),
        },
    )
    assert sorted(f.path for f in fired(store, "missing-scope")) == ["f.md", "p.md"]


def test_scope_present_is_quiet(tmp_path: Path) -> None:
    assert fired(one(tmp_path, note("x", "feedback", scope="global")), "missing-scope") == []


def test_unknown_key_with_a_suggestion(tmp_path: Path) -> None:
    text = note("x").replace("description:", "desciption:")
    found = doctor(one(tmp_path, text)).findings
    unknown = [f for f in found if f.rule == "unknown-key"]
    assert len(unknown) == 1 and "did you mean 'description'" in unknown[0].message
    assert "missing-field" in {f.rule for f in found}


def test_host_native_keys_are_known(tmp_path: Path) -> None:
    text = note("x", metadata="", originSessionId="abc", node_type="memory", modified="2026-01-12")
    assert fired(one(tmp_path, text), "unknown-key") == []


# --- --no-schema ----------------------------------------------------------------------------


def test_no_schema_skips_every_schema_rule_but_keeps_structure(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"x.md": "no frontmatter\n", "orphan.md": "# Orphan\n"},
        index="- [x](x.md)\n- [gone](gone.md)\n",
    )
    assert {"no-frontmatter", "orphan", "pointer-missing"} <= rules(store)
    assert rules(store, schema=False) == {"orphan", "pointer-missing"}
