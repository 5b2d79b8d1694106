"""Plugin discovery and loading: sources, order, allow/deny lists, env switches, shadowing."""

from __future__ import annotations

import pytest

import hermes_hooks

MARKING = """
import pathlib
pathlib.Path({marker!r}).write_text("imported")

def register(ctx):
    ctx.register_hook("post_llm_call", lambda **kw: None)
"""


def names(hooks, status="active"):
    return sorted(n for n, r in hooks.records.items() if r.status == status)


def test_disabled_plugin_is_never_imported(home, plugin_dir, tmp_path):
    marker = tmp_path / "imported.txt"
    plugin_dir("secret", MARKING.format(marker=str(marker)))
    (home / "config.yaml").write_text("plugins:\n  disabled: [secret]\n")
    hooks = hermes_hooks.load(home, entry_points=False)
    assert not marker.exists()
    rec = hooks.records["secret"]
    assert rec.status == "disabled" and "plugins.disabled" in rec.error


@pytest.mark.parametrize(
    ("config", "env", "active"),
    [
        ("", {}, ["a", "b"]),
        ("plugins:\n  enabled: [a]\n", {}, ["a"]),
        ("plugins:\n  enabled: [a, b]\n  disabled: [b]\n", {}, ["a"]),
        ("", {"HERMES_HOOKS_DISABLED": "a"}, ["b"]),
        ("", {"HERMES_HOOKS_PLUGINS": "b"}, ["b"]),
        ("", {"HERMES_HOOKS_PLUGINS": ""}, []),
        ("", {"HERMES_SAFE_MODE": "1"}, []),
    ],
)
def test_allow_and_deny(home, plugin_dir, monkeypatch, config, env, active):
    plugin_dir("a", "def register(ctx):\n    pass\n")
    plugin_dir("b", "def register(ctx):\n    pass\n")
    (home / "config.yaml").write_text(config)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    hooks = hermes_hooks.load(home, entry_points=False)
    assert names(hooks) == active


def test_safe_mode_loads_nothing_not_even_records(home, plugin_dir, monkeypatch, tmp_path):
    marker = tmp_path / "m"
    plugin_dir("a", MARKING.format(marker=str(marker)))
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    hooks = hermes_hooks.load(home, entry_points=False)
    assert not marker.exists() and hooks.safe_mode
    assert not hooks.has_hook("post_llm_call")


def test_autoload_off_skips_entry_points(home, fake_site, monkeypatch):
    monkeypatch.setenv("HERMES_HOOKS_DISABLE_AUTOLOAD", "1")
    hooks = hermes_hooks.load(home, builtins=False)
    assert "fakenative" not in hooks.records  # not discovered, not imported, not listed
    assert not hooks.has_hook("pre_llm_call")
    monkeypatch.setenv("HERMES_HOOKS_PLUGINS", "fakenative")
    hooks = hermes_hooks.load(home, builtins=False)
    assert hooks.records["fakenative"].status == "active"


def test_entry_point_can_be_disabled_by_distribution_name(home, fake_site):
    (home / "config.yaml").write_text("plugins:\n  disabled: [fake-native-plugin]\n")
    hooks = hermes_hooks.load(home, builtins=False)
    assert hooks.records["fakenative"].status == "disabled"


def test_directory_plugin_shadows_entry_point(home, fake_site, plugin_dir):
    plugin_dir(
        "fakenative",
        'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: "mine")\n',
    )
    hooks = hermes_hooks.load(home, builtins=False)
    assert hooks.records["fakenative"].source == "directory"
    assert hooks.pre_llm_call(is_first_turn=True) == "mine"
    shadowed = [r for r in hooks.records.values() if r.status == "shadowed"]
    assert len(shadowed) == 1 and shadowed[0].source == "entrypoint"
    rows = hooks.rows()
    assert any(r["status"] == "shadowed" and r["event"] is None for r in rows)


def test_project_plugins_need_opt_in(home, tmp_path, monkeypatch):
    project = tmp_path / "project"
    pdir = project / ".hermes" / "plugins" / "proj"
    pdir.mkdir(parents=True)
    (pdir / "__init__.py").write_text(
        'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: "project")\n'
    )
    monkeypatch.chdir(project)
    assert "proj" not in hermes_hooks.load(home, entry_points=False).records
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    hooks = hermes_hooks.load(home, entry_points=False)
    assert hooks.pre_llm_call() == "project"


def test_call_order_user_then_project_then_entry_points(
    home, tmp_path, monkeypatch, fake_site, plugin_dir
):
    body = 'def register(ctx):\n    ctx.register_hook("pre_tool_call", lambda **kw: None)\n'
    plugin_dir("zeta", body)
    plugin_dir("alpha", body)
    project = tmp_path / "project"
    pdir = project / ".hermes" / "plugins" / "beta"
    pdir.mkdir(parents=True)
    (pdir / "__init__.py").write_text(body)
    monkeypatch.chdir(project)
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    hooks = hermes_hooks.load(home)
    ours = {"alpha", "zeta", "beta", "fakehermes", "fakenative"}  # not the machine's plugins
    rows = hooks.rows(event="pre_tool_call", include_builtin=False)
    order = [r["name"] for r in rows if r["name"] in ours]
    # user dirs alphabetically, then project dirs, then entry points by distribution name.
    assert order == ["alpha", "zeta", "beta", "fakehermes", "fakenative"]


