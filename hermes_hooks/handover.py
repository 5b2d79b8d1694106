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
    from .config import find_home  # only once the command is known to be ours

    base = find_home()
    return str(base / "profiles" / profile) if profile not in ("default", "") else str(base)


def _ours(args: list[str], index: int, profile: str | None) -> None:
    rest = args[index + 1 :]
    if rest[:1] and rest[0] in ALIASES:
        rest = [ALIASES[rest[0]], *rest[1:]]
    if profile is not None and "--home" not in rest:
        rest = ["--home", _profile_home(profile), *rest]
    from .cli import run_as_script

    run_as_script(rest)


def _version() -> int:
    from . import __version__

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


def script_problem() -> str | None:
    """Why this environment's ``hermes`` script is not one that reaches both us and Hermes Agent,
    or ``None`` (for ``hermes hooks doctor``). ``pip uninstall`` of either package removes the
    script both installed; reinstalling hermes-agent brings Hermes' back."""
    import sysconfig

    path = Path(sysconfig.get_path("scripts")) / ("hermes.exe" if os.name == "nt" else "hermes")
    if not path.exists():
        if agent_entry_point() is not None:
            return f"no `hermes` script in {path.parent} although hermes-agent is installed: run `{RESTORE}`"
        return None
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError as exc:
        return f"{path}: cannot read: {exc.strerror or exc}"
    if "hermes_hooks" in text or "hermes_cli" in text:
        return None
    return f"{path} is neither hermes-agent's nor hermes-hooks' script: run `{RESTORE}`"
