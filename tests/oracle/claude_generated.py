"""The generated Claude Code corpus: cases built from a small declared contract, not hand-picked.

The contract is what Claude Code's hooks reference documents for a ``command`` hook, read against
the matcher test in the 2.1.330 bundle (facts only):

- **exit codes**: 0 (stdout is read: JSON, or plain text), 2 (a blocking error: stderr is the
  message), anything else a non-blocking error (stderr goes to the user). The generator tries
  :data:`EXITS` (127 also as a script that does not exist: :data:`MISSING`).
- **streams**: the answer on stdout, on stderr, or (exit 0 and 2) on stdout with a marked line
  on stderr.
- **answer shapes**: every documented PreToolUse / PostToolUse / PermissionRequest field, plus
  invalid JSON, plain text and nothing (:data:`SHAPES`).
- **matcher grammar**: a matcher of only letters, digits, ``_``, ``|``, ``,``, ``-`` and spaces
  is a list of exact tool names split on ``|`` and ``,`` (each trimmed); any other matcher is a
  JavaScript regular expression searched in the tool name; an invalid one matches nothing;
  ``*`` and the empty matcher match everything (:data:`MATCHERS`).
- **the hook shell**: what a command written inline can rely on (:data:`SHELL_FACTS`).
- **several hooks**: Claude Code runs a call's hooks side by side; which answer wins may depend
  on the order they finish rather than their order in the file (:data:`PAIRS`, each tried with
  the first hook finishing first and last).

The real agent runs many cases per start (:func:`batches`): every case gets one Bash call of its
own whose command carries the case's mark (``: CASE_<tag>;``), and every hook script first looks
for its case's mark in the payload and says nothing for any other call. hermes-hooks loads each
case's hooks alone. Hook texts carry ``ORC-<kind>-<tag>`` markers, so what the model saw is
told apart per case.

A case whose outcome differs by design names the difference (``DIFFERENCES`` of
test_oracle_claude.py) through :func:`expected_difference`, a rule over the dimensions, never a
list of case ids.
"""

from __future__ import annotations

import itertools
import json
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The exit codes the generator tries (Claude Code documents 0, 2 and "anything else").
EXITS = (0, 1, 2, 3, 127)
#: Where the answer goes: stdout, stderr, or stdout plus a marked stderr line (``ORC-E-<tag>``).
STREAMS = ("stdout", "stderr", "both")
#: A hook command that names a script that is not there (the shell exits 127).
MISSING = "missing"


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


#: An answer shape: a function of (tag, the case's rewritten command) to the text the hook prints.
Shape = Callable[[str, str], str]


def _json(build: Callable[[str, str], dict[str, Any]]) -> Shape:
    return lambda tag, rewritten: json.dumps(build(tag, rewritten))


def _pre(**fields: Any) -> Shape:
    def build(tag: str, rewritten: str) -> dict[str, Any]:
        out = {k: (v.format(tag=tag) if isinstance(v, str) else v) for k, v in fields.items()}
        return specific("PreToolUse", **out)

    return _json(build)


def _rewrite(event: str) -> Shape:
    def build(tag: str, rewritten: str) -> dict[str, Any]:
        return specific(event, updatedInput={"command": rewritten, "description": "oracle"})

    return _json(build)


#: The PreToolUse answers Claude Code documents (and a Hermes ``action`` in a Claude Code
#: answer, which Claude Code does not read), plus what is not an answer.
PRE_SHAPES: dict[str, Shape] = {
    "deny": _pre(permissionDecision="deny", permissionDecisionReason="ORC-M-{tag}"),
    "allow": _pre(permissionDecision="allow", permissionDecisionReason="ORC-M-{tag}"),
    "ask": _pre(permissionDecision="ask", permissionDecisionReason="ORC-M-{tag}"),
    "rewrite": _rewrite("PreToolUse"),
    "context": _pre(additionalContext="ORC-C-{tag}"),
    "legacy-block": _json(lambda t, r: {"decision": "block", "reason": f"ORC-M-{t}"}),
    "legacy-approve": _json(lambda t, r: {"decision": "approve", "reason": f"ORC-M-{t}"}),
    "continue-false": _json(lambda t, r: {"continue": False, "stopReason": f"ORC-S-{t}"}),
    "system-message": _json(lambda t, r: {"systemMessage": f"ORC-W-{t}", "suppressOutput": True}),
    "deny-stray-action": _json(lambda t, r: {"action": "allow", **specific(
        "PreToolUse", permissionDecision="deny", permissionDecisionReason=f"ORC-M-{t}")}),
    "invalid-json": lambda t, r: "{ORC-M-" + t + " is not json",
    "plain": lambda t, r: f"ORC-C-{t} plain text",
    "empty": lambda t, r: "",
}  # fmt: skip

