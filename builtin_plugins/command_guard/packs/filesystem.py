"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``filesystem`` pack: deleting, emptying or overwriting files and directories that matter.

A recursive delete inside a temporary directory (``/tmp``, ``/var/tmp``, ``$TMPDIR``) or of a
dependency/bytecode cache that a tool rebuilds (``node_modules``, ``__pycache__``,
``.pytest_cache``, ...) passes; a recursive delete anywhere else asks, and one of ``/``, a home
directory or the system's own directories blocks. Build outputs (``build``, ``dist``,
``target``) ask: they are sometimes the only copy of something, and the agent's working directory
is not known when the line is judged.
"""

from __future__ import annotations

import re

from hermes_hooks.shell_syntax import Command

from ..flags import Flags, read_flags
from ..paths import (
    HOME,
    OTHER,
    ROOT,
    SYSTEM,
    TEMP,
    is_block_device,
    is_critical,
    is_critical_file,
    is_startup_or_auth,
    is_top_level,
    normalize,
    place,
    remote_path,
)
from ..rules import ANY, Pack, Rule

CACHE_DIRS = frozenset(
    "node_modules __pycache__ .pytest_cache .mypy_cache .ruff_cache .hypothesis .tox .nox"
    " .next .nuxt .parcel-cache .turbo .svelte-kit .eslintcache .sass-cache .gradle"
    " .ipynb_checkpoints .pytype .dmypy.json".split()
)
"""Directory names a recursive delete may remove from a project: caches and installed
dependencies that the tool that made them rebuilds."""

_EVERYTHING_HERE = re.compile(r"^(?:\./)?[*.?{},\[\]!]*\*[*.?{},\[\]!]*$|^\.{1,2}/?$")


def _rm(command: Command) -> Flags:
    return read_flags(command.args)


def _recursive(flags: Flags) -> bool:
    return flags.has("-r", "-R", "--recursive")


def _is_cache(word: str) -> bool:
    """A relative path whose last component is a rebuildable cache (``a/node_modules``)."""
    path = normalize(word)
    if path.startswith(("/", "~", "..")) or "$" in path or "`" in path:
        return False
    return path.rsplit("/", 1)[-1] in CACHE_DIRS


def _places(words: tuple[str, ...]) -> set[str]:
    return {place(w) for w in words}


def _rm_root(command: Command) -> bool:
    flags = _rm(command)
    return flags.has("--no-preserve-root") or ROOT in _places(flags.operands)


def _rm_home(command: Command) -> bool:
    flags = _rm(command)
    everything = any(place(w) == HOME and "*" in w for w in flags.operands)
    return HOME in _places(flags.operands) and (_recursive(flags) or everything)


def _rm_system(command: Command) -> bool:
    flags = _rm(command)
    return _recursive(flags) and SYSTEM in _places(flags.operands)


def _rm_recursive(command: Command) -> bool:
    flags = _rm(command)
    if not _recursive(flags) or flags.asks_help():
        return False
    if not flags.operands:
        return True  # fed by xargs, or a mistake: the targets are not known
    return any(place(w) == OTHER and not _is_cache(w) for w in flags.operands)


def _rm_everything_here(command: Command) -> bool:
    flags = _rm(command)
    return not _recursive(flags) and any(_EVERYTHING_HERE.match(w) for w in flags.operands)


def _delete_critical_file(command: Command) -> bool:
    return any(is_critical_file(w) for w in _rm(command).operands)


def _delete_system_file(command: Command) -> bool:
    flags = _rm(command)
    if command.program == "rm" and _recursive(flags):
        return False  # rm-system
    return any(
        place(w) == SYSTEM and not is_critical_file(w) and not normalize(w).startswith("/dev/")
        for w in flags.operands
    )


def _rmdir_system(command: Command) -> bool:
    return any(is_critical(w) for w in read_flags(command.args).operands)


_FIND_EXPRESSION = re.compile(r"^[-!(),]")


def _find_starts(command: Command) -> list[str]:
    starts: list[str] = []
    args = list(command.args)
    while args and args[0] in ("-H", "-L", "-P") or (args and args[0].startswith("-O")):
        args.pop(0)
    if args and args[0] == "-D" and len(args) > 1:
        args = args[2:]
    for arg in args:
        if _FIND_EXPRESSION.match(arg):
            break
        starts.append(arg)
    return starts or ["."]


def _find_deletes(command: Command) -> bool:
    return "-delete" in command.args


def _find_delete_system(command: Command) -> bool:
    return _find_deletes(command) and any(is_critical(p) for p in _find_starts(command))


def _find_delete(command: Command) -> bool:
    if not _find_deletes(command):
        return False
    starts = _find_starts(command)
    # find /tmp -delete deletes inside /tmp: the start itself counts as temporary
    inside = [normalize(p).rstrip("/") + "/x" for p in starts]
    return not any(is_critical(p) for p in starts) and any(place(p) != TEMP for p in inside)


_SHRED_VALUES = {
    "shred": ("-n", "--iterations", "-s", "--size", "--random-source", "--remove"),
    "srm": (),
    "wipe": ("-S", "-T", "-l", "-x", "-p", "-b"),
    "scrub": ("-p", "--pattern", "-b", "--blocksize", "-s", "--device-size"),
    "sfill": (),
}


_SRM_DESTROYING = (
    *("-s", "--simple", "-m", "--medium", "-d", "--dod", "-D", "--doe", "-E", "--openbsd"),
    *("-C", "--rcmp", "-G", "--gutmann", "-P", "-r", "-R", "--recursive"),
)


def _shred_flags(command: Command) -> Flags:
    return read_flags(command.args, takes_value=_SHRED_VALUES.get(command.program, ()))


def _shred_device(command: Command) -> bool:
    flags = _shred_flags(command)
    if command.program == "sfill":  # it overwrites the free space of the directory's disk
        return any(is_block_device(w) for w in flags.operands)
    return any(is_block_device(w) or is_critical(w) for w in flags.operands)


def _shred(command: Command) -> bool:
    """Any file erased beyond recovery, outside the temporary directories."""
    flags = _shred_flags(command)
    if flags.asks_help() or (command.program == "srm" and flags.has("-V")):
        return False
    if command.program == "sfill":  # the deleted files' remains on that disk are gone for good
        return bool(flags.operands) and not any(is_block_device(w) for w in flags.operands)
    if any(is_block_device(w) or is_critical(w) for w in flags.operands):
        return False  # shred-device
    outside = [w for w in flags.operands if place(w) != TEMP]
    if command.program != "srm" or any(_EVERYTHING_HERE.match(w) for w in outside):
        return bool(outside)
    # srm is also "secure rm": one named file with its default pass is rm's case (which
    # passes); a chosen overwrite mode or a recursive erase is a decision to destroy
    return bool(outside) and flags.has(*_SRM_DESTROYING)


def _shrinks(size: str) -> bool:
    return bool(re.match(r"^(?:0+[KMGTPE]?i?B?|-.*|<.*|/.*)$", size))


def _empty_file(command: Command) -> bool:
    if command.program == "truncate":
        flags = read_flags(command.args, takes_value=("-s", "--size", "-r", "--reference"))
        size = flags.value("-s", "--size")
        return (size is not None and _shrinks(size)) and any(
            place(w) != TEMP and not is_critical_file(w) for w in flags.operands
        )
    flags = read_flags(command.args, takes_value=("-t", "--target-directory", "-S", "--suffix"))
    operands = flags.operands
    return (
        len(operands) == 2
        and normalize(operands[0]) == "/dev/null"
        and place(operands[1]) != TEMP
        and not is_critical_file(operands[1])
    )


_WRITE_OPS = (">", ">|", "&>", "1>", "2>", ">&")
_APPEND_OPS = (">>", "&>>", "1>>", "2>>")


def _written_files(command: Command, *, append: bool) -> list[str]:
    """The files this command writes over (``>``, ``tee``, ``cp /dev/null``, ``truncate``), or
    appends to when ``append``."""
    ops = _APPEND_OPS if append else _WRITE_OPS
    files = [r.target for r in command.redirects if r.op in ops and not r.target.startswith("&")]
    if command.program == "tee":
        flags = read_flags(command.args, takes_value=("--output-error",))
        if flags.has("-a", "--append") == append:
            files.extend(flags.operands)
    elif not append and command.program == "truncate":
        flags = read_flags(command.args, takes_value=("-s", "--size", "-r", "--reference"))
        files.extend(flags.operands)
    elif not append and command.program in ("dd", "dcfldd", "dc3dd"):
        files.extend(a[3:] for a in command.args if a.startswith("of="))
    elif not append and command.program == "cp":
        operands = read_flags(command.args, takes_value=("-t", "-S", "--suffix")).operands
        if len(operands) == 2 and normalize(operands[0]) == "/dev/null":
            files.append(operands[1])
    return files


_RSYNC_VALUES = (
    "-e",
    "--rsh",
    "--exclude",
    "--include",
    "--filter",
    "-f",
    "--exclude-from",
    "--include-from",
    "--files-from",
    "--rsync-path",
    "--backup-dir",
    "--suffix",
    "--log-file",
    "--password-file",
    "--port",
    "--timeout",
    "--chmod",
    "--chown",
    "-T",
    "--temp-dir",
    "--compare-dest",
    "--copy-dest",
    "--link-dest",
    "--max-size",
    "--min-size",
    "--bwlimit",
)


_COPY_VALUES = {
    "cp": ("-t", "--target-directory", "-S", "--suffix"),
    "gcp": ("-t", "--target-directory", "-S", "--suffix"),
    "mv": ("-t", "--target-directory", "-S", "--suffix"),
    "ln": ("-t", "--target-directory", "-S", "--suffix"),
    "install": (
        *("-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner"),
        *("-g", "--group", "--strip-program", "-Z", "--context", "-f", "-B"),
    ),
    "ditto": ("--arch", "--bom"),
    "rsync": _RSYNC_VALUES,
}
"""The programs that put a file at a destination they are given, and their valued options."""


def _copy_destinations(command: Command) -> list[str]:
    """Where ``cp``/``install``/``mv``/``ln``/``ditto``/``rsync`` put files (a directory or a
    file), and where ``curl -o``/``wget -O`` save one."""
    program = command.program
    if program in ("curl", "wget"):
        names = ("-o", "--output") if program == "curl" else ("-O", "--output-document")
        flags = read_flags(command.args, takes_value=(*names, "-P", "--directory-prefix"))
        prefix = flags.value("-P", "--directory-prefix") if program == "wget" else None
        return [*flags.all_values(*names), *([prefix] if prefix else [])]
    if program not in _COPY_VALUES:
        return []
    flags = read_flags(command.args, takes_value=_COPY_VALUES[program])
    if program == "install" and flags.has("-d", "--directory"):
        return []  # it only makes directories
    target = flags.value("-t", "--target-directory") if program != "rsync" else None
    if target is not None:
        return [target]
    if len(flags.operands) < 2:
        return []
    destination = flags.operands[-1]
    return [destination] if program != "rsync" or remote_path(destination) is None else []


_SED_VALUES = ("-e", "--expression", "-f", "--file", "-l", "--line-length")


def _edited_files(command: Command) -> list[str]:
    """The files ``sed -i`` or ``perl -i`` (``perl -pi -e``) edit in place."""
    if command.program in ("sed", "gsed"):
        flags = read_flags(command.args, takes_value=_SED_VALUES)
        if not flags.has("-i", "-I", "--in-place"):
            return []
        operands = [w for w in flags.operands if w]  # BSD's `-i ""`: no backup suffix
        scripted = flags.has("-e", "--expression", "-f", "--file")
        return operands if scripted else operands[1:]
    if command.program == "perl":
        return _perl_edited(command.args)
    return []


def _perl_edited(args: tuple[str, ...]) -> list[str]:
    in_place, code = False, False
    files: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--" or not word.startswith("-") or word == "-" or files:
            if word != "--" and code:
                files.append(word)
            code = True  # no -e: the first operand is the script
            continue
        for k, letter in enumerate(word[1:], start=1):
            if letter == "i":
                in_place = True
                break  # the rest is the backup suffix
            if letter in "eEIMm":
                code = code or letter in "eE"
                i += 0 if word[k + 1 :] else 1
                break
            if letter in "xCdD0l":
                break  # their value is attached
    return files if in_place else []


def _overwrite_critical_file(command: Command) -> bool:
    return any(is_critical_file(f) for f in _written_files(command, append=False))


def _kernel_or_device(word: str) -> bool:
    return normalize(word).startswith(("/dev/", "/proc/", "/sys/"))


def _write_system_file(command: Command) -> bool:
    written = _written_files(command, append=False)
    changed = _written_files(command, append=True) + _edited_files(command)  # kept, then edited
    placed = _copy_destinations(command)
    return (
        any(
            place(f) == SYSTEM and not _kernel_or_device(f) and not is_critical_file(f)
            for f in written + changed
        )
        or any(is_critical_file(f) for f in changed + placed)
        or any(is_startup_or_auth(f) for f in changed + placed)
        or any(is_startup_or_auth(f) and not is_critical_file(f) for f in written)
    )


def _mv_sources(command: Command) -> tuple[str, ...]:
    flags = read_flags(command.args, takes_value=("-t", "--target-directory", "-S", "--suffix"))
    if flags.has("-t", "--target-directory"):
        return flags.operands
    return flags.operands[:-1]


def _mv_top_level(command: Command) -> bool:
    return any(is_top_level(w) for w in _mv_sources(command))


def _mv_system(command: Command) -> bool:
    sources = _mv_sources(command)
    return not any(is_top_level(w) for w in sources) and any(
        place(w) == SYSTEM and not _kernel_or_device(w) for w in sources
    )


def _rsync_delete(command: Command) -> bool:
    flags = read_flags(command.args, takes_value=_RSYNC_VALUES)
    if not any(option.startswith("--del") for option in flags.long) or len(flags.operands) < 2:
        return False
    destination = flags.operands[-1]
    remote = remote_path(destination)
    if is_critical(remote if remote is not None else destination):
        return True
    # a local directory mirrored from a remote one: what goes depends on a listing the line
    # does not show
    from_remote = any(remote_path(s) is not None for s in flags.operands[:-1])
    return remote is None and from_remote and place(destination) != TEMP


RULES = (
    Rule(
        id="filesystem.rm-root",
        reason="deletes the whole filesystem from /",
        alternative="name the directory you mean to delete, never / or /*",
        catastrophic=True,
        programs=("rm",),
        test=_rm_root,
    ),
    Rule(
        id="filesystem.rm-home",
        reason="deletes a home directory and every file in it",
        alternative="delete the one project or cache directory inside home you mean",
        catastrophic=True,
        programs=("rm",),
        test=_rm_home,
    ),
    Rule(
        id="filesystem.rm-system",
        reason="recursively deletes an operating-system directory (/etc, /usr, /var, ...)",
        alternative="remove the package that owns it with the package manager",
        catastrophic=True,
        programs=("rm",),
        test=_rm_system,
    ),
    Rule(
        id="filesystem.rm-recursive",
        reason="recursively deletes a directory outside the temporary directories, for good",
        alternative="move it aside (mv dir dir.old) or delete inside /tmp; check the path first",
        catastrophic=False,
        programs=("rm",),
        test=_rm_recursive,
    ),
    Rule(
        id="filesystem.rm-everything-here",
        reason="deletes every file of the current directory",
        alternative="name the files, or use a narrower pattern",
        catastrophic=False,
        programs=("rm",),
        test=_rm_everything_here,
    ),
    Rule(
        id="filesystem.delete-critical-file",
        reason="deletes a file the system needs to boot, log in or run programs",
        alternative="edit the file, keeping a copy; leave system binaries to the package manager",
        catastrophic=True,
        programs=("rm", "unlink"),
        test=_delete_critical_file,
    ),
    Rule(
        id="filesystem.delete-system-file",
        reason="deletes a file in an operating-system directory",
        alternative="move it aside with a .bak suffix, or use the package manager",
        catastrophic=False,
        programs=("rm", "unlink"),
        test=_delete_system_file,
    ),
    Rule(
        id="filesystem.rmdir-system",
        reason="removes the root, a home or a system directory",
        alternative="remove only the empty project directory you created",
        catastrophic=False,
        programs=("rmdir",),
        test=_rmdir_system,
    ),
    Rule(
        id="filesystem.find-delete-system",
        reason="find -delete from /, a home or a system directory deletes whatever matches there",
        alternative="run the same find with -print first, and from a narrower directory",
        catastrophic=True,
        programs=("find",),
        test=_find_delete_system,
    ),
    Rule(
        id="filesystem.find-delete",
        reason="find -delete removes every match, for good",
        alternative="run the same find with -print first to see what it matches",
        catastrophic=False,
        programs=("find",),
        test=_find_delete,
    ),
    Rule(
        id="filesystem.shred-device",
        reason="overwrites a disk, or the root/home/system files, beyond recovery",
        alternative="delete the specific file; erase disks only by hand",
        catastrophic=True,
        programs=("shred", "srm", "wipe", "scrub", "sfill"),
        test=_shred_device,
    ),
    Rule(
        id="filesystem.shred",
        reason="securely erases files, a whole tree or a disk's free space: nothing can be "
        "recovered",
        alternative="delete with rm (recoverable from backups), or move the file aside first",
        catastrophic=False,
        programs=("shred", "srm", "wipe", "scrub", "sfill"),
        test=_shred,
    ),
    Rule(
        id="filesystem.empty-file",
        reason="empties a file outside the temporary directories",
        alternative="keep a copy first (cp f f.bak), or rotate logs with logrotate",
        catastrophic=False,
        programs=("truncate", "cp"),
        test=_empty_file,
    ),
    Rule(
        id="filesystem.overwrite-critical-file",
        reason="overwrites an account, sudo, boot or system-program file",
        alternative="edit a copy and install it with visudo/vipw, keeping the original",
        catastrophic=True,
        programs=(ANY,),
        test=_overwrite_critical_file,
    ),
    Rule(
        id="filesystem.write-system-file",
        reason="writes into an operating-system file, edits or appends to an account/sudo file, "
        "or puts a file where it runs or grants access at boot or log-in (launchd, systemd, "
        "cron, PAM, sudoers, profiles)",
        alternative="keep a backup of the file and edit it with a reviewed change",
        catastrophic=False,
        programs=(ANY,),
        test=_write_system_file,
    ),
    Rule(
        id="filesystem.mv-top-level",
        reason="moves away /, a home directory or a top-level system directory",
        alternative="move the specific files you mean",
        catastrophic=True,
        programs=("mv",),
        test=_mv_top_level,
    ),
    Rule(
        id="filesystem.mv-system",
        reason="moves a file or directory out of an operating-system directory",
        alternative="copy it (cp -a) and leave the original in place",
        catastrophic=False,
        programs=("mv",),
        test=_mv_system,
    ),
    Rule(
        id="filesystem.rsync-delete",
        reason="rsync --delete into /, a home, a system directory, or from a remote into a local "
        "one, removes what the source lacks",
        alternative="sync into a dedicated subdirectory, or run with --dry-run first",
        catastrophic=False,
        programs=("rsync",),
        test=_rsync_delete,
    ),
)

PACK = Pack(
    name="filesystem",
    description="Deleting, emptying or overwriting files and directories outside temporary ones.",
    rules=RULES,
)
