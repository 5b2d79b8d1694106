"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The shell-hook allowlist: who approved which command, for which event and matcher, pinned to
the hash of the script it runs.

The file is ``<home>/shell-hooks-allowlist.json`` in Hermes Agent's format
(``{"approvals": [{event, command, approved_at, script_mtime_at_approval}]}``) plus two keys of
ours, ``matcher`` and ``sha256``. Hermes reads our entries and we honour its entries (pinning
their hash on first use). Every change is a read-modify-write under an exclusive ``flock`` on a
sibling ``.lock`` file, written to a temp file and renamed into place (mode 0600), so concurrent
approvals from many processes lose nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .trust import untrusted

log = logging.getLogger("hermes_hooks")

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]  # no fcntl on Windows: no file locking there

FILENAME = "shell-hooks-allowlist.json"

# File extensions that mark the script argument of an interpreter-prefixed command (as Hermes).
SCRIPT_EXTENSIONS = (".sh", ".bash", ".zsh", ".fish", ".py", ".pyw", ".rb", ".pl", ".lua",
                     ".js", ".mjs", ".cjs", ".ts")  # fmt: skip


def path_for(home: Path) -> Path:
    """Where the allowlist of ``home`` lives."""
    return home / FILENAME


def now_iso() -> str:
    """The current UTC time as Hermes writes it (ISO 8601 with a ``Z``)."""
    return datetime.now(tz=timezone.utc).isoformat().replace("+00:00", "Z")


def mtime_iso(path: str | None) -> str | None:
    """A file's modification time as Hermes writes it, or ``None``."""
    if not path:
        return None
    try:
        stamp = os.path.getmtime(path)
    except OSError:
        return None
    return datetime.fromtimestamp(stamp, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def modified_since(path: str | None, stamp: Any) -> bool:
    """Whether ``path`` was modified after the ISO time ``stamp`` (Hermes'
    ``script_mtime_at_approval``); ``False`` when either is unknown."""
    if not path or not isinstance(stamp, str):
        return False
    try:
        approved = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        return os.path.getmtime(path) > approved + 1.0  # Hermes writes whole seconds at times
    except (OSError, ValueError, OverflowError):
        return False


# ---------------------------------------------------------------------- which files a command runs


_VAR = re.compile(r"\$(\w+)|\$\{(\w+)\}")


def expand(token: str, env: Mapping[str, str]) -> str:
    """``~`` and ``$VAR``/``${VAR}`` expanded with ``env`` (unknown variables are left as is)."""
    token = os.path.expanduser(token)
    return _VAR.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), token)


# ---------------------------------------------------------------------- hashing

_digests: dict[str, tuple[tuple[int, ...], str]] = {}


