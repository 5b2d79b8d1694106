"""The example plugin package, built and pip-installed for real.

``examples/hermes-hook-example`` is built as a wheel and installed, together with a wheel of this
repository (a non-editable install, which also proves the ``package-dir`` mapping), into a fresh
virtual environment. There its entry point must be found by ``hermes hooks list`` and by
``hermes_hooks.load()``. A second venv gets ``pip install -e`` of the repository and must give the
same import paths.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from venvs import EXAMPLE, REPO

import hermes_hooks

pytestmark = pytest.mark.slow

LOAD_SNIPPET = """
import json, sys
import hermes_hooks, hermes_hook_example
hooks = hermes_hooks.load(home=sys.argv[1])
block = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /"}, session_id="s1")
other = hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf /tmp/x"})
print(json.dumps({
    "block": [block.action, block.message, block.source],
    "other": [other.action, other.message, other.source],
    "context": hooks.pre_llm_call(session_id="s1", user_message="hi", is_first_turn=True),
    "expected_message": hermes_hook_example.BLOCK_MESSAGE,
    "expected_context": hermes_hook_example.CONTEXT_LINE,
    "module_file": hermes_hook_example.__file__,
}))
"""

IMPORT_PATHS = """
import importlib, json
import hermes_hooks.hookspecs, hermes_hooks.builtin_plugins
out = {
    "hookspecs": hermes_hooks.hookspecs.__file__,
    "builtin_plugins": hermes_hooks.builtin_plugins.__file__,
    "top_level": {},
}
for name in ("hookspecs", "builtin_plugins"):
    try:
        importlib.import_module(name)
        out["top_level"][name] = "imported"
    except ImportError as exc:
        out["top_level"][name] = type(exc).__name__
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def installed(venvs):
    """A clean venv with wheels of hermes-hooks and of the example plugin (deps from PyPI)."""
    return venvs.get([str(venvs.hermes_hooks_wheel()), str(venvs.example_wheel())])


@pytest.fixture(scope="module")
def editable(editable_venv):
    """A clean venv with ``pip install -e`` of this repository (shared with the docs' tests)."""
    return editable_venv


@pytest.fixture
def home(tmp_path):
    path = tmp_path / "hermes-home"
    path.mkdir()
    return path


def example_rows(venv, home, **env):
    out = venv.cli("hermes", "hooks", "list", "--json", HERMES_HOME=str(home), **env)
    return [r for r in json.loads(out.stdout) if r["name"] == "example"]


def test_wheel_installs_nothing_named_hookspecs_or_builtin_plugins_at_top_level(installed):
    top = installed.top_level_names()
    assert "hermes_hooks" in top and "hermes_hook_example" in top
    assert not {"hookspecs", "builtin_plugins"} & top


def test_wheel_install_imports_specs_and_builtins_inside_the_package(installed):
    out = json.loads(installed.py(IMPORT_PATHS).stdout)
    package = installed.site_packages / "hermes_hooks"
    assert out["hookspecs"] == str(package / "hookspecs" / "__init__.py")
    assert out["builtin_plugins"] == str(package / "builtin_plugins" / "__init__.py")
    assert out["top_level"] == {
        "hookspecs": "ModuleNotFoundError",
        "builtin_plugins": "ModuleNotFoundError",
    }


def test_hooks_list_json_shows_the_installed_example(installed, home):
    rows = example_rows(installed, home)
    assert {r["event"] for r in rows} == {"pre_tool_call", "pre_llm_call"}
    for row in rows:
        assert row["source"] == "entrypoint"
        assert row["status"] == "active"
        assert row["error"] is None
        assert row["version"] == "0.1.0"


def test_load_blocks_rm_rf_root_through_the_installed_entry_point(installed, home):
    out = json.loads(installed.py(LOAD_SNIPPET, str(home), cwd=home).stdout)
    # The module came from the installed wheel, not from the repository's examples/ directory.
    assert out["module_file"].startswith(str(installed.site_packages))
    action, message, source = out["block"]
    assert (action, source) == ("block", "example")
    assert message == out["expected_message"] and "rm -rf /" in message
    assert out["other"] == [None, None, None]
    assert out["context"] == out["expected_context"]


def test_disabled_example_is_listed_as_disabled_and_does_not_block(installed, home):
    rows = example_rows(installed, home, HERMES_HOOKS_DISABLED="example")
    assert [(r["event"], r["status"], r["source"]) for r in rows] == [
        (None, "disabled", "entrypoint")
    ]
    assert "HERMES_HOOKS_DISABLED" in rows[0]["error"]
    code = (
        "import json, sys, hermes_hooks\n"
        "d = hermes_hooks.load().pre_tool_call(tool_name='terminal', args={'command': 'rm -rf /'})\n"
        "print(json.dumps([d.action, 'hermes_hook_example' in sys.modules]))"
    )
    out = installed.py(code, cwd=home, HERMES_HOME=str(home), HERMES_HOOKS_DISABLED="example")
    assert json.loads(out.stdout) == [None, False]  # not blocked, and never imported


def test_version_and_missing_agent_message_from_our_hermes_script(installed, home):
    version = installed.cli("hermes", "--version", HERMES_HOME=str(home))
    assert version.stdout.strip() == f"hermes-hooks {hermes_hooks.__version__}"
    chat = installed.cli("hermes", "chat", check=False, HERMES_HOME=str(home))
    assert chat.returncode == 2
    assert "Hermes Agent, which is not installed" in chat.stderr
    assert "hermes-hooks --help" in chat.stderr


def test_editable_install_gives_the_same_import_paths(editable):
    out = json.loads(editable.py(IMPORT_PATHS).stdout)
    assert out["hookspecs"] == str(REPO / "hookspecs" / "__init__.py")
    assert out["builtin_plugins"] == str(REPO / "builtin_plugins" / "__init__.py")
    assert out["top_level"] == {
        "hookspecs": "ModuleNotFoundError",
        "builtin_plugins": "ModuleNotFoundError",
    }
    assert not {"hookspecs", "builtin_plugins"} & editable.top_level_names()


def test_example_packages_own_tests_pass(tmp_path):
    """The example's tests (with the ``hermes_hooks.testing`` fixtures) run green from its own
    directory, as its author would run them."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path}"],
        cwd=EXAMPLE,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert " passed" in out.stdout and "failed" not in out.stdout
