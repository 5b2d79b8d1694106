"""Every hook is an entry of the dispatch plan: each shell hook (and http, prompt, mcp, worker
hook) is its own entry, in the source's place, so the one dispatcher orders, isolates, fails
closed, counts, pipes and combines it as it does a Python hook; the hooks of one firing still
run side by side, their pending answers settled in one batch."""

from __future__ import annotations

import json
import logging
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hermes_hooks.builtin_plugins.shell_hooks import consent
from shell_helpers import load, shell_plugin, write_settings

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


# ------------------------------------------------------------------ receipts: the dispatcher writes them


def _script(tmp: Path, name: str, body: str) -> Path:
    path = tmp / f"{name}.sh"
    path.write_text(f"#!/bin/sh\ncat > /dev/null\n{body}\n")
    path.chmod(0o755)
    return path


def _receipts(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_one_firing_gives_one_receipt_per_hook_in_plan_order(home: Path, tmp_path: Path) -> None:
    block = _script(tmp_path, "block", """echo '{"decision": "block", "reason": "no rm"}'""")
    quiet = _script(tmp_path, "quiet", "exit 0")
    trace = tmp_path / "trace.jsonl"
    hooks = load(
        home,
        {"pre_tool_call": [{"command": str(quiet), "name": "quiet"},
                           {"command": str(block), "name": "blocker"}]},
        trace_file=str(trace),
    )  # fmt: skip
    hooks.register(Allow(), "py")
    d = hooks.pre_tool_call(tool_name="terminal", args=RM)
    assert d.action == "block"
    receipts = _receipts(trace)
    assert [(r["hook"], r["source"], r["outcome"]) for r in receipts] == [
        ("py", "python", "answered"),
        ("quiet", "shell", "no opinion"),
        ("blocker", "shell", "answered"),
    ]
    py, q, b = receipts
    assert py["sha256"] is None
    assert q["sha256"] == consent.file_sha256(str(quiet))
    assert b["sha256"] == consent.file_sha256(str(block))
    assert b["decision"]["action"] == "block" and b["decision"]["message"] == "no rm"
    assert q["decision"] is None and q["error"] is None and b["error"] is None
    # the same through hooks.invoke (every answer back): the same receipts, none lost
    trace.unlink()
    hooks.invoke("pre_tool_call", tool_name="terminal", args=RM)
    assert [r["hook"] for r in _receipts(trace)] == ["py", "quiet", "blocker"]


def test_a_shell_hook_whose_source_failed_to_settle_still_has_its_receipt(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = _script(tmp_path, "guard", "exit 0")
    trace = tmp_path / "trace.jsonl"
    hooks = load(
        home,
        {"pre_tool_call": [{"command": str(guard), "name": "guard", "fail_closed": True}]},
        trace_file=str(trace),
    )

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the adapter broke")

    monkeypatch.setattr(shell_plugin(hooks), "settle", broken)
    assert hooks.pre_tool_call(tool_name="terminal", args=RM).action == "block"
    [receipt] = _receipts(trace)
    assert (receipt["hook"], receipt["source"], receipt["outcome"]) == ("guard", "shell", "failed")
    assert receipt["error"] == "RuntimeError: the adapter broke"
    assert receipt["decision"]["action"] == "block"  # what the dispatcher made of it


def test_a_shell_hook_whose_start_failed_still_has_its_receipt(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook = _script(tmp_path, "hook", "exit 0")
    trace = tmp_path / "trace.jsonl"
    hooks = load(home, {"pre_tool_call": [{"command": str(hook), "name": "h"}]},
                 trace_file=str(trace))  # fmt: skip

    def broken(*args: Any) -> Any:
        raise RuntimeError("cannot match")

    monkeypatch.setattr(shell_plugin(hooks), "_start", broken)
    hooks.manager._rebuild()  # the entries bind the source's method when the plan is built
    hooks.pre_tool_call(tool_name="terminal", args=RM)
    [receipt] = _receipts(trace)
    assert (receipt["hook"], receipt["outcome"]) == ("h", "failed")
    assert receipt["error"] == "RuntimeError: cannot match"


def test_a_receipt_is_timed_from_the_entrys_start_to_its_settling(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The process ends at once; the source takes half a second to settle it: the receipt's
    # time is the dispatcher's (the entry's), not the process's.
    hook = _script(tmp_path, "hook", "exit 0")
    trace = tmp_path / "trace.jsonl"
    hooks = load(home, {"pre_tool_call": [{"command": str(hook), "name": "h"}]},
                 trace_file=str(trace))  # fmt: skip
    source = shell_plugin(hooks)
    settle = source.settle

    def slow(*args: Any) -> Any:
        done = settle(*args)
        time.sleep(0.5)
        return done

    monkeypatch.setattr(source, "settle", slow)
    hooks.pre_tool_call(tool_name="terminal", args=RM)
    [receipt] = _receipts(trace)
    assert receipt["ms"] >= 500


def test_a_sources_entries_are_receipted_by_the_dispatcher(tmp_path: Path) -> None:
    @dataclass
    class Said(Settled):
        outcome: str | None = None
        error: str | None = None
        sha256: str | None = None
        raw: Any = None
        kwargs: Any = None

    source = Batched(
        {
            "ok": Said(value=None, sha256="ab" * 32, raw={"said": "nothing"}),
            "quiet": None,  # not run at this firing: no receipt
            "withheld": Said(outcome="unapproved", error="not approved; approve it"),
            "plain": Settled(dropped="not an answer"),  # a source that says only the answer
        },
        fail_closed=set(),
    )
    trace = tmp_path / "trace.jsonl"
    hooks = hermes_hooks.Hooks(home=tmp_path, config={"trace_file": str(trace)})
    hooks.add_source(source, "batched")
    hooks.pre_tool_call(tool_name="terminal", args=RM)
    got = [
        (r["hook"], r["source"], r["outcome"], r["error"], r["sha256"]) for r in _receipts(trace)
    ]
    assert got == [
        ("ok", "builtin", "no opinion", None, "ab" * 32),
        ("withheld", "builtin", "unapproved", "not approved; approve it", None),
        ("plain", "builtin", "dropped", None, None),
    ]


def test_a_background_hook_is_receipted_once_where_it_ends(home: Path, tmp_path: Path) -> None:
    # No dispatcher waits for an async hook: its run is recorded when it ends, with the same
    # fields as any shell hook's receipt, and only then.
    gate = tmp_path / "gate"
    hook = _script(tmp_path, "bg", f"while [ ! -e {gate} ]; do sleep 0.05; done\nexit 0")
    write_settings(
        home / "settings.json",
        {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(hook),
                                                       "async": True, "timeout": 30}]}]},
    )  # fmt: skip
    trace = tmp_path / "trace.jsonl"
    (home / "config.yaml").write_text(f"trace_file: {trace}\n")
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")
    assert _receipts(trace) == []  # still running: nothing to say yet
    gate.touch()
    hooks.close()  # waits for background hooks
    [receipt] = _receipts(trace)
    assert (receipt["hook"], receipt["source"], receipt["outcome"]) == (
        str(hook),
        "shell",
        "no opinion",
    )
    assert receipt["sha256"] == consent.file_sha256(str(hook))
    assert receipt["session_id"] == "s1" and receipt["error"] is None


