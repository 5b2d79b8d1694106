"""Test distribution: a native plugin found through the `hermes_hooks` entry-point group."""

from hermes_hooks import hookimpl


@hookimpl
def pre_llm_call(is_first_turn):
    return "fakenative: context" if is_first_turn else None


@hookimpl
def pre_tool_call(tool_name):
    return (
        {"action": "approve", "message": f"fakenative: {tool_name} needs a look"}
        if tool_name == "deploy"
        else None
    )