def file_sha256(path: str) -> str | None:
    """The sha256 of a file, cached while its inode, size, mtime and ctime stay the same (ctime
    changes on every write and cannot be set back by the user)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    cached = _digests.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    digest = h.hexdigest()
    _digests[path] = (key, digest)
    return digest


def digest_of(paths: Sequence[str]) -> str | None:
    """One hash for the files a command runs: the file's own sha256 when there is one file (so
    ``sha256sum`` can check it), a hash of ``sha256  path`` lines when there are several."""
    if not paths:
        return None
    sums = [file_sha256(p) for p in paths]
    if len(paths) == 1:
        return sums[0]
    lines = "".join(f"{s or 'missing'}  {p}\n" for s, p in zip(sums, paths, strict=True))
    return hashlib.sha256(lines.encode("utf-8", "surrogateescape")).hexdigest()


# ---------------------------------------------------------------------- matchers

_ALL = (None, "", "*", ".*")
_NAMES = re.compile(r"^[\w|]+$")


def covers(approved: str | None, matcher: str | None) -> bool:
    """True when an approval given for ``approved`` also covers ``matcher`` (same or narrower).

    Narrower is recognised when the approval matched everything, or when both are plain
    ``A|B`` name lists and the new one is a subset. Anything else counts as a widening.
    """
    approved = (approved or "").strip()
    matcher = (matcher or "").strip()
    if approved in _ALL or approved == matcher:
        return True
    if matcher in _ALL:
        return False
    if _NAMES.match(approved) and _NAMES.match(matcher):
        return set(matcher.split("|")) <= set(approved.split("|"))
    return False


# ---------------------------------------------------------------------- the file


class Allowlist:
    """The allowlist file of one home. Reads are cached until the file changes on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._key: tuple[int, ...] | None = None
        self._entries: list[dict[str, Any]] = []
        #: Why the file is not trusted (then none of its entries counts), or ``None``.
        self.refused: str | None = None
        #: The malformed entries of the last read, each with why (none of them counts).
        self.skipped: list[str] = []
        self._reported: set[str] = set()

    def entries(self) -> list[dict[str, Any]]:
        """Every approval entry (dicts only), re-read when the file changed."""
        try:
            st = self.path.stat()
            key: tuple[int, ...] = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            key = ()
        if key != self._key:
            distrust = untrusted(self.path) if key else None
            if distrust is not None:
                # A forged entry in a file others can write must not approve anything.
                if distrust != self.refused:
                    log.warning("allowlist refused (no approval in it counts): %s", distrust)
                self._entries = []
            else:
                self._entries = self._wellformed(_read(self.path))
            self.refused = distrust
            self._key = key
        return self._entries

    def _wellformed(self, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``entries`` without the malformed ones, each reported once: an entry that cannot be
        read approves nothing and costs no other entry its approval."""
        kept: list[dict[str, Any]] = []
        self.skipped = []
        for entry in entries:
            why = entry_problem(entry)
            if why is None:
                kept.append(entry)
                continue
            said = f"{self.path}: allowlist entry skipped ({why}): {_shown(entry)}"
            self.skipped.append(said)
            if said not in self._reported:
                self._reported.add(said)
                log.warning("%s", said)
        return kept

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = self.path.with_name(self.path.name + ".lock")
        with open(lock, "a+", encoding="utf-8") as fh:
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                trusted = not self.path.exists() or untrusted(self.path) is None
                data = _read_document(self.path) if trusted else {"approvals": []}
                yield data
                _write(self.path, data)
            finally:
                if fcntl is not None:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        self._key = None

    def update(self, change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
        """Replace the approvals with ``change(approvals)``, atomically and under the lock."""
        with self._locked() as data:
            data["approvals"] = change([e for e in data["approvals"] if isinstance(e, dict)])

    def approve(
        self,
        records: Sequence[Mapping[str, Any]],
        *,
        keep: Callable[[Mapping[str, Any]], Collection[str]] | None = None,
    ) -> None:
        """Add approvals; each replaces earlier ones for the same event, command and matcher
        (and Hermes' matcher-less entry for that event and command), except those whose
        ``binding`` is one of ``keep(record)`` and not the record's own: another configured
        hook with that command and its own env, working dir or protocol."""

        def change(approvals: list[dict[str, Any]]) -> list[dict[str, Any]]:
            for rec in records:
                kept = set(keep(rec)) - {rec.get("binding")} if keep else set()
                approvals = [
                    e for e in approvals if not _same(e, rec) or e.get("binding") in kept
                ] + [dict(rec)]
            return approvals

        self.update(change)

    def revoke(self, command: str) -> int:
        """Remove every approval of ``command`` (any event, any matcher); return how many."""
        removed = 0

        def change(approvals: list[dict[str, Any]]) -> list[dict[str, Any]]:
            nonlocal removed
            kept = [e for e in approvals if e.get("command") != command]
            removed = len(approvals) - len(kept)
            return kept

        self.update(change)
        return removed


def record(
    event: str, command: str, matcher: str | None, sha256: str | None, script: str | None
) -> dict[str, Any]:
    """A new approval entry (Hermes' keys plus ``matcher`` and ``sha256``)."""
    return {
        "event": event,
        "command": command,
        "matcher": matcher,
        "sha256": sha256,
        "approved_at": now_iso(),
        "script_mtime_at_approval": mtime_iso(script),
    }


_TEXT_KEYS = ("event", "command")
_OPTIONAL_TEXT_KEYS = ("matcher", "sha256", "binding", "approved_at", "script_mtime_at_approval")


def entry_problem(entry: Mapping[str, Any]) -> str | None:
    """Why an allowlist entry cannot be read (``None``: it can): ``event`` and ``command`` are
    strings; ``matcher``, ``sha256``, ``binding`` and the time stamps are strings or null."""
    for key in _TEXT_KEYS:
        if not isinstance(entry.get(key), str):
            return f"{key} is {type(entry.get(key)).__name__}, not a string"
    for key in _OPTIONAL_TEXT_KEYS:
        value = entry.get(key)
        if value is not None and not isinstance(value, str):
            return f"{key} is {type(value).__name__}, not a string or null"
    return None


def _shown(entry: Mapping[str, Any]) -> str:
    text = json.dumps(entry, ensure_ascii=True, default=repr)
    return text if len(text) <= 200 else text[:200] + "..."


def _same(entry: Mapping[str, Any], rec: Mapping[str, Any]) -> bool:
    if entry.get("event") != rec.get("event") or entry.get("command") != rec.get("command"):
        return False
    return "matcher" not in entry or (entry.get("matcher") or None) == (rec.get("matcher") or None)


def _read_document(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"approvals": []}
    if not isinstance(raw, dict):
        return {"approvals": []}
    if not isinstance(raw.get("approvals"), list):
        raw["approvals"] = []
    return raw


def _read(path: Path) -> list[dict[str, Any]]:
    return [e for e in _read_document(path)["approvals"] if isinstance(e, dict)]


def _write(path: Path, data: Mapping[str, Any]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(data, indent=2, sort_keys=True))
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
