"""``command_guard`` measured on a held-out corpus (``tests/data/command_corpus/heldout/``):
Atomic Red Team techniques and tldr pages that were not used to tune its rules, labelled before
the guard was run on them (see that folder's PROVENANCE.md).

The figures measured when the corpus was added were recall 64/102 = 0.627 and 3 of 635 ordinary
lines flagged (0.47 %). Its misses were then closed by category, each with a general rule tested
on lines of our own (persistence and auth files, credential dumping, git-extras, disk wipers,
prunes of every engine, forge deletions, kexec/FileVault/SIP, file-sharing uploads, interpreters
named by a variable, doctl's aliases): 101/102 and 0 of 635 since. Having been read, the corpus
is no longer a blind estimate; the bounds (those figures with a small margin) track regressions.
It is not a target to tune the rules against; a rule change that moves the figures should say so
and update the bounds, not the corpus.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

CORPUS = Path(__file__).resolve().parent / "data" / "command_corpus"
RECALL_AT_LEAST = 101 / 102 - 0.05
FLAGGED_AT_MOST = 0 / 635 + 0.01


def load(folder: Path) -> list[dict]:
    return [case for path in sorted(folder.glob("*.toml"))
            for case in tomllib.loads(path.read_text(encoding="utf-8"))["case"]]  # fmt: skip


@cache
def rulebook():
    from hermes_hooks.builtin_plugins.command_guard import every_rule
    from hermes_hooks.builtin_plugins.command_guard.rules import Rulebook

    return Rulebook(every_rule())


def flagged(command: str) -> bool:
    verdict = rulebook().judge(command)
    return bool(verdict.findings) or verdict.parsed.error is not None


def test_heldout_corpus_is_apart_from_the_tuning_corpora():
    cases = load(CORPUS / "heldout")
    assert sum(c["expected"] == "deny" for c in cases) == 102
    assert sum(c["expected"] == "allow" for c in cases) == 635
    assert all(c["source"] and c["note"] for c in cases)
    commands = [c["command"] for c in cases]
    assert len(set(commands)) == len(commands), "a command is listed twice"
    tuned = {case["command"] for name in ("public", "dcg")
             for path in (CORPUS / name).rglob("*.toml")
             for case in tomllib.loads(path.read_text(encoding="utf-8")).get("case", [])
             if "command" in case}  # fmt: skip
    assert not set(commands) & tuned, "a held-out command is also in a tuning corpus"


def test_heldout_recall_and_false_flags():
    cases = load(CORPUS / "heldout")
    misses = [c for c in cases if c["expected"] == "deny" and not flagged(c["command"])]
    false_flags = [c for c in cases if c["expected"] == "allow" and flagged(c["command"])]
    deny = sum(c["expected"] == "deny" for c in cases)
    allow = len(cases) - deny
    recall = 1 - len(misses) / deny
    rate = len(false_flags) / allow
    report = "\n".join([
        f"held-out recall {recall:.3f} ({deny - len(misses)}/{deny}), flagged ordinary "
        f"{rate:.2%} ({len(false_flags)}/{allow})",
        f"misses ({len(misses)}):", *(f"  {c['command']!r}  [{c['source']}]" for c in misses),
        f"false flags ({len(false_flags)}):",
        *(f"  {c['command']!r}  [{c['source']}]" for c in false_flags),
    ])  # fmt: skip
    print(report)
    assert recall >= RECALL_AT_LEAST and rate <= FLAGGED_AT_MOST, report
