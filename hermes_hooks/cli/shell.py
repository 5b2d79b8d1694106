"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks approve | revoke``, and the runtime that ``test``, ``doctor`` and ``verify``
load too (:func:`_runtime`).

They build the runtime as the agent does, except that nobody is asked to approve a shell hook
(so loading never prompts), and ask its shell-hook source through its public methods.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from hermes_hooks.builtin_plugins.shell_hooks.consent import file_sha256

from ..terminal import echo
from . import State, _logging

if TYPE_CHECKING:
    from ..builtin_plugins.shell_hooks import ShellHooks
    from ..catalogue import EventInfo
    from ..hooks import Hooks


def _runtime(state: State) -> tuple[Hooks, ShellHooks | None]:
    """The runtime as the agent builds it (:func:`hermes_hooks.runtime.build_runtime`, through
    ``state.load``), and its shell-hook source; built for inspection: nobody is asked to approve
    a shell hook (unapproved hooks are reported, not run) and nothing starts ahead of use."""
    from ..builtin_plugins.shell_hooks import ShellHooks

    hooks: Hooks = state.load(ask=False, inspecting=True)
    if hooks.safe_mode:
        click.echo("HERMES_SAFE_MODE is on: no plugin, shell hook or gateway hook runs.", err=True)
    # The source itself, not a record found by name: a refused plugin may carry that name.
    source = next((s for s in hooks.sources() if isinstance(s, ShellHooks)), None)
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
        already = [h for h in configured if source.consent(h).status == "active"]
        for hook in already:
            click.echo(f"already approved {hook.event}: {hook.command}"
                       + (f" [{hook.matcher}]" if hook.matcher else ""))  # fmt: skip
        chosen = [h for h in configured if h not in already]
        if not chosen:
            click.echo(f"Every configured shell hook was already approved ({len(already)}).")
            return
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
        for path in state_now.scripts:
            echo(f"  pins {path} (sha256 {(file_sha256(path) or 'missing')[:12]}…)")
        if not state_now.scripts:
            echo("  pins no file (nothing on disk identifies what it runs)")
    echo(f"{len(done)} approval(s) written to {source.allowlist.path}")


@click.command("revoke")
@click.argument("command", required=False)
@click.pass_obj
def revoke_cmd(state: State, command: str | None) -> None:
    """Remove every approval of COMMAND (any event, any matcher). Without COMMAND, or when
    nothing matched, list the approved commands that can be revoked (exit 1 when nothing was
    revoked)."""
    _logging()
    from hermes_hooks.builtin_plugins.shell_hooks.consent import Allowlist, path_for

    from ..builtin_plugins.shell_hooks import revoke

    home = state.load(builtins=False).home
    removed = revoke(home, command) if command is not None else 0
    if removed:
        click.echo(f"Revoked {removed} approval(s) of {command!r}.")
        return
    approved = sorted({str(e.get("command")) for e in Allowlist(path_for(home)).entries()})
    if command is not None:
        click.echo(f"No approval of {command!r} to revoke.", err=True)
    if approved:
        click.echo("Approved commands (revoke one with `hermes hooks revoke COMMAND`):")
        for item in approved:
            click.echo(f"  {item}")
    else:
        click.echo(f"No approvals in {path_for(home)}.")
    if command is not None:
        sys.exit(1)
