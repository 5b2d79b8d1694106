"""The project's one reading of a shell command line: the simple commands it would run.

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
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    """The program, unquoted, path stripped (``/usr/bin/git`` is ``git``, ``\\rm`` is ``rm``);
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
    """The simple commands ``line`` would run (see the module's docstring)."""
    raise NotImplementedError  # written by the parser's change
