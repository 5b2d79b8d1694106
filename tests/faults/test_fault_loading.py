"""Bad plugin code at load time costs only that plugin: ``load()`` never raises for it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import hermes_hooks

ODD = """
class Odd(BaseException):
    pass
raise Odd("at import")
"""

ODD_REGISTER = """
class Odd(BaseException):
    pass
def register(ctx):
    raise Odd("in register")
"""

FINE = """
def register(ctx):
    ctx.register_hook("pre_tool_call", lambda **kw: {"action": "block", "message": "fine"})
"""


@pytest.mark.parametrize("code", [ODD, ODD_REGISTER], ids=["at import", "in register"])
def test_custom_base_exception_from_a_plugin_fails_only_that_plugin(
    home: Path, plugin_dir: Callable[..., Path], code: str
) -> None:
    plugin_dir("aaa_odd", code)
    plugin_dir("zzz_fine", FINE)
    hooks = hermes_hooks.load(home, {}, entry_points=False)
    rows = {r["name"]: r for r in hooks.rows()}
    assert rows["aaa_odd"]["status"] == "failed"
    assert "Odd" in rows["aaa_odd"]["error"]
    assert hooks.pre_tool_call(tool_name="t", args={}).message == "fine"


@pytest.mark.parametrize("name", ["builtin:shell_hooks", "gateway:guard"])
def test_plugin_named_like_a_builtin_is_refused_and_load_goes_on(
    home: Path, plugin_dir: Callable[..., Path], name: str, caplog: pytest.LogCaptureFixture
) -> None:
    plugin_dir("impostor", "def register(ctx):\n    pass\n", manifest=f"name: '{name}'\n")
    guard = home / "hooks" / "guard"
    guard.mkdir(parents=True)
    (guard / "HOOK.yaml").write_text("events: [agent:start]\n")
    (guard / "handler.py").write_text("def handle(e, c):\n    pass\n")
    (home / "config.yaml").write_text("hooks:\n  pre_tool_call:\n    - command: 'true'\n")
    hooks = hermes_hooks.load(home, entry_points=False, accept_hooks=True)
    assert "is reserved" in caplog.text
    rows = {r["name"]: r for r in hooks.rows()}
    assert rows["gateway:guard"]["source"] == "gateway"
    assert any(r["source"] == "shell" for r in hooks.rows())
