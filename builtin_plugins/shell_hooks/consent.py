"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Consent as stored: the shell-hook allowlist, what a command runs and the files its approval
pins, and which file a program name resolves to.

The shell-hook allowlist: who approved which command, for which event and matcher, pinned to
the hash of the script it runs.

The file is ``<home>/shell-hooks-allowlist.json`` in Hermes Agent's format
(``{"approvals": [{event, command, approved_at, script_mtime_at_approval}]}``) plus two keys of
ours, ``matcher`` and ``sha256``. Hermes reads our entries and we honour its entries (pinning
their hash on first use). Every change is a read-modify-write under an exclusive ``flock`` on a
sibling ``.lock`` file, written to a temp file and renamed into place (mode 0600), so concurrent
approvals from many processes lose nothing.

What a hook command will run, as the OS will run it, and the files its approval pins.

A command is resolved the way ``execve`` and the shell will: a program named without a ``/`` is
looked up on the ``PATH`` of the hook's own environment, relative paths are taken from its working
directory (or from a ``cd DIR &&`` prefix of a shell command line), and an interpreter (``env``,
``sh``/``bash``/``zsh``/``dash``, ``python*``, ``node``, ``perl``, ``ruby``, ``uv run``), known by
name or by path, is looked through, past its own flags, to the script it is given. The approval
pins what runs as code: that script, the files an interpreter option loads as code (``node
--require FILE``, ``bash --rcfile FILE``, ...), every other existing argument that is a script
(its name ends in a script extension: ``runner guard.py``), the files a ``.``/``source`` loads by
name, and what the entry lists under ``pin:``. Other files a command names are data (a log it
writes, a rules file it reads) and are not pinned: list them under ``pin:`` to pin them.
Interpreters themselves are not pinned (an upgrade of ``python3`` is not a change of the hook).
When the script cannot be identified (inline code given with ``-c``/``-e``, a module given with
``-m``, command substitution, a tool fetched by ``uvx``) the hook is *unpinned*.

What a command line runs: the file the OS will execute for it (:func:`which`).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hermes_hooks.trust import untrusted

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


_SHELLS = frozenset("sh bash zsh dash ksh mksh fish".split())
_PYTHON = re.compile(r"(python|pypy)(\d+(\.\d+)*)?[dmu]?(\.exe)?")
_NODE = frozenset("node nodejs".split())
# Per interpreter family: long options that take the next word as their argument; short
# option letters that do (the rest of the word, or the next word); letters whose argument is
# inline code; letters that make it read a module found at run time or its stdin.
_LONG_ARG = {
    "sh": frozenset("--rcfile --init-file".split()),
    "python": frozenset(),
    "node": frozenset(
        "--require --import --loader --experimental-loader --conditions "
        "--env-file --inspect-port --title".split()
    ),  # fmt: skip
    "perl": frozenset(),
    "ruby": frozenset("--encoding".split()),
    "env": frozenset("--unset --chdir".split()),
    "uv": frozenset(
        "--with --with-requirements --with-editable --python --project "
        "--directory --env-file --index --extra --group --package --only-group "
        "--config-file --cache-dir".split()
    ),  # fmt: skip
}
_SHORT_ARG = {"sh": "oO", "python": "WXQ", "node": "rC", "perl": "", "ruby": "IrCE",
              "env": "uCP", "uv": "p"}  # fmt: skip
_SHORT_INLINE = {"sh": "c", "python": "c", "node": "ep", "perl": "eE", "ruby": "e"}
_LONG_INLINE = {"node": frozenset({"--eval", "--print"})}
_SHORT_RUNTIME = {"sh": "s", "python": "m"}
#: Per interpreter family: the options whose argument it loads and runs as code (pinned).
_CODE_OPTIONS = {
    "sh": frozenset("--rcfile --init-file".split()),
    "node": frozenset("--require -r --import --loader --experimental-loader".split()),
    "ruby": frozenset({"-r"}),
}
_PREFIXES = frozenset("exec command nohup time builtin".split())
#: Shell built-ins that run no file (``if true; then ./guard.sh; fi`` runs ``guard.sh``).
_BUILTINS = frozenset("true false : [ test echo printf exit return set shift unset export".split())
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")


@dataclass(frozen=True)
class Pins:
    """What a command runs: its ``script`` (``None``: not identified, ``unpinned`` says why)
    and every file its approval pins, the script first."""

    script: str | None
    files: tuple[str, ...]
    unpinned: str | None = None


class _Unknown(Exception):
    """The script cannot be identified; the message says why."""


def family(program: str) -> str | None:
    """The interpreter family of a program (by name or path), or ``None``."""
    base = os.path.basename(program)
    if base in _SHELLS:
        return "sh"
    if _PYTHON.fullmatch(base):
        return "python"
    if base in _NODE:
        return "node"
    if base in ("perl", "ruby", "env", "uv", "uvx"):
        return base
    return None


