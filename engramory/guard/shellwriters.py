"""Programs that write files by their own conventions: archivers, converters, downloaders, git.

Each handler answers, for one simple command already expanded by
:class:`engramory.guard.shellwrite._Scan`, the index (as written) when the
program would write it, else ``None``:

* ``gzip``/``bzip2``/``xz``/``lzma``/``zstd``/``lz4``/``compress`` (and their
  ``un...``/``-d`` forms): compressing replaces FILE by FILE.gz (unless ``-k``,
  ``-c``, ``-t``, ``-l``); decompressing writes FILE from FILE.gz;
* ``tar``: the archive of ``-c``/``-r``/``-u`` (``-f FILE``), sources removed by
  ``--remove-files``, and what ``-x`` extracts (the members named, those of an
  archive this command made, else any file below ``-C DIR``);
* ``zip`` (its archive, sources moved in by ``-m``), ``unzip`` (as tar ``-x``);
* ``iconv -o``, ``openssl ... -out``/``-keyout``, ``xxd [-r] IN OUT``,
  ``curl -o``/``-O`` (the URL's file name), ``wget -O``;
* ``git``: ``rm``/``mv``/``restore``/``checkout -- FILE`` of the index, and the
  subcommands that rewrite tracked files anywhere in the work tree (``reset
  --hard``, ``checkout``/``switch`` of a branch, ``stash``, ``apply``, ``am``,
  ``merge``, ``pull``, ``rebase``, ``cherry-pick``, ``revert``, ``clean -f``):
  a write of the index when the work tree holds it.
"""

from __future__ import annotations

import os

from engramory.guard import shellparse as sp
from engramory.guard.indexmatch import STAR, UNKNOWN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_PARENTS = 64

_SUFFIXES = (".gz", ".z", ".tgz", ".bz2", ".tbz2", ".xz", ".txz", ".lzma", ".lz", ".lzo",
             ".zst", ".lz4", ".Z")  # fmt: skip
_DEFAULT_SUFFIX = {"gzip": ".gz", "pigz": ".gz", "bzip2": ".bz2", "pbzip2": ".bz2", "xz": ".xz",
                   "lzma": ".lzma", "lzip": ".lz", "lzop": ".lzo", "zstd": ".zst", "lz4": ".lz4",
                   "compress": ".Z"}  # fmt: skip
_UNCOMPRESSORS = {"gunzip": "gzip", "bunzip2": "bzip2", "unxz": "xz", "unlzma": "lzma",
                  "unzstd": "zstd", "uncompress": "compress", "unlz4": "lz4"}  # fmt: skip
_KEEPS_SOURCE = frozenset({"zstd", "lz4", "lzop"})  # they delete the source only when asked
_CURL_VALUES = {"-H", "-d", "-X", "-u", "-A", "-e", "-b", "-c", "-F", "-T", "-w", "-x", "-m",
                "--output-dir", "--data"}  # fmt: skip
_GIT_TREE = frozenset({"am", "merge", "pull", "rebase", "cherry-pick", "revert", "apply"})
_GIT_GLOBAL_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})


def short_flag(arg: str, flags: str) -> bool:
    """A short-option cluster (``-rf``) holding one of ``flags``."""
    if not arg.startswith("-") or arg.startswith("--") or len(arg) < 2:
        return False
    return arg[1:].isalpha() and any(f in arg[1:] for f in flags)


def operands(args: list[str], plain: list[str], value_options: set[str]) -> list[str]:
    """The arguments that are not options (nor an option's value); all of them after ``--``."""
    out: list[str] = []
    i = 0
    options_done = False
    while i < len(plain):
        arg = plain[i]
        if not options_done and arg == "--":
            options_done = True
        elif not options_done and arg in value_options:
            i += 1
        elif options_done or not arg.startswith("-") or arg == "-":
            out.append(args[i])
        i += 1
    return out


def option_values(args: list[str], plain: list[str], names: tuple[str, ...]) -> list[str]:
    """The values given to options ``names`` (``-o F``, ``-oF``, ``--output=F``)."""
    out: list[str] = []
    for i, arg in enumerate(plain):
        for name in names:
            if arg == name and i + 1 < len(args):
                out.append(args[i + 1])
            elif name.startswith("--") and arg.startswith(name + "="):
                out.append(args[i][len(name) + 1 :])
            elif not name.startswith("--") and arg.startswith(name) and len(arg) > len(name):
                out.append(args[i][len(name) :])
    return out


def cluster_values(args: list[str], plain: list[str], letter: str) -> list[str]:
    """The values of a short option that may end a cluster (``curl -sSLo FILE``, ``-oFILE``)."""
    out: list[str] = []
    for i, arg in enumerate(plain):
        if not arg.startswith("-") or arg.startswith("--") or letter not in arg[1:]:
            continue
        at = arg.index(letter, 1)
        if at > 1 and not arg[1:at].isalpha():
            continue
        rest = args[i][at + 1 :]
        if rest:
            out.append(rest)
        elif i + 1 < len(args):
            out.append(args[i + 1])
    return out


