"""near-duplicate: which pairs it reports, how it words them, and that it is not quadratic.

The rule's own examples (tests/test_doctor_rules.py) cover the basic shapes;
these tests pin the contract details (the later note, once, naming the
earliest; the 20-word floor; --no-schema; workers), the search's recall at
the 0.8 threshold, and the work it does as a store grows.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import REPO
from doctorkit import TODAY, doctor, fired, make_store, note
from engramory.doctor import engine, workers
from engramory.doctor.context import Options
from engramory.doctor.rules import duplicates
from engramory.doctor.rules.duplicates import (
    CROWD,
    Likeness,
    Parts,
    Work,
    candidates,
    find_duplicates,
    fingerprint_of,
    likeness,
    normal_description,
    shingles,
)
from engramory.store.caps import Caps

RULE = "near-duplicate"
_SYLLABLES = ("ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "gu", "ba", "ze", "vo", "xi")


def vocabulary(size: int, seed: int = 7) -> list[str]:
    """``size`` distinct made-up words."""
    pick = random.Random(seed)
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(pick.choice(_SYLLABLES) for _ in range(pick.randint(2, 4))))
    return sorted(words)


WORDS = vocabulary(4000)


def text(count: int, seed: int) -> str:
    """``count`` words drawn at random (by ``seed``) from a large vocabulary."""
    pick = random.Random(seed)
    return " ".join(pick.choice(WORDS) for _ in range(count))


def with_word_changed(body: str, position: int) -> str:
    words = body.split()
    words[position] = "zzchanged"
    return " ".join(words)


def messages(root: Path) -> list[tuple[str, str]]:
    return [(f.path, f.message) for f in fired(root, RULE)]


# --- which pairs ------------------------------------------------------------------------------


def test_one_word_of_sixty_fires_on_the_later_note_naming_the_earlier(tmp_path: Path) -> None:
    body = text(60, 1)
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", body=body + "\n"), "b.md": note("b", body=with_word_changed(body, 30))},
    )
    ((path, message),) = messages(store)
    assert path == "b.md"
    assert "says nearly the same as a.md" in message
    # each body has 58 3-grams; the 3 that hold word 30 differ: 55 shared of 61 in all
    assert "(90% of the word triples in their bodies are shared)" in message
    (finding,) = fired(store, RULE)
    assert (finding.severity, finding.line) == ("warning", None)


def test_two_unrelated_notes_do_not_fire(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", body=text(60, 1) + "\n"), "b.md": note("b", body=text(60, 2) + "\n")},
    )
    assert messages(store) == []


def test_identical_descriptions_fire_up_to_case_and_spacing(tmp_path: Path) -> None:
    store = make_store(
        tmp_path / "s",
        {
            "a.md": note("a", description="Deploys go through the pipeline"),
            "b.md": note("b", description="deploys  go through THE\tpipeline"),
            "c.md": note("c", description="Deploys go through the pipelines"),
        },
    )
    assert messages(store) == [
        (
            "b.md",
            "this note has the same description as a.md: merge the two, or reword this "
            "description to say what only this note holds",
        )
    ]


def test_a_19_word_body_is_not_compared_and_a_20_word_body_is(tmp_path: Path) -> None:
    nineteen, twenty = text(19, 3), text(20, 3)
    short = make_store(
        tmp_path / "short",
        {"a.md": note("a", body=nineteen + "\n"), "b.md": note("b", body=nineteen + "\n")},
    )
    assert messages(short) == []
    long = make_store(
        tmp_path / "long",
        {"a.md": note("a", body=twenty + "\n"), "b.md": note("b", body=twenty + "\n")},
    )
    assert [path for path, _ in messages(long)] == ["b.md"]


def test_three_copies_give_two_findings_each_naming_the_earliest(tmp_path: Path) -> None:
    body = text(40, 4) + "\n"
    store = make_store(
        tmp_path / "s",
        {"c.md": note("c", body=body), "a.md": note("a", body=body), "b.md": note("b", body=body)},
    )
    found = messages(store)
    assert [path for path, _ in found] == ["b.md", "c.md"]
    assert all("same as a.md" in message for _, message in found)


def test_a_chain_names_the_earliest_note_each_one_duplicates(tmp_path: Path) -> None:
    """b is like a, c is like b but not like a: c names b, its earliest duplicate."""
    words = text(100, 5).split()
    a = " ".join(words)
    for position in (20, 50, 80):
        words[position] = f"b{position}"
    b = " ".join(words)
    for position in (10, 40, 70):
        words[position] = f"c{position}"
    c = " ".join(words)
    assert jaccard(a, b) >= 0.8 and jaccard(b, c) >= 0.8 and jaccard(a, c) < 0.8
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", body=a), "b.md": note("b", body=b), "c.md": note("c", body=c)},
    )
    assert [(path, message.split("(")[0]) for path, message in messages(store)] == [
        ("b.md", "this note says nearly the same as a.md "),
        ("c.md", "this note says nearly the same as b.md "),
    ]


def test_archived_and_template_copies_are_not_live(tmp_path: Path) -> None:
    body = text(60, 9) + "\n"
    store = make_store(
        tmp_path / "s",
        {
            "a.md": note("a", body=body),
            "archive/a-old.md": note("a-old", body=body),
            "templates/a-template.md": note("a-template", body=body),
        },
    )
    assert messages(store) == []


def test_notes_without_frontmatter_are_compared_on_their_whole_text(tmp_path: Path) -> None:
    body = text(50, 10) + "\n"
    store = make_store(tmp_path / "s", {"a.md": body, "b.md": "---\nname: b\n" + body})
    assert [path for path, _ in messages(store)] == ["b.md"]  # b's fence is never closed


def test_a_note_that_cannot_be_read_takes_no_part(tmp_path: Path) -> None:
    body = text(60, 11) + "\n"
    store = make_store(tmp_path / "s", {"a.md": note("a", body=body)})
    os.symlink("gone.md", store / "c.md")  # dangling: never read
    big = note("d", body=body) + "x" * (4 * 1024 * 1024)  # over the read limit: never read
    (store / "d.md").write_text(big)
    assert messages(store) == []


def test_a_symlink_to_a_note_is_not_its_duplicate(tmp_path: Path) -> None:
    body = text(60, 18) + "\n"
    store = make_store(tmp_path / "s", {"a.md": note("a", body=body)})
    os.symlink("a.md", store / "b.md")  # the same file under a second name
    assert messages(store) == []
    (store / "c.md").write_text(note("c", body=body))  # a real copy is one
    assert [path for path, _ in messages(store)] == ["c.md"]


def test_a_note_that_vanishes_before_the_comparison_takes_no_part() -> None:
    body = text(60, 12)
    facts = [fact_of(body, "one"), fact_of(body, "two")]
    assert list(find_duplicates(facts, lambda n: None)) == []
    parts = duplicates.text_parts(f"---\ndescription: x\n---\n{body}\n".encode())
    assert [
        (later, earlier) for later, earlier, _ in find_duplicates(facts, [parts, None].__getitem__)
    ] == []
    assert [(later, earlier) for later, earlier, _ in find_duplicates(facts, lambda n: parts)] == [
        (1, 0)
    ]


def test_no_schema_does_not_skip_it(tmp_path: Path) -> None:
    body = text(60, 13) + "\n"
    store = make_store(tmp_path / "s", {"a.md": note("a", body=body), "b.md": note("b", body=body)})
    assert [f.path for f in fired(store, RULE, schema=False)] == ["b.md"]


def test_ignore_and_select(cli, tmp_path: Path) -> None:
    body = text(60, 14) + "\n"
    store = make_store(tmp_path / "s", {"a.md": note("a", body=body), "b.md": note("b", body=body)})
    ignored = json.loads(cli("doctor", str(store), "--format", "json", "--ignore", RULE).out)
    assert [f["rule"] for f in ignored["findings"]] == []
    chosen = json.loads(cli("doctor", str(store), "--format", "json", "--select", RULE).out)
    assert [(f["rule"], f["path"]) for f in chosen["findings"]] == [(RULE, "b.md")]


def test_the_gather_runs_only_when_the_rule_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    store = make_store(tmp_path / "s", {"a.md": note("a", body=text(30, 15))})
    seen: list[dict] = []

    class Spy(engine.StoreView):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            seen.append(dict(self.facts))  # the run lets its facts go once the rule ran

    monkeypatch.setattr(engine, "StoreView", Spy)
    doctor(store, select={"orphan"})
    doctor(store)
    assert seen[0] == {}
    assert list(seen[1]) == [RULE] and len(seen[1][RULE]) == 1


# --- the exact comparison ---------------------------------------------------------------------


def parts(description: str, body: str) -> Parts:
    words = body.split()
    return Parts(description, frozenset(shingles(words)) if len(words) >= 20 else None)


def test_the_threshold_is_exactly_four_fifths() -> None:
    # 4 differing 3-grams among 20 shared: 20 / (20 + 4 + 1) < 0.8; 20 / 25 with one fewer
    common = [f"w{i}" for i in range(22)]  # 20 shingles
    one = parts("", " ".join(common))
    at = frozenset(shingles(common)) | {"x y z", "p q r", "s t u", "v w x", "a b c"}
    assert likeness(one, Parts("", at)) == Likeness(False, 0.8)
    below = frozenset(shingles(common)) | {"x y z", "p q r", "s t u", "v w x", "a b c", "d e f"}
    assert likeness(one, Parts("", below)) is None
    assert likeness(Parts("same", None), Parts("same", None)) == Likeness(True, 1.0)
    assert likeness(Parts("", None), Parts("", None)) is None  # nothing to compare
    assert likeness(Parts("same", None, (1, 2)), Parts("same", None, (1, 2))) is None
    assert normal_description("  A\u00a0b\tC \n") == "a b c"


# --- the search: recall at the threshold, and linear work -------------------------------------


def fact_of(body: str, description: str = "") -> bytes:
    """A note's fingerprint, as the per-note pass makes it."""
    return fingerprint_of(normal_description(description), body)


