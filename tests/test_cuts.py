"""Each host's own cut (engramory.cuts): fixtures from each host's documented layout, and
property tests against straightforward reference implementations."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.cuts import claude, codex, gemini, hermes, qwen
from engramory.cuts.falloff import falls_off
from engramory.cuts.model import JS_WHITESPACE, utf16_units


def pointer(i: int, width: int) -> str:
    """A pointer line of exactly ``width`` characters (``width`` >= 20)."""
    head = f"- [N{i}](n{i}.md) — "
    return head + "x" * (width - len(head))


# --- references --------------------------------------------------------------------------


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def qwen_reference(lines: list[str]) -> set[int]:
    """trimIndexToBudget, read literally: short lines first, each added if the whole still fits."""
    entries = lines[:200]
    if units("\n".join(entries)) <= 25_000:
        return set(range(len(entries)))
    order = [i for i, e in enumerate(entries) if units(e) <= 150]
    order += [i for i, e in enumerate(entries) if units(e) > 150]
    kept: list[int] = []
    for i in order:
        trial = sorted([*kept, i])
        if units("\n".join(entries[j] for j in trial)) <= 25_000:
            kept.append(i)
    return set(kept)


def claude_reference(text: str, strip_comments: bool) -> str:
    """What Claude Code loads, computed on the string as its loader does (UTF-16 indexes)."""
    lines = text.split("\n")
    if strip_comments:
        kept, inside = [], False
        if lines and lines[0] == "---" and "---" in lines[1:]:
            lines = lines[lines.index("---", 1) + 1 :]
        for line in lines:
            if inside:
                inside = "-->" not in line
                continue
            if line.strip().startswith("<!--"):
                inside = "-->" not in line.strip()[4:]
                continue
            kept.append(line)
        lines = kept
    trimmed = "\n".join(lines).strip(JS_WHITESPACE)
    truncated = "\n".join(trimmed.split("\n")[:200])
    encoded = truncated.encode("utf-16-le")
    if len(encoded) // 2 > 25_000:
        window = encoded[: 25_001 * 2].decode("utf-16-le", "surrogatepass")
        cut_at = window.rfind("\n")
        truncated = truncated[:cut_at] if cut_at > 0 else truncated[:25_000]
    return truncated


def loaded_before_first_drop(text: str, cut_lines: tuple[int, ...], skipped: set[int]) -> str:
    raw = text.split("\n")
    first = cut_lines[0] if cut_lines else len(raw) + 1
    kept = [raw[n - 1] for n in range(1, len(raw) + 1) if n not in skipped and n < first]
    return "\n".join(kept).strip(JS_WHITESPACE)


# --- Claude Code ---------------------------------------------------------------------------


def comment_index(comment_lines: int) -> str:
    """An index whose HTML comment alone takes it past 25,000 units: 150 pointers of 150."""
    pointers = [pointer(i, 150) for i in range(150)]
    comment = ["<!-- compaction log"] + ["log " + "y" * 96] * comment_lines + ["-->"]
    return "\n".join(["# Index", *comment, *pointers]) + "\n"


def test_claude_html_comment_counts_before_2_1_211_and_cuts_the_newest() -> None:
    text = comment_index(30)
    result = claude.cut(text, None)
    assert result.used > 25_000
    assert result.dropped, "the comment pushes the last pointers past the cut"
    assert result.dropped[-1] == len(text.split("\n")) - 1  # the newest line is the first to go
    assert result.dropped == tuple(range(result.dropped[0], result.dropped[-1] + 1))


def test_claude_html_comment_not_counted_from_2_1_211_loads_all() -> None:
    text = comment_index(30)
    result = claude.cut(text, (2, 1, 211))
    assert result.used <= 25_000
    assert result.dropped == ()
    assert result.loads_all
    assert not claude.cut(text, (2, 1, 210)).loads_all


def test_claude_frontmatter_not_counted_from_2_1_211() -> None:
    body = "\n".join(pointer(i, 40) for i in range(196))  # 201 lines in all
    text = "---\nname: index\ndescription: d\ntype: reference\n---\n" + body + "\n"
    assert claude.cut(text, None).dropped  # 200 lines with the frontmatter counted
    assert claude.cut(text, (2, 1, 211)).dropped == ()


def test_claude_line_cut_keeps_200_trimmed_lines() -> None:
    text = "\n\n" + "\n".join(pointer(i, 30) for i in range(205)) + "\n"
    result = claude.cut(text, None)
    assert result.dropped == tuple(range(203, 208))  # two leading blank lines are trimmed


def test_claude_counts_utf16_units_not_bytes() -> None:
    text = "\n".join("- [x](x.md) " + "€" * 150 for _ in range(150))  # 3 bytes, 1 unit each
    result = claude.cut(text, None)
    assert len(text.encode()) > 25_000
    assert result.used == utf16_units(text) <= 25_000
    assert result.loads_all


lines_strategy = st.lists(
    st.one_of(
        st.integers(20, 400).map(lambda w: pointer(0, w)),
        st.just(""),
        st.just("<!-- a comment"),
        st.just("-->"),
        st.just("<!-- one line -->"),
        st.integers(1, 60).map(lambda n: "- [😀](e.md) " + "😀" * n),
    ),
    min_size=120,
    max_size=260,
)


@settings(max_examples=60, deadline=None)
@given(lines=lines_strategy, strip=st.booleans())
def test_claude_cut_matches_reference_and_falls_off_past_the_cut(
    lines: list[str], strip: bool
) -> None:
    text = "\n".join(lines)
    version = (2, 1, 211) if strip else (2, 1, 0)
    result = claude.cut(text, version)
    skipped = claude.uncounted_lines(text) if strip else set()
    reference = claude_reference(text, strip)
    assert loaded_before_first_drop(text, result.dropped, skipped) == reference.strip(JS_WHITESPACE)
    raw = text.split("\n")
    if result.dropped:
        beyond = [
            n
            for n in range(result.dropped[0], len(raw) + 1)
            if n not in skipped and raw[n - 1].strip()
        ]
        assert list(result.dropped) == beyond  # a tail cut: every counted line past it


# --- Qwen Code -----------------------------------------------------------------------------


def test_qwen_drops_long_lines_first_and_keeps_later_short_ones() -> None:
    long_lines = [pointer(i, 1_000) for i in range(30)]  # 30,000 units of long entries
    short = [pointer(100 + i, 100) for i in range(20)]  # the newest entries, at the bottom
    text = "\n".join(long_lines + short) + "\n"
    result = qwen.cut(text)
    assert result.dropped == tuple(range(23, 31))  # the last long lines that no longer fit
    assert set(range(31, 51)).isdisjoint(result.dropped)  # every short line below them loads
    tail = claude.cut(text, None).dropped
    assert tail[-1] == 50 and set(range(31, 51)) <= set(tail)  # Claude's tail cut loses them


def test_qwen_within_budget_keeps_everything() -> None:
    text = "\n".join(pointer(i, 100) for i in range(200)) + "\n"
    assert qwen.cut(text).loads_all


def test_qwen_line_cap_drops_past_200() -> None:
    text = "\n".join(pointer(i, 30) for i in range(201))
    assert qwen.cut(text).dropped == (201,)


@settings(max_examples=80, deadline=None)
@given(widths=st.lists(st.integers(1, 600), min_size=60, max_size=240))
def test_qwen_trim_matches_reference(widths: list[int]) -> None:
    lines = ["z" * w for w in widths]  # no blank line: the host trims the ends first
    assert qwen.trim_to_budget(lines) == qwen_reference(lines)
    text = "\n".join(lines)
    kept = qwen_reference(lines)
    expected = tuple(i + 1 for i, line in enumerate(lines) if i not in kept and line.strip())
    assert qwen.cut(text).dropped == expected  # the fall-off list is exactly what is not kept


# --- Codex ---------------------------------------------------------------------------------


def codex_summary(count: int) -> bytes:
    return ("v1\n" + "".join(pointer(i, 69) + "\n" for i in range(count))).encode()


def test_codex_middle_cut_keeps_beginning_and_end() -> None:
    data = codex_summary(200)  # 14,000+ bytes, over the 10,000-byte (2,500-token) budget
    result = codex.cut(data)
    assert result.used == -(-len(data) // 4) > 2_500
    assert 1 not in result.dropped and 2 not in result.dropped  # the header and the oldest
    assert len(data.split(b"\n")) - 1 not in result.dropped  # the last line
    assert result.dropped == tuple(range(result.dropped[0], result.dropped[-1] + 1))
    head, tail = codex.kept_spans(data)
    assert head == 5_000 and tail == len(data) - 5_000  # the host's own split, byte for byte


def test_codex_never_counts_under_a_token_per_4_bytes() -> None:
    for size in (0, 1, 3, 4, 5, 9_999, 10_000, 10_001):
        assert codex.tokens(size) * 4 >= size


def test_codex_keeps_utf8_characters_whole() -> None:
    data = ("v1\n" + "é" * 6_000).encode()
    head, tail = codex.kept_spans(data)
    data[:head].decode()
    data[tail:].decode()


def test_codex_within_budget_loads_all() -> None:
    assert codex.cut(codex_summary(100)).loads_all


# --- Hermes and Gemini ---------------------------------------------------------------------


def hermes_text(count: int, width: int) -> str:
    return "\n§\n".join(f"entry {i}: " + "w" * width for i in range(count))


def test_hermes_over_cap_names_the_newest_entries() -> None:
    text = hermes_text(30, 90)  # 30 entries of 99-100 characters, with 3-character separators
    result = hermes.cut(text)
    assert result.limit == 2_200
    assert result.used == len(text)
    assert result.over_by == len(text) - 2_200
    starts = [1 + 2 * i for i in range(30)]  # each entry is one line, each separator another
    fit = max(k for k in range(31) if len("\n§\n".join(text.split("\n§\n")[:k])) <= 2_200)
    assert list(result.dropped) == starts[fit:]


def test_hermes_user_file_cap_and_duplicates_dropped() -> None:
    text = hermes_text(3, 10) + "\n§\n" + "entry 0: " + "w" * 10 + "\n§\n  \n"
    result = hermes.cut(text, "USER.md")
    assert result.limit == 1_375
    assert result.used == len(hermes_text(3, 10))
    assert "1 duplicate" in result.explain
    assert result.loads_all


def test_gemini_has_no_cap() -> None:
    result = gemini.cut("\n".join(pointer(i, 200) for i in range(400)))
    assert result.limit is None and result.loads_all and result.used > 25_000


# --- what falls off, named ----------------------------------------------------------------


def write_note(folder: Path, name: str, description: str, extra: str = "") -> None:
    (folder / name).write_text(
        f"---\nname: {name[:-3]}\ndescription: {description}\ntype: feedback\n{extra}---\nbody\n"
    )


def test_falls_off_names_note_and_description_and_flags_corrections(tmp_path: Path) -> None:
    write_note(tmp_path, "deploy.md", "Deploy from main")
    write_note(tmp_path, "deploy-fix.md", "Deploy from release", "supersedes: deploy\n")
    write_note(tmp_path, "cache-supersedes-deploy.md", "Caches replace deploys")
    write_note(tmp_path, "other.md", "Unrelated")
    filler = [pointer(i, 30) for i in range(200)]
    lines = ["- [Deploy](deploy.md) — old", *filler[:199]]
    lines += ["- [Fix](deploy-fix.md)", "- [Again](deploy.md)", "- [C](cache-supersedes-deploy.md)"]
    lines += ["- [Other](other.md)"]
    text = "\n".join(lines) + "\n"
    result = claude.cut(text, None)
    items = falls_off(str(tmp_path), text, result)
    assert [item.line for item in items] == list(result.dropped) == [201, 202, 203, 204]
    by_line = {item.line: item for item in items}
    assert by_line[201].note == "deploy-fix.md"
    assert by_line[201].description == "Deploy from release"
    assert (by_line[201].corrects_line, by_line[201].corrects_note) == (1, "deploy.md")
    assert by_line[202].corrects_line == 1  # the same note again
    assert by_line[203].corrects_line == 1  # <new>-supersedes-<old>
    assert by_line[204].corrects_line is None and by_line[204].description == "Unrelated"


def test_falls_off_never_reads_a_note_outside_the_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    write_note(tmp_path, "secret.md", "outside")
    (store / "link.md").symlink_to(tmp_path / "secret.md")
    text = "\n".join(
        [pointer(i, 30) for i in range(200)] + ["- [L](link.md)", "- [U](../secret.md)"]
    )
    items = falls_off(str(store), text, claude.cut(text, None))
    assert [(item.note, item.description) for item in items] == [(None, None), (None, None)]


def test_hermes_entry_lines_follow_multiline_entries() -> None:
    text = "first\nstill first\n§\n\n  second\n§\nthird"
    assert [(e.line, e.text) for e in hermes.entries(text)[0]] == [
        (1, "first\nstill first"),
        (5, "second"),
        (7, "third"),
    ]
