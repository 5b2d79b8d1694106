"""Shell hooks: any executable as a hook, configured in ``config.yaml`` (Hermes schema) or in
Claude Code ``settings.json`` files. Reference: ``docs/shell-hooks.md``.

One plugin object carries every shell hook. It implements (``trylast``) only the events that have
shell hooks, so ``hooks.has_hook(event)`` stays false for the rest. At each firing the matching,
approved hooks of the event run in parallel (:mod:`hermes_hooks.process`), each answer is read by
:mod:`hermes_hooks.wire`, and the answers are combined in config order with the event's rule.
Consent (:mod:`hermes_hooks.consent`) is checked at every firing against the script's hash.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import shlex
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks import catalogue, consent, process, wire
from hermes_hooks.catalogue import EventInfo
from hermes_hooks.config import truthy
from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

DEFAULT_TIMEOUT = 60
MAX_TIMEOUT = 300
DEFAULT_STOP_CONTINUES = 3
ENTRY_KEYS = (
    "command",
    "matcher",
    "timeout",
    "fail_closed",
    "priority",
    "env",
    "working_dir",
    "name",
    "protocol",
)
CLAUDE_ENTRY_KEYS = ("type", "command", "timeout", "protocol", "name", "fail_closed", "env",
                     "working_dir", "priority", "async", "statusMessage")  # fmt: skip
RESERVED = frozenset({"output_spill"})  # sub-sections Hermes keeps under hooks:, not events
# Claude Code matchers on non-tool events match this field of the event.
CLAUDE_MATCH_FIELD = {
    "on_session_start": "source",
    "pre_compress": "trigger",
    "notification": "notification_type",
}
_PROTOCOL_NAMES = {"hermes": wire.HERMES, "claude-code": wire.CLAUDE, "claude_code": wire.CLAUDE,
                   "claude": wire.CLAUDE}  # fmt: skip


def _tool_events() -> frozenset[str]:
    return frozenset(n for n, info in catalogue.events().items() if "tool_name" in info.args)


# ---------------------------------------------------------------------- one configured hook


@dataclass
class ShellHook:
    """One configured shell hook."""

    event: str  # our event name
    configured_event: str  # as written in the file (an alias, maybe)
    command: str
    origin: str  # the file it came from
    index: int
    matcher: str | None = None
    timeout: int = DEFAULT_TIMEOUT
    fail_closed: bool = False
    priority: int = 0
    env: dict[str, str] = field(default_factory=dict)
    working_dir: str | None = None
    name: str = ""
    protocol: str = wire.HERMES
    plugin_root: str | None = None
    match_field: str | None = None  # which payload field the matcher tests (None: the tool name)
    pattern: re.Pattern[str] | None = None

    @property
    def key(self) -> tuple[str, str | None, str]:
        return (self.event, self.matcher, self.command)

    @property
    def where(self) -> str:
        return f"hooks.{self.configured_event}[{self.index}] in {self.origin}"

    def matches(self, kwargs: Mapping[str, Any]) -> bool:
        """Whether this hook fires for these event arguments."""
        if self.event == "post_tool_call" and self.configured_event in (
            "PostToolUse",
            "PostToolUseFailure",
        ):
            # Claude Code fires PostToolUse on success and PostToolUseFailure on failure only.
            failed = kwargs.get("status") == "error"
            if (
                failed != (self.configured_event == "PostToolUseFailure")
                or kwargs.get("status") == "blocked"
            ):
                return False
        if self.matcher is None:
            return True
        value = kwargs.get(self.match_field or "tool_name")
        if not isinstance(value, str):
            return False
        if self.protocol == wire.CLAUDE:
            candidates = [value]
            if self.match_field is None:
                candidates.insert(0, wire.claude_tool_name(value) or value)
            return any(self._claude_match(c) for c in candidates)
        if self.pattern is not None:
            return self.pattern.fullmatch(value) is not None
        return value == self.matcher

    def _claude_match(self, value: str) -> bool:
        assert self.matcher is not None
        if re.fullmatch(r"[\w|]+", self.matcher):
            return value in self.matcher.split("|")
        return self.pattern.search(value) is not None if self.pattern else value == self.matcher

    def argv(self, env: Mapping[str, str]) -> list[str]:
        """The argv to run: Claude Code hooks through ``/bin/sh -c``; Hermes hooks split with
        ``shlex`` and every token expanded (``~``, ``$VAR``), without a shell."""
        if self.protocol == wire.CLAUDE:
            return ["/bin/sh", "-c", self.command]
        return [consent.expand(token, env) for token in self.tokens]

    @functools.cached_property
    def tokens(self) -> tuple[str, ...]:
        """The command split with ``shlex`` (once: the command never changes)."""
        return tuple(shlex.split(self.command))

    def cwd(self, env: Mapping[str, str]) -> str | None:
        if not self.working_dir:
            return None
        return os.path.abspath(consent.expand(self.working_dir, env))

    def scripts(self, env: Mapping[str, str]) -> list[str]:
        """The files whose hash the approval pins."""
        cwd = self.cwd(env) or os.getcwd()
        if self.protocol == wire.CLAUDE:
            return consent.files_of_shell_command(self.command, cwd, env)
        try:
            script = consent.script_of_argv(self.argv(env), cwd, env)
        except ValueError:
            return []
        return [script] if script else []

    def row(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "name": self.name,
            "source": "shell",
            "command": self.command,
            "matcher": self.matcher,
            "timeout": self.timeout,
            "protocol": self.protocol,
            "fail_closed": self.fail_closed,
            "priority": self.priority,
            "origin": self.origin,
            "configured_event": self.configured_event,
        }


# ---------------------------------------------------------------------- reading the config


class _Reader:
    """Turns config entries into :class:`ShellHook` objects, warning about every problem with
    the file, the event and the entry index."""

    def __init__(self, fail_closed_events: Iterable[str]) -> None:
        self.problems: list[str] = []
        self.hooks: list[ShellHook] = []
        self.fail_closed_events = set(fail_closed_events)
        self.tool_events = _tool_events()

    def warn(self, message: str) -> None:
        self.problems.append(message)
        log.warning("%s", message)

    def block(
        self, block: Any, origin: str, default_protocol: str, plugin_root: str | None = None
    ) -> None:
        """Read a whole ``hooks:`` mapping (Hermes or Claude Code shape)."""
        if block is None:
            return
        if not isinstance(block, Mapping):
            self.warn(f"hooks in {origin}: must be a mapping of event name to a list of hooks, "
                      f"not {type(block).__name__}; no shell hook was loaded from it")  # fmt: skip
            return
        for event_name, entries in block.items():
            name = str(event_name)
            if name in RESERVED:
                continue
            info = catalogue.get(name)
            if info is None:
                guess = catalogue.suggest(name)
                hint = f" (did you mean {guess!r}?)" if guess else ""
                self.warn(f"hooks.{name} in {origin}: unknown event {name!r}{hint}; skipped "
                          "(`hermes hooks events` lists the events)")  # fmt: skip
                continue
            if entries is None:
                continue
            if not isinstance(entries, list):
                self.warn(
                    f"hooks.{name} in {origin}: must be a list of hooks, not {type(entries).__name__}; skipped"
                )
                continue
            for index, entry in enumerate(entries):
                if isinstance(entry, Mapping) and "hooks" in entry and "command" not in entry:
                    self.claude_group(info, name, index, entry, origin, plugin_root)
                else:
                    self.entry(
                        info, name, index, entry, origin, default_protocol, None, plugin_root
                    )

    def claude_group(self, info: EventInfo, name: str, index: int, group: Mapping[str, Any], origin: str,
                     plugin_root: str | None) -> None:  # fmt: skip
        where = f"hooks.{name}[{index}] in {origin}"
        inner = group.get("hooks")
        if not isinstance(inner, list):
            self.warn(
                f"{where}: 'hooks' must be a list of {{type: command, command: ...}}; skipped"
            )
            return
        extra = set(map(str, group)) - {"matcher", "hooks"}
        if extra:
            self.warn(f"{where}: unknown key(s) {', '.join(sorted(extra))} ignored")
        for sub, entry in enumerate(inner):
            if isinstance(entry, Mapping):
                kind = entry.get("type", "command")
                if kind != "command":
                    self.warn(f"{where}.hooks[{sub}]: hook type {kind!r} is not supported (only "
                              "'command'); skipped")  # fmt: skip
                    continue
                entry = {
                    k: v for k, v in entry.items() if k not in ("type", "async", "statusMessage")
                }
                if "matcher" in group:
                    entry["matcher"] = group.get("matcher")
            self.entry(info, name, index, entry, origin, wire.CLAUDE, sub, plugin_root)

    def entry(self, info: EventInfo, name: str, index: int, raw: Any, origin: str, default_protocol: str,
              sub: int | None, plugin_root: str | None) -> None:  # fmt: skip
        where = (
            f"hooks.{name}[{index}]"
            + (f".hooks[{sub}]" if sub is not None else "")
            + f" in {origin}"
        )
        if not isinstance(raw, Mapping):
            self.warn(
                f"{where}: must be a mapping with a 'command' key, not {type(raw).__name__}; skipped"
            )
            return
        for key in raw:
            if key not in ENTRY_KEYS:
                guess = catalogue.suggest(str(key), ENTRY_KEYS)
                hint = f" (did you mean {guess!r}?)" if guess else ""
                self.warn(f"{where}: unknown key {key!r}{hint}; ignored")
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            self.warn(f"{where}: missing a non-empty 'command'; skipped")
            return
        command = command.strip()
        protocol = default_protocol
        if "protocol" in raw:
            protocol = _PROTOCOL_NAMES.get(str(raw.get("protocol")).strip().lower(), "")
            if not protocol:
                self.warn(f"{where}: protocol {raw.get('protocol')!r} is not 'hermes' or 'claude-code'; "
                          f"using {default_protocol!r}")  # fmt: skip
                protocol = default_protocol
        if protocol == wire.HERMES:
            try:
                if not shlex.split(command):
                    raise ValueError("empty")
            except ValueError as exc:
                self.warn(
                    f"{where}: command {command!r} cannot be split into words ({exc}); skipped"
                )
                return
        hook = ShellHook(
            event=info.name,
            configured_event=name,
            command=command,
            origin=origin,
            index=index,
            timeout=self.timeout(raw, where),
            fail_closed=bool(raw.get("fail_closed", False)) or info.name in self.fail_closed_events,
            priority=self.integer(raw.get("priority", 0), f"{where}: priority", 0),
            env=self.env(raw.get("env"), where),
            working_dir=self.text(raw.get("working_dir"), f"{where}: working_dir"),
            name=self.text(raw.get("name"), f"{where}: name") or command,
            protocol=protocol,
            plugin_root=plugin_root,
        )
        self.matcher(hook, info, raw.get("matcher"), where)
        self.hooks.append(hook)

    def matcher(self, hook: ShellHook, info: EventInfo, raw: Any, where: str) -> None:
        if raw is None:
            return
        if not isinstance(raw, str):
            self.warn(f"{where}: matcher must be a string, not {type(raw).__name__}; ignored")
            return
        matcher = raw.strip()
        if hook.protocol == wire.CLAUDE and matcher in ("", "*"):
            return
        if not matcher:
            return
        if info.name not in self.tool_events:
            field_name = CLAUDE_MATCH_FIELD.get(info.name) if hook.protocol == wire.CLAUDE else None
            if field_name is None:
                if hook.protocol == wire.HERMES:
                    self.warn(f"{where}: matcher {matcher!r} is ignored: {info.name} is not a tool "
                              "event, so the hook fires on every call")  # fmt: skip
                return
            hook.match_field = field_name
        hook.matcher = matcher
        try:
            hook.pattern = re.compile(matcher)
        except re.error as exc:
            self.warn(
                f"{where}: matcher {matcher!r} is not a valid regex ({exc}); matching it literally"
            )

    def timeout(self, raw: Mapping[str, Any], where: str) -> int:
        value = raw.get("timeout", DEFAULT_TIMEOUT)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.warn(
                f"{where}: timeout {value!r} is not a whole number of seconds >= 1; using {DEFAULT_TIMEOUT}"
            )
            return DEFAULT_TIMEOUT
        if value > MAX_TIMEOUT:
            self.warn(f"{where}: timeout {value} is over the maximum; clamped to {MAX_TIMEOUT}")
            return MAX_TIMEOUT
        return value

    def integer(self, value: Any, where: str, default: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.warn(f"{where} {value!r} is not an integer; using {default}")
            return default
        return value

    def text(self, value: Any, where: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            self.warn(f"{where} must be a string; ignored")
            return None
        return str(value)

    def env(self, value: Any, where: str) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.warn(f"{where}: env must be a mapping of NAME: value; ignored")
            return {}
        return {str(k): "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
                for k, v in value.items()}  # fmt: skip


def read_settings_file(path: Path, reader: _Reader) -> None:
    """Read the hooks of a Claude Code ``settings.json`` (or a plugin's ``hooks/hooks.json``)."""
    import json

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        reader.warn(f"{path}: cannot read: {exc.strerror or exc}; no shell hook was loaded from it")
        return
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        reader.warn(f"{path} at line {exc.lineno}, column {exc.colno}: JSON syntax error: {exc.msg}; "
                    "fix the file (no shell hook was loaded from it)")  # fmt: skip
        return
    if not isinstance(data, dict):
        reader.warn(f"{path}: the top level must be an object; no shell hook was loaded from it")
        return
    if data.get("disableAllHooks") is True:
        log.info("%s: disableAllHooks is true; its hooks are not loaded", path)
        return
    root = None
    if path.name == "hooks.json" and path.parent.name == "hooks":
        candidate = path.parent.parent
        if (candidate / ".claude-plugin").is_dir():
            root = str(candidate)
    reader.block(data.get("hooks"), str(path), wire.CLAUDE, plugin_root=root)


# ---------------------------------------------------------------------- one firing's report


@dataclass
class Run:
    """One hook at one firing: whether it ran, what the process did, what its answer means."""

    hook: ShellHook
    status: str  # active / unapproved / changed
    detail: str | None = None
    ran: bool = False
    outcome: process.Outcome | None = None
    answer: wire.Answer | None = None
    argv: list[str] = field(default_factory=list)
    stdin: bytes = b""


@dataclass(frozen=True)
class Consent:
    status: str
    detail: str | None
    entry: Mapping[str, Any] | None
    digest: str | None
    scripts: tuple[str, ...]


_prompt_lock = threading.Lock()


def tty_prompt(text: str) -> bool:
    """Ask on the terminal; ``True`` for yes. Default no."""
    sys.stderr.write(text)
    sys.stderr.flush()
    try:
        line = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        return False
    return line.strip().lower() in ("y", "yes")


def _interactive() -> bool:
    try:
        return sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


# ---------------------------------------------------------------------- the plugin


class ShellHooks(SourceBase):
    """The shell-hook plugin of one :class:`~hermes_hooks.manager.Hooks`."""

    def __init__(
        self, hooks: Hooks, entries: Sequence[ShellHook], problems: Sequence[str] = ()
    ) -> None:
        self.home = Path(hooks.home)
        self.problems = list(problems)
        config = hooks.config
        self.accept = bool(hooks.accept_hooks) or truthy(config.get("hooks_auto_accept"))
        self.cap = _positive_int(config.get("hooks_max_output"), process.OUTPUT_CAP)
        self.max_continues = _positive_int(
            config.get("hooks_max_stop_continues"), DEFAULT_STOP_CONTINUES, zero=True
        )
        self.allowlist = consent.Allowlist(consent.path_for(self.home))
        self.ask: Callable[[str], bool] | None = tty_prompt if _interactive() else None
        self._answered: dict[tuple[str, str | None, str], bool] = {}
        self._warned: set[tuple[str, Any]] = set()
        self._continues: dict[str, int] = {}
        self._lock = threading.Lock()
        seen: set[tuple[str, str | None, str]] = set()
        ordered: list[ShellHook] = []
        for hook in entries:
            if hook.key in seen:
                continue  # identical entries (event, matcher, command) run once
            seen.add(hook.key)
            ordered.append(hook)
        # priority moves a hook earlier among the shell hooks of its event; ties keep config order
        ordered.sort(key=lambda h: -h.priority)
        self.by_event: dict[str, list[ShellHook]] = {}
        for hook in ordered:
            self.by_event.setdefault(hook.event, []).append(hook)
        for event in self.by_event:
            setattr(self, event, self._impl(event))

    # -------------------------------------------------------------- pluggy glue

    def _impl(self, event: str) -> Callable[..., Any]:
        info = catalogue.events()[event]

        @hookimpl(trylast=True)
        def impl(**kwargs: Any) -> Any:
            return self.fire(info, kwargs)

        impl.__name__ = impl.__qualname__ = f"shell_hooks.{event}"
        return impl

    @property
    def all_hooks(self) -> list[ShellHook]:
        return [h for hooks in self.by_event.values() for h in hooks]

    # -------------------------------------------------------------- environment

    def environment(
        self,
        info: EventInfo,
        hook: ShellHook,
        kwargs: Mapping[str, Any],
        cwd: str,
        base: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        env = dict(base if base is not None else os.environ)
        env["HERMES_HOOK_EVENT"] = info.name
        env["HERMES_HOME"] = str(self.home)
        session = kwargs.get("session_id") or kwargs.get("parent_session_id") or ""
        env["HERMES_SESSION_ID"] = str(session)
        if hook.protocol == wire.CLAUDE:
            env.setdefault("CLAUDE_PROJECT_DIR", cwd)
            if hook.plugin_root:
                env["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
        if info.name == "on_session_start" and "CLAUDE_ENV_FILE" not in os.environ and session:
            env["CLAUDE_ENV_FILE"] = str(self._env_file(str(session), create=True))
        env.update(hook.env)
        return env

    def static_env(self, hook: ShellHook) -> dict[str, str]:
        """The environment a hook gets, without the per-firing variables (for consent checks
        outside a firing: listing, approving)."""
        env = dict(os.environ)
        env["HERMES_HOME"] = str(self.home)
        if hook.protocol == wire.CLAUDE:
            env.setdefault("CLAUDE_PROJECT_DIR", os.getcwd())
            if hook.plugin_root:
                env["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
        env.update(hook.env)
        return env

    def _env_file(self, session_id: str, *, create: bool = False) -> Path:
        safe = re.sub(r"[^\w.-]", "_", session_id)[:128] or "session"
        path = self.home / "shell-hooks-env" / f"{safe}.sh"
        if create and not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
            os.close(fd)
        return path

    def session_env(self, session_id: str) -> dict[str, str]:
        """The variables ``SessionStart`` hooks exported to their ``CLAUDE_ENV_FILE``."""
        path = self._env_file(session_id)
        if not path.is_file():
            host_file = os.environ.get("CLAUDE_ENV_FILE")
            if not host_file:
                return {}
            path = Path(host_file)
        return parse_env_file(path)

    # -------------------------------------------------------------- consent

    def consent(self, hook: ShellHook, env: Mapping[str, str] | None = None) -> Consent:
        """Whether ``hook`` may run now: active, unapproved or changed (and why)."""
        env = env if env is not None else self.static_env(hook)
        scripts = tuple(hook.scripts(env))
        digest = consent.digest_of(scripts)
        candidates = [
            e
            for e in self.allowlist.entries()
            if e.get("command") == hook.command and _event_of(e.get("event")) == hook.event
        ]
        if not candidates:
            return Consent("unapproved", "not approved yet", None, digest, scripts)
        entry = _pick(candidates, hook.matcher)
        if entry is None:
            approved = [e.get("matcher") for e in candidates]
            return Consent(
                "changed",
                f"matcher widened since approval (approved {', '.join(repr(m) for m in approved)}, "
                f"now {hook.matcher!r}); approve it again",
                candidates[0],
                digest,
                scripts,
            )
        if "sha256" in entry and entry.get("sha256") != digest:
            what = ", ".join(scripts) or "the script"
            if digest is None and entry.get("sha256"):
                detail = f"{what} is missing since approval"
            else:
                detail = f"{what} changed since approval; review it and approve it again"
            return Consent("changed", detail, entry, digest, scripts)
        return Consent("active", None, entry, digest, scripts)

    def _permit(self, hook: ShellHook, env: Mapping[str, str]) -> Consent:
        """Consent at firing time: pins Hermes entries, asks on a TTY, warns once."""
        state = self.consent(hook, env)
        if state.status == "active":
            entry = state.entry
            assert entry is not None
            if "sha256" not in entry or "matcher" not in entry:
                self._pin(hook, state)
            return state
        if state.status == "changed":
            self._warn_once(("changed", hook.key), f"shell hook {hook.name!r} ({hook.where}) not run: "
                            f"{state.detail}: `hermes hooks approve {shlex.quote(hook.command)}`")  # fmt: skip
            return state
        ask = self.ask
        if ask is None:
            return state
        with _prompt_lock:
            if hook.key not in self._answered:
                self._answered[hook.key] = ask(self._question(hook, state))
                if self._answered[hook.key]:
                    self.approve([hook])
        if self._answered[hook.key]:
            return self.consent(hook, env)
        return state

    def _question(self, hook: ShellHook, state: Consent) -> str:
        scripts = ", ".join(state.scripts) or "(none: the command itself is pinned)"
        return (
            "\nA shell hook wants to run with your user's rights:\n"
            f"  event:   {hook.event}\n  command: {hook.command}\n"
            f"  matcher: {hook.matcher or '(every call)'}\n  script:  {scripts}\n"
            f"  sha256:  {state.digest or '-'}\n  from:    {hook.where}\n"
            "Allow it? [y/N] "
        )

    def _pin(self, hook: ShellHook, state: Consent) -> None:
        entry = dict(state.entry or {})
        entry.setdefault("matcher", hook.matcher)
        entry["sha256"] = state.digest
        self.allowlist.approve([entry])
        log.warning(
            "shell hook %r: approval written by Hermes now pinned to %s (sha256 %s)",
            hook.name,
            ", ".join(state.scripts) or "the command",
            state.digest or "-",
        )

    def approve(self, hooks: Iterable[ShellHook]) -> list[ShellHook]:
        """Record approvals of ``hooks`` (pinning each script's current hash); return them."""
        records = []
        done = []
        for hook in hooks:
            state = self.consent(hook)
            script = state.scripts[0] if state.scripts else None
            records.append(
                consent.record(hook.event, hook.command, hook.matcher, state.digest, script)
            )
            done.append(hook)
        if records:
            self.allowlist.approve(records)
        return done

    def startup(self) -> None:
        """At load: approve everything when told to, else warn once about unapproved hooks."""
        pending = [h for h in self.all_hooks if self.consent(h).status != "active"]
        if not pending:
            return
        if self.accept:
            for hook in pending:
                state = self.consent(hook)
                if state.status == "changed":
                    log.warning("shell hook %r: %s; re-approved because hooks are auto-accepted",
                                hook.name, state.detail)  # fmt: skip
            self.approve(pending)
            return
        if self.ask is not None:
            return  # asked on a terminal the first time each one would run
        unapproved = [h for h in pending if self.consent(h).status == "unapproved"]
        if unapproved:
            names = "; ".join(f"{h.event}: {h.command}" for h in unapproved)
            log.warning(
                "%d shell hook(s) are not approved and will not run (%s). Approve them with "
                "`hermes hooks approve --all` (or `hermes hooks approve COMMAND`), or start with "
                "--accept-hooks, HERMES_ACCEPT_HOOKS=1 or `hooks_auto_accept: true` in config.yaml",
                len(unapproved),
                names,
            )

    def _warn_once(self, key: tuple[str, Any], message: str) -> None:
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        log.warning("%s", message)

    # -------------------------------------------------------------- listing

    def fail_closed_on(self, event: str) -> bool:
        return any(h.fail_closed for h in self.by_event.get(event, ()))

    def rows(self) -> list[dict[str, Any]]:
        """One row per shell hook for ``hermes hooks list``."""
        rows = []
        for hook in self.all_hooks:
            state = self.consent(hook)
            entry = state.entry or {}
            row = hook.row()
            row.update(
                status=state.status,
                error=state.detail if state.status != "active" else None,
                approved_at=entry.get("approved_at"),
                sha256=state.digest,
                scripts=list(state.scripts),
            )
            rows.append(row)
        return rows

    # -------------------------------------------------------------- firing

    def matching(self, event: str, kwargs: Mapping[str, Any]) -> list[ShellHook]:
        """The hooks of ``event`` whose matcher accepts these arguments, in run order."""
        return [h for h in self.by_event.get(event, ()) if h.matches(kwargs)]

    def execute(
        self,
        info: EventInfo,
        kwargs: Mapping[str, Any],
        hooks: Sequence[ShellHook] | None = None,
        *,
        force: bool = False,
    ) -> list[Run]:
        """Run the matching hooks of one event at once; reports in config order.

        Unapproved or changed hooks are reported and not run, unless ``force``.
        """
        hooks = self.matching(info.name, kwargs) if hooks is None else hooks
        if not hooks:
            return []
        cwd = os.getcwd()
        encoded: dict[str, bytes] = {}
        runs: list[Run] = []
        commands: list[process.Command] = []
        started: list[Run] = []
        base = dict(os.environ)  # copied once per firing: os.environ is slow to iterate
        for hook in hooks:
            env = self.environment(info, hook, kwargs, cwd, base)
            state = self.consent(hook, env) if force else self._permit(hook, env)
            run = Run(hook, state.status, state.detail)
            runs.append(run)
            if state.status != "active" and not force:
                continue
            if hook.protocol not in encoded:
                payload = (
                    wire.claude_payload(info, kwargs, cwd)
                    if hook.protocol == wire.CLAUDE
                    else wire.hermes_payload(info.name, kwargs, cwd)
                )
                encoded[hook.protocol] = wire.encode(payload)
            run.stdin = encoded[hook.protocol]
            try:
                run.argv = hook.argv(env)
            except ValueError as exc:
                run.ran = True
                run.outcome = process.Outcome(error=f"cannot split the command: {exc}")
                continue
            workdir = hook.cwd(env)
            if workdir is not None and not os.path.isdir(workdir):
                run.ran = True
                run.outcome = process.Outcome(error=f"working_dir {workdir} does not exist")
                continue
            commands.append(
                process.Command(
                    run.argv, run.stdin, timeout=hook.timeout, env=env, cwd=workdir, cap=self.cap
                )
            )
            started.append(run)
        for run, outcome in zip(started, process.run_many(commands), strict=True):
            run.ran = True
            run.outcome = outcome
        for run in runs:
            if run.ran:
                assert run.outcome is not None
                run.answer = self._answer(info, run.hook, run.outcome, kwargs)
        return runs

    def _answer(
        self, info: EventInfo, hook: ShellHook, out: process.Outcome, kwargs: Mapping[str, Any]
    ) -> wire.Answer:
        failure = out.error
        if out.timed_out:
            failure = f"timed out after {hook.timeout}s (its process group was killed)"
        elif out.truncated:
            failure = f"output over the {self.cap}-byte cap (cut; its process group was killed)"
        answer = wire.parse(
            info,
            hook.protocol,
            out.returncode,
            out.stdout,
            out.stderr,
            source=hook.name,
            fail_closed=hook.fail_closed,
            failure=failure,
            tool_name=kwargs.get("tool_name"),
        )
        if answer.failure:
            log.warning("shell hook %r on %s failed: %s%s", hook.name, info.name, answer.failure,
                        " (fail_closed: blocked)" if answer.value is not None else "")  # fmt: skip
        if answer.warning:
            self._warn_once(
                ("warning", hook.key, answer.warning[:60]),
                f"shell hook {hook.name!r} on {info.name}: {answer.warning}",
            )
        return answer

    def fire(self, info: EventInfo, kwargs: dict[str, Any]) -> Any:
        """Run the event's shell hooks and combine their answers with the event's rule."""
        if info.kind == "transform":
            return self._pipeline(info, kwargs)
        if info.name == "pre_verify":
            return self._verify(info, kwargs)
        return combine(info, self.execute(info, kwargs), kwargs)

    def _pipeline(self, info: EventInfo, kwargs: dict[str, Any]) -> Any:
        # A transform is a pipeline by definition: each hook sees the value the previous left.
        assert info.value is not None
        current = dict(kwargs)
        changed = False
        for hook in self.matching(info.name, kwargs):
            for run in self.execute(info, current, [hook]):
                value = run.answer.value if run.answer else None
                if value is not None:
                    current[info.value] = value
                    changed = True
        return current[info.value] if changed else None

    def _verify(self, info: EventInfo, kwargs: dict[str, Any]) -> Any:
        session = str(kwargs.get("session_id") or "")
        attempt = kwargs.get("attempt")
        count = (
            attempt
            if isinstance(attempt, int) and not isinstance(attempt, bool)
            else self._continues.get(session, 0)
        )
        if count >= self.max_continues:
            self._continues.pop(session, None)
            log.warning("pre_verify: shell hooks already kept the agent going %d time(s) this turn "
                        "(hooks_max_stop_continues); letting it stop", count)  # fmt: skip
            return None
        payload = dict(kwargs)
        payload["stop_hook_active"] = bool(kwargs.get("stop_hook_active")) or count > 0
        answer = combine(info, self.execute(info, payload), payload)
        if answer is None:
            self._continues.pop(session, None)
        else:
            self._continues[session] = count + 1
        return answer


# ---------------------------------------------------------------------- combining


def combine(info: EventInfo, runs: Sequence[Run], kwargs: Mapping[str, Any]) -> Any:
    """The answers of one firing, combined in config order with the event's rule (``None``
    when no hook answered)."""
    values = [r.answer.value for r in runs if r.answer is not None and r.answer.value is not None]
    return info.answer.combine(values, kwargs) if values else None


# ---------------------------------------------------------------------- helpers


def _event_of(name: Any) -> str | None:
    info = catalogue.get(str(name)) if name is not None else None
    return info.name if info else None


def _pick(entries: Sequence[Mapping[str, Any]], matcher: str | None) -> Mapping[str, Any] | None:
    same = [
        e for e in entries if "matcher" in e and (e.get("matcher") or None) == (matcher or None)
    ]
    if same:
        return same[-1]
    wider = [e for e in entries if "matcher" in e and consent.covers(e.get("matcher"), matcher)]
    if wider:
        return wider[-1]
    legacy = [e for e in entries if "matcher" not in e]  # Hermes keyed approvals by event+command
    return legacy[-1] if legacy else None


def _positive_int(value: Any, default: int, *, zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        return default
    return value if value > 0 or (zero and value == 0) else default


def parse_env_file(path: Path) -> dict[str, str]:
    """``export NAME=value`` / ``NAME=value`` lines of a ``CLAUDE_ENV_FILE``, shell quoting
    removed and ``$VAR`` expanded with the environment and the earlier lines."""
    out: dict[str, str] = {}
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].strip()
        name, sep, value = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name):
            continue
        try:
            words = shlex.split(value, comments=True)
        except ValueError:
            words = [value]
        out[name] = consent.expand(" ".join(words), {**os.environ, **out})
    return out


def load_entries(hooks: Hooks) -> tuple[list[ShellHook], list[str]]:
    """Every shell hook the config declares: ``hooks:`` of config.yaml, then ``settings.json``
    files (``<home>/settings.json`` and ``hooks_settings_files``)."""
    config = hooks.config
    reader = _Reader(hooks.fail_closed_events)
    origin = str(hooks.config_path) if hooks.config_path else "the host's config"
    reader.block(config.get("hooks"), origin, wire.HERMES)
    files: list[Path] = []
    default = hooks.home / "settings.json"
    if default.is_file():
        files.append(default)
    listed = config.get("hooks_settings_files")
    if isinstance(listed, str):
        listed = [listed]
    if listed is not None and not isinstance(listed, list):
        reader.warn(f"hooks_settings_files in {origin}: must be a list of paths; ignored")
        listed = []
    base = hooks.config_path.parent if hooks.config_path else hooks.home
    for item in listed or []:
        path = Path(os.path.expandvars(os.path.expanduser(str(item))))
        if not path.is_absolute():
            path = base / path
        if path not in files:
            files.append(path)
    for path in files:
        read_settings_file(path, reader)
    return reader.hooks, reader.problems


def setup(hooks: Hooks) -> ShellHooks | None:
    """The built-in plugin's entry point: ``None`` when there is no shell hook (or safe mode)."""
    if hooks.safe_mode:
        return None
    entries, problems = load_entries(hooks)
    if not entries:
        return None
    plugin = ShellHooks(hooks, entries, problems)
    plugin.startup()
    return plugin
