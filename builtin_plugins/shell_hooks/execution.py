"""Running the shell hooks of one firing: their environment, the processes
(:mod:`hermes_hooks.process`, all at once), reading each answer (:mod:`hermes_hooks.wire`), and
combining the answers with the event's answer type.

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
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hermes_hooks import consent, process, resolve, wire
from hermes_hooks.catalogue import EventInfo

from .approvals import Approvals
from .environment import MINIMAL_ENV, bad_environment
from .matching import ShellHook

log = logging.getLogger("hermes_hooks")


@dataclass
class Run:
    """One hook at one firing: whether it ran, what the process did, what its answer means."""

    hook: ShellHook
    status: str  # active / unapproved / changed
    detail: str | None = None
    ran: bool = False
    outcome: process.Outcome | None = None
    answer: wire.Answer | None = None
    argv: list[str] = field(default_factory=list)
    stdin: bytes = b""
    digest: str | None = None  # the sha256 consent pinned for what ran

    @property
    def ms(self) -> float:
        """How long the process ran, in milliseconds (0 when it did not run)."""
        return self.outcome.elapsed * 1000 if self.outcome else 0.0

    def report(self) -> dict[str, Any]:
        """The run as plain data (what ``hermes hooks test --json`` prints for each hook)."""
        out, answer, hook = self.outcome, self.answer, self.hook
        return {
            "name": hook.name,
            "command": hook.command,
            "matcher": hook.matcher,
            "protocol": hook.protocol,
            "status": self.status,
            "detail": self.detail,
            "ran": self.ran,
            "stdin": wire.decode(self.stdin) if self.stdin else None,
            "exit_code": out.returncode if out else None,
            "elapsed_ms": round(out.elapsed * 1000, 1) if out else None,
            "timed_out": out.timed_out if out else False,
            "truncated": out.truncated if out else False,
            "stdout": wire.decode(out.stdout) if out else "",
            "stderr": wire.decode(out.stderr) if out else "",
            "answer": plain(answer.value) if answer else None,
            "failure": answer.failure if answer else (out.error if out else None),
            "warning": answer.warning if answer else None,
            "dropped": answer.dropped if answer else None,
            "defaulted": answer.defaulted if answer else None,
            "sha256": self.digest,
        }


def plain(value: Any) -> Any:
    """A typed answer (a dataclass) as a dict without its unset fields; other values as is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: v for k, v in dataclasses.asdict(value).items() if v is not None}
    return value


@dataclass
class Recorder:
    """Collects the runs of the firings made while it is active."""

    force: bool = False  # also run hooks that are not approved (or changed)
    runs: list[Run] = field(default_factory=list)


_recorder: ContextVar[Recorder | None] = ContextVar("hermes_shell_recorder", default=None)


def combine(info: EventInfo, runs: Sequence[Run], kwargs: Mapping[str, Any]) -> Any:
    """The answers of one firing, combined in config order with the event's rule (``None``
    when no hook answered)."""
    values = [r.answer.value for r in runs if r.answer is not None and r.answer.value is not None]
    return info.answer.combine(values, kwargs) if values else None


