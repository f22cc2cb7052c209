"""Hook configurations edited in place: the user's text comes back byte for byte."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.hosts.registry import HOSTS
from engramory.install import hookconfig, hookwiring

FORM = hookwiring.STATUS_FORMAT
CLAUDE = HOSTS["claude"].hook_groups("/usr/bin/python3", "/g.py", "/s.py", "/store", "explicit")
CODEX = HOSTS["codex"].hook_groups("/usr/bin/python3", "/g.py", "/s.py", "/store", "explicit")


def installed(text: str | None, groups: dict = CLAUDE, form: hookconfig.HookFormat = FORM) -> str:
    document = hookconfig.load(text, form)
    document.merge(groups)
    return document.text()


def uninstalled(text: str, form: hookconfig.HookFormat = FORM) -> hookconfig.Document:
    document = hookconfig.load(text, form)
    document.remove()
    return document


def test_a_new_file_is_two_space_json_with_a_final_newline() -> None:
    text = installed(None)
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert hookconfig.is_empty(uninstalled(text).data(), FORM)


@pytest.mark.parametrize(
    "original",
    [
        '{"a":1}',
        '{"a": 1}\n',
        '{\n\t"a": [1, 2]\n}',
        '{\r\n    "a": {"b": []},\r\n    "hooks": {"Stop": [{"hooks": []}]}\r\n}\r\n',
        '  {  "a" :1e2 , "b":-0, "c": 1.50 }  \n\n',
        '{"s": "\\ud800 \\u00e9 \\/ \\"q\\"", "n": 123456789012345678901234567890}',
        '{"hooks": {}, "a": 1}',
        '{"hooks": {"PreToolUse": [{"matcher": "x", "hooks": [{"type": "command"}]}]}}',
    ],
)
def test_install_then_uninstall_gives_back_the_text(original: str) -> None:
    text = installed(original)
    assert json.loads(text)  # valid JSON
    assert installed(text) == text
    assert uninstalled(text).text() == original


def test_new_entries_take_the_files_style() -> None:
    compact = installed('{"a":[1,2]}')
    assert "\n" not in compact and '"hooks":{"PreToolUse":[{"matcher":' in compact
    tabs = installed('{\n\t"a": 1\n}')
    assert '\n\t"hooks": {\n\t\t"PreToolUse": [\n\t\t\t{\n\t\t\t\t"matcher": ' in tabs
    crlf = installed('{\r\n    "a": 1\r\n}')
    assert "\n" not in crlf.replace("\r\n", "") and '\r\n    "hooks": {\r\n        "Pre' in crlf


def test_our_group_is_appended_to_an_existing_event_and_taken_out_again() -> None:
    original = '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "lint"}]}]}}'
    text = installed(original)
    groups = json.loads(text)["hooks"]["PreToolUse"]
    assert groups[0] == {"matcher": "Bash", "hooks": [{"command": "lint"}]}
    assert groups[1]["hooks"][0]["statusMessage"] == hookwiring.GUARD_STATUS
    assert text.startswith(original[:-3] + ", {")  # the separator the array already uses
    assert uninstalled(text).text() == original


def test_our_handler_inside_a_shared_group_is_removed_alone() -> None:
    ours = {"command": "old", "statusMessage": "Loading Engramory continuity context"}
    config = {"hooks": {"SessionStart": [{"hooks": [{"command": "a"}, ours, {"command": "b"}]}]}}
    left = uninstalled(json.dumps(config, indent=2))
    assert left.data() == {
        "hooks": {"SessionStart": [{"hooks": [{"command": "a"}, {"command": "b"}]}]}
    }
    assert left.text() == json.dumps(left.data(), indent=2)


def test_the_codex_legacy_description_is_dropped() -> None:
    document = hookconfig.load('{\n  "description": "old",\n  "hooks": {}\n}', FORM)
    document.drop_key("description")
    assert document.text() == '{\n  "hooks": {}\n}'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": 1,}', "expected a key in double quotes at line 1, column 9"),
        ('{\n  "a": 1\n  "b": 2\n}', "expected ',' or '}' at line 3, column 3"),
        ("\ufeff{}", "expected a value at line 1, column 1"),
        ('{"a": NaN}', "expected a value"),
        ('{"a": 01}', "expected ',' or '}'"),
        ('{"a": "tab\there"}', "a malformed string"),
        ("{} {}", "unexpected text after the JSON value"),
        ("[]", "is not a JSON object at the top level"),
        ('{"a": {"b": 1, "b": 2}}', 'has the key "b" twice in a:'),
        ('{"x\\u001b]52": 1, "x\\u001b]52": 2}', 'has the key "x\\u001b]52" twice'),
        ('{"hooks": []}', '"hooks" value that is not an object'),
        ('{"hooks": {"Stop": {}}}', '"hooks.Stop" that is not a list'),
        ('{"hooks": {"Stop": [[]]}}', '"hooks.Stop[0]" that is not a matcher group'),
        ('{"hooks": {"Stop": [{"hooks": {}}]}}', '"hooks.Stop[0]" that is not a matcher group'),
        ('{"hooks": {"a b": [{"hooks": [null]}]}}', 'handler "hooks["a b"][0].hooks[0]"'),
        ('{"hooks": {"Stop": [{"hooks": [{"statusMessage": 1}]}]}}', '"statusMessage" in'),
        ("[" * 10_000 + "]" * 10_000, "nests deeper than 64 levels"),
    ],
)
def test_what_is_refused_and_how_the_message_says_so(text: str, message: str) -> None:
    with pytest.raises(hookconfig.HookConfigError) as caught:
        hookconfig.load(text, FORM)
    assert message in str(caught.value)
    assert "\x1b" not in str(caught.value)


def test_nesting_up_to_the_limit_is_fine() -> None:
    deep = '{"a": ' + "[" * 62 + "]" * 62 + "}"
    assert hookconfig.load(deep, FORM).text() == deep


# --- the property: uninstall(install(x)) == x for any config of the user's ------------------

SPELLINGS = ["1e2", "-0", "1.0", "12345678901234567890123", "0.5E+3", "-12", "true", "null"]
EVENTS = ["PreToolUse", "PostToolUse", "SessionStart", "Stop", "Notification", "PreCompact"]
OURS = set(CLAUDE)

words = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=8)
numbers = st.sampled_from(SPELLINGS).map(lambda spelling: f"@@{spelling}@@")
scalars = st.one_of(words, numbers)
handlers = st.fixed_dictionaries(
    {"type": st.just("command"), "command": words},
    optional={"timeout": numbers, "statusMessage": words},
)
groups = st.fixed_dictionaries(
    {"hooks": st.lists(handlers, max_size=3)}, optional={"matcher": words}
)


@st.composite
def configs(draw: st.DrawFn) -> dict:
    """A user's config: other keys, maybe hooks (events holding foreign handlers), any order."""
    others = draw(
        st.dictionaries(
            st.sampled_from(["permissions", "env", "model", "n", "x"]),
            st.one_of(
                scalars, st.lists(scalars, max_size=3), st.dictionaries(words, scalars, max_size=2)
            ),
            max_size=3,
        )
    )
    if not draw(st.booleans()):
        return others
    events = draw(st.lists(st.sampled_from(EVENTS), unique=True, max_size=4))
    # An event of ours that the user left empty is not told apart from one we emptied.
    hooks = {e: draw(st.lists(groups, min_size=1 if e in OURS else 0, max_size=2)) for e in events}
    keys = list(others)
    position = draw(st.integers(0, len(keys)))
    if not hooks and keys:
        position = min(position, len(keys) - 1)  # an empty hooks last reads as one we added
    keys.insert(position, "hooks")
    return {key: hooks if key == "hooks" else others[key] for key in keys}


