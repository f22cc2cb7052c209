"""The secret detector (engramory/secrets.py) and the doctor's secret-value / personal-data rules.

Every fixture that looks like a credential is ASSEMBLED AT RUN TIME from pieces, so the
repository itself never trips a secret scanner.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from doctorkit import fired, make_store, note
from engramory import secrets
from engramory.secrets.excerpts import excerpt


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


MIXED = "aB3dE5fG7h"  # letters and digits, mixed case: 10 characters


def jwt(header: dict) -> str:
    return ".".join(
        (b64url(json.dumps(header).encode()), b64url(b'{"sub":"1234"}'), "Sfl" + MIXED * 4)
    )


def pem_block() -> str:
    head = "-----" + "BEGIN RSA " + "PRIVATE KEY" + "-----"
    body = ("MIIE" + MIXED * 6 + "\n") * 3
    return f"{head}\n{body}-----END RSA PRIVATE KEY-----\n"


# (kind, the value as it stands in a note)
KINDS = [
    ("aws-access-key-id", "AKIA" + "QZ7Y" * 4),
    ("aws-access-key-id", "ASIA" + "QZ7" * 5 + "Q"),
    ("github-token", "ghp" + "_" + MIXED * 3 + "abcdef"),
    ("github-token", "github" + "_pat_" + (MIXED + "_") * 7 + "abcde"),
    ("gitlab-token", "glpat" + "-" + MIXED * 2),
    ("slack-token", "xoxb" + "-" + "1234567890-" + MIXED * 2),
    (
        "slack-webhook",
        "https://hooks.slack.com/services/" + "T01234567/B01234567/" + MIXED * 2,
    ),
    ("openai-key", "sk" + "-" + MIXED * 5),
    ("openai-key", "sk" + "-proj-" + MIXED * 10),
    ("anthropic-key", "sk" + "-ant-api03-" + MIXED * 6),
    ("google-api-key", "AIza" + "Sy" + MIXED * 3 + "abc"),
    ("stripe-key", "sk" + "_live_" + MIXED * 3),
    ("stripe-key", "rk" + "_live_" + MIXED * 3),
    ("npm-token", "npm" + "_" + MIXED * 3 + "abcdef"),
    ("pypi-token", "pypi" + "-AgEIcHlwaS5vcmc" + MIXED * 6),
    ("jwt", jwt({"alg": "HS256", "typ": "JWT"})),
    ("private-key", pem_block()),
]


@pytest.mark.parametrize(
    ("kind", "value"), KINDS, ids=[f"{k}-{i}" for i, (k, _v) in enumerate(KINDS)]
)
def test_each_kind_is_found_and_redacted(kind: str, value: str) -> None:
    text = f"intro line\nthe value: {value} end\n"
    (found,) = secrets.find(text)
    assert (found.detector, found.line) == (kind, 2)
    held = text[found.start : found.end]
    assert held.strip() in value and len(held) >= 20
    assert found.shown == held[:4] + "…"
    redacted = secrets.redact(text)
    assert held not in redacted and value.strip() not in redacted and found.shown in redacted
    assert held[4:] not in repr(found)  # the repr never shows the value


@pytest.mark.parametrize(
    "line",
    [
        "password: " + "Hx9#kQ2!" + "mZ7@pL4$",
        'DB_PASSWORD="' + "Hx9#kQ2!" + 'mZ7@pL4$"',
        "api_key = '" + "Qw8" + "Er7Ty6Ui5'",
        "client_secret: " + "v9Kp" + "2mXq7Lw4Zr",
        "GITHUB_TOKEN=" + "Zq8" + "#Lm2!Xp9@Wk",
        "accessKey := " + "p4Ss" + "W0rd!x9Yz#",
        "pwd => " + "hX7!kQ9" + "@mZ2pL4",
        "token: " + "0123456789abcdef" * 4,  # 32+ hex digits after a token's label: a key
        "mytoken: " + "Hx9kQ2mZ7pL4Xw9",  # letters in front of a long label word
    ],
)
def test_generic_assignment_fires(line: str) -> None:
    (found,) = secrets.find(line)
    assert found.detector == "labelled-secret"
    value = line[found.start : found.end]
    assert len(value) >= 12 and value[:4] + "…" == found.shown
    assert value not in secrets.redact(line)


def test_a_provider_key_assigned_to_a_keyword_is_named_by_its_provider() -> None:
    key = "AKIA" + "QZ7Y" * 4
    (found,) = secrets.find(f"token: {key}")
    assert found.detector == "aws-access-key-id"


@pytest.mark.parametrize(
    "text",
    [
        "password: <your-password>",
        "password: ${DB_PASSWORD}",
        "token: {{ secrets.DEPLOY_TOKEN }}",
        "token: xxxxxxxxxxxxxxxxxxxx",
        "password: ****************",
        "password: changeme-" + "Hx9#kQ2!mZ",
        "secret: EXAMPLE-" + "Hx9#kQ2!mZ",
        "token: REDACTED-" + "Hx9#kQ2!mZ",
        "api_key: your-" + "api-key-goes-here",
        "password: aaaaaaaaaaaaaaaa",  # low entropy
        "password: abcabcabcabcabc",  # low entropy
        "password: S3cr3t!",  # too short
        "token: op://infra/deploy/token",
        "token: $DEPLOY_TOKEN",
        "secret: arn:aws:secretsmanager:eu-west-1:123:secret:prod/db",
        "secret: secret/data/prod/database",
        "pwd: /home/ann/projects/engramory",
        "secret = get_secret('deploy')",
        "token = os.environ['TOKEN']",
        "token: process.env.GITHUB_TOKEN",
        '"client_secret": {c.clientSecret},',
        'body=f"export GH_TOKEN={_GITHUB_TOKEN}\\n```"',
        "token: git@github.com:org/repo.git",
        "secret: 89dfab34-1de0-4da5-8f71-a42bbfe0e98f",  # a UUID
        "commit 0123456789abcdef0123456789abcdef01234567",
        "tokenizer: " + "Hx9kQ2mZ7pL4Xw9",  # not the keyword itself
        "secret_name: " + "Hx9kQ2mZ7pL4Xw9",
        "the token is in 1Password under 'ci'",
        "AWS documents AKIAIOSFODNN7EXAMPLE",
        "keys begin -----BEGIN RSA PRIVATE KEY----- and we keep them in the vault",
        "scikit: sk-learn-compatible-estimators-2024",
        "![logo](data:image/png;base64,iVBORw0KGgo" + "AKIA" + "QZ7Y" * 4 + "eyJhbGci)",
        "header " + b64url(json.dumps({"typ": "JWT"}).encode()) + ".e30.abc",  # no alg
        "ghp" + "_" + "x" * 36,
    ],
)
def test_what_is_not_a_secret(text: str) -> None:
    assert secrets.find(text) == [], text
    assert secrets.redact(text) == text


def test_lines_count_newlines_only_and_one_per_line() -> None:
    key = "AKIA" + "QZ7Y" * 4
    text = f"a\r\nb {key} and {key}\n\nc {key}"
    found = secrets.find(text)
    assert [s.line for s in found] == [2, 2, 4]
    assert [s.line for s in secrets.first_per_line(text)] == [2, 4]
    assert found[0].start < found[1].start


def test_excerpt_redacts_what_the_detector_finds() -> None:
    value = "Hx9#kQ2!" + "mZ7@pL4$"
    shown = excerpt(f"password = {value}", limit=60)
    assert value not in shown and value[:5] not in shown
    assert "Hx9#…" in shown


# --- the doctor -------------------------------------------------------------------------------


def test_secret_value_in_body_frontmatter_code_index_and_archive(tmp_path: Path) -> None:
    key = "AKIA" + "QZ7Y" * 4
    token = "ghp" + "_" + MIXED * 3 + "abcdef"
    password = "Hx9#kQ2!" + "mZ7@pL4$"
    store = make_store(
        tmp_path / "s",
        {
            "a.md": note("a", body=f"Deploy with {key}.\n\n```sh\nexport T={token}\n```\n"),
            "b.md": note("b", password=password),
            "c.md": note("c", body=f"Inline `{token}` span.\n"),
            "archive/old.md": note("old", body=f"old key {key}\n"),
        },
        index=None,
    )
    (store / "MEMORY.md").write_text(
        f"- [a](a.md) — {key}\n- [b](b.md) — b\n- [c](c.md) — c\n", encoding="utf-8"
    )
    found = {(f.path, f.line) for f in fired(store, "secret-value")}
    assert found == {
        ("MEMORY.md", 1),
        ("a.md", 9),
        ("a.md", 12),
        ("b.md", 7),
        ("c.md", 9),
        ("archive/old.md", 9),
    }


def test_no_output_holds_the_value(tmp_path: Path, cli) -> None:
    values = [value for _kind, value in KINDS if "\n" not in value]
    values.append("Hx9#kQ2!" + "mZ7@pL4$")
    body = "".join(f"item {n}: {v}\n" for n, v in enumerate(values[:-1]))
    store = make_store(
        tmp_path / "s",
        {
            "a.md": note("a", body=body + pem_block()),
            # a malformed frontmatter line holding a password (frontmatter-syntax quotes it)
            "b.md": "---\nname: b\n  password = " + values[-1] + "\n---\nbody\n",
        },
    )
    text = cli("doctor", str(store))
    as_json = cli("doctor", str(store), "--format", "json")
    assert text.code == as_json.code == 1
    findings = json.loads(as_json.out)["findings"]
    assert len([f for f in findings if f["rule"] == "secret-value"]) == len(values) - 1 + 2
    assert any(f["rule"] == "frontmatter-syntax" and f["path"] == "b.md" for f in findings)
    for output in (text.out + text.err, as_json.out + as_json.err):
        for value in values:
            assert value not in output
            assert value[:8] not in output
        assert "MIIE" + MIXED not in output


def test_frontmatter_syntax_does_not_echo_a_password(tmp_path: Path) -> None:
    password = "Hx9#kQ2!" + "mZ7@pL4$"
    store = make_store(tmp_path / "s", {"b.md": f"---\nname: b\n password = {password}\n---\nx\n"})
    (finding,) = fired(store, "frontmatter-syntax")
    assert password not in finding.message and "Hx9#…" in finding.message


def test_allow_comment_in_an_archived_note(tmp_path: Path) -> None:
    """An archived note's own allow comment silences its line there (on the line, or
    alone on the line above), and only that line."""
    key = "AKIA" + "QZ7Y" * 4
    body = (
        f"kept on purpose {key} <!-- engramory: allow secret-value -->\n"
        f"<!-- engramory: allow secret-value -->\nthe next one {key}\n"
        f"not allowed {key}\n"
    )
    store = make_store(
        tmp_path / "s", {"a.md": note("a"), "archive/old.md": note("old", body=body)}
    )
    found = [(f.path, f.line) for f in fired(store, "secret-value")]
    assert found == [("archive/old.md", 12)]


def test_an_unreadable_archived_entry_is_skipped(tmp_path: Path) -> None:
    key = "AKIA" + "QZ7Y" * 4
    store = make_store(tmp_path / "s", {"a.md": note("a"), "outside.md": f"{key}\n"})
    (store / "archive").mkdir()
    (store / "archive" / "link.md").symlink_to(store / "outside.md")
    found = [f.path for f in fired(store, "secret-value")]
    assert found == ["outside.md"]  # the live file; the archived symlink is not followed


def test_secret_value_runs_without_schema(tmp_path: Path) -> None:
    key = "AKIA" + "QZ7Y" * 4
    store = make_store(tmp_path / "s", {"a.md": note("a", body=f"{key}\n")})
    assert fired(store, "secret-value", schema=False)


def test_personal_data(tmp_path: Path) -> None:
    address = "ann.lee" + "@" + "acme.io"
    store = make_store(
        tmp_path / "s",
        {
            "a.md": note(
                "a",
                body=f"Mail {address}.\nCall +44 20 7946 0958 or +1-555-010-9999.\n"
                "Example user@example.com, git@github.com:org/x.git, icon@2x.png.\n"
                "Version 1.2.3+20260101 and 2026-01-10T10:00+01:00.\n",
                owner=address,
            )
        },
    )
    found = fired(store, "personal-data")
    assert [(f.line, f.message.split(" (")[0]) for f in found] == [
        (10, "an e-mail address"),
        (11, "a phone number"),
    ]
    assert all(address not in f.message and "+44 20" not in f.message for f in found)


def test_the_allow_comment_silences_secret_value_in_a_note_and_the_index(tmp_path: Path) -> None:
    key = "AKIA" + "QZ7Y" * 4
    store = make_store(
        tmp_path / "s",
        {"a.md": note("a", body=f"<!-- engramory: allow secret-value -->\n{key}\n{key}\n")},
        index=None,
    )
    (store / "MEMORY.md").write_text(
        f"- [a](a.md) — {key} <!-- engramory: allow secret-value -->\n- {key} [a](a.md)\n",
        encoding="utf-8",
    )
    found = {(f.path, f.line) for f in fired(store, "secret-value")}
    assert found == {("a.md", 11), ("MEMORY.md", 2)}
