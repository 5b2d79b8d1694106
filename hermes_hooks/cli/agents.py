"""Internal: the ``hermes hooks`` command line (docs/agents.md, docs/cli.md), not an API.

``hermes hooks install-into AGENT`` and ``hermes hooks uninstall-from AGENT``: write (or take
out of) Claude Code's, Codex's, Gemini CLI's, Cursor's or GitHub Copilot's own hook file the
entries that route every event of that agent we map to hermes-hooks. A change is shown as a
unified diff and asked for (``--yes`` on a script; headless without it nothing is written), the
file is backed up and replaced atomically, and a file that cannot be parsed is refused, never
overwritten. :func:`routing` is what ``list`` and ``doctor`` show of it.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from ..terminal import echo
from . import State
from . import agent_files as files

BACKUP = ".hermes-hooks.bak"


def _agent(name: str) -> str:
    known = files.agents()
    folded = name.strip().lower()
    if folded in known:
        return folded
    from ..catalogue import suggest

    hint = suggest(folded, known)
    raise click.UsageError(
        f"unknown agent {name!r}"
        + (f" (did you mean {hint!r}?)" if hint else "")
        + f"; expected one of {', '.join(known)}"
    )


def _home(state: State) -> Path:
    from ..config import find_home

    return find_home(state.home)


def _real(path: Path) -> Path:
    """The file a link points to (a settings file kept in a dotfiles repository stays a link:
    the file behind it is changed, and backed up beside it)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _project(project: str | None, user: bool) -> Path | None:
    if project is not None and user:
        raise click.UsageError("--project and --user exclude each other: choose one")
    if user:
        return None
    return Path(project or os.getcwd()).resolve()


# ---------------------------------------------------------------------- reading and writing


@dataclass
class Current:
    """An agent file as it is: its bytes (``None``: it does not exist) and what they parse to."""

    path: Path
    raw: bytes | None
    data: Any


