"""Internal: part of the built-ins (docs/builtins.md), not an API.

What a ``command_guard`` rule is, and judging a command line against a set of rules.

A rule belongs to a pack (``builtin_plugins/command_guard/packs/<pack>.py``, one area each:
filesystem, git, databases, ...) and has a stable id ``<pack>.<name>``, a one-line reason, a
safer alternative, whether it is catastrophic (blocks) or not (asks a human), the programs it is
about, and a test of one simple command (:class:`hermes_hooks.shell_syntax.Command`). The line is
read once by :func:`hermes_hooks.shell_syntax.parse`; each simple command is offered only to the
rules of its program, so a line costs a parse and a dictionary look-up per command.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hermes_hooks.shell_syntax import Command, Parsed, parse

ANY = "*"
"""A rule's ``programs`` entry for a rule that looks at every command (redirections, ...)."""
INLINE = "*inline"
"""A rule's ``programs`` entry for a rule about inline code: it looks at every command that has
:attr:`Command.inline` (``python -c``, ``$PYTHON -c``, a heredoc fed to ``node``), and only
those."""


@dataclass(frozen=True)
class Rule:
    """One thing a pack catches."""

    id: str
    """``<pack>.<name>``, stable across releases: it is what ``allow``/``ask_instead`` and an
    "always" approval name."""
    reason: str
    """One line: what running it would destroy or expose."""
    alternative: str
    """One line: the safer way to do what was probably meant."""
    catastrophic: bool
    """``True``: blocks. ``False``: asks a human (an approval, with the rule id as its grain)."""
    programs: tuple[str, ...]
    """The programs (as :attr:`Command.program` has them) this rule looks at; ``("*",)`` for
    every command."""
    test: Callable[[Command], bool]
    """Whether this simple command is what the rule is about."""
    line_test: Callable[[Command, Parsed], bool] | None = None
    """For a rule that needs the rest of the line (a file downloaded by an earlier command and
    run by this one): whether this simple command, read with the whole line, is what the rule is
    about. When set, :meth:`Rulebook.judge` calls it instead of :attr:`test`; ``test`` is still
    what a single command is judged by when no line is given."""


@dataclass(frozen=True)
class Pack:
    """An area of rules."""

    name: str
    description: str
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class Finding:
    """A rule that matched a simple command of the line."""

    rule: Rule
    command: Command


@dataclass(frozen=True)
class Verdict:
    """What the guard makes of one line."""

    parsed: Parsed
    findings: tuple[Finding, ...]
    """Every rule that matched, in the order of the line's commands."""


UNPARSEABLE = Rule(
    id="parser.unparseable",
    reason="the line cannot be read with certainty, so what it would run is unknown.",
    alternative="write it as plain simple commands (no unbalanced quotes or nesting), "
    "one per line if need be.",
    catastrophic=True,
    programs=(),
    test=lambda command: False,
)
"""The parser's own rule: a line it cannot read is the worst case (it blocks unless
``ask_instead`` or ``allow`` names it)."""


class Rulebook:
    """A set of rules indexed by program: what one configuration of the guard checks."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = tuple(rules)
        self.by_program: dict[str, tuple[Rule, ...]] = {}
        for rule in self.rules:
            for program in rule.programs:
                self.by_program[program] = (*self.by_program.get(program, ()), rule)
        self.anywhere = self.by_program.pop(ANY, ())
        self.inline = self.by_program.pop(INLINE, ())
        self.unparseable = UNPARSEABLE in self.rules

    def offered(self, command: Command) -> tuple[Rule, ...]:
        """The rules that look at one simple command (its program's, and those of every
        command)."""
        found = (*self.by_program.get(command.program, ()), *self.anywhere)
        return (*found, *self.inline) if command.inline is not None else found

    def findings(self, command: Command, line: Parsed | None = None) -> list[Finding]:
        """The rules one simple command breaks (``line``: the line it was read from, for the
        rules that look at the rest of it)."""
        return [
            Finding(rule, command)
            for rule in self.offered(command)
            if _matches(rule, command, line)
        ]

    def judge(self, line: str) -> Verdict:
        """Every rule the line's simple commands break."""
        parsed = parse(line)
        found = [f for command in parsed.commands for f in self.findings(command, parsed)]
        if parsed.error is not None and self.unparseable:
            found.insert(0, Finding(UNPARSEABLE, Command(program="", text=line)))
        return Verdict(parsed, tuple(found))


def _matches(rule: Rule, command: Command, line: Parsed | None) -> bool:
    if rule.line_test is not None and line is not None:
        return rule.line_test(command, line)
    return rule.test(command)
