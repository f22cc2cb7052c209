"""Hook configurations edited in place: the user's text comes back byte for byte."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engramory.hosts.registry import HOSTS
from engramory.wiring import hookconfig, hookwiring

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


# --- the flat shape (Copilot, Cursor) and the other markers -----------------------------------

FLAT = hookwiring.SCRIPT_FORMAT
NAMED = hookwiring.NAME_FORMAT
GUARD = "/opt/e/hooks/engramory_index_guard.py"
SYNC = "/opt/e/hooks/engramory_sync.py"  # the continuity hooks are known by the script's name
CURSOR = HOSTS["cursor"].hook_groups("/usr/bin/python3", GUARD, SYNC, "/store", "explicit")
COPILOT = HOSTS["copilot"].hook_groups("/usr/bin/python3", GUARD, SYNC, "/store", "explicit")
GEMINI = HOSTS["gemini"].hook_groups("/usr/bin/python3", GUARD, SYNC, "/store", "explicit")


def test_a_new_flat_file_starts_with_its_version_and_goes_away_again() -> None:
    text = installed(None, CURSOR, FLAT)
    assert text.startswith('{\n  "version": 1,\n  "hooks": {')
    config = json.loads(text)
    assert [h["matcher"] for h in config["hooks"]["preToolUse"]] == [
        "Write",
        "StrReplace",
        "ApplyPatch",
    ]
    assert (
        hookconfig.count_ours(config, FLAT) == 9
    )  # 4 guards, 2 after-write checks, 3 continuity hooks
    left = uninstalled(text, FLAT)
    assert left.data() == {"version": 1} and hookconfig.is_empty(left.data(), FLAT)


@pytest.mark.parametrize(
    "original",
    [
        '{"version":1,"hooks":{"preToolUse":[{"command":"./lint.sh","matcher":"Write"}]}}',
        '{\n\t"version": 1,\n\t"hooks": {\n\t\t"stop": [\n\t\t\t{"command": "x"}\n\t\t]\n\t}\n}\n',
        '{\r\n  "version": 1,\r\n  "hooks": {\r\n    "stop": [{"command": "x"}]\r\n  }\r\n}\r\n',
        '{"version": 1, "hooks": {}, "theirs": true}',
        '{"theirs": {"a": [1]}}',
    ],
)
def test_flat_install_then_uninstall_gives_back_the_text(original: str) -> None:
    for groups in (CURSOR, COPILOT):
        text = installed(original, groups, FLAT)
        assert installed(text, groups, FLAT) == text
        assert hookconfig.count_ours(json.loads(text), FLAT) == sum(map(len, groups.values()))
        assert uninstalled(text, FLAT).text() == original


def test_a_flat_file_without_a_version_gets_none_added() -> None:
    original = '{"hooks": {"preToolUse": [{"command": "mine"}]}}'
    assert "version" not in json.loads(installed(original, CURSOR, FLAT))


def test_a_flat_handler_is_ours_only_when_its_command_runs_our_script() -> None:
    owns = FLAT.marker.owns
    assert owns({"command": f"'/p y/python' -I -S {GUARD} --host cursor"})
    assert owns({"bash": "python3 -I -S '/x/it'\"'\"'s/engramory_sync.py' hook || true"})
    assert owns(
        {"powershell": "try { & 'py' '-I' '-S' 'C:\\e\\engramory_index_guard.py' } catch { }"}
    )
    encoded = hookwiring.powershell_line(
        ["C:\\py.exe", "-I", "-S", "C:\\e\\engramory_index_guard.py"]
    )
    assert owns({"command": encoded})
    # a mention of the name in another field, or as part of another word, is not ours
    assert not owns({"command": "./lint.sh", "description": f"runs {GUARD}"})
    assert not owns({"command": "cat engramory_index_guard.py.bak"})
    assert not owns({"command": "echo 'unbalanced engramory_index_guard.py"})
    assert not owns({"command": "powershell.exe -EncodedCommand not-base64!"})
    assert not owns({"command": "engramory guard --host cursor"})


def test_the_guard_marker_tells_the_guard_from_the_continuity_hooks() -> None:
    claude = json.loads(installed(None))
    assert hookconfig.count_ours(claude, FORM) == 5
    assert hookconfig.count_ours(claude, FORM, FORM.guard) == 1  # PreToolUse; not PostToolUse
    sync = {"hooks": {"stop": [{"command": "py -I -S /e/hooks/engramory_sync.py hook"}]}}
    assert (
        hookconfig.count_ours(sync, FLAT) == 1
        and hookconfig.count_ours(sync, FLAT, FLAT.guard) == 0
    )


def test_gemini_handlers_are_ours_by_name_only() -> None:
    theirs = {"type": "command", "command": GEMINI["BeforeTool"]["hooks"][0]["command"]}
    described = {"type": "command", "command": "x", "description": hookwiring.GUARD_NAME}
    original = json.dumps(
        {"ui": {"theme": "x"}, "hooks": {"BeforeTool": [{"hooks": [theirs, described]}]}}, indent=2
    )
    text = installed(original, GEMINI, NAMED)
    assert hookconfig.count_ours(json.loads(text), NAMED) == 5  # guard, after-write, 3 continuity
    assert hookconfig.count_all(json.loads(text), NAMED) == 7
    assert uninstalled(text, NAMED).text() == original


@pytest.mark.parametrize(
    ("text", "form", "message"),
    [
        ('{"hooks": {"preToolUse": [5]}}', FLAT, 'handler "hooks.preToolUse[0]" that is not an'),
        ('{"hooks": {"preToolUse": [{"bash": 1}]}}', FLAT, '"bash" in "hooks.preToolUse[0]"'),
        ('{"hooks": {"preToolUse": {}}}', FLAT, '"hooks.preToolUse" that is not a list'),
        ('{"hooks": {"BeforeTool": [{"hooks": [{"name": []}]}]}}', NAMED, '"name" in'),
    ],
)
def test_flat_and_named_configs_are_refused_when_the_host_would_read_them_otherwise(
    text: str, form: hookconfig.HookFormat, message: str
) -> None:
    with pytest.raises(hookconfig.HookConfigError) as caught:
        hookconfig.load(text, form)
    assert message in str(caught.value)


def test_only_ours_needs_every_handler_and_every_key_to_be_ours() -> None:
    ours = json.loads(installed(None, CURSOR, FLAT))
    assert hookconfig.only_ours(ours, FLAT)
    assert not hookconfig.only_ours({**ours, "theirs": 1}, FLAT)
    ours["hooks"]["stop"] = [{"command": "mine"}]
    assert not hookconfig.only_ours(ours, FLAT)


flat_handlers = st.fixed_dictionaries(
    {"command": words},
    optional={"matcher": words, "type": st.just("command"), "timeoutSec": numbers},
)


OURS_FLAT = ("preToolUse", "sessionStart")  # events Engramory installs handlers under


@st.composite
def flat_texts(draw: st.DrawFn) -> str:
    """A flat hook file of the user's (Copilot, Cursor), written in some style."""
    config: dict = {}
    if draw(st.booleans()):
        config["version"] = 1
    events = draw(st.lists(st.sampled_from(["preToolUse", "stop", "sessionStart"]), unique=True))
    # an event of ours that the user left empty is not told apart from one we emptied
    hooks = {
        e: draw(st.lists(flat_handlers, min_size=1 if e in OURS_FLAT else 0, max_size=3))
        for e in events
    }
    if hooks or draw(st.booleans()):
        config["hooks"] = hooks
    if draw(st.booleans()):
        config["theirs"] = draw(st.dictionaries(words, scalars, max_size=2))
    indent = draw(st.sampled_from([None, 2, "\t"]))
    text = json.dumps(config, indent=indent, separators=(",", ":") if indent is None else None)
    for spelling in SPELLINGS:
        text = text.replace(f'"@@{spelling}@@"', spelling)
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n"])))
    return text + ("\n" if draw(st.booleans()) else "")


@settings(max_examples=200, deadline=None)
@given(flat_texts(), st.sampled_from([CURSOR, COPILOT]))
def test_uninstall_of_install_is_identity_for_any_flat_config(original: str, wanted: dict) -> None:
    text = installed(original, wanted, FLAT)
    assert hookconfig.count_ours(json.loads(text), FLAT) == sum(map(len, wanted.values()))
    assert installed(text, wanted, FLAT) == text
    left = uninstalled(text, FLAT)
    if hookconfig.is_empty(left.data(), FLAT):
        assert hookconfig.is_empty(hookconfig.load(original, FLAT).data(), FLAT)
        return
    assert left.text() == original
