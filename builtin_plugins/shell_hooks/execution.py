"""Internal: part of the built-ins (docs/builtins.md), not an API.

Running the shell hooks of one firing: their environment, the processes
(:mod:`.processes`, all at once) and reading each answer with the event's answer type
(:mod:`.protocol`); the dispatcher combines them with every other hook's.

A firing can be recorded (:meth:`Runner.recording`): every run, with its stdin, exit code, raw
output and normalised answer, is handed to the recorder. ``hermes hooks test`` uses it to show
what each hook did while the event goes through the runtime's own dispatcher.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hermes_hooks.catalogue import EventInfo
from hermes_hooks.contract import session_of
from hermes_hooks.terminal import TELL

from . import consent, kinds, matching, processes, protocol
from .approvals import WITHHELD, Approvals
from .background import Background
from .matching import ShellHook
from .processes import MINIMAL_ENV, bad_environment, command_problem, host_env
from .protocol import ContextCap
from .runs import RECORDER, Recorder, Run

log = logging.getLogger("hermes_hooks")


#: Runs a batch of prepared hooks of one kind at once; outcomes in the same order.
Transport = Callable[[Sequence[tuple[ShellHook, processes.Command]]], list[processes.Outcome]]


#: How long a failure message may be (redacted before it is cut).
MESSAGE_CAP = 300


def _message(value: Any) -> str:
    text = str(value)
    return text if len(text) <= MESSAGE_CAP else text[: MESSAGE_CAP - 1] + "…"


def _processes(batch: Sequence[tuple[ShellHook, processes.Command]]) -> list[processes.Outcome]:
    return processes.run_many([command for _, command in batch])


class Runner:
    """Runs shell hooks for one home: environment, consent at firing time, processes, answers."""

    def __init__(
        self,
        home: Path,
        approvals: Approvals,
        *,
        cap: int = processes.OUTPUT_CAP,
        observe: Callable[[EventInfo, Run, Mapping[str, Any]], None] | None = None,
        minimal: bool = False,
        redact: Callable[[Any], Any] | None = None,
    ) -> None:
        self.home = home
        #: ``redact_secrets`` (the runtime's ``hooks.redact``): applied to what http and prompt
        #: hooks are sent, and to every failure and block message a hook's run yields.
        self.redact: Callable[[Any], Any] = redact or (lambda value: value)
        self.approvals = approvals
        self.cap = cap
        #: Told about every run of every firing (the source checks required guards, and counts
        #: and traces background runs).
        self.observe = observe
        #: ``hooks_env: minimal``: hooks get only :data:`MINIMAL_ENV` of the host's variables
        #: (plus each entry's ``env_passthrough`` and ``env``), not the whole environment.
        self.minimal = minimal
        #: How each kind of hook runs (``ShellHook.kind``): a batch of (hook, prepared command)
        #: in, outcomes out. ``command`` starts a process per hook per firing.
        self.transports: dict[str, Transport] = {"command": _processes, **kinds.TRANSPORTS}
        #: Claude Code's cap on one hook's context text (the rest saved under the home).
        self.cap_context = ContextCap(home / "hook-output")
        #: Runs ``async`` hooks (set by the source, which delivers what they have).
        self.background: Background | None = None

    # -------------------------------------------------------------- recording

    @contextlib.contextmanager
    def recording(self, *, force: bool = False) -> Iterator[Recorder]:
        """Record every run of the firings made inside the block (in this context, and the
        worker threads the async API starts from it). ``force`` also runs hooks that are not
        approved or changed."""
        recorder = Recorder(force=force)
        token = RECORDER.set(recorder)
        try:
            yield recorder
        finally:
            RECORDER.reset(token)

    # -------------------------------------------------------------- environment

    def environment(
        self,
        info: EventInfo,
        hook: ShellHook,
        kwargs: Mapping[str, Any],
        cwd: str,
        base: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        """The environment of ``hook`` at one firing: :meth:`static_env` and the variables of
        :data:`.environment.PER_FIRING` (the entry's own ``env`` wins over them too)."""
        env = self.static_env(hook, base, cwd)
        session = session_of(kwargs)
        # The payload carries the id as given; the OS cannot put a NUL in a variable.
        firing = {"HERMES_HOOK_EVENT": info.name,
                  "HERMES_SESSION_ID": str(session).replace("\0", "\\0")}  # fmt: skip
        claude = info.claude_event(kwargs)
        if claude is not None and claude.env_file and session:
            if "CLAUDE_ENV_FILE" not in os.environ:
                firing["CLAUDE_ENV_FILE"] = str(self.env_file(str(session), create=True))
        env.update((k, v) for k, v in firing.items() if k not in hook.env)
        return env

    def static_env(
        self, hook: ShellHook, base: Mapping[str, str] | None = None, cwd: str | None = None
    ) -> dict[str, str]:
        """The environment a hook gets, without the per-firing variables (for consent checks
        outside a firing: listing, approving; a warm worker's)."""
        env = self._inherited(hook, base if base is not None else os.environ)
        cwd = cwd if cwd is not None else consent.current_dir()
        env["HERMES_HOME"] = str(self.home)
        if hook.protocol == protocol.CLAUDE:
            env.setdefault("CLAUDE_PROJECT_DIR", cwd)
            if hook.plugin_root:
                env["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
        env.update(matching.env(hook, cwd))
        env.update(hook.env)
        return env

    def _inherited(self, hook: ShellHook, base: Mapping[str, str]) -> dict[str, str]:
        if not self.minimal:
            return dict(base)  # Hermes-compatible: the whole host environment
        keep = set(hook.env_passthrough)
        return {
            k: v
            for k, v in base.items()
            if k in MINIMAL_ENV or k in keep or k.startswith(("LC_", "CLAUDE_", "HERMES_"))
        }

    def env_file(self, session_id: str, *, create: bool = False) -> Path:
        """The ``CLAUDE_ENV_FILE`` this adapter gives a session's hooks."""
        # Readable, and distinct for every id ("a:b", "a_b" and "a/b" must not share a file:
        # one session's exported secrets would reach another).
        safe = re.sub(r"[^\w.-]", "_", session_id)[:64] or "session"
        digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        path = self.home / "shell-hooks-env" / f"{safe}-{digest}.sh"
        if create and not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
            os.close(fd)
        return path

    # -------------------------------------------------------------- running

    def execute(
        self,
        info: EventInfo,
        kwargs: Mapping[str, Any],
        hooks: Sequence[ShellHook],
        *,
        force: bool = False,
        foreground: bool = False,
    ) -> list[Run]:
        """Run ``hooks`` (of one event) at once; reports in the given order.

        Unapproved or changed hooks are reported and not run, unless ``force`` (or a recording
        with ``force``). Background (``async``) hooks are started and left to run, unless
        ``foreground`` or recording; they are not in the reports (recorded, their answer is
        shown and decides nothing)."""
        recorder = RECORDER.get()
        if self.background is not None and not foreground and recorder is None:
            for hook in hooks:
                if hook.background:
                    self.background.start(info, kwargs, hook)
            hooks = [h for h in hooks if not h.background]
        if not hooks:
            return []
        force = force or bool(recorder and recorder.force)
        cwd = consent.current_dir()
        encoded: dict[tuple[str, bool], bytes] = {}
        runs: list[Run] = []
        commands: list[processes.Command] = []
        started: list[Run] = []
        base = host_env()  # read once per firing: os.environ is slow to iterate
        for hook in hooks:
            run = Run(hook, "active", kwargs=kwargs)
            runs.append(run)
            try:
                command = self._prepare(run, info, kwargs, cwd, base, encoded, force)
            except Exception as exc:  # one entry's fault stays with it
                run.ran = True
                run.outcome = processes.Outcome(error=f"{type(exc).__name__}: {exc}")
                continue
            if command is not None:
                commands.append(command)
                started.append(run)
        for run, outcome in zip(started, self._run_batches(started, commands), strict=True):
            run.ran = True
            run.outcome = outcome
            if run.pinned:
                run.self_changed = self.approvals.ran(run.hook, run.pinned, info.name)
        for run in runs:
            if run.ran:
                assert run.outcome is not None
                run.answer = self._answer(info, run.hook, run.outcome, kwargs)
                if run.hook.background:  # an async hook's answer decides nothing
                    run.answer = dataclasses.replace(run.answer, value=None)
            elif run.hook.fail_closed or self._blocks(info, run):
                run.answer = self._refused(info, run)
            if self.observe is not None:
                self.observe(info, run, kwargs)
        if recorder is not None:
            recorder.runs.extend(runs)
        return runs

    def _run_batches(
        self, started: Sequence[Run], commands: Sequence[processes.Command]
    ) -> list[processes.Outcome]:
        """Every prepared hook run by its kind's transport, the kinds side by side (each extra
        kind in a thread of its own); outcomes in the order of ``started``."""
        groups: dict[str, list[int]] = {}
        for i, run in enumerate(started):
            groups.setdefault(run.hook.kind, []).append(i)
        outcomes: list[processes.Outcome | None] = [None] * len(started)

        def batch(kind: str, indexes: list[int]) -> None:
            transport = self.transports.get(kind)
            if transport is None:
                for i in indexes:
                    outcomes[i] = processes.Outcome(error=f"no runner for hooks of type {kind!r}")
                return
            pairs = [(started[i].hook, commands[i]) for i in indexes]
            try:
                results = transport(pairs)
            except Exception as exc:  # a transport's fault stays with its hooks
                results = [processes.Outcome(error=f"{type(exc).__name__}: {exc}") for _ in pairs]
            for i, outcome in zip(indexes, results, strict=True):
                outcomes[i] = outcome

        kinds = list(groups.items())
        threads = [
            threading.Thread(target=batch, args=item, name=f"hermes-hooks-{item[0]}", daemon=True)
            for item in kinds[1:]
        ]
        for thread in threads:
            thread.start()
        if kinds:
            batch(*kinds[0])
        for thread in threads:
            thread.join()
        return [o if o is not None else processes.Outcome(error="not run") for o in outcomes]

    def _prepare(
        self,
        run: Run,
        info: EventInfo,
        kwargs: Mapping[str, Any],
        cwd: str,
        base: Mapping[str, str],
        encoded: dict[tuple[str, bool], bytes],
        force: bool,
    ) -> processes.Command | None:
        """Consent, payload, argv and environment of one run; ``None`` when it is not to run
        (``run`` then says why)."""
        hook = run.hook
        env = self.environment(info, hook, kwargs, cwd, base)
        typed = not hook.runs_code  # http, prompt: no process (kinds.py)
        state = (
            self.approvals.permit(hook, env)
            if hook.needs_approval and not force
            else self.approvals.consent(hook, env)
        )
        run.status, run.detail, run.digest = state.status, state.detail, state.digest
        run.declined = state.declined
        if state.status != "active" and not force:
            if state.status in WITHHELD:
                blocks = hook.fail_closed or self._blocks(info, run)
                # a recording (`hermes hooks test`) shows every run itself: logged only
                loud = RECORDER.get() is None
                self.approvals.withheld(hook, state, info.name, blocks, loud=loud)
            return None
        if not typed and not force:
            run.pinned = self.approvals.pinned_now(state.scripts)
        # http and prompt hooks send the payload off this machine: redacted (redact_secrets)
        key = (matching.payload_key(hook), typed)
        if key not in encoded:
            if typed:
                kwargs = self.redact(dict(kwargs))
            payload = matching.payload(hook, info, kwargs, cwd)
            if payload is None:
                payload = (
                    protocol.claude_payload(info, kwargs, cwd)
                    if hook.protocol == protocol.CLAUDE
                    else protocol.hermes_payload(info.name, kwargs, cwd)
                )
            encoded[key] = protocol.encode(payload)
        run.stdin = encoded[key]
        if typed:
            return processes.Command((), run.stdin, timeout=hook.timeout, env=env, cap=self.cap)
        run.ran = True
        bad = bad_environment(env)
        if bad:
            run.outcome = processes.Outcome(error=bad)
            return None
        try:
            run.argv = hook.argv(env)
        except ValueError as exc:
            run.outcome = processes.Outcome(error=f"cannot split the command: {exc}")
            return None
        workdir = hook.cwd(env)
        if workdir is not None and not os.path.isdir(workdir):
            run.outcome = processes.Outcome(error=f"working_dir {workdir} does not exist")
            return None
        run.ran = False
        return processes.Command(run.argv, run.stdin, timeout=hook.timeout, env=env, cwd=workdir,
                               cap=self.cap, pinned=run.digest)  # fmt: skip

    @staticmethod
    def _blocks(info: EventInfo, run: Run) -> bool:
        """Whether a hook that was not run blocks its event: a hook nobody approved as it is now
        (unapproved, changed, unpinned), on an event that can block, when no person was asked
        and said no. A guard edited after its approval must not go quiet where nobody can be
        asked (a headless run, Hermes Agent without a terminal)."""
        return (
            run.status in WITHHELD
            and not run.declined
            and not run.hook.background
            and run.hook.runs_code
            and info.can_block
        )

    def _refused(self, info: EventInfo, run: Run) -> protocol.Answer:
        """A hook that did not run and blocks (``fail_closed``, or withheld on an event that
        can block: :meth:`_blocks`): its answer is unknown, so it blocks, saying how to approve
        it."""
        hook = run.hook
        why = run.detail or run.status
        if hook.fail_closed:
            message = (f"shell hook {hook.name} ({hook.where}) is fail_closed and was not run "
                       f"({why}); {hook.remedy}")  # fmt: skip
        else:
            fix = why if run.status == "unpinned" else f"{why}; {hook.remedy}"
            message = (f"shell hook {hook.name} ({hook.where}) guards {info.name} and was not run, "
                       f"so this call is blocked: {fix}")  # fmt: skip
        return protocol.Answer(value=info.answer.failed(message, hook.name), failure=why)

    def _answer(
        self, info: EventInfo, hook: ShellHook, out: processes.Outcome, kwargs: Mapping[str, Any]
    ) -> protocol.Answer:
        # What the model may read (a block message, a failure in a fail_closed message):
        # redacted first, then capped (a reply's body can be long and hold anything).
        failure = _message(self.redact(out.error)) if out.error is not None else None
        stderr = out.stderr
        if stderr:
            stderr = self.redact(protocol.decode(stderr)).encode("utf-8", "surrogatepass")
        killed = "; its process group was killed" if hook.kind in ("command", "worker") else ""
        if out.timed_out:
            failure = f"timed out after {hook.timeout:g}s" + (f" ({killed[2:]})" if killed else "")
        elif out.truncated:
            failure = f"output over the {self.cap}-byte cap (cut{killed})"
        returncode, stdout, stderr = matching.output(hook, out.returncode, out.stdout, stderr)
        answer = protocol.parse(
            info,
            hook.protocol,
            returncode,
            stdout,
            stderr,
            source=hook.name,
            fail_closed=hook.fail_closed,
            failure=failure,
            tool_name=kwargs.get("tool_name"),
            translate=matching.translate(hook, info, kwargs),
            cap=self.cap_context if hook.protocol == protocol.CLAUDE else None,
        )
        # a guard that did not guard (it failed or was not understood, and blocked nothing)
        quiet = info.can_block and answer.value is None
        if answer.failure:
            log.warning("shell hook %r on %s failed: %s%s", hook.name, info.name, answer.failure,
                        " (fail_closed)" if answer.value is not None else "",
                        extra=TELL if quiet else None)  # fmt: skip
        if answer.dropped:
            self.approvals.warn_once(
                ("dropped", hook.key, answer.dropped),
                f"shell hook {hook.name!r} on {info.name}: its answer was ignored: "
                f"{answer.dropped} (it printed {answer.raw!r:.200})",
                guard=quiet,
            )
        if answer.defaulted:
            self.approvals.warn_once(
                ("defaulted", hook.key, answer.defaulted),
                f"shell hook {hook.name!r} on {info.name}: {answer.defaulted} "
                f"(it printed {answer.raw!r:.200})",
            )
        if answer.warning:
            self.approvals.warn_once(
                ("warning", hook.key, answer.warning[:60]),
                f"shell hook {hook.name!r} on {info.name}: {answer.warning}",
            )
        return answer

    # -------------------------------------------------------------- checking

    def problem(self, hook: ShellHook) -> str | None:
        """Why the hook's command cannot run as configured, or ``None`` (``hermes hooks
        doctor``)."""
        check = kinds.PROBLEMS.get(hook.kind) or getattr(
            self.transports.get(hook.kind), "problem", None
        )
        if check is not None:
            return check(hook)
        return command_problem(hook, self.static_env(hook))
