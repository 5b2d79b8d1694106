"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

hermes-hooks as a Hermes Agent plugin: ``register(ctx)`` routes every hook site of Hermes Agent
0.19 through the hermes-hooks manager.

Turned on the Hermes way: ``plugins: {enabled: [hermes-hooks]}`` in ``~/.hermes/config.yaml``
(the entry point ``hermes-hooks`` in group ``hermes_agent.plugins``). What it does, and why each
hook runs exactly once per firing (``docs/hermes-agent.md``):

- Hermes keeps loading Hermes-style plugins (directories and ``hermes_agent.plugins`` entry
  points, by its own ``plugins.enabled``) with its own ``ctx``, so their tools, commands and
  providers stay Hermes'. The bridge *adopts* their hook callbacks: it moves them from Hermes' hook
  table into our manager, leaving one bridge callback per event there, so our combiner decides
  (a block beats an approval whoever registered first).
- The ``hooks:`` block and Claude Code ``settings.json`` hooks are run by our shell adapter;
  Hermes' own registration of the ``hooks:`` block is skipped.
- Native ``hermes_hooks`` entry-point plugins and every built-in (the shell adapter,
  ``dangerous_patterns``, ``redact_secrets``, required guards, ...) are loaded by us, through the
  one runtime builder (:func:`hermes_hooks.runtime.build_runtime`) ``load()`` and the CLI use.
- Gateway ``HOOK.yaml`` hooks stay with Hermes' gateway, which reads the same ``<home>/hooks/``:
  the builder's ``gateway_hooks=False``, the one difference from ``load()`` besides the plugins
  Hermes loads itself.