#: The PostToolUse answers (the tool has run: they add to what the model reads, or stop).
POST_SHAPES: dict[str, Shape] = {
    "legacy-block": _json(lambda t, r: {"decision": "block", "reason": f"ORC-M-{t}"}),
    "context": _json(lambda t, r: specific("PostToolUse", additionalContext=f"ORC-C-{t}")),
    "system-message": _json(lambda t, r: {"systemMessage": f"ORC-W-{t}"}),
    "invalid-json": lambda t, r: "{ORC-M-" + t + " is not json",
    "plain": lambda t, r: f"ORC-C-{t} plain text",
    "empty": lambda t, r: "",
}  # fmt: skip


def _permission(behavior: str, **more: Any) -> Callable[[str, str], dict[str, Any]]:
    def build(tag: str, rewritten: str) -> dict[str, Any]:
        decision: dict[str, Any] = {"behavior": behavior}
        if behavior == "deny":
            decision["message"] = f"ORC-M-{tag}"
        if more.get("rewrite"):
            decision["updatedInput"] = {"command": rewritten, "description": "oracle"}
        out = specific("PermissionRequest", decision=decision)
        return {"action": "allow", **out} if more.get("stray") else out

    return build


#: The PermissionRequest answers (the host does not allow the call; nobody else answers).
PERMISSION_REQUEST_SHAPES: dict[str, Shape] = {
    "allow": _json(_permission("allow")),
    "deny": _json(_permission("deny")),
    "deny-stray-action": _json(_permission("deny", stray=True)),
    "allow-rewrite": _json(_permission("allow", rewrite=True)),
    "legacy-block": _json(lambda t, r: {"decision": "block", "reason": f"ORC-M-{t}"}),
    "invalid-json": lambda t, r: "{ORC-M-" + t + " is not json",
    "plain": lambda t, r: f"ORC-C-{t} plain text",
    "empty": lambda t, r: "",
}  # fmt: skip
SHAPES = {"PreToolUse": PRE_SHAPES, "PostToolUse": POST_SHAPES,
          "PermissionRequest": PERMISSION_REQUEST_SHAPES}  # fmt: skip

#: Matchers for a PreToolUse hook on a Bash call (the hook blocks with exit 2 when it runs):
#: lists with each separator and with spaces, case, partial names, regexes (anchored, not,
#: alternation, JavaScript-only and Python-only syntax), invalid ones, other agents' names.
MATCHERS = (
    "Bash", "bash", "BASH", "Bas", "Bash|Write", "Write|Bash", "Bash|", "|Bash", "Bash,Write",
    "Write,Bash", "Write, Bash", " Bash", "Bash ", "Write | Bash", "Write Bash", "Bash-Write",
    "Write,Edit", "Write|Edit", "Bash;Write", "^Bash$", "^Ba", "sh$", "Ba.h", "B.*", ".*", "*", "",
    "Bash*", "[Bb]ash", "Bash(", "Ba[", "(?i)bash", "(?<n>Bash)", "(?P<n>Bash)", r"\ABash",
    r"Bash\b", "terminal", "Shell", "run_shell_command", "mcp__.*",
)  # fmt: skip

