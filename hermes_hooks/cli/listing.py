"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks list`` and ``hermes hooks events``: what runs, and what can be hooked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from . import State, _logging, paint

# ---------------------------------------------------------------------- list


def _cell(value: Any) -> str:
    if value is None:
        return ""
    from ..terminal import shown

    return shown(value)  # a name, a session id or a tool must not repaint the screen


def print_table(headers: list[str], rows: list[list[Any]]) -> None:
    """A plain aligned table on stdout, every hidden character of a cell escaped."""
    cells = [[_cell(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, c in enumerate(row[:-1]):
            widths[i] = max(widths[i], min(len(c), 48))
    fmt = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + "  {}"
    click.echo(fmt.format(*headers).rstrip())
    for row in cells:
        click.echo(fmt.format(*row).rstrip())


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--all", "show_all", is_flag=True, help="Include the built-in plugins.")
@click.option("--event", "event", help="Only this event (our name or an alias).")
@click.pass_obj
def list_cmd(state: State, as_json: bool, show_all: bool, event: str | None) -> None:
    """Show every hook, from every source, in the exact order it runs.

    Plugins that did not load (failed, disabled, shadowed) are listed after the hooks, with why.
    """
    _logging()
    from .streams import stdout_to_stderr

    with stdout_to_stderr():  # a plugin writing to fd 1 must not break --json
        hooks = state.load()
    if event is not None and hooks.manager.find_event(event) is None:
        if not any(r["event"] == event for r in hooks.rows()):  # a Hermes-style plugin's own
            from .shell import _event

            _event(hooks, event)  # unknown: a usage error naming the closest known name
    rows = hooks.rows(include_builtin=show_all, event=event)
    if show_all and event is None:
        rows += _idle_builtins(hooks)
    notices = _notices(hooks)
    from .agents import listed

    routed = listed(state, Path.cwd()) if event is None else []
    if as_json:
        click.echo(json.dumps(notices + rows + routed, indent=2, default=str))
        return
    _routed(routed)
    for notice in notices:
        click.echo(paint(f"! {notice['status']}: {notice['error']}", "red"))
    if notices:
        click.echo("")
    if not rows:
        where = hooks.config_path or (hooks.home / "config.yaml")
        if hooks.safe_mode:
            click.echo(
                "No hooks: HERMES_SAFE_MODE is on, so no plugin, shell hook or gateway hook loads."
            )
            return
        click.echo(f"No hooks. Home: {hooks.home} (config: {where}).")
        click.echo(
            "Install a plugin (pip install hermes-hook-...), add plugins under <home>/plugins/,"
        )
        click.echo(
            "or declare shell hooks in config.yaml; see `hermes hooks events` for what can be hooked."
        )
        return
    table = []
    for r in rows:
        detail = r.get("error") or r.get("command") or r.get("function") or ""
        if not detail and r.get("event") is None:
            registered = r.get("registered") or {}
            detail = "; ".join(f"{k}: {', '.join(v)}" for k, v in registered.items()) or "no hooks"
        if r.get("matcher"):
            detail = f"[{r['matcher']}] {detail}"
        if r.get("protocol") not in (None, "hermes") and r.get("origin"):
            detail = f"{detail} ({r['protocol']} {r.get('configured_event')}, {r['origin']})"
        if r.get("persistent"):
            detail = f"{detail} (persistent worker{', warm' if r.get('warm') else ''})"
        table.append(
            [
                r.get("event") or "-",
                r.get("order", ""),
                r.get("name"),
                r.get("source"),
                r.get("status"),
                detail,
            ]
        )
    from ..terminal import shown

    table = [[shown(cell) for cell in row] for row in table]  # a name must not repaint the screen
    print_table(["EVENT", "#", "NAME", "SOURCE", "STATUS", "DETAIL"], table)


def _routed(routed: list[dict[str, Any]]) -> None:
    """The agents whose own hook files route their events here (install-into)."""
    from ..terminal import echo

    for r in routed:
        mark = paint(r["status"], "green" if r["status"] == "routed" else "red")
        echo(f"{r['agent']} routes {len(r['events'])} event(s) here ({mark}): {r['file']}")
        for text in r["changed"] + ([r["problem"]] if r["problem"] else []):
            echo(f"  ! {text}")
    if routed:
        up = routed[0]["service_up"]
        echo(f"service: {routed[0]['service']}")
        if not up:
            for r in routed:
                echo(f"  while it is down: {r['when_down']}")
        echo("")


def _notices(hooks: Any) -> list[dict[str, Any]]:
    """Rows for what is wrong or unusual about the whole runtime, listed first (``source``
    ``config``): a config that cannot be read (``failed``), misspelt keys (``warning``), a
    required guard that is missing or failed (``failed``), safe mode (``safe_mode``)."""
    where = str(hooks.config_path or hooks.home / "config.yaml")
    out = []
    for status, texts in (("failed", hooks.config_errors), ("warning", hooks.config_warnings)):
        for text in texts:
            out.append({"event": None, "name": "config", "source": "config", "status": status,
                        "error": text, "path": where})  # fmt: skip
    from ..builtin_plugins.required import unmet

    for guard, why, _ in unmet(hooks):
        out.append({"event": None, "name": f"required: {guard}", "source": "config",
                    "status": "failed", "error": f"required guard {guard!r} is not running: {why}",
                    "path": where})  # fmt: skip
    if hooks.safe_mode:
        text = "HERMES_SAFE_MODE is on: no plugin, shell hook or gateway hook is loaded"
        out.append({"event": None, "name": "safe mode", "source": "config",
                    "status": "safe_mode", "error": text, "path": None})  # fmt: skip
    return out


def _idle_builtins(hooks: Any) -> list[dict[str, Any]]:
    """``--all``: the built-ins that have nothing to do (no configured hook), as ``idle``."""
    from ..builtin_plugins import BUILTINS

    return [
        {
            "event": None,
            "name": f"builtin:{name}",
            "source": "builtin",
            "status": "idle",
            "error": "nothing configured for it",
            "path": None,
        }  # fmt: skip
        for name in BUILTINS
        if f"builtin:{name}" not in hooks.records
    ]


# ---------------------------------------------------------------------- events


@click.command("events")
@click.argument("name", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the catalogue as JSON.")
def events_cmd(name: str | None, as_json: bool) -> None:
    """Show the event catalogue: name, kind, arguments and aliases, read from the hookspecs.
    With NAME (ours or an alias), show that event's whole contract."""
    from ..catalogue import UnknownEvent, events, resolve

    infos = list(events().values())
    if name is not None:
        try:
            info = events()[resolve(name)]
        except UnknownEvent as exc:
            raise click.UsageError(str(exc)) from exc
        infos = [info]
        if not as_json:
            _show_event(info)
            return
    if as_json:
        docs = [i.as_dict() for i in infos]
        click.echo(json.dumps(docs[0] if name is not None else docs, indent=2))
        return
    print_table(
        ["EVENT", "KIND", "ALIASES", "ARGUMENTS"],
        [[i.name, i.kind, ", ".join(i.aliases), ", ".join(i.args)] for i in infos],
    )


def _show_event(info: Any) -> None:
    click.echo(f"{paint(info.name, 'cyan')}  ({info.kind}: {info.answer.describe()})")
    click.echo(f"  {info.summary}")
    click.echo(f"  arguments: {', '.join(info.args)}")
    if info.required:
        click.echo(f"  required:  {', '.join(info.required)}")
    if info.aliases:
        click.echo(f"  aliases:   {', '.join(info.aliases)}")
    click.echo(f"  can block: {'yes' if info.can_block else 'no'}")
    click.echo(f"  on failure: {info.answer.on_failure()}")
    click.echo(f"  example:   {json.dumps(dict(info.example), default=str)}")