Adopting callbacks and skipping Hermes' ``hooks:`` registration touch Hermes internals that have
no switch; :mod:`hermes_hooks.hermes.patch` does both, only on the Hermes version it was written
against. On another version the bridge warns and runs unpatched (see that module).
"""

from __future__ import annotations

import importlib
import logging
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hermes_hooks.answers.results import DispatchAnswer, VerifyAnswer
from hermes_hooks.terminal import echo_on_terminal

from . import patch as hermes_patch

if TYPE_CHECKING:
    from hermes_hooks.catalogue import EventInfo
    from hermes_hooks.hooks import Hooks

log = logging.getLogger("hermes_hooks")

#: The hook names Hermes Agent 0.19 fires (its ``hermes_cli.plugins.VALID_HOOKS``).
HERMES_0_19_HOOKS: tuple[str, ...] = (
    "pre_tool_call",
    "post_tool_call",
    "transform_terminal_output",
    "transform_tool_result",
    "transform_llm_output",
    "pre_llm_call",
    "post_llm_call",
    "pre_verify",
    "pre_api_request",
    "post_api_request",
    "api_request_error",
    "on_session_start",
    "on_session_end",
    "on_session_finalize",
    "on_session_reset",
    "subagent_start",
    "subagent_stop",
    "pre_gateway_dispatch",
    "pre_approval_request",
    "post_approval_response",
    "kanban_task_claimed",
    "kanban_task_completed",
    "kanban_task_blocked",
)

#: Feedback for the model waiting for its tool call's result (kept for this many calls at most).
_FEEDBACK_LIMIT = 256


def unfired_events() -> dict[str, tuple[str, ...]]:
    """The events of our catalogue that Hermes Agent 0.19 never fires, each with its Claude Code
    names: hooks configured on them never run while hermes-hooks is bridged into Hermes 0.19
    (``hermes hooks doctor`` reports them). Needs no Hermes installed."""
    from hermes_hooks.catalogue import events

    fired = set(HERMES_0_19_HOOKS)
    return {
        name: tuple(c.name for c in info.claude)
        for name, info in events().items()
        if name not in fired
    }


def register(ctx: Any) -> None:
    """Hermes Agent's entry: load hermes-hooks and bridge Hermes' hook sites to it.

    Hermes calls this during plugin discovery (again after a forced rediscovery); one bridge
    serves the process."""
    global _BRIDGE
    with _LOCK:
        if _BRIDGE is None:
            # Hermes sends the log to agent.log: a guard that failed or was not understood
            # (it did not guard) is also said on the terminal, once per message.
            echo_on_terminal()
            _BRIDGE = Bridge()
        _BRIDGE.attach(ctx)


_BRIDGE: Bridge | None = None
_LOCK = threading.Lock()


class Bridge:
    """The hermes-hooks manager behind Hermes' hook table: one callback per Hermes hook name, and
    a ``tool_request`` middleware that carries argument rewrites into Hermes."""

    def __init__(self) -> None:
        self.hooks: Hooks | None = None
        self.patch: hermes_patch.Patch | None = None
        self.callbacks: dict[str, Callable[..., Any]] = {}
        self._middleware = self._tool_request  # one bound method: Hermes compares what it holds
        self._decided = threading.local()
        self._feedback: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self._warned: set[str] = set()

    # ------------------------------------------------------------------ setting up

    def attach(self, ctx: Any) -> None:
        """Register the bridge's callbacks with Hermes (through ``ctx``)."""
        patch = hermes_patch.Patch.for_running_hermes()
        if self.hooks is None:
            self.hooks = _load(patched=patch is not None)
            _say_if_script_taken_over()
        elif self.patch is not None:
            self.patch.release(self.hooks)  # a rediscovery: Hermes loaded its plugins anew
        self.patch = patch
        hooks = self.hooks
        if hooks.host is None and callable(getattr(ctx, "inject_message", None)):
            # What background shell hooks have for the model (asyncRewake) reaches Hermes' session.
            hooks.set_host(_HermesHost(ctx.inject_message))
        special: dict[str, Callable[..., Any]] = {
            "pre_tool_call": self._pre_tool_call,
            "post_tool_call": self._post_tool_call,
            "transform_tool_result": self._transform_tool_result,
        }
        self.callbacks = {}
        for name in _hermes_hook_names():
            info = hooks.manager.find_event(name)
            if info is None or info.name != name:
                continue  # a Hermes hook our catalogue lacks: its callbacks stay with Hermes
            callback = special.get(name) or self._relay(info)
            self.callbacks[name] = callback
            ctx.register_hook(name, callback)
        ctx.register_middleware("tool_request", self._middleware)
        if patch is not None:
            patch.lead(self.callbacks)
            patch.adopt(hooks, self.callbacks, self._middleware)  # the plugins loaded before us
            patch.claim_hooks_block()
        else:
            log.warning(
                "hermes-hooks: Hermes Agent %s is not the version the bridge was built for (%s): "
                "running unpatched. Hermes runs the `hooks:` block itself, and Hermes-style "
                "plugins' pre_tool_call answers are combined by Hermes (first answer wins), "
                "not by hermes-hooks (see docs/hermes-agent.md)",
                hermes_patch.running_version() or "(unknown)",
                hermes_patch.SUPPORTED,
            )

    def _adopt(self, event: str, *, in_middleware: bool = False) -> None:
        """Move callbacks other plugins put in Hermes' table for ``event`` (and every other
        event) into our manager; cheap when there is nothing to move."""
        patch = self.patch
        middleware = None if in_middleware else self._middleware
        if patch is not None and patch.foreign(event, self.callbacks, middleware):
            assert self.hooks is not None
            with self._lock:
                patch.adopt(self.hooks, self.callbacks, middleware)

    # ------------------------------------------------------------------ tool calls

    def _tool_request(self, tool_name: str = "", args: Any = None, **kw: Any) -> Any:
        """Hermes' ``tool_request`` middleware, run just before its ``pre_tool_call`` site: our
        ``pre_tool_call`` decides here, so rewritten arguments reach Hermes the supported way."""
        self._decided.slot = None
        self._adopt("pre_tool_call", in_middleware=True)
        hooks = self.hooks
        if hooks is None or not hooks.has_hook("pre_tool_call"):
            return None
        current = dict(args) if isinstance(args, Mapping) else {}
        site = {k: kw.get(k, "") for k in _TOOL_IDS}
        site["telemetry_schema_version"] = kw.get("telemetry_schema_version", "")
        decision = hooks.pre_tool_call(
            tool_name=tool_name, args=current, middleware_trace=[], **site
        )
        final = current if decision.args is None else {**current, **decision.args}
        self._decided.slot = (site["tool_call_id"], tool_name, decision, final)
        if decision.args is None or decision.blocked:
            return None
        return {
            "args": final,
            "source": "hermes-hooks",
            "reason": f"arguments rewritten by {decision.source or 'a hook'}",
        }

    def _pre_tool_call(self, **kw: Any) -> Any:
        slot = getattr(self._decided, "slot", None)
        self._decided.slot = None
        tool_call_id, tool_name = kw.get("tool_call_id", ""), kw.get("tool_name")
        if slot is not None and slot[0] == tool_call_id and slot[1] == tool_name:
            decision = slot[2]
            if kw.get("args") != slot[3] and not decision.blocked:
                self._warn_once(
                    "stale",
                    "hermes-hooks: another tool_request middleware changed the arguments of %s "
                    "after hermes-hooks decided on them; the decision stands (Hermes 0.19 hands "
                    "every middleware the same arguments)",
                    tool_name,
                )
        else:
            self._adopt("pre_tool_call")
            hooks = self.hooks
            if hooks is None or not hooks.has_hook("pre_tool_call"):
                return None
            decision = hooks.pre_tool_call(**kw)
            if decision.args is not None and not decision.blocked:
                self._warn_once(
                    "rewrite",
                    "hermes-hooks: %s rewrote the arguments of %s at a Hermes call site that ran "
                    "no tool_request middleware; Hermes 0.19 has no other channel, so the rewrite "
                    "is dropped",
                    decision.source,
                    tool_name,
                )
        if decision.context:
            self._add_feedback(tool_call_id, decision.context)
        if decision.blocked:
            return {"action": "block", "message": decision.message or "Blocked by hermes-hooks."}
        if decision.action == "approve":
            return {
                "action": "approve",
                "message": decision.message or "",
                "rule_key": decision.rule_key,
            }
        return None  # "allow" and no opinion: Hermes' own approval rules still apply

    def _post_tool_call(self, **kw: Any) -> None:
        self._adopt("post_tool_call")
        hooks = self.hooks
        if hooks is not None and hooks.has_hook("post_tool_call"):
            feedback = hooks.post_tool_call(**kw)
            if feedback:
                self._add_feedback(kw.get("tool_call_id", ""), feedback)

    def _transform_tool_result(self, **kw: Any) -> Any:
        self._adopt("transform_tool_result")
        hooks = self.hooks
        original = kw.get("result")
        result = original
        if hooks is not None and hooks.has_hook("transform_tool_result"):
            result = hooks.transform_tool_result(**kw)
        feedback = self._take_feedback(kw.get("tool_call_id", ""))
        if feedback:
            result = f"{result}\n\n{feedback}" if result else feedback
        return result if result != original else None

    def _add_feedback(self, tool_call_id: str, text: str) -> None:
        if not tool_call_id:
            return
        with self._lock:
            earlier = self._feedback.pop(tool_call_id, None)
            self._feedback[tool_call_id] = f"{earlier}\n\n{text}" if earlier else text
            while len(self._feedback) > _FEEDBACK_LIMIT:
                self._feedback.popitem(last=False)

    def _take_feedback(self, tool_call_id: str) -> str | None:
        with self._lock:
            return self._feedback.pop(tool_call_id, None) if tool_call_id else None

    # ------------------------------------------------------------------ every other site

    def _relay(self, info: EventInfo) -> Callable[..., Any]:
        name = info.name

        def relay(**kw: Any) -> Any:
            self._adopt(name)
            hooks = self.hooks
            if hooks is None:
                return None
            # Into the runtime when a hook listens, or when tracing (the tracer learns from
            # subagent_start which session started which sub-agent); else nothing to do.
            if not hooks.has_hook(name) and hooks.tracer is None:
                return None
            try:
                result = hooks.call(name, **kw)
            except Exception as exc:  # a bad argument set from a newer Hermes: fail open, loudly
                log.warning("hermes-hooks: %s could not be dispatched: %s", name, exc)
                return None
            return _as_hermes_answer(info, kw, result)

        relay.__name__ = relay.__qualname__ = f"hermes_hooks_{name}"
        return relay

    def _warn_once(self, key: str, message: str, *args: Any) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message, *args)


