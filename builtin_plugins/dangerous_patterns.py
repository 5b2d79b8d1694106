"""Internal: part of the built-ins (docs/builtins.md), not an API.

Dangerous-command patterns as configuration: ``dangerous_patterns: true`` in config.yaml.

Rules come from ``<home>/dangerous-patterns.yaml`` and every ``*.yaml`` in
``<home>/dangerous-patterns/`` (``HERMES_DANGEROUS_PATTERNS_PATH`` names another file or
directory), plus the example files shipped in ``dangerous_patterns_rules/`` (off unless their
group is enabled). Each rule: ``pattern`` (a regular expression), ``description``, ``action``
(``deny``, ``ask``, ``allow``), ``enabled``, ``group``, ``tools`` (default ``[terminal]``),
``protected``. A rule is matched against the whole command line and, for the shell tool,
against each simple command the line would run (:mod:`hermes_hooks.shell_syntax`), as written
and as it runs; a line the parser cannot read is the worst case (blocked when a deny rule could
apply, else asked). On ``pre_tool_call``: a deny rule blocks at once (an approval mode of the host
cannot undo a block); an allow rule exempts the command from the ask rules; an ask rule asks a
human, with the rule's description as ``rule_key``, so "always" covers exactly that rule. Terminal
escape sequences are stripped from the command before matching. An invalid pattern is reported
with its file and line and skipped alone. The rules' SHA-256 is kept in
``<home>/dangerous-patterns.state.json``: a change since the last load is reported, and a
protected rule that disappeared or changed is reported loudly at every load. Reference:
``docs/builtins.md``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from hermes_hooks.builtin_plugins import switches
from hermes_hooks.builtin_plugins.shell_hooks.consent import file_sha256
from hermes_hooks.builtin_plugins.shell_hooks.dialects import shell_tools

from hermes_hooks.markers import hookimpl
from hermes_hooks.shell_syntax import parse
from hermes_hooks.sources import SourceBase, builtin_rows
from hermes_hooks.trust import untrusted

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

SHIPPED = Path(__file__).with_name("dangerous_patterns_rules")
ACTIONS = ("deny", "ask", "allow")
RULE_KEYS = ("pattern", "description", "action", "enabled", "group", "tools", "protected")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


@dataclass(frozen=True)
class Rule:
    """One loaded rule."""

    regex: re.Pattern[str]
    description: str
    action: str
    group: str
    tools: tuple[str, ...]
    protected: bool
    origin: str  # file:line

    @property
    def digest(self) -> str:
        text = json.dumps([self.regex.pattern, self.description, self.action, sorted(self.tools)])
        return hashlib.sha256(text.encode()).hexdigest()


class _LineLoader(yaml.SafeLoader):
    """Records the line of every mapping (a rule) as ``__line__``."""


def _mapping_with_line(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    mapping = {str(k): v for k, v in loader.construct_mapping(node, deep=True).items()}
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_with_line)


def rule_files(home: Path) -> list[Path]:
    """The user's rule files, in order: the env override, or the home's file and directory."""
    override = os.environ.get("HERMES_DANGEROUS_PATTERNS_PATH")
    roots = [Path(override).expanduser()] if override else [
        home / "dangerous-patterns.yaml", home / "dangerous-patterns"
    ]  # fmt: skip
    files: list[Path] = []
    for root in roots:
        if root.is_dir():
            files += sorted(p for p in root.iterdir() if p.suffix in (".yaml", ".yml"))
        elif root.is_file():
            files.append(root)
    return files


def read_rules(path: Path, enabled_groups: set[str]) -> tuple[list[Rule], list[str]]:
    """The rules of one file and the problems found (each names the file and line)."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LineLoader)  # noqa: S506  # a SafeLoader subclass
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return [], [f"{path}: cannot read the rules: {exc}; no rule of this file is used"]
    items = data.get("rules") if isinstance(data, dict) else data
    if items is None:
        return [], []
    if not isinstance(items, list):
        return [], [f"{path}: expected a list of rules (or rules: [...])"]
    rules, problems = [], []
    for item in items:
        where = f"{path}:{item.get('__line__', '?')}" if isinstance(item, dict) else str(path)
        if not isinstance(item, dict):
            problems.append(f"{where}: a rule must be a mapping with pattern, description, action")
            continue
        unknown = [k for k in item if k not in RULE_KEYS and k != "__line__"]
        if unknown:
            problems.append(
                f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; accepted: {', '.join(RULE_KEYS)}"
            )
        group = str(item.get("group") or "default")
        enabled = item.get("enabled", True) is not False or group in enabled_groups
        if not enabled:
            continue
        action = item.get("action", "ask")
        if action not in ACTIONS:
            problems.append(
                f"{where}: action {action!r} is not one of {', '.join(ACTIONS)}; rule skipped"
            )
            continue
        try:
            regex = re.compile(str(item.get("pattern", "")))
        except re.error as exc:
            problems.append(
                f"{where}: invalid pattern {item.get('pattern')!r}: {exc}; rule skipped"
            )
            continue
        if not regex.pattern:
            problems.append(f"{where}: a rule needs a pattern; rule skipped")
            continue
        tools = item.get("tools") or ["terminal"]
        rules.append(
            Rule(
                regex=regex,
                description=str(item.get("description") or regex.pattern),
                action=action,
                group=group,
                tools=tuple(map(str, tools if isinstance(tools, list) else [tools])),
                protected=bool(item.get("protected", False)),
                origin=where,
            )
        )
    return rules, problems