def read(path: Path) -> Current:
    """The file's bytes and JSON; :class:`click.ClickException` naming the file, the line and
    the fix when it cannot be used, so it is never overwritten."""
    fix = "fix it (or move it aside) and run the command again; nothing was written"
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return Current(path, None, {})  # writing it says why it cannot be created
    except OSError as exc:
        raise click.ClickException(
            f"cannot read {path}: {exc.strerror or exc}; nothing was written"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.ClickException(f"{path}: not UTF-8 text (byte {exc.start}); {fix}") from None
    if not text.strip():
        return Current(path, raw, {})
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise click.ClickException(
            f"{path}: line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg}); {fix}"
        ) from None
    if not isinstance(data, dict):
        raise click.ClickException(f"{path}: the top level is not a JSON object; {fix}")
    return Current(path, raw, data)


def dump(data: Any, like: bytes | None) -> bytes:
    """``data`` as JSON, indented as the file it replaces was (two spaces by default)."""
    indent: str | int = 2
    text = like.decode("utf-8") if like else ""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            indent = line[: len(line) - len(stripped)]
            break
    out = json.dumps(data, indent=indent, ensure_ascii=False)
    if not text or text.endswith("\n"):
        out += "\n"
    return out.encode("utf-8")


def _diff(path: Path, old: bytes | None, new: bytes | None) -> str:
    before = (old or b"").decode("utf-8").splitlines(keepends=True)
    after = (new or b"").decode("utf-8").splitlines(keepends=True)
    lines = difflib.unified_diff(
        before,
        after,
        fromfile=f"{path} (now)" if old is not None else "/dev/null",
        tofile=f"{path} (after)" if new is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _approve(path: Path, yes: bool, doing: str) -> None:
    if yes:
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.ClickException(
            f"not on a terminal, so nobody can approve {doing} {path}: run again with --yes "
            "after reading the diff above; nothing was written"
        )
    if not click.confirm(f"Go ahead with {doing} {path}?", default=False):
        raise click.ClickException("not approved; nothing was written")


def backup_path(path: Path) -> Path:
    """Where the file is copied before it is changed: ``<file>.hermes-hooks.bak``, kept from
    the first change on (the original), then a timestamped one for each later change."""
    first = path.with_name(path.name + BACKUP)
    if not first.exists():
        return first
    stamp = time.strftime("%Y%m%d-%H%M%S")
    n = 0
    while True:
        candidate = path.with_name(f"{path.name}.hermes-hooks.{stamp}{f'-{n}' if n else ''}.bak")
        if not candidate.exists():
            return candidate
        n += 1


def write(path: Path, old: bytes | None, new: bytes | None) -> Path | None:
    """Replace ``path`` with ``new`` atomically (``None``: remove it), after copying ``old`` to
    a backup; the backup's path. Nothing is half-written: a refusal leaves the file as it was."""

    def refused(exc: OSError, what: Path) -> click.ClickException:
        return click.ClickException(
            f"cannot write {what}: {exc.strerror or exc}; nothing was written (make "
            f"{what.parent} and {path.name} writable by you, or use --user / --project)"
        )

    if old is not None and not os.access(path, os.W_OK):
        raise refused(PermissionError(13, "Permission denied"), path)
    saved: Path | None = None
    tmp: str | None = None
    done = False
    try:
        if new is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "wb") as out:
                out.write(new)
                out.flush()
                os.fsync(out.fileno())
            if old is not None:
                os.chmod(tmp, path.stat().st_mode & 0o7777)
            else:  # as any new file of the user's (mkstemp's is 0600)
                mask = os.umask(0)
                os.umask(mask)
                os.chmod(tmp, 0o666 & ~mask)
        if old is not None:
            saved = backup_path(path)
            fd = os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_EXCL, path.stat().st_mode & 0o777)
            with os.fdopen(fd, "wb") as out:
                out.write(old)
        if tmp is not None:
            os.replace(tmp, path)
        else:
            os.unlink(path)
        done = True
    except OSError as exc:
        raise refused(exc, Path(exc.filename) if exc.filename else path) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if not done and saved is not None and saved.exists():
            saved.unlink()  # the backup of a change that did not happen
    return saved


def _apply(path: Path, old: bytes | None, new: bytes | None, yes: bool, doing: str) -> None:
    if new == old:
        return
    echo(_diff(path, old, new), err=False)
    _approve(path, yes, doing)
    saved = write(path, old, new)
    echo(f"{'removed' if new is None else 'wrote'} {path}"
         + (f" (the previous version is in {saved})" if saved else ""))  # fmt: skip


# ---------------------------------------------------------------------- commands

_agent_arg = click.argument("agent", metavar="AGENT")
_project_opt = click.option(
    "--project",
    "project",
    type=click.Path(file_okay=False, exists=True),
    help="The project whose files to change (default: the current directory).",
)
_user_opt = click.option(
    "--user", is_flag=True, help="The user's own files instead of a project's."
)
_yes_opt = click.option("--yes", "-y", is_flag=True, help="Write without asking (for scripts).")