_TOOL_IDS = ("task_id", "session_id", "tool_call_id", "turn_id", "api_request_id")


def _as_hermes_answer(info: EventInfo, kwargs: Mapping[str, Any], result: Any) -> Any:
    """Our combined result, in the shape Hermes' call site reads (``None``: no answer)."""
    if isinstance(result, VerifyAnswer):
        return {"action": result.action, "message": result.message} if result.action else None
    if isinstance(result, DispatchAnswer):
        if not result.action:
            return None
        answer = {"action": result.action, "text": result.text, "reason": result.reason}
        return {k: v for k, v in answer.items() if v is not None}
    if info.kind == "transform":
        return (
            result if isinstance(result, str) and result != kwargs.get(info.value or "") else None
        )
    if info.kind == "context":
        return result or None  # Hermes reads a plain string as context where it injects any
    return None


def _say_if_script_taken_over() -> None:
    """Once per process, on stderr (the terminal, not only agent.log): Hermes' own ``hermes``
    script replaced ours, so ``hermes hooks ...`` no longer reaches hermes-hooks."""
    from .handover import taken_over

    try:
        problem = taken_over()
    except Exception as exc:  # a check that cannot run must not stop Hermes
        log.debug("hermes-hooks: could not check the hermes script: %s", exc)
        return
    if problem:
        sys.stderr.write(f"hermes-hooks: {problem}\n")


