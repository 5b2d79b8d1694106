"""An event is its spec, and nothing else: every event of the catalogue, with only its spec, is
fired with its example payload through a Python plugin and through shell hooks of both protocols,
reads a no-op hook as its neutral result, and blocks (where it can block) when a ``fail_closed``
hook of it fails. CONTRIBUTING's "Adding an event" checklist rests on this test: a new spec is
covered here the moment it exists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from shell_helpers import load

import hermes_hooks
from hermes_hooks import hookimpl

EVENTS = sorted(hermes_hooks.Hooks().manager.events)


def _example(hooks: Any, name: str) -> dict[str, Any]:
    return dict(hooks.manager.event(name).example)


def _fails_closed(info: Any) -> bool:
    """Whether a failed ``fail_closed`` hook changes the event's result (its answer type's
    failed-closed form: a block, a withheld value); on the others it is no opinion."""
    return info.answer.failed("a failure", "hook") is not None


def _plugin(name: str, answer: Any) -> Any:
    def hook(self: Any, **kwargs: Any) -> Any:
        if isinstance(answer, BaseException):
            raise answer
        return answer

    return type("Plugin", (), {name: hookimpl(hook)})()


@pytest.mark.parametrize("name", EVENTS)
def test_a_python_hook_of_any_event_answers_no_opinion_or_fails_closed(name: str) -> None:
    quiet = hermes_hooks.Hooks()
    quiet.register(_plugin(name, None), "quiet")
    info = quiet.manager.event(name)
    payload = _example(quiet, name)
    assert quiet.call(name, **payload) == info.answer.neutral(payload)

    broken = hermes_hooks.Hooks()
    broken.register(_plugin(name, RuntimeError("guard broke")), "broken", fail_closed=True)
    result = broken.call(name, **payload)
    if _fails_closed(info):
        assert "guard broke" in repr(result) and "fail_closed" in repr(result)
    else:
        assert result == info.answer.neutral(payload)


@pytest.fixture(scope="module", params=["hermes", "claude"])
def shell_homes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One home with a no-op shell hook on every event, one with a failing one (both
    ``fail_closed``), in one protocol."""
    root = tmp_path_factory.mktemp(f"every-{request.param}")
    protocol = {} if request.param == "hermes" else {"protocol": "claude"}

    def home(body: str, where: Path) -> Any:
        script = root / f"{where.name}.sh"
        script.write_text(f"#!/bin/sh\ncat >/dev/null\n{body}")
        script.chmod(0o755)
        hook = {"command": str(script), "fail_closed": True, **protocol}
        return load(where, {name: [hook] for name in EVENTS})

    return home("", root / "quiet"), home("exit 1\n", root / "broken")


@pytest.mark.parametrize("name", EVENTS)
def test_a_shell_hook_of_any_event_answers_no_opinion_or_fails_closed(
    name: str, shell_homes: Any
) -> None:
    quiet, broken = shell_homes
    info = quiet.manager.event(name)
    payload = _example(quiet, name)
    assert [impl.name for impl in quiet.manager.plan(name)], f"{name}: no shell hook in the plan"
    # A payload that cannot be built, or an answer that cannot be read, fails this fail_closed
    # hook: a blocking event would not be neutral.
    assert quiet.call(name, **payload) == info.answer.neutral(payload)
    result = broken.call(name, **payload)
    if _fails_closed(info):
        assert result != info.answer.neutral(payload), f"{name}: a failed fail_closed hook passed"
    else:
        assert result == info.answer.neutral(payload)
