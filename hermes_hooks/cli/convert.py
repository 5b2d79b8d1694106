"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks import --from AGENT PATH [--write]``: another agent's hook configuration as
``hooks:`` entries of config.yaml, for users who want one file.

The agent's file is read by the same readers the runtime uses (``hooks_sources``), so an
imported entry runs exactly as the original one does when read in place: each entry keeps the
agent's dialect (``protocol:``) and is keyed by the agent's event name. Everything that cannot
be carried over is reported; a guard that cannot be (a hook that can stop an action in its
agent) is an error listed at the end, and the command exits 1.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import State

if TYPE_CHECKING:
    from ..builtin_plugins.shell_hooks import ShellHook

AGENTS = ("claude", "codex", "gemini", "cursor", "copilot")


def read(agent: str, path: Path) -> tuple[list[ShellHook], list[str], list[str], Path]:
    """The hooks of ``agent`` in ``path`` (a file, or a project directory), the problems, the
    guards that could not be carried over, and the project directory."""
    from ..builtin_plugins.shell_hooks import readers
    from ..builtin_plugins.shell_hooks.claude_files import settings_files
    from ..builtin_plugins.shell_hooks.config import Reader
    from ..builtin_plugins.shell_hooks.settings_files import read_settings_file
    from ..manager import HookManager

    class Quiet(Reader):
        def warn(self, message: str) -> None:  # reported by the command, not logged too
            self.problems.append(message)

    reader = Quiet(HookManager())
    if path.is_dir():
        project = path
        where = settings_files(project) if agent == "claude" else readers.files_of(agent, project)
        files = [p for p in where if _under(p, project) and p.is_file()]
        if not files:
            reader.problems.append(f"{path}: no {agent} hook file found in this directory")
    else:
        files = [path]
        project = _project_of(path)
    for file in files:
        if agent == "claude":
            read_settings_file(file, reader)
        else:
            readers.read_agent_file(agent, file, reader, project)
    return reader.hooks, reader.problems, reader.guards, project


def _under(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def _project_of(path: Path) -> Path:
    """The project a hook file belongs to: the parent of ``.gemini``/``.cursor``/``.codex``/
    ``.claude``/``.github``, else the file's directory."""
    for parent in path.parents:
        if parent.name in (".gemini", ".cursor", ".codex", ".claude", ".github"):
            return parent.parent
    return path.parent


def entry_of(hook: ShellHook, project: Path) -> dict[str, Any]:
    """The config.yaml entry that runs ``hook`` as it runs where it was read."""
    from ..builtin_plugins.shell_hooks import DEFAULT_TIMEOUT, dialects
    from ..wire import CLAUDE

    entry: dict[str, Any] = {"command": hook.command, "protocol": hook.protocol}
    if hook.name and hook.name != hook.command:
        entry["name"] = hook.name
    if hook.matcher is not None:
        entry["matcher"] = hook.matcher
    if hook.timeout != DEFAULT_TIMEOUT:
        entry["timeout"] = hook.timeout
    if hook.fail_closed:
        entry["fail_closed"] = True
    if hook.working_dir:
        entry["working_dir"] = str((project / hook.working_dir).resolve())
    # The variables the agent sets to its project directory are kept when the entry moves:
    # its dialect's, or the runner's CLAUDE_PROJECT_DIR for a Claude Code hook.
    root = str(project.resolve())
    agent_vars = (
        {"CLAUDE_PROJECT_DIR": root} if hook.protocol == CLAUDE else dialects.env(hook, root)
    )
    env = dict(hook.env)
    for name, value in agent_vars.items():
        env.setdefault(name, value)
    if env:
        entry["env"] = env
    if hook.options.get("sequential"):
        entry["sequential"] = True
    return entry


def block_of(hooks: list[ShellHook], project: Path) -> dict[str, list[dict[str, Any]]]:
    """The ``hooks:`` mapping: entries under the agent's event names, in file order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for hook in hooks:
        out.setdefault(hook.configured_event, []).append(entry_of(hook, project))
    return out


def merge(config_path: Path, block: dict[str, list[dict[str, Any]]]) -> int:
    """Add ``block``'s entries to ``hooks:`` of the config file (identical ones once); the
    number added."""
    import yaml

    data: Any = {}
    if config_path.is_file():
        data = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise click.ClickException(f"{config_path}: the top level is not a mapping; not written")
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise click.ClickException(f"{config_path}: hooks: is not a mapping; not written")
    added = 0
    for event, entries in block.items():
        present = hooks.setdefault(event, [])
        if not isinstance(present, list):
            raise click.ClickException(f"{config_path}: hooks.{event} is not a list; not written")
        for entry in entries:
            if entry not in present:
                present.append(entry)
                added += 1
    config_path.parent.mkdir(parents=True, exist_ok=True)
    config_path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return added


@click.command("import")
@click.option("--from", "agent", type=click.Choice(AGENTS), required=True,
              help="The agent whose hook configuration PATH holds.")  # fmt: skip
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--write", is_flag=True, help="Add the entries to config.yaml instead of printing.")
@click.pass_obj
def import_cmd(state: State, agent: str, path: Path, write: bool) -> None:
    """Print (or --write into config.yaml) the hooks: entries equivalent to another agent's
    hook configuration in PATH (a file, or a project directory), and report what could not be
    carried over. Exits 1 when a guard could not be."""
    import yaml

    hooks, problems, guards, project = read(agent, path.absolute())
    block = block_of(hooks, project)
    if write:
        from ..config import find_home

        target = Path(state.config) if state.config else find_home(state.home) / "config.yaml"
        added = merge(target, block)
        click.echo(f"Added {added} entr{'y' if added == 1 else 'ies'} to {target}.")
    elif block:
        click.echo(yaml.safe_dump({"hooks": block}, sort_keys=False), nl=False)
    else:
        click.echo("# no hook could be carried over")
    for problem in problems:
        click.echo(f"not carried over: {problem}", err=True)
    if guards:
        click.echo("error: guards that could not be carried over:", err=True)
        for guard in guards:
            click.echo(f"  {guard}", err=True)
        sys.exit(1)