def pair_at_the_threshold(words: int, seed: int) -> tuple[str, str]:
    """Two bodies of ``words`` random words whose 3-gram Jaccard is as low as it can be
    while at least 0.8: the second has ``d`` of its ``t`` shingles changed, the largest
    ``d`` with (t - d) / (t + d) >= 0.8, by changing words spread through the body (3
    shingles each) and then the last one or two words (1 or 2 shingles)."""
    pick = random.Random(seed)
    base = [pick.choice(WORDS) for _ in range(words)]
    differ = (words - 2) // 9
    inner, tail = divmod(differ, 3)
    other = list(base)
    for k in range(inner):  # 3 apart at least, clear of the last two words
        other[2 + (k * (words - 6)) // inner] = f"new{seed}x{k}"
    for k in range(tail):
        other[words - 1 - k] = f"end{seed}x{k}"
    return " ".join(base), " ".join(other)


def jaccard(one: str, other: str) -> float:
    a, b = shingles(one.split()), shingles(other.split())
    return len(a & b) / len(a | b)


@pytest.mark.parametrize("words", [20, 40, 80, 300])
def test_pairs_at_the_threshold_become_candidates(words: int) -> None:
    """Recall of the banding at J >= 0.8, measured on 400 pairs per size (fixed seeds):
    every pair must be a candidate but at most 1 in 400 (theory: under 1 in 1,000)."""
    missed = 0
    for seed in range(400):
        one, other = pair_at_the_threshold(words, seed)
        assert 0.8 <= jaccard(one, other) < 0.82
        if not candidates([fact_of(one), fact_of(other)]):
            missed += 1
    assert missed <= 1, f"{missed} of 400 pairs at J >= 0.8 were not found ({words} words)"


def test_unrelated_pairs_are_rarely_candidates() -> None:
    facts = [fact_of(text(80, seed)) for seed in range(1000)]
    assert sum(len(earlier) for earlier in candidates(facts).values()) <= 2


def test_the_fingerprint_is_the_same_in_any_process() -> None:
    """No salted hash(): a fingerprint made under another PYTHONHASHSEED is identical."""
    body = text(70, 16)
    script = (
        "import sys; from engramory.doctor.rules.duplicates import fingerprint_of; "
        "sys.stdout.write(fingerprint_of('some description', sys.argv[1]).hex())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", script, body],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == fact_of(body, "Some description").hex()


def store_of(count: int, seed: int) -> list[str]:
    """``count`` bodies: mostly distinct, some sharing boilerplate, some copies of others."""
    pick = random.Random(seed)
    boiler = text(40, 999)  # a long shared paragraph: the crowded keys a template makes
    bodies = []
    for i in range(count):
        if i % 10 == 3:
            bodies.append(boiler + " " + text(25, seed * 100_000 + i))
        elif i % 10 == 7 and bodies:
            bodies.append(bodies[pick.randrange(len(bodies))])
        else:
            bodies.append(text(60, seed * 100_000 + i))
    return bodies


def search_work(bodies: list[str]) -> Work:
    facts = [fact_of(body) for body in bodies]
    lookup = [parts("", body) for body in bodies]
    work = Work()
    list(find_duplicates(facts, lookup.__getitem__, work))
    return work


def test_the_work_grows_linearly_with_the_notes() -> None:
    """Counted work (pairs considered, exact comparisons) at 1,000 and 2,000 notes, with
    copies and a shared template among distinct notes: about twice, never four times."""
    small, large = search_work(store_of(1000, 1)), search_work(store_of(2000, 2))
    assert large.compared <= 2.5 * small.compared
    assert large.pairs <= 2.5 * small.pairs
    assert large.pairs <= 2000 * duplicates.COLUMNS * CROWD  # bounded per note


def test_a_crowd_of_copies_costs_one_comparison_each() -> None:
    body = text(60, 17)
    work = Work()
    facts = [fact_of(body)] * 2000
    found = list(find_duplicates(facts, lambda n: parts("", body), work))
    assert [earlier for _, earlier, _ in found] == [0] * 1999
    assert work.compared == 1999
    assert work.pairs <= 2000 * duplicates.COLUMNS * CROWD


# --- workers ----------------------------------------------------------------------------------


def dupes_store(root: Path) -> Path:
    notes = {f"n{i:02}.md": note(f"n{i:02}", body=text(50, 100 + i) + "\n") for i in range(18)}
    notes["n05.md"] = note("n05", body=text(50, 101) + "\n")  # copies n01
    notes["n11.md"] = note("n11", body=with_word_changed(text(50, 101), 20) + "\n")
    notes["n16.md"] = note("n16", description="When to open n02: a one-line hook")
    return make_store(root, notes)


@pytest.mark.parametrize(
    "mode",
    [
        "serial",
        pytest.param(
            "workers", marks=pytest.mark.skipif(not workers.fork_is_safe(), reason="Linux")
        ),
    ],
)
def test_jobs_1_and_jobs_2_give_the_same_findings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mode: str
) -> None:
    store = dupes_store(tmp_path / "s")
    options = Options(today=TODAY)
    whole = engine.run(str(store), Caps(), options, {RULE}, 1).findings
    assert [(f.path, f.message.split(" (")[0].split(":")[0]) for f in whole] == [
        ("n05.md", "this note says nearly the same as n01.md"),
        ("n11.md", "this note says nearly the same as n01.md"),
        ("n16.md", "this note has the same description as n02.md"),
    ]
    monkeypatch.setattr(engine._Gatherer, "BATCH", 2)
    jobs = 1
    if mode == "workers":
        monkeypatch.setattr(workers, "MIN_NOTES", 1)
        monkeypatch.setattr(workers, "CHUNK", 3)
        jobs = 2
    assert engine.run(str(store), Caps(), options, {RULE}, jobs).findings == whole


