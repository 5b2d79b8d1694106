"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Traces and receipts: what each hook did at each firing.

Three sinks, any of them on: ``HERMES_HOOKS_TRACE=1`` prints one line per hook run on stderr;
``trace_file:`` in config.yaml appends one JSON receipt per hook run (``hermes hooks stats FILE``
summarises them; payloads only with ``trace_payloads: true``); ``otel: true`` (or
``HERMES_HOOKS_OTEL=1``, with ``pip install 'hermes-hooks[otel]'``) makes one OpenTelemetry span per
event with a child span per hook. When none is on, dispatch pays one attribute check.

The dispatcher writes every hook's receipt, a hook source's hooks (shell, http, prompt, mcp,
worker hooks) included: their source settles what only it knows (the sha256 of the script that
ran, a hook not run and why: :class:`~hermes_hooks.manager.Settled`) and the dispatcher records
it (:meth:`Tracer.settled`), timed from the hook's start to its settling. Two runs no dispatcher
waits for are recorded where they end, through the same methods: a background (``async``) shell
hook, and a gateway hook's handler (it runs after its call returned, and what the source reads
of its answer never reaches the dispatcher).

A receipt names the session of its firing (``session_id``; a sub-agent event's is its parent's)
and, for a sub-agent, the session that started it (``parent_session_id``) and the sub-agent
(``agent_id``, its session: the id Claude Code's ``SubagentStart``/``SubagentStop`` carry). The
tracer learns who started whom from every firing that announces a sub-agent
(:meth:`Tracer.note`, which the runtime calls whether or not a hook listens).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
import logging
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .contract import lineage_of, session_of, subagent_of

log = logging.getLogger("hermes_hooks")

#: The agent and its event name a firing answers (``hermes hooks serve``: Claude Code's
#: ``PreToolUse``, Gemini CLI's ``BeforeTool``, ...), named on every receipt of the firing.
_ORIGIN: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "hermes_hooks_origin", default=None
)


@contextlib.contextmanager
def origin(agent: str, event: str) -> Iterator[None]:
    """Receipts written inside name ``agent`` and its ``event`` (``agent``, ``agent_event``)."""
    token = _ORIGIN.set((agent, event))
    try:
        yield
    finally:
        _ORIGIN.reset(token)


#: How many sub-agent sessions a tracer remembers the parent of (the oldest are forgotten).
LINEAGE_LIMIT = 4096


@dataclasses.dataclass
class Probe:
    """What dispatch learned about one hook run (filled in by the dispatcher)."""

    raw: Any = None
    error: str | None = None
    dropped: str | None = None


def summarise(answer: Any, redact: Callable[[Any], Any] | None = None) -> Any:
    """A short, JSON-able view of a normalised answer (``redact`` applied before shortening, so
    a cut never leaves half a secret the redactor no longer recognises)."""
    clean = redact or _same
    if answer is None:
        return None
    if dataclasses.is_dataclass(answer) and not isinstance(answer, type):
        fields = clean(dataclasses.asdict(answer))
        return {k: _short(v) for k, v in fields.items() if v is not None and k != "source"}
    return _short(clean(answer))


def _same(value: Any) -> Any:
    return value


def _short(value: Any, limit: int = 200) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + f"… ({len(value)} chars)"
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return _short(json.dumps(value, default=str, ensure_ascii=False), limit)


def outcome_of(answer: Any, probe: Probe) -> str:
    """``failed``, ``dropped``, ``answered`` or ``no opinion``."""
    if probe.error is not None:
        return "failed"
    if probe.dropped:
        return "dropped"
    return "answered" if answer is not None else "no opinion"


