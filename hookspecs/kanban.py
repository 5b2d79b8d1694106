"""Kanban events: a task on the shared board changed state."""

from __future__ import annotations

from hermes_hooks.answers import Observe
from hermes_hooks.markers import event

_TASK_EXAMPLE = {
    "task_id": "t-1",
    "board": "default",
    "assignee": "worker-1",
    "run_id": 7,
    "profile_name": "default",
}


@event(
    Observe(),
    example=_TASK_EXAMPLE,
)
def kanban_task_claimed(
    task_id: str,
    board: str | None,
    assignee: str | None,
    run_id: int | None,
    profile_name: str,
    transcript_path: str | None,
) -> None:
    """Called in the dispatcher process when a worker claims a task, before the worker starts.

    :param task_id: the task. :param board: its board. :param assignee: the worker.
    :param run_id: the run number. :param profile_name: the active profile.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def kanban_task_claimed(task_id, assignee):
            chat.post(f"{assignee} took {task_id}")
    """


@event(
    Observe(),
    example={**_TASK_EXAMPLE, "summary": "Fixed the flaky test."},
)
def kanban_task_completed(
    task_id: str,
    board: str | None,
    assignee: str | None,
    run_id: int | None,
    profile_name: str,
    summary: str | None,
    transcript_path: str | None,
) -> None:
    """Called in the worker process when a task is completed.

    :param task_id: the task. :param board: its board. :param assignee: the worker.
    :param run_id: the run number. :param profile_name: the active profile.
    :param summary: the worker's summary.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def kanban_task_completed(task_id, summary):
            chat.post(f"{task_id} done: {summary}")
    """


@event(
    Observe(),
    example={**_TASK_EXAMPLE, "reason": "Needs a database password."},
)
def kanban_task_blocked(
    task_id: str,
    board: str | None,
    assignee: str | None,
    run_id: int | None,
    profile_name: str,
    reason: str | None,
    transcript_path: str | None,
) -> None:
    """Called when a task is blocked, in whichever process blocked it.

    :param task_id: the task. :param board: its board. :param assignee: the worker.
    :param run_id: the run number. :param profile_name: the active profile.
    :param reason: why it is blocked.
    :param transcript_path: the host's transcript file, when it keeps one.

    Return values are ignored; every hook runs.

    Example::

        @hookimpl
        def kanban_task_blocked(task_id, reason):
            pager.notify(f"{task_id} blocked: {reason}")
    """
