"""Answer types: how one event's hook answers are read, combined, and what "blocked" means.

Each hookspec names its answer type (see :mod:`hermes_hooks.markers`). An answer type knows:

- ``normalise``: one hook's raw answer, in any accepted dialect, as the event's typed answer, or
  ``None`` for no opinion;
- ``combine``: the normalised answers of one firing (in call order) as the event's result;
- ``neutral``: the result when no hook answered;
- ``blocked``: the event's own form of "blocked, because ...": what a shell hook's exit code 2
  means, or ``None`` when the event cannot block;
- ``failed``: what a failing ``fail_closed`` hook contributes (``blocked`` unless the type says
  otherwise: a transform withholds its value);
- ``pipes``: the argument an answer rewrites for the hooks after it (a transform's value, a
  rewritten prompt), read by ``piped``.

The dispatcher, the shell adapter, ``hermes hooks test`` and the docs all go through these; none
of them knows an event by its name.
"""

from __future__ import annotations

from .base import AnswerType, Context, Observe, Raw, Transform
from .command import CommandAnswers
from .first import CompressAnswers, DispatchAnswers, PermissionAnswers, VerifyAnswers
from .prompt import PromptAnswers, VetoAnswers
from .tool import ToolAnswers

__all__ = [
    "AnswerType",
    "Observe",
    "Raw",
    "Context",
    "Transform",
    "ToolAnswers",
    "PromptAnswers",
    "VetoAnswers",
    "CommandAnswers",
    "PermissionAnswers",
    "VerifyAnswers",
    "CompressAnswers",
    "DispatchAnswers",
]