def _path(token: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(token)))


def _script_arg(words: Sequence[str], start: int, kind: str) -> int:
    """The index of the first non-option word from ``start`` (raises :class:`_Unknown` when
    the interpreter is given inline code, a module, or its stdin)."""
    name = os.path.basename(words[start - 1])
    i = start
    while i < len(words):
        word = words[i]
        if word == "--":
            i += 1
            break
        if word == "-":
            raise _Unknown(f"{name} reads its script from stdin")
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            if option in _LONG_INLINE.get(kind, ()):
                raise _Unknown(
                    f"{name} runs inline code ({option}); nothing on disk says what runs"
                )
            i += 2 if option in _LONG_ARG.get(kind, ()) and "=" not in word else 1
            continue
        if word[:1] in ("-", "+") and len(word) > 1:
            i += 1
            for pos, letter in enumerate(word[1:], 1):
                if letter in _SHORT_INLINE.get(kind, ""):
                    raise _Unknown(
                        f"{name} runs inline code (-{letter}); nothing on disk says what runs"
                    )
                if letter in _SHORT_RUNTIME.get(kind, ""):
                    what = (
                        "a module found at run time" if letter == "m" else "its script from stdin"
                    )
                    raise _Unknown(f"{name} -{letter} runs {what}; list its files under pin:")
                if letter in _SHORT_ARG.get(kind, ""):
                    i += 1 if pos == len(word) - 1 else 0  # the argument is the next word
                    break
            continue
        return i
    if i < len(words):
        return i
    raise _Unknown(f"{name} is given no script")


def _resolve(words: Sequence[str], cwd: str, env: Mapping[str, str]) -> str:
    """The script ``words`` (one simple command, expanded) runs; raises :class:`_Unknown`."""
    words = list(words)
    while words:
        program = words[0]
        kind = family(program)
        if kind is None:
            found = which(program, env, cwd)
            if found is None:
                return _path(program, cwd) if "/" in program else _not_found(program)
            kind = family(found)  # a symlink named like the program it links to
            if kind is None:
                return os.path.normpath(os.path.join(cwd, found))
        if kind == "uvx":
            raise _Unknown("uvx runs a tool fetched from a package index; pin it with pin:")
        if kind == "env":
            i = 1
            while i < len(words):
                word = words[i]
                if word in ("-S", "--split-string") and i + 1 < len(words):
                    words = [*_words(words[i + 1]), *words[i + 2 :]]
                    break
                if word in ("-u", "-C", "-P") or word in _LONG_ARG["env"]:
                    if word in ("-C", "--chdir") and i + 1 < len(words):
                        cwd = _path(words[i + 1], cwd)
                    i += 2
                elif word.startswith("-") or _ASSIGNMENT.match(word):
                    i += 1
                else:
                    words = words[i:]
                    break
            else:
                raise _Unknown("env is given no program")
            continue
        if kind == "uv":
            if len(words) < 2 or words[1] not in ("run",):
                raise _Unknown(f"uv {' '.join(words[1:2])} is not `uv run`; pin it with pin:")
            i = _script_arg(words, 2, "uv")
            target = words[i]
            if os.path.isfile(_path(target, cwd)):
                return _path(target, cwd)
            words = words[i:]
            continue
        i = _script_arg(words, 1, kind)
        if kind == "ruby" and "-C" in words[1:i]:
            cwd = _path(words[words.index("-C") + 1], cwd)
        script = words[i]
        if kind == "sh" and "/" not in script and not os.path.isfile(_path(script, cwd)):
            found = which(script, env, cwd)  # sh and bash look a bare script name up on PATH
            if found:
                return os.path.normpath(os.path.join(cwd, found))
        return _path(script, cwd)
    raise _Unknown("empty command")


def _not_found(program: str) -> str:
    raise _Unknown(f"{program} is not found on the hook's PATH")


def _code_files(words: Sequence[str], cwd: str, program: str | None) -> list[str]:
    """The files besides the script that one simple command (``words``, expanded) runs as code:
    an interpreter option's code file (``node --require FILE``, ``bash --rcfile FILE``) and
    every argument that names an existing script (a script extension: ``runner guard.py``).
    Any other file it names is data, not pinned (``pin:`` pins it)."""
    kind = family(words[0]) if words else None
    if kind is None and program:
        kind = family(program)
    # this interpreter's own code options, read before its script only: after it, the words
    # are the script's arguments (``guard.py -r rules.txt``: rules.txt is data)
    options = _CODE_OPTIONS.get(kind, frozenset()) if kind is not None else frozenset()
    out = []
    interpreter_options = True
    for i, word in enumerate(words[1:], 1):
        named: str | None = None
        option, _, value = word.partition("=")
        if interpreter_options and option in options:
            named = value or (words[i + 1] if i + 1 < len(words) else None)
        elif interpreter_options and not word.startswith("-") and words[i - 1] not in options:
            interpreter_options = False  # the script: the rest are its arguments
        if named is None and word.lower().endswith(SCRIPT_EXTENSIONS):
            named = word
        path = _path(named, cwd) if named else None
        if path and os.path.isfile(path) and family(path) is None:
            out.append(path)
    return out


