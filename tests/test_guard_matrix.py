"""The guard matrix (docs/security.md, "The guard matrix"): every way to declare a guard x every
fault x declared ``fail_closed`` or not. A guard never goes quiet: the call is blocked, or the
guard was not declared fail-closed and its problem is reported (a WARNING naming it, what the
terminal shows) and ``hermes hooks doctor`` exits 1 naming it.

The ways and faults are declared once in tests/guard_matrix.py; a cell whose fault has no
meaning for its way is skipped with the reason in its id's skip message. The standalone runtime
runs in-process with real files, processes and servers (``hermes_hooks.load()``, the
``hermes hooks doctor`` command); the Hermes Agent bridge runs a sample through the real
``hermes chat`` (slow).
"""

from __future__ import annotations

import importlib
import json
import logging
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from guard_matrix import (
    FAULTS,
    GATEWAY_CONTEXT,
    GATEWAY_EVENT,
    PROBE,
    REASON,
    WAYS,
    Fault,
    Scene,
    Way,
    cells,
    limit,
)
from shell_helpers import keep_machine_plugins_out

import hermes_hooks
from hermes_hooks.cli import hoist_global_options, hooks_group

#: Cells that fail today: (way, fault, fail_closed or None for both) -> the exact problem.
KNOWN: dict[tuple[str, str, bool | None], str] = {}


def _params() -> list[Any]:
    out = []
    for way, fault, fail_closed, why in cells():
        variant = "fail_closed" if fail_closed else "open"
        marks: list[Any] = []
        if why is not None:
            marks.append(pytest.mark.skip(reason=f"{way.name} x {fault.name}: {why}"))
        else:
            known = KNOWN.get((way.name, fault.name, fail_closed)) or KNOWN.get(
                (way.name, fault.name, None)
            )
            if known:
                marks.append(pytest.mark.xfail(strict=True, reason=known))
        out.append(
            pytest.param(
                way, fault, fail_closed, id=f"{way.name}-{fault.name}-{variant}", marks=marks
            )  # fmt: skip
        )
    return out


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in ("HERMES_HOME", "HERMES_SAFE_MODE", "HERMES_HOOKS_DISABLED", "HERMES_HOOKS_PLUGINS",
                "HERMES_ENABLE_PROJECT_PLUGINS", "HERMES_ACCEPT_HOOKS", "CODEX_HOME",
                "COPILOT_HOME", "OPENAI_BASE_URL", "OPENAI_API_KEY"):  # fmt: skip
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    monkeypatch.delenv("PWD", raising=False)
    return tmp_path


