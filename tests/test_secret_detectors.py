"""The secret detectors as data (issue 33): each detector on its own examples, the gate,
the placeholders, the allow list, and every form the issue quotes.

Fixtures that look like keys are assembled at run time (pieces joined by
``detectors.example`` or by ``+``), so the repository never holds one whole.
"""

from __future__ import annotations

import re
import time

import pytest

from engramory import secrets
from engramory.secrets import allow, gate
from engramory.secrets.detectors import DETECTORS, JOIN, example

AWS = "AKIA" + "Z3N5Q7XM2K4P6R5T"
ROWS = [(d.id, "fires", e) for d in DETECTORS for e in d.fires]
ROWS += [(d.id, "quiet", e) for d in DETECTORS for e in d.quiet]


def detectors_in(text: str) -> list[str]:
    return [s.detector for s in secrets.find(text)]


@pytest.mark.parametrize(
    ("detector", "expect", "sample"), ROWS, ids=[f"{r[0]}-{r[1]}-{i}" for i, r in enumerate(ROWS)]
)
def test_each_detector_on_its_own_examples(detector: str, expect: str, sample: str) -> None:
    text = f"a line before\n{example(sample)}\na line after\n"
    found = detectors_in(text)
    if expect == "fires":
        assert detector in found, found
    else:
        assert found == [], found


def test_detector_ids_are_unique_kebab_case_and_titles_read_well() -> None:
    ids = [d.id for d in DETECTORS]
    assert len(ids) == len(set(ids))
    for detector in DETECTORS:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", detector.id)
        article, noun = detector.title.split(" ", 1)
        vowel_sound = noun[0].lower() in "aeiou" or noun.startswith("npm")  # "en-pee-em"
        assert article == ("an" if vowel_sound else "a"), detector.title
        assert detector.fires and detector.quiet, detector.id
        assert all(k == k.lower() for k in detector.keywords)


def test_examples_are_stored_in_pieces() -> None:
    """A provider's example is split in the source, so no whole key is committed."""
    for detector in DETECTORS:
        for sample in detector.fires:
            if detector.id not in ("labelled-secret", "cli-password", "url-credentials"):
                assert JOIN in sample, (detector.id, sample[:12])


def test_the_gate_holds_every_detector_keyword() -> None:
    keywords = set(gate.PROVIDER_KEYWORDS) | set(gate.LABEL_WORDS)
    for detector in DETECTORS:
        if detector.id == "labelled-secret":
            assert set(detector.keywords) <= set(gate.LABEL_WORDS) | {"pass", "credential"}
        else:
            assert set(detector.keywords) <= keywords, detector.id


def test_the_gate_lets_every_example_through_and_stops_plain_prose() -> None:
    for detector in DETECTORS:
        for sample in detector.fires:
            assert gate.may_hold_secret(example(sample)), (detector.id, sample[:16])
    assert not gate.may_hold_secret("The deploy steps are in docs/deploy.md; ask Ana.")
    assert not gate.may_hold_secret("the tokenizer splits words; keyboard shortcuts")


# --- the forms the issue quotes --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"AWS_ACCESS_KEY_ID={AWS}",
        f"export AWS_ACCESS_KEY_ID={AWS}",
        f"aws_key={AWS}",
        f"/{AWS}/",
        f"x_{AWS}",
        f"-{AWS}",
        f"({AWS})",
        f"`{AWS}`",
        f'"{AWS}"',
        AWS,
    ],
)
def test_an_aws_key_after_any_non_alphanumeric_character(text: str) -> None:
    assert detectors_in(text) == ["aws-access-key-id"]


def test_a_short_pem_block_and_a_truncated_one_are_found() -> None:
    head = "-----BEGIN RSA " + "PRIVATE KEY-----"
    body = "MIIBOgIBAAJBAK" + "j34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu"
    short = f"{head}\n{body}\n-----END RSA PRIVATE KEY-----\n"
    (found,) = secrets.find(short)
    assert (found.detector, short[found.start : found.end].endswith("-----")) == (
        "private-key",
        True,
    )
    cut = f"note\n{head}\n{body}\n"
    (found,) = secrets.find(cut)
    assert found.detector == "private-key" and body not in secrets.redact(cut)


def test_a_pem_header_named_in_prose_is_quiet() -> None:
    assert detectors_in("the key file starts with -----BEGIN RSA " + "PRIVATE KEY-----.") == []


