"""Internal: part of the built-ins (docs/builtins.md), not an API.

The built-in library of context hooks and limits, switched on by one line each in
config.yaml: ``add_date: true``, ``add_git_status: true``, ``limit_large_tool_results: true``,
... (a mapping instead of ``true`` gives a built-in its arguments). Reference:
``docs/builtins.md``.

Context built-ins answer ``pre_llm_call``: the per-turn ones every turn, the others on the first
turn of a session only. No process is started for them except ``git`` for the git built-ins (and
none outside a repository).
"""

from __future__ import annotations

import getpass
import hashlib
import logging
import os
import platform
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_hooks.builtin_plugins import LIBRARY, SWITCHES, switches

from hermes_hooks.markers import hookimpl
from hermes_hooks.sources import SourceBase, builtin_rows

if TYPE_CHECKING:
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")
GIT_TIMEOUT = 5.0


def _git(*args: str, cwd: str) -> str | None:
    """``git args`` in ``cwd``: its output, or ``None`` outside a repository or without git (a
    missing git is the OSError below). Bytes that are not UTF-8 (a Latin-1 file in a diff)
    become U+FFFD: context for the model, not a reason to lose it."""
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8",
            errors="replace", timeout=GIT_TIMEOUT, stdin=subprocess.DEVNULL, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.rstrip() if out.returncode == 0 else None


def _cap(text: str, limit: int) -> str:
    data = text.encode()
    if len(data) <= limit:
        return text
    return data[:limit].decode(errors="ignore") + f"\n… ({len(data) - limit} more bytes not shown)"


# ---------------------------------------------------------------------- context built-ins


def add_date(options: dict[str, Any], cwd: str) -> str | None:
    now = datetime.now().astimezone()
    return f"Today is {now:%A %Y-%m-%d}; local time {now:%H:%M %Z}."


def add_environment_info(options: dict[str, Any], cwd: str) -> str | None:
    repo = _git("rev-parse", "--show-toplevel", cwd=cwd)
    where = f"a git repository ({repo})" if repo else "not a git repository"
    return (
        f"Working directory: {cwd} ({where}). System: {platform.system()} {platform.release()}, "
        f"{platform.machine()}."
    )


def add_user_info(options: dict[str, Any], cwd: str) -> str | None:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        return None
    return f"The user's login name is {user}; home directory {Path.home()}."


def add_git_status(options: dict[str, Any], cwd: str) -> str | None:
    status = _git("status", "--short", "--branch", cwd=cwd)
    return f"git status:\n{status}" if status else None


def add_git_diff(options: dict[str, Any], cwd: str) -> str | None:
    full = options.get("full") is True
    diff = _git("diff", *([] if full else ["--stat"]), cwd=cwd)
    if not diff:
        return None
    return (
        f"git diff{'' if full else ' --stat'}:\n{_cap(diff, int(options.get('max_bytes', 4096)))}"
    )


def add_recent_commits(options: dict[str, Any], cwd: str) -> str | None:
    count = int(options.get("count", 10))
    log = _git("log", f"-{count}", "--oneline", "--no-decorate", cwd=cwd)
    return f"Recent commits:\n{log}" if log else None


def add_directory_listing(options: dict[str, Any], cwd: str) -> str | None:
    limit = int(options.get("max_entries", 100))
    try:
        names = sorted(
            e.name + ("/" if e.is_dir() else "")
            for e in os.scandir(cwd)
            if not e.name.startswith(".")
        )
    except OSError:
        return None
    shown = names[:limit]
    more = f"\n… and {len(names) - limit} more" if len(names) > limit else ""
    return f"Files in {cwd}:\n" + "\n".join(shown) + more if names else None


def add_prompt_files(options: dict[str, Any], cwd: str, home: Path | None = None) -> str | None:
    wanted = options.get("files") or ["AGENTS.md", "CLAUDE.md", ".hermes.md"]
    limit = int(options.get("max_bytes", 8192))
    found: list[Path] = []
    folder = Path(cwd).resolve()
    for directory in [folder, *folder.parents, *([home] if home else [])]:
        for name in wanted:
            path = directory / str(name)
            if path.is_file() and path not in found:
                found.append(path)
    parts = []
    for path in found:
        try:
            parts.append(
                f"{path}:\n{_cap(path.read_text(encoding='utf-8', errors='replace'), limit)}"
            )
        except OSError:
            continue
    return "\n\n".join(parts) or None