def test_priority_moves_a_plugin_earlier(home, plugin_dir):
    seen = []
    import builtins

    builtins._hermes_test_seen = seen  # type: ignore[attr-defined]
    body = 'import builtins\ndef register(ctx):\n    ctx.register_hook("post_llm_call", lambda **kw: builtins._hermes_test_seen.append({name!r}))\n'
    plugin_dir("a", body.format(name="a"))
    plugin_dir("b", body.format(name="b"), manifest="name: b\npriority: 10\n")
    try:
        hermes_hooks.load(home, entry_points=False).post_llm_call()
    finally:
        del builtins._hermes_test_seen  # type: ignore[attr-defined]
    assert seen == ["b", "a"]


def test_multiple_callbacks_of_one_plugin_keep_registration_order(home, plugin_dir):
    plugin_dir(
        "multi",
        "def register(ctx):\n"
        + "".join(
            f'    ctx.register_hook("pre_llm_call", lambda **kw: "{i}")\n' for i in range(12)
        ),
    )
    assert hermes_hooks.load(home, entry_points=False).pre_llm_call() == "\n\n".join(
        map(str, range(12))
    )


def test_bad_plugin_yaml_is_reported_with_location(home, plugin_dir):
    plugin_dir("bad", "def register(ctx):\n    pass\n", manifest="name: [unclosed\n")
    rec = hermes_hooks.load(home, entry_points=False).records["bad"]
    assert rec.status == "failed" and "plugin.yaml" in rec.error and "line" in rec.error


def test_plugin_without_register_or_impls(home, plugin_dir):
    plugin_dir("empty", "X = 1\n")
    rec = hermes_hooks.load(home, entry_points=False).records["empty"]
    assert rec.status == "failed" and "register(ctx)" in rec.error


def test_native_directory_plugin(home, plugin_dir):
    plugin_dir(
        "native",
        "from hermes_hooks import hookimpl\n\n@hookimpl\ndef pre_llm_call(user_message):\n    return 'native:' + user_message\n",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    assert hooks.pre_llm_call(user_message="x") == "native:x"


def test_native_impl_with_wrong_argument_fails_cleanly(home, plugin_dir):
    plugin_dir(
        "wrongarg",
        "from hermes_hooks import hookimpl\n\n@hookimpl\ndef pre_llm_call(banana):\n    return 'x'\n",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    rec = hooks.records["wrongarg"]
    assert rec.status == "failed" and "banana" in rec.error
    assert not hooks.has_hook("pre_llm_call")


def test_native_impl_of_a_misspelt_event_fails_the_plugin_with_a_did_you_mean(
    home, plugin_dir, caplog
):
    plugin_dir(
        "typo",
        "from hermes_hooks import hookimpl\n\n@hookimpl\ndef pre_llm_call(user_message):\n"
        "    return 'kept?'\n\n@hookimpl\ndef pre_tool_cal(tool_name):\n"
        "    return {'action': 'block', 'message': 'no'}\n",
    )
    with caplog.at_level("WARNING", logger="hermes_hooks"):
        hooks = hermes_hooks.load(home, entry_points=False)
    rec = hooks.records["typo"]
    assert rec.status == "failed"
    assert "pre_tool_cal" in rec.error and "did you mean 'pre_tool_call'" in rec.error
    assert "typo" in caplog.text and "pre_tool_cal" in caplog.text
    assert not hooks.has_hook("pre_llm_call")  # nothing of a failed plugin stays


def test_native_impl_marked_optionalhook_may_name_an_event_this_host_lacks(home, plugin_dir):
    plugin_dir(
        "newer",
        "from hermes_hooks import hookimpl\n\n@hookimpl(optionalhook=True)\n"
        "def on_future_event(x):\n    return None\n\n@hookimpl\n"
        "def pre_llm_call(user_message):\n    return 'newer'\n",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    assert hooks.records["newer"].status == "active"
    assert hooks.pre_llm_call(user_message="x") == "newer"


def test_plugin_yaml_fail_closed(home, plugin_dir):
    plugin_dir(
        "strict",
        'def register(ctx):\n    ctx.register_hook("pre_tool_call", lambda **kw: 1 / 0)\n',
        manifest="name: strict\nfail_closed: true\n",
    )
    d = hermes_hooks.load(home, entry_points=False).pre_tool_call(tool_name="t", args={})
    assert d.action == "block" and d.source == "strict"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("plugins:\n  disabled: [a\n", "line"),
        (b"plugins:\n  disabled: [\xff]\n", "not UTF-8"),
        ("- a list\n", "must be a mapping"),
    ],
)
def test_an_unreadable_config_loads_nothing_and_blocks_tool_calls(home, plugin_dir, text, says):
    plugin_dir("a", 'def register(ctx):\n    ctx.register_hook("pre_llm_call", lambda **kw: "a")\n')
    path = home / "config.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    hooks = hermes_hooks.load(home, entry_points=False)
    # The disabled plugin is not re-enabled: no third-party plugin loads at all.
    assert hooks.pre_llm_call() is None and "a" not in hooks.records
    assert hooks.config_errors and str(path) in hooks.config_errors[0]
    assert says in hooks.config_errors[0]
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"})
    assert decision.blocked and str(path) in decision.message and "doctor" in decision.message
    assert hooks.permission_request(tool_name="terminal").action == "deny"
    assert not hooks.user_prompt_submit(user_message="hi").blocked  # the agent can still talk
    rows = [r for r in hooks.rows() if r["event"] == "pre_tool_call"]
    assert rows[0]["name"] == "builtin:lockdown" and str(path) in rows[0]["error"]


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ({"hook": {}}, "'hook' (did you mean 'hooks'?)"),
        ({"plugin": {}}, "'plugin' (did you mean 'plugins'?)"),
        ({"fail_closed_event": []}, "'fail_closed_event' (did you mean 'fail_closed_events'?)"),
        ({"plugins": {"disable": ["x"]}}, "plugins.'disable' (did you mean 'disabled'?)"),
    ],
)
def test_misspelt_keys_of_ours_are_reported(home, caplog, config, says):
    hooks = hermes_hooks.load(
        home, {**config, "model": "gpt-4", "toolsets": ["x"]}, entry_points=False
    )
    assert len(hooks.config_warnings) == 1 and says in hooks.config_warnings[0]
    assert any(says in r.getMessage() for r in caplog.records)


