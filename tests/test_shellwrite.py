"""Shell commands that write the index (caught) and ones that only read it (passed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engramory.shellwrite import index_write, name_matcher, path_matcher

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
        "echo x >> MEM*.md",
        "echo x >> store/M?MORY.md",
        "nohup sh -c 'echo x > MEMORY.md' &",
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
        "mv MEMORY.md MEMORY.md.bak",
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
        "f=$(echo MEM)ORY.md; echo x >> $f",  # a name built at run time
        'echo x >> "$INDEX"',  # a variable set elsewhere
        "find . -name MEMORY.md -exec sh -c 'echo x >> {}' \\;",
        "python3 append_note.py",  # a script file
        "git checkout -- MEMORY.md",
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


def test_copy_into_a_directory_needs_a_source_with_the_index_name(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    cwd = str(tmp_path)
    assert index_write("cp /tmp/MEMORY.md store", BY_NAME, cwd)
    assert index_write("cp /tmp/notes.md store", BY_NAME, cwd) is None


def test_deep_nesting_is_bounded() -> None:
    command = "echo x >> MEMORY.md"
    for _ in range(10):
        command = "sh -c " + repr(command)
    assert writes(command) is None  # beyond three levels of sh -c the guard stops looking


def test_long_commands_stay_fast() -> None:
    command = "echo " + "word " * 20000 + "> notes.txt; cat MEMORY.md"
    assert writes(command) is None