#: Pairs of answers for two PreToolUse hooks on one call (in configuration order); each pair is
#: tried with the first hook finishing first and with it finishing last.
PAIRS = (
    ("deny", "allow"), ("allow", "deny"), ("exit2", "allow"), ("allow", "exit2"),
    ("ask", "deny"), ("deny", "ask"), ("ask", "allow"), ("allow", "ask"),
    ("continue-false", "deny"), ("deny", "continue-false"), ("rewrite", "rewrite"),
    ("rewrite", "deny"), ("deny", "rewrite"), ("rewrite", "allow"), ("context", "context"),
    ("exit2", "exit2"), ("deny", "deny"), ("deny-stray-action", "allow"),
    ("legacy-approve", "deny"), ("exit1", "deny"),
)  # fmt: skip
SLOW = 0.4  # seconds the slower hook of a pair waits
#: Answers that may grant a call the host does not allow.
GRANTS = {"allow", "ask", "legacy-approve", "deny-stray-action"}

#: What a hook command's shell and environment are: each test, written inline in the settings
#: file, blocks (exit 2) when it holds in the agent's hook shell.
SHELL_FACTS = {
    "bash-test-syntax": "[[ -n x ]]",
    "bash-version-set": '[ -n "$BASH_VERSION" ]',
    "pipefail-known": "(set -o pipefail) 2>/dev/null",
    "project-dir-set": '[ -n "$CLAUDE_PROJECT_DIR" ]',
    "runs-in-project-dir": '[ "$(pwd -P)" = "$(cd "$CLAUDE_PROJECT_DIR" 2>/dev/null && pwd -P)" ]',
    "stdin-is-one-json-line": '[ "$(printf %s "$input" | wc -l)" -eq 0 ]',
}


@dataclass(frozen=True)
class Hook:
    """One generated hook: what it prints where, its exit code, how long it waits first."""

    event: str
    stdout: str = ""
    stderr: str = ""
    exit: int | str = 0
    matcher: str | None = "Bash"
    delay: float = 0.0
    #: a shell test written inline as the command (after the case's own dispatch): the hook
    #: blocks when it holds
    inline: str | None = None


@dataclass(frozen=True)
class GenCase:
    """One generated case. ``tag`` names its markers; ``hooks`` run in configuration order."""

    id: str
    tag: str
    kind: str  # "pre", "post", "permission", "matcher", "shell", "pair"
    hooks: tuple[Hook, ...]
    allowed: bool
    dims: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    #: its hook answers every call of a run (a missing script): batched only with its like
    alone: bool = False

    def command(self, d: Path) -> str:
        return f": CASE_{self.tag}; touch {d}/ran; echo TOOL-OUTPUT"

    def rewritten(self, d: Path, n: int = 2) -> str:
        return f": CASE_{self.tag}; touch {d}/ran{n}; echo TOOL-OUTPUT-{n}"

    def mark(self) -> str:
        return f"CASE_{self.tag};"

    def settings(self, d: Path) -> dict[str, Any]:
        """The case's ``settings.json`` hooks, its scripts written into ``d``."""
        out: dict[str, list[dict[str, Any]]] = {}
        for n, hook in enumerate(self.hooks):
            if hook.exit == MISSING:
                command = str(d / f"ORC-E-{self.tag}" / "no-such-hook.sh")
            elif hook.inline is not None:
                command = (f'input=$(cat); case "$input" in *{shlex.quote(self.mark())}*) ;; '
                           f"*) exit 0 ;; esac; if {hook.inline}; then "
                           f"echo ORC-E-{self.tag} >&2; exit 2; fi")  # fmt: skip
            else:
                command = self._script(d, n, hook)
            group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
            if hook.matcher is not None:
                group["matcher"] = hook.matcher
            out.setdefault(hook.event, []).append(group)
        return out

    def _script(self, d: Path, n: int, hook: Hook) -> str:
        body = ["#!/bin/sh", "input=$(cat)",
                f'case "$input" in *{shlex.quote(self.mark())}*) ;; *) exit 0 ;; esac']  # fmt: skip
        if hook.delay:
            body.append(f"sleep {hook.delay}")
        stdout = hook.stdout.replace("{rewritten}", self.rewritten(d))
        stdout = stdout.replace("{rewritten3}", self.rewritten(d, 3))
        if stdout:
            body.append("printf '%s\\n' " + shlex.quote(stdout))
        if hook.stderr:
            body.append("printf '%s\\n' " + shlex.quote(hook.stderr) + " >&2")
        body.append(f"exit {hook.exit}")
        path = d / f"hook{n}.sh"
        path.write_text("\n".join(body) + "\n")
        path.chmod(0o755)
        return str(path)


