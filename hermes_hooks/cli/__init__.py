"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

The ``hermes hooks`` command line (also installed as ``hermes-hooks``).

This module holds the group, the options every command shares and the two console scripts.
Commands live in their own modules and are imported only when run, so ``--help`` stays fast:
:data:`COMMANDS` names each command's module. Every command works when a plugin is broken: this
is the recovery tool.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

# name -> (module, attribute, one-line help). Imported on use only.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "list": ("hermes_hooks.cli.listing", "list_cmd", "Show every hook in the order it runs."),
    "events": ("hermes_hooks.cli.listing", "events_cmd", "Show the event catalogue."),
    "test": (
        "hermes_hooks.cli.firing",
        "test_cmd",
        "Fire an event through the dispatcher; show what every hook did.",
    ),
    "explain-command": (
        "hermes_hooks.cli.explain",
        "explain_cmd",
        "Show what command_guard makes of a command line, simple command by simple command.",
    ),
    "approve": (
        "hermes_hooks.cli.shell",
        "approve_cmd",
        "Approve shell hooks (pins each script's hash).",
    ),
    "revoke": (
        "hermes_hooks.cli.shell",
        "revoke_cmd",
        "Remove every approval of a shell hook command.",
    ),
    "doctor": (
        "hermes_hooks.cli.doctor",
        "doctor_cmd",
        "Check every source: config, plugins, gateway and shell hooks, required guards.",
    ),
    "verify": (
        "hermes_hooks.cli.doctor",
        "verify_cmd",
        "Fire every guard's canary; fail when a guard does not decide as expected.",
    ),
    "stats": (
        "hermes_hooks.cli.stats",
        "stats_cmd",
        "Summarise a trace_file: runs, p50/p95/max ms, blocks, failures per hook.",
    ),
    "demo": (
        "hermes_hooks.demo",
        "demo_cmd",
        "Run a short agent session against the bundled example.",
    ),
    "install": (
        "hermes_hooks.cli.plugins",
        "install_cmd",
        "Install plugin packages and show what they register.",
    ),
    "uninstall": ("hermes_hooks.cli.plugins", "uninstall_cmd", "Remove plugin packages."),
    "new": ("hermes_hooks.cli.scaffold", "new_cmd", "Scaffold a plugin package hermes-hook-NAME."),
    "replay": (
        "hermes_hooks.cli.replay",
        "replay_cmd",
        "Drive a recorded session through the hooks and show what they decided.",
    ),
    "snapshots": (
        "hermes_hooks.cli.snapshots",
        "snapshots_cmd",
        "List the work-tree snapshots of a repository (the snapshot built-in).",
    ),
    "restore": (
        "hermes_hooks.cli.snapshots",
        "restore_cmd",
        "Restore a work-tree snapshot (shows what changes; asks first).",
    ),
    "import": (
        "hermes_hooks.cli.convert",
        "import_cmd",
        "Print (or --write) the config.yaml entries of another agent's hook configuration.",
    ),
    "serve": (
        "hermes_hooks.cli.serve",
        "serve_cmd",
        "Serve the hooks to other agents over HTTP (POST /v1/hooks/<agent>/<event>).",
    ),
    "client": (
        "hermes_hooks.cli.serve",
        "client_cmd",
        "A command hook for another agent: stdin to the service, its reply out.",
    ),
    "install-into": (
        "hermes_hooks.cli.agents",
        "install_into_cmd",
        "Route an agent's hooks (claude, codex, gemini, cursor, copilot) to hermes-hooks.",
    ),
    "uninstall-from": (
        "hermes_hooks.cli.agents",
        "uninstall_from_cmd",
        "Take out of an agent's hook file exactly what install-into added.",
    ),
    "new-hook": (
        "hermes_hooks.cli.scaffold",
        "new_hook_cmd",
        "Scaffold a shell hook script for an event.",
    ),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported when invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        import importlib

        cmd = getattr(importlib.import_module(target[0]), target[1])
        assert isinstance(cmd, click.Command)
        if not cmd.epilog:
            cmd.epilog = GLOBAL_HELP
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The help page lists the commands from the table, so --help imports none of them.
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][2]) for name in self.list_commands(ctx)])


