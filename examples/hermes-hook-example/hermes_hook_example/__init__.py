"""An example hermes-hooks plugin, installed with pip and found through its entry point.

Two hooks:

- ``pre_tool_call`` blocks a ``terminal`` command that deletes the root filesystem
  (``rm -rf /``, ``sudo rm -fr /*``, ``rm -r -f / --no-preserve-root``, ...). The message is what
  the model reads instead of the command's output.
- ``pre_llm_call`` adds one line of context to every turn, so the model knows the rule.

Hook functions take only the arguments they use; hermes-hooks passes them by name.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

import hermes_hooks

__version__ = "0.1.0"

BLOCK_MESSAGE = (
    "Blocked by hermes-hook-example: this command runs `rm -rf /`, which would delete the whole "
    "filesystem. Do not retry it; if the user really wants this, they must run it themselves."
)

CONTEXT_LINE = (
    "Note from hermes-hook-example: terminal commands that delete the root filesystem "
    "(`rm -rf /`) are blocked in this session."
)

# Separators between the commands of one shell line: `a; b`, `a && b`, `a || b`, `a | b`, `a & b`.
_SEPARATORS = re.compile(r"&&|\|\||[;&|\n]")
# `/`, `//`, `/*`: the root itself or everything in it.
_ROOT = re.compile(r"/+\*?")


def deletes_root(command: str) -> bool:
    """True when one of the commands in ``command`` is a recursive ``rm`` of ``/``."""
    for part in _SEPARATORS.split(command):
        try:
            words = shlex.split(part)
        except ValueError:  # unbalanced quotes: fall back to plain words
            words = part.split()
        for i, word in enumerate(words):
            if os.path.basename(word) != "rm":
                continue
            rest = words[i + 1 :]
            options = [w for w in rest if w.startswith("-")]
            targets = [w for w in rest if not w.startswith("-")]
            recursive = any(
                o == "--recursive" or (not o.startswith("--") and ("r" in o or "R" in o))
                for o in options
            )
            if recursive and any(_ROOT.fullmatch(t) for t in targets):
                return True
    return False


@hermes_hooks.hookimpl
def pre_tool_call(tool_name: str, args: dict[str, Any] | None) -> dict[str, str] | None:
    """Block a terminal command that would delete the root filesystem; no opinion otherwise."""
    if tool_name != "terminal" or not isinstance(args, dict):
        return None
    command = args.get("command")
    if isinstance(command, str) and deletes_root(command):
        return {"action": "block", "message": BLOCK_MESSAGE}
    return None


@hermes_hooks.hookimpl
def pre_llm_call() -> str:
    """One line of context for every turn."""
    return CONTEXT_LINE