def _streams(text: str, stream: str, tag: str) -> tuple[str, str]:
    if stream == "stdout":
        return text, ""
    if stream == "stderr":
        return "", text
    return text, f"ORC-E-{tag} on stderr"


def _answer(event: str, shape: str, exit: int, stream: str, tag: str) -> tuple[str, str, int]:
    """(stdout, stderr, exit) of one hook; ``exit1``/``exit2`` shapes are stderr texts."""
    if shape.startswith("exit"):
        return "", f"ORC-E-{tag}", int(shape[4:])
    text = SHAPES[event][shape](tag, "{rewritten}")
    out, err = _streams(text, stream, tag)
    return out, err, exit


#: The PreToolUse shapes also tried where the host does not already allow the call (so an allow,
#: an ask or a rewrite shows whether it was read); every shape is tried where it does.
PERMISSION_SHAPES = ("allow", "legacy-approve", "ask", "rewrite", "deny-stray-action",
                     "continue-false", "empty")  # fmt: skip


def _single(kind: str, event: str, shapes: dict[str, Shape]) -> Iterator[dict[str, Any]]:
    for shape, exit, stream in itertools.product(shapes, (*EXITS, MISSING), STREAMS):
        if exit == MISSING and (stream != "stdout" or shape != "empty"):
            continue  # a missing script prints nothing of its own: one case per event
        if shape == "empty" and stream == "stderr":
            continue  # the same hook as empty on stdout
        if shape == "continue-false" and stream == "both":
            continue  # it ends the agent's turn: each one costs an agent start of its own
        if stream == "both" and exit not in (0, 2):
            continue  # stderr beside stdout matters on exit 2; exit 0 shows it is ignored
        if kind != "pre" and stream == "stderr" and exit != 2:
            continue  # after the tool or in a permission answer, stderr counts on exit 2 only
        for allowed in (True, False):
            if kind == "permission" and allowed:
                continue  # the question is asked only when the host does not allow the call
            if not allowed and (
                kind == "post" or (kind == "pre" and shape not in PERMISSION_SHAPES)
            ):
                continue
            yield {"kind": kind, "event": event, "shape": shape, "exit": exit, "stream": stream,
                   "allowed": allowed}  # fmt: skip