@dataclass(frozen=True)
class Builtin:
    """A context built-in: its function, and whether it speaks every turn or on the first."""

    fn: Callable[..., str | None]
    every_turn: bool


CONTEXT: dict[str, Builtin] = {
    "add_date": Builtin(add_date, True),
    "add_git_status": Builtin(add_git_status, True),
    "add_git_diff": Builtin(add_git_diff, True),
    "add_environment_info": Builtin(add_environment_info, False),
    "add_user_info": Builtin(add_user_info, False),
    "add_recent_commits": Builtin(add_recent_commits, False),
    "add_directory_listing": Builtin(add_directory_listing, False),
    "add_prompt_files": Builtin(add_prompt_files, False),
}
#: Every switch of the library, in its declared order (``builtin_plugins/__init__.py``).
NAMES = LIBRARY
#: The switches that are no context built-in.
LIMITS = tuple(name for name in NAMES if name not in CONTEXT)


class Library(SourceBase):
    """The configured built-ins of the library, in the order of :data:`NAMES`."""

    def __init__(self, hooks: Hooks, chosen: dict[str, dict[str, Any]]) -> None:
        self.home = hooks.home
        self.chosen = chosen
        self.failed: set[str] = set()  # context built-ins whose failure was reported
        if not any(name in CONTEXT for name in chosen):
            self.pre_llm_call = None  # type: ignore[assignment]  # no context built-in: no impl
        if "limit_large_tool_results" not in chosen:
            self.transform_tool_result = None  # type: ignore[assignment]  # likewise

    @hookimpl(trylast=True)
    def pre_llm_call(self, is_first_turn: bool | None) -> str | None:
        cwd = os.getcwd()
        texts = []
        for name, options in self.chosen.items():
            builtin = CONTEXT.get(name)
            if builtin is None or not (builtin.every_turn or is_first_turn):
                continue
            extra = {"home": self.home} if name == "add_prompt_files" else {}
            try:
                text = builtin.fn(options, cwd, **extra)
            except (ValueError, TypeError, OSError) as exc:  # a bad option: this one is silent
                if name not in self.failed:
                    self.failed.add(name)
                    log.warning("%s failed: %s: %s (check its options in config.yaml; reported "
                                "once)", name, type(exc).__name__, exc)  # fmt: skip
                continue
            if text:
                texts.append(text)
        return "\n\n".join(texts) or None

    @hookimpl(trylast=True)
    def transform_tool_result(
        self, result: Any, session_id: str | None, tool_call_id: str | None
    ) -> Any:
        options = self.chosen["limit_large_tool_results"]
        limit = int(options.get("max_bytes", 32768))
        if not isinstance(result, str) or len(result.encode()) <= limit:
            return None
        folder = self.home / "tool-results"
        folder.mkdir(parents=True, exist_ok=True)
        stem = re.sub(r"[^\w.-]", "_", f"{session_id or 'session'}-{tool_call_id or ''}")[:100]
        digest = hashlib.sha256(result.encode()).hexdigest()[:12]
        path = folder / f"{stem}-{digest}.txt"
        path.write_text(result, encoding="utf-8")
        head, tail = result[: limit // 2], result[-(limit // 4) :]
        removed = len(result) - len(head) - len(tail)
        note = f"\n… [{removed} characters removed by limit_large_tool_results; the full text is in {path}] …\n"
        return head + note + tail

    def rows(self) -> list[dict[str, Any]]:
        rows = []
        for name in self.chosen:
            builtin = CONTEXT.get(name)
            when = None if builtin is None else "every turn" if builtin.every_turn else "first turn"
            rows += builtin_rows(f"builtin:{name}", SWITCHES[name].serves or (), when)
        return rows


def chosen_builtins(hooks: Hooks) -> dict[str, dict[str, Any]]:
    """The library built-ins the config turns on (top-level keys or ``type: builtin`` entries),
    each with its options."""
    out = {}
    for name in NAMES:
        value = switches.value(hooks, name)
        if value:
            out[name] = value if isinstance(value, dict) else {}
    return out


def setup(hooks: Hooks) -> Library | None:
    """The library, when the config turns on at least one of its built-ins."""
    chosen = chosen_builtins(hooks)
    if hooks.safe_mode or not chosen:
        return None
    return Library(hooks, chosen)