@click.command("install-into")
@_agent_arg
@_project_opt
@_user_opt
@_yes_opt
@click.option(
    "--via",
    type=click.Choice(files.VIAS),
    default="auto",
    show_default=True,
    help="Claude Code only: its http hook type for every event it runs one on (auto, or its "
    "older name http: fastest; while the service is down or the token is missing, decision "
    "events are blocked), or `hermes hooks client` for every event (client: runs the hooks "
    "in-process when the service is down).",
)
@click.pass_obj
def install_into_cmd(
    state: State, agent: str, project: str | None, user: bool, yes: bool, via: str
) -> None:
    """Route every event AGENT (claude, codex, gemini, cursor, copilot) has and hermes-hooks
    maps to hermes-hooks, in AGENT's own hook file: shows the diff, asks, keeps a backup."""
    agent = _agent(agent)
    if via == "http" and agent != "claude":
        raise click.UsageError(f"--via http: only Claude Code has an http hook type, not {agent}")
    where = _project(project, user)
    path = _real(files.target(agent, where))
    loop = reads_agent_files(state, agent)
    if loop:
        raise click.ClickException(
            f"{loop}: hooks_sources lists {agent!r}, so this home already runs the hooks in "
            f"{agent}'s own files; routing {agent} here too would run them twice, and the "
            "entries install-into writes would call the service that runs them (a loop). "
            f"Remove {agent!r} from hooks_sources ({agent} keeps running its own hooks), then "
            "run install-into again; nothing was written"
        )
    setup = files.Setup.here(_home(state))
    current = read(path)
    try:
        data = files.install(agent, path, copy.deepcopy(current.data), setup, via)
    except files.Unusable as exc:
        raise click.ClickException(f"{exc}; fix it and run again; nothing was written") from None
    new = dump(data, current.raw)
    if current.raw is not None and data == current.data:
        new = current.raw  # same content: the file stays byte for byte as it is
    routed = files.routes(agent)
    if new == current.raw:
        echo(f"{path} already routes {len(routed)} {agent} event(s) to hermes-hooks; "
             "nothing to change")  # fmt: skip
    else:
        _apply(path, current.raw, new, yes, "writing")
    _notes(agent, path, where, setup, via)


def _notes(agent: str, path: Path, where: Path | None, setup: files.Setup, via: str) -> None:
    routed = files.routes(agent)
    decisions = [r.event for r in routed if r.decision]
    echo(f"{agent}: {len(routed)} event(s) route to hermes-hooks; decision events (fail "
         f"closed): {', '.join(decisions) or 'none'}")  # fmt: skip
    if files.checks_http(agent, via):
        _http_notes(agent, setup, routed, via)
    if not os.path.isabs(setup.hermes):
        echo(f"warning: no `hermes` script beside {sys.executable} or on PATH: the entries run "
             f"`{setup.hermes}` from {agent}'s PATH; install hermes-hooks there")  # fmt: skip
    off = files.switched_off(agent, where)
    if off:
        echo(f"warning: {off}")
    if agent == "copilot" and where is not None:
        echo(f"note: {path} is inside the repository and names this machine's paths: keep it "
             "out of commits (.git/info/exclude) or install with --user")  # fmt: skip


def _http_notes(agent: str, setup: files.Setup, routed: list[files.Route], via: str) -> None:
    """What Claude Code's http route needs (the token in its environment, the service up), and
    whether the service answers now."""
    from ..serve.client import http_problems
    from ..serve.files import export_line

    blocked = [r.event for r in routed if r.decision and files.transport(agent, r, via) == "http"]
    echo(f"Claude Code's http hooks send the token from ${files.TOKEN_VAR}: run "
         f"`{export_line(setup.home)}` where you start claude. While the service at "
         f"{setup.url} is down or refuses that token, Claude Code blocks its decision events "
         f"({', '.join(blocked)}: every tool call is blocked), and the SessionStart hook says "
         "so when a session starts; `--via client` runs the hooks in-process instead when "
         "the service is down (slower, same decisions)")  # fmt: skip
    problems = http_problems(setup.home, os.environ.get(files.TOKEN_VAR), 1.0, "this shell")
    if not problems:
        echo(f"the service at {setup.url} answers now and takes ${files.TOKEN_VAR}")
    for text in problems:
        echo(f"warning: {text}")