def _readings(text: str, shell: bool) -> tuple[list[str], str | None]:
    """What a rule is matched against: the whole line and, for the shell tool (``shell``), each
    simple command it would run, as written and as it runs (quotes removed, path and wrappers
    stripped: ``sudo /bin/r''m -rf x`` is also ``rm -rf x``); and the parser's complaint when
    the line cannot be read with certainty."""
    if not shell:
        return [text], None
    parsed = parse(text)
    texts = [text]
    for simple in parsed.commands:
        for reading in simple.readings:
            if reading not in texts:
                texts.append(reading)
    return texts, parsed.error


def _unreadable(rules: list[Rule], error: str) -> dict[str, Any] | None:
    """The worst case for a line the parser cannot read: the strongest action of the rules
    that could apply (a deny rule: block; an ask rule: ask)."""
    message = (f"dangerous pattern: the command line cannot be read with certainty ({error}); "
               "write it as plain simple commands")  # fmt: skip
    if any(r.action == "deny" for r in rules):
        return {"action": "block", "message": message}
    if any(r.action == "ask" for r in rules):
        return {"action": "approve", "message": message, "rule_key": "unreadable command line"}
    return None


class DangerousPatterns(SourceBase):
    """The ``dangerous_patterns`` built-in: one ``pre_tool_call`` hook over every rule."""

    def __init__(self, hooks: Hooks, options: dict[str, Any]) -> None:
        self.home = hooks.home
        self.shell_tools = shell_tools()  # every dialect's name of the shell tool, read once
        groups = set(map(str, options.get("enable_groups") or []))
        shipped = sorted(SHIPPED.glob("*.yaml"))
        self.files = [*shipped, *rule_files(hooks.home)]
        self.rules: list[Rule] = []
        self.problems: list[str] = []
        for path in self.files:
            # the user's rule files follow the trust rule of every other file we load: an
            # ``allow`` rule written by someone else would skip the approval prompts
            distrust = None if path in shipped else untrusted(path)
            if distrust is not None:
                self.problems.append(f"{path}: refused: {distrust}; no rule of this file is used")
                continue
            rules, problems = read_rules(path, groups)
            self.rules += rules
            self.problems += problems
        if not self.rules:
            self.problems.append(
                f"no rule is in force (no rule in {hooks.home / 'dangerous-patterns.yaml'} or "
                f"{hooks.home / 'dangerous-patterns'}/, and no shipped group in enable_groups): "
                "it blocks nothing"
            )
        for problem in self.problems:
            log.warning("dangerous_patterns: %s", problem)
        self.changes = self._check_state()
        #: Under ``fail_closed_events: [pre_tool_call]`` a rule that is not in force (its file
        #: unreadable, refused, or the rule itself) leaves the answer unknown: it blocks.
        self.fail_closed = self.pre_tool_call.__name__ in hooks.manager.fail_closed_events

    # -------------------------------------------------------------- state

    def _check_state(self) -> list[str]:
        state_path = self.home / "dangerous-patterns.state.json"
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            state = {}
        files = {str(p): digest for p in self.files if (digest := file_sha256(str(p)))}
        changes = [
            f"{path} changed since the last load" for path, digest in files.items()
            if path in state.get("files", {}) and state["files"][path] != digest
        ]  # fmt: skip
        for path in changes:
            log.warning("dangerous_patterns: %s", path)
        protected = dict(state.get("protected", {}))
        current = {r.description: r for r in self.rules if r.protected}
        for key, digest in protected.items():
            rule = current.get(key)
            if rule is None:
                message = f"protected rule {key!r} disappeared (it was recorded as protected)"
            elif rule.digest != digest:
                message = f"protected rule {key!r} changed ({rule.origin})"
            else:
                continue
            changes.append(message)
            log.error(
                "dangerous_patterns: %s; to accept this, remove its entry from %s",
                message,
                state_path,
            )
        for key, rule in current.items():
            protected.setdefault(key, rule.digest)  # new protected rules are recorded once
        try:
            state_path.write_text(json.dumps({"files": files, "protected": protected}, indent=2))
        except OSError as exc:
            log.warning("dangerous_patterns: cannot record the rules' state: %s", exc)
        return changes

    # -------------------------------------------------------------- the hook

    @hookimpl(trylast=True)
    def pre_tool_call(self, tool_name: str, args: Any) -> Any:
        if self.fail_closed and self.problems:
            return {"action": "block", "message": "dangerous_patterns is fail_closed and a rule "
                    f"is not in force: {'; '.join(self.problems)}"}  # fmt: skip
        command = args.get("command") if isinstance(args, dict) else None
        if not isinstance(command, str):
            return None
        rules = [r for r in self.rules if tool_name in r.tools]
        if not rules:
            return None
        text = _ANSI.sub("", command)
        texts, error = _readings(text, tool_name in self.shell_tools)
        if error is not None:
            return _unreadable(rules, error)
        matching = [r for r in rules if any(r.regex.search(t) for t in texts)]
        for rule in matching:
            if rule.action == "deny":
                return {"action": "block", "message": f"dangerous pattern: {rule.description}"}
        if any(r.action == "allow" for r in matching):
            return None
        for rule in matching:
            if rule.action == "ask":
                return {
                    "action": "approve",
                    "message": f"dangerous pattern: {rule.description}",
                    "rule_key": rule.description,
                }
        return None

    def rows(self) -> list[dict[str, Any]]:
        counts = {a: sum(r.action == a for r in self.rules) for a in ACTIONS}
        matcher = ", ".join(f"{n} {a}" for a, n in counts.items())
        error = "; ".join(self.problems + self.changes) or None
        return builtin_rows("builtin:dangerous_patterns", ["pre_tool_call"], matcher, error=error)


def setup(hooks: Hooks) -> DangerousPatterns | None:
    """Active when config.yaml says ``dangerous_patterns: true`` (or gives its options)."""
    options = switches.value(hooks, "dangerous_patterns")
    if hooks.safe_mode or not options:
        return None
    return DangerousPatterns(hooks, options if isinstance(options, dict) else {})
