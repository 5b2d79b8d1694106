"""Internal: the ``hermes hooks`` command line (docs/agents.md), not an API.

Each agent's own hook file as ``hermes hooks install-into`` writes it: which file (the shell
hooks' readers know where every agent keeps its hooks), which events are routed (read off the
hookspecs' Claude Code and dialect declarations), the entry routing one event to hermes-hooks
(``hermes hooks client`` or, for Claude Code, its ``http`` hook type), and merging those entries
into what the file already holds or taking them out again.

An entry is ours when its command is ``<hermes> hooks client <agent> ...`` or its URL's path is
``/v1/hooks/<agent>/...``; it is *intact* when it is exactly what install-into writes here now
(any transport), else *changed* (edited by hand, or written for another home or hermes).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hermes_hooks import catalogue
from hermes_hooks.serve.client import CHECK_HTTP
from hermes_hooks.serve.files import TOKEN_VAR

#: Transports: ``auto`` (Claude Code: its http hook type for every event it runs one on,
#: decision events with ``onFailure: block``, so a service that is down or refuses the token
#: blocks them; other agents: the client), ``http`` (the same as ``auto``, kept for the scripts
#: that name it; Claude Code only), ``client`` (every event through the client, which runs the
#: hooks in-process when the service is down).
VIAS = ("auto", "http", "client")
#: Seconds Claude Code waits for the service on an http hook (its own default, 600 s, would
#: hold a session that long on a service that hangs).
HTTP_TIMEOUT = 30
#: Where the service says it listens, when ``<home>/serve/url`` does not exist yet.
DEFAULT_URL = "http://127.0.0.1:8765"
#: Agents that keep a hook list per event (Cursor, Copilot) rather than matcher groups.
FLAT = ("cursor", "copilot")


def agents() -> tuple[str, ...]:
    """Every agent install-into can write for: the agents whose files the shell hooks read."""
    from hermes_hooks.builtin_plugins.shell_hooks.config import SOURCES

    return tuple(SOURCES)


# ---------------------------------------------------------------------- events


@dataclass(frozen=True)
class Route:
    """One event of an agent routed to hermes-hooks."""

    event: str  # the agent's own name for it
    ours: str  # our event
    decision: bool  # the agent reads a decision from it: it fails closed
    http: bool = False  # the agent runs http hooks on it (ClaudeEvent.http)


def routes(agent: str) -> list[Route]:
    """Every event ``agent`` has that one of ours stands for, in catalogue order, each once.
    A decision event is one that can block and whose answer the agent reads."""
    out: dict[str, Route] = {}
    for info in catalogue.events().values():
        if agent == "claude":
            pairs = [(c.name, True, c.http) for c in info.claude]
        else:
            pairs = [(e.name, bool(e.answers), False) for e in info.dialect_events(agent)]
        for name, read, http in pairs:
            if name not in out:
                out[name] = Route(name, info.name, info.can_block and read, http)
    return list(out.values())


# ---------------------------------------------------------------------- files


def target(agent: str, project: Path | None) -> Path:
    """The file install-into writes for ``agent``: the user's (``project`` is ``None``) or the
    project's. Claude Code's project file is ``.claude/settings.local.json``, the one Claude
    Code keeps out of version control (the entries name this machine's paths)."""
    from hermes_hooks.builtin_plugins.shell_hooks import config as shell_config

    if agent == "claude":
        if project is None:
            return shell_config.user_dir() / "settings.json"
        return shell_config.project_settings(project)[-1]
    if agent == "copilot":
        user, shared = shell_config.copilot_folders(project or Path.cwd())
        return (user if project is None else shared) / "hermes-hooks.json"
    files = [p for p in shell_config.files_of(agent, project or Path.cwd()) if p.suffix == ".json"]
    return files[0] if project is None else files[-1]


# ---------------------------------------------------------------------- entries


@dataclass(frozen=True)
class Setup:
    """What the entries of one install depend on: the hermes command, the home, the service."""

    hermes: str
    home: Path
    url: str

    @classmethod
    def here(cls, home: Path) -> Setup:
        """This hermes (the script beside this Python, else the one on PATH) and ``home``."""
        import shutil

        beside = Path(sys.executable).parent / "hermes"
        found = str(beside) if beside.is_file() else (shutil.which("hermes") or "hermes")
        return cls(found, home.resolve(), service_url(home))


def service_url(home: Path) -> str:
    """The base URL ``hermes hooks serve`` wrote to ``<home>/serve/url``, else the default."""
    from ..serve.files import read_url

    try:
        text = read_url(home)
    except (OSError, UnicodeDecodeError):
        return DEFAULT_URL
    return text.rstrip("/") or DEFAULT_URL


def transport(agent: str, route: Route, via: str) -> str:
    """``http`` or ``client`` for this event."""
    if not route.http or via == "client":  # Claude Code skips http hooks on SessionStart
        return "client"
    return "http"


def checks_http(agent: str, via: str) -> bool:
    """Whether the client entries of this install check the http route (``--check-http``:
    the service answers and takes ``$HERMES_HOOKS_TOKEN``, said at the session's start when not):
    Claude Code's, unless every event goes through the client."""
    return agent == "claude" and via != "client"


def handler(agent: str, route: Route, setup: Setup, via: str) -> dict[str, Any]:
    """The one hook entry that routes ``route`` to hermes-hooks, in ``agent``'s shape."""
    if transport(agent, route, via) == "http":
        entry: dict[str, Any] = {
            "type": "http",
            "url": f"{setup.url}/v1/hooks/{agent}/{route.event}",
            "headers": {"Authorization": f"Bearer ${TOKEN_VAR}"},
            "allowedEnvVars": [TOKEN_VAR],
            "timeout": HTTP_TIMEOUT,
        }
        if route.decision:
            entry["onFailure"] = "block"
        return entry
    words = [setup.hermes, "hooks", "client", agent, route.event, "--home", str(setup.home)]
    if checks_http(agent, via):
        words.append(CHECK_HTTP)
    command = shlex.join(words)
    if agent == "copilot":
        return {"type": "command", "bash": command}
    entry = {"type": "command", "command": command} if agent != "cursor" else {"command": command}
    if route.decision and agent == "claude":
        entry["onFailure"] = "block"
    elif route.decision and agent == "cursor":
        entry["failClosed"] = True
    return entry


def is_ours(agent: str, entry: Any) -> bool:
    """Whether a hook entry of ``agent``'s file is one install-into wrote (or an edit of one)."""
    if not isinstance(entry, Mapping):
        return False
    url = entry.get("url")
    if isinstance(url, str):
        try:
            return urlsplit(url).path.startswith(f"/v1/hooks/{agent}/")
        except ValueError:
            return False
    command = entry.get("bash" if agent == "copilot" else "command")
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return (
        len(words) >= 4
        and os.path.basename(words[0]).startswith("hermes")
        and words[1:4] == ["hooks", "client", agent]
    )


def intact_forms(agent: str, route: Route, setup: Setup) -> list[dict[str, Any]]:
    """Every entry install-into would write for this event here (one per transport)."""
    forms: list[dict[str, Any]] = []
    for via in VIAS:
        entry = handler(agent, route, setup, via)
        if entry not in forms:
            forms.append(entry)
    return forms


# ---------------------------------------------------------------------- merging


class Unusable(ValueError):
    """A hook file whose shape install-into cannot merge into (named, with the fix)."""


def hooks_block(agent: str, path: Path, data: Any) -> dict[str, Any]:
    """The file's ``hooks`` mapping (created when missing); :class:`Unusable` when the file is
    not the agent's shape, so nothing of the user's is overwritten."""
    if not isinstance(data, dict):
        raise Unusable(f"{path}: the top level must be a JSON object")
    block = data.setdefault("hooks", {})
    if not isinstance(block, dict):
        raise Unusable(f"{path}: 'hooks' must be an object of event name to a list")
    for name, items in block.items():
        if _switch(agent, name):
            continue
        if not isinstance(items, list):
            raise Unusable(f"{path}: hooks.{name} must be a list")
        if agent in FLAT:
            continue
        for n, group in enumerate(items):
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise Unusable(f"{path}: hooks.{name}[{n}] must be {{matcher, hooks: [...]}}")
    return block


def _switch(agent: str, name: Any) -> bool:
    """Gemini CLI's ``hooks.enabled`` / ``hooks.disabled`` (older names of ``hooksConfig``'s):
    switches beside the events, not events."""
    return agent == "gemini" and name in ("enabled", "disabled")


@dataclass
class Found:
    """Our entries in one agent file."""

    intact: list[str] = field(default_factory=list)  # events routed here as written
    changed: list[str] = field(default_factory=list)  # "hooks.E[i]...: why" of edited ones
    #: events whose entry of ours is the agent's http hook with ``onFailure: block``: blocked
    #: while the service is down or refuses the token (no client to fall back)
    blocked_when_down: list[str] = field(default_factory=list)


def _handlers(agent: str, items: list[Any]) -> Iterator[tuple[str, Any]]:
    """``(place, entry)`` for every hook entry of one event's list."""
    for n, item in enumerate(items):
        if agent in FLAT:
            yield f"[{n}]", item
        elif isinstance(item, dict):
            for m, entry in enumerate(item.get("hooks") or []):
                yield f"[{n}].hooks[{m}]", entry


def survey(agent: str, data: Any, setup: Setup) -> Found:
    """Which of ``agent``'s events route here, and which entries of ours were changed."""
    found = Found()
    block = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(block, dict):
        return found
    table = {r.event: r for r in routes(agent)}
    for name, items in block.items():
        if not isinstance(items, list):
            continue
        for place, entry in _handlers(agent, items):
            if not is_ours(agent, entry):
                continue
            route = table.get(str(name))
            where = f"hooks.{name}{place}"
            if route is None:
                found.changed.append(f"{where}: {agent} has no event {name!r} we route")
            elif entry not in intact_forms(agent, route, setup):
                found.changed.append(f"{where}: differs from what install-into writes here")
            elif not _event_named(agent, entry, str(name)):
                found.changed.append(f"{where}: names another event than {name!r}")
            else:
                found.intact.append(str(name))
                if entry.get("type") == "http" and entry.get("onFailure") == "block":
                    found.blocked_when_down.append(str(name))
    return found


def _event_named(agent: str, entry: Mapping[str, Any], name: str) -> bool:
    url = entry.get("url")
    if isinstance(url, str):
        return urlsplit(url).path.endswith(f"/{name}")
    words = shlex.split(str(entry.get("bash" if agent == "copilot" else "command")))
    return words[4:5] == [name]


def install(agent: str, path: Path, data: Any, setup: Setup, via: str) -> dict[str, Any]:
    """``data`` with every routed event's entry of ours in place: an entry of ours already
    there is refreshed where it stands (so a second run changes nothing), missing ones are
    appended, ours on events no longer routed are removed. Other entries are kept as they are."""
    if not isinstance(data, dict):
        raise Unusable(f"{path}: the top level must be a JSON object")
    out: dict[str, Any] = (
        {"version": 1, **data} if agent in FLAT and "version" not in data else data
    )
    block = hooks_block(agent, path, out)
    wanted = {r.event: handler(agent, r, setup, via) for r in routes(agent)}
    for name in list(block):
        items = block[name]
        if not isinstance(items, list) or _switch(agent, name):
            continue
        fresh = wanted.get(str(name))
        kept: list[Any] = []
        placed = False
        for item in items:
            if agent in FLAT:
                if not is_ours(agent, item):
                    kept.append(item)
                elif fresh is not None and not placed:
                    kept.append(fresh)
                    placed = True
                continue
            inner = item.get("hooks") or []
            others = [e for e in inner if not is_ours(agent, e)]
            if len(others) == len(inner):
                kept.append(item)
            elif not others and fresh is not None and not placed:
                kept.append({**item, "hooks": [fresh]})
                placed = True
            elif others:
                kept.append({**item, "hooks": others})
        if fresh is not None and not placed:
            kept.append(fresh if agent in FLAT else {"hooks": [fresh]})
        wanted.pop(str(name), None)
        if kept:
            block[name] = kept
        else:
            del block[name]
    for name, fresh in wanted.items():
        block[name] = [fresh if agent in FLAT else {"hooks": [fresh]}]
    return out


def uninstall(agent: str, path: Path, data: Any, setup: Setup) -> tuple[dict[str, Any], list[str]]:
    """``data`` without the intact entries of ours (groups and event lists they leave empty go
    too; a ``hooks`` object left empty goes), and the changed entries of ours, which are kept."""
    block = hooks_block(agent, path, data)
    assert isinstance(data, dict)  # hooks_block refused anything else
    table = {r.event: r for r in routes(agent)}
    kept_changed = survey(agent, data, setup).changed
    for name in list(block):
        items = block[name]
        route = table.get(str(name))
        if route is None or not isinstance(items, list):
            continue
        forms = intact_forms(agent, route, setup)

        def ours(entry: Any, forms: list[dict[str, Any]] = forms, name: str = str(name)) -> bool:
            return is_ours(agent, entry) and entry in forms and _event_named(agent, entry, name)

        kept: list[Any] = []
        for item in items:
            if agent in FLAT:
                if not ours(item):
                    kept.append(item)
                continue
            inner = item.get("hooks") or []
            others = [e for e in inner if not ours(e)]
            if not inner or others:
                kept.append(item if len(others) == len(inner) else {**item, "hooks": others})
        if kept:
            block[name] = kept
        else:
            del block[name]
    if not block:
        del data["hooks"]
    return data, kept_changed


def empty(agent: str, data: Mapping[str, Any]) -> bool:
    """Whether nothing but what install-into adds by itself is left (``{}``, a ``version``)."""
    rest = {k: v for k, v in data.items() if not (agent in FLAT and k == "version")}
    return not rest


def switched_off(agent: str, project: Path | None) -> str | None:
    """Why ``agent`` would run none of the hooks written for it, when its own config says so
    (Codex runs hooks only with ``[features] hooks = true`` in a ``config.toml``; Gemini CLI
    none with ``hooksConfig.enabled: false``, Claude Code none with ``disableAllHooks: true``),
    else ``None``."""
    import json

    from hermes_hooks.builtin_plugins.shell_hooks import config as shell_config

    if agent == "codex":
        tomls = [
            p for p in shell_config.files_of("codex", project or Path.cwd()) if p.suffix == ".toml"
        ]
        parsed: dict[Path, Any] = {}
        for path in tomls:
            try:
                import tomllib

                parsed[path] = tomllib.loads(path.read_text(encoding="utf-8"))
            except (ImportError, OSError, ValueError):
                continue
        if not any(
            isinstance(d.get("features"), dict) and d["features"].get("hooks") is True
            for d in parsed.values()
        ):
            return (f"Codex runs hooks only with `[features]` `hooks = true` in {tomls[0]}: "
                    "add it there")  # fmt: skip
        if project is not None and not _codex_trusts(parsed.get(tomls[0]), project):
            return (f"Codex reads {project / '.codex' / 'hooks.json'} only in a folder it "
                    f'trusts: add `[projects."{project}"]` `trust_level = "trusted"` to '
                    f"{tomls[0]} (what its trust prompt saves)")  # fmt: skip
    if agent in ("gemini", "claude"):
        try:
            data = json.loads(target(agent, project).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if agent == "claude" and isinstance(data, dict) and data.get("disableAllHooks") is True:
            return (f"{target(agent, project)}: disableAllHooks is true, so Claude Code runs "
                    "none of these hooks; remove it")  # fmt: skip
        switch = data.get("hooksConfig") if isinstance(data, dict) else None
        if agent == "gemini" and isinstance(switch, dict) and switch.get("enabled") is False:
            return (f"{target(agent, project)}: hooksConfig.enabled is false, so Gemini CLI runs "
                    "none of these hooks; set it to true")  # fmt: skip
    return None


def _codex_trusts(user: Any, project: Path) -> bool:
    """Whether the user's Codex ``config.toml`` trusts ``project``: its ``[projects."DIR"]``
    ``trust_level``, for the folder itself or the git repository holding it (a project's own
    config cannot trust itself, so only the user's file counts)."""
    projects = user.get("projects") if isinstance(user, dict) else None
    if not isinstance(projects, dict):
        return False
    folders = {project, project.resolve()}
    for folder in (project.resolve(), *project.resolve().parents):
        if (folder / ".git").exists():
            folders.add(folder)
            break
    for folder in folders:
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False


def bare(agent: str, data: Any) -> Any:
    """``data`` without empty event lists, an empty ``hooks`` and the ``version`` install-into
    adds to Cursor's and Copilot's files: what uninstall leaves of a file our entries were added
    to is compared with the original so."""
    if not isinstance(data, dict):
        return data
    rest = {
        k: v for k, v in data.items() if k != "hooks" and not (agent in FLAT and k == "version")
    }
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        hooks = {k: v for k, v in hooks.items() if v != []}
    return {**rest, "hooks": hooks} if hooks else rest
