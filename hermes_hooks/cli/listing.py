"""``hermes hooks list`` and ``hermes hooks events``: what runs, and what can be hooked."""

from __future__ import annotations

import json
from typing import Any

import click

from . import State, _logging

# ---------------------------------------------------------------------- list


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return str(value)


def print_table(headers: list[str], rows: list[list[Any]]) -> None:
    """A plain aligned table on stdout."""
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
            from ..catalogue import UnknownEvent, suggest

            known = [*hooks.events, *(a for i in hooks.events.values() for a in i.aliases)]
            raise click.UsageError(str(UnknownEvent(event, suggest(event, known))))
    rows = hooks.rows(include_builtin=show_all, event=event)
    if as_json:
        click.echo(json.dumps(rows, indent=2, default=str))
        return
    for error in getattr(hooks, "config_errors", []):
        click.echo(f"config: {error}", err=True)
    if not rows:
        where = hooks.config_path or (hooks.home / "config.yaml")
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


# ---------------------------------------------------------------------- events


@click.command("events")
@click.option("--json", "as_json", is_flag=True, help="Print the catalogue as JSON.")
def events_cmd(as_json: bool) -> None:
    """Show the event catalogue: name, kind, arguments and aliases, read from the hookspecs."""
    from ..catalogue import events

    infos = list(events().values())
    if as_json:
        click.echo(json.dumps([i.as_dict() for i in infos], indent=2))
        return
    print_table(
        ["EVENT", "KIND", "ALIASES", "ARGUMENTS"],
        [[i.name, i.kind, ", ".join(i.aliases), ", ".join(i.args)] for i in infos],
    )
