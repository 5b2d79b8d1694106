"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks doctor`` and ``hermes hooks verify``: is every hook in place, and does every
guard still enforce what it should.

``doctor`` checks every source: the config (errors and misspelt keys), Python plugins (import
errors with file and line), gateway hooks, built-ins, shell hooks (runnable, approved, unchanged,
answering a synthetic payload validly), and required guards. It exits 1 when anything is wrong.
``verify`` fires every canary through the runtime's dispatcher and exits 1 on a miss.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from ..terminal import echo
from . import State, _logging, paint
from .shell import _runtime

if TYPE_CHECKING:
    from ..builtin_plugins.shell_hooks import ShellHooks
    from ..hooks import Hooks

log = logging.getLogger("hermes_hooks")


@dataclass
class Check:
    """One thing doctor looked at: a plugin, a hook, the config, a guard."""

    kind: str  # config / plugin / gateway / builtin / shell / required
    name: str
    lines: list[tuple[bool, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(flag for flag, _ in self.lines)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "ok": self.ok,
            "problems": [text for flag, text in self.lines if not flag],
            "notes": [text for flag, text in self.lines if flag],
        }


def _config(hooks: Hooks, source: ShellHooks | None) -> list[Check]:
    from ..builtin_plugins.shell_hooks import load_entries

    where = str(hooks.config_path or hooks.home / "config.yaml")
    check = Check("config", where)
    check.lines += [(False, error) for error in hooks.config_errors]
    check.lines += [(False, warning) for warning in hooks.config_warnings]
    if source is not None:
        check.lines += [(False, problem) for problem in source.problems]
    elif not hooks.safe_mode and not hooks.config_errors:
        check.lines += [(False, problem) for problem in load_entries(hooks)[1]]
    if hooks.safe_mode:
        check.lines.append((True, "HERMES_SAFE_MODE is on: no plugin, shell or gateway hook runs"))
    if check.ok:
        check.lines.append((True, "readable" if hooks.config_path else "no config file"))
    return [check]


def _plugins(hooks: Hooks, shell: ShellHooks | None) -> list[Check]:
    out = []
    for record in hooks.records.values():
        if record.parent is not None or (shell is not None and record.hook_source is shell):
            continue  # the shell source's hooks are checked one by one (_shell)
        kind = {"gateway": "gateway", "builtin": "builtin"}.get(record.source, "plugin")
        check = Check(kind, record.name)
        where = f" ({record.source}: {record.path})" if record.path else f" ({record.source})"
        if record.status == "failed":
            check.lines.append((False, f"failed to load{where}: {record.error}"))
        elif record.status == "active":
            check.lines.append((True, f"loaded{where}"))
        else:
            check.lines.append((True, f"{record.status}{where}: {record.error}"))
        for (name, event), count in hooks.failures.items():
            if name == record.name and count:
                check.lines.append((False, f"raised or overran its time limit {count} time(s) "
                                           f"on {event}"))  # fmt: skip
        for (name, event), count in hooks.dropped.items():
            if name == record.name and count:
                check.lines.append((False, f"its answer on {event} was ignored {count} time(s) "
                                           "(the log says why)"))  # fmt: skip
        check.lines += _unknown_hooks(hooks, record.name)
        if record.source == "builtin" and record.hook_source is not None:
            # what a built-in found wrong with its own configuration (a rule file, ...)
            errors = (r.get("error") for r in record.hook_source.rows())
            check.lines += [(False, str(e)) for e in dict.fromkeys(errors) if e]
        out.append(check)
    return out


def _exercise(hooks: Hooks) -> None:
    """Fire once, with the event's example payload, every event that can block on which a
    Python plugin or a gateway hook has a hook (as each shell hook answers a synthetic payload
    in :func:`_shell`): one that raises, overruns its time limit or answers what the event
    cannot read is then counted in ``hooks.failures`` / ``hooks.dropped`` and shown by
    :func:`_plugins`. A guard that only fails when it runs must not pass the doctor."""
    from ..dispatch import Dispatcher
    from ..manager import Route
    from .firing import payload_for

    # Only those hooks: the built-ins (http_post, snapshot, shell hooks, ...) are not fired with
    # a made-up payload (their side effects are real; shell hooks are run one by one in _shell).
    dispatcher = Dispatcher(hooks.manager)
    for info in hooks.manager.events.values():
        if not info.answer.can_block:
            continue
        plan = tuple(
            impl
            for impl in hooks.manager.plan(info.name)
            # a source's entries (shell hooks) belong to the source's record
            if (rec := hooks.records.get(impl.impl.plugin_name)) is None or rec.source != "builtin"
        )
        if not plan:
            continue
        payload, _ = payload_for(info)
        try:
            dispatcher.run(Route.of(info, plan), payload)
        except Exception as exc:  # the hooks' faults are counted; this is the doctor's own
            log.warning("doctor: firing %s failed: %s: %s", info.name, type(exc).__name__, exc)


def _unknown_hooks(hooks: Hooks, name: str) -> list[tuple[bool, str]]:
    """A plugin's hooks on events no spec knows (a Hermes-style ``register_hook`` keeps them
    for newer hosts): one close to a known event is a misspelling that never runs, a problem;
    any other is a note."""
    from ..catalogue import suggest

    plugin = hooks.manager.get_plugin(name)
    if plugin is None:
        return []
    out = []
    for caller in hooks.manager.get_hookcallers(plugin) or []:
        if caller.spec is not None:
            continue
        guess = suggest(caller.name, list(hooks.events))
        if guess:
            out.append((False, f"hook {caller.name!r} is no known event (did you mean "
                               f"{guess!r}?): it never runs here"))  # fmt: skip
        else:
            out.append((True, f"hook {caller.name!r} is no event of this host (kept for a "
                              "newer one)"))  # fmt: skip
    return out


def _shell(hooks: Hooks, source: ShellHooks) -> list[Check]:
    from ..builtin_plugins.shell_hooks import plain
    from .firing import payload_for

    out = []
    for hook in source.all_hooks:
        info = hooks.manager.event(hook.event)
        check = Check(
            "shell", f"{hook.event}: {hook.name}" + (f" [{hook.matcher}]" if hook.matcher else "")
        )
        lines = check.lines
        why = source.problem(hook)
        lines.append((why is None, why or "command runs as configured"))
        verdict = source.consent(hook)
        if verdict.status == "active":
            pinned = f" (sha256 {verdict.digest[:12]}… unchanged)" if verdict.digest else ""
            lines.append((True, "approved" + pinned))
        else:
            fix = (
                hook.approve_command
                if hook.needs_approval and verdict.status != "refused"
                else hook.remedy
            )
            lines.append((False, f"{verdict.status}: {verdict.detail}; {fix}"))
        if verdict.status == "active" and why is None:
            run = source.execute(info, payload_for(info)[0], [hook], force=True, foreground=True)[0]
            answer = run.answer
            ms = f"{run.ms:.0f} ms"
            if answer is not None and answer.failure:
                lines.append((False, f"synthetic payload: {answer.failure} ({ms})"))
            elif answer is not None and answer.dropped:
                lines.append((False, f"synthetic payload: answer ignored: {answer.dropped} ({ms})"))
            elif answer is not None and answer.warning and not answer.value:
                lines.append((False, f"synthetic payload: {answer.warning} ({ms})"))
            else:
                shown = json.dumps(plain(answer.value) if answer else None, default=str)
                lines.append((True, f"synthetic payload answered {shown[:100]} in {ms}"))
            if answer is not None and answer.defaulted:
                lines.append((False, f"synthetic payload: {answer.defaulted}"))
        if hook.kind == "worker" and verdict.status == "active" and why is None:
            lines.append(_worker_line(source, hook))
        if hook.required:
            lines.append((True, "required: its event fails closed when it cannot run"))
        out.append(check)
    return out


def _worker_line(source: ShellHooks, hook: Any) -> tuple[bool, str]:
    """Whether the warm worker the synthetic payload went to started, shook hands and runs."""
    from ..worker import PROTOCOL

    state = source.workers.describe(hook) or {}
    if state.get("pid"):
        return True, (f"warm worker started (pid {state['pid']}), handshake protocol {PROTOCOL}, "
                      "still running")  # fmt: skip
    return False, f"warm worker is not running: {state.get('last_error') or 'it never started'}"


def _required(hooks: Hooks) -> list[Check]:
    from ..builtin_plugins.required import unmet

    out = []
    for guard, why, events in unmet(hooks):
        check = Check("required", guard)
        scope = ", ".join(events) if events else "every event that guards an action"
        check.lines.append((False, f"required guard is not running: {why} ({scope} fail closed)"))
        out.append(check)
    return out


def _hermes_agent(hooks: Hooks) -> list[Check]:
    """The ``hermes`` script, and hooks on events Hermes Agent 0.19 never fires when bridged."""
    from hermes_hooks.hermes.handover import script_problems

    out = []
    problems = script_problems()
    if problems:
        out.append(Check("hermes", "hermes script", [(False, p) for p in problems]))
    plugins = hooks.config.get("plugins")
    enabled = plugins.get("enabled") if isinstance(plugins, dict) else None
    if not isinstance(enabled, list) or "hermes-hooks" not in enabled:
        return out
    from hermes_hooks.hermes.agent import unfired_events

    never = unfired_events()
    for row in hooks.rows():
        event = row.get("event")
        # HOOK.yaml gateway hooks are run by Hermes' own gateway when bridged: not a problem.
        if event in never and row.get("source") != "gateway":
            names = ", ".join(never[event]) or event
            out.append(Check("hermes", str(row.get("name")), [(False,
                f"on {event} ({names}): Hermes Agent 0.19 never fires this event, so this hook "
                "never runs while hermes-hooks is bridged into it (docs/hermes-agent.md)")]))  # fmt: skip
    return out


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print {ok, checks: [...]} as JSON.")
@click.pass_obj
def doctor_cmd(state: State, as_json: bool) -> None:
    """Check every source: the config, Python plugins (import errors with file and line),
    gateway hooks, shell hooks (runnable, approved, unchanged, answering validly) and required
    guards. Exits 1 when anything is wrong."""
    _logging()
    hooks, source = _runtime(state)
    _exercise(hooks)
    checks = _config(hooks, source) + _plugins(hooks, source)
    if source is not None:
        checks += _shell(hooks, source)
    checks += _required(hooks) + _hermes_agent(hooks)
    from pathlib import Path

    from .agents import checks as agent_checks

    checks += [Check(kind, name, lines) for kind, name, lines in agent_checks(state, Path.cwd())]
    watchdog = hooks.watchdog
    for name, seconds, stack in watchdog.reports if watchdog is not None else []:
        last = stack.strip().splitlines()[-2:] if stack.strip() else []
        checks.append(Check("watchdog", name, [(False, f"stuck for {seconds:.0f}s in: "
                                                 + " ".join(s.strip() for s in last))]))  # fmt: skip
    wrong = [c for c in checks if not c.ok]
    if as_json:
        doc = {"ok": not wrong, "checks": [c.as_dict() for c in checks]}
        click.echo(json.dumps(doc, indent=2, default=str))
    else:
        for check in checks:
            mark = paint("ok ", "green") if check.ok else paint("BAD", "red")
            echo(f"{mark}  {check.kind}: {check.name}")
            for flag, text in check.lines:
                echo(f"     {paint('✓', 'green') if flag else paint('✗', 'red')} {text}")
        echo(f"\n{len(checks)} check(s): {len(checks) - len(wrong)} ok, "
                   f"{len(wrong)} with problems.")  # fmt: skip
    if wrong:
        raise SystemExit(1)


# ---------------------------------------------------------------------- verify


@click.command("verify")
@click.option("--json", "as_json", is_flag=True, help="Print {ok, canaries: [...]} as JSON.")
@click.pass_obj
def verify_cmd(state: State, as_json: bool) -> None:
    """Fire every guard's canary (a payload and the decision it must produce) through the
    runtime's dispatcher; report pass or fail per guard. Exits 1 on a miss, or when there is no
    canary at all."""
    _logging()
    from .payloads import canaries, fire

    hooks, _ = _runtime(state)
    verdicts = [fire(hooks, canary) for canary in canaries(hooks)]
    failed = [v for v in verdicts if not v.passed]
    if as_json:
        doc = {"ok": bool(verdicts) and not failed, "canaries": [v.as_dict() for v in verdicts]}
        click.echo(json.dumps(doc, indent=2, default=str))
    else:
        for v in verdicts:
            c = v.canary
            mark = paint("pass", "green") if v.passed else paint("FAIL", "red")
            echo(f"{mark}  {c.guard} ({c.source}) on {c.event}: expected {c.expect}, "
                       f"got {v.got or 'none'}" + (f" from {v.decided_by}" if v.decided_by else ""))  # fmt: skip
            if v.error:
                echo(f"      error: {v.error}")
            elif v.message and not v.passed:
                echo(f"      message: {v.message}")
        if not verdicts:
            echo("No canary configured: add `canary: {payload: {...}, expect: block}` to a "
                       "guard (docs/troubleshooting.md).")  # fmt: skip
        else:
            echo(f"\n{len(verdicts)} canary(ies): {len(verdicts) - len(failed)} passed, "
                       f"{len(failed)} failed.")  # fmt: skip
    if failed or not verdicts:
        raise SystemExit(1)
