"""docs/security.md is the model the suite checks: each of its promises names the tests that
prove it, and every test it names exists (a renamed or deleted test must not leave a promise
proved by nothing)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "security.md"
NAMED = re.compile(r"`(?:tests/[\w/]+\.py::)?(test_\w+)`")


def _promises() -> dict[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("\n## Promises\n", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### (.+)$", section, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _defined() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        found |= set(re.findall(r"^(?:async )?def (test_\w+)", path.read_text(), re.M))
    return found


def test_every_promise_names_its_proof_and_its_limits():
    promises = _promises()
    assert len(promises) >= 4, list(promises)
    for title, body in promises.items():
        assert NAMED.search(body.split("Proved by", 1)[-1]), f"{title}: names no test"
        assert "Not covered" in body, f"{title}: says nothing of what it does not cover"


def test_every_test_the_page_names_exists():
    named = set(NAMED.findall(PAGE.read_text(encoding="utf-8")))
    assert named and not named - _defined(), sorted(named - _defined())