class Runner:
    """Runs shell hooks for one home: environment, consent at firing time, processes, answers."""

    def __init__(
        self,
        home: Path,
        approvals: Approvals,
        *,
        cap: int = process.OUTPUT_CAP,
        observe: Callable[[EventInfo, Run, Mapping[str, Any]], None] | None = None,
        minimal: bool = False,
    ) -> None:
        self.home = home
        self.approvals = approvals
        self.cap = cap
        #: Told about every run of every firing (the source traces and counts them).
        self.observe = observe
        #: ``hooks_env: minimal``: hooks get only :data:`MINIMAL_ENV` of the host's variables
        #: (plus each entry's ``env_passthrough`` and ``env``), not the whole environment.
        self.minimal = minimal

    # -------------------------------------------------------------- recording

    @contextlib.contextmanager
    def recording(self, *, force: bool = False) -> Iterator[Recorder]:
        """Record every run of the firings made inside the block (in this context, and the
        worker threads the async API starts from it). ``force`` also runs hooks that are not
        approved or changed."""
        recorder = Recorder(force=force)
        token = _recorder.set(recorder)
        try:
            yield recorder
        finally:
            _recorder.reset(token)

    # -------------------------------------------------------------- environment

    def environment(
        self,
        info: EventInfo,
        hook: ShellHook,
        kwargs: Mapping[str, Any],
        cwd: str,
        base: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        """The environment of ``hook`` at one firing."""
        env = self._inherited(hook, base if base is not None else os.environ)
        env["HERMES_HOOK_EVENT"] = info.name
        env["HERMES_HOME"] = str(self.home)
        session = kwargs.get("session_id") or kwargs.get("parent_session_id") or ""
        # The payload carries the id as given; the OS cannot put a NUL in a variable.
        env["HERMES_SESSION_ID"] = str(session).replace("\0", "\\0")
        if hook.protocol == wire.CLAUDE:
            env.setdefault("CLAUDE_PROJECT_DIR", cwd)
            if hook.plugin_root:
                env["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
        claude = info.claude_event(kwargs)
        if claude is not None and claude.env_file and session:
            if "CLAUDE_ENV_FILE" not in os.environ:
                env["CLAUDE_ENV_FILE"] = str(self.env_file(str(session), create=True))
        env.update(hook.env)
        return env

    def static_env(self, hook: ShellHook) -> dict[str, str]:
        """The environment a hook gets, without the per-firing variables (for consent checks
        outside a firing: listing, approving)."""
        env = self._inherited(hook, os.environ)
        env["HERMES_HOME"] = str(self.home)
        if hook.protocol == wire.CLAUDE:
            env.setdefault("CLAUDE_PROJECT_DIR", resolve.current_dir())
            if hook.plugin_root:
                env["CLAUDE_PLUGIN_ROOT"] = hook.plugin_root
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
    ) -> list[Run]:
        """Run ``hooks`` (of one event) at once; reports in the given order.

        Unapproved or changed hooks are reported and not run, unless ``force`` (or a recording
        with ``force``)."""
        if not hooks:
            return []
        recorder = _recorder.get()
        force = force or bool(recorder and recorder.force)
        cwd = resolve.current_dir()
        encoded: dict[str, bytes] = {}
        runs: list[Run] = []
        commands: list[process.Command] = []
        started: list[Run] = []
        base = dict(os.environ)  # copied once per firing: os.environ is slow to iterate
        for hook in hooks:
            run = Run(hook, "active")
            runs.append(run)
            try:
                command = self._prepare(run, info, kwargs, cwd, base, encoded, force)
            except Exception as exc:  # one entry's fault stays with it
                run.ran = True
                run.outcome = process.Outcome(error=f"{type(exc).__name__}: {exc}")
                continue
            if command is not None:
                commands.append(command)
                started.append(run)
        for run, outcome in zip(started, process.run_many(commands), strict=True):
            run.ran = True
            run.outcome = outcome
        for run in runs:
            if run.ran:
                assert run.outcome is not None
                run.answer = self._answer(info, run.hook, run.outcome, kwargs)
            elif run.hook.fail_closed:
                run.answer = self._refused(info, run)
            if self.observe is not None:
                self.observe(info, run, kwargs)
        if recorder is not None:
            recorder.runs.extend(runs)
        return runs

    def _prepare(
        self,
        run: Run,
        info: EventInfo,
        kwargs: Mapping[str, Any],
        cwd: str,
        base: Mapping[str, str],
        encoded: dict[str, bytes],
        force: bool,
    ) -> process.Command | None:
        """Consent, payload, argv and environment of one run; ``None`` when it is not to run
        (``run`` then says why)."""
        hook = run.hook
        env = self.environment(info, hook, kwargs, cwd, base)
        state = self.approvals.consent(hook, env) if force else self.approvals.permit(hook, env)
        run.status, run.detail, run.digest = state.status, state.detail, state.digest
        if state.status != "active" and not force:
            return None
        if hook.protocol not in encoded:
            payload = (
                wire.claude_payload(info, kwargs, cwd)
                if hook.protocol == wire.CLAUDE
                else wire.hermes_payload(info.name, kwargs, cwd)
            )
            encoded[hook.protocol] = wire.encode(payload)
        run.stdin = encoded[hook.protocol]
        run.ran = True
        bad = bad_environment(env)
        if bad:
            run.outcome = process.Outcome(error=bad)
            return None
        try:
            run.argv = hook.argv(env)
        except ValueError as exc:
            run.outcome = process.Outcome(error=f"cannot split the command: {exc}")
            return None
        workdir = hook.cwd(env)
        if workdir is not None and not os.path.isdir(workdir):
            run.outcome = process.Outcome(error=f"working_dir {workdir} does not exist")
            return None
        run.ran = False
        return process.Command(
            run.argv, run.stdin, timeout=hook.timeout, env=env, cwd=workdir, cap=self.cap
        )

    def _refused(self, info: EventInfo, run: Run) -> wire.Answer:
        """A ``fail_closed`` hook that did not run (unapproved, changed): its answer is unknown,
        so it blocks, saying how to approve it."""
        hook = run.hook
        why = run.detail or run.status
        message = (
            f"shell hook {hook.name} is fail_closed and was not run ({why}); "
            f"approve it: {hook.approve_command}"
        )
        return wire.Answer(value=info.answer.failed(message, hook.name), failure=why)

    def _answer(
        self, info: EventInfo, hook: ShellHook, out: process.Outcome, kwargs: Mapping[str, Any]
    ) -> wire.Answer:
        failure = out.error
        if out.timed_out:
            failure = f"timed out after {hook.timeout}s (its process group was killed)"
        elif out.truncated:
            failure = f"output over the {self.cap}-byte cap (cut; its process group was killed)"
        answer = wire.parse(
            info,
            hook.protocol,
            out.returncode,
            out.stdout,
            out.stderr,
            source=hook.name,
            fail_closed=hook.fail_closed,
            failure=failure,
            tool_name=kwargs.get("tool_name"),
        )
        if answer.failure:
            log.warning("shell hook %r on %s failed: %s%s", hook.name, info.name, answer.failure,
                        " (fail_closed)" if answer.value is not None else "")  # fmt: skip
        if answer.dropped:
            self.approvals.warn_once(
                ("dropped", hook.key, answer.dropped),
                f"shell hook {hook.name!r} on {info.name}: its answer was ignored: "
                f"{answer.dropped} (it printed {answer.raw!r:.200})",
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
        env = self.static_env(hook)
        cwd = hook.cwd(env)
        if cwd is not None and not os.path.isdir(cwd):
            return f"working_dir {cwd} does not exist"
        if hook.protocol == wire.CLAUDE:
            try:
                words = shlex.split(hook.command)
            except ValueError as exc:
                return f"the command cannot be parsed: {exc}"
            if not words:
                return "empty command"
            first = consent.expand(words[0], env)
            if "/" in first:
                return _file_problem(first, cwd, os.X_OK, "is not executable (chmod +x it)")
            return None
        try:
            argv = hook.argv(env)
        except ValueError as exc:
            return f"the command cannot be split: {exc}"
        exe = resolve.which(argv[0], env, cwd)
        if exe is None:
            return f"{argv[0]} not found" + ("" if "/" in argv[0] else " on PATH")
        if not os.access(exe, os.X_OK) or os.path.isdir(exe):
            return f"{exe} is not executable (chmod +x it, or run it through its interpreter)"
        for token in argv[1:]:
            if token.lower().endswith(consent.SCRIPT_EXTENSIONS) and "/" in token:
                problem = _file_problem(token, cwd, os.R_OK, "is not readable", prefix="script ")
                if problem:
                    return problem
        return None


def _file_problem(
    token: str, cwd: str | None, mode: int, denied: str, *, prefix: str = ""
) -> str | None:
    """Why the file ``token`` names (relative to ``cwd``) is missing or lacks ``mode``."""
    path = token if os.path.isabs(token) else os.path.join(cwd or resolve.current_dir(), token)
    if not os.path.isfile(path):
        return f"{prefix}{token} does not exist"
    if not os.access(path, mode):
        return f"{prefix}{token} {denied}"
    return None
