"""The `hermes` script hands every command line that is not ours to the real Hermes Agent 0.19
(from PyPI) exactly as typed, keeps `hermes hooks` (with Hermes' aliases and profiles) ours, and
shows both versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from venvs import HERMES_AGENT, RUN_HERMES, Venv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def both(venvs):
    """hermes-agent, then hermes-hooks installed over it (ours owns `bin/hermes`)."""
    venv = venvs.get([HERMES_AGENT], [str(venvs.hermes_hooks_wheel())])
    assert "hermes_hooks" in venv.script("hermes").read_text()
    return venv


@pytest.fixture
def home(tmp_path):
    """An empty HOME: Hermes keeps ~/.hermes there."""
    path = tmp_path / "user"
    path.mkdir()
    return path


def hermes(venv: Venv, home: Path, *args: str, check: bool = True):
    return venv.cli("hermes", *args, check=check, HOME=str(home), HERMES_HOME="")


def agent(venv: Venv, home: Path, *args: str):
    return venv.py(RUN_HERMES, *args, check=False, HOME=str(home), HERMES_HOME="")


def test_profiles_reach_hermes_exactly_as_typed(both, home):
    created = hermes(both, home, "profile", "create", "work", check=False)
    assert created.returncode == 0, created.stderr
    expected = agent(both, home, "-p", "work", "config", "path").stdout.strip()
    assert expected.endswith("profiles/work/config.yaml")
    for args in (("-p", "work"), ("--profile", "work"), ("--profile=work",)):
        out = hermes(both, home, *args, "config", "path")
        assert out.stdout.strip() == expected, (args, out.stderr)


def test_the_kanban_dispatchers_command_line_is_accepted(both, home):
    hermes(both, home, "profile", "create", "work")
    out = hermes(both, home, "-p", "work", "--cli", "--accept-hooks", "chat", "--help", check=False)
    assert out.returncode == 0, out.stderr
    assert "invalid choice" not in out.stderr


def test_version_shows_hermes_then_ours(both, home):
    ours = hermes(both, home, "--version").stdout.strip().splitlines()
    theirs = agent(both, home, "--version").stdout.strip().splitlines()
    assert ours[: len(theirs)] == theirs
    assert ours[-1].startswith("hermes-hooks ")


def test_hermes_hooks_keeps_hermes_aliases_and_profiles(both, home, tmp_path):
    script = tmp_path / "guard.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    hermes(both, home, "profile", "create", "work")
    profile = home / ".hermes" / "profiles" / "work"
    (profile / "config.yaml").write_text(f"hooks:\n  pre_tool_call:\n    - command: {script}\n")
    listed = json.loads(hermes(both, home, "-p", "work", "hooks", "ls", "--json").stdout)
    assert [r["command"] for r in listed if r.get("source") == "shell"] == [str(script)]
    assert hermes(both, home, "hooks", "ls").returncode == 0  # the default profile: no hooks
    hermes(both, home, "-p", "work", "hooks", "approve", str(script))
    out = hermes(both, home, "-p", "work", "hooks", "rm", str(script))
    assert str(script) in out.stdout


def test_other_commands_match_hermes_alone(both, home):
    for args in (("config", "path"), ("--help",), ("profile", "list")):
        ours, theirs = hermes(both, home, *args, check=False), agent(both, home, *args)
        assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), args


def test_a_missing_hermes_script_is_detected_and_the_fix_named(both, home):
    code = "from hermes_hooks.hermes.handover import script_problems; print(script_problems())"
    assert both.py(code).stdout.strip() == "[]"
    script = both.script("hermes")
    saved = script.read_bytes()
    script.unlink()
    try:
        out = both.py(code).stdout.strip()
    finally:
        script.write_bytes(saved)
        script.chmod(0o755)
    assert "pip install --force-reinstall --no-deps hermes-agent" in out


def test_uninstalling_hermes_hooks_then_the_documented_command_restores_hermes(venvs, home):
    from venvs import pip

    venv = venvs.fresh([HERMES_AGENT], [str(venvs.hermes_hooks_wheel())])  # this test changes it
    pip("uninstall", "--yes", "--quiet", "hermes-hooks", python=venv.python)
    # pip removes the script both packages installed: Hermes' `hermes` is gone with ours.
    gone = not venv.script("hermes").exists()
    pip("install", "--quiet", "--force-reinstall", "--no-deps", HERMES_AGENT, python=venv.python)
    out = venv.cli("hermes", "config", "path", HOME=str(home), HERMES_HOME="")
    assert out.stdout.strip().endswith(".hermes/config.yaml")
    assert "hermes_cli" in venv.script("hermes").read_text()
    assert gone, "pip now keeps the script: docs/hermes-agent.md can drop the restore step"


def _doctor(venv: Venv, home: Path, **env: str) -> tuple[int, list[str]]:
    """``hermes-hooks doctor --json``: its exit code and the problems of its `hermes script` check."""
    out = venv.cli("hermes-hooks", "doctor", "--json", check=False, HOME=str(home), HERMES_HOME="",
                   **env)  # fmt: skip
    checks = json.loads(out.stdout)["checks"]
    found = [c["problems"] for c in checks if c["name"] == "hermes script"]
    return out.returncode, found[0] if found else []


def test_hermes_agent_reinstalled_after_us_is_reported_with_the_command_that_fixes_it(venvs, home):
    from venvs import pip

    wheel = str(venvs.hermes_hooks_wheel())
    reinstall = ["--force-reinstall", "--no-deps", HERMES_AGENT]
    venv = venvs.fresh([HERMES_AGENT], [wheel], reinstall)  # this test changes it
    assert "hermes_cli" in venv.script("hermes").read_text()  # Hermes' script won
    # What the user meets: Hermes answers `hermes hooks` itself.
    failed = hermes(venv, home, "hooks", "events", check=False)
    assert failed.returncode != 0 and "invalid choice" in failed.stderr
    code, problems = _doctor(venv, home)
    assert code == 1
    (problem,) = problems
    assert "Hermes Agent's own `hermes` script" in problem and "hermes-hooks ..." in problem
    # Hermes loading the bridge (hermes chat does) says it on the terminal too, once.
    assert _bridge_stderr(venv, home).count(problem) == 1
    fix = problem.split("Put ours back")[1].split("`")[1]
    python, rest = fix.split(" -m pip ", 1)
    assert python == str(venv.python)
    assert rest == f"install --force-reinstall --no-deps {wheel}"
    pip(*rest.split(), python=venv.python)  # the venv has no pip of its own
    assert "pre_tool_call" in hermes(venv, home, "hooks", "events").stdout
    assert _doctor(venv, home)[1] == []
    assert "hermes-hooks:" not in _bridge_stderr(venv, home)
    assert hermes(venv, home, "config", "path").stdout.strip().endswith(".hermes/config.yaml")


def _bridge_stderr(venv: Venv, home: Path) -> str:
    """What Hermes' own plugin discovery, with hermes-hooks enabled, writes on stderr."""
    hermes_home = home / ".hermes"
    hermes_home.mkdir(exist_ok=True)
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: [hermes-hooks]\n")
    code = "from hermes_cli import plugins; plugins.discover_plugins(); plugins.discover_plugins(force=True)"
    return venv.py(code, HOME=str(home), HERMES_HOME=str(hermes_home)).stderr


def test_hermes_agents_own_hermes_first_on_path_is_reported(venvs, both, home):
    plain = venvs.get([HERMES_AGENT])  # Hermes Agent alone, in another environment
    path = f"{plain.bindir}:{both.env()['PATH']}"
    code, problems = _doctor(both, home, PATH=path)
    assert code == 1
    (problem,) = problems
    assert f"{plain.script('hermes')}, Hermes Agent's own script" in problem
    assert f"`{plain.bindir}/python" in problem and " -m pip install hermes-hooks`" in problem
    assert _doctor(both, home)[1] == []  # with this venv's own `hermes` first
