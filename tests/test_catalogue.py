"""The event catalogue is read off the hookspecs, and everything else is derived from it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hermes_hooks import catalogue, docgen
from hermes_hooks.docgen import render_events_md

ROOT = Path(__file__).resolve().parent.parent
# The design card (DESIGN.md, kept outside the repository) fixes these event names: the catalogue
# must have every one of them (an oracle for the specs). It may have more: a new event is its
# hookspec plus the regenerated files, and this list does not change. Every other test reads the
# catalogue (hermes_hooks.catalogue.events()).
DESIGN_EVENTS = """pre_tool_call post_tool_call transform_tool_result transform_terminal_output pre_llm_call
post_llm_call transform_llm_output user_prompt_submit transform_messages pre_verify pre_api_request
post_api_request api_request_error on_session_start on_session_end on_session_finalize on_session_reset
subagent_start subagent_stop pre_compress post_compress permission_request pre_approval_request
post_approval_response pre_gateway_dispatch gateway_event notification kanban_task_claimed
kanban_task_completed kanban_task_blocked""".split()
# Claude Code events a Hermes host can fire that no Hermes event stands for (issue 13): the
# DESIGN table predates them; docs/dialects.md "Claude Code events" lists them.
DESIGN_EVENTS += ["post_tool_batch", "pre_model_switch", "post_model_switch"]


def test_catalogue_has_every_design_event():
    missing = sorted(set(DESIGN_EVENTS) - set(catalogue.events()))
    assert not missing, f"events of the design card without a hookspec: {missing}"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("pre_tool_call", "decide"),
        ("post_tool_call", "context"),
        ("transform_tool_result", "transform"),
        ("pre_llm_call", "context"),
        ("post_llm_call", "observe"),
        ("user_prompt_submit", "decide"),
        ("pre_verify", "first"),
        ("on_session_start", "context"),
        ("pre_compress", "first"),
        ("permission_request", "first"),
        ("pre_gateway_dispatch", "first"),
        ("gateway_event", "decide"),
    ],
)
def test_kinds(name, kind):
    assert catalogue.events()[name].kind == kind


CLAUDE = {
    "PreToolUse": "pre_tool_call",
    "PostToolUse": "post_tool_call",
    "PostToolUseFailure": "post_tool_call",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "pre_verify",
    "SubagentStop": "subagent_stop",
    "SubagentStart": "subagent_start",
    "SessionStart": "on_session_start",
    "SessionEnd": "on_session_end",
    "PreCompact": "pre_compress",
    "PostCompact": "post_compress",
    "Notification": "notification",
    "PermissionRequest": "permission_request",
    "PermissionDenied": "post_tool_call",
    "PostToolBatch": "post_tool_batch",
    "StopFailure": "api_request_error",
    "PreModelSwitch": "pre_model_switch",
    "PostModelSwitch": "post_model_switch",
    "pre_tool_use": "pre_tool_call",
    "post_tool_use": "post_tool_call",
    "session_start": "on_session_start",
    "session_end": "on_session_end",
    "before_llm_call": "pre_llm_call",
    "stop": "pre_verify",
}


@pytest.mark.parametrize(("alias", "target"), CLAUDE.items())
def test_aliases(alias, target):
    assert catalogue.resolve(alias) == target


@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [
        ("pre_tools_call", "pre_tool_call"),
        ("PreToolUses", "PreToolUse"),
        ("on_sesion_start", "on_session_start"),
    ],
)
def test_did_you_mean(typo, suggestion):
    assert catalogue.suggest(typo) == suggestion
    with pytest.raises(catalogue.UnknownEvent, match=suggestion):
        catalogue.resolve(typo)


def test_every_event_documents_every_argument_and_has_an_example():
    for info in catalogue.events().values():
        for arg in info.args:
            assert f":param {arg}:" in info.doc, f"{info.name}: argument {arg} undocumented"
        assert "Example::" in info.doc, info.name
        assert "Return" in info.doc, info.name
        assert "On failure" in info.doc, info.name


def test_every_event_takes_transcript_path():
    assert all("transcript_path" in i.args for i in catalogue.events().values())


def test_examples_only_use_declared_arguments():
    for info in catalogue.events().values():
        assert set(info.example) <= set(info.args), info.name
        payload = catalogue.example_payload(info.name)
        assert list(payload) == list(info.args)


@pytest.mark.parametrize("name", sorted(catalogue.events()))
def test_the_claude_code_payload_of_an_event_reads_back_as_its_arguments(name):
    """What a Claude Code hook reads on stdin, saved for ``hermes hooks test --payload-file``, is
    accepted, and the fields every event may carry come back as the host's arguments."""
    from hermes_hooks.builtin_plugins.shell_hooks import protocol as wire

    from hermes_hooks.cli import payloads

    info = catalogue.events()[name]
    kwargs = {**info.example, "effort": "high"}
    if "turn_id" in info.args:
        kwargs["turn_id"] = "turn-9"
    sent = wire.jsonable(wire.claude_payload(info, kwargs, "/work"))
    read, form = payloads.to_kwargs(info, sent)
    assert form == payloads.CLAUDE_WIRE
    assert read["effort"] == "high"
    assert set(info.required) <= set(read)  # what the host must pass comes back
    if "turn_id" in info.args:
        assert sent["prompt_id"] == "turn-9" and read["turn_id"] == "turn-9"