@pytest.mark.parametrize(
    "text",
    [
        "API Key: " + "9f2c4e6a8b0d1f3e" + "5a7c9e1b3d5f7a9c",
        "HCP Token: " + "0a1b2c3d4e5f6a7b" + "8c9d0e1f2a3b4c5d",
        "**Auth**: Bearer `pit-" + "4f8a2c9e1b7d5a3c`",
        "password: " + "Welcome" + "2024ab",
        "dbPassword: " + "Hx9#kQ2" + "!mZ",
        "adminPassword: " + "Hx9#kQ2" + "!mZ",
        "accessToken: " + "Zk4mQ8vX" + "2nR7tY1w",
        '"SecretAccessKey": "' + "wJalrXUtnFEMI/K7MDENG/" + 'bPxRfiCYzKEYz"',
        '"SessionToken": "' + "FwoGZXIvYXdzEJr" + '//////////wEaDH"',
        "postgres://app:" + "Zk4mQ8vX" + "@db:5432/app",
        "mongodb+srv://admin:" + "s3cretPass" + "@cluster0.x.mongodb.net",
        "redis://:" + "Zk4m2nR7" + "@cache:6379",
        "DefaultEndpointsProtocol=https;AccountKey=" + "Zk4mQ8vX" * 11,
        "SECRET_KEY = 'django-insecure-" + "k9#zq2@v7x!m4p8w'",
        "PRIVATE_KEY=" + "Zk4mQ8vX2nR7" + "tY1wP3sL",
        "mysql -u root -p" + "Zk4mQ8vX" + " app",
        "Authorization: Basic " + "dXNlcjpwYXNz" + "d29yZDEyMw==",
        "xapp-" + "1-A0123BCDE-4567890123-" + "9f8e7d6c5b4a39281706",
        "xoxe.xoxp-" + "1-Mi0yLTEyMzQ1Njc4OTAtMTIz",
        "whsec_" + "Mz8rQ2vK7pX4nL9tB6yW" + "1sE5hJ3gF0aD",
        "GOCSPX-" + "Zk4mQ8vX2nR7tY1w" + "P3sL5hJ9",
        "hf_" + "Zk4mQ8vX2nR7tY1w" + "P3sL5hJ9bC6dE0fG",
        "SG." + "Zk4mQ8vX2nR7tY1wP3sL5h" + "." + "J9bC6dE0fG" * 4 + "Zk4",
        "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\n\nlQOYBGX" + "kL9sBCAC7mV2Qw8x\n",
        "the pw is " + "Kx7!mQ2z",
        "password (still on the old server): " + "Tr0ub4dor&3",
    ],
)
def test_forms_the_hostile_probe_missed_are_found(text: str) -> None:
    found = secrets.find(text)
    assert found, text[:20]
    value = text[found[0].start : found[0].end]
    assert value not in secrets.redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "export GH_TOKEN=github_pat_...",
        "token: bitpat_YOUR_TOKEN",
        "password: $2b$12$" + "R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
        "secret: {uuid}",
        "secret: 89dfab34-1de0-4da5-8f71-a42bbfe0e98f",
        "credential (ID: 4a7c-77e2)",
        "client id: " + "9f2c4e6a8b0d1f3e" * 2,
        "commit sha: " + "9f2c4e6a8b0d1f3e" * 2,
        "api_key: xxxxxxxxxxxxxxxxxxxx",
        "api_key: XXXX-XXXX-XXXX",
        "token: ${GITHUB_TOKEN}",
        "token: $GITHUB_TOKEN",
        "token: %GITHUB_TOKEN%",
        "password: your-password-here",
        "api key: <your key>",
        "token: dummy-token-value-123",
        "AWS documents " + "AKIA" + "IOSFODNN7EXAMPLE",
        "password: ********",
        "password: …",
        "password: required to log in",
        "a token is stored in the vault",
        "tokenizer: cl100k_base",
        "max tokens: 4096",
        "git@github.com:org/repo.git",
        "postgres://user:password@localhost/db",
        "public key: ssh-ed25519 " + "AAAAC3NzaC1lZDI1NTE5AAAAIOMq",
    ],
)
def test_placeholders_and_non_secrets_stay_quiet(text: str) -> None:
    assert detectors_in(text) == []


def test_a_value_on_the_allow_list_is_quiet_and_only_that_value() -> None:
    widget = "pk_widget_" + "Zk4mQ8vX2nR7tY1w"
    text = f"booking widget key: {widget}\nother key: {'Hx9kQ2mZ' + '7pL4Xw9q'}\n"
    assert len(secrets.find(text)) == 2
    allowed = allow.AllowList(allow.parse(allow.fingerprint(widget)[:12] + "  # the widget\n")[0])
    (left,) = secrets.find(text, allowed)
    assert left.line == 2


def test_allow_list_lines_that_are_not_fingerprints_are_reported() -> None:
    prefixes, bad = allow.parse("# comment\n\nabc\n" + "a" * 64 + "\nnot-hex-at-all-here\n")
    assert prefixes == ("a" * 64,) and bad == [3, 5]


def test_the_allow_list_file_is_read_from_the_store_and_never_through_a_link(tmp_path) -> None:
    (tmp_path / ".engramory").mkdir()
    target = tmp_path / "elsewhere"
    target.write_text(allow.fingerprint("x") + "\n")
    (tmp_path / ".engramory" / "allow-secrets").symlink_to(target)
    assert not allow.load(str(tmp_path))
    (tmp_path / ".engramory" / "allow-secrets").unlink()
    (tmp_path / ".engramory" / "allow-secrets").write_text(allow.fingerprint("x") + "\n")
    assert allow.load(str(tmp_path))("x") and not allow.load(str(tmp_path))("y")


def test_replace_writes_the_detector_and_keeps_everything_else() -> None:
    text = f"intro\naws_key={AWS} and more\n"
    replaced, found = secrets.replace(text)
    assert replaced == "intro\naws_key=[redacted: aws-access-key-id] and more\n"
    assert [(s.detector, s.line) for s in found] == [("aws-access-key-id", 2)]


def test_the_stalling_block_is_answered_quickly() -> None:
    block = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + "A:" * 240 + "\n"
    started = time.perf_counter()
    for _ in range(20):
        assert secrets.find(block * 20) == []
    assert time.perf_counter() - started < 5.0  # was 40 s for one 480-byte block
