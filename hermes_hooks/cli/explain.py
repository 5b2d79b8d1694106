"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks explain-command``: what ``command_guard`` makes of a command line.

The line is read by the project's shell parser; each simple command it would run is shown with
how it was reached (``sudo``, ``bash -c``, ``$()``, ...), the rules that looked at it and those
that matched, then the answer the guard would give. The home's ``command_guard`` options are
used when config.yaml sets them; otherwise every pack is on, as ``command_guard: true`` has it.
"""

from __future__ import annotations

import json
from typing import Any

import click

from ..terminal import echo
from . import State, _logging


def show(explained: dict[str, Any]) -> None:
    """Print one explanation (shared with ``hermes hooks test --command``)."""
    if explained["error"]:
        echo(f"  cannot read the line with certainty: {explained['error']}")
    if not explained["commands"]:
        echo("  it runs no command")
    for simple in explained["commands"]:
        via = f"  (via {' > '.join(simple['via'])})" if simple["via"] else ""
        echo(f"  - `{simple['text']}`{via}")
        if not simple["matched"]:
            echo(f"      {simple['why']}")
        for rule in simple["matched"]:
            effect = "blocks" if rule["blocks"] else "asks"
            echo(f"      {rule['id']} ({effect}): {rule['reason']}")
            echo(f"        safer: {rule['alternative']}")
    answer = explained["answer"]
    if answer is None:
        echo("  answer: passes (no rule matched)")
    else:
        echo(f"  answer: {answer['action']}" + (f" (always-key {answer['rule_key']})"
                                                 if answer.get("rule_key") else ""))  # fmt: skip


@click.command("explain-command")
@click.argument("line", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
@click.option("--rules", "list_rules", is_flag=True, help="List the packs and their rule ids.")
@click.pass_obj
def explain_cmd(state: State, line: str | None, as_json: bool, list_rules: bool) -> None:
    """Show which simple commands LINE would run and which command_guard rule each one
    matches, or why it passes."""
    _logging()
    from ..builtin_plugins import switches
    from ..builtin_plugins.command_guard import CommandGuard, every_rule

    if list_rules:
        rules = [{"id": r.id, "blocks": r.catastrophic, "reason": r.reason,
                  "alternative": r.alternative} for r in every_rule()]  # fmt: skip
        if as_json:
            click.echo(json.dumps(rules, indent=2))
        else:
            for rule in rules:
                echo(
                    f"{rule['id']:40} {'blocks' if rule['blocks'] else 'asks  '}  {rule['reason']}"
                )
        if line is None:
            return
    if line is None:
        raise click.UsageError("give a command LINE (or --rules)")
    hooks = state.load(builtins=False)
    options = switches.value(hooks, "command_guard")
    guard = CommandGuard(hooks, options or True)
    explained = guard.explain_command(line)
    if as_json:
        click.echo(json.dumps({**explained, "configured": bool(options)}, indent=2))
        return
    if not options:
        echo(f"command_guard is not switched on in {hooks.config_path or hooks.home / 'config.yaml'}; "
             "showing every pack (`command_guard: true`).")  # fmt: skip
    echo(f"{line}")
    show(explained)
