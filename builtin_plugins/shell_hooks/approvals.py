"""Internal: part of the built-ins (docs/builtins.md), not an API.

Consent for shell hooks: whether a hook may run (approved, unapproved, changed), the question
asked on a terminal (again when a hook changed, showing what changed), pinning approvals to the
hashes of the files that run as code, the warnings at start, and the one report, on the terminal
and in the log, of a hook that was withheld or changed its own pinned file.

The allowlist itself (its file, hashing, resolving what a command runs) is
:mod:`.consent`; this module applies it to configured hooks.
"""

from __future__ import annotations

import dataclasses
import logging
import shlex
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_hooks.terminal import TELL, shown, tell

from . import consent
from .matching import ShellHook

log = logging.getLogger("hermes_hooks")

#: Asks a yes/no question; ``True`` for yes.
Ask = Callable[[str], bool]


@dataclass(frozen=True)
class Consent:
    """Whether one hook may run now, and what its approval pins."""

    status: str  # active / unapproved / changed / unpinned / refused (an http URL)
    detail: str | None
    entry: Mapping[str, Any] | None
    digest: str | None
    scripts: tuple[str, ...]
    #: Why the script that runs cannot be identified (``None``: it is pinned).
    unpinned: str | None = None
    #: A person was asked to approve it (now, as it is) and said no.
    declined: bool = False


#: The states in which a hook that runs code is withheld: nobody approved it as it is now.
WITHHELD = frozenset({"unapproved", "changed", "unpinned"})

_prompt_lock = threading.Lock()


class Question(str):
    """The approval question (a plain string for a host's own prompt), carrying the scripts it
    is about so a terminal prompt can show them before the answer."""

    scripts: tuple[str, ...] = ()


def tty_prompt(text: str) -> bool:
    """Ask on the terminal; ``True`` for yes. Default no. ``s`` shows the script(s) first."""
    scripts = getattr(text, "scripts", ())
    while True:
        sys.stderr.write(text)
        sys.stderr.flush()
        try:
            line = sys.stdin.readline()
        except (OSError, KeyboardInterrupt):
            return False
        answer = line.strip().lower()
        if answer in ("s", "show") and scripts:
            for path in scripts:
                sys.stderr.write(f"\n----- {path} -----\n{_head(path)}\n----- end -----\n")
            continue
        return answer in ("y", "yes")


def _head(path: str, limit: int = 200) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        return f"(cannot read it: {exc.strerror or exc})"
    more = f"\n... ({len(lines) - limit} more lines)" if len(lines) > limit else ""
    return "\n".join(lines[:limit]) + more


def interactive() -> bool:
    """Whether a person can be asked (stdin and stderr are a terminal)."""
    try:
        return sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def question(hook: ShellHook, state: Consent) -> str:
    """The question that asks a person to approve ``hook`` (every field shown escaped: a
    command must not repaint itself as something else): the files its approval pins, and for
    a hook approved before, what changed since."""
    if not hook.runs_code:  # an http or prompt hook of a project's file
        options = hook.options
        from .judge import base_url  # here: command hooks alone never import the judge

        to = options.get("url") or base_url(options)
        text = Question(
            f"\nA project's {hook.kind} hook wants to answer {shown(hook.event)} for you (an "
            "allow skips your approval prompt):\n"
            f"  event:   {shown(hook.event)}\n  hook:    {shown(hook.command)}\n"
            f"  matcher: {shown(hook.matcher or '(every call)')}\n  sends the payload to: "
            f"{shown(str(to))}\n  from:    {shown(hook.where)}\nAllow it? [y/N] "
        )
        return text
    pins = "".join(
        f"\n    {consent.file_sha256(p) or 'missing':.12}  {shown(p)}" for p in state.scripts
    )
    pinned = pins or " (none)"
    if state.unpinned:
        pinned += "\n  UNPINNED: " + shown(state.unpinned)
    changed = ""
    if state.status == "changed":  # the detail names each pinned file that changed
        changed = f"  CHANGED: {shown(state.detail)}\n"
    text = Question(
        ("\nA shell hook changed since you approved it; it wants to run with your user's rights:\n"
         if state.status == "changed" else
         "\nA shell hook wants to run with your user's rights:\n")
        + changed
        + f"  event:   {shown(hook.event)}\n  command: {shown(hook.command)}\n"
        f"  matcher: {shown(hook.matcher or '(every call)')}\n"
        f"  pins (what runs as code; approving pins these files' sha256):{pinned}\n"
        f"  sha256:  {state.digest or '-'}\n  from:    {shown(hook.where)}\n"
        + ("Allow it? [y/N] (s: show the script) " if state.scripts else "Allow it? [y/N] ")
    )  # fmt: skip
    text.scripts = tuple(state.scripts)
    return text


