"""Turn one real Claude Code run and one hermes-hooks run of the same case into comparable outcomes.

An :class:`Outcome` is what a hook decision means for the model and the run, with the agent's own
wording taken away: did the tool run, with which (rewritten) input, was the prompt refused, did the
agent go on after it wanted to stop (a Stop hook) or stop early, and which hook texts (markers) the
model saw, and where: ``tool_result`` (what the model reads as the tool's result),
``context`` (added beside the conversation: system reminders, hook feedback) or
``prompt_result`` (what the user gets back when the prompt is refused).

hermes-hooks plays the host: it is loaded with the same settings.json and fed, event by event, the
payload the real agent sent (captured by a recording hook in the real run), translated to our event
keyword arguments through the event's own contract (hermes_hooks.cli.payloads); the host then acts on
the typed answers the way the headless agent does (no human to ask: an approval is a refusal; a
tool the host does not already allow needs a PermissionRequest answer).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_hooks.builtin_plugins.shell_hooks import protocol

from hermes_hooks import catalogue
from hermes_hooks.cli import payloads

#: agent -> case id -> "agree" | "differs: <name>" | "xfail" | "disagree"; the summary line per
#: agent (tests/oracle_summary.py) is printed from it.
RESULTS: dict[str, dict[str, str]] = {}


def record(agent: str, case: str, status: str) -> None:
    RESULTS.setdefault(agent, {})[case] = status


MARKER = re.compile(r"ORC-[A-Z]-[A-Za-z0-9_]+")


@dataclass(frozen=True)
class Names:
    """The agent's names for the events a headless one-call run fires, by the host's role
    (``None``: the agent has no such event)."""

    start: str = "SessionStart"
    prompt: str = "UserPromptSubmit"
    pre: str = "PreToolUse"
    permission: str | None = "PermissionRequest"
    post: str = "PostToolUse"
    failure: str | None = "PostToolUseFailure"
    stop: str = "Stop"
    #: where the model reads a post-tool answer: beside the result (Claude Code's system
    #: reminder) or in it (Gemini CLI's function response; the Hermes host appends it, DESIGN)
    post_where: str = "context"
    #: the agent's event after all the tool calls of one model answer (Claude Code's
    #: PostToolBatch, our post_tool_batch)
    batch: str | None = "PostToolBatch"


CLAUDE_NAMES = Names()


@dataclass(frozen=True)
class Outcome:
    ran: bool
    args: dict[str, Any] | None = None
    prompt_blocked: bool = False
    continued: bool = False
    stopped: bool = False
    seen: frozenset[tuple[str, str]] = field(default_factory=frozenset)

    @classmethod
    def after(cls, bodies: list[Any], **known: Any) -> Outcome:
        """The outcome of a run whose model got ``bodies``: one request that asks for the tool
        and one after its result; more continued the turn, fewer stopped it."""
        expected = 2
        return cls(continued=len(bodies) > expected, stopped=0 < len(bodies) < expected, **known)

    def describe(self) -> dict[str, Any]:
        return {
            "ran": self.ran,
            "args": self.args,
            "prompt_blocked": self.prompt_blocked,
            "continued": self.continued,
            "stopped": self.stopped,
            "seen": sorted(self.seen),
        }


def tokens(text: Any, literals: Iterable[str] = ()) -> set[str]:
    if not isinstance(text, str):
        return set()
    found = set(MARKER.findall(text))
    found.update(lit for lit in literals if lit in text)
    return found


def claude_part(obj: Mapping[str, Any]) -> str | None:
    """Which part of an Anthropic request ``obj`` is: a tool's ``result``, the model's own
    tool ``call``, or ``None`` (anything else)."""
    return {"tool_result": "result", "tool_use": "call"}.get(str(obj.get("type")))


Part = Callable[[Mapping[str, Any]], "str | None"]


def scan(obj: Any, where: str, literals: tuple[str, ...], out: set[tuple[str, str]],
         part: Part = claude_part) -> None:  # fmt: skip
    """Every marker in ``obj`` with where the model read it (a tool's result, else context);
    the model's own calls are skipped (nothing a hook said). ``part`` reads the wire format."""
    if isinstance(obj, Mapping):
        kind = part(obj)
        if kind == "call":
            return
        if kind == "result":
            where = "tool_result"
        for value in obj.values():
            scan(value, where, literals, out, part)
    elif isinstance(obj, list):
        for value in obj:
            scan(value, where, literals, out, part)
    else:
        out.update((where, t) for t in tokens(obj, literals))


# ---------------------------------------------------------------------- the real agent


def claude_outcome(
    bodies: list[dict[str, Any]],
    stream: str,
    payloads_seen: list[dict[str, Any]],
    case_dir: Path,
    scripted_input: dict[str, Any],
    literals: tuple[str, ...],
) -> Outcome:
    """What the real ``claude -p`` did: ``bodies`` are its main-loop requests to the model."""
    seen: set[tuple[str, str]] = set()
    for body in bodies:
        scan(body.get("messages"), "context", literals, seen)
        scan(body.get("system"), "context", literals, seen)
    prompt_blocked = not bodies
    if prompt_blocked:
        for line in stream.splitlines():
            event = json.loads(line) if line.startswith("{") else {}
            if event.get("type") == "result":
                seen.update(("prompt_result", t) for t in tokens(event.get("result"), literals))
    ran = (case_dir / "ran").exists() or (case_dir / "ran2").exists()
    args = None
    for p in payloads_seen:
        if p.get("hook_event_name") in ("PostToolUse", "PostToolUseFailure"):
            if p.get("tool_input") != scripted_input:
                args = p.get("tool_input")
            break
    return Outcome.after(
        bodies, ran=ran, args=args, prompt_blocked=prompt_blocked, seen=frozenset(seen)
    )


# ---------------------------------------------------------------------- hermes-hooks as the host


def to_kwargs(event: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Our keyword arguments for ``event`` from the payload Claude Code sent for it."""
    info = catalogue.get(event)
    assert info is not None, event
    chosen = info.claude_named(str(payload.get("hook_event_name")))
    known = {*protocol.CLAUDE_COMMON_KEYS, "tool_name", "tool_input", "tool_use_id"}
    if chosen is not None:
        known.update(chosen.fields)
    # fields no argument of ours reads (prompt_id, effort, ...) are left out: hermes-hooks builds
    # its own payload for its hooks (test_oracle_payloads.py checks it sends them too)
    kwargs, _ = payloads.to_kwargs(info, {k: v for k, v in payload.items() if k in known})
    return kwargs


def _first(payloads_seen: list[dict[str, Any]], name: str | None) -> dict[str, Any] | None:
    return next((p for p in payloads_seen if p.get("hook_event_name") == name), None)


def _claude_kwargs(payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    event = catalogue.resolve(str(payload.get("hook_event_name")))  # Claude Code names: aliases
    return event, to_kwargs(event, payload)


#: A payload the real agent sent -> our event and keyword arguments.
KwargsOf = Callable[[Mapping[str, Any]], tuple[str, dict[str, Any]]]


def hermes_outcome(
    hooks: Any,
    payloads_seen: list[dict[str, Any]],
    scripted: dict[str, Any],
    host_allows: bool,
    literals: tuple[str, ...],
    names: Names = CLAUDE_NAMES,
    kwargs_of: KwargsOf = _claude_kwargs,
    tool_name: str = "Bash",
) -> Outcome:
    """Fire the case's events through ``hooks`` (a loaded hermes-hooks) as a headless host.
    ``names``: the agent's event names; ``kwargs_of`` reads its payloads; ``scripted`` and
    ``tool_name`` stand in for a tool-call payload the run did not record."""
    seen: set[tuple[str, str]] = set()

    def note(where: str, text: Any) -> None:
        seen.update((where, t) for t in tokens(text, literals))

    def fire(payload: Mapping[str, Any], **more: Any) -> Any:
        event, kwargs = kwargs_of(payload)
        kwargs.update(more)
        return hooks.call(event, **kwargs)

    start = _first(payloads_seen, names.start)
    if start is not None:
        note("context", fire(start))
    prompt = _first(payloads_seen, names.prompt) or {
        "hook_event_name": names.prompt, "session_id": "oracle", "prompt": "Run the command, please."
    }  # fmt: skip
    decision = fire(prompt)
    if decision.action == "block":
        note("prompt_result", decision.message)
        return Outcome(ran=False, prompt_blocked=True, seen=frozenset(seen))
    note("context", decision.context)

    pre = _first(payloads_seen, names.pre) or {
        "hook_event_name": names.pre, "session_id": "oracle", "tool_name": tool_name,
        "tool_input": scripted, "tool_use_id": "toolu_oracle_0",
    }  # fmt: skip
    d = fire(pre)
    note("context", d.context)
    if d.action in ("block", "approve"):  # nobody to approve in a headless run
        note("tool_result", d.message)
        ran = False
    elif d.action == "allow" or host_allows:
        ran = True
    else:
        ask = _first(payloads_seen, names.permission) or {
            **pre,
            "hook_event_name": names.permission,
        }
        event, kwargs = kwargs_of(ask)
        kwargs.setdefault("command", (kwargs.get("args") or {}).get("command", ""))
        answer = hooks.call(event, **kwargs)
        ran = answer is not None and answer.action == "allow"
        if ran and answer.args is not None:  # the allow rewrote the call (updatedInput)
            d = dataclasses.replace(d, args=answer.args)
        if answer is not None and answer.action == "deny":
            note("tool_result", answer.message)
    if ran:
        post = _first(payloads_seen, names.failure)
        status = "error" if post is not None else "ok"
        post = post or _first(payloads_seen, names.post)
        if post is not None:
            event, kwargs = kwargs_of(post)
            kwargs.update(status=status)
            kwargs.setdefault("result", kwargs.get("error_message") or "")
            note("tool_result", kwargs["result"])  # the tool's own output (a case may look)
            note(names.post_where, hooks.call(event, **kwargs))
    batch = _first(payloads_seen, names.batch) if names.batch else None
    if batch is not None:  # the calls of one model answer, as the host reports them
        calls = [
            {"tool_name": protocol.host_tool_name(c.get("tool_name")),
             "args": protocol.args_from_claude(protocol.host_tool_name(c.get("tool_name")),
                                           c.get("tool_input") or {}),
             "tool_call_id": c.get("tool_use_id"), "result": str(c.get("tool_response") or ""),
             "status": "ok"}
            for c in batch.get("tool_calls") or [] if isinstance(c, Mapping)
        ]  # fmt: skip
        note("context", hooks.call("post_tool_batch", tool_calls=calls,
                                   session_id=batch.get("session_id") or ""))  # fmt: skip
    continued = False
    stop = _first(payloads_seen, names.stop)
    if stop is not None:
        verdict = fire(stop)
        if verdict is not None and verdict.action == "continue":
            continued = True
            note("context", verdict.message)
    return Outcome(ran=ran, args=d.args if ran else None, continued=continued, seen=frozenset(seen))


def fixture_payload(payload: Mapping[str, Any], case_dir: Path) -> dict[str, Any]:
    """A captured payload with the run's own paths and ids replaced by placeholders."""
    text = json.dumps(payload)
    text = text.replace(str(case_dir), "<case-dir>")
    out = json.loads(text)
    for key in ("session_id", "prompt_id", "turn_id", "tool_use_id", "timestamp"):
        if key in out:
            out[key] = f"<{key}>"
    if "transcript_path" in out:
        out["transcript_path"] = "<transcript_path>"
    return out


def check_fixtures(
    folder: Path, agent: str, runs: Iterable[tuple[list[dict[str, Any]], Path]],
    required: Iterable[str] = (),
) -> dict[str, dict[str, Any]]:  # fmt: skip
    """The first payload of each event the runs recorded (``runs``: each run's payloads and its
    case directory), with the same fields as its fixture in ``folder``; ``required``: events
    that must be among them. With ``ORACLE_WRITE_FIXTURES=1`` the fixtures are rewritten."""
    first: dict[str, dict[str, Any]] = {}
    for payloads_seen, case_dir in runs:
        for payload in payloads_seen:
            name = str(payload.get("hook_event_name"))
            first.setdefault(name, fixture_payload(payload, case_dir))
    missing = sorted(set(required) - set(first))
    assert not missing, f"{agent}: no payload recorded for {', '.join(missing)}"
    if os.environ.get("ORACLE_WRITE_FIXTURES") == "1":
        folder.mkdir(parents=True, exist_ok=True)
        for name, payload in first.items():
            (folder / f"{name}.json").write_text(json.dumps(payload, indent=2) + "\n")
    for name, payload in first.items():
        path = folder / f"{name}.json"
        assert path.exists(), f"no fixture for {agent} {name}: run with ORACLE_WRITE_FIXTURES=1"
        recorded = json.loads(path.read_text())
        assert sorted(payload) == sorted(recorded), f"{agent} {name}: its fields changed"
    return first
