"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks new`` and ``new-hook``: scaffolds written from ``hermes_hooks/templates``, a
plugin package ready to install and test, or a shell hook script that speaks the wire protocol."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Any

import click

from . import State

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
_PLUGIN_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_HOOK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


# ---------------------------------------------------------------------- scaffolds


def render(template: Path, values: dict[str, str]) -> str:
    """A template's text with every ``{{key}}`` replaced."""
    text = template.read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def plugin_names(name: str) -> dict[str, str]:
    """``name``, ``dist`` (``hermes-hook-NAME``) and ``module`` (``hermes_hook_NAME``)."""
    clean = name.strip().lower()
    for prefix in ("hermes-hook-", "hermes_hook_"):
        if clean.startswith(prefix):
            clean = clean[len(prefix) :]
    if not _PLUGIN_NAME.match(clean):
        raise click.BadParameter(
            f"{name!r}: use lowercase letters, digits, '-' and '_' (e.g. `hermes hooks new guard`)",
            param_hint="NAME",
        )
    return {
        "name": clean,
        "dist": f"hermes-hook-{clean}",
        "module": "hermes_hook_" + clean.replace("-", "_"),
    }


def scaffold_plugin(name: str, directory: Path) -> Path:
    """Write the plugin package ``hermes-hook-NAME`` under ``directory``; return its path."""
    values = plugin_names(name)
    target = directory / values["dist"]
    if target.exists():
        raise click.ClickException(f"{target} already exists; choose another name or --dir")
    files = {
        "pyproject.toml": "pyproject.toml.tmpl",
        "README.md": "README.md.tmpl",
        "conftest.py": "conftest.py.tmpl",
        f"{values['module']}/__init__.py": "module/__init__.py.tmpl",
        "tests/test_plugin.py": "tests/test_plugin.py.tmpl",
    }
    for rel, template in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(TEMPLATES / "plugin" / template, values), encoding="utf-8")
    return target


@click.command("new")
@click.argument("name")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="Where to create the package directory.",
)
def new_cmd(name: str, directory: str) -> None:
    """Scaffold a plugin package hermes-hook-NAME: pyproject with the entry point, a module with
    a pre_tool_call and a pre_llm_call hook, tests using hermes_hooks.testing, a README."""
    target = scaffold_plugin(name, Path(directory))
    values = plugin_names(name)
    shown = os.path.relpath(target) if not Path(directory).is_absolute() else str(target)
    click.echo(f"Created {values['dist']} in {shown}:")
    click.echo(
        f'  pyproject.toml                  entry point {values["name"]} = "{values["module"]}"'
    )
    click.echo(f"  {values['module'] + '/__init__.py':<32}pre_tool_call and pre_llm_call hooks")
    click.echo(f"  {'tests/test_plugin.py':<32}tests with the hermes_hooks.testing fixtures")
    click.echo("Next:")
    click.echo(f"  cd {shlex.quote(shown)}")
    click.echo("  hermes hooks install --editable '.[test]'")
    click.echo("  python -m pytest")
    click.echo("  hermes hooks list")


def _indented_dumper() -> Any:
    import yaml

    class Dumper(yaml.SafeDumper):
        # List items indented under their key, as config.yaml examples are written.
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, False)

    return Dumper


def hook_kind(event: str) -> str:
    """Which example a ``new-hook`` script gets: ``block``, ``context`` or ``observe``."""
    from ..catalogue import get

    info = get(event)
    if info is None:
        return "observe"
    if info.kind == "decide" and info.tool_event:
        return "block"
    if info.kind == "observe":
        return "observe"
    # The context example answers {"context": ...}: fit for every event whose answer type
    # takes it (context events, and decisions that carry context, such as user_prompt_submit).
    probe = info.answer.normalise({"context": "probe"}, None)
    if probe == "probe" or getattr(probe, "context", None) == "probe":
        return "context"
    return "observe"


@click.command("new-hook")
@click.argument("name")
@click.option(
    "--event", "event", required=True, help="The event (our name or a Claude Code alias)."
)
@click.option(
    "--lang",
    type=click.Choice(["bash", "python"]),
    default="bash",
    show_default=True,
    help="The script's language.",
)
@click.option(
    "--matcher", default=None, help="Tool-name regex for tool events (default: terminal)."
)
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False),
    default=None,
    help="Where to write the script (default: <home>/shell-hooks).",
)
@click.option(
    "--persistent",
    is_flag=True,
    help="A warm worker: started once, one JSON line per event (persistent: true).",
)
@click.pass_obj
def new_hook_cmd(state: State, name: str, event: str, lang: str, matcher: str | None,
                 directory: str | None, persistent: bool) -> None:  # fmt: skip
    """Scaffold a shell hook script that speaks the wire protocol (or, with --persistent, a warm
    worker), and print the config.yaml lines that enable it."""
    import sys

    import yaml

    from ..catalogue import UnknownEvent, events, resolve
    from ..config import find_home

    try:
        info = events()[resolve(event)]
    except UnknownEvent as exc:
        raise click.BadParameter(str(exc), param_hint="--event") from exc
    if not _HOOK_NAME.match(name):
        raise click.BadParameter(
            f"{name!r}: use letters, digits, '.', '-' and '_'", param_hint="NAME"
        )
    home = find_home(state.home)
    folder = Path(directory) if directory else home / "shell-hooks"
    kind = hook_kind(info.name)
    suffix = ".sh" if lang == "bash" else ".py"
    script = (folder / f"{name}{suffix}").absolute()
    if script.exists():
        raise click.ClickException(f"{script} already exists; choose another name or --dir")
    folder.mkdir(parents=True, exist_ok=True)
    template = TEMPLATES / "hook" / f"{kind}{'.worker' if persistent else ''}{suffix}.tmpl"
    # A Python worker imports hermes_hooks.worker: it runs with the interpreter that has it.
    values = {"name": name, "event": info.name, "python": sys.executable}
    script.write_text(render(template, values), encoding="utf-8")
    script.chmod(0o755)
    entry: dict[str, Any] = {"command": str(script)}
    if matcher is not None or kind == "block":
        entry["matcher"] = matcher or "terminal"
    if persistent:
        entry["persistent"] = True
    entry["timeout"] = 10
    snippet = yaml.dump(
        {"hooks": {info.name: [entry]}},
        Dumper=_indented_dumper(),
        sort_keys=False,
        default_flow_style=False,
    )
    where = state.config or home / "config.yaml"
    what = "warm worker" if persistent else "Hermes wire protocol"
    click.echo(f"Created {script} ({lang}, {kind} example, {what}).")
    click.echo(f"Enable it in {where}:")
    click.echo("")
    click.echo(snippet.rstrip())
    click.echo("")
    click.echo(
        "It runs once you approve it (hermes hooks approve, or --accept-hooks); see docs/shell-hooks.md."
    )
