"""Internal: part of the built-ins (docs/builtins.md), not an API.

Why a command hook cannot run as configured (``hermes hooks doctor``): a missing working
directory, a program not found or not executable, a script not readable."""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping

from hermes_hooks import consent, resolve, wire

from .matching import ShellHook


def command_problem(hook: ShellHook, env: Mapping[str, str]) -> str | None:
    """Why ``hook``'s command cannot run with ``env``, or ``None``."""
    cwd = hook.cwd(env)
    if cwd is not None and not os.path.isdir(cwd):
        return f"working_dir {cwd} does not exist"
    if hook.protocol != wire.HERMES and hook.exec_args is None:
        try:
            words = shlex.split(hook.command)
        except ValueError as exc:
            return f"the command cannot be parsed: {exc}"
        if not words:
            return "empty command"
        first = consent.expand(words[0], env)
        if "/" in first:
            return _file_problem(first, cwd, os.X_OK, "is not executable (chmod +x it)")
        return None
    try:
        argv = hook.argv(env)
    except ValueError as exc:
        return f"the command cannot be split: {exc}"
    exe = resolve.which(argv[0], env, cwd)
    if exe is None:
        return f"{argv[0]} not found" + ("" if "/" in argv[0] else " on PATH")
    if not os.access(exe, os.X_OK) or os.path.isdir(exe):
        return f"{exe} is not executable (chmod +x it, or run it through its interpreter)"
    for token in argv[1:]:
        if token.lower().endswith(consent.SCRIPT_EXTENSIONS) and "/" in token:
            problem = _file_problem(token, cwd, os.R_OK, "is not readable", prefix="script ")
            if problem:
                return problem
    return None


def _file_problem(
    token: str, cwd: str | None, mode: int, denied: str, *, prefix: str = ""
) -> str | None:
    """Why the file ``token`` names (relative to ``cwd``) is missing or lacks ``mode``."""
    path = token if os.path.isabs(token) else os.path.join(cwd or resolve.current_dir(), token)
    if not os.path.isfile(path):
        return f"{prefix}{token} does not exist"
    if not os.access(path, mode):
        return f"{prefix}{token} {denied}"
    return None
