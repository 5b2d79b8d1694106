"""Internal: part of the built-ins (docs/builtins.md), not an API.

The cap on what one Claude Code hook adds to the model's context, as Claude Code applies it:
text over :data:`CONTEXT_CAP` characters (plain stdout that becomes context,
``additionalContext``, ``systemMessage``) is saved whole to a file under the home, and the model
gets the beginning of it and a line saying how long it was and where the file is."""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

log = logging.getLogger("hermes_hooks")

#: Claude Code's limit, in characters, on one hook's context text.
CONTEXT_CAP = 10_000
#: How much of an over-long text the model still sees.
PREVIEW = 2_000


class ContextCap:
    """Caps context texts at ``limit`` characters, saving the whole text in ``directory``."""

    def __init__(self, directory: Path, limit: int = CONTEXT_CAP) -> None:
        self.directory = directory
        self.limit = limit

    def __call__(self, text: str) -> str:
        if len(text) <= self.limit:
            return text
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        path = self.directory / f"context-{digest}.txt"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as out:
                out.write(text)
            where = f"the whole output is in {path}"
        except OSError as exc:
            log.warning("hook context over %d characters could not be saved to %s: %s",
                        self.limit, path, exc.strerror or exc)  # fmt: skip
            where = f"the rest could not be saved ({exc.strerror or exc})"
        preview = text[: min(PREVIEW, self.limit // 2)]
        return (
            f"{preview}\n\n[hook output cut: {len(text)} characters, over the {self.limit}-character "
            f"limit; {where}]"
        )