def test_opentelemetry_gets_a_span_per_shell_hook_under_its_event(
    home: Path, tmp_path: Path, otel_spans: Any
) -> None:
    block = _script(tmp_path, "block", """echo '{"decision": "block", "reason": "no rm"}'""")
    quiet = _script(tmp_path, "quiet", "exit 0")
    hooks = load(
        home,
        {"pre_tool_call": [{"command": str(quiet), "name": "quiet"},
                           {"command": str(block), "name": "blocker"}]},
        otel=True,
    )  # fmt: skip
    hooks.pre_tool_call(tool_name="terminal", args=RM, session_id="s1")
    spans = {s.name: s for s in otel_spans.get_finished_spans()}
    event = spans["hermes_hooks pre_tool_call"]
    for name in ("quiet", "blocker"):
        span = spans[f"hermes_hooks hook {name}"]
        assert span.parent is not None and span.parent.span_id == event.context.span_id
        assert span.attributes["hermes.source"] == "shell"
        assert span.start_time >= event.start_time and span.end_time <= event.end_time
    blocker = spans["hermes_hooks hook blocker"]
    assert blocker.attributes["hermes.decision.action"] == "block"
    assert blocker.attributes["hermes.sha256"] == consent.file_sha256(str(block))


def test_piped_shell_hooks_are_receipted_one_by_one_with_what_each_was_piped(
    home: Path, tmp_path: Path
) -> None:
    first = _script(tmp_path, "first", """echo '{"result": "one"}'""")
    second = _script(tmp_path, "second", """echo '{"result": "two"}'""")
    trace = tmp_path / "trace.jsonl"
    hooks = load(
        home,
        {"transform_tool_result": [{"command": str(first), "name": "first"},
                                   {"command": str(second), "name": "second"}]},
        trace_file=str(trace),
        trace_payloads=True,
    )  # fmt: skip
    assert hooks.transform_tool_result(tool_name="terminal", args={}, result="orig") == "two"
    got = [(r["hook"], r["payload"]["result"], r["decision"]) for r in _receipts(trace)]
    assert got == [("first", "orig", "one"), ("second", "one", "two")]


def test_sequential_shell_hooks_are_receipted_with_the_arguments_each_saw(
    home: Path, tmp_path: Path
) -> None:
    # In a sequence each hook sees what the one before rewrote; its receipt (written by the
    # dispatcher once the whole sequence is settled) still shows what it saw itself.
    rewrite = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                      "updatedInput": {"command": "ls -a"}}}  # fmt: skip
    first = _script(tmp_path, "first", f"echo '{json.dumps(rewrite)}'")
    second = _script(tmp_path, "second", "exit 0")
    trace = tmp_path / "trace.jsonl"
    hooks = load(
        home,
        {"pre_tool_call": [{"command": str(first), "name": "first", "sequential": True,
                            "protocol": "claude"},
                           {"command": str(second), "name": "second"}]},
        trace_file=str(trace),
        trace_payloads=True,
    )  # fmt: skip
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    got = [(r["hook"], json.loads(r["payload"]["args"])) for r in _receipts(trace)]
    # the first round; the rewrite is then judged again (a second round on "ls -a")
    assert got[:2] == [("first", {"command": "ls"}), ("second", {"command": "ls -a"})]