def _hermes_hook_names() -> tuple[str, ...]:
    try:
        valid = importlib.import_module("hermes_cli.plugins").VALID_HOOKS
        return tuple(sorted(valid))
    except Exception:
        return HERMES_0_19_HOOKS


class _HermesHost:
    """The host capabilities Hermes' plugin context offers hermes-hooks' own sources."""

    def __init__(self, inject: Callable[..., Any]) -> None:
        self.inject_message = inject


def _load(*, patched: bool) -> Hooks:
    """Our runtime for Hermes' home, built as :func:`hermes_hooks.load` builds it (every
    built-in included), except for what Hermes runs itself: Hermes-style plugins (Hermes loads
    them; the bridge adopts their callbacks) and HOOK.yaml gateway hooks (Hermes' gateway runs
    them). Unpatched, Hermes also runs the `hooks:` entries it can parse (those with a
    ``command``): they are left out of ours, so each runs once."""
    from hermes_hooks.config import find_home, load_config
    from hermes_hooks.runtime import build_runtime

    home = find_home(hermes_patch.hermes_home())
    config: Any = None
    if not patched:
        loaded = load_config(home, None)
        if not loaded.errors:  # an unreadable config is read (and locked down) by the builder
            config = _without_hermes_entries(loaded.data)
    return build_runtime(
        home,
        config,
        accept_hooks="--accept-hooks" in sys.argv[1:],
        hermes_plugins=False,
        gateway_hooks=False,
    )


def _without_hermes_entries(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` without the `hooks:` entries Hermes registers itself when unpatched: a mapping
    with a non-empty ``command`` under one of Hermes' hook names (Hermes' own parser skips every
    other entry, so built-in, http and prompt entries stay ours)."""
    block = config.get("hooks")
    if not isinstance(block, Mapping):
        return dict(config)
    hermes = set(_hermes_hook_names())
    kept: dict[str, Any] = {}
    for event, entries in block.items():
        if event in hermes and isinstance(entries, list):
            entries = [e for e in entries if not _hermes_runs(e)]
            if not entries:
                continue
        kept[event] = entries
    return {**config, "hooks": kept}


def _hermes_runs(entry: Any) -> bool:
    command = entry.get("command") if isinstance(entry, Mapping) else None
    return isinstance(command, str) and bool(command.strip())


__all__ = ["register", "unfired_events", "HERMES_0_19_HOOKS", "Bridge"]
