"""Test distribution: a Hermes Agent plugin registered as `pkg:register`."""


def register(ctx):
    def guard(tool_name, args, **kwargs):
        if "DROP TABLE" in str(args.get("sql", "")):
            return {"action": "block", "message": "fakehermes: no DROP TABLE"}
        return None

    ctx.register_hook("pre_tool_call", guard)
    ctx.register_tool("fake_echo", "fake", {"name": "fake_echo"}, lambda args, **kw: "echo")
