"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Which exceptions from plugin code go up to the host, and which stay with the hook.

One rule for every place that runs plugin code (hooks, handlers, imports, ``register(ctx)``,
bus listeners): only ``KeyboardInterrupt`` and the host's own cancellation propagate.
"""

from __future__ import annotations

import sys


def escapes(exc: BaseException) -> bool:
    """Whether a hook's exception must go up to the host: ``KeyboardInterrupt``, and a
    ``CancelledError`` while the host is cancelling the task that made the call. Everything else
    (any ``Exception``, ``SystemExit``, ``GeneratorExit``, a library's own ``BaseException``, a
    hook's own ``CancelledError``) costs only that hook its answer."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    asyncio = sys.modules.get("asyncio")  # no asyncio imported: no CancelledError can exist
    if asyncio is not None and isinstance(exc, asyncio.CancelledError):
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no loop in this thread: not the host's cancellation
            return False
        cancelling = getattr(task, "cancelling", None)  # Python >= 3.11
        return bool(task is not None and cancelling is not None and cancelling())
    return False
