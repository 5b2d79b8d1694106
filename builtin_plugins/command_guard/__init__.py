"""Internal: part of the built-ins (docs/builtins.md), not an API.

``command_guard``: stop destructive shell commands before they run.

Switched on with ``command_guard: true`` in config.yaml (every pack), or with its options::

    command_guard:
      packs: [filesystem, git, databases]   # only these packs (default: every pack)
      allow: [git.branch-force-delete]      # rule ids or pack names never flagged
      ask_instead: [filesystem]             # catastrophic rules of these ask a human instead

or as a ``{type: builtin, name: command_guard}`` entry under ``pre_tool_call``. On
``pre_tool_call`` of the shell tool (``terminal``, and each agent's name for it: ``Bash``,
``run_shell_command``, ``Shell``, ``bash``) the command line is read by the project's one
shell parser (:mod:`hermes_hooks.shell_syntax`) and every simple command it would run is offered
to the rules of the packs (:mod:`.packs`). A catastrophic rule blocks; any other asks a human,
with the rule ids as the grain of an "always" approval; a line the parser cannot read is the
worst case (rule ``parser.unparseable``). Reference: ``docs/builtins.md``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hermes_hooks.builtin_plugins import declared, switches

from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase, builtin_rows

from .packs import all_packs
from .rules import UNPARSEABLE, Rule, Rulebook, Verdict

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

NAME = "builtin:command_guard"
#: The keys of ``command_guard: {...}``.
SWITCH = declared("command_guard").switch
OPTIONS = SWITCH.keys


def every_rule() -> list[Rule]:
    """Every shipped rule, the parser's own included, in pack order."""
    return [UNPARSEABLE, *(r for p in all_packs().values() for r in p.rules)]


class Settings:
    """The guard's options, read once, with every problem named (file and key)."""

    def __init__(self, options: Any, origin: str) -> None:
        self.problems: list[str] = []
        self.origin = origin
        packs = all_packs()
        if isinstance(options, list):  # `command_guard: [git, disks]` names the packs
            options = {"packs": options}
        given = options if isinstance(options, dict) else {}
        if options is not True and not isinstance(options, dict):
            self._problem(f"command_guard must be true, a list of packs or a mapping "
                          f"({', '.join(OPTIONS)}), not {options!r}; using every pack")  # fmt: skip
        for key in given:
            if key not in OPTIONS:
                self._problem(f"unknown key command_guard.{key}{_hint(str(key), OPTIONS)}; "
                              f"ignored (accepted: {', '.join(OPTIONS)})")  # fmt: skip
        chosen = self._names("packs", given.get("packs"), packs)
        self.packs = [packs[n] for n in chosen] if given.get("packs") is not None else [
            *packs.values()
        ]  # fmt: skip
        ids = {r.id for r in every_rule()}
        known = {*packs, *ids, "parser"}
        self.allow = set(self._names("allow", given.get("allow"), known))
        self.ask_instead = set(self._names("ask_instead", given.get("ask_instead"), known))

    def _problem(self, message: str) -> None:
        self.problems.append(f"{self.origin}: {message}")

    def _names(self, key: str, raw: Any, known: Iterable[str]) -> list[str]:
        if raw is None:
            return []
        items = raw if isinstance(raw, list) else [raw]
        out: list[str] = []
        for item in items:
            if isinstance(item, str) and item in known:
                out.append(item)
            else:
                self._problem(f"command_guard.{key}: unknown name {item!r}"
                              f"{_hint(str(item), known)}; ignored (`hermes hooks "
                              "explain-command --rules` lists packs and rule ids)")  # fmt: skip
        return out

    def covers(self, names: set[str], rule: Rule) -> bool:
        """Whether ``names`` (pack names and rule ids) include ``rule``."""
        return rule.id in names or rule.id.split(".", 1)[0] in names

    def rules(self) -> list[Rule]:
        """The rules this configuration checks."""
        chosen = [UNPARSEABLE, *(r for p in self.packs for r in p.rules)]
        return [r for r in chosen if not self.covers(self.allow, r)]

    def blocks(self, rule: Rule) -> bool:
        """Whether ``rule`` blocks here (catastrophic and not asked instead)."""
        return rule.catastrophic and not self.covers(self.ask_instead, rule)


def _hint(name: str, known: Iterable[str]) -> str:
    from hermes_hooks import catalogue

    guess = catalogue.suggest(name, list(known))
    return f" (did you mean {guess!r}?)" if guess else ""


