"""Internal: part of the built-ins (docs/builtins.md), not an API.

Reading the options of a simple command the way getopt-style programs do.

``read_flags(args)`` splits a command's arguments into options and operands: bundled short
options (``-rf`` is ``-r`` and ``-f``), long options with or without ``=value`` (``--size=0``),
the options that take a value (named by the caller: ``takes_value={"-s", "--size"}``, so
``-s 0``, ``-s0`` and ``--size 0`` all give ``-s``/``--size`` the value ``0``), and ``--``
ending the options. Options may follow operands, as GNU tools accept (``rm dir -rf``).

Long options may be abbreviated, as getopt_long allows: :meth:`Flags.has` with ``--recursive``
also answers for ``--recur``. A lone ``-`` is an operand (standard input).

This is the one place the guard reads options. The helpers below it are the forms the CLI packs
(git, databases, containers, cloud, platforms, frameworks) ask in: :func:`short` and :func:`long`
(is an option present), :func:`options` (the option words), and the word-by-word readers
:func:`positionals` and :func:`values`, which take a value only from a whole option word
(``-n x``, ``-nx``, ``--region=x``; not from inside a cluster, nor for an abbreviation) and so
also read a tool's single-dash long options (``-var x``, ``-destroy``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Flags:
    """The options and operands of one command's arguments."""

    short: frozenset[str]
    """Every short option letter given (``-rf`` gives ``r`` and ``f``)."""
    long: tuple[str, ...]
    """Every long option given, as written before any ``=`` (``--force``)."""
    values: tuple[tuple[str, str], ...]
    """``(option, value)`` for each option given a value, in order (``("-s", "0")``)."""
    operands: tuple[str, ...]
    """The arguments that are not options, in order."""
    words: tuple[str, ...] = ()
    """Every option word as written, in order (``-rf``, ``--size=0``), values given apart not
    included."""

    def has(self, *names: str) -> bool:
        """Whether any of ``names`` (``-r``, ``--recursive``) was given."""
        return any(self._given(name) for name in names)

    def asks_help(self, *also: str) -> bool:
        """Whether the command only prints its help or version: ``--help`` or ``--version``
        (abbreviated or not), or one of ``also`` (``-h``, ``-V`` where the tool means that)."""
        return self.has("--help", "--version", *also)

    def value(self, *names: str) -> str | None:
        """The last value given to any of ``names``, or ``None``."""
        found = None
        for option, value in self.values:
            if any(_same(option, name) for name in names):
                found = value
        return found

    def all_values(self, *names: str) -> tuple[str, ...]:
        """Every value given to any of ``names``, in order."""
        return tuple(v for o, v in self.values if any(_same(o, n) for n in names))

    def _given(self, name: str) -> bool:
        if name.startswith("--"):
            return any(_same(option, name) for option in self.long)
        return name.lstrip("-") in self.short


def _same(given: str, name: str) -> bool:
    """``given`` (as written) names the option ``name``: equal, or a long-option abbreviation."""
    if given == name:
        return True
    return given.startswith("--") and len(given) > 3 and name.startswith(given)


def read_flags(
    args: Iterable[str],
    *,
    takes_value: Iterable[str] = (),
) -> Flags:
    """Split ``args`` into options and operands (see the module's docstring).

    ``takes_value`` names the options (``-o``, ``--output``) whose value is the next argument
    when not attached.
    """
    valued = set(takes_value)
    short: set[str] = set()
    long: list[str] = []
    values: list[tuple[str, str]] = []
    operands: list[str] = []
    words: list[str] = []
    items = list(args)
    i = 0
    while i < len(items):
        arg = items[i]
        i += 1
        if arg == "--":
            operands.extend(items[i:])
            break
        if is_option(arg):
            words.append(arg)
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            long.append(name)
            if eq:
                values.append((name, value))
            elif any(_same(name, v) for v in valued if v.startswith("--")) and i < len(items):
                values.append((name, items[i]))
                i += 1
            continue
        if len(arg) > 1 and arg.startswith("-"):
            for k, letter in enumerate(arg[1:], start=1):
                short.add(letter)
                if f"-{letter}" in valued:
                    rest = arg[k + 1 :]
                    if rest:
                        values.append((f"-{letter}", rest))
                    elif i < len(items):
                        values.append((f"-{letter}", items[i]))
                        i += 1
                    break
            continue
        operands.append(arg)
    return Flags(frozenset(short), tuple(long), tuple(values), tuple(operands), tuple(words))


def is_option(word: str) -> bool:
    return word.startswith("-") and word != "-"


def positionals(args: Sequence[str], takes_value: Collection[str] = ()) -> tuple[str, ...]:
    """The words of ``args`` that are not options nor an option's value.

    ``takes_value`` names the options (``-n``, ``--region``) whose value is the next word when
    it is not attached (``--region=x``, ``-nfoo``). Every word after ``--`` is positional.
    """
    out: list[str] = []
    skip = False
    for i, word in enumerate(args):
        if skip:
            skip = False
            continue
        if word == "--":
            out.extend(args[i + 1 :])
            break
        if not is_option(word):
            out.append(word)
        elif "=" not in word and word in takes_value:
            skip = True
        elif not word.startswith("--") and len(word) > 2 and word[:2] in takes_value:
            continue  # -nVALUE
    return tuple(out)


def options(args: Sequence[str]) -> tuple[str, ...]:
    """The option words of ``args`` before ``--``."""
    return read_flags(args).words


def short(args: Sequence[str], letters: str, value_letters: str = "") -> bool:
    """Whether a short option among ``letters`` is given, alone or in a cluster (``-fdx``).

    ``value_letters`` are the short options that take a value: the rest of a cluster after one
    of them is that value (``-ofoo`` is ``-o foo``), and so is the next word.
    """
    given = read_flags(args, takes_value=[f"-{v}" for v in value_letters]).short
    return any(letter in given for letter in letters)


def long(args: Sequence[str], *names: str, shortest: int = 0) -> bool:
    """Whether one of the long options ``names`` is given (``--force``, ``--force=true``; a
    single-dash long option such as terraform's ``-destroy`` is named as written).

    ``shortest`` > 0 also accepts an unambiguous abbreviation of that many characters or more
    (git and other parse-options tools accept ``--ha`` for ``--hard``).
    """
    for word in options(args):
        head = word.split("=", 1)[0]
        for name in names:
            if head == name:
                return True
            if shortest and len(head) >= shortest and name.startswith(head):
                return True
    return False


def values(args: Sequence[str], *names: str) -> list[str]:
    """Every value given to the options ``names`` (``--eval X``, ``--eval=X``, ``-cX``)."""
    out: list[str] = []
    for i, word in enumerate(args):
        if word == "--":
            break
        for name in names:
            if word == name and i + 1 < len(args):
                out.append(args[i + 1])
            elif name.startswith("--") and word.startswith(name + "="):
                out.append(word[len(name) + 1 :])
            elif not name.startswith("--") and word.startswith(name) and len(word) > len(name):
                if len(name) == 2:
                    out.append(word[len(name) :].removeprefix("="))
                elif word.startswith(name + "="):
                    out.append(word[len(name) + 1 :])
    return out


def has_word(args: Iterable[str], *words: str) -> bool:
    """Whether one of ``words`` is among ``args`` as a whole word."""
    wanted = set(words)
    return any(a in wanted for a in args)
