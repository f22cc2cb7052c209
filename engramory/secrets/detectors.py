"""The detectors, as data: one entry per kind of credential, with a stable id.

Each :class:`Detector` has the lower-case ``keywords`` that gate it (a text
holding none of them is not searched with its pattern, as gitleaks does), a way
to find candidate values (a regular expression whose ``value`` group, or whole
match, is the value; or a function), an optional shape check on the value, and
examples that must fire and near misses that must stay quiet. Examples are
written with ``·`` between pieces and joined at run time (:func:`example`), so the
repository never holds a whole key.

Every pattern starts on a literal and has bounded repetition, so a search is
linear in the text's length; a provider's prefix counts after any character
that is not a letter or a digit. A pattern with a ``trigger`` is searched only
when the text holds its trigger; one without is tried only where the lowered text
holds one of its keywords, every match starting at one
(:mod:`~engramory.secrets.anchored`); a finder reads every text (labelled values, as
fast as a keyword test would) or, given a trigger, the texts that hold it (private keys).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from engramory.secrets import anchored, labelled, pem, values

JOIN = "·"


def _after(literal: str) -> str:
    """After a pattern's opening literal: it started after anything but a letter or a digit.

    The literal comes first so the search skips ahead to it (a pattern that opens with a
    look-behind is tried at every position); the look-behind then checks what preceded it.
    """
    return f"(?<![A-Za-z0-9]{re.escape(literal)})"


def example(text: str) -> str:
    """An example as the detector sees it: its pieces joined."""
    return text.replace(JOIN, "")


# ``(text, low, seen)``: ``seen`` where each keyword first occurs in ``low``, or ``None``.
Finder = Callable[[str, str, "Mapping[str, int] | None"], "list[tuple[int, int]]"]


@dataclass(frozen=True)
class Detector:
    """One kind of credential (see the module docstring)."""

    id: str
    title: str  # what a message calls it, with its article: "an AWS access key id"
    keywords: tuple[str, ...]
    pattern: str = ""
    check: Callable[[str], bool] | None = None
    finder: Finder | None = None
    fires: tuple[str, ...] = ()
    quiet: tuple[str, ...] = ()
    # A pattern's trigger: one character every match holds (the pivot) and look-arounds
    # for its neighbours (alternatives joined by ``|``); the scan searches a pattern only
    # when its trigger occurs.
    trigger: tuple[str, ...] = ()  # ``(pivot, look-arounds)``, or empty
    compiled: list[re.Pattern[str]] = field(default_factory=list, compare=False, repr=False)

    def pattern_search(self) -> Callable[[str], re.Match[str] | None]:
        """The compiled pattern's ``search`` (compiled on first use)."""
        if not self.compiled:
            self.compiled.append(re.compile(self.pattern))
        return self.compiled[0].search

    def spans(
        self, text: str, low: str, seen: Mapping[str, int] | None = None
    ) -> list[tuple[int, int]]:
        """``(start, end)`` of each value this detector finds in ``text``. With ``seen`` (where
        each keyword first occurs in ``low``), a pattern is tried only where they occur."""
        if self.finder is not None:
            return self.finder(text, low, seen)
        self.pattern_search()
        pattern = self.compiled[0]
        if seen is None:
            every: Iterable[re.Match[str]] = pattern.finditer(text)
        else:
            every = anchored.matches(pattern, text, anchored.starts(low, seen, self.keywords))
        found = []
        for match in every:
            group = "value" if "value" in match.re.groupindex else 0
            start, end = match.span(group)
            value = text[start:end]
            if values.quiet(value) or (self.check is not None and not self.check(value)):
                continue
            found.append((start, end))
        return found


def _openai_shaped(value: str) -> bool:
    """``sk-`` keys hold a long run mixing letters and digits (``sk-learn-…`` does not)."""
    for piece in re.split(r"[-_]", value[3:]):
        if len(piece) >= 16 and any(c.isdigit() for c in piece) and any(c.isalpha() for c in piece):
            return True
    return False


def _is_jwt(token: str) -> bool:
    """The first part decodes (base64url) to a JSON object naming an ``alg``."""
    import base64  # noqa: PLC0415 - only a candidate JWT pays for these
    import binascii  # noqa: PLC0415
    import json  # noqa: PLC0415

    head = token.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
        header = json.loads(decoded.decode("utf-8"))
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and "alg" in header


def _token_shaped(value: str) -> bool:
    """A bearer token, not a word: 8+ characters that are not only letters."""
    return len(value) >= 8 and not value.isalpha() and not values.is_pointer(value)


def _url_password(value: str) -> bool:
    return len(value) >= 2


def _pem_blocks(text: str, low: str, seen: Mapping[str, int] | None) -> list[tuple[int, int]]:
    return pem.find_blocks(text)


