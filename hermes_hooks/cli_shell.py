"""``hermes hooks test | approve | revoke | doctor``: the shell-hook commands.

They load the config without starting the built-in plugins (so loading never prompts nor warns
about approvals), then build the shell-hook plugin themselves.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import consent, resolve, wire
from .cli import State, _logging

if TYPE_CHECKING:
    from .builtin_plugins.shell_hooks import Run, ShellHook, ShellHooks


def _plugin(state: State) -> ShellHooks | None:
    from .builtin_plugins import shell_hooks

    hooks = state.load(builtins=False)
    for error in hooks.config_errors:
        click.echo(f"config: {error}", err=True)
    if hooks.safe_mode:
        click.echo("HERMES_SAFE_MODE is on: no shell hook runs.", err=True)
        return None
    entries, problems = shell_hooks.load_entries(hooks)
    if not entries:
        return None
    plugin = shell_hooks.ShellHooks(hooks, entries, problems)
    plugin.ask = None
    if plugin.accept:
        plugin.startup()
    return plugin


def _home(state: State) -> Path:
    return Path(state.load(builtins=False).home)


def _no_hooks(state: State) -> None:
    hooks = state.load(builtins=False)
    where = hooks.config_path or (hooks.home / "config.yaml")
    click.echo(
        f"No shell hooks configured (config: {where}; settings: {hooks.home / 'settings.json'})."
    )


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: v for k, v in dataclasses.asdict(value).items() if v is not None}
    return value


def _text(data: bytes) -> str:
    return wire.decode(data)


def _payload(event: str, for_tool: str | None, payload_file: str | None) -> dict[str, Any]:
    from .catalogue import events, example_payload

    info = events()[event]
    payload = {
        k: v for k, v in example_payload(event).items() if v is not None or k in info.example
    }
    if for_tool is not None:
        payload["tool_name"] = for_tool
    if payload_file:
        try:
            custom = json.loads(Path(payload_file).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise click.UsageError(f"--payload-file {payload_file}: {exc}") from exc
        if not isinstance(custom, dict):
            raise click.UsageError(f"--payload-file {payload_file}: must hold a JSON object")
        payload.update(custom)
    return payload


def _resolve_event(event: str) -> str:
    from .catalogue import get, suggest

    info = get(event)
    if info is None:
        guess = suggest(event)
        hint = f" (did you mean {guess!r}?)" if guess else ""
        raise click.UsageError(f"unknown event {event!r}{hint}; `hermes hooks events` lists them")
    return info.name


def _report(run: Run) -> dict[str, Any]:
    out = run.outcome
    answer = run.answer
    return {
        "name": run.hook.name,
        "command": run.hook.command,
        "matcher": run.hook.matcher,
        "protocol": run.hook.protocol,
        "status": run.status,
        "detail": run.detail,
        "ran": run.ran,
        "exit_code": out.returncode if out else None,
        "elapsed_ms": round(out.elapsed * 1000, 1) if out else None,
        "timed_out": out.timed_out if out else False,
        "truncated": out.truncated if out else False,
        "stdout": _text(out.stdout) if out else "",
        "stderr": _text(out.stderr) if out else "",
        "answer": _jsonable(answer.value) if answer else None,
        "failure": answer.failure if answer else (out.error if out else None),
        "warning": answer.warning if answer else None,
    }


# ---------------------------------------------------------------------- test


@click.command("test")
@click.argument("event")
@click.option("--for-tool", "for_tool", help="Pretend the call is for this tool (tool events).")
@click.option(
    "--payload-file", type=click.Path(dir_okay=False), help="A JSON object merged into the payload."
)
@click.option("--json", "as_json", is_flag=True, help="Print {event, hooks, result} as JSON.")
@click.option("--force", is_flag=True, help="Also run hooks that are not approved (or changed).")
@click.pass_obj
def test_cmd(
    state: State,
    event: str,
    for_tool: str | None,
    payload_file: str | None,
    as_json: bool,
    force: bool,
) -> None:
    """Fire EVENT's shell hooks with a realistic synthetic payload and show what each did.

    Unapproved hooks are listed and not run unless --force.
    """
    _logging()
    from .builtin_plugins.shell_hooks import combine
    from .catalogue import events

    name = _resolve_event(event)
    info = events()[name]
    payload = _payload(name, for_tool, payload_file)
    plugin = _plugin(state)
    runs = plugin.execute(info, payload, force=force) if plugin else []
    if info.kind == "transform":
        values = [r.answer.value for r in runs if r.answer and r.answer.value is not None]
        result = values[-1] if values else None
    else:
        result = combine(info, runs, payload)
    if as_json:
        doc = {"event": name, "hooks": [_report(r) for r in runs], "result": _jsonable(result)}
        click.echo(json.dumps(doc, indent=2, default=str))
        return
    if not runs:
        if plugin is None:
            _no_hooks(state)
        else:
            click.echo(
                f"No shell hook matches {name}" + (f" for tool {for_tool!r}." if for_tool else ".")
            )
        return
    click.echo(f"Firing {len(runs)} shell hook(s) for {name}:")
    for run in runs:
        r = _report(run)
        click.echo(f"\n- {r['name']}  [{r['status']}]")
        if r["name"] != r["command"]:
            click.echo(f"  command: {r['command']}")
        if not run.ran:
            click.echo(f"  not run: {r['detail']} (approve it with `hermes hooks approve "
                       f"{shlex.quote(run.hook.command)}`, or pass --force)")  # fmt: skip
            continue
        click.echo(f"  exit code: {r['exit_code']}   elapsed: {r['elapsed_ms']} ms")
        for key in ("stdout", "stderr"):
            text = r[key].rstrip("\n")
            click.echo(f"  {key}: {text if text else '(empty)'}")
        click.echo(f"  answer: {json.dumps(r['answer'], default=str)}")
        if r["failure"]:
            click.echo(f"  failure: {r['failure']}")
        if r["warning"]:
            click.echo(f"  warning: {r['warning']}")
    click.echo(f"\nCombined result: {json.dumps(_jsonable(result), default=str)}")


# ---------------------------------------------------------------------- approve / revoke


@click.command("approve")
@click.argument("commands", nargs=-1)
@click.option("--all", "approve_all", is_flag=True, help="Approve every configured shell hook.")
@click.pass_obj
def approve_cmd(state: State, commands: tuple[str, ...], approve_all: bool) -> None:
    """Approve shell hooks by COMMAND (as written in the config), or --all, pinning each
    script's current sha256. Without arguments on a terminal, asks about each pending hook."""
    _logging()
    plugin = _plugin(state)
    if plugin is None:
        _no_hooks(state)
        if commands:
            sys.exit(1)
        return
    hooks = plugin.all_hooks
    if approve_all:
        chosen = hooks
    elif commands:
        known = {h.command for h in hooks}
        missing = [c for c in commands if c not in known]
        if missing:
            click.echo(
                f"Not a configured shell hook command: {', '.join(map(repr, missing))}", err=True
            )
            click.echo("Configured: " + "; ".join(sorted(known)), err=True)
            sys.exit(1)
        chosen = [h for h in hooks if h.command in commands]
    else:
        pending = [h for h in hooks if plugin.consent(h).status != "active"]
        if not pending:
            click.echo("Every configured shell hook is approved.")
            return
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            raise click.UsageError(
                "say which: `hermes hooks approve COMMAND...` or `hermes hooks approve --all` "
                f"({len(pending)} pending; `hermes hooks list` shows them)"
            )
        from .builtin_plugins.shell_hooks import tty_prompt

        chosen = [h for h in pending if tty_prompt(plugin._question(h, plugin.consent(h)))]
    done = plugin.approve(chosen)
    for hook in done:
        state_now = plugin.consent(hook)
        click.echo(f"approved {hook.event}: {hook.command}" + (f" [{hook.matcher}]" if hook.matcher else "")
                   + (f" (sha256 {state_now.digest[:12]}…)" if state_now.digest else ""))  # fmt: skip
    click.echo(f"{len(done)} approval(s) written to {plugin.allowlist.path}")


