"""Demo plugin in Hermes Agent's style: register(ctx) with callbacks taking **kwargs."""

from .rules import DESTRUCTIVE, redact


def register(ctx):
    def pre_tool_call(tool_name, args, **kwargs):
        command = args.get("command", "")
        for pattern in DESTRUCTIVE:
            if pattern in command:
                return {"action": "block", "message": f"guard: refusing {pattern!r}"}
        if command.startswith("git push"):
            return {
                "action": "approve",
                "message": "guard: pushing needs a human",
                "rule_key": "git:push",
            }
        return None

    def pre_llm_call(is_first_turn=False, **kwargs):
        if is_first_turn:
            return {"context": "guard: destructive commands are blocked in this workspace."}
        return None

    def transform_tool_result(result, **kwargs):
        return redact(result)

    ctx.register_hook("pre_tool_call", pre_tool_call)
    ctx.register_hook("pre_llm_call", pre_llm_call)
    ctx.register_hook("transform_tool_result", transform_tool_result)
