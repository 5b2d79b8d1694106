"""``hermes hooks test | approve | revoke | doctor``: firing an event, and the shell-hook commands.

They load the runtime as the agent does, except that the shell-hook source is built without a
terminal question (so loading never prompts), and ask it through its public methods.
``test`` fires the event through the runtime's own dispatcher and records what each shell hook
did on the way.
"""

from __future__ import annotations

import json
import shlex
import sys
from typing import TYPE_CHECKING, Any

import click

from ..terminal import echo
from . import State, _logging

if TYPE_CHECKING:
    from ..builtin_plugins.shell_hooks import ShellHooks
    from ..catalogue import EventInfo
    from ..hooks import Hooks

SHELL_SOURCE = "builtin:shell_hooks"


def _runtime(state: State) -> tuple[Hooks, ShellHooks | None]:
    """Every plugin and built-in of the home, registered as the runtime registers them; the
    shell-hook source asks nobody (unapproved hooks are reported, not run)."""
    from ..builtin_plugins import BUILTINS, shell_hooks
    from ..loader import load_builtins

    hooks: Hooks = state.load(builtins=False)
    if SHELL_SOURCE in hooks.records:  # loaded once per command run
        return hooks, hooks.records[SHELL_SOURCE].hook_source
    for error in hooks.config_errors:
        click.echo(f"config: {error}", err=True)
    load_builtins(hooks, [name for name in BUILTINS if name != "shell_hooks"])
    if hooks.safe_mode:
        click.echo("HERMES_SAFE_MODE is on: no shell hook runs.", err=True)
        return hooks, None
    source = shell_hooks.build(hooks, ask=False)
    if source is None:
        return hooks, None
    if source.auto_accept:
        source.startup()
    hooks.add_source(source, SHELL_SOURCE, path=shell_hooks.__file__)
    return hooks, source


def _no_hooks(hooks: Hooks) -> None:
    where = hooks.config_path or (hooks.home / "config.yaml")
    click.echo(
        f"No shell hooks configured (config: {where}; settings: {hooks.home / 'settings.json'})."
    )


def _event(hooks: Hooks, name: str) -> EventInfo:
    from ..catalogue import UnknownEvent

    try:
        return hooks.manager.event(name)
    except UnknownEvent as exc:
        raise click.UsageError(str(exc)) from exc


def _payload(info: EventInfo, for_tool: str | None, payload_file: str | None) -> dict[str, Any]:
    from pathlib import Path

    payload = dict(info.example)
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
    """Fire EVENT with a realistic synthetic payload through the runtime's dispatcher (every
    hook of every source runs, as in the agent) and show what each shell hook did.

    Unapproved shell hooks are listed and not run unless --force.
    """
    _logging()
    from ..builtin_plugins.shell_hooks import plain

    hooks, source = _runtime(state)
    info = _event(hooks, event)
    name = info.name
    payload = _payload(info, for_tool, payload_file)
    if source is None:
        result = hooks.call(name, **payload)
        runs = []
    else:
        with source.recording(force=force) as report:
            result = hooks.call(name, **payload)
        runs = report.runs
    if as_json:
        doc = {"event": name, "hooks": [r.report() for r in runs], "result": plain(result)}
        click.echo(json.dumps(doc, indent=2, default=str))
        return
    others = [r for r in hooks.rows(event=name) if r.get("source") != "shell"]
    if others:
        echo(f"Other hooks of {name}, in call order: "
                   + ", ".join(f"{r['name']} ({r['source']})" for r in others))  # fmt: skip
    if not runs:
        if source is None:
            _no_hooks(hooks)
        else:
            echo(
                f"No shell hook matches {name}" + (f" for tool {for_tool!r}." if for_tool else ".")
            )
        if others:
            echo(f"\nCombined result: {json.dumps(plain(result), default=str)}")
        return
    echo(f"Firing {len(runs)} shell hook(s) for {name}:")
    for run in runs:
        r = run.report()
        echo(f"\n- {r['name']}  [{r['status']}]")
        if r["name"] != r["command"]:
            echo(f"  command: {r['command']}")
        if not run.ran:
            echo(f"  not run: {r['detail']} (approve it with `hermes hooks approve "
                       f"{shlex.quote(run.hook.command)}`, or pass --force)")  # fmt: skip
            continue
        echo(f"  stdin: {(r['stdin'] or '').rstrip()}")
        echo(f"  exit code: {r['exit_code']}   elapsed: {r['elapsed_ms']} ms")
        for key in ("stdout", "stderr"):
            text = r[key].rstrip("\n")
            echo(f"  {key}: {text if text else '(empty)'}")
        echo(f"  answer: {json.dumps(r['answer'], default=str)}")
        if r["failure"]:
            echo(f"  failure: {r['failure']}")
        if r["warning"]:
            echo(f"  warning: {r['warning']}")
    echo(f"\nCombined result: {json.dumps(plain(result), default=str)}")


# ---------------------------------------------------------------------- approve / revoke


