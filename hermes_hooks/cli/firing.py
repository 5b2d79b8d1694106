"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks test``: fire one event through the runtime's own dispatcher and show what every
hook of every source did.

Python plugins and gateway hooks are watched with an in-memory tracer (:class:`~hermes_hooks.
trace.Collector`: the arguments each received, its raw answer, the normalised answer or why it
was ignored, the time); shell hooks with the shell source's recording (the exact stdin, exit
code, output). Both are shown in call order, then the combined result.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..terminal import echo
from . import State, _logging
from .shell import _event, _no_hooks, _runtime

if TYPE_CHECKING:
    from ..catalogue import EventInfo


def payload_for(
    info: EventInfo,
    for_tool: str | None = None,
    payload_file: str | None = None,
    gateway: str | None = None,
) -> tuple[dict[str, Any], str | None]:
    """The event's example arguments, with ``--for-tool``, ``--gateway`` and ``--payload-file``
    applied; and the form the payload file was detected as."""
    from .payloads import PayloadError, to_kwargs

    payload = dict(info.example)
    if for_tool is not None:
        payload["tool_name"] = for_tool
    if gateway is not None:
        payload["event_type"] = gateway
    form = None
    if payload_file:
        try:
            custom = json.loads(Path(payload_file).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise click.UsageError(f"--payload-file {payload_file}: {exc}") from exc
        if not isinstance(custom, dict):
            raise click.UsageError(f"--payload-file {payload_file}: must hold a JSON object")
        try:
            kwargs, form = to_kwargs(info, custom)
        except PayloadError as exc:
            raise click.UsageError(f"--payload-file {payload_file}: {exc}") from exc
        payload.update(kwargs)
    return payload, form


def _dumps(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


@click.command("test")
@click.argument("event", required=False)
@click.option("--for-tool", "for_tool", help="Pretend the call is for this tool (tool events).")
@click.option(
    "--payload-file",
    type=click.Path(dir_okay=False),
    help="The event's keyword arguments, or the wire JSON a shell hook reads, as a JSON object.",
)
@click.option(
    "--gateway", "gateway", metavar="EVENT_TYPE", help="Fire a gateway event (command:reset, ...)."
)
@click.option(
    "--command",
    "command",
    metavar="LINE",
    help="A shell command line: fire the event for the shell tool with this command, and show "
    "what command_guard makes of each simple command.",
)
@click.option("--json", "as_json", is_flag=True, help="Print {event, hooks, result} as JSON.")
@click.option("--force", is_flag=True, help="Also run hooks that are not approved (or changed).")
@click.pass_obj
def test_cmd(
    state: State,
    event: str | None,
    for_tool: str | None,
    payload_file: str | None,
    gateway: str | None,
    command: str | None,
    as_json: bool,
    force: bool,
) -> None:
    """Fire EVENT with a realistic synthetic payload through the runtime's dispatcher: every
    hook of every source runs, as in the agent. Shows, for each hook, the payload it received
    (a shell hook's exact stdin), its raw answer, the normalised answer or why it was ignored,
    and the time; then the combined result.

    Unapproved shell hooks are listed and not run unless --force.
    """
    _logging()
    from ..builtin_plugins.shell_hooks import plain
    from ..trace import Collector

    if event is None and gateway is None:
        raise click.UsageError("name an EVENT, or a gateway event with --gateway EVENT_TYPE")
    hooks, source = _runtime(state)
    info = _event(hooks, event or "gateway_event")
    name = info.name
    if gateway is not None and "event_type" not in info.args:
        raise click.UsageError(f"--gateway fires gateway events; {name} is not one")
    payload, form = payload_for(info, for_tool, payload_file, gateway)
    if command is not None:
        if "args" not in info.args:
            raise click.UsageError(f"--command gives a tool call's command; {name} has no args")
        payload["tool_name"] = for_tool or "terminal"
        payload["args"] = {**(payload.get("args") or {}), "command": command}
    guards = [s for s in hooks.sources() if hasattr(s, "explain_command")]
    explained = [g.explain_command(command) for g in guards] if command is not None else []
    collector = Collector()
    hooks.tracer = collector
    if source is None:
        result = hooks.call(name, **payload)
        runs = []
    else:
        with source.recording(force=force) as report:
            result = hooks.call(name, **payload)
        runs = report.runs
    entries = _entries(collector.receipts, list(runs))
    if as_json:
        doc = {"event": name, "payload_form": form, "payload": payload, "hooks": entries,
               "result": plain(result)}  # fmt: skip
        if explained:
            doc["command_guard"] = explained[0]
        click.echo(json.dumps(doc, indent=2, default=str))
        return
    if form is not None:
        echo(f"--payload-file: read as {form}.")
    shell_rows = [r for r in hooks.rows(event=name) if r.get("source") == "shell"]
    if not entries:
        if source is None or not shell_rows:
            echo(f"No hook of {name} ran.")
            if source is None:
                _no_hooks(hooks)
        else:
            echo(
                f"No shell hook matches {name}" + (f" for tool {for_tool!r}." if for_tool else ".")
            )
    else:
        echo(f"Firing {name}: {len(entries)} hook(s), in call order:")
    for entry in entries:
        if entry["source"] == "shell":
            _show_shell(entry)
        else:
            _show_python(entry)
    for item in explained:
        echo(f"\ncommand_guard on `{command}`:")
        from .explain import show

        show(item)
    echo(f"\nCombined result: {_dumps(plain(result))}")


def _entries(receipts: list[dict[str, Any]], runs: list[Any]) -> list[dict[str, Any]]:
    """One entry per hook run, in call order: shell receipts are matched to their runs."""
    out: list[dict[str, Any]] = []
    for receipt in receipts:
        if receipt["source"] == "shell" and runs:
            out.append({"source": "shell", **runs.pop(0).report()})
            continue
        out.append(
            {
                "name": receipt["hook"],
                "source": receipt["source"],
                "payload": receipt.get("payload"),
                "raw": receipt.get("raw"),
                "answer": receipt["decision"],
                "outcome": receipt["outcome"],
                "dropped": receipt["dropped"],
                "failure": receipt["error"],
                "elapsed_ms": receipt["ms"],
            }
        )
    out += [{"source": "shell", **run.report()} for run in runs]  # not traced (no tracer)
    return out


def _show_python(e: dict[str, Any]) -> None:
    echo(f"\n- {e['name']}  ({e['source']})  {e['elapsed_ms']} ms")
    echo(f"  received: {_dumps(e['payload'])}")
    echo(f"  returned: {_dumps(e['raw'])}")
    if e["failure"]:
        echo(f"  failed: {e['failure']}")
    elif e["dropped"]:
        echo(f"  ignored: {e['dropped']}")
    else:
        echo(f"  answer: {_dumps(e['answer'])}")


def _show_shell(r: dict[str, Any]) -> None:
    echo(f"\n- {r['name']}  (shell)  [{r['status']}]")
    if r["name"] != r["command"]:
        echo(f"  command: {r['command']}")
    if not r["ran"]:
        echo(f"  not run: {r['detail']} (approve it with `hermes hooks approve "
                   f"{shlex.quote(r['command'])}`, or pass --force)")  # fmt: skip
        if r["answer"] is not None:
            echo(f"  answer: {_dumps(r['answer'])}")
        return
    echo(f"  stdin: {(r['stdin'] or '').rstrip()}")
    echo(f"  exit code: {r['exit_code']}   elapsed: {r['elapsed_ms']} ms")
    if r.get("persistent"):
        echo(f"  warm worker: pid {r['pid']} (one JSON line per event; it keeps running)")
    for key in ("stdout", "stderr"):
        text = r[key].rstrip("\n")
        echo(f"  {key}: {text if text else '(empty)'}")
    if r["dropped"]:
        echo(f"  ignored: {r['dropped']}")
    else:
        echo(f"  answer: {_dumps(r['answer'])}")
    for key in ("defaulted", "failure", "warning"):
        if r[key]:
            echo(f"  {key}: {r[key]}")
