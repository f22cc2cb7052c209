"""The secret and personal-data scans are linear: 1 MiB vs 4 MiB costs about 4x.

In the style of tests/test_linear_time.py (and with its measuring helpers): each row of
:data:`CASES` builds a hostile input of about ``size`` characters -- the worst input of
one pattern of engramory/secrets.py or of the personal-data rule -- and runs the real
code on it in a child process (``python tests/test_linear_secrets.py NAME TMP``), so a
super-linear scan fails the growth check (or the timeout) instead of hanging the suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from test_linear_time import Case, assert_linear_row, child_row, doctor_on_note, repeat

from engramory import secrets
from engramory.doctor.rules.secrets import personal_data_in


def scanned(text: str, tmp: Path) -> object:
    """What every command does with file text: find the secrets, and redact them."""
    return len(secrets.find(text)), len(secrets.redact(text))


def personal(text: str, tmp: Path) -> object:
    return len(list(personal_data_in(text)))


KEYED = "token: " + "Hx9kQ2m" + "Z7pL4Xw9 "  # a secret found at every repetition
HIGH_ENTROPY = "aB3$xY7!kQ"  # ten distinct characters: 3.3 bits each
PEM_HEAD = "-----BEGIN " + "PRIVATE KEY-----\n"

CASES: list[Case] = [
    Case(
        "secrets: 'pwd=' repeated (one long value, read once)", lambda n: repeat("pwd=", n), scanned
    ),
    Case("secrets: 'pwd= ' repeated (short values)", lambda n: repeat("pwd= ", n), scanned),
    Case("secrets: a secret assignment repeated", lambda n: repeat(KEYED, n), scanned),
    Case(
        "secrets: one huge value of high entropy",
        lambda n: repeat(HIGH_ENTROPY, n, "password: "),
        scanned,
    ),
    Case("secrets: 'eyJ-' repeated (JWT prefix)", lambda n: repeat("eyJ-", n), scanned),
    Case(
        "secrets: JWT-shaped parts without a header",
        lambda n: repeat("eyJhbGciOi.eyJzdWIi.abc ", n),
        scanned,
    ),
    Case("secrets: 'AKIA' repeated", lambda n: repeat("AKIA", n), scanned),
    Case("secrets: 'sk-' repeated", lambda n: repeat("sk-", n), scanned),
    Case("secrets: 'xoxb-' then one long run", lambda n: repeat("a", n, "xoxb-"), scanned),
    Case("secrets: PEM headers without a body", lambda n: repeat(PEM_HEAD, n), scanned),
    Case(
        "secrets: PEM headers with a body, no END",
        lambda n: repeat(PEM_HEAD + "A" * 48 + "\n", n),
        scanned,
    ),
    Case("secrets: '-' runs (PEM marker search)", lambda n: repeat("-----BEGIN", n), scanned),
    Case(
        "secrets: a private-key header then 'A:' pieces and no body (the stalling block)",
        lambda n: repeat("A:", n, "-----BEGIN RSA " + "PRIVATE KEY-----\n"),
        scanned,
    ),
    Case(
        "secrets: private-key headers each followed by 'A:' pieces",
        lambda n: repeat("-----BEGIN RSA " + "PRIVATE KEY-----\n" + "A:" * 240 + "\n", n),
        scanned,
    ),
    Case("secrets: 'ghp_' repeated", lambda n: repeat("ghp_", n), scanned),
    Case("secrets: 'sk-ant-' repeated", lambda n: repeat("sk-ant-", n), scanned),
    Case("secrets: 'xapp-' then one long run", lambda n: repeat("a", n, "xapp-"), scanned),
    Case("secrets: 'a://b:' repeated (URL credentials)", lambda n: repeat("a://b:", n), scanned),
    Case("secrets: 'a://:' then a long run", lambda n: repeat("x", n, "a://:"), scanned),
    Case("secrets: 'Bearer ' repeated", lambda n: repeat("Bearer ", n), scanned),
    Case(
        "secrets: 'Authorization: Basic ' repeated",
        lambda n: repeat("Authorization: Basic ", n),
        scanned,
    ),
    Case("secrets: 'mysql -p' repeated", lambda n: repeat("mysql -p", n), scanned),
    Case("secrets: 'mysql ' then a long line", lambda n: repeat("x ", n, "mysql "), scanned),
    Case("secrets: 'password (' repeated", lambda n: repeat("password (", n), scanned),
    Case("secrets: 'key: ' repeated", lambda n: repeat("key: ", n), scanned),
    Case("secrets: 'dbPassword' repeated", lambda n: repeat("dbPassword", n), scanned),
    Case("secrets: 'SG.' repeated", lambda n: repeat("SG.", n), scanned),
    Case(
        "secrets: 'AccountKey=' then a long run", lambda n: repeat("A", n, "AccountKey="), scanned
    ),
    Case(
        "secrets: 'hooks.slack.com/services/T' repeated",
        lambda n: repeat("hooks.slack.com/services/T", n),
        scanned,
    ),
    # The scan's trigger passes and label-word passes (issue 33, speed): each pivot after
    # a letter with no trigger after it, and a trigger with nothing a pattern takes.
    Case(
        "secrets: 'a-' repeated (the '-' trigger's letter test)", lambda n: repeat("a-", n), scanned
    ),
    Case("secrets: 'k_live_' repeated", lambda n: repeat("sk_live_", n), scanned),
    Case("secrets: 'a_' and 'a.' repeated", lambda n: repeat("a_a.", n), scanned),
    Case("secrets: 'mysq' repeated then one 'l'", lambda n: repeat("mysq", n) + "l", scanned),
    Case("secrets: 'credential is ' repeated", lambda n: repeat("credential is ", n), scanned),
    Case(
        "secrets: 'authorization' repeated (anchored search)",
        lambda n: repeat("authorization", n),
        scanned,
    ),
    # The whole-pattern triggers (a password in a URL, on a mysql command line): each
    # look-ahead bounded, tried at every '://' and 'mysql'.
    Case("secrets: 'a://b:c' repeated (URL trigger)", lambda n: repeat("a://b:c", n), scanned),
    Case("secrets: 'mysql ' repeated (mysql trigger)", lambda n: repeat("mysql ", n), scanned),
    Case(
        "secrets: 'a-' then a PEM header, repeated", lambda n: repeat("a------BEGIN ", n), scanned
    ),
    Case("personal: 'a@' repeated", lambda n: repeat("a@", n), personal),
    Case("personal: 'a.b@c.' repeated", lambda n: repeat("a.b@c.", n), personal),
    Case("personal: '+1 ' repeated", lambda n: repeat("+1 ", n), personal),
    Case(
        "doctor: a note of secret assignments",
        lambda n: "---\nname: n\n---\n" + repeat(KEYED + "\n", n),
        doctor_on_note,
    ),
]


def test_the_cases_do_what_they_say(tmp_path: Path) -> None:
    """The hostile inputs, small: each takes the path its name promises."""
    assert scanned(repeat("pwd=", 400), tmp_path)[0] == 0  # one value, of low entropy
    assert scanned(repeat("pwd= ", 400), tmp_path)[0] == 0
    assert scanned(repeat(KEYED, 400), tmp_path)[0] == 400 // len(KEYED)
    assert scanned(repeat(HIGH_ENTROPY, 400, "password: "), tmp_path)[0] == 1
    assert scanned(repeat(PEM_HEAD, 400), tmp_path)[0] == 0
    assert scanned(repeat(PEM_HEAD + "A" * 48 + "\n", 400), tmp_path)[0] == 400 // 76
    assert personal(repeat("a.b@c.", 400), tmp_path) == 0
    assert personal("mail a.b@acme.io now", tmp_path) == 1


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_time_grows_linearly(case: Case, tmp_path: Path) -> None:
    assert_linear_row(__file__, case, tmp_path)


if __name__ == "__main__":
    child_row(CASES, sys.argv[1], sys.argv[2])