_SESSIONS = ("session_id", "parent_session_id")


@pytest.mark.parametrize("protocol", ["hermes", "claude-code"])
@pytest.mark.parametrize(
    "name", sorted(n for n, i in catalogue.events().items() if set(_SESSIONS) & set(i.args))
)
def test_the_session_a_payload_carries_reads_back_as_the_argument_it_came_from(name, protocol):
    """A payload's ``session_id`` is the host's ``session_id``, or a sub-agent event's
    ``parent_session_id`` when it has no ``session_id`` (as both payloads are built)."""
    from hermes_hooks.builtin_plugins.shell_hooks import protocol as wire

    from hermes_hooks.cli import payloads

    info = catalogue.events()[name]
    session = next(a for a in _SESSIONS if a in info.args)
    kwargs = {**info.example, session: "sess-7"}
    if protocol == "hermes":
        sent = wire.hermes_payload(name, kwargs, "/work")
    else:
        sent = wire.claude_payload(info, kwargs, "/work")
    read, _ = payloads.to_kwargs(info, wire.jsonable(sent))
    assert sent["session_id"] == "sess-7" and read[session] == "sess-7"
    assert set(read) <= set(info.args) | set(wire.CLAUDE_OPTIONAL_KEYS.values())


def test_claude_codes_tool_calls_of_a_batch_read_back_as_the_hosts():
    from hermes_hooks.builtin_plugins.shell_hooks import protocol as wire

    from hermes_hooks.cli import payloads

    info = catalogue.events()["post_tool_batch"]
    calls = [{"tool_name": "read_file", "args": {"path": "a.py"}, "tool_call_id": "c1",
              "result": "x = 1"}]  # fmt: skip
    sent = wire.claude_payload(info, {"tool_calls": calls, "session_id": "s"}, "/work")
    assert sent["tool_calls"][0]["tool_name"] == "Read"  # Claude Code's names on the wire
    read, _ = payloads.to_kwargs(info, wire.jsonable(sent))
    assert read["tool_calls"] == calls


def test_a_claude_code_flag_reads_back_as_the_argument_it_came_from():
    """Stop's ``stop_hook_active`` (a hook's loop guard) survives a saved payload."""
    from hermes_hooks.cli import payloads

    info = catalogue.events()["pre_verify"]
    sent = {"hook_event_name": "Stop", "session_id": "s", "stop_hook_active": True}
    read, _ = payloads.to_kwargs(info, sent)
    assert read["stop_hook_active"] is True


@pytest.mark.parametrize(
    ("payload", "listed"),
    [
        ({"tool": "t"}, "its arguments are: tool_name, args,"),
        ({"hook_event_name": "pre_tool_call", "extra": {}, "sesion": "s"}, "the Hermes keys are: hook_"),
        ({"hook_event_name": "pre_tool_call", "extra": {"tool": "t"}}, "its arguments are: tool_name,"),
        ({"hook_event_name": "PreToolUse", "tool_inptu": {}}, "its Claude Code fields are: session_id,"),
    ],
)  # fmt: skip
def test_an_unknown_payload_key_is_refused_listing_what_that_form_accepts(payload, listed):
    from hermes_hooks.cli import payloads

    with pytest.raises(payloads.PayloadError) as refused:
        payloads.to_kwargs(catalogue.events()["pre_tool_call"], payload)
    assert listed in str(refused.value)
    if "tool_inptu" in payload:
        assert "did you mean 'tool_input'?" in str(refused.value)
        accepted = str(refused.value).split("are: ", 1)[1].split(", ")
        assert "tool_input" in accepted and len(accepted) == len(set(accepted))


def test_docs_page_is_generated_from_the_specs():
    committed = (ROOT / "docs" / "events.md").read_text()
    assert committed == render_events_md(), "run: python -m hermes_hooks.docgen docs/events.md"


@pytest.mark.parametrize("page", sorted(docgen.PAGES))
def test_the_generated_parts_of_other_pages_are_fresh(page):
    # docs/dialects.md's tables (the specs' dialects=) and docs/hermes-agent.md's unfired events
    committed = (ROOT / "docs" / page).read_text()
    parts = docgen.PAGES[page]()
    assert parts and all(docgen.begin(part) in committed for part in parts)
    assert committed == docgen.fill(committed, parts), (
        "run: python -m hermes_hooks.docgen docs/events.md"
    )


def test_docs_page_has_a_section_per_event():
    text = (ROOT / "docs" / "events.md").read_text()
    sections = re.findall(r"^### (\w+)$", text, flags=re.M)
    assert sorted(sections) == sorted(catalogue.events())


def test_events_json_cli_matches_catalogue():
    from click.testing import CliRunner

    from hermes_hooks.cli import hooks_group

    out = CliRunner().invoke(hooks_group, ["events", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [d["name"] for d in data] == list(catalogue.events())
    assert data[0]["aliases"] == ["PreToolUse", "pre_tool_use", "before_tool_call"]


def test_which_events_exit_code_2_blocks_is_declared_in_the_specs():
    blocking = {n for n, i in catalogue.events().items() if i.can_block}
    decide = {n for n, i in catalogue.events().items() if i.kind == "decide"}
    assert blocking == decide | {
        "post_tool_batch",  # exit 2 is feedback for the model, as on post_tool_call
        "pre_verify",
        "pre_compress",
        "post_tool_call",
        "permission_request",
        "pre_gateway_dispatch",
    }
