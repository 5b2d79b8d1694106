"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks snapshots`` and ``hermes hooks restore ID``: the work-tree snapshots the
``snapshot`` built-in records (:mod:`hermes_hooks.shadow`).

Both work on the git repository containing ``--repo`` (default: the current directory). A
restore shows every file it will overwrite, create or delete and asks first; without a terminal
it needs ``--yes``. It never touches the real repository's index, HEAD or anything in ``.git``,
and it records the work tree as it was before (event ``restore``) so a restore can be undone.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..terminal import echo, shown
from . import _logging
from .listing import print_table

if TYPE_CHECKING:
    from ..shadow import Shadow

#: How many paths of each kind a restore shows before "… and N more".
SHOWN = 50


def _shadow(repo: str | None) -> Shadow:
    from ..shadow import GitMissing, Shadow, toplevel

    where = Path(repo or ".").resolve()
    try:
        top = toplevel(where)
    except GitMissing as exc:
        raise click.ClickException(str(exc)) from exc
    if top is None:
        raise click.ClickException(
            f"{where} is not in a git work tree; snapshots are kept per repository "
            "(run this inside one, or pass --repo PATH)"
        )
    return Shadow(top)


def _size_limit(state: Any) -> int:
    """The snapshot built-in's ``max_file_bytes`` as the config gives it (top level or a
    ``type: builtin`` entry), so a restore leaves alone the same big new files it skipped."""
    from ..builtin_plugins import snapshot, switches

    return snapshot.max_file_bytes(switches.value(state.load(entry_points=False), "snapshot"))


def _when(stamp: int) -> str:
    return datetime.fromtimestamp(stamp).astimezone().strftime("%Y-%m-%d %H:%M:%S")


@click.command("snapshots")
@click.option("--json", "as_json", is_flag=True, help="Print the snapshots as JSON.")
@click.option("--repo", type=click.Path(file_okay=False), help="The repository (default: cwd).")
def snapshots_cmd(as_json: bool, repo: str | None) -> None:
    """List the snapshots of a repository, newest first: id, time, event, session, tool and
    how many files each changed (turn them on with `snapshot: true` in config.yaml)."""
    _logging()
    from ..shadow import GitMissing, SnapshotError

    shadow = _shadow(repo)
    try:
        found = shadow.snapshots()
    except (OSError, GitMissing, SnapshotError, subprocess.TimeoutExpired) as exc:
        raise click.ClickException(f"cannot read {shadow.git_dir}: {exc}") from exc
    if as_json:
        click.echo(json.dumps([s.as_dict() for s in found], indent=2))
        return
    if not found:
        echo(f"No snapshots of {shadow.repo} yet (`snapshot: true` in config.yaml "
                   "records them).")  # fmt: skip
        return
    echo(f"Snapshots of {shadow.repo} (kept in {shadow.git_dir}):")
    print_table(
        ["ID", "TIME", "EVENT", "SESSION", "TOOL", "FILES CHANGED"],
        [[s.id[:12], _when(s.time), s.fields.get("event"), s.fields.get("session"),
          s.fields.get("tool"), s.files_changed] for s in found],
    )  # fmt: skip


def _show(verb: str, paths: list[str]) -> None:
    for path in paths[:SHOWN]:
        echo(f"  {verb:<10}{path}", err=True)
    if len(paths) > SHOWN:
        click.echo(f"  … and {len(paths) - SHOWN} more to {verb.strip()}", err=True)


@click.command("restore")
@click.argument("snapshot_id", metavar="ID")
@click.option("--yes", "-y", is_flag=True, help="Restore without asking.")
@click.option("--repo", type=click.Path(file_okay=False), help="The repository (default: cwd).")
@click.pass_obj
def restore_cmd(state: Any, snapshot_id: str, yes: bool, repo: str | None) -> None:
    """Put the work tree back as snapshot ID recorded it: files changed since are overwritten,
    files deleted since come back, files created since are deleted (ignored files and new
    files over the size limit, `max_file_bytes` of the snapshot built-in, are left alone).
    Shows what will change and asks first."""
    _logging()
    from ..shadow import GitMissing, SnapshotError

    shadow = _shadow(repo)
    try:
        plan = shadow.plan(snapshot_id, _size_limit(state))
    except (OSError, GitMissing, SnapshotError, subprocess.TimeoutExpired) as exc:
        raise click.ClickException(shown(str(exc))) from exc
    if plan.empty:
        echo(f"{shadow.repo} already matches snapshot {plan.target[:12]}; nothing to do.")
        return
    echo(f"Restoring snapshot {plan.target[:12]} into {shadow.repo} will:", err=True)
    _show("overwrite", plan.overwrite)
    _show("create", plan.create)
    _show("delete", plan.delete)
    if not yes:
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            raise click.ClickException(
                "not restoring: no terminal to ask on; pass --yes to restore without asking"
            )
        if not click.confirm("Restore?", default=False, err=True):
            click.echo("Not restored.", err=True)
            sys.exit(1)
    try:
        done = shadow.restore(plan)
    except (OSError, GitMissing, SnapshotError, subprocess.TimeoutExpired) as exc:
        raise click.ClickException(shown(f"restore failed: {exc}")) from exc
    written = set(done.written)
    overwritten = sum(1 for path in plan.overwrite if path in written)
    created = sum(1 for path in plan.create if path in written)
    click.echo(
        f"Restored snapshot {plan.target[:12]}: {overwritten} overwritten, {created} created, "
        f"{len(done.deleted)} deleted"
        + (f"; {len(done.refused)} left alone." if done.refused else ".")
    )
    if done.before:
        click.echo(f"The work tree as it was is snapshot {done.before[:12]} "
                   f"(`hermes hooks restore {done.before[:12]}` undoes this).")  # fmt: skip
    if done.refused:
        echo("Left alone, changed since the plan was shown or not allowed:", err=True)
        for path, why in done.refused:
            echo(f"  {path}: {why}" if path else f"  writing files: {why}", err=True)
        echo("Check these paths yourself, then run the restore again.", err=True)
        sys.exit(1)
