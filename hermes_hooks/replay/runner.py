"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Driving a recorded session through the hooks, the way an agent's loop fires them.

Per session: ``on_session_start`` and, at the end, ``on_session_end``. Per turn:
``user_prompt_submit`` (a block ends the turn), ``pre_llm_call``, ``transform_messages``; per tool
call: ``pre_tool_call``, then ``permission_request`` when a hook asks for approval, then (unless
blocked) ``transform_tool_result`` and ``post_tool_call``; then ``post_llm_call`` and
``pre_verify``. Tools are not run again: each call's recorded result stands in for it. Every
firing is kept with the hooks that ran (from in-memory trace receipts) for the timeline and the
summary.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_args

from ..answers.results import ToolAction
from ..trace import Collector, summarise
from .formats import Session, ToolCall

if TYPE_CHECKING:
    from ..hooks import Hooks


@dataclass
class Firing:
    """One event fired during the replay."""

    event: str
    turn: int
    call: int | None
    ms: float
    result: Any
    hooks: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""
    hooked: bool = False  # the event had hooks (from any source) when it fired
    source: str | None = None  # who decided, for a decision


@dataclass
class CallOutcome:
    """What the hooks decided for one recorded tool call."""

    index: int
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    action: str | None
    message: str | None
    source: str | None
    rewritten: dict[str, Any] | None
    asked: bool
    permission: str | None


@dataclass
class Replay:
    """Everything a replay produced."""

    session: Session
    firings: list[Firing] = field(default_factory=list)
    calls: list[CallOutcome] = field(default_factory=list)
    context_bytes: int = 0
    prompts_blocked: int = 0
    prompts_rewritten: int = 0
    results_rewritten: int = 0

    def receipts(self) -> list[dict[str, Any]]:
        return [r for f in self.firings for r in f.hooks]

    def summary(self) -> dict[str, Any]:
        """Blocked calls, approvals asked, rewrites, context added, slowest hooks, dropped
        answers."""
        receipts = self.receipts()
        slowest = sorted(receipts, key=lambda r: -r["ms"])[:5]
        return {
            "format": self.session.format,
            "turns": len(self.session.turns),
            "tool_calls": len(self.calls),
            "blocked": [_call_view(c) for c in self.calls if c.action == "block"],
            "approvals_asked": [_call_view(c) for c in self.calls if c.asked],
            "args_rewritten": sum(1 for c in self.calls if c.rewritten is not None),
            "prompts_blocked": self.prompts_blocked,
            "prompts_rewritten": self.prompts_rewritten,
            "results_rewritten": self.results_rewritten,
            "context_bytes": self.context_bytes,
            "slowest_hooks": [
                {"event": r["event"], "hook": r["hook"], "source": r["source"], "ms": r["ms"]}
                for r in slowest
            ],
            "dropped_answers": [
                {"event": r["event"], "hook": r["hook"], "why": r["dropped"]}
                for r in receipts
                if r["outcome"] == "dropped"
            ],
            "failed_hooks": [
                {"event": r["event"], "hook": r["hook"], "error": r["error"]}
                for r in receipts
                if r["outcome"] == "failed"
            ],
        }


def _call_view(call: CallOutcome) -> dict[str, Any]:
    return {
        "call": call.index,
        "id": call.tool_call_id,
        "tool": call.tool_name,
        "args": call.args,
        "action": call.action,
        "message": call.message,
        "source": call.source,
    }


