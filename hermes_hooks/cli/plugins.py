"""The ecosystem commands: ``install``, ``uninstall``, ``new`` and ``new-hook``.

``install``/``uninstall`` drive pip of the interpreter hermes-hooks runs in, then load the hook
system in a fresh process (the only reliable view of what pip changed) and report the plugins that
appeared or went away. ``new`` and ``new-hook`` write scaffolds from ``hermes_hooks/templates``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from . import State, _logging

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
GROUPS = ("hermes_hooks", "hermes_agent.plugins")

_PLUGIN_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_HOOK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


# ---------------------------------------------------------------------- what is installed


def entry_points() -> list[dict[str, Any]]:
    """The plugin entry points visible to this interpreter, as plain dicts."""
    from importlib.metadata import entry_points as find

    out = []
    for group in GROUPS:
        for ep in find(group=group):
            dist = getattr(ep, "dist", None)
            out.append(
                {
                    "group": group,
                    "name": ep.name,
                    "value": ep.value,
                    "distribution": dist.metadata["Name"] if dist is not None else None,
                    "version": dist.version if dist is not None else None,
                }
            )
    return out


def report_json(argv: list[str] | None = None) -> None:
    """Print ``{"entry_points": [...], "rows": [...]}`` for a home and config (run in a child
    process by ``install``/``uninstall``, so it sees what pip just changed)."""
    import hermes_hooks

    args = json.loads((argv if argv is not None else sys.argv[1:])[0])
    hooks = hermes_hooks.load(args.get("home"), args.get("config"))
    print(json.dumps({"entry_points": entry_points(), "rows": hooks.rows()}, default=str))


def _report(state: State) -> dict[str, Any] | None:
    payload = json.dumps({"home": state.home, "config": state.config})
    # `-c` puts the working directory first on sys.path, where a checkout's *.egg-info would
    # pass for an installed distribution; the `hermes` script itself never sees it.
    code = (
        "import sys\n"
        "if sys.path and sys.path[0] in ('', '.'):\n    del sys.path[0]\n"
        "from hermes_hooks.cli.plugins import report_json\n"
        "report_json(sys.argv[1:])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, payload], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        click.echo(
            f"hermes-hooks: could not load the hook system to report on it (exit {out.returncode}):\n"
            f"{out.stderr.strip()[-2000:]}",
            err=True,
        )
        return None
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]
    except (ValueError, IndexError):
        click.echo(f"hermes-hooks: unreadable report: {out.stdout[-500:]!r}", err=True)
        return None


def _key(ep: dict[str, Any]) -> tuple[str, str, str | None]:
    return (ep["group"], ep["name"], ep["distribution"])


def _describe(ep: dict[str, Any]) -> str:
    dist = (
        f"{ep['distribution']} {ep['version']}"
        if ep.get("distribution")
        else "unknown distribution"
    )
    return f"{ep['name']} ({dist}, entry point {ep['group']})"


def _show_plugins(eps: Iterable[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    for ep in eps:
        click.echo(f"  {_describe(ep)}")
        mine = [r for r in rows if r.get("name") in (ep["name"], f"{ep['name']}:impls")]
        if not mine:
            click.echo("    (registered no hook)")
        for row in mine:
            if row.get("event"):
                click.echo(f"    {row['event']:<24} {row.get('status', '')}")
            else:
                click.echo(f"    {row.get('status')}: {row.get('error') or ''}")


def _pip(args: list[str]) -> None:
    cmd = [sys.executable, "-m", "pip", *args]
    click.echo(f"$ {shlex.join(cmd)}", err=True)
    code = subprocess.call(cmd)
    if code != 0:
        click.echo(f"hermes-hooks: pip exited {code}; see its output above", err=True)
        sys.exit(code)


# ---------------------------------------------------------------------- install / uninstall


@click.command("install")
@click.argument("packages", nargs=-1)
@click.option(
    "-e",
    "--editable",
    "editable",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="Install a local checkout in editable mode (pip install -e PATH). Repeatable.",
)
@click.option("-U", "--upgrade", is_flag=True, help="Upgrade the packages to the newest version.")
@click.option("--force-reinstall", is_flag=True, help="Reinstall even when up to date.")
@click.option("--no-deps", is_flag=True, help="Do not install the packages' dependencies.")
@click.option(
    "--no-build-isolation",
    is_flag=True,
    help="Build with the packages already installed (offline).",
)
@click.pass_obj
def install_cmd(
    state: State,
    packages: tuple[str, ...],
    editable: tuple[str, ...],
    upgrade: bool,
    force_reinstall: bool,
    no_deps: bool,
    no_build_isolation: bool,
) -> None:
    """Install plugin packages (names, paths, URLs: anything pip takes) into the environment
    hermes-hooks runs in, then show what the new plugins registered.

    \b
    hermes hooks install hermes-hook-example
    hermes hooks install --editable ./hermes-hook-mine
    """
    _logging()
    if not packages and not editable:
        raise click.UsageError(
            "name a package to install, or a local checkout with --editable PATH"
        )
    flags = [
        flag
        for flag, on in (
            ("--upgrade", upgrade),
            ("--force-reinstall", force_reinstall),
            ("--no-deps", no_deps),
            ("--no-build-isolation", no_build_isolation),
        )
        if on
    ]
    before = {_key(ep) for ep in entry_points()}
    targets = list(packages)
    for path in editable:
        targets += ["-e", str(Path(path).resolve())]
    _pip(["install", *flags, *targets])
    report = _report(state)
    if report is None:
        return
    new = [ep for ep in report["entry_points"] if _key(ep) not in before]
    if not new:
        click.echo(
            "Installed. No new hermes-hooks plugin appeared (an upgrade, or a package without a "
            "`hermes_hooks` / `hermes_agent.plugins` entry point); `hermes hooks list` shows all hooks."
        )
        return
    click.echo("Installed. New plugins and what they registered:")
    _show_plugins(new, report["rows"])


@click.command("uninstall")
@click.argument("packages", nargs=-1, required=True)
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_obj
def uninstall_cmd(state: State, packages: tuple[str, ...], yes: bool) -> None:
    """Remove plugin packages from the environment hermes-hooks runs in, and say which plugins
    went away."""
    _logging()
    before = entry_points()
    _pip(["uninstall", *(["--yes"] if yes else []), *packages])
    report = _report(state)
    if report is None:
        return
    after = {_key(ep) for ep in report["entry_points"]}
    gone = [ep for ep in before if _key(ep) not in after]
    if not gone:
        click.echo("Uninstalled. No hermes-hooks plugin was removed.")
        return
    click.echo("Uninstalled. These plugins are gone:")
    for ep in gone:
        click.echo(f"  {_describe(ep)}")


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
    click.echo("  hermes hooks install --editable .")
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
@click.pass_obj
def new_hook_cmd(
    state: State, name: str, event: str, lang: str, matcher: str | None, directory: str | None
) -> None:
    """Scaffold a shell hook script that speaks the wire protocol, and print the config.yaml lines
    that enable it."""
    import yaml

    from ..catalogue import get, suggest
    from ..config import find_home

    info = get(event)
    if info is None:
        guess = suggest(event)
        hint = f" (did you mean {guess!r}?)" if guess else ""
        raise click.BadParameter(
            f"unknown event {event!r}{hint}; `hermes hooks events` lists them", param_hint="--event"
        )
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
    script.write_text(
        render(TEMPLATES / "hook" / f"{kind}{suffix}.tmpl", {"name": name, "event": info.name}),
        encoding="utf-8",
    )
    script.chmod(0o755)
    entry: dict[str, Any] = {"command": str(script)}
    if matcher is not None or kind == "block":
        entry["matcher"] = matcher or "terminal"
    entry["timeout"] = 10
    snippet = yaml.dump(
        {"hooks": {info.name: [entry]}},
        Dumper=_indented_dumper(),
        sort_keys=False,
        default_flow_style=False,
    )
    where = state.config or home / "config.yaml"
    click.echo(f"Created {script} ({lang}, {kind} example, Hermes wire protocol).")
    click.echo(f"Enable it in {where}:")
    click.echo("")
    click.echo(snippet.rstrip())
    click.echo("")
    click.echo(
        "It runs once you approve it (hermes hooks approve, or --accept-hooks); see docs/shell-hooks.md."
    )
