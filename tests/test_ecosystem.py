"""The ecosystem commands: `hermes hooks new`, `new-hook`, `install`, `uninstall`."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from venvs import VenvPool, run

from hermes_hooks.cli import hooks_group

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = None  # type: ignore[assignment]


def cli(*args: str, home: Path | None = None) -> object:
    runner = CliRunner()
    prefix = ["--home", str(home)] if home is not None else []
    return runner.invoke(hooks_group, [*prefix, *args], catch_exceptions=False)


# ---------------------------------------------------------------------- new


def test_new_scaffolds_a_complete_package(tmp_path):
    result = cli("new", "Guard", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    pkg = tmp_path / "hermes-hook-guard"
    assert sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*") if p.is_file()) == [
        "README.md",
        "conftest.py",
        "hermes_hook_guard/__init__.py",
        "pyproject.toml",
        "tests/test_plugin.py",
    ]
    assert "hermes hooks install --editable '.[test]'" in result.output
    if tomllib is not None:
        meta = tomllib.loads((pkg / "pyproject.toml").read_text())
        assert meta["project"]["name"] == "hermes-hook-guard"
        assert meta["project"]["entry-points"]["hermes_hooks"] == {"guard": "hermes_hook_guard"}
        assert "hermes-hooks" in meta["project"]["dependencies"]
    module = ast.parse((pkg / "hermes_hook_guard" / "__init__.py").read_text())
    hooked = [
        f.name
        for f in module.body
        if isinstance(f, ast.FunctionDef)
        and any(ast.unparse(d) == "hookimpl" for d in f.decorator_list)
    ]
    assert hooked == ["pre_tool_call", "pre_llm_call"]
    assert 'pytest_plugins = ["hermes_hooks.testing"]' in (pkg / "conftest.py").read_text()
    tests = (pkg / "tests" / "test_plugin.py").read_text()
    assert "register_plugin" in tests and "hermes_hooks" in tests
    for path in pkg.rglob("*"):
        if path.is_file():
            assert "{{" not in path.read_text(), f"unrendered placeholder in {path}"


def test_new_accepts_the_full_distribution_name(tmp_path):
    assert cli("new", "hermes-hook-my-audit", "--dir", str(tmp_path)).exit_code == 0
    pkg = tmp_path / "hermes-hook-my-audit"
    assert (pkg / "hermes_hook_my_audit" / "__init__.py").is_file()
    assert 'my-audit = "hermes_hook_my_audit"' in (pkg / "pyproject.toml").read_text()


@pytest.mark.parametrize("name", ["bad name", "a/b", "émoji", ""])
def test_new_rejects_a_bad_name(tmp_path, name):
    result = CliRunner().invoke(hooks_group, ["new", name, "--dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "use lowercase letters" in result.output
    assert list(tmp_path.iterdir()) == []


def test_new_refuses_to_overwrite(tmp_path):
    (tmp_path / "hermes-hook-guard").mkdir()
    result = CliRunner().invoke(hooks_group, ["new", "guard", "--dir", str(tmp_path)])
    assert result.exit_code == 1
    assert "already exists" in result.output


def test_scaffolded_tests_pass_against_this_checkout(tmp_path):
    cli("new", "guard", "--dir", str(tmp_path))
    pkg = tmp_path / "hermes-hook-guard"
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=pkg,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 passed" in out.stdout


# ---------------------------------------------------------------------- new-hook


PAYLOADS = {
    "rm": {
        "hook_event_name": "pre_tool_call",
        "tool_name": "terminal",
        "tool_input": {"command": "rm -rf / --no-preserve-root"},
        "session_id": "s1",
        "cwd": "/",
        "extra": {},
    },
    "ls": {
        "hook_event_name": "pre_tool_call",
        "tool_name": "terminal",
        "tool_input": {"command": "ls -la"},
        "session_id": "s1",
        "cwd": "/",
        "extra": {},
    },
}


def fire(script: Path, payload: dict, **env: str) -> subprocess.CompletedProcess[str]:
    line = json.dumps(payload, separators=(",", ":")) + "\n"  # the wire: one compact JSON line
    return subprocess.run(
        [str(script)],
        input=line,
        capture_output=True,
        text=True,
        timeout=30,
        env={**_base_env(), **env},
    )


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}


@pytest.mark.parametrize("lang", ["bash", "python"])
def test_new_hook_block_script_speaks_the_wire_protocol(tmp_path, lang):
    home = tmp_path / "home"
    result = cli("new-hook", "no-rm", "--event", "PreToolUse", "--lang", lang, home=home)
    assert result.exit_code == 0, result.output
    script = home / "shell-hooks" / f"no-rm.{'sh' if lang == 'bash' else 'py'}"
    assert script.stat().st_mode & 0o777 == 0o755
    blocked = fire(script, PAYLOADS["rm"])
    assert blocked.returncode == 2
    assert blocked.stderr.strip() == "no-rm: refusing to run rm -rf /"
    allowed = fire(script, PAYLOADS["ls"])
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")
    # The printed config lines are valid YAML, in the Hermes `hooks:` schema, under our event name.
    snippet = result.output.split("Enable it in", 1)[1].split("\n", 1)[1].split("\n\nIt runs", 1)[0]
    assert yaml.safe_load(snippet) == {
        "hooks": {"pre_tool_call": [{"command": str(script), "matcher": "terminal", "timeout": 10}]}
    }
    assert str(home / "config.yaml") in result.output


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
@pytest.mark.parametrize("lang", ["bash", "python"])
def test_new_hook_context_script_answers_with_context(tmp_path, lang):
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "feature-x", str(repo)], check=True)
    result = cli(
        "new-hook", "branch", "--event", "pre_llm_call", "--lang", lang, home=tmp_path / "h"
    )
    assert result.exit_code == 0, result.output
    script = next((tmp_path / "h" / "shell-hooks").iterdir())
    payload = {
        "hook_event_name": "pre_llm_call",
        "tool_name": None,
        "tool_input": None,
        "session_id": "s1",
        "cwd": str(repo),
        "extra": {"user_message": "hi"},
    }
    out = fire(script, payload)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"context": "branch: the current git branch is feature-x."}
    assert "matcher" not in result.output  # not a tool event: no matcher line


@pytest.mark.parametrize("lang", ["bash", "python"])
def test_new_hook_observe_script_logs_the_payload(tmp_path, lang):
    home = tmp_path / "home"
    assert (
        cli("new-hook", "trail", "--event", "on_session_end", "--lang", lang, home=home).exit_code
        == 0
    )
    script = next((home / "shell-hooks").iterdir())
    payload = {
        "hook_event_name": "on_session_end",
        "tool_name": None,
        "tool_input": None,
        "session_id": "s9",
        "cwd": "/",
        "extra": {"completed": True},
    }
    out = fire(script, payload, HERMES_HOME=str(home))
    assert (out.returncode, out.stdout) == (0, "")
    logged = (home / "logs" / "trail.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in logged] == [payload]


def test_new_hook_unknown_event_suggests_the_right_one(tmp_path):
    result = CliRunner().invoke(
        hooks_group, ["--home", str(tmp_path), "new-hook", "x", "--event", "pre_tools_call"]
    )
    assert result.exit_code == 2
    assert "unknown event 'pre_tools_call'" in result.output
    assert "did you mean 'pre_tool_call'" in result.output
    assert not (tmp_path / "shell-hooks").exists()


def test_new_hook_custom_dir_matcher_and_no_overwrite(tmp_path):
    result = cli(
        "new-hook",
        "w",
        "--event",
        "pre_tool_call",
        "--matcher",
        "write_file|patch",
        "--dir",
        str(tmp_path / "s"),
        home=tmp_path,
    )
    assert result.exit_code == 0
    assert "matcher: write_file|patch" in result.output
    again = CliRunner().invoke(
        hooks_group,
        [
            "--home",
            str(tmp_path),
            "new-hook",
            "w",
            "--event",
            "pre_tool_call",
            "--dir",
            str(tmp_path / "s"),
        ],
    )
    assert again.exit_code == 1 and "already exists" in again.output


def test_new_hook_script_runs_through_the_shell_adapter(tmp_path, monkeypatch):
    """End to end, when the shell-hooks built-in is present: the printed config enables it."""
    pytest.importorskip("hermes_hooks.builtin_plugins.shell_hooks")
    import hermes_hooks

    for var in ("HERMES_SAFE_MODE", "HERMES_HOOKS_DISABLED", "HERMES_HOOKS_PLUGINS"):
        monkeypatch.delenv(var, raising=False)
    home = tmp_path / "home"
    result = cli("new-hook", "no-rm", "--event", "pre_tool_call", home=home)
    snippet = result.output.split("Enable it in", 1)[1].split("\n", 1)[1].split("\n\nIt runs", 1)[0]
    (home / "config.yaml").write_text(snippet)
    hooks = hermes_hooks.load(home, accept_hooks=True, entry_points=False)
    decision = hooks.pre_tool_call(
        tool_name="terminal", args={"command": "rm -rf /"}, session_id="s1"
    )
    assert decision.action == "block"
    assert "refusing to run rm -rf /" in decision.message
    assert (
        hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1").action
        is None
    )


# ---------------------------------------------------------------------- install into a real venv


@pytest.mark.slow
def test_install_list_and_uninstall_in_a_venv(venvs: VenvPool, tmp_path: Path) -> None:
    """Scaffold a plugin, `hermes hooks install --editable` it into a copy of the run's venv of
    this checkout (other tests may be reading that one meanwhile), run its generated tests
    there, see it in that venv's `hermes hooks list --json`, then uninstall it (which leaves the
    venv as it was)."""
    venv = venvs.editable(private=True)
    home = tmp_path / "hermes-home"
    home.mkdir()
    env = venv.env(HERMES_HOME=str(home))
    hermes = str(venv.script("hermes"))

    run([hermes, "hooks", "new", "tripwire", "--dir", str(tmp_path)], env=env, cwd=tmp_path)
    pkg = tmp_path / "hermes-hook-tripwire"

    installed = run([hermes, "hooks", "install", "--editable", str(pkg)], env=env, cwd=tmp_path)
    assert "Installed. New plugins and what they registered:" in installed.stdout
    assert "tripwire (hermes-hook-tripwire 0.1.0, entry point hermes_hooks)" in installed.stdout
    assert "pre_tool_call            active" in installed.stdout
    assert "pre_llm_call             active" in installed.stdout

    tests = run(
        [str(venv.python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        env=env,
        cwd=pkg,
    )
    assert "3 passed" in tests.stdout

    listed = json.loads(run([hermes, "hooks", "list", "--json"], env=env, cwd=tmp_path).stdout)
    mine = [r for r in listed if r["name"] == "tripwire"]
    assert [(r["event"], r["source"], r["status"]) for r in mine] == [
        ("pre_tool_call", "entrypoint", "active"),
        ("pre_llm_call", "entrypoint", "active"),
    ]
    # The hooks work from that venv's agent too.
    probe = (
        "import hermes_hooks; h = hermes_hooks.load();"
        "print(h.pre_tool_call(tool_name='terminal', args={'command': 'mkfs /dev/sda'}).source)"
    )
    assert run([str(venv.python), "-c", probe], env=env, cwd=tmp_path).stdout.strip() == "tripwire"

    # The name `list` shows (the plugin's) is enough: it is mapped to its distribution.
    removed = run([hermes, "hooks", "uninstall", "--yes", "tripwire"], env=env, cwd=tmp_path)
    assert "plugin 'tripwire' comes from the distribution 'hermes-hook-tripwire'" in removed.stdout
    assert "Uninstalled. These plugins are gone:" in removed.stdout
    assert "tripwire (hermes-hook-tripwire 0.1.0" in removed.stdout
    listed = json.loads(run([hermes, "hooks", "list", "--json"], env=env, cwd=tmp_path).stdout)
    assert not [r for r in listed if r["name"] == "tripwire"]


def test_install_needs_something_to_install():
    result = CliRunner().invoke(hooks_group, ["install"])
    assert result.exit_code == 2
    assert "--editable PATH" in result.output


def test_install_reports_pip_failure(tmp_path):
    empty = tmp_path / "not-a-package"
    empty.mkdir()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "hermes_hooks",
            "install",
            "--no-build-isolation",
            "--no-deps",
            str(empty),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_base_env(), "PIP_NO_INDEX": "1"},
    )
    assert out.returncode != 0
    assert "pip exited" in out.stderr
