"""docs/dialects.md states each agent's oracle summary line and names every deliberate
difference in that agent's section; both are read off the corpora here, so the page cannot drift
from the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_cases import CASES as CLAUDE_CASES
from claude_generated import CASES as CLAUDE_GENERATED
from claude_generated import expected_difference
from codex_cases import CASES as CODEX_HAND
from codex_generated import CASES as CODEX_GENERATED
from gemini_cases import CASES as GEMINI_HAND
from gemini_generated import CASES as GEMINI_GENERATED

#: The hand-picked and the generated cases of one agent share its summary line.
CODEX_CASES: list[Any] = [*CODEX_HAND, *CODEX_GENERATED]
GEMINI_CASES: list[Any] = [*GEMINI_HAND, *GEMINI_GENERATED]

pytestmark = pytest.mark.oracle

DOC = Path(__file__).resolve().parents[2] / "docs" / "dialects.md"
#: agent (as in the summary line) -> its corpus and the heading of its section in the page.
CORPORA: dict[str, tuple[list[Any], str]] = {
    "claude-code": (CLAUDE_CASES, "## Claude Code\n"),
    "gemini-cli": (GEMINI_CASES, "## Gemini CLI\n"),
    "codex": (CODEX_CASES, "## Codex\n"),
}


def _section(heading: str) -> str:
    text = DOC.read_text()
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else None]


#: The named differences of the Claude Code cases: the hand-written and the generated ones.
CLAUDE_NAMED = [c.differs for c in CLAUDE_CASES if c.differs] + [
    d for c in CLAUDE_GENERATED if (d := expected_difference(c))
]


def test_the_claude_code_summary_line_in_the_docs_matches_the_corpus() -> None:
    named = len(CLAUDE_NAMED)
    xfail = sum(1 for c in CLAUDE_CASES if c.xfail)
    total = len(CLAUDE_CASES) + len(CLAUDE_GENERATED)
    text = " ".join(_section(CORPORA["claude-code"][1]).split())
    line = (f"oracle claude-code: {total - named - xfail}/{total} cases agree ({named} named "
            f"differences; {xfail} xfail (missing features))")  # fmt: skip
    assert line in text, f"docs/dialects.md (Claude Code) should say: {line}"
    gen_named = sum(1 for c in CLAUDE_GENERATED if expected_difference(c))
    generated = (f"oracle claude-code (generated): {len(CLAUDE_GENERATED) - gen_named}/"
                 f"{len(CLAUDE_GENERATED)} cases agree")  # fmt: skip
    assert generated in text, f"docs/dialects.md (Claude Code) should say: {generated}"


@pytest.mark.parametrize("agent", ["gemini-cli", "codex"])
def test_the_dialect_summary_lines_in_the_docs_match_the_corpora(agent: str) -> None:
    cases, heading = CORPORA[agent]
    named = sum(1 for c in cases if c.differs)
    xfail = sum(1 for c in cases if c.xfail)
    line = f"oracle {agent}: {len(cases) - named - xfail}/{len(cases)} cases agree"
    extra = [f"{named} named differences"] if named else []
    extra += [f"{xfail} xfail (missing features)"] if xfail else []
    line += f" ({'; '.join(extra)})" if extra else ""
    assert line in _section(heading), f"docs/dialects.md ({heading.strip()}) should say: {line}"


@pytest.mark.parametrize("agent", sorted(CORPORA))
def test_every_named_difference_is_explained_in_the_agents_section(agent: str) -> None:
    cases, heading = CORPORA[agent]
    text = _section(heading)
    names = set(CLAUDE_NAMED) if agent == "claude-code" else {c.differs for c in cases if c.differs}
    for name in sorted(names):
        assert f"| `{name}` |" in text, (
            f"docs/dialects.md {heading.strip()} does not explain {name}"
        )


def test_every_named_difference_has_its_explanation_in_the_test_module() -> None:
    from test_oracle_claude import DIFFERENCES as CLAUDE
    from test_oracle_codex import DIFFERENCES as CODEX
    from test_oracle_gemini import DIFFERENCES as GEMINI

    used_by = {"claude": set(CLAUDE_NAMED)}
    for agent, cases, table in (("claude", CLAUDE_CASES, CLAUDE), ("gemini", GEMINI_CASES, GEMINI),
                                ("codex", CODEX_CASES, CODEX)):  # fmt: skip
        used = used_by.get(agent, {c.differs for c in cases if c.differs})
        assert used == set(table), (
            f"named differences without a case or an explanation: {used ^ set(table)}"
        )