def compressor(scan, name: str, args: list[str], plain: list[str], command) -> str | None:
    """gzip and its kin: the file replaced (compressing) or written (decompressing)."""
    base = _UNCOMPRESSORS.get(name, name)
    if any(short_flag(p, "ctl") or p in ("--stdout", "--to-stdout", "--test", "--list")
           for p in plain):  # fmt: skip
        return None
    decompress = name in _UNCOMPRESSORS or any(
        short_flag(p, "d") or p in ("--decompress", "--uncompress") for p in plain
    )
    keep = any(short_flag(p, "k") or p == "--keep" for p in plain)
    keep = (keep or base in _KEEPS_SOURCE) and "--rm" not in plain
    files = operands(args, plain, {"-S", "--suffix", "-T", "--threads", "-o", "-b", "-e"})
    outputs = option_values(args, plain, ("-o",)) if base in ("zstd", "lz4") else []
    if base == "lz4" and len(files) == 2:
        files, outputs = files[:1], files[1:]
    suffix = next(iter(option_values(args, plain, ("-S", "--suffix"))), None)
    written = list(outputs)
    for file in files:
        text = sp.plain(file)
        if decompress:
            ending = next((s for s in ((suffix,) if suffix else _SUFFIXES) if text.endswith(s)), "")
            if ending and not outputs:
                written.append(text[: -len(ending)])
        elif not outputs:
            written.append(text + (suffix or _DEFAULT_SUFFIX.get(base, ".gz")))
        if not keep:
            written.append(file)
    return scan.first_hit(written)


def _tar_mode(plain: list[str]) -> tuple[str, list[str], list[str]]:
    """The mode letters, the ``-f`` archive(s) and the rest of a tar command line."""
    modes = ""
    archives: list[str] = []
    rest: list[str] = []
    queue = iter(plain)
    if plain and not plain[0].startswith("-"):  # old style: `tar cf FILE ...`
        letters = next(queue)
        modes += letters
        if "f" in letters and len(plain) > 1:
            archives.append(next(queue))
    for arg in queue:
        if arg.startswith("--file="):
            archives.append(arg[len("--file=") :])
        elif arg == "--file":
            archives.append(next(queue, ""))
        elif arg.startswith("--"):
            modes += {"--create": "c", "--append": "r", "--update": "u", "--extract": "x",
                      "--get": "x", "--list": "t", "--to-stdout": "O"}.get(arg, "")  # fmt: skip
            rest.append(arg)
        elif arg.startswith("-") and len(arg) > 1:
            cluster = arg[1:]
            at = cluster.find("f")
            letters = cluster if at < 0 else cluster[:at]
            modes += letters
            if at >= 0:
                value = cluster[at + 1 :]
                archives.append(value if value else next(queue, ""))
            elif "C" in letters:
                rest.extend([arg, next(queue, "")])
                continue
            rest.append(arg)
        else:
            rest.append(arg)
    return modes, archives, rest


def tar(scan, name: str, args: list[str], plain: list[str], command) -> str | None:
    """tar: the archive it creates or updates, sources it removes, files it extracts."""
    modes, archives, rest = _tar_mode(plain)
    directory = next(iter(option_values(rest, rest, ("-C", "--directory"))), ".")
    members = [r for k, r in enumerate(rest) if not r.startswith("-") and not _after_c(rest, k)]
    if set(modes) & set("cru") or "A" in modes:
        found = scan.first_hit(archives)
        if found:
            return found
        if "--remove-files" in rest:
            found = scan.first_hit(members) or scan.below(members)
            if found:
                return found
        renames = any(r.startswith(("--transform", "--xform")) or r == "-s" for r in rest)
        for archive in archives:
            if not renames:  # members renamed on the way in are not known
                scan.archives[scan.resolved(archive)] = members
        return None
    if "x" in modes and "O" not in modes:
        return extracted(scan, archives[:1], members, directory)
    return None


def _after_c(rest: list[str], k: int) -> bool:
    return k > 0 and rest[k - 1] in ("-C", "--directory")


def extracted(scan, archives: list[str], members: list[str], directory: str) -> str | None:
    """What extracting writes: the members named, those of an archive made by this command
    (a folder among them: the files below it), else any file below ``directory``."""
    if members:
        return scan.first_hit(os.path.join(directory, sp.plain(m)) for m in members)
    known = scan.archives.get(scan.resolved(archives[0])) if archives else None
    if known is None:
        found = scan.somewhere_below(directory, STAR)
        return found if scan.hit(found) else None
    for member in known:
        path = os.path.join(directory, sp.plain(member))
        if scan.hit(path):
            return path
        if os.path.isdir(os.path.join(scan.cwd, sp.plain(member))) and scan.matcher.under(
            sp.plain(member), STAR, scan.cwd
        ):
            return os.path.join(path, scan.matcher.name or "")
    return None


