"""Internal: part of the built-ins (docs/builtins.md), not an API.

The packs table of ``docs/builtins.md``, rendered from the packs themselves:
``python -m hermes_hooks.builtin_plugins.command_guard.docs docs/builtins.md`` rewrites the part
between the markers; a test fails when the committed page differs, so the reference never drifts
from the rules."""

from __future__ import annotations

import sys
from pathlib import Path

from .packs import all_packs
from .rules import UNPARSEABLE

BEGIN = "<!-- command_guard packs: begin (generated) -->"
END = "<!-- command_guard packs: end -->"


def packs_markdown() -> str:
    """One row per pack: its name, what it covers, and its rule ids (those that block in
    bold)."""
    rows = ["| pack | covers | rules (**blocks**, the others ask) |", "| --- | --- | --- |"]
    rows.append(f"| `parser` | a line the parser cannot read | **`{UNPARSEABLE.id}`** |")
    for pack in all_packs().values():
        ids = ", ".join(f"**`{r.id}`**" if r.catastrophic else f"`{r.id}`" for r in pack.rules)
        rows.append(f"| `{pack.name}` | {pack.description} | {ids} |")
    return "\n".join(rows)


def render(page: str) -> str:
    """``page`` with the table between the markers replaced."""
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{packs_markdown()}\n{END}{tail}"


def main() -> None:
    target = Path(sys.argv[1])
    target.write_text(render(target.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
