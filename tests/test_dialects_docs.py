"""docs/dialects.md lists, in each agent's section, exactly the events of that agent the
hookspecs declare (``dialects=``), each beside the event of ours it stands for. The tables are
written by ``hermes_hooks.docgen`` (``tests/test_catalogue.py`` fails when they are stale); this
checks that each dialect has its section and that the rows read back as the specs say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import dialects

from hermes_hooks import catalogue

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "dialects.md").read_text()


def _section(label: str) -> str:
    return PAGE.partition(f"\n## {label}\n")[2].partition("\n## ")[0]


def _rows(label: str) -> set[tuple[str, str]]:
    """(the agent's event, ours) of every table row of the agent's section."""
    rows = re.findall(r"^\| `([^`]+)` \| `([a-z_]+)`", _section(label), re.MULTILINE)
    return set(rows)


@pytest.mark.parametrize("name", sorted(dialects.DIALECTS))
def test_the_dialects_table_lists_exactly_its_declared_events(name: str) -> None:
    dialect = dialects.DIALECTS[name]
    assert _section(dialect.label), f"docs/dialects.md has no '## {dialect.label}' section"
    declared = {
        (event.name, info.name)
        for info in catalogue.events().values()
        for event in info.dialect_events(name)
    }
    documented = {row for row in _rows(dialect.label) if row[1] in catalogue.events()}
    assert declared - documented == set(), "declared on the hookspecs, missing from the page"
    assert documented - declared == set(), "on the page, not declared on the hookspecs"