def decide(settings: Settings, verdict: Verdict) -> dict[str, Any] | None:
    """The Hermes-style answer for a verdict: block, approve (with the rule ids as the
    ``rule_key``) or ``None``."""
    if not verdict.findings:
        return None
    blocking = [f for f in verdict.findings if settings.blocks(f.rule)]
    shown = blocking or list(verdict.findings)
    lines = []
    for finding in _unique(shown):
        what = f"`{finding.command.text or ' '.join(finding.command.words)}`"
        if finding.rule is UNPARSEABLE:
            what += f" ({verdict.parsed.error})"
        reason = finding.rule.reason.rstrip(".")
        lines.append(f"{finding.rule.id}: {what}: {reason}. Safer: {finding.rule.alternative}")
    message = "command_guard: " + "\n".join(lines)
    if blocking:
        return {"action": "block", "message": message}
    key = "+".join(sorted({f.rule.id for f in verdict.findings}))
    return {"action": "approve", "message": message, "rule_key": f"command_guard:{key}"}


def _unique(findings: Iterable[Any]) -> list[Any]:
    seen: set[tuple[str, str]] = set()
    out = []
    for f in findings:
        key = (f.rule.id, f.command.text)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


class CommandGuard(SourceBase):
    """The ``command_guard`` built-in: one ``pre_tool_call`` hook over the chosen packs."""

    def __init__(self, hooks: Hooks, options: Any) -> None:
        self.hooks = hooks
        origin = str(hooks.config_path) if hooks.config_path else "the host's config"
        self.settings = Settings(options, origin)
        for problem in self.settings.problems:
            log.warning("command_guard: %s", problem)
            hooks.config_warnings.append(problem)
        self.book = Rulebook(self.settings.rules())
        from hermes_hooks.builtin_plugins.shell_hooks.dialects import shell_tools

        self.tools = shell_tools()

    def judge(self, command: str) -> tuple[Verdict, dict[str, Any] | None]:
        """The verdict on one command line and the answer it gives."""
        verdict = self.book.judge(command)
        return verdict, decide(self.settings, verdict)

    def explain_command(self, command: str) -> dict[str, Any]:
        """What the guard makes of ``command``, for people: each simple command the line would
        run, how it was reached, the rules that looked at it and those that matched, the
        parser's complaint if any, and the answer."""
        verdict, answer = self.judge(command)
        found: dict[int, list[Rule]] = {}
        for finding in verdict.findings:
            found.setdefault(id(finding.command), []).append(finding.rule)
        commands = []
        for simple in verdict.parsed.commands:
            offered = self.book.offered(simple)
            matched = found.get(id(simple), [])
            if matched:
                why = "matched " + ", ".join(r.id for r in matched)
            elif offered:
                why = f"passed: {len(offered)} rule(s) about {simple.program or 'it'} checked, none matched"
            else:
                why = f"passed: no rule of the chosen packs is about {simple.program or 'it'!r}"
            commands.append({
                "text": simple.text, "program": simple.program, "args": list(simple.args),
                "via": list(simple.via), "checked": [r.id for r in offered],
                "matched": [{"id": r.id, "reason": r.reason, "alternative": r.alternative,
                             "blocks": self.settings.blocks(r)} for r in matched],
                "why": why,
            })  # fmt: skip
        return {"line": command, "error": verdict.parsed.error, "commands": commands,
                "answer": answer}  # fmt: skip

    @hookimpl(trylast=True)
    def pre_tool_call(self, tool_name: str, args: Any) -> Any:
        if tool_name not in self.tools or not isinstance(args, dict):
            return None
        command = args.get("command")
        if not isinstance(command, str):
            return None
        try:
            _, answer = self.judge(command)
        except Exception as exc:  # a guard that cannot judge blocks: it never goes quiet
            log.exception("command_guard: cannot judge %r", command[:200])
            answer = {"action": "block", "message": f"command_guard: cannot judge this command "
                      f"line ({type(exc).__name__}: {exc}); nothing was run"}  # fmt: skip
        return answer

    def rows(self) -> list[dict[str, Any]]:
        packs = ", ".join(p.name for p in self.settings.packs)
        matcher = f"{', '.join(sorted(self.tools))}; packs: {packs}"
        error = "; ".join(self.settings.problems) or None
        return builtin_rows(NAME, SWITCH.serves or (), matcher, error=error)


def setup(hooks: Hooks) -> CommandGuard | None:
    """Active when config.yaml says ``command_guard: true`` (or gives its options), or a
    ``type: builtin`` entry names it."""
    options = switches.value(hooks, "command_guard")
    if hooks.safe_mode or not options:
        return None
    return CommandGuard(hooks, options)
