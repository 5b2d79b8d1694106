"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``interpreters`` pack: inline code (``python -c``, ``node -e``, ``ruby -e``, ``perl -e``,
``php -r``, a heredoc fed to an interpreter) that deletes or overwrites files itself.

Shell commands the code runs (``os.system``, ``subprocess`` with a string, ``execSync``, Perl's
``system``, Ruby's backticks) are read by the parser as commands of their own and judged by the
other packs; this pack reads the code's own calls: ``shutil.rmtree``, ``fs.rmSync(...,
{recursive: true})``, ``FileUtils.rm_rf``, ``File::Path::rmtree``, ``os.remove``, ``unlink``,
``open(..., 'w')``. The target is judged when it is a string literal (or the home directory
spelled ``Path.home()``, ``os.homedir()``, ...): the root, a home or a system path blocks. A
recursive delete asks wherever it points, temporary directories included: one line of code
cannot show that the path is what the agent thinks it is.
"""

from __future__ import annotations

import re

from hermes_hooks.shell_syntax import Command

from ..paths import is_block_device, is_critical, is_critical_file
from ..rules import INLINE, Pack, Rule

INTERPRETERS = (
    *("python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs"),
    *("deno", "bun", "php", "lua", "luajit", "irb", "jruby"),
)
"""The interpreters whose inline code the parser reads. The rules look at every command's
:attr:`Command.inline` (``programs=(INLINE,)``): an interpreter named by a variable
(``$PYTHON -c ...``) or a look-up (``$(which python3) -c ...``) has its code read too."""

_RECURSIVE = re.compile(
    r"(?:\brmtree|\bremove_tree|\bremovedirs|\brm_rf|\brm_r|\bremove_dir|\bremove_entry(?:_secure)?"
    r"|\brimraf(?:\.sync)?|\bremoveSync|\bemptyDirSync|\bemptyDir|\bdeleteSync"
    r"|\bfs(?:Extra|e)?\.remove|\bRemove-Item)"
    r"(?=\s*[\s(])"
)
_RECURSIVE_IF_OPTION = re.compile(r"\b(?:rmSync|rmdirSync|rm|rmdir|Deno\.remove)\s*\(")
_OPTION_RECURSIVE = re.compile(r"recursive\s*:\s*true")
_FILE_DELETE = re.compile(
    r"(?:\bos\.remove|\bos\.unlink|\bunlinkSync|\bfs\.unlink|\bFile\.delete|\bFile\.unlink"
    r"|\bFileUtils\.rm(?:_f)?|(?<![.\w])unlink)(?=\s*[\s(])"
)
_PATH_METHOD = re.compile(
    r"Path\s*\(\s*[rbuf]?(['\"])(.*?)\1\s*\)\s*\.\s*(unlink|rmdir|write_text|write_bytes)\s*\("
)
_LITERAL = re.compile(r"""\s*\(?\s*[rbuf]?(['"`])(.*?)\1""")
_HOME_EXPRESSIONS = re.compile(
    r"""\s*\(?\s*(?:Path\.home\(\)|os\.path\.expanduser\(\s*['"]~['"]\s*\)|os\.environ\[\s*['"]HOME['"]\s*\]"""
    r"""|os\.getenv\(\s*['"]HOME['"]\s*\)|(?:os|require\(\s*['"]os['"]\s*\))\.homedir\(\)|process\.env\.HOME|Dir\.home|ENV\[\s*['"]HOME['"]\s*\]"""
    r"""|\$ENV\{\s*['"]?HOME['"]?\s*\}|getenv\(\s*['"]HOME['"]\s*\))\s*[,)]"""
)


def _target(code: str, end: int) -> str | None:
    """The path literal a call whose name ends at ``end`` acts on, or ``None`` if not literal."""
    rest = code[end : end + 400]
    if _HOME_EXPRESSIONS.match(rest):
        return "~"
    match = _LITERAL.match(rest)
    return match.group(2) if match else None


def _deletes(code: str) -> list[tuple[bool, str | None]]:
    """``(recursive, target)`` for every delete call in ``code``."""
    found: list[tuple[bool, str | None]] = []
    for m in _RECURSIVE.finditer(code):
        found.append((True, _target(code, m.end())))
    for m in _RECURSIVE_IF_OPTION.finditer(code):
        options = code[m.end() : m.end() + 400].split(";", 1)[0].split("\n", 1)[0]
        if _OPTION_RECURSIVE.search(options) or m.group(0).startswith("Deno"):
            found.append((True, _target(code, m.end() - 1)))
    for m in _FILE_DELETE.finditer(code):
        found.append((False, _target(code, m.end())))
    for m in _PATH_METHOD.finditer(code):
        if m.group(3) in ("unlink", "rmdir"):
            found.append((False, m.group(2)))
    return found


def _code(command: Command) -> str:
    return command.inline[1] if command.inline is not None else ""


def _delete_critical(command: Command) -> bool:
    return any(
        target is not None and (is_critical(target) or is_critical_file(target))
        for _, target in _deletes(_code(command))
    )


def _recursive_delete(command: Command) -> bool:
    return any(
        recursive and (target is None or not is_critical(target))
        for recursive, target in _deletes(_code(command))
    )


def _delete_unknown(command: Command) -> bool:
    return any(not recursive and target is None for recursive, target in _deletes(_code(command)))


_WRITE_OPEN = re.compile(
    r"""\bopen\s*\(\s*(?:my\s+)?(?:\$\w+|\w+)?\s*,?\s*['"](?P<perl>\+?>{1,2})\s*['"]?\s*,?\s*['"]?(?P<perlpath>/[^'"\s)]+)"""
    r"""|\bopen\s*\(\s*[rbuf]?['"](?P<pypath>/[^'"]+)['"]\s*,\s*[rbuf]?['"](?P<mode>[^'"]*)['"]"""
    r"""|\b(?:writeFileSync|writeFile|appendFileSync|File\.write|IO\.write|file_put_contents"""
    r"""|write_text|write_bytes|Deno\.writeTextFile|Deno\.writeFile)\s*\(\s*['"](?P<wpath>/[^'"]+)['"]"""
)


def _overwrite_system(command: Command) -> bool:
    code = _code(command)
    for m in _WRITE_OPEN.finditer(code):
        path = m.group("perlpath") or m.group("wpath")
        if m.group("pypath") and any(c in m.group("mode") for c in "wax+"):
            path = m.group("pypath")
        if path and (is_critical_file(path) or is_block_device(path)):
            return True
    for m in _PATH_METHOD.finditer(code):
        target = m.group(2)
        if m.group(3).startswith("write") and (is_critical_file(target) or is_block_device(target)):
            return True
    return False


RULES = (
    Rule(
        id="interpreters.delete-critical",
        reason="inline code deletes /, a home directory or a system file or directory",
        alternative="delete the one project path you mean, after checking it",
        catastrophic=True,
        programs=(INLINE,),
        test=_delete_critical,
    ),
    Rule(
        id="interpreters.recursive-delete",
        reason="inline code deletes a whole directory tree, for good",
        alternative="print the path first, or move the directory aside instead",
        catastrophic=False,
        programs=(INLINE,),
        test=_recursive_delete,
    ),
    Rule(
        id="interpreters.delete-unknown",
        reason="inline code deletes files whose names the line does not show",
        alternative="print the names it would delete first",
        catastrophic=False,
        programs=(INLINE,),
        test=_delete_unknown,
    ),
    Rule(
        id="interpreters.overwrite-system",
        reason="inline code writes over an account/boot/system-program file or a disk device",
        alternative="edit a copy of the file and install it by hand",
        catastrophic=True,
        programs=(INLINE,),
        test=_overwrite_system,
    ),
)

PACK = Pack(
    name="interpreters",
    description="Inline interpreter code that deletes or overwrites files itself.",
    rules=RULES,
)
