"""Internal: part of the built-ins (docs/builtins.md), not an API.

Reading the options of a simple command the way getopt-style programs do.

``read_flags(args)`` splits a command's arguments into options and operands: bundled short
options (``-rf`` is ``-r`` and ``-f``), long options with or without ``=value`` (``--size=0``),
the options that take a value (named by the caller: ``takes_value={"-s", "--size"}``, so
``-s 0``, ``-s0`` and ``--size 0`` all give ``-s``/``--size`` the value ``0``), and ``--``
ending the options. Options may follow operands, as GNU tools accept (``rm dir -rf``).

Long options may be abbreviated, as getopt_long allows: :meth:`Flags.has` with ``--recursive``
also answers for ``--recur``. A lone ``-`` is an operand (standard input).
"""

from __future__ import annotations

from collections.abc import Iterable
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

    def has(self, *names: str) -> bool:
        """Whether any of ``names`` (``-r``, ``--recursive``) was given."""
        return any(self._given(name) for name in names)

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
    items = list(args)
    i = 0
    while i < len(items):
        arg = items[i]
        i += 1
        if arg == "--":
            operands.extend(items[i:])
            break
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
    return Flags(frozenset(short), tuple(long), tuple(values), tuple(operands))