def _entry_points_on(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    """Put the scene's distributions on sys.path with entry points on; the machine's own
    plugins stay out (disabled by name, never imported)."""
    keep_machine_plugins_out(monkeypatch)
    monkeypatch.delenv("HERMES_HOOKS_DISABLE_AUTOLOAD", raising=False)
    for site, modules in scene.sites:
        monkeypatch.syspath_prepend(str(site))
        for module in modules:
            sys.modules.pop(module, None)
    importlib.invalidate_caches()


def fire(hooks: Any, scene: Scene) -> tuple[bool, str]:
    """Fire the probe: (blocked, the message)."""
    if scene.event == GATEWAY_EVENT:
        result = hooks.emit_sync(GATEWAY_EVENT, GATEWAY_CONTEXT)
        return result.decision == "deny", str(result.message or "")
    decision = hooks.pre_tool_call(**PROBE)
    return bool(decision.blocked), str(decision.message or "")


def doctor(scene: Scene) -> tuple[int, str]:
    result = CliRunner().invoke(hooks_group, hoist_global_options(["--home", str(scene.home),
                                                                   "doctor"]))  # fmt: skip
    return result.exit_code, result.output


def run_cell(
    way: Way, fault: Fault, fail_closed: bool, root: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    with ExitStack() as stack:
        scene = Scene(root, stack, timeout=limit(fault.name))
        way.write(scene, fault.name, fail_closed)
        scene.write_config()
        if scene.sites:
            _entry_points_on(scene, monkeypatch)
        eps = bool(scene.sites)
        if scene.after_approval:
            hermes_hooks.load(scene.home, accept_hooks=True, entry_points=eps).close()
            for change in scene.after_approval:
                change()
        with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
            accept = scene.accept and not scene.after_approval  # an edit is not re-approved
            hooks = hermes_hooks.load(scene.home, accept_hooks=accept, entry_points=eps, ask=False)
            try:
                blocked, message = fire(hooks, scene)
            finally:
                hooks.close()
        named = [n for n in scene.names]
        if fault.name == "healthy":
            assert blocked and REASON in message, (blocked, message)
            return
        # under a fault the guard's own answer never decides: a block comes from the runtime
        # (a cell whose fault did not happen would block with the guard's reason and pass)
        assert REASON not in message, f"the fault did not happen: the guard answered {message!r}"
        if fail_closed:
            assert blocked, f"a fail_closed guard let the call through: {message!r}"
            return
        if blocked:
            return
        reports = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert any(n in m for m in reports for n in named), (
            f"the guard went quiet: nothing reported names {named}; reports: {reports}"
        )
        code, out = doctor(scene)
        assert code == 1 and any(n in out for n in named), (
            f"doctor exited {code}, naming {named}: {[n in out for n in named]}\n{out}"
        )


@pytest.mark.parametrize(("way", "fault", "fail_closed"), _params())
def test_a_guard_never_goes_quiet(
    way: Way, fault: Fault, fail_closed: bool, isolated: Path,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    run_cell(way, fault, fail_closed, isolated, monkeypatch, caplog)


def test_the_matrix_covers_every_way_and_fault() -> None:
    ways = {w.name for w in WAYS}
    assert {
        "python-plugin", "plugin-dir", "entry-point", "config-command", "config-http",
        "config-prompt", "config-worker", "config-builtin", "claude-settings", "codex-hooks",
        "gemini-settings", "cursor-hooks", "copilot-hooks", "gateway-hook", "plugins-required",
    } <= ways  # fmt: skip
    assert [f.name for f in FAULTS][1:] == [
        "crash", "exit-garbage", "timeout", "slow-drip", "malformed-reply", "missing-script",
        "edited", "unapproved", "typo", "refused-url",
    ]  # fmt: skip
    # every way runs its healthy control and at least half of the faults
    for way in WAYS:
        applicable = [f for f in FAULTS if way.skip(f.name) is None]
        assert applicable[0].name == "healthy" and len(applicable) >= len(FAULTS) // 2, way


# ---------------------------------------------------------------------- the entry point, installed


ENTRY_POINT_GUARD = '''\
"""A guard installed as a distribution (the guard matrix): its fault is read at each call
from $HERMES_HOME/matrix-fault (healthy when there is none)."""
import os, sys, time

from hermes_hooks import hookimpl


@hookimpl
def pre_tool_call(tool_name, args):
    path = os.path.join(os.environ.get("HERMES_HOME", ""), "matrix-fault")
    fault = open(path).read().strip() if os.path.exists(path) else "healthy"
    if fault == "crash":
        raise RuntimeError("guard: internal error")
    if fault == "exit-garbage":
        print("<<garbage>> not an answer")
        sys.exit(3)
    if fault == "malformed-reply":
        return {"action": "blok", "message": "matrix guard: no rm"}
    if fault == "timeout":
        time.sleep(5)
    return {"action": "block", "message": "matrix guard: no rm"}
'''


@pytest.fixture(scope="module")
def guard_wheel(venvs: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The entry-point guard, built into a wheel (once per run)."""
    src = tmp_path_factory.mktemp("matrix-ep-guard")
    (src / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "matrix-ep-guard"\nversion = "1.0"\n'
        '[project.entry-points.hermes_hooks]\nmatrix-ep = "matrix_ep_guard"\n'
        '[tool.setuptools]\npy-modules = ["matrix_ep_guard"]\n'
    )
    (src / "matrix_ep_guard.py").write_text(ENTRY_POINT_GUARD)
    return venvs.wheel("matrix-ep-guard", src)


@pytest.fixture(scope="module")
def bridged(venvs: Any, guard_wheel: Path) -> Any:
    """Hermes Agent 0.19 with hermes-hooks and the entry-point guard installed."""
    from venvs import HERMES_AGENT

    return venvs.get([HERMES_AGENT], [str(venvs.hermes_hooks_wheel())], [str(guard_wheel)])


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["healthy", "crash", "malformed-reply", "timeout"])
@pytest.mark.parametrize("fail_closed", [True, False], ids=["fail_closed", "open"])
def test_an_installed_entry_point_guard_never_goes_quiet(
    bridged: Any, tmp_path: Path, fault: str, fail_closed: bool
) -> None:
    """The entry-point way with a real wheel in a venv: load() in that venv, and doctor."""
    home = tmp_path / "home"
    home.mkdir()
    config: dict[str, Any] = {"plugins": {"hook_callback_timeout": 0.25}}
    if fail_closed:
        config["fail_closed_events"] = ["pre_tool_call"]
    (home / "config.yaml").write_text(json.dumps(config))
    if fault != "healthy":
        (home / "matrix-fault").write_text(fault)
    fire = (
        "import json, sys, hermes_hooks\n"
        "hooks = hermes_hooks.load(sys.argv[1])\n"
        "d = hooks.pre_tool_call(tool_name='terminal', args={'command': 'rm -rf /tmp/x'})\n"
        "print(json.dumps({'blocked': d.blocked, 'message': d.message}))\n"
    )
    env = {"HERMES_HOME": str(home), "HOME": str(tmp_path)}
    out = bridged.py(fire, str(home), cwd=tmp_path, **env)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if fault == "healthy" or fail_closed:
        assert result["blocked"], (result, out.stderr)
        return
    if result["blocked"]:
        return
    assert "matrix-ep" in out.stderr, out.stderr
    doc = bridged.cli("hermes-hooks", "--home", str(home), "doctor", cwd=tmp_path, check=False,
                      **env)  # fmt: skip
    assert doc.returncode == 1 and "matrix-ep" in doc.stdout, doc.stdout + doc.stderr


# ---------------------------------------------------------------------- under the real hermes chat

#: One cell per way (and a few faults) run through the real `hermes chat`: (way, fault,
#: fail_closed). The gateway hook has no cell: `hermes chat` fires no gateway event.
BRIDGE_SAMPLE = [
    ("plugin-dir", "crash", True),
    ("plugin-dir", "crash", False),
    ("config-command", "timeout", True),
    ("config-command", "unapproved", False),
    ("config-command", "edited", True),
    ("config-http", "malformed-reply", True),
    ("config-prompt", "crash", False),
    ("config-worker", "crash", True),
    ("config-builtin", "malformed-reply", True),
    ("claude-settings", "exit-garbage", True),
    ("claude-settings", "missing-script", False),
    ("codex-hooks", "crash", True),
    ("gemini-settings", "typo", True),
    ("cursor-hooks", "timeout", True),
    ("copilot-hooks", "malformed-reply", False),
    ("plugins-required", "missing-script", True),
]
#: Bridge cells that fail today: (way, fault, fail_closed) -> the exact problem.
BRIDGE_KNOWN: dict[tuple[str, str, bool], str] = {}


def _bridge_params() -> list[Any]:
    ways = {w.name: w for w in WAYS}
    faults = {f.name: f for f in FAULTS}
    out = []
    for name, fault, fail_closed in BRIDGE_SAMPLE:
        known = BRIDGE_KNOWN.get((name, fault, fail_closed))
        marks = [pytest.mark.xfail(strict=True, reason=known)] if known else []
        variant = "fail_closed" if fail_closed else "open"
        out.append(pytest.param(ways[name], faults[fault], fail_closed, marks=marks,
                                id=f"{name}-{fault}-{variant}"))  # fmt: skip
    return out


@dataclass
class ChatCell:
    """What one bridge cell's ``hermes chat`` run did: whether the call was blocked, what the
    terminal showed, the names its reports must carry, and ``hermes-hooks doctor`` (run only
    when the call ran and the guard was open)."""

    blocked: bool = False
    results: list[Any] = field(default_factory=list)
    shown: str = ""
    names: list[str] = field(default_factory=list)
    doctor: subprocess.CompletedProcess[str] | None = None
    error: BaseException | None = None


def _chat_cell(bridged: Any, root: Path, way: Way, fault: Fault, fail_closed: bool) -> ChatCell:
    from test_hermes_agent_bridge import Model
    from venvs import RUN_HERMES

    with ExitStack() as stack:
        scene = Scene(root, stack, timeout=limit(fault.name))
        way.write(scene, fault.name, fail_closed)
        target = root / "touched"
        model = Model(f"touch {target}")
        stack.callback(model.close)
        scene.config["model"] = {"provider": "custom", "default": "fake-model",
                                 "base_url": model.url, "api_key": "sk-test"}  # fmt: skip
        enabled = ["hermes-hooks"] + [n for n in scene.names if n.startswith("matrix-plugin")]
        scene.config.setdefault("plugins", {})["enabled"] = enabled
        env = bridged.env(HERMES_HOME=str(scene.home), HOME=str(scene.user))
        if scene.after_approval:
            scene.write_config()
            bridged.cli("hermes-hooks", "--home", str(scene.home), "approve", "--all",
                        cwd=scene.project, HERMES_HOME=str(scene.home), HOME=str(scene.user))  # fmt: skip
            for change in scene.after_approval:
                change()
        elif scene.accept:
            scene.config["hooks_auto_accept"] = True
        scene.write_config()
        chat = [str(bridged.python), "-c", RUN_HERMES, "chat", "-q", "run it", "--toolsets",
                "terminal", "-Q"]  # fmt: skip
        out = subprocess.run(chat, cwd=scene.project, env=env, capture_output=True, text=True,
                             timeout=180, stdin=subprocess.DEVNULL)  # fmt: skip
        results = model.tool_results()
        cell = ChatCell(
            blocked=not target.exists() and bool(results),  # the model heard; nothing ran
            results=results,
            shown=out.stdout + out.stderr,
            names=list(scene.names),
        )
        if not cell.blocked and not fail_closed and fault.name != "healthy":
            cell.doctor = bridged.cli("hermes-hooks", "--home", str(scene.home), "doctor",
                                      cwd=scene.project, check=False, HERMES_HOME=str(scene.home),
                                      HOME=str(scene.user))  # fmt: skip
        return cell


#: ``hermes chat`` runs side by side: each mostly waits (on its imports, its hooks' time limits,
#: the fake model), and each cell has its own home, project, model server and hooks.
CHAT_WORKERS = 3


@pytest.fixture(scope="module")
def chat_cells(bridged: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, ChatCell]:
    """Every bridge cell's ``hermes chat`` run, ``CHAT_WORKERS`` at a time; cell id -> what it
    did (a run that raised keeps its exception, raised again by that cell's test)."""

    def one(param: Any) -> tuple[str, ChatCell]:
        way, fault, fail_closed = param.values
        try:
            root = tmp_path_factory.mktemp(f"chat-{param.id}")
            return param.id, _chat_cell(bridged, root, way, fault, fail_closed)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the cell's own test
            return param.id, ChatCell(error=exc)

    with ThreadPoolExecutor(CHAT_WORKERS) as pool:
        return dict(pool.map(one, _bridge_params()))


@pytest.mark.slow
@pytest.mark.parametrize(("way", "fault", "fail_closed"), _bridge_params())
def test_a_guard_never_goes_quiet_under_hermes_chat(
    chat_cells: dict[str, ChatCell], request: pytest.FixtureRequest, way: Way, fault: Fault,
    fail_closed: bool,
) -> None:  # fmt: skip
    cell = chat_cells[request.node.callspec.id]
    if cell.error is not None:
        raise cell.error
    shown, results = cell.shown, cell.results
    if fault.name == "healthy" or fail_closed:
        assert cell.blocked, f"the call ran under hermes chat: {results}\n{shown[-3000:]}"
        return
    if cell.blocked:
        return
    assert any(n in shown for n in cell.names), (
        f"hermes chat let the call run and said nothing naming {cell.names}:\n{shown[-3000:]}"
    )
    doc = cell.doctor
    assert doc is not None
    assert doc.returncode == 1 and any(n in doc.stdout for n in cell.names), doc.stdout
