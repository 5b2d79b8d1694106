"""``hermes hooks demo``: a short scripted agent session against the bundled example home."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import click

DEMO_HOME = Path(__file__).parent / "home"

#: The scripted session: (event, kwargs) pairs, as an agent runtime would fire them.
SESSION: list[tuple[str, dict[str, Any]]] = [
    ("on_session_start", {"session_id": "demo", "model": "demo-model", "platform": "cli"}),
    (
        "pre_llm_call",
        {"session_id": "demo", "user_message": "clean up the disk", "is_first_turn": True},
    ),
    (
        "pre_tool_call",
        {"tool_name": "terminal", "args": {"command": "ls -la"}, "session_id": "demo"},
    ),
    (
        "pre_tool_call",
        {
            "tool_name": "terminal",
            "args": {"command": "rm -rf / --no-preserve-root"},
            "session_id": "demo",
        },
    ),
    (
        "pre_tool_call",
        {
            "tool_name": "terminal",
            "args": {"command": "git push origin main"},
            "session_id": "demo",
        },
    ),
    (
        "transform_tool_result",
        {
            "tool_name": "terminal",
            "args": {"command": "cat .env"},
            "result": "OPENAI_KEY=sk-abc123def456",
        },
    ),
    (
        "post_tool_call",
        {
            "tool_name": "terminal",
            "args": {"command": "ls -la"},
            "result": "ok",
            "status": "ok",
            "session_id": "demo",
        },
    ),
    ("on_session_end", {"session_id": "demo", "completed": True}),
]


def _show(value: Any) -> str:
    if value is None:
        return "(no hook answered)"
    if hasattr(value, "__dataclass_fields__"):
        fields = {k: v for k, v in vars(value).items() if v is not None}
        return f"{type(value).__name__}({', '.join(f'{k}={v!r}' for k, v in fields.items())})"
    return repr(value)


def run_demo(home: Path | None = None, *, accept_hooks: bool = True) -> list[tuple[str, Any]]:
    """Load the demo home (a private copy) and fire the session; return (event, result) pairs."""
    import hermes_hooks

    with tempfile.TemporaryDirectory(prefix="hermes-hooks-demo-") as tmp:
        target = Path(tmp) / "home"
        shutil.copytree(home or DEMO_HOME, target, ignore=shutil.ignore_patterns("__pycache__"))
        hooks = hermes_hooks.load(target, accept_hooks=accept_hooks, entry_points=False)
        outcome = [("rows", hooks.rows())]
        for event, kwargs in SESSION:
            outcome.append((event, hooks.call(event, **kwargs)))
        return outcome


@click.command("demo")
def demo_cmd() -> None:
    """Run a short agent session against the bundled example home and show what the hooks did."""
    outcome = run_demo()
    rows = outcome[0][1]
    click.echo(f"Loaded {len(rows)} hook(s) from the demo home:")
    for row in rows:
        click.echo(f"  {row['event']:<24} {row['name']:<12} {row['source']:<10} {row['status']}")
    click.echo("")
    click.echo("Session:")
    for (event, kwargs), (_, result) in zip(SESSION, outcome[1:], strict=True):
        what = (
            kwargs.get("args", {}).get("command")
            if "args" in kwargs
            else kwargs.get("user_message", "")
        )
        click.echo(f"  {event}{f' ({what})' if what else ''}")
        click.echo(f"    -> {_show(result)}")
