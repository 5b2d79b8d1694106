"""Internal: part of the built-ins (docs/builtins.md), not an API.

Claude Code permission rules as hook filters: the ``if`` field of a ``settings.json`` hook
handler (``"if": "Bash(git *)"``, ``"Edit(*.ts)"``, ``"mcp__github"``).

A rule is ``Tool`` or ``Tool(specifier)``. The tool part is Claude Code's tool name (the host's
tool is compared under its Claude Code name, :mod:`hermes_hooks.wire`); an MCP rule
``mcp__server`` (or ``mcp__server__*``) takes every tool of that server. The specifier depends
on the tool:

- ``Bash``: the command, ``*`` standing for any text; ``prefix:*`` (the older form) and a
  trailing `` *`` mean "this command, alone or with arguments". A compound command
  (``a && b``, ``a | b``, ``a; b``, subshells, ``$()``, ``bash -c '...'``, wrappers such as
  ``sudo``/``timeout``) matches when one simple command it would run does
  (:mod:`hermes_hooks.shell_syntax`); a command that cannot be read matches (the hook runs: a
  filter must not silence a guard on what it cannot read).
- ``Read``, ``Edit``, ``Write``, ``MultiEdit``, ``NotebookEdit``, ``Glob``, ``Grep``: the file
  path, gitignore-style: ``*.ts`` anywhere, ``/src/**`` under the project directory, ``//abs``
  an absolute path, ``~/x`` under the home directory, ``./x`` under the working directory.
- ``WebFetch``: ``domain:example.com`` (that host or its subdomains); a URL that cannot be
  parsed matches.
- any other tool: the specifier is compared with the tool's first string argument.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from hermes_hooks import wire

_PATH_TOOLS = {"Read": "file_path", "Edit": "file_path", "Write": "file_path",
               "MultiEdit": "file_path", "NotebookEdit": "notebook_path", "Glob": "path",
               "Grep": "path"}  # fmt: skip
_RULE = re.compile(r"\s*([A-Za-z0-9_.:*-]+)\s*(?:\((.*)\))?\s*", re.DOTALL)
_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\||&|\n)\s*")


class BadRule(ValueError):
    """The text is not a permission rule."""


@dataclass(frozen=True)
class Rule:
    """One permission rule, compiled."""

    text: str
    tool: str
    specifier: str | None

    @classmethod
    def parse(cls, text: str) -> Rule:
        match = _RULE.fullmatch(text)
        if match is None:
            raise BadRule(f"{text!r} is not a permission rule (Tool or Tool(specifier))")
        tool, spec = match.group(1), match.group(2)
        if spec is not None:
            spec = spec.strip()
            if spec in ("", "*"):
                spec = None
        return cls(text, tool, spec)

    def matches(self, tool_name: Any, args: Any, *, cwd: str, project: str) -> bool:
        """Whether a call of the host tool ``tool_name`` with ``args`` matches this rule."""
        if not isinstance(tool_name, str):
            return False
        claude = wire.claude_tool_name(tool_name) or tool_name
        if not self._tool_matches(claude) and not self._tool_matches(tool_name):
            return False
        if self.specifier is None:
            return True
        given = wire.args_to_claude(tool_name, args)
        given = given if isinstance(given, Mapping) else {}
        if claude == "Bash" or self.tool == "Bash":
            command = given.get("command")
            return isinstance(command, str) and bash_matches(self.specifier, command)
        if self.tool in _PATH_TOOLS:
            path = given.get(_PATH_TOOLS[self.tool]) or given.get("file_path") or given.get("path")
            return isinstance(path, str) and path_matches(self.specifier, path, cwd, project)
        if self.tool == "WebFetch":
            return _domain_matches(self.specifier, given.get("url"))
        value = next((v for v in given.values() if isinstance(v, str)), None)
        return value is not None and _glob(self.specifier).fullmatch(value) is not None

    def _tool_matches(self, name: str) -> bool:
        if self.tool == name:
            return True
        if self.tool.startswith("mcp__"):
            server = self.tool[:-3] if self.tool.endswith("__*") else self.tool
            return server.count("__") == 1 and name.startswith(server + "__")
        return False


@functools.lru_cache(maxsize=256)  # a rule's specifier is translated once, not at every firing
def _glob(pattern: str, *, slash: bool = False) -> re.Pattern[str]:
    """``*`` (and ``**``) as regex; with ``slash``, ``*`` stays within one path segment."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            if slash and pattern.startswith("/", i):
                out[-1] = "(?:.*/)?"
                i += 1
        elif pattern[i] == "*":
            out.append("[^/]*" if slash else ".*")
            i += 1
        elif pattern[i] == "?" and slash:
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def bash_matches(spec: str, command: str) -> bool:
    """Whether a Bash specifier matches ``command`` or one simple command it would run (read
    by :mod:`hermes_hooks.shell_syntax`: ``(rm -rf x)``, ``FOO=1 rm``, ``timeout 5 rm`` and
    ``bash -c 'rm ...'`` all run ``rm``), as written or as it runs (quotes removed, path and
    wrappers stripped). A line the parser cannot read matches: the hook runs."""
    from hermes_hooks.shell_syntax import parse

    if spec.endswith(":*"):
        spec = spec[:-2].rstrip() + " *"
    parsed = parse(command)
    if parsed.error is not None:
        return True
    parts = [p for p in _SPLIT.split(command.strip()) if p]
    for simple in parsed.commands:
        parts += simple.readings
    return any(_one_command(spec, p) for p in [command.strip(), *parts] if p)


def _one_command(spec: str, command: str) -> bool:
    if spec.endswith(" *") and command == spec[:-2].rstrip():
        return True  # "git *" also takes a bare "git"
    return _glob(spec).fullmatch(command) is not None


def path_matches(spec: str, path: str, cwd: str, project: str) -> bool:
    """Whether a gitignore-style path specifier matches ``path`` (absolute or relative to
    ``cwd``)."""
    target = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    if spec.startswith("//"):
        base, pattern = "/", spec[2:]
    elif spec.startswith("~/"):
        base, pattern = os.path.expanduser("~"), spec[2:]
    elif spec.startswith("/"):
        base, pattern = project, spec[1:]
    elif spec.startswith("./"):
        base, pattern = cwd, spec[2:]
    elif "/" in spec.rstrip("/"):
        base, pattern = cwd, spec
    else:  # a bare name or glob: at any depth
        return _glob(spec, slash=True).fullmatch(os.path.basename(target)) is not None
    base = os.path.normpath(base)
    rel = os.path.relpath(target, base) if target != base else "."
    if rel.startswith(".."):
        return False
    pattern = pattern.rstrip("/")
    regex = _glob(pattern, slash=True)
    return (
        regex.fullmatch(rel) is not None
        or _glob(pattern + "/**", slash=True).fullmatch(rel) is not None
    )


def _domain_matches(spec: str, url: Any) -> bool:
    if not isinstance(url, str) or not spec.startswith("domain:"):
        return False
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        # A URL that cannot be read (``http://[::1``) matches: the hook runs, as for a Bash
        # command the parser cannot read (a filter must not silence a guard on it).
        return True
    want = spec[len("domain:") :].strip().lower()
    if want.startswith("*."):
        return host.endswith(want[1:])
    return host == want or host.endswith("." + want)
