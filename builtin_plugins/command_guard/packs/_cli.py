"""Internal: part of the built-ins (docs/builtins.md), not an API.

Reading the argument lists of command-line tools, for the packs git, databases, containers,
cloud, platforms and frameworks (private: ``packs/__init__`` skips modules named ``_*``).

A CLI such as ``git -C dir -c k=v reset --hard`` or ``aws --region x ec2 terminate-instances``
has options, some of which take the next word as their value, and positional words (its
subcommand path, then operands). :func:`positionals` separates them; :func:`short` and
:func:`long` tell whether an option is present, in a cluster (``-fd``) or ``--name=value`` form;
:func:`values` collects an option's values. Options are read up to ``--``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence

from hermes_hooks.shell_syntax import Command

from ..rules import Rule

Test = Callable[[Command], bool]


def _is_option(word: str) -> bool:
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
        if not _is_option(word):
            out.append(word)
        elif "=" not in word and word in takes_value:
            skip = True
        elif not word.startswith("--") and len(word) > 2 and word[:2] in takes_value:
            continue  # -nVALUE
    return tuple(out)


def options(args: Sequence[str]) -> tuple[str, ...]:
    """The option words of ``args`` before ``--``."""
    out: list[str] = []
    for word in args:
        if word == "--":
            break
        if _is_option(word):
            out.append(word)
    return tuple(out)


def short(args: Sequence[str], letters: str, value_letters: str = "") -> bool:
    """Whether a short option among ``letters`` is given, alone or in a cluster (``-fdx``).

    ``value_letters`` are the short options that take a value: the rest of a cluster after one
    of them is that value (``-ofoo`` is ``-o foo``), and so is the next word.
    """
    skip = False
    for word in args:
        if skip:
            skip = False
            continue
        if word == "--":
            break
        if not _is_option(word) or word.startswith("--"):
            continue
        for j, letter in enumerate(word[1:]):
            if letter in letters:
                return True
            if letter in value_letters:
                skip = j == len(word) - 2
                break
    return False


def long(args: Sequence[str], *names: str, shortest: int = 0) -> bool:
    """Whether one of the long options ``names`` is given (``--force``, ``--force=true``).

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


def asks_help(command: Command) -> bool:
    """Whether the command only prints help (``--help`` anywhere) or its version (``--version``
    alone: ``cargo yank --version 1.0.0`` names a version)."""
    return "--help" in options(command.args) or command.args == ("--version",)


RUNNERS = {
    "npx": 0,
    "pnpx": 0,
    "bunx": 0,
    "pnpm": 1,
    "yarn": 1,
    "npm": 1,
    "bun": 1,
    "bundle": 1,
    "poetry": 1,
    "uv": 1,
    "pipenv": 1,
    "pdm": 1,
    "hatch": 1,
    "python": 0,
    "python3": 0,
    "php": 0,
    "ruby": 0,
    "node": 0,
}
"""Programs that run another program named in their arguments, and how many subcommand words
(``exec``, ``run``, ``dlx``) may come first."""
_RUNNER_VERBS = {"exec", "run", "dlx", "x"}


def effective(command: Command) -> tuple[str, tuple[str, ...]]:
    """The program a runner runs and its arguments: ``npx prisma migrate reset`` is
    ``("prisma", ("migrate", "reset"))``, ``python manage.py flush`` is
    ``("manage.py", ("flush",))``, ``python -m alembic downgrade base`` is ``("alembic", ...)``,
    ``php artisan migrate:fresh`` is ``("artisan", ...)``, ``bundle exec rails db:drop`` is
    ``("rails", ...)``, ``dotnet ef database drop`` is ``("dotnet-ef", ...)``. Any other
    command is its own program and arguments."""
    program, args = command.program, command.args
    for _ in range(3):
        if program == "dotnet" and args[:1] == ("ef",):
            return "dotnet-ef", args[1:]
        if program not in RUNNERS:
            break
        i = 0
        while i < len(args) and _is_option(args[i]):
            if program.startswith("python") and args[i] == "-m" and i + 1 < len(args):
                i += 1
                break
            if args[i] in ("-p", "--package", "-c", "--call") and not program.startswith(
                ("python", "php", "ruby", "node")
            ):
                i += 1
            i += 1
        if RUNNERS[program] and i < len(args) and args[i] in _RUNNER_VERBS:
            i += 1
            while i < len(args) and _is_option(args[i]):
                i += 1
        if i >= len(args):
            break
        word = args[i]
        if word.startswith("-"):
            break
        program, args = word.rsplit("/", 1)[-1], args[i + 1 :]
    return program, args


_PRODUCTION = re.compile(r"^(prod|production|live)$", re.IGNORECASE)
_ENV_NAMES = {
    "RAILS_ENV",
    "RACK_ENV",
    "APP_ENV",
    "NODE_ENV",
    "MIX_ENV",
    "FLASK_ENV",
    "ASPNETCORE_ENVIRONMENT",
    "DOTNET_ENVIRONMENT",
    "ENVIRONMENT",
    "STAGE",
}


def production(command: Command, args: Sequence[str] = ()) -> bool:
    """Whether the command is pointed at a production environment: ``RAILS_ENV=production``
    in front or as an argument, ``--env=production``, ``-e production``, ``--stage prod``."""
    pairs = list(command.assignments)
    for word in args:
        if "=" in word and not word.startswith("-"):
            name, _, value = word.partition("=")
            pairs.append((name, value))
    if any(name in _ENV_NAMES and _PRODUCTION.match(value) for name, value in pairs):
        return True
    given = values(args, "--env", "-e", "--environment", "--stage", "-s")
    return any(_PRODUCTION.match(v) for v in given)


def make_rule(
    pack: str,
    name: str,
    reason: str,
    alternative: str,
    catastrophic: bool,
    programs: Sequence[str],
    test: Test,
) -> Rule:
    """A rule ``<pack>.<name>`` whose test never matches a command that only asks for help."""

    def guarded(command: Command) -> bool:
        return not asks_help(command) and test(command)

    guarded.__name__ = f"{pack}_{name}".replace("-", "_")
    return Rule(f"{pack}.{name}", reason, alternative, catastrophic, tuple(programs), guarded)
