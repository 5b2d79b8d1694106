"""Generated dialect cases, run several to one agent start (Codex and Gemini CLI).

A generated case is a set of tool-event hooks (``PreToolUse``/``BeforeTool`` and
``PostToolUse``/``AfterTool``) that answer only for their own tool call: every case has a key
(``c017``), its scripted shell command carries ``@c017@``, and each of its hook scripts reads its
stdin and exits 0 silently unless that key is in it. So the hooks of many cases can sit in one
hook file and one agent run, whose fake model asks for one call per case, one after the other;
what each case's call did is read back by its key: its side-effect file (``ran_c017``), the
payloads whose tool input holds its key, and the markers (``ORC-<kind>-c017_<n>``) the model saw.

hermes-hooks is loaded, per case, with that case's hooks as the batch's file holds them (the
other cases' hooks say nothing at its call) and fed the payloads the real agent sent for it.

A case whose answer may end the agent's turn (``stops``) is run last in its batch, at most one per
batch; a case that changes how every hook of its event runs (``alone``: a Gemini ``sequential``
group, a hook command that does not exist or needs bash) gets an agent run of its own, shared
only with the cases of the same ``alone`` value. A batch cut short
(a case's call never reached its hooks) fails loudly, naming the case.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from oracle_agents import AgentRun, recorder_command
from oracle_compare import Outcome, hermes_outcome, record, scan
from oracle_dialects import Agent, _part, dialect_kwargs, hermes_for, main_bodies
from oracle_servers import ToolCall

#: agent runs at a time, and cases per run (each case's hooks run at each of the run's calls,
#: silently for the others': batch**2 hook starts per event)
WORKERS = 3
BATCH = 16

COMMAND = "touch {d}/ran_{k}; echo TOOL-OUTPUT @{k}@"
REWRITTEN = "touch {d}/ran2_{k}; echo TOOL-OUTPUT-2 @{k}@"


@dataclass(frozen=True)
class Hook:
    """One hook of a case: its event (the agent's name), the group's matcher, the shell body
    run when the call is the case's (``{k}``: the case key, ``{d}``: the batch directory,
    ``{rw}``: the rewritten command), more keys for its group (``sequential``) or entry."""

    event: str
    body: str
    matcher: str | None = None
    group: Mapping[str, Any] = field(default_factory=dict)
    entry: Mapping[str, Any] = field(default_factory=dict)
    missing: bool = False  # the hook's command names a script that does not exist
    prefix: str = ""  # shell text before the script in the hook's command (which shell runs it)


@dataclass(frozen=True)
class GenCase:
    id: str  # readable, the pytest id
    key: str  # c017: markers and the command's tag
    hooks: tuple[Hook, ...]
    stops: bool = False
    alone: str | None = None  # cases with the same value share an agent run of their own
    differs: str | None = None
    xfail: str | None = None


def keyed(cases: list[tuple[str, tuple[Hook, ...], dict[str, Any]]], prefix: str) -> list[GenCase]:
    """Number generated cases (``prefix`` + three digits) in order; ids must be unique."""
    out = [GenCase(cid, f"{prefix}{n:03d}", hooks, **more)
           for n, (cid, hooks, more) in enumerate(cases)]  # fmt: skip
    ids = [c.id for c in out]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    assert not dupes, f"generated case ids repeat: {dupes}"
    return out


def say(answer: Any, stream: str = "stdout") -> str:
    """A shell line printing ``answer`` (JSON unless a str) on ``stream``."""
    text = answer if isinstance(answer, str) else json.dumps(answer)
    return "printf '%s\\n' " + shlex.quote(text) + (" >&2" if stream == "stderr" else "")


def body(shape: Any, stream: str, code: int) -> str:
    """A hook script's lines: ``shape`` said on ``stream`` (``"both"``: stdout, plus a marker on
    stderr), then exit ``code`` (127: a missing program is run)."""
    lines = []
    if shape != "":
        lines.append(say(shape, "stderr" if stream == "stderr" else "stdout"))
    if stream == "both":
        lines.append("echo ORC-M-{k}_e >&2")
    lines.append("exec {d}/missing-{k}" if code == 127 else f"exit {code}")
    return "\n".join(lines)


def extra(
    table: Mapping[tuple[str, ...], str], key: tuple[str, ...], **more: Any
) -> dict[str, Any]:
    """A case's extra fields, with ``differs`` when ``table`` names a difference for ``key``."""
    return {**more, **({"differs": table[key]} if key in table else {})}


