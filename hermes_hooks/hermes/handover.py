"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The ``hermes`` console script: ``hermes hooks ...`` is ours, every other command line is
Hermes Agent's, handed over exactly as typed.

hermes-agent installs a ``hermes`` script too; whichever package was installed last owns the
file. Ours must not break Hermes: this module imports nothing but the standard library before it
decides, and hands over by loading Hermes' own console entry point with a fresh ``sys.argv`` (the
original arguments, untouched), as if Hermes' script had been started. Hermes' own argv handling
(``-p``/``--profile``, ``--profile=NAME``, the kanban dispatcher's command lines) therefore sees
what the user typed. ``hermes --version`` prints Hermes' version, then ours on a second line.
``hermes hooks`` keeps Hermes' aliases (``ls`` for ``list``; ``rm`` and ``remove`` for
``revoke``) and honours ``-p NAME`` / ``--profile NAME`` by using that profile's home.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

#: Hermes' ``hooks`` sub-command aliases, mapped to ours.
ALIASES = {"ls": "list", "rm": "revoke", "remove": "revoke"}
#: Hermes' global options that take a value (the value is not the command word).
VALUED = ("-p", "--profile")
RESTORE = "pip install --force-reinstall --no-deps hermes-agent"


def split(args: list[str]) -> tuple[str | None, int, str | None]:
    """The command word, its index, and the ``-p``/``--profile`` value (``None`` if absent)."""
    profile = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in VALUED and i + 1 < len(args):
            profile = args[i + 1]
            i += 2
            continue
        if arg.startswith("--profile="):
            profile = arg.split("=", 1)[1]
        elif not arg.startswith("-"):
            return arg, i, profile
        i += 1
    return None, -1, profile


def agent_entry_point() -> Any:
    """Hermes Agent's ``hermes`` console entry point, or ``None`` when it is not installed."""
    if os.environ.get("HERMES_HOOKS_NO_AGENT") == "1":
        return None
    from importlib.metadata import entry_points

    for ep in entry_points(group="console_scripts", name="hermes"):
        dist = getattr(ep, "dist", None)
        name = (dist.metadata["Name"] if dist is not None else "") or ""
        if name.lower().replace("_", "-") != "hermes-hooks":
            return ep
    return None


def _profile_home(profile: str) -> str:
    from hermes_hooks.home import find_home  # only once the command is known to be ours

    base = find_home()
    return str(base / "profiles" / profile) if profile not in ("default", "") else str(base)


def _ours(args: list[str], index: int, profile: str | None) -> None:
    rest = args[index + 1 :]
    if rest[:1] and rest[0] in ALIASES:
        rest = [ALIASES[rest[0]], *rest[1:]]
    if profile is not None and "--home" not in rest:
        rest = ["--home", _profile_home(profile), *rest]
    if _client(rest):
        return
    from hermes_hooks.cli import run_as_script

    run_as_script(rest)


def _client(rest: list[str]) -> bool:
    """``hermes hooks [--home DIR] [--accept-hooks] client ...`` starts without the command
    line's modules (click): an agent runs it at every hook (docs/agents.md)."""
    front: list[str] = []
    i = 0
    while i < len(rest) and rest[i] in ("--home", "--accept-hooks"):
        step = 2 if rest[i] == "--home" else 1
        front += rest[i : i + step]
        i += step
    if rest[i : i + 1] != ["client"] or any(a in ("-h", "--help") for a in rest[i:]):
        return False
    if "--accept-hooks" in front:
        os.environ["HERMES_ACCEPT_HOOKS"] = "1"
    home = front[front.index("--home") + 1 :][:1] if "--home" in front else []
    from hermes_hooks.serve.client import main as client_main

    sys.exit(client_main([*rest[i + 1 :], *(["--home", home[0]] if home else [])]))


def hooks_main() -> None:
    """The ``hermes-hooks`` console script: always our command line (``hermes_hooks.cli``),
    with ``hermes-hooks client ...`` started before click is imported, as through ``hermes``."""
    args = sys.argv[1:]
    if args[:1] == ["hooks"]:
        args = args[1:]
    _client(args)
    from hermes_hooks.cli import main as cli_main

    cli_main()


def _version() -> int:
    from hermes_hooks import __version__

    code: Any = 0
    ep = agent_entry_point()
    if ep is not None:
        try:
            code = ep.load()()
        except SystemExit as exc:
            code = exc.code
        sys.stdout.flush()
    print(f"hermes-hooks {__version__}")
    return code if isinstance(code, int) else 0


def main() -> None:
    """The ``hermes`` console script."""
    args = sys.argv[1:]
    word, index, profile = split(args)
    if word == "hooks":
        _ours(args, index, profile)
        return
    if args[:1] in (["--version"], ["-V"]):
        sys.exit(_version())
    ep = agent_entry_point()
    if ep is None:
        sys.stderr.write(
            "hermes: this `hermes` comes from hermes-hooks, which only provides `hermes hooks "
            "...`.\nThe rest of the `hermes` command line belongs to Hermes Agent, which is not "
            "installed here\n(pip install hermes-agent). `hermes-hooks --help` shows the hook "
            "commands.\n"
        )
        sys.exit(2)
    # Exactly as typed: Hermes reads (and edits) sys.argv itself, at import and in main().
    sys.argv = [sys.argv[0], *args]
    sys.exit(ep.load()())


#: What each package's ``hermes`` console script imports (pip, uv and the Windows launchers
#: all write the entry point's module into the script).
_OURS, _THEIRS = b"hermes_hooks.hermes.handover", b"hermes_cli"