def _ordered(script: str | None, files: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = [script] if script else []
    for path in files:
        if path not in out:
            out.append(path)
    return tuple(out)


def of_argv(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], extra: Sequence[str] = ()
) -> Pins:
    """What an (expanded) argv runs without a shell, and the files its approval pins."""
    try:
        script: str | None = _resolve(argv, cwd, env)
        reason = None
    except _Unknown as exc:
        script, reason = None, str(exc)
    program = which(argv[0], env, cwd) if argv else None
    files = _code_files(argv, cwd, program)
    return _pins(script, [*files, *extra], reason)


def _pins(script: str | None, files: Sequence[str], reason: str | None) -> Pins:
    if script is None and files and reason is not None:
        # Something else identifies the hook (pin:, a code file): pinned, with what it has.
        return Pins(None, _ordered(None, files), None)
    return Pins(script, _ordered(script, files), reason if script is None else None)


def of_shell(command: str, cwd: str, env: Mapping[str, str], extra: Sequence[str] = ()) -> Pins:
    """What a shell command line (Claude Code's protocol) runs, and the files its approval
    pins: each simple command resolved in turn, ``cd DIR`` followed, ``.``/``source`` files
    pinned, globs expanded as the shell would now."""
    from hermes_hooks.shell_syntax import parse

    if "`" in command or "$(" in command or "<(" in command:
        return Pins(None, tuple(extra), "the command line runs a command substitution")
    parsed = parse(command)
    if parsed.error is not None:
        return Pins(None, tuple(extra), f"the command line cannot be parsed: {parsed.error}")
    script: str | None = None
    reason: str | None = None
    files: list[str] = []
    for simple in parsed.commands:
        if not simple.program:
            continue  # only assignments or redirections
        words = _expanded([simple.path or simple.program, *simple.args], cwd, env)
        while words and (_ASSIGNMENT.match(words[0]) or words[0] in _PREFIXES):
            words = words[1:]
        if not words:
            continue
        if words[0] in _BUILTINS:
            continue  # the shell's own commands run no file
        if words[0] == "cd":
            cwd = _path(words[1], cwd) if len(words) > 1 else env.get("HOME", cwd)
            continue
        if words[0] in (".", "source"):
            if len(words) > 1:
                sourced = _path(words[1], cwd)
                files.append(sourced)
                script = script or sourced
            continue
        try:
            found = _resolve(words, cwd, env)
            script = script or found
            files.append(found)
        except _Unknown as exc:
            reason = reason or str(exc)
        files.extend(_code_files(words, cwd, which(words[0], env, cwd)))
    if reason is not None and script is not None:
        # One part of the line runs what nothing on disk identifies.
        return Pins(None, _ordered(None, [*files, *extra]), reason)
    return _pins(script, [*files, *extra], reason)


def _words(line: str) -> list[str]:
    """The words of ``env -S``'s string, read by the shell parser (its first simple command)."""
    from hermes_hooks.shell_syntax import parse

    parsed = parse(line)
    if parsed.error is not None or not parsed.commands:
        raise _Unknown(f"env -S {line!r} cannot be read")
    first = parsed.commands[0]
    return [first.path or first.program, *first.args]


def _expanded(words: Sequence[str], cwd: str, env: Mapping[str, str]) -> list[str]:

    out: list[str] = []
    for word in words:
        word = expand(word, env)
        if any(c in word for c in "*?[") and not _ASSIGNMENT.match(word):
            matches = sorted(glob.glob(os.path.join(cwd, os.path.expanduser(word))))
            if matches:
                out.extend(matches)
                continue
        out.append(word)
    return out


def files_in(paths: Sequence[str], cwd: str) -> list[str]:
    """The files ``pin:`` lists: files as named, directories as every file under them (sorted);
    a missing path stays listed, so that its absence shows as a change."""
    out: list[str] = []
    for name in paths:
        path = _path(name, cwd)
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                out.extend(os.path.join(root, n) for n in sorted(names))
        else:
            out.append(path)
    return out


def which(argv0: str, env: Mapping[str, str] | None, cwd: str | None) -> str | None:
    """The file ``argv0`` runs: a path (relative to ``cwd``) or a name looked up on ``PATH``."""
    if "/" in argv0:
        path = argv0 if os.path.isabs(argv0) or cwd is None else os.path.join(cwd, argv0)
        return path if os.path.exists(path) else None
    search = (env or os.environ).get("PATH", os.defpath)
    return shutil.which(argv0, path=search)


def current_dir() -> str:
    """This process's working directory (its last known path when it was deleted)."""
    try:
        return os.getcwd()
    except OSError:
        return os.environ.get("PWD") or "/"