def batches(cases: list[GenCase], size: int = BATCH) -> list[list[GenCase]]:
    """Cases grouped into agent runs: the cases of one ``alone`` value in a run of their own,
    at most one ``stops`` case per run and last in it."""
    apart: dict[str, list[GenCase]] = {}
    for c in cases:
        if c.alone:
            apart.setdefault(c.alone, []).append(c)
    out = list(apart.values())
    plain = [c for c in cases if not c.alone and not c.stops]
    stoppers = [c for c in cases if not c.alone and c.stops]
    chunk = size - 1 if stoppers else size
    groups = [plain[i : i + chunk] for i in range(0, len(plain), chunk)] or []
    for i, stopper in enumerate(stoppers):
        if i < len(groups):
            groups[i].append(stopper)
        else:
            groups.append([stopper])
    return out + groups


def _script(d: Path, case: GenCase, n: int, hook: Hook) -> str:
    path = d / f"{case.key}_{n}.sh"
    if hook.missing:
        return str(path)  # never written
    body = (hook.body.replace("{rw}", REWRITTEN.format(d=d, k=case.key))
            .replace("{k}", case.key).replace("{d}", str(d)))  # fmt: skip
    # the payload is one line of JSON: ``read`` takes it without starting ``cat``
    path.write_text(f'#!/bin/sh\nIFS= read -r input\ncase "$input" in *@{case.key}@*) ;; *) exit 0 ;; esac\n'
                    f"{body}\n")  # fmt: skip
    path.chmod(0o755)
    return str(path)


def hook_file(agent: Agent, d: Path, cases: list[GenCase]) -> dict[str, Any]:
    """The ``hooks`` block of one batch: one group per hook, in case order."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        for n, hook in enumerate(case.hooks):
            command = hook.prefix + _script(d, case, n, hook)
            entry: dict[str, Any] = {"type": "command", "command": command}
            if agent.dialect == "gemini":
                entry["name"] = f"{case.key}_{n}"
            entry.update(hook.entry)
            group: dict[str, Any] = {"hooks": [entry], **hook.group}
            if hook.matcher is not None:
                group["matcher"] = hook.matcher
            hooks.setdefault(hook.event, []).append(group)
    return hooks


@dataclass
class Batch:
    dir: Path
    cases: list[GenCase]
    hooks: dict[str, Any]
    run: AgentRun


Runner = Callable[[Path, Path, dict[str, Any], list[ToolCall], Path], AgentRun]


def run_batches(
    agent: Agent,
    cases: list[GenCase],
    binary: Path,
    root: Path,
    runner: Runner,
    recorded: tuple[str, ...],
    call: Callable[[str], ToolCall],
    size: int = BATCH,
) -> dict[str, Batch]:
    """Every batch once by the real CLI, ``WORKERS`` at a time; case id -> its batch."""

    def one(n_cases: tuple[int, list[GenCase]]) -> Batch:
        n, group = n_cases
        d = root / f"batch{n:02d}"
        d.mkdir(parents=True)
        hooks = hook_file(agent, d, group)
        real_hooks = json.loads(json.dumps(hooks))
        rec = d / "payloads.jsonl"
        for event in recorded:
            entry = {"type": "command", "command": recorder_command(rec)}
            if agent.dialect == "gemini":
                entry["name"] = "recorder"
            real_hooks.setdefault(event, []).append({"hooks": [entry]})
        calls = [call(COMMAND.format(d=d, k=c.key)) for c in group]
        return Batch(d, group, hooks, runner(binary, d, real_hooks, calls, rec))

    with ThreadPoolExecutor(WORKERS) as pool:
        done = list(pool.map(one, enumerate(batches(cases, size))))
    return {c.id: b for b in done for c in b.cases}


def params(cases: list[GenCase]) -> list[Any]:
    out = []
    for case in cases:
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


def _mine(key: str, payload: Mapping[str, Any]) -> bool:
    return f"@{key}@" in json.dumps(payload.get("tool_input"))


def _own(found: set[tuple[str, str]], key: str) -> frozenset[tuple[str, str]]:
    return frozenset((w, t) for w, t in found if t.split("-", 2)[2].split("_")[0] == key)


def real_outcome(agent: Agent, batch: Batch, case: GenCase) -> Outcome:
    """What the real run did for ``case``'s call."""
    seen: set[tuple[str, str]] = set()
    for body in main_bodies(agent, batch.run.requests):
        for key in ("contents", "systemInstruction", "input", "instructions"):
            scan(body.get(key), "context", (), seen, _part)
    mine = [p for p in batch.run.payloads if _mine(case.key, p)]
    pre = next((p for p in mine if p.get("hook_event_name") == agent.names.pre), None)
    post = next((p for p in mine if p.get("hook_event_name") == agent.names.post), None)
    assert pre is not None, (
        f"{agent.name}: the call of {case.id} never reached its hooks: the batch "
        f"{batch.dir.name} was cut short ({', '.join(c.id for c in batch.cases)})"
    )
    ran = (batch.dir / f"ran_{case.key}").exists() or (batch.dir / f"ran2_{case.key}").exists()
    args = None
    scripted = {"command": COMMAND.format(d=batch.dir, k=case.key)}
    if ran and post is not None:  # the recorded PreToolUse may already hold a rewrite
        args = dialect_kwargs(agent.dialect, post)[1].get("args")  # (a sequential group)
        args = None if args == scripted else args
    return Outcome(ran=ran, args=args, seen=_own(seen, case.key))


