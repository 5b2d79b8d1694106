"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The project's one reading of a shell command line: the simple commands it would run.

``parse(line)`` turns a command line into the :class:`Command` objects it would run, each with
its program (path stripped, quotes and backslashes removed: ``\\rm`` and ``r''m`` are ``rm``),
arguments, redirections and the assignments in front, and how it was reached (``via``). It
descends into everything that runs code: ``;`` ``&&`` ``||`` ``|`` ``&``, subshells, brace
groups, ``$()`` and backticks, process substitution, ``if``/``for``/``while``/``case`` bodies,
function bodies, ``bash -c``/``sh -c``/``zsh -c`` strings, ``eval``, heredocs and herestrings fed
to a shell, literal text piped into a shell, ``xargs``, ``find -exec/-execdir/-ok``, remote and
privilege wrappers (``ssh HOST CMD``, ``su -c``) and the prefix wrappers (``sudo``, ``doas``,
``env``, ``command``, ``builtin``, ``exec``, ``nohup``, ``nice``, ``ionice``, ``time``,
``timeout``, ``stdbuf``, ``setsid``, ``chroot``, ``watch``, ...). Literal assignments made
earlier on the same line are substituted (``D=/; rm -rf $D`` runs ``rm -rf /``). Inline code
given to an interpreter (``python -c``, ``perl -e``, ``node -e``, ``ruby -e``, or a heredoc fed
to one) is kept as :attr:`Command.inline`, and the shell strings it hands to ``os.system``,
``subprocess`` with ``shell=True``, ``system``, ``exec``/``execSync`` or backticks are parsed
as commands of their own.

A line that cannot be read with certainty (a syntax error, nesting too deep) has
:attr:`Parsed.error` set; the commands that could be read are still listed, and every guard
treats such a line as the worst case.

The grammar is tree-sitter-bash (MIT; a maintained parser with binary wheels), imported on the
first parse, so a host that never reads a command line never loads it. Results are cached: the
same line is parsed once per process.