def zip_writer(scan, name: str, args: list[str], plain: list[str], command) -> str | None:
    """zip: the archive (or ``-O`` output) is written; ``-m`` moves the sources into it."""
    values = {"-b", "-n", "-t", "-tt", "-P", "-O", "-s", "-sp", "-Z", "--out", "-x", "-i"}
    files = operands(args, plain, values)
    found = scan.first_hit(option_values(args, plain, ("-O", "--out")) or files[:1])
    if found:
        return found
    sources = files[1:]
    if any(
        p in ("-m", "--move") or (short_flag(p, "m") and not p.startswith("-mm")) for p in plain
    ):
        found = scan.first_hit(sources) or scan.below(sources)
        if found:
            return found
    if files:
        scan.archives[scan.resolved(files[0])] = sources
    return None


def unzip(scan, name: str, args: list[str], plain: list[str], command) -> str | None:
    """unzip: what it extracts (as tar ``-x``); listing, testing and printing write nothing."""
    if any(short_flag(p, "ltvpcZz") for p in plain):
        return None
    files = operands(args, plain, {"-d", "-x", "-P", "-I", "-O"})
    directory = sp.plain(next(iter(option_values(args, plain, ("-d",))), "."))
    return extracted(scan, files[:1], files[1:], directory)


def xxd(scan, name: str, args: list[str], plain: list[str], command) -> str | None:
    """``xxd [options] [IN [OUT]]``: OUT is written."""
    files = operands(args, plain, {"-c", "-g", "-l", "-s", "-o", "-n", "-cols", "-len", "-seek"})
    return scan.first_hit(files[1:2])


def curl(scan, name: str, args: list[str], plain: list[str], command) -> str | None:
    """curl: ``-o FILE`` (also ending a cluster), ``-O``: the URL's file name (``--output-dir``)."""
    outputs = option_values(args, plain, ("--output",)) + cluster_values(args, plain, "o")
    remote = any(p in ("--remote-name", "--remote-name-all") or short_flag(p, "O") for p in plain)
    if remote:
        directory = sp.plain(next(iter(option_values(args, plain, ("--output-dir",))), ""))
        for url in operands(args, plain, _CURL_VALUES):
            text = sp.plain(url).partition("?")[0].partition("#")[0].rstrip("/")
            if "://" in text:
                outputs.append(os.path.join(directory, text.rpartition("/")[2]))
    return scan.first_hit(outputs)


def wget(scan, name: str, args: list[str], plain: list[str], command) -> str | None:
    """wget: ``-O FILE`` (also ending a cluster)."""
    outputs = option_values(args, plain, ("--output-document",)) + cluster_values(args, plain, "O")
    return scan.first_hit(outputs)


def git(scan, name: str, args: list[str], plain: list[str], command) -> str | None:  # noqa: PLR0912
    """git: the files a subcommand writes; the whole work tree for those that rewrite it."""
    i = 0
    where = "."
    while i < len(plain) and plain[i].startswith("-"):
        if plain[i] == "-C" and i + 1 < len(plain):
            where = os.path.join(where, plain[i + 1])
        elif plain[i].startswith("--work-tree="):
            where = plain[i].partition("=")[2]
        i += 2 if plain[i] in _GIT_GLOBAL_VALUES else 1
    if i >= len(plain):
        return None
    sub, rest, rest_plain = plain[i], args[i + 1 :], plain[i + 1 :]
    paths = operands(rest, rest_plain, {"-m", "-b", "-B", "-c", "-C", "-s", "--source", "-S"})
    flags = set(rest_plain)
    if sub == "rm":
        return None if "--cached" in flags else _under(scan, where, paths)
    if sub == "mv":
        return _under(scan, where, paths)
    if sub == "restore":
        staged_only = bool(flags & {"--staged", "-S"}) and not flags & {"--worktree", "-W"}
        return None if staged_only else _under(scan, where, paths) or _tree_path(scan, where, paths)
    if sub == "reset":
        return _tree(scan, where) if flags & {"--hard", "--merge", "--keep"} else None
    if sub in ("checkout", "switch"):
        return _checkout(scan, where, sub, rest_plain, paths)
    if sub == "stash":
        action = paths[0] if paths else "push"
        if action in ("list", "show", "drop", "clear", "create", "store"):
            return None
        return _tree(scan, where)
    if sub == "clean":
        if flags & {"-n", "--dry-run"} or not any(
            short_flag(p, "f") or p == "--force" for p in flags
        ):
            return None
        return _tree(scan, where)
    if sub in _GIT_TREE:
        reads_only = {"--check", "--stat", "--numstat", "--summary", "--cached", "--abort"}
        if sub == "apply" and flags & reads_only and "--apply" not in flags:
            return None
        return _tree(scan, where)
    return None