def script_owner(path: Path) -> str | None:
    """Which package wrote the ``hermes`` script at ``path``: ``"hermes-hooks"``,
    ``"hermes-agent"``, or ``None`` (neither, or unreadable)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if _OURS in data:
        return "hermes-hooks"
    if _THEIRS in data:
        return "hermes-agent"
    return None


def reinstall_ours() -> str:
    """The command that puts our ``hermes`` script back over Hermes' in this environment, as
    hermes-hooks was installed here (PEP 610 ``direct_url.json``: editable, a local wheel or
    directory, a VCS URL; else the installed version from the index)."""
    import json
    import shlex
    from importlib.metadata import distributions

    spec = "hermes-hooks"
    # The installed one (with its direct_url.json) before a build's egg-info in the cwd.
    found = sorted(distributions(name="hermes-hooks"), key=lambda d: not d.read_text("RECORD"))
    dist = found[0] if found else None
    if dist is not None:
        spec = f"hermes-hooks=={dist.version}"
        try:
            direct = json.loads(dist.read_text("direct_url.json") or "null")
        except ValueError:
            direct = None
        url = direct.get("url") if isinstance(direct, dict) else None
        if isinstance(url, str) and url:
            from urllib.parse import unquote, urlsplit

            parts = urlsplit(url)
            where = unquote(parts.path) if parts.scheme == "file" else url
            if isinstance(direct.get("vcs_info"), dict):
                where = f"git+{url}" if not url.startswith("git+") else url
            editable = (direct.get("dir_info") or {}).get("editable") is True
            spec = f"-e {shlex.quote(where)}" if editable else shlex.quote(where)
    python = shlex.quote(sys.executable)
    return f"{python} -m pip install --force-reinstall --no-deps {spec}"


def script_problems() -> list[str]:
    """Why ``hermes hooks ...`` typed here would not reach hermes-hooks, or why ``hermes ...``
    would not reach Hermes Agent (for ``hermes hooks doctor``): this environment's ``hermes``
    script missing, foreign, or Hermes' own (hermes-agent installed after hermes-hooks, so Hermes
    answers ``hermes hooks`` itself), and a ``hermes`` first on ``PATH`` that is Hermes' own from
    another environment. ``pip uninstall`` of either package removes the script both installed;
    reinstalling the other brings its own back."""
    import shutil

    path = _script()
    problems = []
    if not path.exists():
        if agent_entry_point() is not None:
            problems.append(f"no `hermes` script in {path.parent} although hermes-agent is "
                            f"installed: run `{RESTORE}`")  # fmt: skip
    elif script_owner(path) is None:
        problems.append(f"{path} is neither hermes-agent's nor hermes-hooks' script: run "
                        f"`{reinstall_ours()}`")  # fmt: skip
    else:
        problems += [p for p in (taken_over(),) if p]
    found = shutil.which("hermes")
    if found is not None and not _same_file(Path(found), path):
        if script_owner(Path(found)) == "hermes-agent":
            problems.append(
                f"the `hermes` first on PATH is {found}, Hermes Agent's own script from another "
                f"environment than this hermes-hooks ({path.parent}): `hermes hooks ...` typed in "
                "this shell runs Hermes' own `hooks` command, which knows nothing of hermes-hooks. "
                f"Install hermes-hooks where that Hermes is (`{_interpreter(Path(found))} -m pip "
                f"install hermes-hooks`) or put {path.parent} first on PATH; {_MEANWHILE}"
            )
    return problems


_MEANWHILE = "`hermes-hooks ...` works meanwhile (`hermes-hooks list`, `hermes-hooks doctor`)"


def _script() -> Path:
    """This environment's ``hermes`` console script (which may not exist)."""
    import sysconfig

    name = "hermes.exe" if os.name == "nt" else "hermes"
    return Path(sysconfig.get_path("scripts")) / name


def taken_over() -> str | None:
    """When this environment's ``hermes`` script is Hermes Agent's own (hermes-agent installed
    after hermes-hooks), what that means and the command that puts ours back; else ``None``.
    ``hermes hooks doctor`` reports it, and the bridge says it once on stderr when Hermes loads
    it, since nothing reaches hermes-hooks when the user types ``hermes hooks`` then."""
    path = _script()
    if script_owner(path) != "hermes-agent":
        return None
    return (
        f"{path} is Hermes Agent's own `hermes` script (hermes-agent was installed after "
        "hermes-hooks and replaced ours), so `hermes hooks ...` runs Hermes' own `hooks` "
        "command (its list/test/revoke/doctor; `approve`, `import`, ... fail with "
        '"invalid choice"), not hermes-hooks. Put ours back (it hands every other '
        f"command line to Hermes unchanged): `{reinstall_ours()}`; {_MEANWHILE}"
    )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (b.exists() and a.samefile(b))
    except OSError:
        return False


def _interpreter(script: Path) -> str:
    """The interpreter a console script starts (its ``#!`` line), or ``python``."""
    import shlex

    try:
        with script.open("rb") as f:
            first, second = (f.readline(4096).decode("utf-8", "replace").strip() for _ in "12")
    except OSError:
        return "python"
    exec_form = "'''exec' "  # pip's form for an interpreter path too long or with spaces
    if second.startswith(exec_form):
        words = shlex.split(second[len(exec_form) :], posix=True)
        return shlex.quote(words[0]) if words else "python"
    if first.startswith("#!") and first[2:].strip():
        return shlex.quote(first[2:].strip().split()[0])
    return "python"
