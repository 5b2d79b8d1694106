"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

The ecosystem commands ``install`` and ``uninstall``.

They drive pip of the interpreter hermes-hooks runs in, then load the hook system in a fresh
process (the only reliable view of what pip changed) and report the plugins that appeared or went
away. (``new`` and ``new-hook`` are in :mod:`.scaffold`.)
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from . import State, _logging

GROUPS = ("hermes_hooks", "hermes_agent.plugins")


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
        return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]  # our helper prints a JSON object
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


def _split_extras(spec: str) -> tuple[str, str]:
    """``'.[test]'`` -> ``('.', '[test]')``: a checkout's path and the extras pip should add."""
    if spec.endswith("]") and "[" in spec:
        at = spec.rindex("[")
        return spec[:at] or ".", spec[at:]
    return spec, ""


@click.command("install")
@click.argument("packages", nargs=-1)
@click.option(
    "-e",
    "--editable",
    "editable",
    multiple=True,
    help="Install a local checkout in editable mode (pip install -e PATH, or PATH[extras] "
    "such as '.[test]'). Repeatable.",
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
    for spec in editable:
        path, extras = _split_extras(spec)
        if not Path(path).is_dir():
            raise click.BadParameter(f"directory {path!r} does not exist", param_hint="--editable")
        targets += ["-e", str(Path(path).resolve()) + extras]
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


def _distributions(names: Iterable[str], installed: list[dict[str, Any]]) -> list[str]:
    """Package names for pip: a plugin's name as ``hermes hooks list`` shows it (its entry-point
    name) becomes its distribution; anything else is passed as written."""
    out = []
    for name in names:
        dist = next(
            (ep["distribution"] for ep in installed if ep["name"] == name and ep["distribution"]),
            name,
        )
        if dist != name:
            click.echo(f"plugin {name!r} comes from the distribution {dist!r}")
        if dist not in out:
            out.append(dist)
    return out


@click.command("uninstall")
@click.argument("packages", nargs=-1, required=True)
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_obj
def uninstall_cmd(state: State, packages: tuple[str, ...], yes: bool) -> None:
    """Remove plugin packages from the environment hermes-hooks runs in, and say which plugins
    went away."""
    _logging()
    before = entry_points()
    names = _distributions(packages, before)
    _pip(["uninstall", *(["--yes"] if yes else []), *names])
    report = _report(state)
    if report is None:
        sys.exit(1)
    after = {_key(ep) for ep in report["entry_points"]}
    gone = [ep for ep in before if _key(ep) not in after]
    if not gone:
        click.echo("No hermes-hooks plugin was removed (`hermes hooks list` shows the plugins "
                   "and their distributions).", err=True)  # fmt: skip
        sys.exit(1)
    click.echo("Uninstalled. These plugins are gone:")
    for ep in gone:
        click.echo(f"  {_describe(ep)}")
