"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``http`` hook type: the JSON a command hook gets on stdin is POSTed to the entry's
``url``, and the response body is read as a command hook's stdout (both answer protocols).

- 2xx is exit code 0; any other status is a failure naming it (the body's start included);
  no answer within ``timeout`` is a timeout; a redirect to another host is not followed.
- ``headers`` values may name environment variables (``$VAR``, ``${VAR}``), filled only for the
  variables the entry lists in ``allowed_env_vars`` (Claude Code: ``allowedEnvVars``) or
  config.yaml lists in its config-wide ``allowed_env_vars``; any other reference is sent empty,
  and is reported when the entry is read.
- Consent: an http hook runs no code here, but it sends the payload out, so its URL must match
  one of config.yaml's ``allowed_http_hook_urls`` (matched as parsed scheme, host, port and
  path, ``*`` wildcards in the host, port and path); outside it the hook is
  refused (reported at load, listed as ``refused``, and blocking when ``fail_closed``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import processes, web
from .matching import ShellHook

KEYS = ("url", "headers", "allowed_env_vars", "allowedEnvVars")
DEFAULT_TIMEOUT = 30.0
#: How much of an error reply's body is kept for the runner (it shows less, redacted).
ERROR_BODY = 4096
REMEDY = "add its URL (or a pattern such as 'https://policy.example.com/*') to allowed_http_hook_urls in config.yaml"  # fmt: skip


def gate(url: str, settings: Mapping[str, Any]) -> str | None:
    """Why ``url`` may not receive a hook's payload (``None``: it may): matched against
    ``allowed_http_hook_urls`` as parsed scheme, host, port and path (:mod:`.web`)."""
    return web.refusal(url, settings.get("allowed_http_hook_urls"))


def read(
    raw: Mapping[str, Any], where: str, warn: Callable[[str], None], settings: Mapping[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """The command label and options of an http entry, or ``None`` (reported) to skip it."""
    url = raw.get("url")
    if not isinstance(url, str) or not url.strip():
        warn(f"{where}: an http hook needs a 'url' (http:// or https://); skipped")
        return None
    url = url.strip()
    if not web.web_url(url):
        warn(f"{where}: url {url!r} is not an http:// or https:// URL; skipped")
        return None
    headers = raw.get("headers") or {}
    if not isinstance(headers, Mapping):
        warn(f"{where}: headers must be a mapping of header name to value; ignored")
        headers = {}
    own = web.variable_names(raw.get("allowed_env_vars", raw.get("allowedEnvVars")))
    if own is None:
        warn(f"{where}: allowed_env_vars must be a list of variable names; ignored")
        own = []
    allowed = own + (web.variable_names(settings.get("allowed_env_vars")) or [])
    _, refused = web.fill_headers(headers, allowed, {})
    for name in refused:
        warn(f"{where}: header value names ${name}, which is not in the entry's allowed_env_vars "
             f"(nor config.yaml's); it is sent empty (list {name!r} there to send it)")  # fmt: skip
    options: dict[str, Any] = {
        "url": url,
        "headers": {str(k): str(v) for k, v in headers.items()},
        "allowed_env_vars": allowed,
        "refused": gate(url, settings),
        "remedy": REMEDY,
    }
    if options["refused"]:
        warn(f"{where}: http hook refused: {options['refused']} (it would send the event's "
             f"payload there); {REMEDY}")  # fmt: skip
    return url, options


def problem(hook: ShellHook) -> str | None:
    """Why the hook cannot run as configured (``hermes hooks doctor``)."""
    return hook.options.get("refused")


def at_once(
    batch: Sequence[tuple[ShellHook, processes.Command]],
    one: Callable[[ShellHook, processes.Command], processes.Outcome],
    name: str,
) -> list[processes.Outcome]:
    """``one`` for every hook of the batch, side by side (a thread each but the first's);
    outcomes in order. A fault while running one hook is that hook's failure alone: the
    others keep their answers."""

    def alone(pair: tuple[ShellHook, processes.Command]) -> processes.Outcome:
        try:
            return one(*pair)
        except Exception as exc:  # the fault stays with its hook
            return processes.Outcome(error=f"{type(exc).__name__}: {exc}")

    if len(batch) == 1:
        return [alone(batch[0])]
    with ThreadPoolExecutor(max_workers=len(batch), thread_name_prefix=name) as pool:
        return list(pool.map(alone, batch))


def transport(batch: Sequence[tuple[ShellHook, processes.Command]]) -> list[processes.Outcome]:
    """POST every hook of the batch at once; outcomes in order."""
    return at_once(batch, send, "hermes-http")


def send(hook: ShellHook, command: processes.Command) -> processes.Outcome:
    """One POST, as the outcome of a process: the body is stdout."""
    options = hook.options
    # From the host's environment: the variables are named explicitly, so `hooks_env: minimal`
    # (which trims what a process inherits) does not hide them.
    headers, _ = web.fill_headers(options["headers"], options["allowed_env_vars"], os.environ)
    reply = web.post(
        options["url"], command.stdin, timeout=command.timeout, headers=headers, cap=command.cap
    )
    failed = failure(reply, options["url"])
    if failed is not None:
        return failed
    return processes.Outcome(returncode=0, stdout=reply.body, elapsed=reply.elapsed)


def failure(reply: web.Reply, url: str) -> processes.Outcome | None:
    """A reply that is no answer, as the outcome of a process: a timeout, a failure, a body over
    the cap, a status other than 2xx (named, with the body's start); ``None`` for a 2xx reply,
    whose body the caller reads. The one reading of a reply for both hook types that POST."""
    if reply.timed_out:
        return processes.Outcome(timed_out=True, elapsed=reply.elapsed)
    if reply.truncated:
        return processes.Outcome(stdout=reply.body, truncated=True, elapsed=reply.elapsed)
    # More than the message shows: the runner redacts it (redact_secrets) before it caps it,
    # so a cut never leaves half a secret the redactor no longer recognises.
    problem = reply.problem(url, limit=ERROR_BODY)
    if problem is None:
        return None
    return processes.Outcome(error=problem, stderr=reply.body[:ERROR_BODY], elapsed=reply.elapsed)
