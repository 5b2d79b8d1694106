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
    code = "from hermes_hooks.handover import script_problem; print(script_problem())"
    assert both.py(code).stdout.strip() == "None"
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