@click.command("revoke")
@click.argument("command")
@click.pass_obj
def revoke_cmd(state: State, command: str) -> None:
    """Remove every approval of COMMAND (any event, any matcher)."""
    _logging()
    allowlist = consent.Allowlist(consent.path_for(_home(state)))
    removed = allowlist.revoke(command)
    click.echo(f"Revoked {removed} approval(s) of {command!r}.")


# ---------------------------------------------------------------------- doctor


def _runnable(plugin: ShellHooks, hook: ShellHook) -> str | None:
    """Why the hook's command cannot run as configured, or ``None``."""
    env = plugin.static_env(hook)
    cwd = hook.cwd(env)
    if cwd is not None and not os.path.isdir(cwd):
        return f"working_dir {cwd} does not exist"
    if hook.protocol == wire.CLAUDE:
        try:
            words = shlex.split(hook.command)
        except ValueError as exc:
            return f"the command cannot be parsed: {exc}"
        if not words:
            return "empty command"
        first = consent.expand(words[0], env)
        if "/" in first:
            return _file_problem(first, cwd, os.X_OK, "is not executable (chmod +x it)")
        return None
    try:
        argv = hook.argv(env)
    except ValueError as exc:
        return f"the command cannot be split: {exc}"
    exe = resolve.which(argv[0], env, cwd)
    if exe is None:
        return f"{argv[0]} not found" + ("" if "/" in argv[0] else " on PATH")
    if not os.access(exe, os.X_OK) or os.path.isdir(exe):
        return f"{exe} is not executable (chmod +x it, or run it through its interpreter)"
    for token in argv[1:]:
        if token.lower().endswith(consent.SCRIPT_EXTENSIONS) and "/" in token:
            problem = _file_problem(token, cwd, os.R_OK, "is not readable", prefix="script ")
            if problem:
                return problem
    return None


