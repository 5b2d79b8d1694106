"""Every hook is an entry of the dispatch plan: each shell hook (and http, prompt, mcp, worker
hook) is its own entry, in the source's place, so the one dispatcher orders, isolates, fails
closed, counts, pipes and combines it as it does a Python hook; the hooks of one firing still
run side by side, their pending answers settled in one batch."""

from __future__ import annotations

import logging
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from shell_helpers import load, shell_plugin

import hermes_hooks
from hermes_hooks import hookimpl
from hermes_hooks.manager import Entry
from hermes_hooks.sources import SourceBase

RM = {"command": "rm -rf /"}


def _py(body: str, tmp: Path, name: str) -> str:
    path = tmp / f"{name}.py"
    path.write_text(body)
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def _answer(tmp: Path, name: str, answer: str) -> str:
    return _py(f"import sys\nsys.stdin.read()\nprint({answer!r})\n", tmp, name)


class Allow:
    @hookimpl
    def pre_tool_call(self, tool_name: str) -> Any:
        return {"action": "allow"}


def test_each_shell_hook_is_its_own_entry_after_python_hooks_in_run_order(
    home: Path, tmp_path: Path
) -> None:
    low = {"command": _answer(tmp_path, "low", "{}"), "name": "low"}
    high = {"command": _answer(tmp_path, "high", "{}"), "name": "high", "priority": 5}
    plain = {"command": _answer(tmp_path, "plain", "{}"), "name": "plain"}
    hooks = load(home, {"pre_tool_call": [low, high, plain]})
    hooks.register(Allow(), "py")
    plan = hooks.manager.plan("pre_tool_call")
    names = [impl.name for impl in plan]
    assert names[0] == "py"  # trylast keeps the shell hooks after the Python plugins
    assert names[-3:] == ["high", "low", "plain"]  # priority first, then config order
    shell = [impl for impl in plan if impl.batch is not None]
    assert [i.name for i in shell] == ["high", "low", "plain"]
    assert all(i.batch is shell_plugin(hooks) for i in shell)
    # `hermes hooks list` is the plan, row for row
    rows = [r["name"] for r in hooks.rows(event="pre_tool_call", include_builtin=True)]
    assert rows == names
    listed = {r["name"]: r for r in hooks.rows(event="pre_tool_call")}
    assert listed["high"]["plugin"] == "builtin:shell_hooks"
    assert listed["high"]["status"] == "active"


def test_the_hooks_of_one_firing_run_side_by_side(home: Path, tmp_path: Path) -> None:
    # "waiter" answers only once "marker" has run: run one after the other it would time out.
    flag = tmp_path / "flag"
    waiter = _py(
        "import sys, time, pathlib, json\nsys.stdin.read()\n"
        f"p = pathlib.Path({str(flag)!r})\n"
        "for _ in range(100):\n"
        "    if p.exists():\n"
        "        print(json.dumps({'decision': 'block', 'reason': 'saw the marker'}))\n"
        "        break\n"
        "    time.sleep(0.05)\n",
        tmp_path,
        "waiter",
    )
    marker = _py(
        f"import sys, pathlib, time\nsys.stdin.read()\npathlib.Path({str(flag)!r}).touch()\n"
        "time.sleep(6)\n",
        tmp_path,
        "marker",
    )
    hooks = load(
        home,
        {"pre_tool_call": [{"command": waiter, "timeout": 6}, {"command": marker, "timeout": 1.5}]},
    )
    d = hooks.pre_tool_call(tool_name="terminal", args=RM)
    assert (d.action, d.message) == ("block", "saw the marker")