def test_ascii_and_unicode_bodies_give_the_same_words() -> None:
    """The fingerprint finds an ASCII body's words in its bytes: the same words as the
    exact comparison finds in its text."""
    ascii_body = "Snake_case, CamelCase and 3-part words: x1 Y2 -- __init__ done."
    assert duplicates.encoded_words(ascii_body) == [
        word.encode() for word in duplicates.body_words(ascii_body)
    ]
    unicode_body = ascii_body + " Größe STRASSE élan"
    words = duplicates.encoded_words(unicode_body)
    assert words[-3:] == ["grösse".encode(), b"strasse", "élan".encode()]


def test_band_keys_of_a_huge_body_are_packed_row_by_row_the_same(monkeypatch) -> None:
    """A body past _PACK_WHOLE shingles packs only the rows it reads: the same keys."""
    bodies = [[f"w{n}".encode() for n in range(count)] for count in (3, 5, 300)]
    whole = [duplicates.band_keys(words) for words in bodies]  # 1, 3 and 298 shingles
    monkeypatch.setattr(duplicates, "_PACK_WHOLE", 0)
    assert [duplicates.band_keys(words) for words in bodies] == whole


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_words_from_bytes_match_the_regex(body: str) -> None:
    """The byte translation finds exactly the words ``\\w+`` finds, case-folded, in any
    ASCII text (control characters, punctuation and underscores included)."""
    assert duplicates.encoded_words(body) == [word.encode() for word in duplicates.body_words(body)]


def test_non_ascii_near_copies_fire(tmp_path: Path) -> None:
    body = " ".join(f"{word}é" for word in text(40, 19).split())
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", body=body), "b.md": note("b", body=body.upper() + " fin")},
    )
    assert [path for path, _ in messages(store)] == ["b.md"]


def test_an_allow_comment_in_the_index_silences_it(tmp_path: Path) -> None:
    """A finding without a line (DESIGN §4) is silenced by the comment in MEMORY.md."""
    body = text(60, 20) + "\n"
    notes = {"a.md": note("a", body=body), "b.md": note("b", body=body)}
    store = make_store(tmp_path / "s", notes)
    assert [path for path, _ in messages(store)] == ["b.md"]
    index = (store / "MEMORY.md").read_text()
    (store / "MEMORY.md").write_text("<!-- engramory: allow near-duplicate -->\n" + index)
    assert messages(store) == []