@click.command("uninstall-from")
@_agent_arg
@_project_opt
@_user_opt
@_yes_opt
@click.pass_obj
def uninstall_from_cmd(
    state: State, agent: str, project: str | None, user: bool, yes: bool
) -> None:
    """Take out of AGENT's hook file exactly what install-into added (entries of ours that
    were edited since are kept and reported): shows the diff, asks, keeps a backup."""
    agent = _agent(agent)
    path = _real(files.target(agent, _project(project, user)))
    setup = files.Setup.here(_home(state))
    current = read(path)
    if current.raw is None:
        echo(f"{path} does not exist; nothing to remove")
        return
    try:
        data, changed = files.uninstall(agent, path, copy.deepcopy(current.data), setup)
    except files.Unusable as exc:
        raise click.ClickException(f"{exc}; fix it and run again; nothing was written") from None
    for text in changed:
        echo(f"kept {text} in {path}: an entry of ours that was changed since install-into "
             "wrote it; remove it by hand (or run install-into again, then uninstall-from)",
             err=True)  # fmt: skip
    new: bytes | None = current.raw
    if data != current.data:
        original = _original(path)
        if original is not None and files.bare(agent, _parsed(original)) == files.bare(agent, data):
            new = original  # back to the original, byte for byte
        elif original is None and files.empty(agent, data):
            new = None  # install-into created the file: nothing else was ever in it
        else:
            new = dump(data, current.raw)
    if new == current.raw:
        echo(f"{path} has no intact entry of ours; nothing to remove")
    else:
        _apply(path, current.raw, new, yes, "changing" if new is not None else "removing")
    if changed:
        raise SystemExit(1)


def _original(path: Path) -> bytes | None:
    """The file as it was before install-into first changed it (its first backup)."""
    try:
        return path.with_name(path.name + BACKUP).read_bytes()
    except OSError:
        return None


def _parsed(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except ValueError:
        return None


# ---------------------------------------------------------------------- list and doctor


@dataclass
class Routing:
    """One agent file that routes events here."""

    agent: str
    path: Path
    intact: list[str]
    changed: list[str]
    problem: str | None = None  # the file cannot be read
    blocked_when_down: list[str] = field(default_factory=list)  # its http decision events

    def as_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "file": str(self.path), "events": self.intact,
                "changed": self.changed, "problem": self.problem,
                "blocked_when_down": self.blocked_when_down,
                "when_down": self.when_down()}  # fmt: skip

    def when_down(self) -> str:
        """What the agent does while the service is down."""
        if self.blocked_when_down:
            return (f"{self.agent} blocks {len(self.blocked_when_down)} decision event(s) "
                    f"({', '.join(self.blocked_when_down)}): every tool call is blocked until "
                    "the service answers (its http hooks fail closed)")  # fmt: skip
        return "the client runs the hooks in-process (slower, same decisions)"


def routing(home: Path, project: Path) -> list[Routing]:
    """Every agent file (the user's and ``project``'s) with entries of ours in it."""
    setup = files.Setup.here(home)
    out = []
    for agent in files.agents():
        seen: set[Path] = set()
        for path in (files.target(agent, None), files.target(agent, project)):
            if path in seen or not path.is_file():
                continue
            seen.add(path)
            try:
                data = read(path).data
            except click.ClickException as exc:
                text = exc.message
                if f"hooks client {agent}" in text or "/v1/hooks/" in _peek(path):
                    out.append(Routing(agent, path, [], [], text))
                continue
            found = files.survey(agent, data, setup)
            if found.intact or found.changed:
                out.append(
                    Routing(agent, path, found.intact, found.changed, None, found.blocked_when_down)
                )
    return out