def _checkout(scan, where: str, sub: str, rest: list[str], paths: list[str]) -> str | None:
    if "--" in rest:
        after = rest[rest.index("--") + 1 :]
        return _under(scan, where, after) or _tree_path(scan, where, after)
    new_branch = {"-b", "-B", "-c", "-C", "--orphan"} & set(rest)
    if new_branch:
        return _tree(scan, where) if len(paths) > 1 or "-B" in rest or "-C" in rest else None
    if not paths:
        return None
    files = [p for p in paths if os.path.exists(os.path.join(scan.cwd, where, sp.plain(p)))]
    if sub == "checkout" and files:
        return _under(scan, where, files) or _tree_path(scan, where, files)
    return _tree(scan, where)


def _under(scan, where: str, paths: list[str]) -> str | None:
    return scan.first_hit(os.path.join(where, sp.plain(p)) if where != "." else p for p in paths)


def _tree_path(scan, where: str, paths: list[str]) -> str | None:
    """A folder among ``paths`` (``git checkout -- .``) rewrites the files below it."""
    folders = [os.path.join(where, sp.plain(p)) for p in paths]
    return scan.below([f for f in folders if os.path.isdir(os.path.join(scan.cwd, f))])


def _tree(scan, where: str) -> str | None:
    """The index, when it lies in the work tree that holds ``where``."""
    top = _work_tree(os.path.join(scan.cwd, where))
    if top is None or UNKNOWN in top:
        return None
    found = scan.somewhere_below(top, STAR)
    return found if scan.hit(found) else None


def _work_tree(start: str) -> str | None:
    """The top of the git work tree holding ``start`` (a folder with ``.git``), else ``None``."""
    folder = os.path.abspath(start)
    for _ in range(MAX_PARENTS):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


HANDLERS: dict[str, Callable[..., str | None]] = {
    "tar": tar,
    "bsdtar": tar,
    "zip": zip_writer,
    "unzip": unzip,
    "xxd": xxd,
    "curl": curl,
    "wget": wget,
    "git": git,
    "iconv": lambda scan, n, a, p, c: scan.first_hit(option_values(a, p, ("-o", "--output"))),
    "openssl": lambda scan, n, a, p, c: scan.first_hit(option_values(a, p, ("-out", "-keyout"))),
}
for _name in (*_DEFAULT_SUFFIX, *_UNCOMPRESSORS):
    HANDLERS[_name] = compressor


_TCL_WRITE_MODES = frozenset({"w", "a", "w+", "a+", "r+", "wb", "ab"})
_TCL_FILE_WRITES = frozenset({"delete", "rename", "copy", "link", "mtime", "atime", "attributes"})


def tcl(scan, name: str, args: list[str], plain: list[str], command) -> str | None:
    """``tclsh``/``wish``/``expect``: a script on stdin, ``expect -c``, or one written here."""
    code = next(iter(option_values(args, plain, ("-c",))), None) if name == "expect" else None
    files = operands(args, plain, {"-c", "-encoding"})
    if code is None and files and sp.plain(files[0]) != "-":
        code = scan.files.get(scan.resolved(files[0])) if scan.files else None
    elif code is None:
        code = scan.stdin_text(command)
    return tcl_writes(scan, sp.plain(code)) if code else None


def tcl_writes(scan, code: str) -> str | None:
    """``open FILE w``, ``file delete|rename|copy FILE``, ``exec CMD`` in Tcl code."""
    for separator in ("[", "]", ";"):
        code = code.replace(separator, "\n")
    for statement in code.split("\n"):
        words = [w.strip('{}"') for w in statement.split()]
        if not words:
            continue
        if words[0] == "open" and len(words) >= 3:
            mode = " ".join(words[2:]).upper()
            writes = words[2] in _TCL_WRITE_MODES or any(
                flag in mode for flag in ("WRONLY", "RDWR", "APPEND", "CREAT", "TRUNC")
            )
            found = scan.first_hit(words[1:2]) if writes else None
        elif words[0] == "file" and len(words) >= 3 and words[1] in _TCL_FILE_WRITES:
            found = scan.first_hit(w for w in words[2:] if not w.startswith("-"))
        elif words[0] == "exec" and len(words) > 1:
            found = scan.nested_run(" ".join(words[1:]))
        else:
            found = None
        if found:
            return found
    return None


for _name in ("tclsh", "wish", "expect"):
    HANDLERS[_name] = tcl
