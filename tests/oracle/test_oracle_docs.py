"""docs/dialects.md states the oracle's Claude Code summary line and names every deliberate
difference; both are read off the corpus here, so the page cannot drift from the tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_cases import CASES

pytestmark = pytest.mark.oracle

DOC = Path(__file__).resolve().parents[2] / "docs" / "dialects.md"


def test_the_summary_line_in_the_docs_matches_the_corpus() -> None:
    named = sum(1 for c in CASES if c.differs)
    xfail = sum(1 for c in CASES if c.xfail)
    agree = len(CASES) - named - xfail
    text = DOC.read_text()
    assert f"oracle claude-code: {agree}/{len(CASES)} cases agree" in text
    are = "is a strict xfail" if xfail == 1 else "are strict xfails"
    assert f"({named} cases show the named differences below, {xfail} {are}" in " ".join(
        text.split()
    )


def test_every_named_difference_is_explained_in_the_docs() -> None:
    text = DOC.read_text()
    for name in sorted({c.differs for c in CASES if c.differs}):
        assert f"| `{name}` |" in text, f"docs/dialects.md does not explain {name}"
