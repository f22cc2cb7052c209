"""Cost of the secret scan per note, next to the single-module scan it replaced, in one run.

Reproduce (from the repository root, in a git checkout):

    python benchmarks/secrets.py [--repeat 7] [--generated 600] [--old-ref c190534^]

The doctor's ``secret-value`` rule calls :func:`engramory.secrets.first_per_line`
on every note, so the scan's cost per note is the rule's. The notes are those of
the vendored real stores (``tests/corpus/stores``) plus generated ones: frontmatter,
prose that names tokens, keys and passwords without holding one, URLs, code blocks,
tables, and one note in ten holding a labelled password or a provider's key.

The earlier implementation (the module ``engramory/secrets.py`` before the detector
package replaced it) is loaded from git (``git show REF:engramory/secrets.py``) into
a temporary module; it is only timed here, never imported by the package. Passes over
the whole mix alternate between the two scans and each figure is the median pass, so
a machine that slows down for a while slows both alike. Prints us/note for each, their
ratio, and how many secrets each found (the two detect different things by design).
Target: the new scan no slower per note than the old (ratio <= 1.0; exit 1 with ``--check``
when it is above 1.1, the noise of a shared machine).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engramory import secrets  # noqa: E402

CORPUS = REPO / "tests" / "corpus" / "stores"
OLD_REF = "c190534^"
CHECK_LIMIT = 1.1

PROSE = (
    "The deploy script reads the token from the environment, never from a file.",
    "Rotate the API key every quarter; the vault path is in the runbook.",
    "Password resets go through the admin console (see docs/ops.md).",
    "Use `gh auth login` once; the CLI keeps its own credential store.",
    "Tokenizer: cl100k_base for every model we call.",
    "The secret_name in SSM is prod/db/password, read at start-up.",
    "See https://example.com/docs/auth for the OAuth flow, and bearer tokens in headers.",
    "First pass: 2026-04-19, second pass after the review.",
    "Key insight: the cache is keyed by commit id, not by branch.",
    "The user prefers small commits with honest messages and no force pushes.",
    "Tests run with pytest -q; the slow ones are marked and skipped in CI.",
    "mysql -u root -p app opens a prompt for the password.",
)
CODE = (
    "```sh\nexport DATABASE_URL=postgres://app:${DB_PASSWORD}@db/app\n```",
    "```python\ntoken = os.environ['API_TOKEN']\nclient = Client(token=token)\n```",
    "```yaml\nauth:\n  secret: ${{ secrets.DEPLOY_KEY }}\n  key_id: deploy-2026\n```",
)
TABLE = "| Setting | Value |\n|---|---|\n| api key | in 1Password |\n| timeout | 30s |"
# Assembled from pieces so the repository never holds a whole key.
SECRET_LINES = (
    "db password: Hx9#kQ2!" + "mZ7@pL4$",
    "AWS_ACCESS_KEY_ID=AKIA" + "Z3N5Q7XM2K4P6R5T",
    "GH_TOKEN=ghp_" + "aB3" * 12,
    "the pw is Kx7!" + "mQ2z",
)


def generated_notes(count: int, seed: int) -> list[str]:
    """``count`` notes shaped like the store's: frontmatter, prose, code, a table."""
    rng = random.Random(seed)
    notes = []
    for i in range(count):
        body = [rng.choice(PROSE) for _ in range(rng.randint(2, 6))]
        if rng.random() < 0.3:
            body.append(rng.choice(CODE))
        if rng.random() < 0.2:
            body.append(TABLE)
        if rng.random() < 0.1:
            body.append(rng.choice(SECRET_LINES))
        rng.shuffle(body)
        notes.append(
            f"---\nname: note-{i}\ndescription: a fact about the deploy, note {i}\n"
            f"type: project\n---\n\n" + "\n\n".join(body) + "\n"
        )
    return notes


def corpus_notes() -> list[str]:
    """Every markdown file of the vendored real stores, decoded as the doctor does."""
    return [path.read_bytes().decode("utf-8", "replace") for path in sorted(CORPUS.rglob("*.md"))]


def old_module(ref: str) -> ModuleType:
    """The single-module scan at ``ref``, loaded from git into a temporary module."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{ref}:engramory/secrets.py"],
        capture_output=True,
        check=True,
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "old_secrets.py"
        path.write_bytes(source)
        spec = importlib.util.spec_from_file_location("old_secrets", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def one_pass(scan: Callable[[str], list], notes: list[str]) -> tuple[float, int]:
    """CPU seconds to scan every note once (other processes' load does not count), and how
    many secrets were found."""
    found = 0
    start = time.process_time()
    for text in notes:
        found += len(scan(text))
    return time.process_time() - start, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="passes over the mix per scan")
    parser.add_argument("--generated", type=int, default=600, help="generated notes")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--old-ref", default=OLD_REF, help="git ref of the old module")
    parser.add_argument("--check", action="store_true", help=f"exit 1 above {CHECK_LIMIT}x")
    args = parser.parse_args(argv)

    real, made = corpus_notes(), generated_notes(args.generated, args.seed)
    old = old_module(args.old_ref)
    scans = {"new": secrets.first_per_line, "old": old.first_per_line}
    mixes = {"corpus": real, "generated": made, "all": real + made}
    print(f"notes: {len(real)} from tests/corpus/stores, {len(made)} generated")
    header = ("mix", "new us/note", "old us/note", "new/old", "found new/old")
    print(f"{header[0]:<10} {header[1]:>12} {header[2]:>12} {header[3]:>8} {header[4]:>14}")
    ratio_all = 0.0
    for name, notes in mixes.items():
        for scan in scans.values():
            one_pass(scan, notes)  # warm: compile patterns, load lazy imports
        times: dict[str, list[float]] = {key: [] for key in scans}
        found: dict[str, int] = {}
        for _ in range(args.repeat):
            for key, scan in scans.items():
                seconds, found[key] = one_pass(scan, notes)
                times[key].append(seconds)
        per_note = {key: statistics.median(t) / len(notes) * 1e6 for key, t in times.items()}
        ratio = per_note["new"] / per_note["old"]
        ratio_all = ratio
        print(
            f"{name:<10} {per_note['new']:>12.1f} {per_note['old']:>12.1f} {ratio:>8.2f} "
            f"{found['new']:>7}/{found['old']}"
        )
    verdict = "PASS" if ratio_all <= 1.0 else "FAIL"
    print(f"target: new <= old per note over all notes: {verdict} ({ratio_all:.2f}x)")
    return 1 if args.check and ratio_all > CHECK_LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