def generate() -> list[GenCase]:
    """Every generated case, from the dimensions above."""
    cases: list[GenCase] = []

    def add(name: str, kind: str, hooks: Callable[[str], tuple[Hook, ...]], allowed: bool,
            dims: dict[str, Any], alone: bool = False) -> None:  # fmt: skip
        tag = f"g{len(cases):03d}"
        cases.append(GenCase(f"gen-{name}", tag, kind, hooks(tag), allowed, dims, alone))

    for kind, event in (("pre", "PreToolUse"), ("post", "PostToolUse"),
                        ("permission", "PermissionRequest")):  # fmt: skip
        shapes = SHAPES[event]
        for dims in _single(kind, event, shapes):
            shape, exit, stream = dims["shape"], dims["exit"], dims["stream"]
            allowed = dims["allowed"]

            def hooks(tag: str, event: str = event, shape: str = shape, exit: Any = exit,
                      stream: str = stream) -> tuple[Hook, ...]:  # fmt: skip
                if exit == MISSING:
                    return (Hook(event, exit=MISSING),)
                out, err, code = _answer(event, shape, exit, stream, tag)
                return (Hook(event, out, err, code),)

            name = f"{kind}-{'missing-script' if exit == MISSING else f'x{exit}-{stream}-{shape}'}"
            name += "" if allowed else "-not-allowed"
            add(name, kind, hooks, allowed, dims, alone=exit == MISSING)
    for n, matcher in enumerate(MATCHERS):
        dims = {"kind": "matcher", "matcher": matcher, "allowed": True}
        add(f"matcher-{n:02d}-{_slug(matcher)}", "matcher",
            lambda tag, m=matcher: (Hook("PreToolUse", "", f"ORC-E-{tag}", 2, m),), True, dims)  # fmt: skip
    for fact, test in SHELL_FACTS.items():
        dims = {"kind": "shell", "fact": fact, "allowed": True}
        add(f"shell-{fact}", "shell",
            lambda tag, t=test: (Hook("PreToolUse", inline=t),), True, dims)  # fmt: skip
    for (a, b), slow_first in itertools.product(PAIRS, (False, True)):
        # Bash not allowed where a pair may grant it (so the grant shows), allowed elsewhere (so
        # a rewrite runs and shows which one won)
        allowed = not {a, b} & GRANTS
        dims = {"kind": "pair", "first": a, "second": b,
                "finishes_last": "first" if slow_first else "second", "allowed": allowed}  # fmt: skip

        def pair(
            tag: str, a: str = a, b: str = b, slow_first: bool = slow_first
        ) -> tuple[Hook, ...]:
            one = _answer("PreToolUse", a, 0, "stdout", tag)
            two = _answer("PreToolUse", b, 0, "stdout", tag)
            # the two hooks' markers and rewrites must differ: the second's markers end in "x",
            # its rewrite touches "ran3"
            two = tuple(
                x.replace(f"-{tag}", f"-{tag}x").replace("{rewritten}", "{rewritten3}")
                if isinstance(x, str) else x
                for x in two
            )  # fmt: skip
            return (Hook("PreToolUse", one[0], one[1], one[2], delay=SLOW if slow_first else 0),
                    Hook("PreToolUse", two[0], two[1], two[2], delay=0 if slow_first else SLOW))  # fmt: skip

        last = "first-last" if slow_first else "second-last"
        add(f"pair-{a}-then-{b}-{last}", "pair", pair, allowed, dims)
    return cases


def _slug(matcher: str) -> str:
    names = {"": "empty", "*": "star"}
    if matcher in names:
        return names[matcher]
    out = "".join(c if c.isalnum() else "_" for c in matcher)
    return out.strip("_") or "sym"