def _peek(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def health(home: Path, timeout: float = 1.0) -> tuple[bool, str]:
    """Whether the service of ``home`` answers ``GET /v1/health`` (and what was found), asked
    the way the client asks it (:func:`hermes_hooks.serve.client.post`)."""
    from ..serve.client import Unavailable, post

    url = files.service_url(home)
    try:
        status, _ = post(url, None, "/v1/health", b"", timeout, "GET")
    except Unavailable as exc:
        return False, (f"{url}/v1/health does not answer ({exc}); start it with `hermes hooks "
                       f"serve --home {shlex.quote(str(home))}`")  # fmt: skip
    return status == 200, f"{url}/v1/health answered {status}"


def reads_agent_files(state: State, agent: str) -> str | None:
    """The config file whose ``hooks_sources`` makes this home read ``agent``'s own hook
    files, if it does: routing that agent here too would run its hooks twice, and ours would
    call the service that runs them (a loop)."""
    from hermes_hooks.builtin_plugins.shell_hooks.config import reads_sources

    from ..config import load_config

    loaded = load_config(_home(state), state.config)
    if reads_sources(loaded.data, agent):
        return str(loaded.path or _home(state) / "config.yaml")
    return None


def checks(state: State, project: Path) -> list[tuple[str, str, list[tuple[bool, str]]]]:
    """``(kind, name, lines)`` for doctor: each agent file routing here (an entry of ours that
    was changed, an unreadable file, a loop through ``hooks_sources`` are problems) and the
    service (not answering is a warning: the client falls back in-process)."""
    home = _home(state)
    found = routing(home, project)
    out: list[tuple[str, str, list[tuple[bool, str]]]] = []
    http = False
    for r in found:
        lines: list[tuple[bool, str]] = []
        if r.problem:
            lines.append((False, r.problem))
        if r.intact:
            lines.append((True, f"routes {len(r.intact)} event(s) here: {', '.join(r.intact)}"))
        for text in r.changed:
            lines.append((False, f"{text}: an entry of ours was changed since install-into "
                                 f"wrote it; run `hermes hooks install-into {r.agent}` again"))  # fmt: skip
        loop = reads_agent_files(state, r.agent)
        if loop:
            lines.append((False, f"{loop}: hooks_sources lists {r.agent!r}, so this home runs "
                                 f"{r.agent}'s hooks itself and its entries of ours would call "
                                 f"the service again (a loop); remove {r.agent!r} from "
                                 "hooks_sources"))  # fmt: skip
        off = files.switched_off(
            r.agent, None if r.path == files.target(r.agent, None) else project
        )
        if off:
            lines.append((True, f"warning: {off}"))
        http = http or _uses_http(r)
        out.append(("agent", f"{r.agent}: {r.path}", lines))
    if found:
        up, said = health(home)
        lines = [(True, said if up else f"warning: {said}; agents route here, so until it "
                  "answers: " + "; ".join(f"{r.agent} ({r.path}): {r.when_down()}"
                                          for r in found))]  # fmt: skip
        if http and up:
            from ..serve.client import http_problems

            for text in http_problems(home, os.environ.get(files.TOKEN_VAR), 1.0, "this shell"):
                lines.append((True, f"warning: {text} (until it is set right where claude "
                              "starts, Claude Code blocks every tool call)"))  # fmt: skip
        elif http and not os.environ.get(files.TOKEN_VAR):
            from ..serve.files import export_line

            lines.append((True, f"warning: Claude Code's http hooks send ${files.TOKEN_VAR}, "
                          f"which is not set here: `{export_line(home)}` where claude starts"))  # fmt: skip
        out.append(("service", files.service_url(home), lines))
    return out


def _uses_http(found: Routing) -> bool:
    if found.agent != "claude":
        return False
    data = read(found.path).data
    block = data.get("hooks") if isinstance(data, dict) else None
    return "/v1/hooks/claude/" in json.dumps(block)


def listed(state: State, project: Path) -> list[dict[str, Any]]:
    """The rows ``hermes hooks list`` adds: one per agent file routing here."""
    found = routing(_home(state), project)
    if not found:
        return []
    up, said = health(_home(state), timeout=0.5)
    rows = []
    for r in found:
        status = "routed" if not (r.changed or r.problem) else "changed"
        rows.append({"event": None, "name": f"{r.agent} -> hermes-hooks", "source": "agent",
                     "status": status, **r.as_dict(), "service": said, "service_up": up})  # fmt: skip
    return rows
