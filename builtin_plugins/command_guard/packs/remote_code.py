"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``remote_code`` pack: running code fetched from the network without reading it first.

``curl URL | sh``, ``wget -qO- URL | sudo bash``, ``bash <(curl URL)``, ``source <(curl URL)``,
``sh -c "$(curl -fsSL URL)"``, ``eval "$(wget -O- URL)"`` and inline code that downloads and
executes. The parser puts the download in :attr:`Command.upstream` of the shell for pipes and
process substitution; a ``$(...)`` download inside a shell's code argument is read from that
argument. A pipe from a download into a program that reads data (``curl URL | jq``,
``curl URL | python -c 'import json,sys; ...'``, ``curl URL | python script.py``) passes.
"""

from __future__ import annotations

import posixpath
import re

from hermes_hooks.shell_syntax import Command, Parsed

from ..flags import read_flags
from ..paths import normalize
from ..rules import ANY, INLINE, Pack, Rule
from .exfiltration import CURL_VALUES

DOWNLOADERS = frozenset(
    "curl wget wget2 fetch aria2c axel http https httpie xh lwp-request GET lynx links w3m"
    " nc ncat netcat socat openssl gh iwr invoke-webrequest".split()
)
"""Programs whose output may be a file from the network."""

SHELLS = frozenset("sh bash zsh dash ksh mksh ash fish tcsh csh busybox".split())
INTERPRETERS = frozenset(
    "python python2 python3 perl ruby node nodejs deno bun php lua pwsh powershell".split()
)
_STDIN_SCRIPT = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
_CODE_OPTIONS = ("-c", "-e", "-E", "-m", "-r", "-p", "--eval", "--print", "--command")


def _downloads(command: Command) -> bool:
    if command.program not in DOWNLOADERS:
        return False
    if command.program in ("lynx", "links", "w3m"):
        return "-dump" in command.args or "-source" in command.args
    if command.program == "openssl":
        return bool(command.args) and command.args[0] == "s_client"
    if command.program == "gh":
        return bool(command.args) and command.args[0] == "api"
    return True


def _reads_script_from_input(command: Command) -> bool:
    """The shell or interpreter takes its program from stdin or a process substitution: no
    script operand (``bash``, ``bash -s -- --yes``, ``python3 -``, ``bash <(curl ...)``)."""
    if command.inline is not None:
        return False
    args = list(command.args)
    if command.program == "busybox":
        if not args or args[0] not in ("sh", "ash", "bash"):
            return False
        args = args[1:]
    shell = command.program in SHELLS
    i = 0
    while i < len(args):
        arg = args[i]
        short = arg[1:] if arg.startswith("-") and not arg.startswith("--") else ""
        if arg in _STDIN_SCRIPT or arg.startswith(("<(", "/dev/fd/", "/proc/self/fd/")):
            return True
        if shell and "c" in short:
            return False  # bash -c CODE: stdin is data
        if shell and "s" in short:
            return True  # bash -s: the script is stdin
        if not shell and (arg in _CODE_OPTIONS or arg.startswith(("-c", "-m"))):
            return False  # code or a module given on the command line: stdin is data
        if arg == "--":
            return i + 1 >= len(args)
        if not arg.startswith(("-", "+")):
            return False  # a script file: stdin is its data
        if not shell and arg in ("-I", "-W", "-X", "-r"):
            i += 1
        i += 1
    return True


def _pipe_to_shell(command: Command) -> bool:
    if command.program not in SHELLS and command.program not in INTERPRETERS:
        return False
    if not any(_downloads(u) for u in command.upstream):
        return False
    return _reads_script_from_input(command)


def _source_download(command: Command) -> bool:
    return command.program in ("source", ".") and any(_downloads(u) for u in command.upstream)


_DOWNLOAD_SUBSTITUTION = re.compile(
    r"(?:\$\(|`)\s*(?:sudo\s+|command\s+|env\s+)?(?:[\w/.-]*/)?"
    r"(?:curl|wget2?|fetch|aria2c|http|https|xh|lwp-request|nc|ncat)\b"
)


def _code_argument(command: Command) -> list[str]:
    """The arguments of a shell, interpreter or eval that are code to run."""
    if command.program in ("eval", "source", "."):
        return list(command.args)
    if command.program not in SHELLS and command.program not in INTERPRETERS:
        return []
    code: list[str] = []
    args = command.args
    for i, arg in enumerate(args):
        if arg in ("-c", "-e", "-E", "-r", "--eval", "--command") and i + 1 < len(args):
            code.append(args[i + 1])
        elif arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            code.extend(args[i + 1 : i + 2])
    if not code and args and not args[0].startswith("-"):
        code.append(args[0])  # bash "$(curl ...)": the script path is the download
    return code


def _run_download_substitution(command: Command) -> bool:
    if command.dynamic:  # $(curl URL) as a command: its output is run
        return bool(_DOWNLOAD_SUBSTITUTION.match(command.program))
    return any(_DOWNLOAD_SUBSTITUTION.search(a) for a in _code_argument(command))


_FETCH = re.compile(
    r"urlopen\s*\(|urllib\.request|\b(?:requests|httpx|urllib3|aiohttp|pycurl)\.\w+|urlretrieve"
    r"|\bhttp\.client\b|\baxios\b|node-fetch"
    r"|https?\.get\s*\(|fetch\s*\(\s*['\"]https?:|Net::HTTP|open-uri|URI\.open|LWP::|HTTP::Tiny"
    r"|file_get_contents\s*\(\s*['\"]https?:|curl_exec|Invoke-WebRequest|iwr\b"
)
_EXECUTE = re.compile(
    r"\bexec\s*\(|\beval\s*\(|\beval\b|\bnew\s+Function\s*\(|\bvm\.run|\binstance_eval\b"
    r"|\bInvoke-Expression\b|\biex\b|\bsystem\s*\(|\bsubprocess\.|\bos\.system\b"
)


def _inline_fetch_execute(command: Command) -> bool:
    if command.inline is None:
        return False
    _, code = command.inline
    return bool(_FETCH.search(code)) and bool(_EXECUTE.search(code))


_DECODERS = {
    "base64": ("-d", "--decode", "-D"),
    "base32": ("-d", "--decode"),
    "basenc": ("-d", "--decode"),
    "xxd": ("-r", "--revert"),
    "openssl": ("-d",),
    "gpg": ("-d", "--decrypt"),
    "uudecode": (),
    "gunzip": (),
    "zcat": (),
    "bunzip2": (),
    "xz": ("-d", "--decompress"),
    "gzip": ("-d", "--decompress"),
    "rev": (),
}


def _unknown_content(stage: Command) -> bool:
    """A pipeline stage whose output cannot be read from the line: a program named by a
    variable, a decoder or decompressor, or ``echo``/``printf`` of an expansion."""
    if stage.dynamic:
        return True
    if stage.program in _DECODERS:
        options = _DECODERS[stage.program]
        if not options:
            return True
        given = read_flags(stage.args)
        return given.has(*options) or any(o in stage.args for o in options)
    if stage.program in ("echo", "printf"):
        return any("$" in a or "`" in a for a in stage.args)
    return False


def _decoded_to_shell(command: Command) -> bool:
    if command.program not in SHELLS and command.program not in INTERPRETERS:
        return False
    if any(_downloads(u) for u in command.upstream):
        return False  # pipe-to-shell
    return any(_unknown_content(u) for u in command.upstream) and _reads_script_from_input(command)


def _saved_files(command: Command) -> list[str]:
    """The files a download writes (``curl -o F``, ``curl -O URL``, ``wget URL``,
    ``wget -O F``, ``curl URL > F``), by base name."""
    names = [r.target for r in command.redirects if r.op in (">", ">>", ">|", "&>")]
    program = command.program
    if program == "curl":
        flags = read_flags(command.args, takes_value=CURL_VALUES)
        names += list(flags.all_values("-o", "--output"))
        if flags.has("-O", "--remote-name", "--remote-name-all"):
            names += [_url_name(u) for u in flags.operands if "://" in u]
    elif program in ("wget", "wget2"):
        flags = read_flags(
            command.args,
            takes_value=("-O", "--output-document", "-P", "--directory-prefix", "-o", "-a"),
        )
        named = flags.all_values("-O", "--output-document")
        names += list(named) or [_url_name(u) for u in flags.operands if "://" in u]
    elif program in ("aria2c", "axel", "fetch"):
        flags = read_flags(command.args, takes_value=("-o", "--out", "-d", "--dir"))
        named = flags.all_values("-o", "--out")
        names += list(named) or [_url_name(u) for u in flags.operands if "://" in u]
    return [posixpath.basename(normalize(n)) for n in names if n and n != "-"]


def _url_name(url: str) -> str:
    path = url.split("://", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    return path.rsplit("/", 1)[-1] if "/" in path else ""


def _script_run(command: Command) -> str | None:
    """The script file this command runs: ``bash F``, ``sh F``, ``source F``, ``python F``,
    ``./F`` (by base name)."""
    if command.program in ("source", "."):
        return posixpath.basename(command.args[0]) if command.args else None
    if command.program in SHELLS or command.program in INTERPRETERS:
        if _code_argument(command) and any(a.startswith("-") for a in command.args):
            return None  # bash -c CODE
        for arg in command.args:
            if arg == "--":
                continue
            if not arg.startswith(("-", "+")):
                return posixpath.basename(normalize(arg))
            if arg in _CODE_OPTIONS:
                return None
        return None
    if "/" in command.path and not command.dynamic:
        return posixpath.basename(command.path)
    return None


def _run_downloaded_file(command: Command, line: Parsed) -> bool:
    script = _script_run(command)
    if not script:
        return False
    earlier = []
    for other in line.commands:
        if other is command:
            break
        earlier.append(other)
    return any(_downloads(o) and script in _saved_files(o) for o in earlier)


RULES = (
    Rule(
        id="remote_code.pipe-to-shell",
        reason="runs a script straight from the network, unread and unpinned, with your rights",
        alternative="download it to a file, read it (or check its checksum), then run the file",
        catastrophic=False,
        programs=tuple(sorted(SHELLS | INTERPRETERS)),
        test=_pipe_to_shell,
    ),
    Rule(
        id="remote_code.decoded-to-shell",
        reason="runs text the line does not show (a variable, a decoded or unpacked blob) as code",
        alternative="decode it to a file, read it, then run the file",
        catastrophic=False,
        programs=tuple(sorted(SHELLS | INTERPRETERS)),
        test=_decoded_to_shell,
    ),
    Rule(
        id="remote_code.run-downloaded-file",
        reason="runs a script downloaded earlier on the same line, before anyone read it",
        alternative="download it, read it (or check its checksum), then run it as a separate step",
        catastrophic=False,
        programs=(ANY,),
        test=lambda command: False,
        line_test=_run_downloaded_file,
    ),
    Rule(
        id="remote_code.source-download",
        reason="sources a script from the network into the current shell, unread",
        alternative="download it to a file and read it before sourcing",
        catastrophic=False,
        programs=("source", "."),
        test=_source_download,
    ),
    Rule(
        id="remote_code.run-download-substitution",
        reason="runs the output of a download as code ($(curl ...) given to a shell or eval)",
        alternative="download it to a file, read it, then run the file",
        catastrophic=False,
        programs=(ANY,),
        test=_run_download_substitution,
    ),
    Rule(
        id="remote_code.inline-fetch-execute",
        reason="inline code downloads something and executes it",
        alternative="download it to a file, read it, then run the file",
        catastrophic=False,
        programs=(INLINE,),  # $PYTHON -c too: the parser reads its code (Command.inline)
        test=_inline_fetch_execute,
    ),
)

PACK = Pack(
    name="remote_code",
    description="Running code fetched from the network without reading it first.",
    rules=RULES,
)
