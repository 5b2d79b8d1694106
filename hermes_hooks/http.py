"""Posting a hook's payload over HTTP: the allow-list of URLs, and a POST that never follows a
redirect to another host. Used by the ``http_post`` built-in (and the coming ``http`` hook type).
Standard library only."""

from __future__ import annotations

import fnmatch
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from .wire import jsonable


def url_allowed(url: str, patterns: Any) -> bool:
    """Whether ``url`` matches one of ``patterns`` (``allowed_http_hook_urls``: exact URLs or
    ``fnmatch`` patterns such as ``https://hooks.example.com/*``). No list: nothing is allowed."""
    if not isinstance(patterns, list):
        return False
    return any(isinstance(p, str) and fnmatch.fnmatchcase(url, p) for p in patterns)


class _SameHostRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the same scheme, host and port."""

    def redirect_request(
        self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> Any:
        old, new = urlsplit(req.full_url), urlsplit(newurl)
        if (old.scheme, old.netloc) != (new.scheme, new.netloc):
            raise urllib.error.HTTPError(
                newurl, code, f"refused a redirect to another host ({new.netloc})", headers, fp
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameHostRedirects)


def post_json(
    url: str,
    payload: Mapping[str, Any],
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
) -> tuple[int, bytes]:
    """POST ``payload`` as JSON; return the status and the body. Raises ``OSError`` (a
    ``URLError``/``HTTPError``/timeout) when the request fails or answers non-2xx."""
    data = json.dumps(jsonable(dict(payload)), separators=(",", ":")).encode()
    request = urllib.request.Request(url, data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    for key, value in (headers or {}).items():
        request.add_header(str(key), str(value))
    with _OPENER.open(request, timeout=timeout) as response:  # noqa: S310  # URL from the allow-list
        return response.status, response.read(1 << 20)
