"""``hermes hooks demo``: a recorded agent session replayed through the bundled example home.

The home (``hermes_hooks/demo/home``) holds one hook of every kind, each deciding something: a
Hermes-style Python plugin (``plugins/guard``: blocks destructive commands, asks before a push,
redacts a secret, adds context), a Hermes-protocol shell hook and an audit hook in
``config.yaml``, a Claude Code hook in ``settings.json`` and a gateway hook (``hooks/owner-only``);
the example entry-point plugin (``examples/hermes-hook-example``) is found through a real
``dist-info`` (``demo/site``). The demo copies the home to a private temporary directory (owner-only
modes, whatever the umask), replays ``demo/session.jsonl`` through it exactly as
``hermes hooks replay`` would, fires two gateway commands, and prints the timeline.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from ..terminal import echo

DEMO = Path(__file__).parent
DEMO_HOME = DEMO / "home"
DEMO_SESSION = DEMO / "session.jsonl"
DEMO_SITE = DEMO / "site"

#: Gateway events the demo emits: (event_type, context).
GATEWAY: list[tuple[str, dict[str, Any]]] = [
    ("command:reset", {"platform": "telegram", "user_id": "7", "command": "reset", "args": ""}),
    ("command:reset", {"platform": "telegram", "user_id": "42", "command": "reset", "args": ""}),
]


@dataclass
class DemoRun:
    """What the demo saw: the hook rows, the replay, the gateway answers and the audit log."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    replay: Any = None
    gateway: list[tuple[str, dict[str, Any], Any]] = field(default_factory=list)
    audit: list[str] = field(default_factory=list)


def run_demo(home: Path | None = None) -> DemoRun:
    """Replay the demo session through a private copy of the demo home."""
    import hermes_hooks
    from hermes_hooks.replay import read_session, replay

    with tempfile.TemporaryDirectory(prefix="hermes-hooks-demo-") as tmp:
        target = Path(tmp) / "home"
        shutil.copytree(home or DEMO_HOME, target, ignore=shutil.ignore_patterns("__pycache__"))
        _private(target)
        sys.path.insert(0, str(DEMO_SITE))  # the example plugin's dist-info: a real entry point
        try:
            hooks = hermes_hooks.load(target, accept_hooks=True)
        finally:
            sys.path.remove(str(DEMO_SITE))
        try:
            run = DemoRun(rows=[r for r in hooks.rows() if r.get("status") != "disabled"])
            run.replay = replay(hooks, read_session(DEMO_SESSION))
            for event_type, context in GATEWAY:
                run.gateway.append((event_type, context, hooks.emit_sync(event_type, context)))
        finally:
            hooks.close()  # before the home it runs from is removed
        audit = target / "audit.log"
        run.audit = audit.read_text().splitlines() if audit.exists() else []
        return run


def _private(root: Path) -> None:
    """Owner-only modes on the copy, whatever the installed files' modes (the package may have
    been installed under a group-writable umask, and gateway hooks refuse group-writable code)."""
    for path in [root, *root.rglob("*")]:
        if path.is_dir():
            path.chmod(0o700)
        else:
            path.chmod(0o700 if path.stat().st_mode & 0o100 else 0o600)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else "..." + text[-(width - 3) :]


@click.command("demo")
def demo_cmd() -> None:
    """Replay a recorded agent session through the bundled example home and show what every
    hook decided."""
    from hermes_hooks.cli.replay import print_summary, print_timeline

    run = run_demo()
    echo(f"Loaded {len(run.rows)} hook(s) from the demo home, in call order:")
    for row in run.rows:
        name = _short(str(row["name"]), 44)
        echo(f"  {row['event'] or '-':<22} {name:<44} {row['source']:<10} {row['status']}")
    echo("")
    print_timeline(run.replay)
    print_summary(run.replay.summary())
    echo("\nGateway (HOOK.yaml hook owner-only):")
    for event_type, context, result in run.gateway:
        verdict = f"{result.decision}: {result.message}" if result.decision else "allowed"
        echo(f"  {event_type} from user {context['user_id']} -> {verdict}")
    echo(f"\naudit.log, written by the post_tool_call shell hook ({len(run.audit)} line(s)):")
    for line in run.audit:
        echo(f"  {_short(line, 100)}")
    echo(f"\nThe example files: {DEMO_HOME} (the home) and {DEMO_SESSION} (the session).")
    echo("Next, try your own policy on the same session (shadow mode, nothing runs):")
    echo(f"  hermes hooks replay {DEMO_SESSION} --hook 'pre_tool_call=/path/to/your/script'")