def hermes_side(agent: Agent, batch: Batch, case: GenCase, monkeypatch: pytest.MonkeyPatch,
                tool_name: str) -> Outcome:  # fmt: skip
    """hermes-hooks loaded with the case's own hooks, as the batch's file holds them (the other
    cases' hooks say nothing at this call; a case run ``alone`` gets the whole file: a
    ``sequential`` group changes how every hook of its event runs), fed ``case``'s payloads."""
    d = batch.dir / case.key
    monkeypatch.setenv("HOME", str(d / "hermes-user"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (d / "hermes-project").mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(d / "hermes-project")
    hooks = batch.hooks if case.alone else hook_file(agent, batch.dir, [case])
    loaded = hermes_for(agent, d, hooks)
    mine = [p for p in batch.run.payloads
            if p.get("hook_event_name") in (agent.names.pre, agent.names.post) and _mine(case.key, p)]  # fmt: skip
    scripted = {"command": COMMAND.format(d=batch.dir, k=case.key)}
    ours = hermes_outcome(loaded, mine, scripted, True, (), names=agent.names,
                          kwargs_of=lambda p: dialect_kwargs(agent.dialect, p),
                          tool_name=tool_name)  # fmt: skip
    return Outcome(ran=ours.ran, args=ours.args, seen=_own(set(ours.seen), case.key))


def compare(agent: Agent, batch: Batch, case: GenCase, differences: Mapping[str, str],
            monkeypatch: pytest.MonkeyPatch, tool_name: str) -> None:  # fmt: skip
    """``case``'s outcome in the real run and in hermes-hooks; record the verdict and assert."""
    assert batch.run.returncode == 0, (
        f"{agent.name} exited {batch.run.returncode}: {batch.run.stderr[-1500:]}"
    )
    leaked = [r for r in batch.run.refused() if not r.startswith("CONNECT")]
    assert not leaked, f"requests that were not meant for the fake model: {leaked}"
    theirs = real_outcome(agent, batch, case)
    ours = hermes_side(agent, batch, case, monkeypatch, tool_name)
    detail = (f"\n{agent.name}: {json.dumps(theirs.describe(), sort_keys=True)}"
              f"\nhermes-hooks: {json.dumps(ours.describe(), sort_keys=True)}")  # fmt: skip
    with (batch.dir / "outcomes.jsonl").open("a") as fh:
        fh.write(json.dumps({"case": case.id, "key": case.key, agent.name: theirs.describe(),
                             "hermes-hooks": ours.describe()}) + "\n")  # fmt: skip
    if case.xfail:
        record(agent.name, case.id, "xfail")
    if case.differs:
        record(agent.name, case.id, f"differs: {case.differs}")
        assert case.differs in differences, f"no row for {case.differs!r} in DIFFERENCES"
        assert theirs != ours, f"named difference {case.differs!r} no longer differs:{detail}"
        return
    if not case.xfail:
        record(agent.name, case.id, "agree" if theirs == ours else "disagree")
    if theirs.ran is False and ours.ran is True:
        pytest.fail(f"{agent.name} blocks and hermes-hooks runs the call (a bug):{detail}")
    assert theirs == ours, f"hermes-hooks decides otherwise than {agent.name}:{detail}"