@click.command("approve")
@click.argument("commands", nargs=-1)
@click.option("--all", "approve_all", is_flag=True, help="Approve every configured shell hook.")
@click.option(
    "--unpinned",
    is_flag=True,
    help="Also approve hooks whose script cannot be identified (nothing on disk is pinned).",
)
@click.pass_obj
def approve_cmd(state: State, commands: tuple[str, ...], approve_all: bool, unpinned: bool) -> None:
    """Approve shell hooks by COMMAND (as written in the config), or --all, pinning each
    script's current sha256. Without arguments on a terminal, asks about each pending hook.
    A hook whose script cannot be identified (`unpinned` in `list`) needs --unpinned."""
    _logging()
    hooks, source = _runtime(state)
    if source is None:
        _no_hooks(hooks)
        if commands:
            sys.exit(1)
        return
    configured = source.all_hooks
    if approve_all:
        chosen = configured
    elif commands:
        known = {h.command for h in configured}
        missing = [c for c in commands if c not in known]
        if missing:
            echo(f"Not a configured shell hook command: {', '.join(map(repr, missing))}", err=True)
            echo("Configured: " + "; ".join(sorted(known)), err=True)
            sys.exit(1)
        chosen = [h for h in configured if h.command in commands]
    else:
        pending = [h for h in configured if source.consent(h).status != "active"]
        if not pending:
            echo("Every configured shell hook is approved.")
            return
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            raise click.UsageError(
                "say which: `hermes hooks approve COMMAND...` or `hermes hooks approve --all` "
                f"({len(pending)} pending; `hermes hooks list` shows them)"
            )
        from ..builtin_plugins.shell_hooks import tty_prompt

        chosen = [h for h in pending if tty_prompt(source.question(h))]
    try:
        done = source.approve(chosen, unpinned=unpinned)
    except OSError as exc:
        raise click.ClickException(
            f"cannot write the allowlist {source.allowlist.path}: {exc.strerror or exc}"
        ) from exc
    for hook in chosen:
        if hook not in done:
            echo(f"not approved {hook.event}: {hook.command}: "
                       f"{source.consent(hook).unpinned}; add --unpinned to approve it anyway",
                       err=True)  # fmt: skip
    for hook in done:
        state_now = source.consent(hook)
        echo(f"approved {hook.event}: {hook.command}" + (f" [{hook.matcher}]" if hook.matcher else "")
                   + (f" (sha256 {state_now.digest[:12]}…)" if state_now.digest else ""))  # fmt: skip
    echo(f"{len(done)} approval(s) written to {source.allowlist.path}")


@click.command("revoke")
@click.argument("command")
@click.pass_obj
def revoke_cmd(state: State, command: str) -> None:
    """Remove every approval of COMMAND (any event, any matcher)."""
    _logging()
    from ..builtin_plugins.shell_hooks import revoke

    removed = revoke(state.load(builtins=False).home, command)
    echo(f"Revoked {removed} approval(s) of {command!r}.")


# ---------------------------------------------------------------------- doctor


@click.command("doctor")
@click.pass_obj
def doctor_cmd(state: State) -> None:
    """Check every shell hook: runnable, approved, unchanged, answers validly (when approved)."""
    _logging()
    from ..builtin_plugins.shell_hooks import load_entries, plain

    hooks, source = _runtime(state)
    problems = list(hooks.config_errors)
    if source is not None:
        problems += source.problems
    elif not hooks.safe_mode:
        problems += load_entries(hooks)[1]
    if source is None:
        _no_hooks(hooks)
    bad = 0
    for hook in source.all_hooks if source else []:
        assert source is not None
        info = hooks.manager.event(hook.event)
        lines: list[tuple[bool, str]] = []
        why = source.problem(hook)
        lines.append((why is None, why or "command runs as configured"))
        verdict = source.consent(hook)
        if verdict.status == "active":
            pinned = f" (sha256 {verdict.digest[:12]}… unchanged)" if verdict.digest else ""
            lines.append((True, "approved" + pinned))
        else:
            lines.append((False, f"{verdict.status}: {verdict.detail}; "
                          f"`hermes hooks approve {shlex.quote(hook.command)}`"))  # fmt: skip
        if verdict.status == "active" and why is None:
            run = source.execute(info, _payload(info, None, None), [hook], force=True)[0]
            out, answer = run.outcome, run.answer
            ms = f"{out.elapsed * 1000:.0f} ms" if out else "-"
            if answer is not None and answer.failure:
                lines.append((False, f"synthetic payload: {answer.failure} ({ms})"))
            elif answer is not None and answer.warning and not answer.value:
                lines.append((False, f"synthetic payload: {answer.warning} ({ms})"))
            else:
                shown = json.dumps(plain(answer.value) if answer else None, default=str)
                lines.append((True, f"synthetic payload answered {shown[:100]} in {ms}"))
        ok = all(flag for flag, _ in lines)
        bad += not ok
        echo(
            f"{'ok ' if ok else 'BAD'}  {hook.event}: {hook.name}"
            + (f" [{hook.matcher}]" if hook.matcher else "")
        )
        for flag, text in lines:
            echo(f"     {'✓' if flag else '✗'} {text}")
    for problem in problems:
        echo(f"BAD  config: {problem}")
    total = len(source.all_hooks) if source else 0
    wrong = bad + len(problems)
    echo(f"\n{total} shell hook(s) checked: {total - bad} ok, {bad} with problems"
               + (f"; {len(problems)} config problem(s)" if problems else "") + ".")  # fmt: skip
    if wrong:
        sys.exit(1)
