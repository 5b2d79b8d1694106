"""Internal: part of the built-ins (docs/builtins.md), not an API.

Reading the argument lists of command-line tools, for the packs git, databases, containers,
cloud, platforms and frameworks (private: ``packs/__init__`` skips modules named ``_*``).

Options are read by :mod:`..flags` (:func:`~..flags.positionals`, :func:`~..flags.short`, :func:`~..flags.long`,
:func:`~..flags.values`); this module adds what those packs share on top: :func:`asks_help`,
:func:`make_rule`, the runners and the production test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from hermes_hooks.shell_syntax import Command

from ..flags import is_option, options, values
from ..rules import Rule

Test = Callable[[Command], bool]


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
        while i < len(args) and is_option(args[i]):
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
            while i < len(args) and is_option(args[i]):
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
