"""Random config.yaml / settings.json / HOOK.yaml / allowlist shapes and bytes through
``load()``, ``list --json``, ``doctor`` and ``test``: never a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hermes_hooks
from hermes_hooks.cli import hooks_group

# Only harmless commands: the fuzzer chooses shapes, not what runs.
COMMANDS = ["true", "false", "cat", "sh -c 'exit 2'", "exit", "", "a\0b", "'unterminated", 5, None]
KEYS = ["command", "matcher", "timeout", "fail_closed", "priority", "env", "working_dir", "name",
        "protocol", "pin", "env_passthrough", "comand", "hooks", "type"]  # fmt: skip
EVENTS = ["pre_tool_call", "PreToolUse", "post_tool_call", "on_session_start", "bogus", "Stop"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 400), st.floats(allow_nan=False, width=32),
    st.sampled_from(COMMANDS), st.text(max_size=8),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(KEYS + EVENTS) | st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
entries = st.fixed_dictionaries(
    {"command": st.sampled_from(COMMANDS)},
    optional={k: values for k in KEYS if k != "command"},
)
configs = st.fixed_dictionaries(
    {
        "hooks": st.dictionaries(st.sampled_from(EVENTS), st.lists(entries, max_size=2), max_size=2)
        | values,  # fmt: skip
    },
    optional={
        "hooks_settings_files": values,
        "plugins": values,
        "fail_closed_events": values,
        "hooks_env": values,
    },
)
settings_docs = st.fixed_dictionaries(
    {
        "hooks": st.dictionaries(
            st.sampled_from(EVENTS),
            st.lists(
                st.fixed_dictionaries(
                    {
                        "matcher": values,
                        "hooks": st.lists(
                            st.fixed_dictionaries(
                                {"type": st.just("command"), "command": st.sampled_from(COMMANDS)},
                                optional={"timeout": values},
                            ),
                            max_size=2,
                        )
                        | values,
                    }
                ),
                max_size=2,
            )
            | values,
            max_size=2,
        )
    }  # fmt: skip
)
approvals = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "event": st.sampled_from(EVENTS) | values,
            "command": st.sampled_from(COMMANDS) | values,
            "matcher": values,
            "sha256": values,
            "binding": values,
            "unpinned": values,
            "script_mtime_at_approval": values,
        },
    ),  # fmt: skip
    max_size=3,
)


def _document(data: Any, dump: Any) -> st.SearchStrategy[bytes]:
    encoded = data.map(lambda d: dump(d).encode("utf-8", "surrogatepass"))
    return st.one_of(encoded, encoded, encoded, st.binary(max_size=40))  # mostly well-formed


homes = st.fixed_dictionaries(
    {
        "config.yaml": _document(configs, lambda d: yaml.safe_dump(d)),
        "settings.json": _document(settings_docs, json.dumps),
        "shell-hooks-allowlist.json": _document(
            approvals.map(lambda a: {"approvals": a}), json.dumps
        ),
        "hooks/g/HOOK.yaml": _document(
            st.fixed_dictionaries(
                {"events": st.sampled_from([["agent:start"], "command:*", ["*"], "nope"]) | values},
                optional={"timeout": values, "fail_closed": values, "name": values},
            ),
            lambda d: yaml.safe_dump(d),
        ),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(files=homes, accept=st.booleans())
def test_random_inputs_never_raise(files: dict[str, bytes], accept: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        for name, content in files.items():
            path = home / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        (home / "hooks" / "g" / "handler.py").write_text("def handle(e, c):\n    return None\n")
        hooks = hermes_hooks.load(home, entry_points=False, accept_hooks=accept)
        assert isinstance(hooks.rows(), list)
        runner = CliRunner()
        base = ["--home", str(home), *(["--accept-hooks"] if accept else [])]
        listed = runner.invoke(hooks_group, [*base, "list", "--json"])
        assert listed.exception is None or isinstance(listed.exception, SystemExit), listed.output
        assert isinstance(json.loads(listed.stdout), list)
        for args in (["doctor"], ["test", "pre_tool_call"]):
            out = runner.invoke(hooks_group, [*base, *args])
            assert out.exception is None or isinstance(out.exception, SystemExit), (
                args,
                out.output,
            )
            assert "Traceback" not in out.output