def test_hermes_own_keys_are_not_reported(home):
    config = {
        "model": "m",
        "toolsets": [],
        "terminal": {},
        "plugins": {"enabled": [], "my-plugin": {}},
    }
    assert hermes_hooks.load(home, config, entry_points=False).config_warnings == []


def test_misspelt_plugin_yaml_keys_are_reported(home, plugin_dir, caplog):
    plugin_dir(
        "p",
        "def register(ctx):\n    pass\n",
        manifest="name: p\nfail_close: true\npriorty: 3\nprovides_hooks: []\n",
    )
    hermes_hooks.load(home, {}, entry_points=False)
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "'fail_close' (did you mean 'fail_closed'?)" in messages
    assert "'priorty' (did you mean 'priority'?)" in messages
    assert "provides_hooks" not in messages


def test_cli_config_yaml_fallback(home):
    (home / "cli-config.yaml").write_text("custom: 1\n")
    assert hermes_hooks.load(home, entry_points=False).config == {"custom": 1}


def test_home_from_environment(home, monkeypatch):
    monkeypatch.setenv("HERMES_HOME", str(home))
    assert hermes_hooks.load(entry_points=False).home == home


def test_an_unconfigured_source_is_not_even_imported(home, tmp_path):
    import subprocess
    import sys

    code = (
        "import sys, hermes_hooks\n"
        f"hermes_hooks.load({str(home)!r}, entry_points=False)\n"
        "print(sorted(m for m in sys.modules if m.startswith('hermes_hooks.builtin_plugins.')))\n"
        "print('asyncio' in sys.modules)\n"
        "print('hermes_hooks.contract' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # the hookspecs need only the dialects' field helpers (in the contract), not the four
    # dialects (which live in the shell hooks: no built-in is imported)
    assert out.stdout.split("\n")[:3] == ["[]", "False", "True"]
    (home / "settings.json").write_text('{"hooks": {}}')
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "hermes_hooks.builtin_plugins.shell_hooks" in out.stdout


def test_a_plugin_installed_after_a_load_is_found_by_the_next_load(home, tmp_path, monkeypatch):
    # The entry-point scan is kept between loads, but not past a change to the path's folders
    # (a host that installs a plugin, then loads again, must see it).
    import importlib
    import sys

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("HERMES_HOOKS_PLUGINS", "latecomer")  # only ours, not the machine's
    hooks = hermes_hooks.load(home, builtins=False)
    assert "latecomer" not in hooks.records
    (site / "latecomer.py").write_text(
        "def register(ctx):\n    ctx.register_hook('post_llm_call', lambda **kw: None)\n"
    )
    info = site / "latecomer-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: latecomer\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[hermes_hooks]\nlatecomer = latecomer\n")
    importlib.invalidate_caches()
    try:
        hooks = hermes_hooks.load(home, builtins=False)
        assert hooks.records["latecomer"].status == "active"
    finally:
        sys.modules.pop("latecomer", None)
