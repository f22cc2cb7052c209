"""Index line classification and link extraction (pure text)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.store import markdown
from engramory.store.markdown import Link, body_wikilinks, classify_index, find_links


@pytest.mark.parametrize(
    ("line", "links"),
    [
        ("- [Title](a.md) — hook", [Link("link", "a.md")]),
        ("[x](<my note.md>)", [Link("link", "my note.md")]),
        ('- [a](a.md "T") [b](b.md#x)', [Link("link", "a.md"), Link("link", "b.md#x")]),
        ("[Title [v2]](x.md)", [Link("link", "x.md")]),
        ("[x](a_(b).md)", [Link("link", "a_(b).md")]),
        ("[[slug|Alias]] and [[b#h]]", [Link("wikilink", "slug"), Link("wikilink", "b")]),
        ("![diagram](a.png)", []),
        ("`[x](a.md)` in code", []),
        ("plain text", []),
    ],
)
def test_find_links(line: str, links: list[Link]) -> None:
    assert find_links(line) == links


@pytest.mark.parametrize(
    ("line", "reason"),
    [("[x](my note.md)", "raw space"), ("[x]: a.md", "reference-style"), ("[x](<a.md)", "'>'")],
)
def test_unparsable_links_say_why(line: str, reason: str) -> None:
    (link,) = find_links(line)
    assert link.form == markdown.UNPARSABLE and reason in link.reason


def test_classify_index_kinds_and_sections() -> None:
    text = (
        "# Memory\n\n> quote\n<!-- a\nb -->\n## Feedback\n- [a](a.md)\nprose\n"
        "| File | X |\n|---|---|\n| [f](f.md) | d |\n---\n```\n[c](c.md)\n```\n## Other\nx\n"
    )
    kinds = [(line.number, line.kind, line.section) for line in classify_index(text)]
    assert kinds == [
        (1, "heading", None),
        (2, "blank", None),
        (3, "quote", None),
        (4, "comment", None),
        (5, "comment", None),
        (6, "heading", "feedback"),
        (7, "text", "feedback"),
        (8, "text", "feedback"),
        (9, "table-rule", "feedback"),
        (10, "table-rule", "feedback"),
        (11, "text", "feedback"),
        (12, "rule", "feedback"),
        (13, "code", "feedback"),
        (14, "code", "feedback"),
        (15, "code", "feedback"),
        (16, "heading", None),
        (17, "text", None),
    ]


def test_crlf_index_lines_lose_their_cr() -> None:
    (line,) = classify_index("- [a](a.md)\r\n")
    assert line.text == "- [a](a.md)" and line.links == (Link("link", "a.md"),)


def test_body_wikilinks_skip_code_and_count_lines() -> None:
    body = "a [[x]]\n```\n[[in-code]]\n```\n`[[inline]]` [[y|Y]]\n\n[[z#h]]\n"
    assert body_wikilinks(body, 10) == [("x", 10), ("y", 14), ("z", 16)]


@settings(max_examples=300)
@given(st.text(max_size=400))
def test_classifying_arbitrary_text_never_raises(text: str) -> None:
    lines = classify_index(text)
    assert all(line.number >= 1 for line in lines)
    body_wikilinks(text, 1)


@settings(max_examples=300)
@given(
    st.lists(
        st.sampled_from(
            ["[", "]", "(", ")", "<", ">", "`", "!", " ", "a.md", "[[", "]]", '"', "|"]
        ),
        max_size=80,
    )
)
def test_link_parser_never_raises_on_bracket_soup(tokens: list[str]) -> None:
    find_links("".join(tokens))
