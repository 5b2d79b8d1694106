"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks import --from AGENT PATH [--write]``: another agent's hook configuration as
``hooks:`` entries of config.yaml, for users who want one file.

The agent's file is read by the same readers the runtime uses (``hooks_sources``), and each hook
is written as the entry that reader read it from (:attr:`ShellHook.entry`: a Claude Code
handler as a matcher group of its own, with its ``args``, ``if``, ``type``, ``async``, ...;
another agent's entry as its reader converted it), so nothing is translated twice. Only what
depends on where the file was read moves into the entry: the directory the agent runs its
hooks from (``working_dir``), the project variables it sets (``env``), a Claude Code plugin's
root.

Then the written entries are read back with the same reader and every hook compared, field by
field, with the hook read from the agent's file: an entry that would not run exactly as the
original is named. Anything that cannot be carried over exactly (a problem the reader reports,
a guard it cannot read, an entry that does not read back the same, an http or prompt hook
whose URL the target config refuses) makes the command exit 1 with the list, and ``--write``
then writes nothing.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import State

if TYPE_CHECKING:
    from ..builtin_plugins.shell_hooks import ShellHook
    from ..builtin_plugins.shell_hooks.config import Reader

AGENTS = ("claude", "codex", "gemini", "cursor", "copilot")
#: The fields of a hook that say where it was written, not how it runs.
_PLACE = frozenset({"origin", "index", "place", "entry"})


@dataclass
class Reading:
    """What was read from the agent's files."""

    hooks: list[ShellHook]
    problems: list[str]
    #: Guards (hooks that can stop an action in their agent) that cannot be carried over.
    guards: list[str]
    project: Path


def _reader(settings: Mapping[str, Any]) -> Reader:
    """The runtime's config reader, collecting its problems instead of logging them."""
    from ..builtin_plugins.shell_hooks.config import Reader
    from ..manager import HookManager

    class Quiet(Reader):
        def warn(self, message: str) -> None:  # reported by the command, not logged too
            self.problems.append(message)

    reader = Quiet(HookManager())
    reader.settings = settings
    return reader


def read(agent: str, path: Path, settings: Mapping[str, Any] | None = None) -> Reading:
    """The hooks of ``agent`` in ``path`` (a file, or a project directory), read as
    ``hooks_sources`` reads them with the target config's ``settings`` (its URL allow-list)."""
    from hermes_hooks.builtin_plugins.shell_hooks import config as readers
    from hermes_hooks.builtin_plugins.shell_hooks.config import read_settings_file, settings_files

    reader = _reader(settings or {})
    if path.is_dir():
        project = path
        where = settings_files(project) if agent == "claude" else readers.files_of(agent, project)
        # Every file the agent would read, a broken one (a directory, a dangling link) included:
        # the file reader reports why it cannot be read.
        files = [p for p in where if _under(p, project) and (p.exists() or p.is_symlink())]
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
    return Reading(reader.hooks, reader.problems, reader.guards, project)


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


def _runs_process(hook: ShellHook) -> bool:
    """Whether a process starts for the hook (a command, a warm worker): what its working
    directory and environment apply to."""
    from ..builtin_plugins.shell_hooks.matching import REMOTE_KINDS, UNREADABLE

    return hook.kind not in (*REMOTE_KINDS, UNREADABLE, "mcp_tool")


def moved(hook: ShellHook, project: Path) -> ShellHook:
    """``hook`` as it must be once its entry leaves the agent's file: a process starts in the
    directory the agent starts it in (the project; a relative ``working_dir`` from there) with
    the variables the agent sets (Claude Code's ``CLAUDE_PROJECT_DIR``, the dialect's), and a
    Claude Code plugin's root becomes ``CLAUDE_PLUGIN_ROOT`` in its ``env``."""
    from hermes_hooks.builtin_plugins.shell_hooks import matching
    from hermes_hooks.builtin_plugins.shell_hooks.protocol import CLAUDE

    if not _runs_process(hook):
        return hook
    root = os.path.normpath(str(project.absolute()))
    workdir = hook.working_dir
    if not workdir:
        workdir = root
    elif not workdir.startswith(("$", "~")) and not os.path.isabs(workdir):
        workdir = os.path.normpath(os.path.join(root, workdir))
    agent_vars = (
        {"CLAUDE_PROJECT_DIR": root} if hook.protocol == CLAUDE else matching.env(hook, root)
    )
    if hook.plugin_root:
        agent_vars["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
    env = {**agent_vars, **hook.env}  # the entry's own env wins, as when it runs in place
    return dataclasses.replace(hook, working_dir=workdir, env=env, plugin_root=None)


def entry_of(hook: ShellHook, target: ShellHook) -> dict[str, Any]:
    """The config.yaml entry that runs ``hook`` as ``target`` (:func:`moved`): the entry it
    was read from, with the working directory and environment it runs with."""
    assert hook.entry is not None
    entry = copy.deepcopy(dict(hook.entry))
    grouped = isinstance(entry.get("hooks"), list) and "command" not in entry
    inner = entry["hooks"][0] if grouped else entry
    if not grouped:  # read with the file's protocol; in config.yaml the default is ours
        inner.setdefault("protocol", hook.protocol)
    if _runs_process(hook):
        inner["working_dir"] = target.working_dir
        if target.env:
            inner["env"] = dict(target.env)
    return entry


def signature(hook: ShellHook) -> dict[str, str]:
    """Every field that decides whether and how ``hook`` runs (not where it was written)."""
    out = {}
    for f in dataclasses.fields(hook):
        if f.name in _PLACE:
            continue
        value = getattr(hook, f.name)
        if f.name == "pattern" and value is not None:
            value = value.pattern
        elif f.name == "canary" and value is not None:  # less its place ("where")
            value = {k: v for k, v in value.items() if k != "where"}
        out[f.name] = repr(value)
    return out


def _frozen(hook: ShellHook) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(signature(hook).items()))


def _read_block(block: Any, origin: str, settings: Mapping[str, Any]) -> Reader:
    """A ``hooks:`` mapping read as config.yaml's is read by the runtime."""
    from hermes_hooks.builtin_plugins.shell_hooks.protocol import HERMES

    reader = _reader(settings)
    reader.block(block, origin, HERMES)
    return reader


@dataclass
class Plan:
    """The entries to write, and everything that keeps them from being an exact copy."""

    block: dict[str, list[dict[str, Any]]]
    expected: list[ShellHook]
    errors: list[str]


def plan(reading: Reading, origin: str, settings: Mapping[str, Any]) -> Plan:
    """The ``hooks:`` mapping (entries under the agent's event names, in file order), checked by
    reading it back: each written entry must give the hook read from the agent's file, moved."""
    from ..builtin_plugins.shell_hooks import kinds

    block: dict[str, list[dict[str, Any]]] = {}
    pairs: list[tuple[ShellHook, ShellHook]] = []
    errors: list[str] = []
    for hook in reading.hooks:
        target = moved(hook, reading.project)
        if hook.entry is None:
            errors.append(f"{hook.where}: its entry was not kept by the reader; not carried over")
            continue
        block.setdefault(hook.configured_event, []).append(entry_of(hook, target))
        pairs.append((hook, target))
    # Written in event order: the hooks read back come in that order too.
    pairs.sort(key=lambda pair: list(block).index(pair[0].configured_event))
    back = _read_block(block, origin, settings)
    if not reading.problems:  # else the same problems again, named above in their own file
        errors += [f"the written entry reads with a problem: {p}" for p in back.problems]
    if len(back.hooks) == len(pairs):
        for (hook, target), got in zip(pairs, back.hooks, strict=True):
            want, have = signature(target), signature(got)
            differ = sorted(k for k in want if want[k] != have[k])
            if differ:
                errors.append(f"{hook.where}: the written entry would not run as it does in "
                              f"its file ({', '.join(differ)} differ); not carried over")  # fmt: skip
    else:
        missing = Counter(_frozen(t) for _, t in pairs) - Counter(map(_frozen, back.hooks))
        for hook, target in pairs:
            if missing[_frozen(target)] > 0:
                missing[_frozen(target)] -= 1
                errors.append(f"{hook.where}: the written entry does not read back as this hook; "
                              "not carried over")  # fmt: skip
    for hook in reading.hooks:  # read with the target config's allow-lists
        why = kinds.PROBLEMS[hook.kind](hook) if hook.kind in kinds.PROBLEMS else None
        said = any(p.startswith(f"{hook.where}: ") for p in reading.problems)
        if why and not said:  # (a refused URL was said by the reader, with its fix)
            errors.append(f"{hook.where}: would not run from {origin}: {why}")
    return Plan(block, [t for _, t in pairs], errors)


def _target(state: State) -> Path:
    """The config file the entries go to: ``--config``, else the home's config file as the
    runtime finds it (``config.yaml``, or ``cli-config.yaml`` when only that one exists)."""
    from ..config import CONFIG_NAMES, config_file, find_home

    if state.config:
        return Path(state.config).expanduser()
    home = find_home(state.home)
    return config_file(home) or home / CONFIG_NAMES[0]


def _current(target: Path) -> dict[str, Any]:
    """The target config as a mapping (``{}`` when there is none); a file that cannot be read
    as the runtime reads it is refused: nothing is written over it."""
    from ..config import read_yaml
    from ..trust import untrusted

    if not target.exists():
        return {}
    distrust = untrusted(target)
    if distrust is not None:
        raise click.ClickException(f"{target}: refused: {distrust}; nothing was written")
    data, error = read_yaml(target)
    if error:
        raise click.ClickException(f"{error}; nothing was written")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise click.ClickException(f"{target}: the top level is not a mapping; nothing was written")
    return data


def merge(target: Path, data: dict[str, Any], new: Plan) -> tuple[int, Path | None]:
    """Add ``new``'s entries to the ``hooks:`` of ``data`` (the target config; identical
    entries once), check that every hook it had and every imported one reads back from the
    result, back the file up and write it. The number added and the backup."""
    import yaml

    settings = _settings(data)
    before = _read_block(data.get("hooks"), str(target), settings).hooks
    merged = copy.deepcopy(data)
    hooks = merged.setdefault("hooks", {})
    if hooks is None:
        hooks = merged["hooks"] = {}
    if not isinstance(hooks, dict):
        raise click.ClickException(f"{target}: hooks: is not a mapping; nothing was written")
    added = 0
    for event, entries in new.block.items():
        present = hooks.setdefault(event, [])
        if present is None:
            present = hooks[event] = []
        if not isinstance(present, list):
            raise click.ClickException(
                f"{target}: hooks.{event} is not a list; nothing was written"
            )
        for entry in entries:
            if entry not in present:
                present.append(entry)
                added += 1
    if not added:
        return 0, None
    after = Counter(map(_frozen, _read_block(hooks, str(target), settings).hooks))
    lost = [h.where for h in before if after[_frozen(h)] == 0]
    absent = [h for h in new.expected if after[_frozen(h)] == 0]
    if lost or absent:
        names = [f"  {w}: would no longer be read" for w in lost] + [
            f"  {h.where}: would not be read from the merged file" for h in absent
        ]
        raise click.ClickException(f"{target}: merging would change its hooks; nothing was "
                                   "written:\n" + "\n".join(names))  # fmt: skip
    text = yaml.safe_dump(merged, sort_keys=False, allow_unicode=True)
    backup = _write(target, text)
    return added, backup


def _settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """What the runtime's reader takes from config.yaml (the http allow-lists)."""
    from hermes_hooks.builtin_plugins.shell_hooks.config import SETTINGS

    return {k: config.get(k) for k in SETTINGS}


def _write(target: Path, text: str) -> Path | None:
    """Write ``text`` to ``target`` at once (a reader never sees half a file), keeping its mode;
    the old file is kept as a backup first (``config.yaml.bak``, ``.bak.2``, ...)."""
    import shutil

    target.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if target.exists():
        backup = next(
            p for n in range(1, 10_000)
            if not (p := target.with_name(target.name + (".bak" if n == 1 else f".bak.{n}"))).exists()
        )  # fmt: skip
        shutil.copy2(target, backup)
    temp = target.with_name(f".{target.name}.import-{os.getpid()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if backup is not None:
            shutil.copymode(backup, temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return backup


def _also_read_in_place(agent: str, config: Mapping[str, Any]) -> str | None:
    """A note when the target config already reads ``agent``'s files in place: the imported
    hooks would run twice."""
    from hermes_hooks.builtin_plugins.shell_hooks.config import reads_sources

    if reads_sources(config, agent):
        return (f"note: the config also reads {agent}'s files in place (hooks_sources: {agent}); "
                f"remove {agent!r} from hooks_sources, or each imported hook runs twice")  # fmt: skip
    return None


@click.command("import")
@click.option("--from", "agent", type=click.Choice(AGENTS), required=True,
              help="The agent whose hook configuration PATH holds.")  # fmt: skip
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option("--write", is_flag=True, help="Add the entries to config.yaml instead of printing.")
@click.pass_obj
def import_cmd(state: State, agent: str, path: Path, write: bool) -> None:
    """Print (or --write into config.yaml) the hooks: entries that run exactly as another
    agent's hook configuration in PATH (a file, or a project directory). Exits 1, naming each
    entry, when anything cannot be carried over exactly; --write then writes nothing."""
    import yaml

    target = _target(state)
    config = _current(target) if write else _quiet_current(target)
    settings = _settings(config)
    reading = read(agent, path.absolute(), settings)
    planned = plan(reading, str(target), settings)
    errors = [*reading.problems, *planned.errors]
    failed = bool(errors or reading.guards)
    if write and not failed:
        added, backup = merge(target, config, planned)
        said = f"Added {added} entr{'y' if added == 1 else 'ies'} to {target}"
        click.echo(said + (f" (the previous file is {backup})." if backup else "."))
        if added:
            click.echo("Approve them before they run: hermes hooks approve --all")
    elif not write:
        if planned.block:
            click.echo(yaml.safe_dump({"hooks": planned.block}, sort_keys=False), nl=False)
        else:
            click.echo("# no hook could be carried over")
    note = _also_read_in_place(agent, config)
    if note:
        click.echo(note, err=True)
    for problem in errors:
        click.echo(f"not carried over: {problem}", err=True)
    if reading.guards:
        click.echo("error: guards that could not be carried over:", err=True)
        for guard in reading.guards:
            click.echo(f"  {guard}", err=True)
    if failed:
        count = len(errors) + len(reading.guards)
        click.echo(f"error: {count} problem(s) above: these entries would not run from "
                   f"{target} exactly as in their agent; fix each as it says and import again"
                   + (f"; nothing was written to {target}" if write else ""), err=True)  # fmt: skip
        sys.exit(1)


def _quiet_current(target: Path) -> dict[str, Any]:
    """The target config for printing: its allow-lists judge the http and prompt entries; a
    target that cannot be read is judged as empty (printing writes nothing)."""
    try:
        return _current(target)
    except click.ClickException:
        return {}
