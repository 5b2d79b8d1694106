"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks replay FILE``: drive a recorded session through the hooks and show what they
did (``docs/replay.md``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ..terminal import echo, shown, shown_json
from . import State, _logging


class BadRecording(click.ClickException):
    """A recording (or expectations file) that cannot be read: exit 2, as for other bad input
    (docs/cli.md), with every character of the message that could drive a terminal escaped."""

    exit_code = 2

    def format_message(self) -> str:
        return shown(self.message)


def _adhoc(specs: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    """``--hook EVENT=COMMAND`` options as a ``hooks:`` block."""
    block: dict[str, list[dict[str, Any]]] = {}
    for spec in specs:
        event, sep, command = spec.partition("=")
        if not sep or not event.strip() or not command.strip():
            raise click.BadParameter(f"{spec!r}: expected EVENT=COMMAND", param_hint="--hook")
        block.setdefault(event.strip(), []).append(
            {"command": command.strip(), "name": command.strip()}
        )
    return block


def _load(state: State, hooks_block: dict[str, list[dict[str, Any]]]) -> Any:
    if not hooks_block:
        return state.load()
    import hermes_hooks
    from hermes_hooks.config import find_home, load_config

    home = find_home(state.home)
    loaded = load_config(home, state.config)
    config = dict(loaded.data)
    merged: dict[str, Any] = {}
    for source in (config.get("hooks") or {}, hooks_block):
        for event, entries in source.items():
            merged.setdefault(event, []).extend(entries if isinstance(entries, list) else [])
    config["hooks"] = merged
    # Hooks given on the command line were typed by the user: they run without a consent prompt.
    hooks = hermes_hooks.load(home, config, accept_hooks=True)
    click.get_current_context().call_on_close(hooks.close)  # as State.close does for its own
    return hooks


def _decision(result: Any) -> str:
    if result is None:
        return ""
    if isinstance(result, dict):
        parts = [f"{k}={v}" for k, v in result.items() if k not in ("args",)]
        return " ".join(parts)
    return str(result)


def print_timeline(result: Any) -> None:
    session = result.session
    echo(f"Replaying {session.source} ({session.format}): {len(session.turns)} turn(s)")
    turn_no = -1
    for firing in result.firings:
        if firing.turn != turn_no:
            turn_no = firing.turn
            if 0 < turn_no <= len(session.turns):
                text = session.turns[turn_no - 1].user_message.replace("\n", " ")[:70]
                echo(f"\nturn {turn_no}: user: {text}")
        if not firing.hooked:
            continue
        call = f" #{firing.call}" if firing.call else ""
        decided = " / ".join(line for line in _decision(firing.result).splitlines() if line.strip())
        if len(decided) > 100:
            decided = decided[:100] + "…"
        by = f"  (by {firing.source})" if firing.source else ""
        echo(f"  {firing.event}{call}  {firing.ms:.1f} ms  {decided}{by}".rstrip())
        for receipt in firing.hooks:
            why = (
                f" ({receipt['dropped'] or receipt['error']})"
                if receipt["outcome"] in ("dropped", "failed")
                else ""
            )
            echo(
                f"      {receipt['hook']} [{receipt['source']}] {receipt['ms']:.1f} ms "
                f"{receipt['outcome']}{why}"
            )
        if firing.note:
            echo(f"      {firing.note}")


def print_summary(summary: dict[str, Any]) -> None:
    echo("\nSummary")
    echo(f"  tool calls: {summary['tool_calls']}, blocked: {len(summary['blocked'])}, "
               f"approvals asked: {len(summary['approvals_asked'])}, "
               f"arguments rewritten: {summary['args_rewritten']}, "
               f"results rewritten: {summary['results_rewritten']}")  # fmt: skip
    echo(f"  prompts blocked: {summary['prompts_blocked']}, rewritten: "
               f"{summary['prompts_rewritten']}; context added: {summary['context_bytes']} bytes")  # fmt: skip
    for item in summary["blocked"]:
        echo(f"  blocked #{item['call']} {item['tool']} {json.dumps(item['args'])[:80]}: "
                   f"{item['message']} ({item['source']})")  # fmt: skip
    for item in summary["approvals_asked"]:
        echo(f"  approval asked #{item['call']} {item['tool']}: {item['message']}")
    for item in summary["dropped_answers"]:
        echo(f"  answer ignored: {item['hook']} on {item['event']}: {item['why']}")
    for item in summary["failed_hooks"]:
        echo(f"  hook failed: {item['hook']} on {item['event']}: {item['error']}")
    if summary["slowest_hooks"]:
        slow = ", ".join(f"{r['hook']} {r['ms']:.1f} ms" for r in summary["slowest_hooks"][:3])
        echo(f"  slowest hooks: {slow}")


@click.command("replay")
@click.argument("file", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the timeline and summary as JSON.")
@click.option(
    "--expect",
    "expect_file",
    type=click.Path(dir_okay=False),
    help="JSON or YAML list of {call: N | id: ID, action: block|approve|allow|null}; exit 1 on a difference.",
)
@click.option("--hook", "adhoc", multiple=True, metavar="EVENT=COMMAND",
              help="Add a shell hook for this replay only (repeatable).")  # fmt: skip
@click.option("--session", "session_id", help="The session to replay from a Hermes state.db.")
@click.pass_obj
def replay_cmd(
    state: State,
    file: str,
    as_json: bool,
    expect_file: str | None,
    adhoc: tuple[str, ...],
    session_id: str | None,
) -> None:
    """Drive a recorded session (ours, a Claude Code transcript, or Hermes Agent's session
    records) through the hooks exactly as an agent would, and show what they decided."""
    _logging()
    from hermes_hooks.replay import FormatError, compare, read_session, replay

    try:
        session = read_session(Path(file), session_id)
    except FormatError as exc:
        raise BadRecording(str(exc)) from None
    expected = _expectations(Path(expect_file)) if expect_file else None
    result = replay(_load(state, _adhoc(adhoc)), session)
    summary = result.summary()
    problems: list[str] = []
    if expected is not None:
        problems = compare(result, expected)
    if as_json:
        doc = {
            "firings": [
                {
                    "event": f.event,
                    "turn": f.turn,
                    "call": f.call,
                    "ms": round(f.ms, 3),
                    "result": f.result,
                    "hooks": f.hooks,
                    "note": f.note or None,
                }
                for f in result.firings
            ],  # fmt: skip
            "summary": summary,
            "expectations": problems if expect_file else None,
        }
        click.echo(shown_json(json.dumps(doc, indent=2, default=str, ensure_ascii=False)))
    else:
        print_timeline(result)
        print_summary(summary)
        if expect_file:
            click.echo(
                "\nExpectations: " + ("all met" if not problems else f"{len(problems)} missed")
            )
            for problem in problems:
                echo(f"  {problem}")
    if problems:
        sys.exit(1)


def _expectations(path: Path) -> list[dict[str, Any]]:
    from hermes_hooks.config import read_yaml

    data, error = read_yaml(path)  # YAML is a superset of JSON
    if error:
        raise BadRecording(error)
    if not isinstance(data, list):
        raise BadRecording(f"{path}: expected a list of {{call|id, action}} mappings")
    from hermes_hooks.replay.runner import expectation_problem

    for number, item in enumerate(data, start=1):
        problem = expectation_problem(item)
        if problem:
            raise BadRecording(f"{path}: expectation {number}: {problem}")
    return data