class Tracer:
    """Writes trace lines, receipts and spans for the hooks of one runtime."""

    def __init__(
        self,
        *,
        stderr: bool = False,
        file: Path | None = None,
        payloads: bool = False,
        otel: bool = False,
    ) -> None:
        self.stderr = stderr
        self.file = file
        self.payloads = payloads
        #: Applied to every payload, decision and error before it is written to a sink (the
        #: runtime's :meth:`~hermes_hooks.Hooks.redact`: ``redact_secrets``).
        self.redact: Callable[[Any], Any] = _same
        self._lock = threading.Lock()
        #: Sub-agent session -> the session that started it, newest last.
        self._parents: OrderedDict[str, str] = OrderedDict()
        self._otel: Any = None
        if otel:
            try:
                from opentelemetry import trace as otel_trace
            except ImportError:
                log.warning(
                    "otel tracing is on but OpenTelemetry is not installed: "
                    "pip install 'hermes-hooks[otel]' (tracing to OpenTelemetry is off)"
                )
            else:
                self._otel = otel_trace.get_tracer("hermes_hooks")

    @classmethod
    def from_config(cls, config: Mapping[str, Any], base: Path) -> Tracer | None:
        """The tracer the config and environment ask for, or ``None`` when tracing is off."""
        stderr = os.environ.get("HERMES_HOOKS_TRACE", "").lower() in ("1", "true", "yes", "on")
        otel = bool(config.get("otel")) or os.environ.get("HERMES_HOOKS_OTEL", "") in ("1", "true")
        raw = config.get("trace_file")
        file = None
        if raw:
            file = Path(os.path.expandvars(os.path.expanduser(str(raw))))
            file = file if file.is_absolute() else base / file
        if not (stderr or otel or file):
            return None
        return cls(stderr=stderr, file=file, payloads=bool(config.get("trace_payloads")), otel=otel)

    # -------------------------------------------------------------- sessions

    def note(self, kwargs: Mapping[str, Any]) -> None:
        """Learn from one firing's arguments which session started which sub-agent (an event
        that announces one: :func:`hermes_hooks.contract.lineage_of`)."""
        pair = lineage_of(kwargs)
        if pair is None:
            return
        child, parent = pair
        with self._lock:
            self._parents.pop(child, None)
            self._parents[child] = parent
            while len(self._parents) > LINEAGE_LIMIT:
                self._parents.popitem(last=False)

    def sessions(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The receipt fields that place a firing: ``session_id``, ``parent_session_id`` (when
        the session is a sub-agent's) and ``agent_id`` (the sub-agent the firing is about or
        runs in), ``None`` where there is none."""
        session = session_of(kwargs) or None
        about = subagent_of(kwargs) or None
        parent = self._parents.get(session) if isinstance(session, str) else None
        agent = about if about is not None else (session if parent is not None else None)
        return {"session_id": session, "parent_session_id": parent, "agent_id": agent}

    # -------------------------------------------------------------- spans

    @contextlib.contextmanager
    def event(self, name: str, kwargs: Mapping[str, Any]) -> Iterator[Callable[[Any], None]]:
        """Around one firing; yields a function that records the combined result."""
        if self._otel is None:
            yield lambda result: None
            return
        attributes = {"hermes.event": name}
        for key, value in self.sessions(kwargs).items():
            if isinstance(value, str):
                attributes[f"hermes.{key}"] = value
        with self._otel.start_as_current_span(
            f"hermes_hooks {name}", attributes=attributes
        ) as span:

            def done(result: Any) -> None:
                shown = summarise(result, self.redact)
                for key, value in _attributes("hermes.result", shown).items():
                    span.set_attribute(key, value)

            yield done

    def around(
        self,
        event: str,
        hook: str,
        source: str,
        kwargs: Mapping[str, Any],
        call: Callable[[Probe], Any],
        *,
        report: bool = True,
    ) -> Any:
        """Run one hook (``call(probe)``) and record it (unless ``report`` is false: a gateway
        hook records its handler's run itself)."""
        probe = Probe()
        span = (
            self._otel.start_as_current_span(f"hermes_hooks hook {hook}")
            if self._otel is not None and report
            else contextlib.nullcontext()
        )
        with span as current:
            started = time.perf_counter()
            answer = call(probe)
            ms = (time.perf_counter() - started) * 1000
            if report:
                fields = self.record(
                    event=event,
                    hook=hook,
                    source=source,
                    ms=ms,
                    outcome=outcome_of(answer, probe),
                    decision=summarise(answer, self.redact),
                    dropped=probe.dropped,
                    error=probe.error,
                    kwargs=kwargs,
                )
                if current is not None:
                    for key, value in _attributes("hermes", fields).items():
                        current.set_attribute(key, value)
        return answer

    # -------------------------------------------------------------- receipts

    def settled(
        self,
        *,
        event: str,
        hook: str,
        source: str,
        ms: float,
        outcome: Any,
        kwargs: Mapping[str, Any],
    ) -> dict[str, Any]:
        """Record one run of a hook source's hook from what its source settled
        (:class:`~hermes_hooks.manager.Settled`): the dispatcher's receipt of an entry, and a
        background shell run's (no dispatcher waits for it). With OpenTelemetry on, the run is
        also a span of ``ms`` ending now, a child of the event's span when there is one (the
        hooks of one batch overlap: none of them is the current span while it runs)."""
        failure, dropped, value = outcome.failure or None, outcome.dropped, outcome.value
        given = getattr(outcome, "kwargs", None)  # the receipt fields a source may leave out
        fields = self.record(
            event=event,
            hook=hook,
            source=source,
            ms=ms,
            outcome=getattr(outcome, "outcome", None)
            or outcome_of(value, Probe(error=failure, dropped=dropped or None)),
            decision=summarise(value, self.redact),
            dropped=dropped,
            error=getattr(outcome, "error", None) or failure,
            sha256=getattr(outcome, "sha256", None),
            kwargs=kwargs if given is None else given,
            raw=getattr(outcome, "raw", None),
        )
        if self._otel is not None:
            end = time.time_ns()
            span = self._otel.start_span(
                f"hermes_hooks hook {hook}", start_time=end - int(ms * 1_000_000)
            )
            for key, item in _attributes("hermes", fields).items():
                span.set_attribute(key, item)
            span.end(end_time=end)
        return fields

    def record(
        self,
        *,
        event: str,
        hook: str,
        source: str,
        ms: float,
        outcome: str,
        decision: Any = None,
        dropped: str | None = None,
        error: str | None = None,
        sha256: str | None = None,
        kwargs: Mapping[str, Any] | None = None,
        raw: Any = None,
    ) -> dict[str, Any]:
        """Write one hook run to every sink; returns the receipt. ``raw`` (the hook's answer as
        it gave it) is kept only by a :class:`Collector`: receipts never carry it."""
        receipt: dict[str, Any] = {
            "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "event": event,
            **self.sessions(kwargs or {}),
            "hook": hook,
            "source": source,
            "sha256": sha256,
            "ms": round(ms, 3),
            "outcome": outcome,
            "decision": self.redact(decision),
            "dropped": self.redact(dropped),
            "error": self.redact(error),
        }
        via = _ORIGIN.get()
        if via is not None:
            receipt["agent"], receipt["agent_event"] = via
        if self.payloads and kwargs is not None:
            payload = self.redact(dict(kwargs))  # before shortening: no half secrets
            receipt["payload"] = (
                {k: _short(v, 2000) for k, v in payload.items()}
                if isinstance(payload, dict)
                else payload
            )
        if self.stderr:
            decision, dropped, error = receipt["decision"], receipt["dropped"], receipt["error"]
            shown = f" {json.dumps(decision, ensure_ascii=False)}" if decision is not None else ""
            why = f" ({dropped or error})" if dropped or error else ""
            sys.stderr.write(
                f"[hermes-hooks] {event} {hook} ({source}) {ms:.1f} ms {outcome}{shown}{why}\n"
            )
        if self.file is not None:
            line = json.dumps(receipt, ensure_ascii=False, default=str) + "\n"
            with self._lock:
                try:
                    self.file.parent.mkdir(parents=True, exist_ok=True)
                    # 0600 whatever the umask: receipts name commands, sessions and payloads
                    fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                    with os.fdopen(fd, "a", encoding="utf-8") as out:
                        out.write(line)
                except OSError as exc:
                    log.warning("trace_file %s: cannot write: %s", self.file, exc.strerror or exc)
        return receipt


class Collector(Tracer):
    """A tracer that keeps every receipt in memory, with each Python hook's raw answer and the
    arguments it received (``hermes hooks test`` and ``replay`` show them); it writes to no other
    sink, so a test or a replay never lands in the audit trail of real runs."""

    def __init__(self) -> None:
        super().__init__()
        self.receipts: list[dict[str, Any]] = []

    def around(
        self,
        event: str,
        hook: str,
        source: str,
        kwargs: Mapping[str, Any],
        call: Callable[[Probe], Any],
        *,
        report: bool = True,
    ) -> Any:
        seen: list[Probe] = []

        def probed(probe: Probe) -> Any:
            seen.append(probe)
            return call(probe)

        before = dict(kwargs)  # what the hook received (a pipeline changes it after)
        answer = super().around(event, hook, source, kwargs, probed, report=report)
        if report and seen:
            self.receipts[-1].update(raw=seen[0].raw, payload=before)
        return answer

    def record(self, **fields: Any) -> dict[str, Any]:
        receipt = super().record(**fields)
        kwargs = fields.get("kwargs")
        receipt.update(raw=fields.get("raw"), payload=dict(kwargs) if kwargs is not None else None)
        self.receipts.append(receipt)
        return receipt


def _attributes(prefix: str, value: Any) -> dict[str, Any]:
    """Flat OpenTelemetry attributes (strings, numbers, bools) for a receipt or decision."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_attributes(f"{prefix}.{key}", item))
        return out
    if value is None:
        return {}
    if isinstance(value, (str, bool, int, float)):
        return {prefix: value}
    return {prefix: json.dumps(value, default=str)}