@st.composite
def texts(draw: st.DrawFn) -> str:
    """A config written in some style: indentation, separators, line endings, final newline."""
    config = draw(configs())
    indent = draw(st.sampled_from([None, None, 0, 1, 2, 4, "\t"]))
    if indent is None:
        separators = draw(st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]))
    else:
        separators = draw(st.sampled_from([(",", ": "), (",", ":"), (",", " : ")]))
    text = json.dumps(
        config, indent=indent, separators=separators, ensure_ascii=draw(st.booleans())
    )
    for spelling in SPELLINGS:
        text = text.replace(f'"@@{spelling}@@"', spelling)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = text.replace("\n", newline)
    return text + (newline if draw(st.booleans()) else "")


@settings(max_examples=300, deadline=None)
@given(texts(), st.booleans())
def test_uninstall_of_install_is_identity_for_any_config(original: str, codex: bool) -> None:
    wanted = CODEX if codex else CLAUDE
    text = installed(original, wanted)
    merged = json.loads(text)
    assert hookconfig.count_ours(merged, FORM) == len(wanted)
    assert installed(text, wanted) == text  # installing twice is installing once
    left = uninstalled(text)
    if hookconfig.is_empty(left.data(), FORM):  # nothing but ours was left: the file is deleted
        assert hookconfig.is_empty(hookconfig.load(original, FORM).data(), FORM)
        return
    assert left.text() == original