DETECTORS: tuple[Detector, ...] = (
    Detector(
        "private-key",
        "a private key",
        ("private key",),
        finder=_pem_blocks,
        trigger=("-", r"(?=----BEGIN )"),
        fires=(
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow·IBAAKCAQEA7Vx2kQ\n"
            "-----END RSA PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5v·bmUAAAA\n",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGX·kL9sBCAC7mV2Qw8x\n",
        ),
        quiet=(
            "the file starts with -----BEGIN RSA PRIVATE KEY----- and is kept in the vault",
            "-----BEGIN PRIVATE KEY-----\n<paste the key here>\n-----END PRIVATE KEY-----",
        ),
    ),
    Detector(
        "aws-access-key-id",
        "an AWS access key id",
        ("akia", "asia", "abia", "acca"),
        r"A" + _after("A") + r"(?:KIA|SIA|BIA|CCA)[A-Z2-7]{16}(?![A-Za-z0-9])",
        trigger=("A", r"(?=KIA|SIA|BIA|CCA)"),
        fires=(
            "AWS_ACCESS_KEY_ID=AKIA·Z3N5Q7XM2K4P6R5T",
            "export AWS_ACCESS_KEY_ID=AKIA·Z3N5Q7XM2K4P6R5T",
            "aws_key=AKIA·Z3N5Q7XM2K4P6R5T",
            "/AKIA·Z3N5Q7XM2K4P6R5T/",
            'id: "AKIA·Z3N5Q7XM2K4P6R5T"',
        ),
        quiet=("AKIA·IOSFODNN7EXAMPLE", "AKIA·Z3N5Q7XM2K4P6R5TX", "AKIA·XXXXXXXXXXXXXXXX"),
    ),
    Detector(
        "github-token",
        "a GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"g"
        + _after("g")
        + r"(?:h[pousr]_[A-Za-z0-9]{36}|ithub_pat_[A-Za-z0-9_]{82})(?![A-Za-z0-9_])",
        trigger=("_", r"(?<=gh[pousr]_)|(?<=github_)(?=pat_)"),
        fires=("x=ghp_·" + "aB3" * 12, "GH_TOKEN=github_pat_·" + "k9Zq" * 20 + "ab"),
        quiet=("export GH_TOKEN=github_pat_...", "ghp_·" + "x" * 36, "ghp_·" + "aB3" * 11),
    ),
    Detector(
        "gitlab-token",
        "a GitLab token",
        ("glpat-",),
        r"glpat-" + _after("glpat-") + r"[A-Za-z0-9_-]{20,200}",
        trigger=("-", r"(?<=glpat-)"),
        fires=("token glpat-·Zk4mQ8vX2nR7tY1wP3sL",),
        quiet=("glpat-·xxxxxxxxxxxxxxxxxxxx", "glpat-·short"),
    ),
    Detector(
        "slack-token",
        "a Slack token",
        ("xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xoxe", "xapp-"),
        r"x" + _after("x") + r"(?:ox(?:[abprs]|e(?:\.xox[bp])?)|app)-[A-Za-z0-9-]{10,300}",
        trigger=("-", r"(?<=xox[abprse]-)|(?<=xapp-)"),
        fires=(
            "xoxb-·2481234567-9876543210-AbCdEfGhIjKlMnOp",
            "xapp-·1-A0123BCDE-4567890123-9f8e7d6c5b4a39281706",
            "xoxe.xoxp-·1-Mi0yLTEyMzQ1Njc4OTAtMTIz",
        ),
        quiet=("xoxb-·your-token-here", "xoxb-·short"),
    ),
    Detector(
        "slack-webhook",
        "a Slack webhook",
        ("hooks.slack.com",),
        r"hooks\.slack\.com/services/(?P<value>T[A-Za-z0-9_]{4,40}/B[A-Za-z0-9_]{4,40}/"
        r"[A-Za-z0-9_]{8,80})",
        trigger=(".", r"(?<=hooks\.)(?=slack\.com/services/)"),
        fires=("https://hooks.slack.com/services/T0·1ABCDEF/B02GHIJKL/x8Ym3Qp7Zr2Lk9Wn",),
        quiet=("https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX",),
    ),
    Detector(
        "stripe-key",
        "a Stripe secret key",
        ("k_live_", "whsec_"),
        r"[rs](?<![A-Za-z0-9][rs])k_live_[A-Za-z0-9]{10,250}"
        r"|whsec_" + _after("whsec_") + r"[A-Za-z0-9+/]{24,100}",
        trigger=("_", r"(?<=[rs]k_live_)|(?<=whsec_)"),
        fires=("sk_live_·4eC39HqLyjWDarjtT1zdp7dc", "whsec_·Mz8rQ2vK7pX4nL9tB6yW1sE5hJ3gF0aD"),
        quiet=("pk_live_·4eC39HqLyjWDarjtT1zdp7dc", "sk_live_·xxxxxxxxxxxx"),
    ),
    Detector(
        "google-api-key",
        "a Google API key",
        ("aiza",),
        r"AIza" + _after("AIza") + r"[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])",
        trigger=("A", r"(?=Iza)"),
        fires=("key=AIza·SyD4kX9mQ2vL7pR3tN8wB5zY1cF6hJ0gE2u",),
        quiet=("AIza·SyD4kX9mQ2vL7pR3tN8wB5",),
    ),
    Detector(
        "google-oauth-secret",
        "a Google OAuth client secret",
        ("gocspx-",),
        r"GOCSPX-" + _after("GOCSPX-") + r"[A-Za-z0-9_-]{24,40}",
        trigger=("-", r"(?<=GOCSPX-)"),
        fires=("client_secret: GOCSPX-·Zk4mQ8vX2nR7tY1wP3sL5hJ9",),
        quiet=("GOCSPX-·xxxxxxxxxxxxxxxxxxxxxxxx",),
    ),
    Detector(
        "anthropic-key",
        "an Anthropic key",
        ("sk-ant-",),
        r"sk-ant-" + _after("sk-ant-") + r"[A-Za-z0-9_-]{20,300}",
        trigger=("-", r"(?<=sk-)(?=ant-)"),
        fires=("ANTHROPIC_API_KEY=sk-ant-·api03-Zk4mQ8vX2nR7tY1wP3sL5hJ9",),
        quiet=("sk-ant-·...",),
    ),
    Detector(
        "openai-key",
        "an OpenAI key",
        ("sk-",),
        r"sk-" + _after("sk-") + r"(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}",
        check=_openai_shaped,
        trigger=("-", r"(?<=sk-)"),
        fires=("OPENAI_API_KEY=sk-·proj-Zk4mQ8vX2nR7tY1wP3sL5hJ9",),
        quiet=("pip install sk-learn-extensions-for-everyone", "sk-·proj-xxxxxxxxxxxxxxxxxxxx"),
    ),
    Detector(
        "npm-token",
        "an npm token",
        ("npm_",),
        r"npm_" + _after("npm_") + r"[A-Za-z0-9]{36}(?![A-Za-z0-9_])",
        trigger=("_", r"(?<=npm_)"),
        fires=("//registry.npmjs.org/:_authToken=npm_·" + "Zk4mQ8" * 6,),
        quiet=("npm_·" + "x" * 36, "npm_config_cache"),
    ),
    Detector(
        "pypi-token",
        "a PyPI token",
        ("pypi-",),
        r"pypi-" + _after("pypi-") + r"AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,2000}",
        trigger=("-", r"(?<=pypi-)"),
        fires=("password = pypi-·AgEIcHlwaS5vcmcCJDk4ZjQ1YzJhLTk2NzQtNGI",),
        quiet=("pypi-·token-goes-here",),
    ),
    Detector(
        "huggingface-token",
        "a Hugging Face token",
        ("hf_",),
        r"hf_" + _after("hf_") + r"[A-Za-z0-9]{30,40}(?![A-Za-z0-9_])",
        trigger=("_", r"(?<=hf_)"),
        fires=("HF_TOKEN=hf_·Zk4mQ8vX2nR7tY1wP3sL5hJ9bC6dE0fG",),
        quiet=("hf_·" + "x" * 34, "hf_hub_download"),
    ),
    Detector(
        "sendgrid-key",
        "a SendGrid key",
        ("sg.",),
        r"SG\." + _after("SG.") + r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])",
        trigger=(".", r"(?<=SG\.)"),
        fires=("SG.·Zk4mQ8vX2nR7tY1wP3sL5h.J9bC6dE0fGZk4mQ8vX2nR7tY1wP3sL5hJ9bC6dE0fG1",),
        quiet=("SG.·xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",),
    ),
    Detector(
        "azure-storage-key",
        "an Azure storage account key",
        ("accountkey=",),
        r"AccountKey=(?P<value>[A-Za-z0-9+/]{40,120}={0,2})",
        trigger=("A", r"(?=ccountKey=)"),
        fires=("DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Zk4m·Q8vX" + "2nR7" * 20,),
        quiet=("AccountKey=<your-key>",),
    ),
    Detector(
        "jwt",
        "a JWT",
        ("eyj",),
        r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{4,4000}\.[A-Za-z0-9_-]{2,16000}\.[A-Za-z0-9_-]{1,4000}",
        check=_is_jwt,
        trigger=("J", r"(?<=eyJ)"),
        fires=("eyJhbGciOiJIUzI1NiJ9.·eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r",),
        quiet=("eyJhbGciOi.eyJzdWIi.abc",),
    ),
    Detector(
        "url-credentials",
        "a password in a URL",
        ("://",),
        r"://(?<=[A-Za-z0-9]://)[^\s/@:'\"`]{0,128}:(?P<value>[^\s/@'\"`]{1,256})@",
        check=_url_password,
        # The whole pattern as look-arounds: most ``://`` are links with no password.
        trigger=(":", r"(?<=[A-Za-z0-9]:)(?=//[^\s/@:'\"`]{0,128}:[^\s/@'\"`]{1,256}@)"),
        fires=(
            "postgres://app:Zk4m·Q8vX2n@db.internal:5432/app",
            "mongodb+srv://admin:s3cr·etPass@cluster0.x.mongodb.net",
            "redis://:pw@cache:6379",
        ),
        quiet=(
            "postgres://user:password@localhost/db",
            "postgres://app:${DB_PASSWORD}@db/app",
            "git@github.com:org/repo",
        ),
    ),
    Detector(
        "bearer-token",
        "a bearer token",
        ("bearer",),
        r"(?i:bearer)[ \t]{1,4}[`'\"]?(?P<value>[A-Za-z0-9][A-Za-z0-9._~+/=-]{7,2047})",
        check=_token_shaped,
        fires=("**Auth**: Bearer `pit-·4f8a2c9e1b7d`", "Authorization: Bearer Zk4m·Q8vX2nR7tY1w"),
        quiet=(
            "send a Bearer token in the header",
            "Authorization: Bearer <token>",
            'req.Header.Set("Authorization", "Bearer "+c.accessToken)',
        ),
    ),
    Detector(
        "basic-auth",
        "a Basic authorization header",
        ("authorization",),
        r"(?ai:authorization)[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\"']?(?i:basic)[ \t]{1,4}"
        r"(?P<value>[A-Za-z0-9+/]{8,1024}={0,2})",
        fires=("Authorization: Basic dXNl·cjpwYXNzd29yZDEyMw==",),
        quiet=("Authorization: Basic <base64 of user:password>",),
    ),
    Detector(
        "cli-password",
        "a password on a command line",
        ("mysql",),
        r"mysql(?<![A-Za-z0-9_-]mysql)(?:dump|admin)?[ \t][^\n]{0,200}?(?<=[ \t])-p"
        r"(?P<value>[^\s'\"-][^\s'\"]{2,127})",
        # Up to the value's first three characters: most ``mysql -p`` prompt for it.
        trigger=(
            "q",
            r"(?<=mysq)(?=l(?:dump|admin)?[ \t][^\n]{0,200}?(?<=[ \t])-p[^\s'\"-][^\s'\"]{2})",
        ),
        fires=("mysql -u root -pZk4m·Q8vX2n app", "mysqldump -h db -u app -ps3cr·et99 app"),
        quiet=("mysql -u root -p app", "mysql -u root -p$MYSQL_PWD app"),
    ),
    Detector(
        "labelled-secret",
        "a labelled secret value",
        ("pass", "pwd", "pw", "secret", "token", "key", "credential", "auth"),
        finder=labelled.find,
        fires=(
            "dbPassword: Hx9#kQ2!·mZ",
            "adminPassword=Summer·2024!",
            '"SecretAccessKey": "wJal·rXUtnFEMI/K7MDENG/bPxRfiCYzKEYz"',
            "SECRET_KEY = 'django-insecure-·k9#zq2@v7x!m4p8w'",
            "API Key: 9f2c4e6a8b0d1f3e·5a7c9e1b3d5f7a9c",
            "HCP Token: 0a1b2c3d4e5f6a7b·8c9d0e1f2a3b4c5d",
            "password: Welcome·2024ab",
            "password (still on the old server): Tr0ub4·dor&3",
            "the pw is Kx7!·mQ2z",
            "| API key | 9f2c4e6a8b0d1f3e·5a7c9e1b3d5f7a9c |",
            "PRIVATE_KEY=Zk4mQ8vX·2nR7tY1wP3sL",
        ),
        quiet=(
            "tokenizer: cl100k_base",
            "secret_name: prod/db/password",
            "password: $2b$12$·R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
            "secret: {uuid}",
            "credential (ID: 4a7c-77e2)",
            "client id: 9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c",
            "commit: 9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c1234abcd",
            "password: required",
            "pwd: /home/me/project",
            "password: ${DB_PASSWORD}",
            "token: bitpat_YOUR_TOKEN",
            "public key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMq",
            "the key is to keep it simple",
            "| Party | Phase 5 done before the next deploy-focused pass | 2026-04-19 |",
            "First pass: 2026-04-19",
            "| Private key | `(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY` |",
        ),
    ),
)

BY_ID = {d.id: d for d in DETECTORS}