What is listed: a prefix wrapper (``sudo``, ``env``, ``timeout``, ``xargs``, ...) is replaced by
the command it runs, named in ``via``; ``sudo -l``, ``env`` or ``time`` alone stay as
themselves, and ``command -v rm`` only looks ``rm`` up, so it stays ``command``. A program that
runs a string or code (``bash -c``, ``eval``, ``su -c``, ``ssh``, ``find -exec``, ``python -c``)
is listed itself, followed by what it runs. A shell reading a script file (``bash x.sh``) is
not read further: its content is unknown.
"""

from __future__ import annotations

import re
import shlex
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

MAX_LENGTH = 65536
"""Longer lines are not read (``Parsed.error`` is "too long to read")."""
MAX_DEPTH = 16
"""How many shell strings deep (``bash -c`` in ``bash -c`` ...) a line may nest."""
_MAX_NESTING = (
    150  # syntax nodes inside each other: the walk recurses, Python's stack does not grow
)
_CACHED_LENGTH = 4096  # longer lines are not kept in the cache (4096 entries of 64 KiB is too much)


@dataclass(frozen=True)
class Redirect:
    """One redirection of a simple command."""

    op: str
    """As written: ``>``, ``>>``, ``<``, ``2>``, ``&>``, ``>|``, ``<<``, ``<<-``, ``<<<``, ..."""
    target: str
    """The unquoted target word (a file, ``/dev/sda``, ``&1``); for a heredoc or herestring,
    its body."""


@dataclass(frozen=True)
class Command:
    """One simple command the line would run."""

    program: str
    """The program, unquoted, path stripped (``/usr/bin/git`` is ``git``, ``\\\\rm`` is ``rm``);
    ``""`` for a command that is only assignments or redirections; when the program is not a
    literal word (``$X -rf /`` with ``X`` unknown) its text as written, and :attr:`dynamic`."""
    args: tuple[str, ...] = ()
    """The words after the program, unquoted; literal variables assigned earlier on the line
    are substituted; other expansions are kept as written (``$HOME``, ``$(docker ps -aq)``,
    ``~``)."""
    path: str = ""
    """The program as written, unquoted (``/usr/bin/git``)."""
    assignments: tuple[tuple[str, str], ...] = ()
    """``NAME=value`` in front of the command (and given to ``env``), unquoted."""
    redirects: tuple[Redirect, ...] = ()
    via: tuple[str, ...] = ()
    """How the command was reached, outermost first, e.g. ``("sudo", "bash -c")``,
    ``("$()",)``, ``("xargs",)``, ``("find -exec",)``, ``("ssh",)``, ``("pipe to sh",)``,
    ``("heredoc to bash",)``, ``("python -c",)``; ``()`` for a command of the line itself."""
    upstream: tuple[Command, ...] = ()
    """The commands whose output is this command's input: the earlier stages of its pipeline
    (``curl ... | sh``: ``curl`` is upstream of ``sh``), and process substitutions it reads
    (``bash <(curl ...)``, ``sh < <(wget ...)``)."""
    inline: tuple[str, str] | None = None
    """For an interpreter given code inline: ``(language, code)``, language one of
    ``python``, ``perl``, ``node``, ``ruby``, ``php``, ``lua``."""
    text: str = ""
    """The source text of this command, as it appears on the line (or in the string it was
    read from)."""
    dynamic: bool = False
    """The program is not a literal word."""

    @property
    def words(self) -> tuple[str, ...]:
        """The program followed by its arguments."""
        return (self.program, *self.args)

    @property
    def readings(self) -> tuple[str, ...]:
        """What a text rule is matched against: the command as written (:attr:`text`) and as
        it runs (its words joined: quotes removed, path and wrappers stripped, so
        ``sudo /bin/r''m -rf x`` also reads ``rm -rf x``); empty readings left out."""
        runs = " ".join(w for w in self.words if w)
        return tuple(r for r in (self.text, runs) if r)


@dataclass(frozen=True)
class Parsed:
    """A command line, read."""

    line: str
    commands: tuple[Command, ...] = field(default=())
    """Every simple command the line would run, in source order (a command found inside
    another one's string or substitution follows it)."""
    error: str | None = None
    """Why the line cannot be read with certainty (``None`` when it can)."""


def parse(line: str) -> Parsed:
    """The simple commands ``line`` would run (see the module's docstring). Never raises."""
    if len(line) > _CACHED_LENGTH:
        return _parse(line)
    return _parse_cached(line)


def _parse(line: str) -> Parsed:
    """:func:`parse` without the cache."""
    try:
        if len(line) > MAX_LENGTH:
            return Parsed(line, (), "too long to read")
        if not line.strip():
            return Parsed(line)
        reader = _Reader()
        commands = reader.read(line, (), (), 0)
        return Parsed(line, tuple(commands), reader.error)
    except Exception as exc:  # the guard must get an answer: an unreadable line is the worst case
        return Parsed(line, (), f"could not be read ({type(exc).__name__})")


_parse_cached = lru_cache(maxsize=4096)(_parse)

# -- the grammar: loaded on the first parse, one parser per thread (a Parser is not shareable) --

_language: Any = None
_language_lock = threading.Lock()
_local = threading.local()


def _parser() -> Parser:
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        global _language
        import tree_sitter
        import tree_sitter_bash

        with _language_lock:
            if _language is None:
                _language = tree_sitter.Language(tree_sitter_bash.language())
        parser = _local.parser = tree_sitter.Parser(_language)
    return parser


#: Every byte of a non-ASCII character read as ``a``: see :attr:`_Source.parsed`.
_ASCII_ONLY = bytes(b if b < 0x80 else 0x61 for b in range(256))


class _Source:
    """A string being read, as the bytes tree-sitter offsets point into."""

    __slots__ = ("text", "data", "ascii", "parsed")

    def __init__(self, text: str) -> None:
        self.text = text
        # surrogatepass: a lone surrogate (invalid UTF-8) must not make encoding raise
        self.data = text.encode("utf-8", "surrogatepass")
        self.ascii = len(self.data) == len(text)
        # What the grammar is given: each byte of a non-ASCII character becomes ``a``. The
        # shell's syntax is all ASCII, so the tree is the same, and every offset still points
        # into ``data`` (text is always sliced from there). tree-sitter-bash's lexer crashes the
        # process (SIGSEGV) on some characters outside the BMP after ``{``
        # (``x{\U000F0000``): it must never see them.
        self.parsed = self.data if self.ascii else self.data.translate(_ASCII_ONLY)

    def slice(self, start: int, end: int) -> str:
        if self.ascii:  # the common case: byte offsets are character offsets
            return self.text[start:end]
        return self.data[start:end].decode("utf-8", "replace")

    def of(self, node: Node) -> str:
        return self.slice(node.start_byte, node.end_byte)


# -- words: unquoting ------------------------------------------------------------------------

_BARE_ESCAPE = re.compile(r"\\(.)", re.S)
_DQ_ESCAPE = re.compile(r'\\([$`"\\\n])')
_ANSI_ESCAPE = re.compile(
    r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.S
)
_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n"}
_ANSI_SIMPLE.update({"r": "\r", "t": "\t", "v": "\v"})


def _bare(m: re.Match[str]) -> str:
    return "" if m.group(1) == "\n" else m.group(1)


def _dq(m: re.Match[str]) -> str:
    return "" if m.group(1) == "\n" else m.group(1)


def _ansi(m: re.Match[str]) -> str:
    e = m.group(1)
    if e[0] in "xuU" and len(e) > 1:
        return chr(min(int(e[1:], 16), 0x10FFFF))
    if e[0] in "01234567":
        return chr(int(e, 8) & 0xFF)
    if e[0] == "c" and len(e) == 2:
        return chr(ord(e[1]) & 0x1F)
    return _ANSI_SIMPLE.get(e, e)


def _ansi_c(body: str) -> str:
    """The value of ``$'...'`` (without ``$'`` and ``'``)."""
    return _ANSI_ESCAPE.sub(_ansi, body) if "\\" in body else body


_LEAVES = frozenset(
    "word number raw_string ansi_c_string string_content variable_name comment heredoc_start "
    "heredoc_end heredoc_content test_operator file_descriptor regex extglob_pattern "
    "special_variable_name".split()
)
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_SUBS = frozenset({"command_substitution", "process_substitution"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)\Z", re.S)


class _Redirs:
    """What a command's redirections contribute: the redirects, substitutions met in their
    words, words the grammar put after a target (``rm > f x``: ``x`` is rm's), and the rest of
    the line the grammar hangs under a heredoc (``cat <<EOF | sh``)."""

    __slots__ = ("redirects", "subs", "extra", "tails")

    def __init__(self) -> None:
        self.redirects: list[Redirect] = []
        self.subs: list[Node] = []
        self.extra: list[tuple[str, bool]] = []
        self.tails: list[Node] = []


#: ``((`` opening a command (not ``$((``, not a ``for ((`` loop): an arithmetic command to
#: bash, two subshells to a POSIX sh.
_DOUBLE_PAREN = re.compile(r"(?<![$\w])(?<!for )\(\(")
#: What a program's name looks like in that second reading (``y++`` is arithmetic).
_WORD = re.compile(r"[\w./-]+")


class _Reader:
    """One line's walk: the assignments seen so far and the first reason for doubt."""

    def __init__(self) -> None:
        self.env: dict[str, str] = {}
        self.error: str | None = None
        self.nesting = 0

    def fail(self, reason: str) -> None:
        if self.error is None:
            self.error = reason

    def read(
        self, text: str, via: tuple[str, ...], up: tuple[Command, ...], level: int
    ) -> list[Command]:
        """The commands of a whole string (the line, or a string it runs)."""
        if level > MAX_DEPTH:
            self.fail(f"nested more than {MAX_DEPTH} shell strings deep")
            return []
        if not text.strip():
            return []
        src = _Source(text)
        root = _parser().parse(src.parsed).root_node
        if root.has_error:
            reason = _syntax_error(root, src)
            if reason is not None:
                self.fail(reason if level == 0 else f"{reason} in a string run by {via[-1]}")
        commands = self.walk(root, src, via, up, level)
        if _DOUBLE_PAREN.search(text):
            # bash reads `((...))` as arithmetic, a POSIX sh (dash) as a subshell in a
            # subshell: `((pwd && rm -rf /home))` runs rm there. Both readings are judged.
            error = self.error
            more = self.read(_DOUBLE_PAREN.sub("( (", text).replace("))", ") )"), via, up, level)
            self.error = error  # the second reading's syntax is an artefact of the rewrite
            commands += [c for c in more if _WORD.fullmatch(c.program) and c not in commands]
        return commands

    # -- statements ------------------------------------------------------------------------

    def walk(
        self, node: Node, src: _Source, via: tuple[str, ...], up: tuple[Command, ...], level: int
    ) -> list[Command]:
        t = node.type
        if t in _LEAVES:
            return []
        self.nesting += 1
        try:
            if self.nesting > _MAX_NESTING:
                self.fail("nested too deeply to read")
                return []
            if t == "command":
                return self.command(node, src, via, up, level, None, None, node.end_byte)
            if t == "redirected_statement":
                return self.redirected(node, src, via, up, level, None)
            if t == "pipeline":
                return self.pipeline([c for c in node.children if c.is_named], src, via, up, level)
            if t == "list":
                return self.each(_flatten_list(node), src, via, up, level)
            if t in ("variable_assignment", "variable_assignments"):
                return self.assignments(node, src, via, up, level)
            if t == "declaration_command" or t == "unset_command":
                return self.declaration(node, src, via, up, level)
            if t == "command_substitution":
                return self.each(node.children, src, (*via, "$()"), up, level)
            if t == "process_substitution":
                return self.each(node.children, src, (*via, "<()"), up, level)
            return self.each(node.children, src, via, up, level)
        finally:
            self.nesting -= 1

    def each(
        self,
        nodes: list[Node],
        src: _Source,
        via: tuple[str, ...],
        up: tuple[Command, ...],
        level: int,
    ) -> list[Command]:
        out: list[Command] = []
        for child in nodes:
            if child.is_named:
                out += self.walk(child, src, via, up, level)
        return out

    def pipeline(
        self,
        stages: list[Node],
        src: _Source,
        via: tuple[str, ...],
        up: tuple[Command, ...],
        level: int,
        first: list[Command] | None = None,
    ) -> list[Command]:
        """Each stage reads the ones before it; ``first`` is a stage already read."""
        out: list[Command] = list(first or ())
        before = (*up, *out)
        feed = _fed_text(out, via) if first else None
        for stage in stages:
            if stage.type == "command":
                cmds = self.command(stage, src, via, before, level, feed, None, stage.end_byte)
            elif stage.type == "redirected_statement":
                cmds = self.redirected(stage, src, via, before, level, feed)
            else:
                cmds = self.walk(stage, src, via, before, level)
            out += cmds
            before = (*before, *cmds)
            feed = _fed_text(cmds, via)
        return out

    def redirected(
        self,
        node: Node,
        src: _Source,
        via: tuple[str, ...],
        up: tuple[Command, ...],
        level: int,
        feed: str | None,
    ) -> list[Command]:
        body: Node | None = None
        redirs = _Redirs()
        for child in node.children:
            if not child.is_named:
                continue
            if child.type in _REDIRECTS:
                self.redirect(child, src, redirs)
            elif body is None:
                body = child
        end = redirs.tails[0].start_byte if redirs.tails else node.end_byte
        if body is not None and body.type == "command":
            out = self.command(body, src, via, up, level, feed, redirs, end)
        else:
            readers: list[Command] = []
            inner = self.substitutions(redirs.subs, src, via, up, level, readers)
            up2 = (*up, *readers)
            if body is None:  # `> f` alone: truncates f
                text = src.slice(node.start_byte, end).strip()
                only = Command("", (), "", (), tuple(redirs.redirects), via, up2, None, text)
                out = [only]
            else:
                out = self.walk(body, src, via, up2, level)
            out += inner
        for tail in redirs.tails:  # the rest of a line that began with a heredoc
            if tail.type == "pipeline":
                stages = [c for c in tail.children if c.is_named]
                out = self.pipeline(stages, src, via, up, level, out)
            else:
                out += self.walk(tail, src, via, up, level)
        return out

    def redirect(self, node: Node, src: _Source, acc: _Redirs) -> None:
        t = node.type
        if t == "heredoc_redirect":
            op, quoted, body = "<<", False, ""
            for c in node.children:
                ct = c.type
                if ct == "<<" or ct == "<<-":
                    op = ct
                elif ct == "heredoc_start":
                    quoted = any(q in src.of(c) for q in "'\"\\")
                elif ct == "heredoc_body":
                    body = src.of(c)
                    if not quoted:  # $(...) in an unquoted heredoc runs
                        _find_subs(c, acc.subs)
                elif ct in _REDIRECTS:
                    self.redirect(c, src, acc)
                elif c.is_named and ct != "heredoc_end":
                    acc.tails.append(c)
            if op == "<<-":
                body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
            acc.redirects.append(Redirect(op, body))
            return
        op, fd, target = "", "", None
        for c in node.children:
            ct = c.type
            if ct == "file_descriptor":
                fd = src.of(c)
            elif not c.is_named:
                op = ct
            elif target is None:
                target, _ = self.word(c, src, acc.subs)
            else:  # the grammar's extra "destinations" are the command's arguments
                acc.extra.append(self.word(c, src, acc.subs))
        if op in (">&", "<&") and target is not None:
            op, target = op[0], "&" + target
        acc.redirects.append(Redirect(fd + op, target or ""))

    def assignments(
        self, node: Node, src: _Source, via: tuple[str, ...], up: tuple[Command, ...], level: int
    ) -> list[Command]:
        subs: list[Node] = []
        nodes = [node] if node.type == "variable_assignment" else node.children
        pairs = []
        for c in nodes:
            if c.type == "variable_assignment":
                name, value, exact = self.assignment(c, src, subs)
                self.remember(name, value, exact)
                pairs.append((name, value))
        cmd = Command("", (), "", tuple(pairs), (), via, up, None, src.of(node))
        return [cmd, *self.substitutions(subs, src, via, up, level, [])]

    def remember(self, name: str, value: str, exact: bool) -> None:
        if exact:
            self.env[name] = value
        else:  # no longer a known value
            self.env.pop(name, None)

    def assignment(self, node: Node, src: _Source, subs: list[Node]) -> tuple[str, str, bool]:
        name, value, exact = "", "", True
        for c in node.children:
            ct = c.type
            if ct == "variable_name" and not name:
                name = src.of(c)
            elif ct == "subscript" and not name:
                name, exact = src.of(c), False
            elif ct == "+=":
                exact = False
            elif c.is_named and ct != "variable_name":
                value, ok = self.word(c, src, subs)
                exact = exact and ok and ct != "array"
        return name, value, exact

    def declaration(
        self, node: Node, src: _Source, via: tuple[str, ...], up: tuple[Command, ...], level: int
    ) -> list[Command]:
        """``export D=/``, ``declare -r X=1``, ``unset D``: a builtin, and what it remembers."""
        keyword = ""
        args: list[str] = []
        subs: list[Node] = []
        for c in node.children:
            ct = c.type
            if not c.is_named:
                keyword = keyword or ct
            elif ct == "variable_assignment":
                name, value, exact = self.assignment(c, src, subs)
                self.remember(name, value, exact)
                args.append(f"{name}={value}")
            else:
                value, _ = self.word(c, src, subs)
                if keyword == "unset":
                    self.env.pop(value, None)
                args.append(value)
        cmd = Command(keyword, tuple(args), keyword, (), (), via, up, None, src.of(node))
        return [cmd, *self.substitutions(subs, src, via, up, level, [])]

    def substitutions(
        self,
        subs: list[Node],
        src: _Source,
        via: tuple[str, ...],
        up: tuple[Command, ...],
        level: int,
        readers: list[Command],
    ) -> list[Command]:
        """The commands inside ``$()``/``<()``; those of ``<(...)`` are also put in
        ``readers`` (the command reads their output)."""
        out: list[Command] = []
        for sub in subs:
            cmds = self.walk(sub, src, via, up, level)
            if sub.type == "process_substitution" and src.of(sub).startswith("<"):
                readers += cmds
            out += cmds
        return out

    # -- simple commands -------------------------------------------------------------------

    def command(
        self,
        node: Node,
        src: _Source,
        via: tuple[str, ...],
        up: tuple[Command, ...],
        level: int,
        feed: str | None,
        redirs: _Redirs | None,
        end: int,
    ) -> list[Command]:
        acc = redirs or _Redirs()
        assigns: list[tuple[str, str, bool]] = []
        words: list[str] = []
        exact: list[bool] = []
        prev_end = -1
        for c in node.children:
            t = c.type
            if t == "variable_assignment":
                assigns.append(self.assignment(c, src, acc.subs))
                continue
            if t in _REDIRECTS:
                self.redirect(c, src, acc)
                continue
            if t == "$":  # `$"..."` split by the grammar: the string follows
                continue
            if t == "command_name":
                if c.end_byte == c.start_byte:  # `D=/ > f`: the grammar's missing name
                    continue
                value, ok = self.parts(c, src, acc.subs, c.start_byte, c.end_byte, False)
            elif c.is_named:
                value, ok = self.word(c, src, acc.subs)
                if not ok and t in ("simple_expansion", "expansion") and value.startswith("$"):
                    pass
                elif t in ("simple_expansion", "expansion") and ok and value.split() != [value]:
                    words += value.split()  # an unquoted variable splits into words
                    exact += [True] * len(value.split())
                    prev_end = c.end_byte
                    continue
            else:
                value, ok = src.of(c), True
            if c.start_byte == prev_end and words:  # the grammar split one word in two
                words[-1] += value
                exact[-1] = exact[-1] and ok
            else:
                words.append(value)
                exact.append(ok)
            prev_end = c.end_byte
        for value, ok in acc.extra:
            words.append(value)
            exact.append(ok)
        readers: list[Command] = []
        inner = self.substitutions(acc.subs, src, via, up, level, readers)
        up2 = (*up, *readers) if readers else up
        text = src.slice(node.start_byte, max(end, node.end_byte)).strip()
        if not words:  # only assignments or redirections: they stay in the shell
            for name, value, ok in assigns:
                self.remember(name, value, ok)
        pairs = tuple((n, v) for n, v, _ in assigns)
        out = self.simple(words, exact, pairs, tuple(acc.redirects), text, via, up2, level, feed)
        return out + inner

    def simple(
        self,
        words: list[str],
        exact: list[bool],
        assigns: tuple[tuple[str, str], ...],
        redirects: tuple[Redirect, ...],
        text: str,
        via: tuple[str, ...],
        up: tuple[Command, ...],
        level: int,
        feed: str | None,
    ) -> list[Command]:
        """A command from its words: wrappers stripped, then what it runs read."""
        while words and exact[0]:
            name = _base(words[0])
            if name not in _WRAPPERS:
                break
            inner = _unwrap(name, words[1:])
            if inner is None:
                break
            via = (*via, name)
            if isinstance(inner, str):  # the wrapper runs a shell string
                cmds = self.read(inner, via, up, level + 1)
                return cmds
            skip, more = inner
            assigns = (*assigns, *more)
            words, exact = words[1 + skip :], exact[1 + skip :]
        path = words[0] if words else ""
        dynamic = bool(words) and not exact[0]
        program = path if dynamic else _base(path)
        args = tuple(words[1:])
        runs: list[tuple[str, str]] = []  # (via, shell string) this command runs
        inline = None
        if program in _SHELLS:
            runs += _shell_strings(program, args, redirects, feed)
        elif program in _RUNNERS:
            runs += _RUNNERS[program](args, program)
        else:
            lang = _language_of_expansion(path) if dynamic else _language_of(program)
            if lang is not None:
                code = _inline_code(lang, args, redirects, feed)
                if code is not None:
                    inline = (lang, code)
                    tag = _CODE_VIA[lang]
                    runs += [(tag, s) for s in _shell_strings_in_code(lang, code)]
        cmd = Command(program, args, path, assigns, redirects, via, up, inline, text, dynamic)
        out = [cmd]
        if program in ("find", "gfind"):
            for inner_words, inner_exact in _find_execs(args, exact[1:]):
                out += self.simple(
                    inner_words, inner_exact, (), (), text, (*via, "find -exec"), up, level, None
                )
        for how, string in runs:
            out += self.read(string, (*via, how), up, level + 1)
        return out

    # -- words -----------------------------------------------------------------------------

    def word(self, node: Node, src: _Source, subs: list[Node]) -> tuple[str, bool]:
        """A word's value and whether it is exact (no unknown expansion in it)."""
        t = node.type
        if t == "word" or t == "number":
            s = src.of(node)
            return (_BARE_ESCAPE.sub(_bare, s) if "\\" in s else s), True
        if t == "raw_string":
            return src.of(node)[1:-1], True
        if t == "string":
            return self.parts(node, src, subs, node.start_byte + 1, node.end_byte - 1, True)
        if t == "concatenation" or t == "translated_string":
            return self.parts(node, src, subs, node.start_byte, node.end_byte, False)
        if t == "ansi_c_string":
            return _ansi_c(src.of(node)[2:-1]), True
        s = src.of(node)
        lead = s[: len(s) - len(s.lstrip())]  # the grammar gives `"$a $b"`'s space to `$b`
        s = s[len(lead) :]
        if t == "simple_expansion" or t == "expansion":
            name = s[2:-1] if s.startswith("${") else s[1:]
            if name in self.env:
                return lead + self.env[name], True
            _find_subs(node, subs)
            return lead + s, False
        if t in _SUBS:
            subs.append(node)
            return lead + s, False
        _find_subs(node, subs)  # arithmetic, brace expressions, ...: kept as written
        return lead + s, t not in ("arithmetic_expansion",)

    def parts(
        self, node: Node, src: _Source, subs: list[Node], start: int, end: int, dq: bool
    ) -> tuple[str, bool]:
        """The value of a node made of parts, the text between them taken literally."""
        out: list[str] = []
        exact = True
        pos = start
        for c in node.children:
            if not c.is_named or c.start_byte < start:
                continue
            if c.start_byte > pos:
                out.append(_literal(src.slice(pos, c.start_byte), dq))
            if c.type == "string_content":
                out.append(_literal(src.of(c), dq))
            else:
                value, ok = self.word(c, src, subs)
                out.append(value)
                exact = exact and ok
            pos = c.end_byte
        if pos < end:
            out.append(_literal(src.slice(pos, end), dq))
        value = "".join(out)
        if not dq and node.type == "translated_string":
            value = value[1:] if value.startswith("$") else value
        return value, exact


def _literal(s: str, dq: bool) -> str:
    if "\\" not in s:
        return s
    return _DQ_ESCAPE.sub(_dq, s) if dq else _BARE_ESCAPE.sub(_bare, s)


def _find_subs(node: Node, subs: list[Node]) -> None:
    """Every ``$()``/``<()`` below ``node`` (not inside each other), without recursion."""
    stack = list(reversed(node.children))
    while stack:
        n = stack.pop()
        if n.type in _SUBS:
            subs.append(n)
        elif n.child_count:
            stack.extend(reversed(n.children))


def _flatten_list(node: Node) -> list[Node]:
    """``a && b || c`` nests to the left; walked flat, a long chain does not recurse."""
    parts: list[Node] = []
    while node.type == "list":
        kids = [c for c in node.children if c.is_named]
        if not kids:
            break
        parts.extend(reversed(kids[1:]))
        node = kids[0]
    parts.append(node)
    parts.reverse()
    return parts


def _base(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1] or path if "/" in path else path


def _syntax_error(root: Node, src: _Source) -> str | None:
    """A short reason for the first ERROR or MISSING node (``None``: only the grammar's gap)."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n.is_missing:
            parent = n.parent
            if n.type == "word" and parent is not None and parent.type == "command_name":
                continue  # `D=/ > f` is valid bash; the grammar wants a name there
            return f"missing '{n.type}' {_where(src, n.start_byte)}"
        if n.is_error:
            text = src.of(n).lstrip()
            for c in n.children:
                if not c.is_named and c.type in _OPENERS:
                    return f"unclosed '{c.type}' {_where(src, c.start_byte)}"
            for q in ("'", '"', "`"):
                if text.count(q) % 2:
                    at = n.start_byte + src.of(n).find(q)
                    return f"unterminated quote {_where(src, at)}"
            return f"syntax error {_where(src, n.start_byte)}"
        if n.has_error:
            stack.extend(reversed(n.children))
    return None


_OPENERS = frozenset({"$(", "`", "(", "{", "<(", ">(", "${", "$((", "[[", "(("})


def _where(src: _Source, byte: int) -> str:
    before = src.data[:byte].decode("utf-8", "replace")
    line = before.count("\n")
    column = len(before) - (before.rfind("\n") + 1) + 1
    return f"near line {line + 1} column {column}" if line else f"near column {column}"


def _fed_text(cmds: list[Command], via: tuple[str, ...]) -> str | None:
    """The literal text a pipeline stage writes (``echo``, ``printf``, ``cat <<EOF``)."""
    cmd = next((c for c in cmds if c.via == via), None)
    if cmd is None or cmd.dynamic:
        return None
    args = list(cmd.args)
    if cmd.program == "echo":
        escapes = False
        while args and re.fullmatch(r"-[neE]+", args[0]):
            escapes = escapes or "e" in args[0]
            args.pop(0)
        text = " ".join(args)
        return _ansi_c(text) if escapes else text
    if cmd.program == "printf" and args:
        fmt, values = _ansi_c(args[0]), iter(args[1:])
        return re.sub(r"%[sb]", lambda _: next(values, ""), fmt)
    if cmd.program == "cat" and args in ([], ["-"]):
        bodies = [r.target for r in cmd.redirects if r.op in ("<<", "<<-", "<<<")]
        return bodies[-1] if bodies else None
    return None


# -- wrappers: programs that run the command after their options --------------------------

# name: (short options taking a value, long options taking a value, operands before the
# command, options meaning there is no command)
_WRAPPERS: dict[str, tuple[str, frozenset[str], int, str]] = {
    "sudo": (
        "ugprCDhTUtR",
        frozenset(
            "--user --group --prompt --close-from --chdir --role "
            "--type --other-user --host --command-timeout --chroot".split()
        ),
        0,
        "lvVeK",
    ),
    "doas": ("uC", frozenset(), 0, "L"),
    "env": ("uCS", frozenset({"--unset", "--chdir", "--split-string"}), 0, ""),
    "command": ("", frozenset(), 0, "vV"),
    "builtin": ("", frozenset(), 0, ""),
    "exec": ("a", frozenset(), 0, ""),
    "nohup": ("", frozenset(), 0, ""),
    "nice": ("n", frozenset({"--adjustment"}), 0, ""),
    "ionice": ("cn", frozenset({"--class", "--classdata"}), 0, "pPu"),
    "time": ("fo", frozenset({"--format", "--output"}), 0, ""),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"}), 1, ""),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"}), 0, ""),
    "setsid": ("", frozenset(), 0, ""),
    "chroot": ("", frozenset({"--userspec", "--groups"}), 1, ""),
    "unbuffer": ("", frozenset(), 0, ""),
    "busybox": ("", frozenset(), 0, ""),
    "pkexec": ("", frozenset({"--user"}), 0, ""),
    "strace": ("oepsuEPaXbIO", frozenset({"--output", "--expr", "--attach"}), 0, ""),
    "ltrace": ("oepsunlxaAF", frozenset({"--output"}), 0, ""),
    "flock": ("wEc", frozenset({"--timeout", "--conflict-exit-code", "--command"}), 1, ""),
    "xargs": (
        "adEILnPs",
        frozenset(
            "--arg-file --delimiter --max-args --max-procs "
            "--max-lines --replace --max-chars --process-slot-var".split()
        ),
        0,
        "",
    ),
    "watch": ("n", frozenset({"--interval"}), 0, ""),
    "runuser": ("ugGswc", frozenset({"--user", "--group", "--shell", "--command"}), 0, ""),
}


def _skip_options(args: list[str], short: str, long: frozenset[str], nocmd: str) -> int | None:
    """Where the operands start after a program's options (``None``: there is no command)."""
    i, n = 0, len(args)
    while i < n:
        a = args[i]
        if a == "--":
            return i + 1
        if len(a) < 2 or a[0] != "-":
            return i
        i += 1
        if a[1] == "-":
            if "=" not in a and a in long:
                i += 1
            continue
        for k in range(1, len(a)):
            if a[k] in nocmd:
                return None
            if a[k] in short:
                if k == len(a) - 1:
                    i += 1
                break
    return i


def _option_value(args: list[str], short: str, long: str) -> str | None:
    """The value of ``-c VALUE``/``-xc VALUE``/``--command=VALUE`` among a program's args."""
    for i, a in enumerate(args):
        if a == "--":
            return None
        if a == long or (a.startswith("-") and not a.startswith("--") and short in a[1:]):
            k = a.find(short) if a != long else len(a)
            rest = a[k + 1 :] if a != long else ""
            return rest or (args[i + 1] if i + 1 < len(args) else None)
        if a.startswith(long + "="):
            return a[len(long) + 1 :]
    return None


def _unwrap(name: str, args: list[str]) -> tuple[int, list[tuple[str, str]]] | str | None:
    """Where a wrapper's command starts in its args, with the assignments it makes; a shell
    string it runs; or ``None`` when it runs nothing."""
    short, long, operands, nocmd = _WRAPPERS[name]
    if name in ("flock", "runuser", "env"):
        flag = "S" if name == "env" else "c"
        string = _option_value(args, flag, "--split-string" if name == "env" else "--command")
        if string is not None:
            return string
    if name == "runuser" and not any(
        a in ("-u", "--user") or a.startswith("--user=") for a in args
    ):
        return None  # `runuser -l user` is a login shell
    start = _skip_options(args, short, long, nocmd)
    if name == "env":
        start = 0
        while start < len(args) and args[start] in ("-", "-i", "-0", "-v", "--ignore-environment"):
            start += 1
        more = _skip_options(args[start:], short, long, nocmd)
        start = start + more if more is not None else None
    if start is None:
        return None
    assigns = []
    if name in ("env", "sudo"):
        while start < len(args) and (m := _ASSIGNMENT.match(args[start])):
            assigns.append((m.group(1), m.group(2)))
            start += 1
    if name == "flock" and start < len(args) and args[start].isdigit():
        return None  # `flock 9`: locks a descriptor, runs nothing
    start += operands
    if start >= len(args):
        return None
    if name == "watch" and not any(a in ("-x", "--exec") for a in args[:start]):
        return " ".join(args[start:])  # watch hands its words to `sh -c`
    return start, assigns


# -- programs that run a shell string -----------------------------------------------------

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh"})


def _shell_strings(
    name: str, args: tuple[str, ...], redirects: tuple[Redirect, ...], feed: str | None
) -> list[tuple[str, str]]:
    """What a shell runs: its ``-c`` string, or what it reads on stdin when given no script."""
    i, c, n = 0, False, len(args)
    while i < n:
        a = args[i]
        if a == "--" or a == "-":
            i += 1
            break
        if len(a) > 1 and a[0] in "-+":
            i += 2 if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file") else 1
            c = c or (a[0] == "-" and a[1] != "-" and "c" in a)
            continue
        break
    if c:
        return [(f"{name} -c", args[i])] if i < n else []
    if i < n and args[i - 1 : i] != ("-",):
        return []  # a script file: unknown content
    return _stdin(name, redirects, feed)


def _stdin(name: str, redirects: tuple[Redirect, ...], feed: str | None) -> list[tuple[str, str]]:
    for r in reversed(redirects):
        if r.op in ("<<", "<<-"):
            return [(f"heredoc to {name}", r.target)]
        if r.op == "<<<":
            return [(f"herestring to {name}", r.target)]
        if r.op == "<":
            return []  # a file: unknown content
    return [(f"pipe to {name}", feed)] if feed is not None else []


def _eval(args: tuple[str, ...], name: str) -> list[tuple[str, str]]:
    return [("eval", " ".join(args))] if args else []


def _su(args: tuple[str, ...], name: str) -> list[tuple[str, str]]:
    string = _option_value(list(args), "c", "--command")
    return [(f"{name} -c", string)] if string is not None else []


_SSH_VALUES = "pilOFJLRDbcEeImQSWwBo"


def _ssh(args: tuple[str, ...], name: str) -> list[tuple[str, str]]:
    start = _skip_options(list(args), _SSH_VALUES, frozenset(), "")
    if start is None or start + 1 >= len(args):
        return []
    return [("ssh", " ".join(args[start + 1 :]))]


_RUNNERS = {"eval": _eval, "su": _su, "runuser": _su, "ssh": _ssh}


def _find_execs(args: tuple[str, ...], exact: list[bool]) -> list[tuple[list[str], list[bool]]]:
    """The commands of ``find``'s ``-exec``/``-execdir``/``-ok``/``-okdir`` actions."""
    out = []
    i = 0
    while i < len(args):
        if args[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j] not in (";", "+"):
                j += 1
            if j > i + 1:
                out.append((list(args[i + 1 : j]), exact[i + 1 : j]))
            i = j
        i += 1
    return out


# -- interpreters given code inline -------------------------------------------------------

_INTERPRETER = re.compile(r"(python|pypy|perl|ruby|node|nodejs|php|lua|luajit)[0-9.]*\Z")
_LANGUAGE = {"pypy": "python", "nodejs": "node", "luajit": "lua"}
_CODE_VIA = {"python": "python -c", "perl": "perl -e", "ruby": "ruby -e"}
_CODE_VIA.update({"node": "node -e", "php": "php -r", "lua": "lua -e"})
# language: (cluster letters giving code, letters taking a value, letters ending the options
# (python -m), long options giving code, long options taking a value, several codes allowed)
_CODE_OPTIONS: dict[str, tuple[str, str, str, frozenset[str], frozenset[str], bool]] = {
    "python": ("c", "WXQ", "m", frozenset(), frozenset(), False),
    "perl": ("eE", "iIMmxCdD0l", "", frozenset(), frozenset(), True),
    "ruby": ("e", "rICEFixTW0l", "", frozenset(), frozenset(), True),
    "node": (
        "ep",
        "r",
        "",
        frozenset({"--eval", "--print"}),
        frozenset({"--require", "--import", "--loader", "--input-type"}),
        False,
    ),
    "php": ("r", "cdzF", "f", frozenset(), frozenset(), False),
    "lua": ("e", "l", "", frozenset(), frozenset(), True),
}


def _language_of(program: str) -> str | None:
    if not program or program[0] not in "pnrl":  # the fast no for every other program
        return None
    m = _INTERPRETER.match(program)
    return None if m is None else _LANGUAGE.get(m.group(1), m.group(1))


_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?\Z")
_LOOKUP = re.compile(r"(?:\$\(|`)\s*(?:which|command\s+-v|type\s+-p)\s+([\w./-]+)\s*[)`]\Z")


def _language_of_expansion(path: str) -> str | None:
    """The language of an interpreter named by an expansion that says which: a variable whose
    name has the language in it (``$PYTHON``, ``${which_python}``, ``$NODE_BIN``, ``$PY``) or
    a look-up of one (``$(which python3)``, ``$(command -v node)``); its inline code is read as
    that language's. Any other unknown program is ``None``."""
    looked_up = _LOOKUP.match(path)
    if looked_up is not None:
        return _language_of(_base(looked_up.group(1)))
    m = _VARIABLE.match(path)
    if m is None:
        return None
    for part in m.group(1).lower().split("_"):
        lang = "python" if part.rstrip("0123456789") == "py" else _language_of(part)
        if lang is not None:
            return lang
    return None


def _inline_code(
    lang: str, args: tuple[str, ...], redirects: tuple[Redirect, ...], feed: str | None
) -> str | None:
    """The code an interpreter runs from its options or stdin (``None``: a script file)."""
    code_letters, value_letters, stop_letters, code_long, value_long, several = _CODE_OPTIONS[lang]
    codes: list[str] = []
    i, n = 0, len(args)
    while i < n:
        a = args[i]
        i += 1
        if a == "-":
            break
        if a == "--" or len(a) < 2 or a[0] != "-":
            if not codes:
                return None  # a script (or a module) runs
            break
        if a[1] == "-":
            key, _, value = a.partition("=")
            if key in code_long:
                codes.append(value if value or "=" in a else (args[i] if i < n else ""))
                i += 0 if "=" in a else 1
            elif key in value_long and "=" not in a:
                i += 1
            continue
        for k in range(1, len(a)):
            ch = a[k]
            if ch in code_letters:
                rest = a[k + 1 :]
                codes.append(rest or (args[i] if i < n else ""))
                i += 0 if rest else 1
                break
            if ch in stop_letters:
                return None
            if ch in "0l" and ch in value_letters:
                continue  # perl's -l and -0 take only digits: `-lne` is -l -n -e
            if ch in value_letters:
                i += 1 if k == len(a) - 1 else 0
                break
        if codes and not several:
            break
    if codes:
        return "\n".join(codes)
    stdin = _stdin(lang, redirects, feed)
    return stdin[0][1] if stdin else None


_STR = r"""[rRbBuUfF]{0,2}(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
_JS_STR = _STR + r"|`(?:[^`\\]|\\.)*`"
_LITERAL = re.compile(_STR, re.S)
_JS_LITERAL = re.compile(_JS_STR, re.S)
_ARGS = re.compile(rf"(?:{_STR}|[\s,\[\]])+", re.S)
_JS_ARGS = re.compile(rf"(?:{_JS_STR}|[\s,\[\]])+", re.S)
_CALLS = {
    "python": r"\b(?:os\.system|os\.popen|subprocess\.\w+|commands\.getoutput|pty\.spawn|system"
    r"|popen|Popen|check_output|check_call|getoutput|getstatusoutput)\s*\(",
    "perl": r"\b(?:system|exec)\b\s*\(?",
    "ruby": r"\b(?:system|exec|spawn|popen|popen2|popen3|capture2|capture2e|capture3)\b\s*\(?",
    "node": r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(",
    "php": r"\b(?:system|exec|shell_exec|passthru|popen|proc_open)\s*\(",
    "lua": r"\b(?:os\.execute|io\.popen)\s*\(?",
}
_CALL = {lang: re.compile(p) for lang, p in _CALLS.items()}
_BACKTICKS = re.compile(r"`([^`]*)`|(?:\bqx|%x)\s*(?:\(([^)]*)\)|\{([^}]*)\}|\[([^\]]*)\])")
_STRING_ESCAPE = re.compile(r"\\(.)", re.S)
_STRING_ESCAPES = {"n": "\n", "t": "\t"}


def _unquote_literal(literal: str) -> str:
    body = literal.lstrip("rRbBuUfF")[1:-1]
    if "\\" not in body or literal[0] in "rR":
        return body
    return _STRING_ESCAPE.sub(lambda m: _STRING_ESCAPES.get(m.group(1), m.group(1)), body)


def _shell_strings_in_code(lang: str, code: str) -> list[str]:
    """The shell strings code hands to ``system``, ``subprocess``, backticks, ...: a single
    string literal is a shell string; a list of literals is a program and its arguments."""
    out = []
    args_re, literal_re = (_JS_ARGS, _JS_LITERAL) if lang == "node" else (_ARGS, _LITERAL)
    for m in _CALL[lang].finditer(code):
        region = args_re.match(code, m.end())
        if region is None:
            continue
        literals = [_unquote_literal(s) for s in literal_re.findall(region.group())]
        list_form = len(literals) > 1 or region.group().lstrip().startswith("[")
        if not literals:
            continue
        if list_form:
            out.append(" ".join(shlex.quote(s) for s in literals))
        elif lang == "python" and m.group().startswith("subprocess") and "shell=True" not in code:
            out.append(shlex.quote(literals[0]))  # no shell: the whole string names a program
        else:
            out.append(literals[0])
    if lang in ("perl", "ruby", "php"):
        for m in _BACKTICKS.finditer(code):
            out.append(next(g for g in m.groups() if g is not None))
    return out