GLOBAL_HELP = (
    "Global options (before or after the command): --home PATH (the hermes home), "
    "--config FILE, --accept-hooks, --verbose (full tracebacks for plugin failures)."
)


def paint(text: str, colour: str) -> str:
    """``text`` in ``colour`` on a terminal, unless ``NO_COLOR`` is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return text
    return click.style(text, fg=colour)


class State:
    """Options shared by every command (``--home``, ``--accept-hooks``, ``--config``)."""

    def __init__(self, home: str | None, accept_hooks: bool, config: str | None) -> None:
        self.home = home
        self.accept_hooks = accept_hooks
        self.config = config
        self._hooks: Any = None

    def load(self, **kwargs: Any) -> Any:
        """The loaded hook system (once per command run), built as the agent builds it."""
        if self._hooks is None:
            from ..runtime import build_runtime

            self._hooks = build_runtime(
                self.home, self.config, accept_hooks=self.accept_hooks, **kwargs
            )
        return self._hooks

    def close(self) -> None:
        """Release what the loaded hooks hold (warm workers, threads) when the command ends."""
        if self._hooks is not None:
            self._hooks.close()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--home",
    type=click.Path(file_okay=False),
    envvar="HERMES_HOME",
    help="The hermes home (default: $HERMES_HOME, else ~/.hermes).",
)
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    help="Read this config file instead of <home>/config.yaml.",
)
@click.option(
    "--accept-hooks",
    is_flag=True,
    envvar="HERMES_ACCEPT_HOOKS",
    help="Approve every configured shell hook without asking.",
)
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Full tracebacks (file and line) for plugin failures (also HERMES_HOOKS_DEBUG=1).",
)
@click.version_option(package_name="hermes-hooks", prog_name="hermes-hooks")
@click.pass_context
def hooks_group(
    ctx: click.Context, home: str | None, config: str | None, accept_hooks: bool, verbose: bool
) -> None:
    """Manage and inspect the hooks of an agent runtime: Python plugins, shell hooks and
    gateway hooks, through one dispatcher."""
    if verbose:
        os.environ["HERMES_HOOKS_DEBUG"] = "1"
    ctx.obj = State(home, accept_hooks, config)
    ctx.call_on_close(ctx.obj.close)


def _logging(verbose: bool = False) -> None:
    import logging

    from ..terminal import ShownFormatter

    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="hermes-hooks: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    for handler in logging.getLogger().handlers:
        if not isinstance(handler.formatter, ShownFormatter):
            handler.setFormatter(ShownFormatter("hermes-hooks: %(levelname)s: %(message)s"))


# ---------------------------------------------------------------------- entry points


_GLOBAL_VALUED = ("--home", "--config")
_GLOBAL_FLAGS = ("--accept-hooks", "--verbose", "-v")


def hoist_global_options(args: list[str]) -> list[str]:
    """Move the global options to the front, so ``hermes hooks list --home X`` works too."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        if arg in _GLOBAL_FLAGS:
            front.append(arg)
        elif arg in _GLOBAL_VALUED and i + 1 < len(args):
            front.extend(args[i : i + 2])
            i += 1
        elif arg.startswith(tuple(f"{o}=" for o in _GLOBAL_VALUED)):
            front.append(arg)
        else:
            rest.append(arg)
        i += 1
    return front + rest


def run(args: list[str], prog_name: str = "hermes hooks") -> None:
    """Run ``hermes hooks`` with these arguments."""
    hooks_group.main(args=hoist_global_options(args), prog_name=prog_name)


def main(argv: list[str] | None = None) -> None:
    """``hermes-hooks ...``: always our command line (``hermes-hooks hooks ...`` works too)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hooks"]:
        args = args[1:]
    if argv is not None:
        run(args, prog_name="hermes-hooks")
        return
    run_as_script(args, prog_name="hermes-hooks")


def run_as_script(args: list[str], prog_name: str = "hermes hooks") -> None:
    """Run as a console script: never hang at exit on a plugin's non-daemon thread."""
    from .streams import exit_despite_threads

    try:
        run(args, prog_name=prog_name)
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    exit_despite_threads(code)
