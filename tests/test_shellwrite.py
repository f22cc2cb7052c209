"""Shell commands that write the index (caught) and ones that only read it (passed)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_linear_time import fastest_pair

from engramory.guard import shellwrite
from engramory.guard.shellwrite import (
    MAX_COMMAND,
    PATTERNS,
    TOO_DEEP,
    TOO_LONG,
    index_write,
    name_matcher,
    path_matcher,
)

BY_NAME = name_matcher("MEMORY.md")


def writes(command: str, cwd: str = "/work") -> str | None:
    return index_write(command, BY_NAME, cwd)


@pytest.mark.parametrize(
    "command",
    [
        "echo '- [x](x.md)' >> MEMORY.md",
        "echo x > store/MEMORY.md",
        "printf 'a\\n' >| MEMORY.md",
        "make 2> MEMORY.md",
        "make &> MEMORY.md",
        "make &>> MEMORY.md",
        "exec 3<> MEMORY.md",
        "cat notes.txt>>MEMORY.md",
        'echo x >> "MEMORY.md"',
        "echo x >> 'memory.md'",
        "echo x >> MEM'ORY'.md",
        "echo x >> ~/store/MEMORY.md",
        "cat > MEMORY.md <<'EOF'\n- [a](a.md)\nEOF",
        "cat <<EOF > MEMORY.md\nline\nEOF",
        "echo x | tee MEMORY.md",
        "echo x | tee -a store/MEMORY.md > /dev/null",
        "sed -i 's/a/b/' MEMORY.md",
        "sed -i.bak -e 's/a/b/' MEMORY.md",
        "sed --in-place 's/a/b/' MEMORY.md",
        "sed -Ei 's/a/b/' MEMORY.md",
        "perl -pi -e 's/a/b/' MEMORY.md",
        "perl -i.orig -pe 's/a/b/' MEMORY.md",
        "cp draft.md MEMORY.md",
        "cp -f /tmp/new store/MEMORY.md",
        "mv draft.md MEMORY.md",
        "install -m 644 draft.md MEMORY.md",
        "ln -sf /tmp/evil MEMORY.md",
        "rsync -a backup/MEMORY.md store/",
        "cp /tmp/MEMORY.md store/",
        "cp -t store/ /tmp/MEMORY.md",
        "dd if=/dev/zero of=MEMORY.md bs=1k count=1",
        "truncate -s 1M MEMORY.md",
        "vim MEMORY.md",
        "python3 -c \"open('MEMORY.md', 'a').write('x')\"",
        'python -c \'from pathlib import Path; Path("MEMORY.md").write_text("x")\'',
        "node -e \"require('fs').appendFileSync('MEMORY.md', 'x')\"",
        'perl -e \'open(my $f, ">>", "MEMORY.md"); print $f "x"\'',
        "python3 - <<'PY'\nopen('MEMORY.md', 'w').write('x')\nPY",
        "cd store && echo x >> MEMORY.md",
        "true; echo x >> MEMORY.md",
        "false || echo x >> MEMORY.md",
        "(echo x >> MEMORY.md)",
        "sh -c 'echo x >> MEMORY.md'",
        'bash -lc "printf x >> store/MEMORY.md"',
        "eval 'echo x >> MEMORY.md'",
        "sudo tee -a MEMORY.md < new.txt",
        "env LC_ALL=C sed -i 's/x/y/' MEMORY.md",
        "F=MEMORY.md; echo x >> $F",
        'F=store/MEMORY.md && echo x >> "${F}"',
        "nohup sh -c 'echo x > MEMORY.md' &",
        "mv MEMORY.md MEMORY.md.bak",  # the index is gone afterwards
        "f=$(echo MEM)ORY.md; echo x >> $f",  # a literal $(echo ...) is followed
        "find . -name MEMORY.md -exec sh -c 'echo x >> {}' \\;",
        "git checkout -- MEMORY.md",
    ],
)
def test_writes_are_caught(command: str) -> None:
    assert writes(command) is not None, command


@pytest.mark.parametrize(
    "command",
    [
        "cat MEMORY.md",
        "grep -n archive MEMORY.md",
        "wc -l MEMORY.md > /tmp/lines",
        "head -50 MEMORY.md | less",
        "sed -n '1,20p' MEMORY.md",
        "sed 's/a/b/' MEMORY.md > /tmp/preview",
        "cp MEMORY.md /tmp/backup.md",
        "diff MEMORY.md other.md",
        "python3 -c \"print(open('MEMORY.md').read())\"",
        "python3 tool.py MEMORY.md",
        "echo 'write to MEMORY.md later' > todo.txt",
        "git add MEMORY.md && git commit -m 'Update MEMORY.md'",
        "engramory check MEMORY.md",
        "cat > notes.txt <<'EOF'\necho x >> MEMORY.md\nEOF",
        "echo x >> MEMORY.md.bak",
        "echo x >> not-MEMORY.md",
        "ls > MEMORY.txt",
        "echo 'unbalanced >> MEMORY.md",
        "# echo x >> MEMORY.md",
        "make 2>&1 | tee build.log",
    ],
)
def test_reads_and_unrelated_writes_pass(command: str) -> None:
    assert writes(command) is None, command


@pytest.mark.parametrize(
    "command",
    [
        "f=$(ls | grep -i mem); echo x >> $f",  # a name only the run can tell
        'echo x >> "$INDEX"',  # a variable set elsewhere
        "python3 append_note.py",  # a script file
        "bash notes.sh",
        "python3 -c \"n = 'MEM' + 'ORY.md'; open(n, 'a').write('x')\"",
        "$EDITOR MEMORY.md",  # the program's name is unknown
    ],
)
def test_documented_gaps_are_not_caught(command: str) -> None:
    # hooks/INSTALL.md lists these as what the guard cannot see; the post-tool
    # check catches their result if it pushes the index over its cap.
    assert writes(command) is None


def test_the_target_is_reported_as_written() -> None:
    assert writes("echo x >> ./store/MEMORY.md") == "./store/MEMORY.md"


def test_custom_index_name() -> None:
    assert index_write("echo x >> INDEX.md", name_matcher("index.md"), "/w") == "INDEX.md"
    assert index_write("echo x >> MEMORY.md", name_matcher("index.md"), "/w") is None


def test_path_matcher_follows_cd_and_symlinks(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    index = store / "MEMORY.md"
    index.write_text("x")
    (tmp_path / "alias.md").symlink_to(index)
    pinned = path_matcher(str(index))
    cwd = str(tmp_path)
    assert index_write("cd store && echo x >> MEMORY.md", pinned, cwd)
    assert index_write("echo x >> alias.md", pinned, cwd)
    assert index_write("echo x >> store/../store/MEMORY.md", pinned, cwd)
    assert index_write("echo x >> MEMORY.md", pinned, cwd) is None  # another MEMORY.md
    assert index_write("echo x >> store/MEM*.md", pinned, cwd)


@pytest.mark.parametrize(
    "command",
    [
        "echo x >> MEM*.md",
        "echo x >> store/M?MORY.md",
        "sed -i 's/a/b/' *.md",
        "rm -f *.md",
        "for f in *.md; do sed -i 's/a/b/' \"$f\"; done",
        "echo x >> [M]EMORY.md",
    ],
)
def test_a_glob_names_the_index_only_where_it_exists(tmp_path: Path, command: str) -> None:
    # bash expands a glob to the files that are there, and leaves one that matches
    # nothing as it is: `sed -i ... *.md` in a folder without the index cannot write it
    (tmp_path / "store").mkdir()
    (tmp_path / "README.md").write_text("x")
    (tmp_path / "store" / "notes.md").write_text("x")
    assert writes(command, str(tmp_path)) is None, command
    (tmp_path / "MEMORY.md").write_text("x")
    (tmp_path / "store" / "MEMORY.md").write_text("x")
    assert writes(command, str(tmp_path)) is not None, command


@pytest.mark.parametrize(
    "command",
    [
        "find . -type f -exec sed -i 's/x/y/' {} +",
        "find . -name '*.md' -execdir sed -i 's/x/y/' {} \\;",
        "find . -type f | xargs sed -i 's/x/y/'",
        "grep -rl x . | xargs sed -i 's/x/y/'",
    ],
)
def test_find_and_xargs_reach_an_index_deeper_in_the_tree(tmp_path: Path, command: str) -> None:
    # bash ground truth: from a project root these rewrite .engramory-memory/MEMORY.md
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.md").write_text("x")
    assert writes(command, str(tmp_path)) is None, command
    store = tmp_path / ".engramory-memory"
    store.mkdir()
    (store / "MEMORY.md").write_text("x")
    assert writes(command, str(tmp_path)) is not None, command
    pinned = path_matcher(str(store / "MEMORY.md"))
    assert index_write(command, pinned, str(tmp_path)) is not None, command


def test_a_glob_under_an_unknown_folder_still_names_the_index() -> None:
    assert writes("echo x >> $SOMEWHERE/MEM*.md") is not None


def test_copy_into_a_directory_needs_a_source_with_the_index_name(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    cwd = str(tmp_path)
    assert index_write("cp /tmp/MEMORY.md store", BY_NAME, cwd)
    assert index_write("cp /tmp/notes.md store", BY_NAME, cwd) is None


def test_nesting_past_the_limit_is_denied() -> None:
    opening = "".join(f"bash <<'E{i}'\n" for i in range(20))
    closing = "".join(f"E{i}\n" for i in reversed(range(20)))
    harmless = opening + "true\n" + closing
    assert writes(harmless) == TOO_DEEP  # bash would run it: past the limit, assume a write
    assert writes("bash -c " + shlex.quote("bash -c " + shlex.quote("echo x >> MEMORY.md")))
    assert writes("echo " + "$(" * 40 + "ls" + ")" * 40) == TOO_DEEP


def test_long_commands_stay_fast() -> None:
    command = "echo " + "word " * 20000 + "> notes.txt; cat MEMORY.md"
    assert writes(command) is None


# --- issue 10, items 1-5 and 7: each form below was let through (or denied) wrongly --------


@pytest.mark.parametrize(
    "command",
    [
        # item 1: names the raw-bytes pre-check could not see (the parse must;
        # the glob form is in test_a_glob_names_the_index_only_where_it_exists)
        "F=MEMORY; echo x >> $F.md",
        "echo x >> 'MEMORY'.md",
        'echo x >> MEM""ORY.md',
        "echo x >> MEMORY\\.md",
        "echo x >> MEM\\\nORY.md",
        # item 2: a `<<` that is not a here-document
        'echo "<<EOF"\necho x >> MEMORY.md',
        "# <<EOF\necho x >> MEMORY.md",
        "echo $((1<<2))\necho x >> MEMORY.md",
        # item 3: a `#` inside a word is not a comment
        "echo C# notes >> MEMORY.md",
        # item 4: forms that were missed
        "bash <<< 'echo x >> MEMORY.md'",
        "echo 'echo x >> MEMORY.md' | bash",
        "bash <<'EOF'\necho x >> MEMORY.md\nEOF",
        "source /dev/stdin <<< 'echo x >> MEMORY.md'",
        ". /dev/stdin <<< 'echo x >> MEMORY.md'",
        "bash -c -- 'echo x >> MEMORY.md'",
        "echo x >> $'MEMORY.md'",
        "echo x >> $'\\x4dEMORY.md'",
        "echo x | tee MEMORY.{md,}",
        "echo x > >(tee -a MEMORY.md)",
        "export F=MEMORY.md; echo x >> $F",
        "declare F=MEMORY.md; echo x >> $F",
        "for f in MEMORY.md; do echo x >> $f; done",
        "echo x >> ${F:-MEMORY.md}",
        "python3 -Sc \"open('MEMORY.md', 'a').write('x')\"",
        "python3 -uc \"open('MEMORY.md', 'a').write('x')\"",
        "node -p \"require('fs').appendFileSync('MEMORY.md', 'x')\"",
        "node --eval=\"require('fs').appendFileSync('MEMORY.md', 'x')\"",
        'perl -we \'open(my $f, ">>", "MEMORY.md"); print $f 1\'',
        'perl -Mstrict -e \'open(my $f, ">>", "MEMORY.md"); print $f 1\'',
        'ruby -we \'File.write("MEMORY.md", "x")\'',
        'php -r \'file_put_contents("MEMORY.md", "x");\'',
        "setsid tee -a MEMORY.md",
        "ionice -c 3 tee -a MEMORY.md",
        "chrt -o 0 tee -a MEMORY.md",
        "busybox sed -i s/a/b/ MEMORY.md",
        "coproc tee -a MEMORY.md",
        "uv run python -c \"open('MEMORY.md', 'w')\"",
        "sudo -u root doas env nice -n 1 timeout 5 stdbuf -oL tee MEMORY.md",
    ],
)
def test_issue_10_bypasses_are_denied(command: str) -> None:
    assert writes(command) is not None, command


@pytest.mark.parametrize(
    "command",
    [
        "perl -Mwarnings -ne 'print' MEMORY.md",
        "node -e \"console.log(require('fs').readFileSync('MEMORY.md', 'utf8'))\"",
        "python3 -c \"print(open('MEMORY.md').read())\"",
        "python3 -c \"open('MEMORY.md').read(); open('/tmp/x', 'w')\"",
        "vim -R MEMORY.md",
        "view MEMORY.md",
        "nano -v MEMORY.md",
        "emacs --batch MEMORY.md",
        "truncate -r MEMORY.md /tmp/x",
        "rsync -n -a MEMORY.md store/",
        "rsync --dry-run draft.md MEMORY.md",
        "cp MEMORY.md backup.md",
        "wc -l MEMORY.md > /tmp/n",
        "cat <<'EOF' > out.txt\necho x >> MEMORY.md\nEOF",
        "python3 -c \"open('out.txt', 'w').write('MEMORY.md')\"",
        "vim -es -c 'w /tmp/copy' -c 'q' MEMORY.md",
    ],
)
def test_issue_10_reads_pass(command: str) -> None:
    assert writes(command) is None, command


def test_glob_is_matched_against_existing_files(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("x")
    (tmp_path / "alias.md").symlink_to(index)
    by_path = path_matcher(str(index))
    assert index_write("echo x >> ali*.md", by_path, str(tmp_path)) == "ali*.md"
    assert index_write("echo x >> zz*.md", by_path, str(tmp_path)) is None


def test_hard_link_is_the_index(tmp_path: Path) -> None:
    index = tmp_path / "MEMORY.md"
    index.write_text("x")
    (tmp_path / "other.md").hardlink_to(index) if hasattr(Path, "hardlink_to") else None
    if not (tmp_path / "other.md").exists():
        import os

        os.link(index, tmp_path / "other.md")
    assert index_write("echo x >> other.md", path_matcher(str(index)), str(tmp_path))


HOSTILE = {
    "quotes": "echo 'a' \"b\" $'c' " * 1,
    "unterminated": "'a" * 1,
    "continuations": "\\\n" * 1,
    "braces": "{a,b}" * 1,
    "open braces": "{" * 1,
    "substitutions": "$(" * 1,
    "backticks": "`a" * 1,
    "heredocs": "cat <<E\n" * 1,
    "redirects": "echo > a " * 1,
    "variables": "F=$F$F; " * 1,
    "cd": "cd a; " * 1,
    "globs": "echo x > " + "*a" * 1,
    "code": 'python3 -c "' + "open('a', 'w');" * 1 + '"',
    "functions": 'f() { echo > "$1"; }; f a; ' * 1,
    "open functions": "f() { " * 1,
    "arrays": "A=(a b); A+=(c); echo > ${A[0]}; " * 1,
    "parameter operations": "F=ab; echo > ${F%b}${F/a/c}${F^^}${F:1:1}${!F}; " * 1,
    "brace sequences": "touch a{a..z}b; " * 1,
    "sed w": "sed -n 'wa" * 1,
    "awk bindings": "awk -v f=a '{print > f}' b; " * 1,
    "interpreter arguments": "python3 -c 'import sys; open(sys.argv[1], \"a\")' a; " * 1,
    "printf": "printf -v F '%s%s' a b; echo > \"$(printf '%s' $F)\"; " * 1,
    "trap and set": "trap 'echo > a' EXIT; set -- a b; " * 1,
    "scripts written": "echo 'echo x' >> s.sh; " * 1,
    "links": "ln -s a b; echo > b; " * 1,
    "writers": "tar -cf a.tar b; gzip -k c; zip -q d.zip e; git status; " * 1,
    "tcl": "echo 'open a w' | tclsh; " * 1,
}


def _parse(unit: str, size: int) -> None:
    index_write(unit * (size // len(unit)), BY_NAME, "/nonexistent")


def _limit(small: float) -> float:
    return 3 * 4 * small + 0.05  # 4x the input: linear is 4x


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_parsing_grows_linearly(shape: str) -> None:
    """128 KiB then 512 KiB of one hostile shape: at most ~linear growth (CPU time, fastest
    runs, generous slack).

    (Commands over MAX_COMMAND, 1 MiB, are not parsed at all: see the next test.)
    """
    unit = HOSTILE[shape]
    small, large = fastest_pair(
        lambda: _parse(unit, 128 << 10), lambda: _parse(unit, 512 << 10), _limit
    )
    assert large < _limit(small), (shape, small, large)


def test_shellwrite_keeps_no_regular_expression() -> None:
    # every scan is a hand-written single pass; a pattern added later must join
    # the worst-case timing test (tests/test_linear_time.py) through this list
    assert PATTERNS == ()
    assert "import re" not in Path(shellwrite.__file__).read_text()


def test_a_command_too_long_to_parse_is_decided_as_a_write() -> None:
    assert writes("cat MEMORY.md; " + "x" * MAX_COMMAND) == TOO_LONG


# -- issue 34: the forms and writer programs, and what stays silent -----------------------

WRITER_FORMS = [
    "gzip MEMORY.md",
    "xz -9 store/MEMORY.md",
    "gunzip -f MEMORY.md.gz",
    "tar -cf MEMORY.md notes",
    "tar xf backup.tar MEMORY.md",
    "zip -m out.zip MEMORY.md",
    "unzip -o a.zip MEMORY.md",
    "iconv -t utf-8 -o MEMORY.md notes",
    "openssl enc -base64 -in notes -out MEMORY.md",
    "xxd -r dump MEMORY.md",
    "curl -sSLO https://example.com/MEMORY.md",
    "curl -sSLo MEMORY.md https://example.com",
    "echo 'set f [open MEMORY.md w]' | tclsh",
    "awk -v f=MEMORY.md 'BEGIN{print 1 > f}'",
    "python3 -c 'import sys; open(sys.argv[1], \"a\")' MEMORY.md",
    'f() { echo x >> "$1"; }; f MEMORY.md',
    "trap 'rm MEMORY.md' EXIT",
    "ln -s MEMORY.md s; echo x >> s",
]


@pytest.mark.parametrize("command", WRITER_FORMS)
def test_a_form_or_writer_program_writing_the_index_is_caught(command: str) -> None:
    assert writes(command) is not None


@pytest.mark.parametrize("command", WRITER_FORMS)
def test_the_fast_pre_check_lets_every_writer_through(command: str) -> None:
    from engramory.guard import service

    assert service.shell_may_write(command.replace('"', '\\"').encode())


@pytest.mark.parametrize(
    "command",
    [
        "git reset --hard",
        "git checkout main",
        "git stash",
        "git -C . merge other",
        "git clean -fd",
    ],
)
def test_a_git_rewrite_of_a_tree_holding_the_index_is_caught(tmp_path: Path, command: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "MEMORY.md").write_text("# M\n")
    assert index_write(command, BY_NAME, str(tmp_path)) is not None
    assert index_write(command, BY_NAME, str(tmp_path / "store")) is not None


@pytest.mark.parametrize(
    "command",
    ["git reset --hard", "git checkout main", "git stash pop", "git status", "git log"],
)
def test_git_outside_a_tree_holding_the_index_is_silent(tmp_path: Path, command: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "app.py").write_text("x = 1\n")
    assert index_write(command, BY_NAME, str(tmp_path)) is None


READERS = [
    "cat {f}", "wc -l {f}", "grep -n x {f}", "head -5 {f} > out.txt", "gzip -c {f} > a.gz",
    "tar -cf a.tar {f}", "zip -q a.zip {f}", "xxd {f}", "openssl dgst {f}", "cp {f} backup.md",
    "awk '{{print FILENAME}}' {f}", "sed -n '/w/p' {f}",
    "python3 -c 'import sys; print(open(sys.argv[1]).read())' {f}",
]  # fmt: skip
WRAPPERS = [
    "{c}", "f() {{ {c}; }}; f {f}", "set -- {f}; {c}", "A=({f}); {c}", "trap '{c}' EXIT",
    "F={f}; G=F; {c}", "printf -v F '%s' {f}; {c}",
]  # fmt: skip
NAMES = ["MEMORY.md", '"$1"', '"${A[0]}"', '"${!G}"', '"$F"', "MEMOR{X..Z}.md", '"${F%.md}.md"']


@given(
    st.sampled_from(READERS), st.sampled_from(WRAPPERS), st.sampled_from(NAMES),
    st.lists(st.sampled_from(READERS), max_size=2),
)  # fmt: skip
def test_read_only_commands_stay_silent(reader: str, wrapper: str, name: str, more: list) -> None:
    """Whatever form names the index, a command that only reads it is never denied."""
    if reader.startswith("xxd") and "{X..Z}" in name:
        # not read-only: xxd's second operand is its output, and the brace sequence gives
        # xxd three names, MEMORY.md second (the guard denies it, as it should)
        assert writes(reader.format(f=name), "/nonexistent") == "MEMORY.md"
        return
    inner = reader.format(f=name)
    command = wrapper.format(c=inner, f="MEMORY.md")
    command = "; ".join([command, *(r.format(f="MEMORY.md") for r in more)])
    assert writes(command, "/nonexistent") is None, command