def test_a_fault_of_the_source_itself_fails_each_entry_alone(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    guard = {"command": _answer(tmp_path, "g", "{}"), "name": "guard", "fail_closed": True}
    other = {"command": _answer(tmp_path, "o", "{}"), "name": "other"}
    hooks = load(home, {"pre_tool_call": [guard, other]})
    hooks.register(Allow(), "py")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the adapter broke")

    monkeypatch.setattr(shell_plugin(hooks), "settle", broken)
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        d = hooks.pre_tool_call(tool_name="terminal", args=RM)
    assert d.action == "block"
    assert "guard" in d.message and "the adapter broke" in d.message
    assert hooks.manager.failures[("guard", "pre_tool_call")] == 1
    assert hooks.manager.failures[("other", "pre_tool_call")] == 1
    # without a fail_closed hook the same fault costs only the shell hooks their answers
    hooks2 = load(home, {"pre_tool_call": [other]})
    hooks2.register(Allow(), "py")
    monkeypatch.setattr(shell_plugin(hooks2), "settle", broken)
    assert hooks2.pre_tool_call(tool_name="terminal", args=RM).action == "allow"


def test_a_fault_while_starting_an_entry_stays_with_it(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    block = _answer(tmp_path, "b", '{"decision": "block", "reason": "no"}')
    hooks = load(home, {"pre_tool_call": [{"command": block, "name": "blocker"}]})
    source = shell_plugin(hooks)

    def broken(*args: Any) -> Any:
        raise RuntimeError("cannot match")

    monkeypatch.setattr(source, "_start", broken)
    hooks.manager._rebuild()  # the entries bind the source's method when the plan is built
    d = hooks.pre_tool_call(tool_name="terminal", args=RM)
    assert d.action is None  # not fail_closed: it costs the hook its answer
    assert hooks.manager.failures[("blocker", "pre_tool_call")] == 1


@pytest.mark.parametrize("traced", [False, True], ids=["untraced", "traced"])
def test_a_failing_hook_is_counted_once(home: Path, tmp_path: Path, traced: bool) -> None:
    slow = _py("import sys, time\nsys.stdin.read()\ntime.sleep(10)\n", tmp_path, "slow")
    config: dict[str, Any] = {"trace_file": str(tmp_path / "trace.jsonl")} if traced else {}
    entry = {"command": slow, "name": "slow", "timeout": 0.2}
    hooks = load(home, {"pre_tool_call": [entry]}, **config)
    assert (hooks.tracer is not None) is traced
    hooks.pre_tool_call(tool_name="terminal", args=RM)
    assert hooks.manager.failures[("slow", "pre_tool_call")] == 1


def test_a_first_event_settles_its_shell_hooks_together_and_keeps_the_strongest(
    home: Path, tmp_path: Path
) -> None:
    # "waiter" denies only once "marker" (an allow, first to finish) has run: settled one after
    # the other, the waiter would answer nothing and the allow would stand.
    flag = tmp_path / "flag"
    deny = {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                   "decision": {"behavior": "deny", "message": "not this"}}}  # fmt: skip
    allow = {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                    "decision": {"behavior": "allow"}}}  # fmt: skip
    waiter = _py(
        "import sys, time, pathlib, json\nsys.stdin.read()\n"
        f"p = pathlib.Path({str(flag)!r})\n"
        "for _ in range(60):\n"
        "    if p.exists():\n"
        f"        print(json.dumps({deny!r}))\n"
        "        break\n"
        "    time.sleep(0.05)\n",
        tmp_path,
        "waiter",
    )
    marker = _py(
        f"import sys, pathlib, json\nsys.stdin.read()\npathlib.Path({str(flag)!r}).touch()\n"
        f"print(json.dumps({allow!r}))\n",
        tmp_path,
        "marker",
    )
    hooks = load(home, {"permission_request": [{"command": waiter, "protocol": "claude"},
                                               {"command": marker, "protocol": "claude"}]})  # fmt: skip
    result = hooks.call("permission_request", tool_name="Bash", tool_input=RM)
    assert (result.action, result.message) == ("deny", "not this")


def test_pluggys_raw_loop_says_that_it_ran_no_shell_hook(
    home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    block = _answer(tmp_path, "b", '{"decision": "block", "reason": "no"}')
    hooks = load(home, {"pre_tool_call": [{"command": block}]})
    with caplog.at_level(logging.WARNING, "hermes_hooks"):
        hooks.manager.hook.pre_tool_call(tool_name="terminal", args=RM)
        hooks.manager.hook.pre_tool_call(tool_name="terminal", args=RM)
    said = [r.getMessage() for r in caplog.records if "pluggy's own loop" in r.getMessage()]
    assert len(said) == 1 and "hooks.call" in said[0]


# ------------------------------------------------------------------ the entry protocol itself


@dataclass
class Settled:
    value: Any = None
    failure: str | None = None
    dropped: str | None = None


class Batched(SourceBase):
    """A minimal hook source handing out entries: each answers what ``answers`` holds."""

    def __init__(self, answers: dict[str, Settled | None], fail_closed: set[str]) -> None:
        self.answers = answers
        self.fail_closed = fail_closed
        self.batches: list[list[str]] = []

    @hookimpl(trylast=True)
    def pre_tool_call(self, **kwargs: Any) -> Any:  # the plan puts the entries here
        raise AssertionError("the dispatcher calls the entries, not the source's impl")

    def entries(self, event: str) -> list[Entry]:
        return [
            Entry(
                name=name,
                start=lambda kw, n=name: n,
                batch=self,
                fail_closed=name in self.fail_closed,
            )
            for name in self.answers
        ]

    def settle(self, info: Any, kwargs: Any, pending: list[str]) -> list[Settled | None]:
        self.batches.append(list(pending))
        return [self.answers[name] for name in pending]


def test_a_sources_entries_are_settled_in_one_batch_and_read_by_the_dispatcher() -> None:
    source = Batched(
        {
            "ok": Settled(value=None),
            "quiet": None,
            "broken": Settled(failure="it crashed"),
            "guard": Settled(failure="timed out"),  # fail_closed, no answer: the dispatcher blocks
            "ignored": Settled(dropped="not an answer"),
        },
        fail_closed={"guard"},
    )
    hooks = hermes_hooks.Hooks()
    hooks.add_source(source, "batched")
    d = hooks.pre_tool_call(tool_name="terminal", args=RM)
    assert source.batches == [["ok", "quiet", "broken", "guard", "ignored"]]
    assert d.action == "block"
    assert "guard" in d.message and "timed out" in d.message and "fail_closed" in d.message
    failures, dropped = hooks.manager.failures, hooks.manager.dropped
    assert failures[("broken", "pre_tool_call")] == failures[("guard", "pre_tool_call")] == 1
    assert dropped[("ignored", "pre_tool_call")] == 1 and not failures[("ok", "pre_tool_call")]
    # a source that loses answers is a fault of the source: each of its entries failed
    source.settle = lambda info, kwargs, pending: []  # type: ignore[method-assign]
    d = hooks.pre_tool_call(tool_name="terminal", args=RM)
    assert d.action == "block" and "settled 0 of 5" in d.message