class Runner:
    """Fires one recorded session through ``hooks``."""

    def __init__(self, hooks: Hooks, session: Session) -> None:
        self.hooks = hooks
        self.session = session
        self.collector = Collector()
        self.memory = self.collector.receipts
        self.out = Replay(session)
        current = hooks.tracer
        hooks.set_tracer(self.collector)  # a replay's receipts stay out of the real audit trail
        self._previous = current

    def fire(self, event: str, turn: int, call: int | None = None, /, **kwargs: Any) -> Any:
        start = len(self.memory)
        began = time.perf_counter()
        result = self.hooks.call(event, **kwargs)
        ms = (time.perf_counter() - began) * 1000
        firing = Firing(event, turn, call, ms, summarise(result), self.memory[start:])
        firing.hooked = self.hooks.has_hook(event)
        firing.source = getattr(result, "source", None)
        self.out.firings.append(firing)
        return result

    def _context(self, text: Any) -> None:
        if isinstance(text, str):
            self.out.context_bytes += len(text.encode())

    def run(self) -> Replay:
        s = self.session
        base = {"session_id": s.session_id, "model": s.model, "platform": s.platform}
        try:
            self._context(self.fire("on_session_start", 0, **base, source="startup"))
            history: list[dict[str, Any]] = []
            index = 0
            for number, turn in enumerate(s.turns, start=1):
                index = self._turn(number, turn, base, history, index)
            self.fire("on_session_end", len(s.turns), **base, completed=True, interrupted=False)
        finally:
            self.hooks.set_tracer(self._previous)
        return self.out

    def _turn(
        self,
        number: int,
        turn: Any,
        base: dict[str, Any],
        history: list[dict[str, Any]],
        index: int,
    ) -> int:
        turn_id = f"turn-{number}"
        prompt = self.fire("user_prompt_submit", number, user_message=turn.user_message, **base)
        if prompt.blocked:
            self.out.prompts_blocked += 1
            self.out.firings[-1].note = f"prompt blocked by {prompt.source}: {prompt.message}"
            return index + len(turn.tool_calls)
        message = prompt.text if prompt.text is not None else turn.user_message
        if prompt.text is not None:
            self.out.prompts_rewritten += 1
        self._context(prompt.context)
        history.append({"role": "user", "content": message})
        self._context(
            self.fire(
                "pre_llm_call",
                number,
                turn_id=turn_id,
                user_message=message,
                conversation_history=list(history),
                is_first_turn=number == 1,
                **base,
            )
        )
        self.fire("transform_messages", number, messages=list(history), **base)
        for call in turn.tool_calls:
            index += 1
            self._call(number, index, turn_id, call, base)
        history.append({"role": "assistant", "content": turn.assistant_response})
        self.fire(
            "post_llm_call",
            number,
            turn_id=turn_id,
            user_message=message,
            assistant_response=turn.assistant_response,
            conversation_history=list(history),
            **base,
        )
        self.fire("pre_verify", number, final_response=turn.assistant_response, attempt=0, **base)
        return index

    def _call(
        self, number: int, index: int, turn_id: str, call: ToolCall, base: dict[str, Any]
    ) -> None:
        common = {
            "tool_name": call.tool_name,
            "tool_call_id": call.tool_call_id,
            "turn_id": turn_id,
        }
        decision = self.fire("pre_tool_call", number, index, args=call.args, **common, **base)
        self._context(decision.context)
        action, asked, permission = decision.action, False, None
        if action == "approve":
            asked = True
            answer = self.fire(
                "permission_request",
                number,
                index,
                args=call.args,
                description=decision.message,
                pattern_key=decision.rule_key,
                session_key=base["session_id"],
                surface="replay",
                **common,
            )
            permission = answer.action if answer is not None else None
            if permission == "deny":
                action = "block"
        outcome = CallOutcome(
            index=index,
            tool_call_id=call.tool_call_id,
            tool_name=call.tool_name,
            args=call.args,
            action=action,
            message=decision.message,
            source=decision.source,
            rewritten=decision.args,
            asked=asked,
            permission=permission,
        )
        self.out.calls.append(outcome)
        if action == "block":
            return
        args = {**call.args, **(decision.args or {})}
        result = self.fire(
            "transform_tool_result", number, index, args=args, result=call.result, **common, **base
        )
        if result != call.result:
            self.out.results_rewritten += 1
        self._context(
            self.fire(
                "post_tool_call",
                number,
                index,
                args=args,
                result=result,
                status=call.status,
                **common,
                **base,
            )
        )


def replay(hooks: Hooks, session: Session) -> Replay:
    """Fire ``session`` through ``hooks``; see the module's docs."""
    return Runner(hooks, session).run()


#: The keys of one expectation, and the decisions it may name (``None``: no decision).
EXPECTATION_KEYS = ("call", "id", "action")
ACTIONS = (*get_args(ToolAction), None)


def expectation_problem(item: Any) -> str | None:
    """What is wrong with one expectation (``{call: N | id: ID, action: ...}``), or ``None``."""
    if not isinstance(item, dict):
        return "expected a mapping {call: N | id: ID, action: ...}"
    unknown = sorted(str(k) for k in item if k not in EXPECTATION_KEYS)
    if unknown:
        return f"unknown key {', '.join(map(repr, unknown))}; expected call or id, and action"
    if ("call" in item) == ("id" in item):
        return "expected exactly one of call (the call's number) and id (its tool call id)"
    call = item.get("call", 1)
    if isinstance(call, bool) or not isinstance(call, int) or call < 1:
        return f"call is {call!r}; expected a call number (1, 2, ...)"
    if "id" in item and (isinstance(item["id"], bool) or not isinstance(item["id"], (str, int))):
        return f"id is {item['id']!r}; expected a tool call id"
    if "action" not in item:
        return "no action; expected action: " + ", ".join(str(a) for a in ACTIONS if a) + " or null"
    if item["action"] not in ACTIONS:
        names = ", ".join(str(a) for a in ACTIONS if a)
        return f"action is {item['action']!r}; expected {names} or null"
    return None


def compare(result: Replay, expected: list[dict[str, Any]]) -> list[str]:
    """Differences between the decisions the replay made and ``expected`` (a list of
    ``{"call": N or "id": tool_call_id, "action": ...}``); empty when they agree."""
    by_index = {c.index: c for c in result.calls}
    by_id = {c.tool_call_id: c for c in result.calls}
    problems = []
    for number, item in enumerate(expected, start=1):
        call = by_id.get(str(item["id"])) if "id" in item else by_index.get(item.get("call", -1))
        where = f"expectation {number} ({item.get('id') or 'call ' + str(item.get('call'))})"
        if call is None:
            problems.append(f"{where}: no such tool call in the recording")
            continue
        want = item.get("action")
        if call.action != want:
            got = f"{call.action} by {call.source}" if call.action else "no decision"
            problems.append(f"{where}: expected {want}, got {got} ({call.tool_name} {call.args})")
    return problems