def batches(cases: list[GenCase], size: int) -> list[list[GenCase]]:
    """Cases grouped for one agent start each (at most ``size``): same host permission;
    ``alone`` cases (their hooks answer every call) only with each other; a case that may end
    the turn (``continue: false``) goes last in its batch, one per batch."""
    out: list[list[GenCase]] = []
    for allowed in (True, False):
        group = [c for c in cases if c.allowed == allowed and not c.alone]
        ending = [c for c in group if _may_end(c)]
        rest = [c for c in group if not _may_end(c)]
        count = max(len(ending), -(-len(group) // size))
        chunks: list[list[GenCase]] = [rest[i::count] for i in range(count)]
        for chunk, last in zip(chunks, ending, strict=False):
            chunk.append(last)
        out.extend(chunk for chunk in chunks if chunk)
        alone = [c for c in cases if c.allowed == allowed and c.alone]
        if alone:
            out.append(alone)
    return out


def _may_end(case: GenCase) -> bool:
    return any("continue" in h.stdout for h in case.hooks)


#: The answers that block a call on their own (a pair of them shows whose message the model gets).
BLOCKING = ("deny", "exit2", "legacy-block", "deny-stray-action")
#: Hermes' own tool names, which a Claude Code matcher also names in hermes-hooks.
HOST_NAMES = ("terminal",)


def expected_difference(case: GenCase) -> str | None:
    """The named difference (``DIFFERENCES``) a case shows by design, from its dimensions."""
    d = case.dims
    if case.kind == "pre" and d["shape"] == "continue-false" and d["exit"] != MISSING:
        # stdout is read whatever the exit code: Claude Code does not block, hermes-hooks does
        return "continue-false-blocks" if d["stream"] != "stderr" else None
    if case.kind == "pair" and "continue-false" in (d["first"], d["second"]):
        return "continue-false-blocks"
    if case.kind == "pair" and d["first"] == d["second"] == "rewrite":
        # Claude Code runs the rewrite of the hook that finished last
        return "rewrite-order" if d["finishes_last"] == "first" else None
    if case.kind == "pair" and d["first"] in BLOCKING and d["second"] in BLOCKING:
        # Claude Code shows the message of the hook that finished last
        return "first-block-message" if d["finishes_last"] == "second" else None
    if case.kind == "matcher" and d["matcher"] in HOST_NAMES:
        return "host-tool-names"
    if case.kind == "permission" and d["shape"] == "legacy-block" and d["stream"] != "stderr":
        return "permission-top-level-deny"
    undecided = d.get("stream") == "stderr" or d.get("shape") in ("empty", "invalid-json", "plain")
    if (
        case.kind == "permission"
        and d["exit"] == 2
        and "ORC-" in case.hooks[0].stderr
        and undecided
    ):
        return "permission-exit2-stderr"
    return None


CASES = generate()


# ---------------------------------------------------------------------- running them


@dataclass
class Ran:
    """One generated case as the real agent ran it (in a batch): its directory, the scripted
    call, the run it was part of and the payloads of its own call."""

    case: GenCase
    dir: Path
    scripted: dict[str, Any]
    run: Any  # oracle_agents.AgentRun
    payloads: list[dict[str, Any]]
    batch: int


def _mine(case: GenCase, payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for p in payloads:
        command = (p.get("tool_input") or {}).get("command")
        if isinstance(command, str) and case.mark() in command:
            out.append(p)
    return out


def run_batch(binary: Path, root: Path, number: int, batch: list[GenCase]) -> list[Ran]:
    """One ``claude -p`` start for ``batch``: one Bash call per case, every case's hooks (its
    scripts answer only their own call) plus a recording hook on each event."""
    from oracle_agents import run_claude
    from oracle_servers import ToolCall

    d = root / f"batch{number}"
    d.mkdir(parents=True)
    rec = d / "payloads.jsonl"
    hooks: dict[str, list[dict[str, Any]]] = {}
    scripted = {}
    for case in batch:
        cdir = d / case.tag
        cdir.mkdir()
        own = case.settings(cdir)
        (cdir / "settings.json").write_text(json.dumps({"hooks": own}, indent=2))
        for event, groups in own.items():
            hooks.setdefault(event, []).extend(groups)
        scripted[case.tag] = {"command": case.command(cdir), "description": "oracle"}
    # the events of a call fire one after another: each appends one whole line
    record = f"{{ cat; echo; }} >> {shlex.quote(str(rec))}"
    for event in ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"):
        hooks.setdefault(event, []).append({"hooks": [{"type": "command", "command": record}]})
    calls = [ToolCall("Bash", scripted[c.tag]) for c in batch]
    allowed = batch[0].allowed
    run = run_claude(binary, d, {"hooks": hooks}, calls, allowed_tools="Bash" if allowed else None,
                     record=rec)  # fmt: skip
    return [Ran(c, d / c.tag, scripted[c.tag], run, _mine(c, run.payloads), number) for c in batch]


def run_all(
    binary: Path, root: Path, cases: list[GenCase], size: int, workers: int
) -> dict[str, Ran]:
    """Every case, batched and ``workers`` agents at a time. A case whose call the agent never
    made (an earlier case of its batch ended the turn) is run again in a later batch."""
    from concurrent.futures import ThreadPoolExecutor

    done: dict[str, Ran] = {}
    todo = list(cases)
    number = 0
    with ThreadPoolExecutor(workers) as pool:
        while todo:
            plan = batches(todo, size)
            runs = list(pool.map(lambda nb: run_batch(binary, root, *nb),
                                 enumerate(plan, start=number)))  # fmt: skip
            number += len(plan)
            todo = []
            for batch in runs:
                for i, ran in enumerate(batch):
                    reached = any(p.get("hook_event_name") == "PreToolUse" for p in ran.payloads)
                    if reached or i == 0:
                        done[ran.case.id] = ran
                    else:
                        todo.append(ran.case)
    return done