def _file_problem(
    token: str, cwd: str | None, mode: int, denied: str, *, prefix: str = ""
) -> str | None:
    """Why the file ``token`` names (relative to ``cwd``) is missing or lacks ``mode``."""
    path = token if os.path.isabs(token) else os.path.join(cwd or os.getcwd(), token)
    if not os.path.isfile(path):
        return f"{prefix}{token} does not exist"
    if not os.access(path, mode):
        return f"{prefix}{token} {denied}"
    return None


@click.command("doctor")
@click.pass_obj
def doctor_cmd(state: State) -> None:
    """Check every shell hook: runnable, approved, unchanged, answers validly (when approved)."""
    _logging()
    from .builtin_plugins.shell_hooks import load_entries
    from .catalogue import events

    hooks = state.load(builtins=False)
    plugin = _plugin(state)
    problems = list(hooks.config_errors)
    if plugin is not None:
        problems += plugin.problems
    elif not hooks.safe_mode:
        problems += load_entries(hooks)[1]
    if plugin is None:
        _no_hooks(state)
    bad = 0
    for hook in plugin.all_hooks if plugin else []:
        info = events()[hook.event]
        lines: list[tuple[bool, str]] = []
        why = _runnable(plugin, hook)  # type: ignore[arg-type]
        lines.append((why is None, why or "command runs as configured"))
        assert plugin is not None
        verdict = plugin.consent(hook)
        if verdict.status == "active":
            lines.append(
                (
                    True,
                    "approved"
                    + (f" (sha256 {verdict.digest[:12]}… unchanged)" if verdict.digest else ""),
                )
            )
        else:
            lines.append(
                (
                    False,
                    f"{verdict.status}: {verdict.detail}; `hermes hooks approve {shlex.quote(hook.command)}`",
                )
            )
        if verdict.status == "active" and why is None:
            payload = _payload(hook.event, None, None)
            run = plugin.execute(info, payload, [hook], force=True)[0]
            out, answer = run.outcome, run.answer
            ms = f"{out.elapsed * 1000:.0f} ms" if out else "-"
            if answer is not None and answer.failure:
                lines.append((False, f"synthetic payload: {answer.failure} ({ms})"))
            elif answer is not None and answer.warning and not answer.value:
                lines.append((False, f"synthetic payload: {answer.warning} ({ms})"))
            else:
                shown = json.dumps(_jsonable(answer.value) if answer else None, default=str)
                lines.append((True, f"synthetic payload answered {shown[:100]} in {ms}"))
        ok = all(flag for flag, _ in lines)
        bad += not ok
        click.echo(
            f"{'ok ' if ok else 'BAD'}  {hook.event}: {hook.name}"
            + (f" [{hook.matcher}]" if hook.matcher else "")
        )
        for flag, text in lines:
            click.echo(f"     {'✓' if flag else '✗'} {text}")
    for problem in problems:
        click.echo(f"BAD  config: {problem}")
    total = len(plugin.all_hooks) if plugin else 0
    wrong = bad + len(problems)
    click.echo(f"\n{total} shell hook(s) checked: {total - bad} ok, {bad} with problems"
               + (f"; {len(problems)} config problem(s)" if problems else "") + ".")  # fmt: skip
    if wrong:
        sys.exit(1)