def differences(entry: Mapping[str, Any] | None, scripts: Sequence[str]) -> list[str]:
    """What changed in the pinned files since ``entry`` was approved, one line per file (an
    approval records each file's sha256 under ``pinned``; older ones only their joint hash)."""
    before = entry.get("pinned") if entry is not None else None
    if not isinstance(before, Mapping):
        return []
    lines = []
    for path in scripts:
        now = consent.file_sha256(path)
        if path not in before:
            lines.append(f"now pinned: {path}" + ("" if now else " (missing)"))
        elif now is None:
            lines.append(f"missing: {path}")
        elif before[path] != now:
            lines.append(f"changed: {path} (sha256 {str(before[path])[:12]} -> {now[:12]})")
    lines.extend(f"no longer pinned: {path}" for path in before if path not in scripts)
    return lines


class Approvals:
    """The approvals of one home's shell hooks.

    ``event_of`` turns an allowlist entry's event (ours or an alias) into our name;
    ``static_env`` gives a hook's environment outside a firing (listing, approving).
    """

    def __init__(
        self,
        home: Path,
        event_of: Callable[[Any], str | None],
        static_env: Callable[[ShellHook], dict[str, str]],
        *,
        accept: bool = False,
        ask: Ask | None = None,
    ) -> None:
        self.allowlist = consent.Allowlist(consent.path_for(home))
        self.accept = accept
        #: Asks a person at the first firing of an unapproved hook (``None``: nobody to ask).
        self.ask = ask
        self._event_of = event_of
        self._static_env = static_env
        self._answered: dict[tuple[Any, ...], bool] = {}
        #: Every configured hook (set by the source): entries that share event, matcher and
        #: command but differ in env, working dir or protocol keep an approval each.
        self.configured: Callable[[], Sequence[ShellHook]] = lambda: ()
        self._warned: set[tuple[Any, ...]] = set()
        self._lock = threading.Lock()
        #: Pinned files a hook changed while it ran (path: the hook's name), this process.
        self.self_changed: dict[str, str] = {}

    def consent(self, hook: ShellHook, env: Mapping[str, str] | None = None) -> Consent:
        """Whether ``hook`` may run now: active, unapproved or changed (and why)."""
        refused = hook.options.get("refused")
        if refused:  # a URL outside allowed_http_hook_urls: no approval lets the payload go
            return Consent("refused", refused, None, None, ())
        if not hook.needs_approval:
            # An http or prompt hook of the user's own config: no code runs here, and the URL
            # allow-list its entry was checked against is its gate (kinds.py).
            return Consent("active", None, None, None, ())
        env = env if env is not None else self._static_env(hook)
        pins = hook.pins(env)
        scripts = pins.files
        digest = consent.digest_of(scripts)
        entries = self.allowlist.entries()
        candidates = [
            e
            for e in entries
            if e.get("command") == hook.command and self._event_of(e.get("event")) == hook.event
        ]
        if not candidates and not hook.runs_code:
            # an http or prompt entry approved where it stands, edited since (its label holds
            # the prompt and model, so the edit is a new command): changed, not new
            before = [e for e in entries if e.get("place") == hook.where
                      and self._event_of(e.get("event")) == hook.event]  # fmt: skip
            if before:
                detail = (f"its {'url' if hook.kind == 'http' else 'prompt or model'} changed "
                          f"since approval (approved: {shown(str(before[-1].get('command')))}); "
                          "review it and approve it again")  # fmt: skip
                return Consent("changed", detail, before[-1], digest, scripts)
        if not candidates:
            why = "not approved yet" + (f" (unpinned: {pins.unpinned})" if pins.unpinned else "")
            return Consent("unapproved", why, None, digest, scripts, pins.unpinned)
        entry = _pick(candidates, hook.matcher, hook.binding)
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
        if entry.get("binding") not in (None, hook.binding):
            detail = (
                "its protocol, env, working_dir or pin changed since approval; approve it again"
                if hook.runs_code
                else f"its {'url, headers' if hook.kind == 'http' else 'base_url, model, prompt'}"
                " or protocol changed since approval; review it and approve it again"
            )
            return Consent("changed", detail, entry, digest, scripts, pins.unpinned)
        if pins.unpinned and entry.get("unpinned") is not True:
            detail = (f"{pins.unpinned}; it runs only with an explicit approval: "
                      f"`hermes hooks approve --unpinned {shlex.quote(hook.command)}`")  # fmt: skip
            return Consent("unpinned", detail, entry, digest, scripts, pins.unpinned)
        if "sha256" in entry and entry.get("sha256") != digest:
            what = ", ".join(scripts) or "the script"
            own = [p for p in scripts if p in self.self_changed]
            if own:
                detail = (f"the hook itself changed its pinned file {', '.join(own)} while it "
                          "ran; review it and approve it again (a file a hook writes is data: "
                          "do not list it under pin:)")  # fmt: skip
            elif digest is None and entry.get("sha256"):
                detail = f"{what} is missing since approval"
            else:
                found = "; ".join(differences(entry, scripts))
                detail = (f"{what} changed since approval{f' ({found})' if found else ''}; "
                          "review it and approve it again")  # fmt: skip
            return Consent("changed", detail, entry, digest, scripts, pins.unpinned)
        if "sha256" not in entry and consent.modified_since(
            pins.script, entry.get("script_mtime_at_approval")
        ):
            detail = (f"{pins.script} was modified after Hermes approved it "
                      f"(script_mtime_at_approval {entry.get('script_mtime_at_approval')}); "
                      "review it and approve it again")  # fmt: skip
            return Consent("changed", detail, entry, digest, scripts, pins.unpinned)
        return Consent("active", None, entry, digest, scripts, pins.unpinned)

    def permit(self, hook: ShellHook, env: Mapping[str, str]) -> Consent:
        """Consent at firing time: pins approvals Hermes wrote; a hook not approved as it is now
        (unapproved, changed, unpinned) is asked about when a person can be asked (once per hook
        and version: a "no" is remembered while the file stays as it is)."""
        state = self.consent(hook, env)
        if state.status == "active":
            entry = state.entry
            assert entry is not None
            if "sha256" not in entry or "matcher" not in entry or "binding" not in entry:
                self._pin(hook, state)
            return state
        ask = self.ask
        if ask is None or state.status not in WITHHELD:
            return state
        key = (*hook.approval_key, hook.binding, state.status, state.digest)
        with _prompt_lock:
            if key not in self._answered:
                self._answered[key] = ask(question(hook, state))
                if self._answered[key]:
                    self.approve([hook], unpinned=bool(state.unpinned))
        if self._answered[key]:
            return self.consent(hook, env)
        return dataclasses.replace(state, declined=True)

    def withheld(
        self, hook: ShellHook, state: Consent, event: str, blocks: bool, *, loud: bool = True
    ) -> None:
        """Report, once per hook and version, that ``hook`` was not run at a firing of
        ``event`` (``blocks``: what it guards is blocked instead), with the fix."""
        fix = state.detail if state.status == "unpinned" else f"{state.detail}; {hook.remedy}"
        if state.declined:
            outcome = "you declined it, so it is skipped"
        elif blocks:
            outcome = (f"it guards {event}, which can block, so every {event} it matches is "
                       "blocked until it is approved")  # fmt: skip
        else:
            outcome = f"skipped ({event} cannot block)"
        self.warn_once(("withheld", hook.key, state.status, state.digest),
                       f"shell hook {hook.name!r} ({hook.where}) not run: {outcome}: {fix}",
                       loud=loud)  # fmt: skip

    def pinned_now(self, scripts: Sequence[str]) -> dict[str, str | None]:
        """The sha256 of each pinned file now (cached while the file is unchanged)."""
        return {path: consent.file_sha256(path) for path in scripts}

    def ran(self, hook: ShellHook, before: Mapping[str, str | None], event: str) -> str | None:
        """After ``hook`` ran: the pinned files it changed itself, reported once (terminal and
        log) and remembered so that its consent says so; ``None`` when it changed none."""
        own = [p for p, digest in before.items() if consent.file_sha256(p) != digest]
        if not own:
            return None
        with self._lock:
            self.self_changed.update((p, hook.name) for p in own)
        message = (
            f"shell hook {hook.name!r} ({hook.where}) changed its own pinned file "
            f"{', '.join(own)} while it ran on {event}: it is 'changed' from now on and will not "
            f"run until approved again. If the file is data the hook writes (a log, a state "
            f"file), take it out of pin: and approve it again: {hook.approve_command}"
        )
        self.warn_once(("self-changed", hook.key, *own), message, loud=True)
        return message

    def _pin(self, hook: ShellHook, state: Consent) -> None:
        entry = dict(state.entry or {})
        entry.setdefault("matcher", hook.matcher)
        entry["sha256"] = state.digest
        entry["pinned"] = self.pinned_now(state.scripts)
        entry["binding"] = hook.binding
        self.allowlist.approve([entry], keep=self._siblings())
        log.warning(
            "shell hook %r: approval written by Hermes now pinned to %s (sha256 %s)",
            hook.name,
            ", ".join(state.scripts) or "the command",
            state.digest or "-",
        )

    def approve(self, hooks: Iterable[ShellHook], *, unpinned: bool = False) -> list[ShellHook]:
        """Record approvals of ``hooks`` (pinning each script's current hash); return the ones
        approved. A hook whose script cannot be identified is approved only with
        ``unpinned``."""
        records = []
        done = []
        for hook in hooks:
            if not hook.needs_approval:
                continue  # nothing to approve: see consent()
            state = self.consent(hook)
            if state.unpinned and not unpinned:
                continue
            script = state.scripts[0] if state.scripts else None
            rec = consent.record(hook.event, hook.command, hook.matcher, state.digest, script)
            rec["binding"] = hook.binding
            if not hook.runs_code:
                rec["place"] = hook.where  # an edit of the entry is then 'changed' (consent())
            rec["pinned"] = self.pinned_now(state.scripts)
            if state.unpinned:
                rec["unpinned"] = True
            records.append(rec)
            done.append(hook)
            with self._lock:
                for path in state.scripts:  # approved as it is now: a fresh start
                    self.self_changed.pop(path, None)
        if records:
            self.allowlist.approve(records, keep=self._siblings())
        return done

    def _siblings(self) -> Callable[[Mapping[str, Any]], Collection[str]]:
        """For an approval record, the bindings of the configured hooks with its event, matcher
        and command: their approvals stay when it is written (each is a hook of its own)."""
        live: dict[tuple[Any, ...], set[str]] = {}
        for hook in self.configured():
            live.setdefault(hook.approval_key, set()).add(hook.binding)
        return lambda rec: live.get((rec.get("event"), rec.get("matcher"), rec.get("command")), ())

    def startup(self, hooks: Sequence[ShellHook]) -> None:
        """At load: approve everything when told to, else warn once about unapproved hooks."""
        pending = [h for h in hooks if h.needs_approval and self.consent(h).status != "active"]
        if not pending:
            return
        if self.accept:
            for hook in pending:
                state = self.consent(hook)
                if state.status == "changed":
                    log.warning("shell hook %r: %s; re-approved because hooks are auto-accepted",
                                hook.name, state.detail)  # fmt: skip
            self.approve(pending, unpinned=True)
            return
        if self.ask is not None:
            return  # asked on a terminal the first time each one would run
        names = "; ".join(f"{h.event}: {h.command} ({self.consent(h).status})" for h in pending)
        log.warning(
            f"{len(pending)} shell hook(s) are not approved as they are now and will not run; "
            f"on an event that can block, the calls they match are blocked ({names}). Approve "
            "them with `hermes hooks approve --all` (or `hermes hooks approve COMMAND`), or start "
            "with --accept-hooks, HERMES_ACCEPT_HOOKS=1 or `hooks_auto_accept: true` in config.yaml"
            " (each is reported again, on the terminal too, the first time it would run)"
        )

    def warn_once(
        self, key: tuple[Any, ...], message: str, *, loud: bool = False, guard: bool = False
    ) -> None:
        """Log ``message`` the first time ``key`` is seen (``loud``: on the terminal too;
        ``guard``: a guard that did not guard, which a host shows on its terminal)."""
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        if loud:
            tell(message)
        else:
            log.warning("%s", message, extra=TELL if guard else None)


def revoke(home: Path, command: str) -> int:
    """Remove every approval of ``command`` (any event, any matcher) from ``home``'s allowlist;
    return how many were removed."""
    return consent.Allowlist(consent.path_for(home)).revoke(command)


def _pick(
    entries: Sequence[Mapping[str, Any]], matcher: str | None, binding: str
) -> Mapping[str, Any] | None:
    same = [
        e for e in entries if "matcher" in e and (e.get("matcher") or None) == (matcher or None)
    ]
    if same:
        return _bound(same, binding)
    wider = [e for e in entries if "matcher" in e and consent.covers(e.get("matcher"), matcher)]
    if wider:
        return _bound(wider, binding)
    legacy = [e for e in entries if "matcher" not in e]  # Hermes keyed approvals by event+command
    return legacy[-1] if legacy else None


def _bound(entries: Sequence[Mapping[str, Any]], binding: str) -> Mapping[str, Any]:
    """The latest of ``entries`` approved with ``binding`` (two hooks may share a command and
    differ in env, working dir or protocol), else the latest."""
    exact = [e for e in entries if e.get("binding") == binding]
    return (exact or entries)[-1]
