"""The PluginContext surface: registries, host capabilities, config, profile."""

from __future__ import annotations

import pytest

import hermes_hooks
from hermes_hooks import HostUnavailable
from hermes_hooks.context import PluginContext
from hermes_hooks.hooks import Hooks


@pytest.fixture
def hooks(tmp_path):
    return Hooks(
        home=tmp_path / ".hermes",
        config={"plugins": {"entries": {"p": {"level": 3}}}, "x": {"y": 1}},
    )


def commit(ctx):
    ctx.commit(source="python")


def test_registries_are_filled_on_commit(hooks, tmp_path):
    skill_dir = tmp_path / "skill"
    skill_dir.mkdir()
    (skill_dir / "SKILL.md").write_text("# skill\n")
    single = tmp_path / "other.md"
    single.write_text("# other\n")

    def tool(args, **kw):
        return "t"

    ctx = PluginContext(hooks, "p")
    ctx.register_tool("my_tool", "mine", {"name": "my_tool"}, tool, description="d")
    ctx.register_command("/Do Thing", lambda raw: raw, description="does")
    ctx.register_cli_command("mycli", "help", lambda parser: None)
    ctx.register_skill("dirskill", skill_dir)
    ctx.register_skill("fileskill", single)
    ctx.register_middleware("request", lambda **kw: None)
    ctx.register_middleware("request", lambda **kw: None)
    assert "my_tool" not in hooks.tools  # nothing is visible before register() returns
    commit(ctx)
    assert hooks.tools["my_tool"].handler is tool and hooks.tools["my_tool"].plugin == "p"
    assert hooks.tools["my_tool"]["toolset"] == "mine"
    assert hooks.commands["do-thing"].handler("x") == "x"
    assert hooks.cli_commands["mycli"]["help"] == "help"
    assert hooks.skills["p:dirskill"].handler == skill_dir / "SKILL.md"
    assert hooks.skills["p:fileskill"]["path"] == single
    assert len(hooks.middleware["request"]) == 2
    hooks.unregister("p")
    assert "my_tool" not in hooks.tools and "request" not in hooks.middleware


def test_register_skill_rejects_bad_names_and_missing_files(hooks, tmp_path):
    ctx = PluginContext(hooks, "p")
    with pytest.raises(ValueError):
        ctx.register_skill("a:b", tmp_path)
    with pytest.raises(FileNotFoundError):
        ctx.register_skill("ok", tmp_path / "missing")


def test_unknown_register_method_is_kept_as_extension(hooks):
    ctx = PluginContext(hooks, "p")
    engine = object()
    ctx.register_context_engine(engine)
    ctx.register_platform(name="irc", adapter=object)
    commit(ctx)
    assert hooks.extensions["context_engine"][0].handler is engine
    assert hooks.extensions["platform"][0].handler["name"] == "irc"
    with pytest.raises(AttributeError):
        ctx.not_a_method  # noqa: B018


def test_host_capabilities_fail_clearly_without_host(hooks):
    ctx = PluginContext(hooks, "p")
    with pytest.raises(HostUnavailable, match="inject_message.*set_host"):
        ctx.inject_message("hi")
    with pytest.raises(HostUnavailable):
        ctx.dispatch_tool("terminal", {})
    with pytest.raises(HostUnavailable):
        ctx.llm  # noqa: B018


def test_host_capabilities_reach_the_host(hooks):
    class FakeHost:
        llm = "the-llm"

        def __init__(self):
            self.injected = []

        def inject_message(self, content, role="user"):
            self.injected.append((role, content))
            return True

        def dispatch_tool(self, tool_name, args, **kwargs):
            return f"{tool_name}:{args}"

    host = FakeHost()
    hooks.set_host(host)
    ctx = PluginContext(hooks, "p")
    assert ctx.inject_message("hi", role="system") is True
    assert host.injected == [("system", "hi")]
    assert ctx.dispatch_tool("terminal", {"a": 1}) == "terminal:{'a': 1}"
    assert ctx.llm == "the-llm"


def test_config_access(hooks):
    ctx = PluginContext(hooks, "p")
    assert ctx.config["x"] == {"y": 1}
    assert ctx.get_config("x.y") == 1
    assert ctx.get_config("x.z", "dflt") == "dflt"
    assert ctx.get_config() == {"level": 3}


@pytest.mark.parametrize(
    ("home", "profile"),
    [("profiles/work", "work"), ("elsewhere", "custom")],
)
def test_profile_name(tmp_path, home, profile):
    hooks = Hooks(home=tmp_path / home)
    assert PluginContext(hooks, "p").profile_name == profile


def test_profile_name_default(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    hooks = Hooks(home=tmp_path / ".hermes")
    assert PluginContext(hooks, "p").profile_name == "default"


def test_manifest_is_visible(home, plugin_dir):
    plugin_dir(
        "withmanifest",
        "def register(ctx):\n    ctx.register_command('ver', lambda raw: ctx.manifest['version'])\n",
        manifest="name: withmanifest\nversion: '2.5'\ndescription: d\n",
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    assert hooks.commands["ver"].handler("") == "2.5"
    assert hooks.records["withmanifest"].version == "2.5"


def test_register_hook_accepts_aliases(hooks):
    ctx = PluginContext(hooks, "p")
    ctx.register_hook("PreToolUse", lambda **kw: {"action": "block", "message": "aliased"})
    commit(ctx)
    assert hooks.pre_tool_call(tool_name="t", args={}).message == "aliased"


def test_event_bus_listeners_from_plugins(hooks):
    ctx = PluginContext(hooks, "p")
    ctx.events.on("memory:saved", lambda payload: f"got {payload}")
    commit(ctx)
    other = PluginContext(hooks, "q")
    assert other.events.emit("memory:saved", 1) == ["got 1"]
    hooks.unregister("p")  # its listeners go with it
    assert other.events.emit("memory:saved", 1) == []


def test_plugin_with_only_tools_is_listed(home, plugin_dir):
    plugin_dir(
        "toolsonly", "def register(ctx):\n    ctx.register_tool('t1', 'set', {}, lambda a: '')\n"
    )
    plugin_dir("nothing", "def register(ctx):\n    pass\n")
    rows = {r["name"]: r for r in hermes_hooks.load(home, entry_points=False).rows()}
    assert rows["toolsonly"]["event"] is None and rows["toolsonly"]["status"] == "active"
    assert rows["toolsonly"]["registered"] == {"tools": ["t1"]}
    assert rows["nothing"]["registered"] == {}
