"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

Snapshots of a git work tree, kept in a shadow repository under the user data directory.

One shadow repository per real repository (keyed by a hash of its absolute path) lives in
``<data dir>/snapshots/<key>``; the data dir is ``platformdirs.user_data_dir("hermes-hooks")``,
or ``$HERMES_HOOKS_DATA_DIR``. Every git command that writes runs as
``GIT_DIR=<shadow> GIT_WORK_TREE=<repo> GIT_INDEX_FILE=<shadow index>``: the real ``.git`` is
only ever read (its ``info/exclude`` and ``core.excludesFile``, so the repo's ignore rules hold,
and its index, to tell new files from tracked ones), never written. Each snapshot is a commit on
``refs/hermes/snapshots`` whose tree is the work tree and whose message carries the event,
session and tool. Used by the ``snapshot`` built-in and ``hermes hooks snapshots``/``restore``.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

DATA_ENV = "HERMES_HOOKS_DATA_DIR"
REF = "refs/hermes/snapshots"
MAX_FILE_BYTES = 2 * 1024 * 1024
GIT_TIMEOUT = 120.0
#: Variables that would point git at another repository, index or object store than ours.
_REDIRECTS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)
#: Keys of the snapshot commit message, in the order written.
FIELDS = ("event", "session", "tool", "target", "skipped")
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


class SnapshotError(Exception):
    """A git command of the shadow repository failed (the message is git's)."""


class GitMissing(Exception):
    """git itself could not be started (not installed, not on ``PATH``)."""


def data_dir() -> Path:
    """Where per-user state lives: ``$HERMES_HOOKS_DATA_DIR``, else the platform's data dir."""
    override = os.environ.get(DATA_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir("hermes-hooks"))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _REDIRECTS}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.update(extra)
    return env


def git(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
        stdin: str | bytes | None = None) -> str:  # fmt: skip
    """``git args``: its stdout; :class:`SnapshotError` when it fails, :class:`GitMissing`
    when git cannot be started."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    try:
        # no stdin of ours reaches git: an empty pipe when there is nothing to send
        out = subprocess.run(
            ["git", *args], cwd=cwd, env=env or _env(), input=data or b"", capture_output=True,
            timeout=GIT_TIMEOUT, check=False,
        )  # fmt: skip
    except (FileNotFoundError, PermissionError) as exc:
        if cwd is not None and not Path(cwd).is_dir():
            raise NotADirectoryError(str(cwd)) from exc
        raise GitMissing(f"git could not be started: {exc.strerror or exc}") from exc
    if out.returncode != 0:
        message = out.stderr.decode(errors="replace").strip() or f"exit {out.returncode}"
        raise SnapshotError(f"git {args[0]}: {message}")
    return out.stdout.decode(errors="surrogateescape")


def toplevel(path: Path | str) -> Path | None:
    """The work tree root of the git repository containing ``path``, or ``None`` (not in a
    work tree). Raises :class:`GitMissing` without git."""
    try:
        out = git("rev-parse", "--show-toplevel", cwd=Path(path))
    except (SnapshotError, subprocess.TimeoutExpired, NotADirectoryError, FileNotFoundError):
        return None
    return Path(out.strip()) if out.strip() else None


@dataclass
class Snapshot:
    """One recorded snapshot (a commit of the shadow repository)."""

    id: str
    time: int
    fields: dict[str, str]
    files_changed: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id[:12], "commit": self.id, "time": self.time, **self.fields,
                "files_changed": self.files_changed}  # fmt: skip


@dataclass
class Plan:
    """What restoring a snapshot does to the work tree: paths written, overwritten, deleted,
    and what each path was when the plan was made (:func:`kind_of`), which the restore checks
    again right before it touches the path."""

    target: str
    current: str
    create: list[str] = field(default_factory=list)
    overwrite: list[str] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.create or self.overwrite or self.delete)


@dataclass
class Restored:
    """What a restore did: the snapshot of the work tree before it, the paths it wrote and
    deleted, and each path it left alone with the reason (``refused``: no longer as planned;
    a path of ``""`` is a failure of the writing step as a whole, git's message)."""

    before: str | None
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


class Refused(Exception):
    """A path of a restore plan that is no longer what the plan saw (the message says how)."""


#: Opening a directory of the work tree: never through a symlink, never left open across exec.
#: (Windows has neither O_DIRECTORY nor O_NOFOLLOW nor dir_fd: a restore there fails as a whole.)
_DIR = (
    os.O_RDONLY
    | getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def _kind_at(dir_fd: int, name: str) -> str:
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return "missing"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISREG(mode):
        return "file"
    return "directory" if stat.S_ISDIR(mode) else "special file"


class _Walk:
    """The directories leading to ``path`` under the work tree ``root``, opened one by one
    from an open handle on the root with ``O_NOFOLLOW | O_DIRECTORY``: a symlink, a file or
    anything else where a directory is expected is refused, so nothing done through the last
    handle can reach outside the root, whatever is swapped in meanwhile. ``fds[i]`` is the
    directory holding ``parts[i]``; ``missing``: the first leading directory that does not
    exist (then ``fds`` stops there)."""

    def __init__(self, root_fd: int, path: str) -> None:
        self.parts = path.split("/")
        if any(part in ("", ".", "..") for part in self.parts):
            raise Refused("not a plain path inside the repository")
        self.fds: list[int] = []
        self.missing: str | None = None
        fd = os.dup(root_fd)
        self.fds.append(fd)
        try:
            for depth, name in enumerate(self.parts[:-1], start=1):
                try:
                    fd = os.open(name, _DIR, dir_fd=fd)
                except FileNotFoundError:
                    self.missing = "/".join(self.parts[:depth])
                    return
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                        where = "/".join(self.parts[:depth])
                        kind = _kind_at(fd, name)
                        raise Refused(f"{where} is now a {kind}, not a directory") from None
                    raise
                self.fds.append(fd)
        except BaseException:
            self.close()
            raise

    @property
    def parent(self) -> int:
        return self.fds[-1]

    @property
    def kind(self) -> str:
        """What is at the path now (``missing`` when a leading directory is missing)."""
        return "missing" if self.missing else _kind_at(self.parent, self.parts[-1])

    def prune(self) -> None:
        """Remove the leading directories left empty, deepest first (``rmdir`` never follows
        a symlink and never removes a directory that is not empty)."""
        for depth in range(len(self.fds) - 1, 0, -1):
            try:
                os.rmdir(self.parts[depth - 1], dir_fd=self.fds[depth - 1])
            except OSError:
                return

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []


def _a(kind: str | None) -> str:
    if kind == "missing":
        return "nothing there"
    return f"a {kind}" if kind else "nothing known"


def kind_of(root: Path, path: str) -> str:
    """What is at ``path`` under the work tree ``root``: ``file``, ``symlink``, ``directory``,
    ``special file`` or ``missing``, without following a symlink anywhere on the way (a
    leading component that is not a directory: ``blocked``)."""
    root_fd = os.open(root, _DIR)
    try:
        walk = _Walk(root_fd, path)
    except Refused:
        return "blocked"
    finally:
        os.close(root_fd)
    try:
        return walk.kind
    finally:
        walk.close()


class Shadow:
    """The shadow repository of one real repository."""

    def __init__(self, repo: Path, root: Path | None = None) -> None:
        self.repo = repo.resolve()
        key = hashlib.sha256(str(self.repo).encode()).hexdigest()[:16]
        self.git_dir = (root or data_dir()) / "snapshots" / key
        self.index = self.git_dir / "index"
        self._excludes: str | None = None  # the real repo's core.excludesFile, once read
        self._exclude_source: Path | None = None  # and its info/exclude

    @property
    def exists(self) -> bool:
        return (self.git_dir / "HEAD").is_file()

    def git(self, *args: str, index: Path | None = None, stdin: str | bytes | None = None) -> str:
        """git on the shadow repository with the real repo as its work tree."""
        env = _env(
            GIT_DIR=str(self.git_dir), GIT_WORK_TREE=str(self.repo),
            GIT_INDEX_FILE=str(index or self.index),
            GIT_AUTHOR_NAME="hermes-hooks", GIT_AUTHOR_EMAIL="hermes-hooks@localhost",
            GIT_COMMITTER_NAME="hermes-hooks", GIT_COMMITTER_EMAIL="hermes-hooks@localhost",
        )  # fmt: skip
        return git(*self._config(), *args, cwd=self.repo, env=env, stdin=stdin)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One writer at a time per shadow within this process (tools may run concurrently)."""
        with _locks_guard:
            lock = _locks.setdefault(str(self.git_dir), threading.Lock())
        with lock:
            yield

    def _config(self) -> list[str]:
        # The real repo's core.excludesFile (its own config or the user's), which git would not
        # read through the shadow's config; unset, git's default global ignore file applies.
        value = self._excludes
        if value is None:
            try:
                value = git("config", "--path", "--get", "core.excludesFile", cwd=self.repo).strip()
            except SnapshotError:
                value = ""
            self._excludes = value
        return ["-c", f"core.excludesFile={value}"] if value else []

    def init(self) -> None:
        """Create the shadow repository (once) and copy the real repo's ``info/exclude``."""
        if not self.exists:
            self.git_dir.mkdir(parents=True, exist_ok=True)
            self.git_dir.chmod(0o700)  # it holds copies of the user's files
            git("init", "--bare", "--quiet", str(self.git_dir), env=_env())
            git("--git-dir", str(self.git_dir), "config", "core.bare", "false", env=_env())
            (self.git_dir / "hermes-repo").write_text(str(self.repo) + "\n", encoding="utf-8")
        source = self._exclude_source
        if source is None:
            real = git("rev-parse", "--git-path", "info/exclude", cwd=self.repo).strip()
            source = self._exclude_source = self.repo / real
        text = source.read_text(encoding="utf-8", errors="replace") if source.is_file() else ""
        target = self.git_dir / "info" / "exclude"
        if not target.is_file() or target.read_text(encoding="utf-8", errors="replace") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")

    def last(self) -> str | None:
        """The newest snapshot's commit, or ``None``."""
        try:
            return self.git("rev-parse", "--quiet", "--verify", f"{REF}^{{commit}}").strip()
        except SnapshotError:
            return None

    def _tracked(self) -> set[str]:
        """Paths the real repo tracks (read from its index; ``ls-files`` never writes it)."""
        out = git("ls-files", "-z", cwd=self.repo, env=_env())
        return set(out.split("\0")) - {""}

    def stage(self, index: Path, max_file_bytes: int) -> tuple[str, list[str]]:
        """Bring ``index`` up to the work tree (ignore rules honoured; files neither in it nor
        tracked by the real repo and over ``max_file_bytes`` left out, and repositories nested
        in the work tree, which are their own): its tree and the big files left out."""
        others = self.git("ls-files", "-z", "--others", "--exclude-standard", index=index)
        big, nested = [], []
        for path in filter(None, others.split("\0")):
            if path.endswith("/"):  # a repository inside the work tree (a clone, a submodule)
                nested.append(path.rstrip("/"))
                continue
            try:
                size = os.lstat(self.repo / path).st_size
            except OSError:
                continue
            if size > max_file_bytes:
                big.append(path)
        if big:
            tracked = self._tracked()
            big = [p for p in big if p not in tracked]
        specs = ["."] + [f":(exclude,literal){p}" for p in big + nested]
        self.git(
            "add", "--all", "--pathspec-from-file=-", "--pathspec-file-nul",
            index=index, stdin="\0".join(specs),
        )  # fmt: skip
        return self.git("write-tree", index=index).strip(), big

    def commit(self, tree: str, fields: dict[str, str]) -> str | None:
        """A snapshot of ``tree`` on top of the last one, or ``None`` if it is the same tree."""
        # the newest snapshot and its tree; nothing at all before the first snapshot
        newest = self.git("for-each-ref", "--format=%(objectname) %(tree)", REF).split()
        parent, last_tree = newest if len(newest) == 2 else ("", "")
        if last_tree == tree:
            return None
        title = " ".join(v for k in ("event", "tool") if (v := fields.get(k)))
        body = "".join(f"{k}: {fields[k]}\n" for k in FIELDS if fields.get(k))
        args = ["commit-tree", tree, *(["-p", parent] if parent else [])]
        commit = self.git(*args, stdin=f"{title or 'snapshot'}\n\n{body}").strip()
        self.git("update-ref", REF, commit, *([parent] if parent else []))
        return commit

    def record(self, fields: dict[str, str], max_file_bytes: int = MAX_FILE_BYTES) -> str | None:
        """Snapshot the work tree; the new commit, or ``None`` when nothing changed."""
        with self.locked():
            self.init()
            tree, skipped = self.stage(self.index, max_file_bytes)
            if skipped:
                fields = {**fields, "skipped": ", ".join(skipped)}
            return self.commit(tree, fields)

    def snapshots(self) -> list[Snapshot]:
        """Every snapshot, newest first, with the number of files each changed."""
        if not self.exists or self.last() is None:
            return []
        out = self.git("log", "--root", "--name-only", "--no-renames",
                       "--format=%x1e%H%x1f%ct%x1f%B%x1f", REF)  # fmt: skip
        found = []
        for chunk in out.split("\x1e")[1:]:
            commit, time, message, names = chunk.split("\x1f", 3)
            fields = {}
            for line in message.splitlines()[2:]:
                key, sep, value = line.partition(": ")
                if sep and key in FIELDS:
                    fields[key] = value
            changed = sum(1 for line in names.splitlines() if line.strip())
            found.append(Snapshot(commit, int(time), fields, changed))
        return found

    def resolve(self, ident: str) -> str:
        """The snapshot commit ``ident`` (an id or a prefix of one) names."""
        for snap in self.snapshots():
            if ident and snap.id.startswith(ident.lower()):
                return snap.id
        raise SnapshotError(f"no snapshot {ident!r} for {self.repo} (see `hermes hooks snapshots`)")

    def plan(self, ident: str, max_file_bytes: int = MAX_FILE_BYTES) -> Plan:
        """What restoring ``ident`` would change, against the work tree as it is now."""
        target = self.resolve(ident)
        with self.locked(), self._scratch() as index:
            self.init()
            current, _ = self.stage(index, max_file_bytes)
        plan = Plan(target, current)
        out = self.git("diff-tree", "-r", "-z", "--no-renames", "--name-status", current, target)
        parts = out.split("\0")
        for status, path in zip(parts[0::2], parts[1::2], strict=False):
            kind = kind_of(self.repo, path)  # no symlink followed on the way
            if status == "D":
                plan.delete.append(path)
            elif status == "A" and kind in ("missing", "blocked"):
                # nothing there, or behind a non-directory: one the plan deletes is gone by
                # the time this is written; any other is refused then
                plan.create.append(path)
                kind = "missing"
            else:
                plan.overwrite.append(path)
            plan.kinds[path] = kind
        return plan

    def restore(self, plan: Plan) -> Restored:
        """Make the work tree match ``plan.target``; first record the current state (so a
        restore can be undone). Each path is checked again right before it is touched, through
        directory handles opened without following symlinks (:class:`_Walk`): a path whose
        leading directories are no longer directories, or which is no longer the kind of thing
        the plan saw (a directory or a symlink where a file was, a file where nothing was), is
        left alone and listed in :attr:`Restored.refused`, as is one the system refuses to
        touch (permission denied)."""
        with self.locked():
            self._verify(plan)
            fields = {"event": "restore", "target": plan.target[:12]}
            done = Restored(self.commit(plan.current, fields) or self.last())
            root_fd = os.open(self.repo, _DIR)
            try:
                for path in plan.delete:
                    self._act(root_fd, path, plan.kinds.get(path), done, delete=True)
                for path in plan.create + plan.overwrite:
                    self._act(root_fd, path, plan.kinds.get(path), done, delete=False)
            finally:
                os.close(root_fd)
            if done.written:
                with self._scratch() as index:
                    self.git("read-tree", plan.target, index=index)
                    try:
                        self.git("checkout-index", "--force", "-z", "--stdin", index=index,
                                 stdin="\0".join(done.written))  # fmt: skip
                    except SnapshotError as exc:
                        done.refused.append(("", str(exc)))
            self.git("read-tree", plan.target)  # the shadow index now is the restored tree
        return done

    def _verify(self, plan: Plan) -> None:
        """Every object the restore will write is in the shadow repository and readable, before
        anything is touched: a damaged snapshot is refused whole."""
        written = set(plan.create + plan.overwrite)
        if not written:
            return
        listing = self.git("ls-tree", "-r", "-z", "--full-tree", plan.target)
        blobs = []
        for entry in filter(None, listing.split("\0")):
            meta, _, path = entry.partition("\t")
            if path in written:
                blobs.append(meta.split()[2])
        if len(blobs) != len(written):
            raise SnapshotError(
                f"snapshot {plan.target[:12]} is damaged (paths of its plan are not in its "
                "tree); nothing was restored"
            )
        try:
            out = self.git("cat-file", "--batch-check", stdin="\n".join(blobs) + "\n")
        except SnapshotError as exc:
            raise SnapshotError(f"snapshot {plan.target[:12]} is damaged: {exc}") from None
        broken = [line for line in out.splitlines() if not line.endswith(tuple("0123456789"))]
        if broken or len(out.splitlines()) != len(blobs):
            raise SnapshotError(
                f"snapshot {plan.target[:12]} is damaged ({'; '.join(broken) or 'objects missing'}); "
                "nothing was restored"
            )

    def _act(self, root_fd: int, path: str, planned: str | None, done: Restored,
             *, delete: bool) -> None:  # fmt: skip
        """Check ``path`` again and delete it, or clear it for git to write; record which."""
        try:
            walk = _Walk(root_fd, path)
        except Refused as exc:
            done.refused.append((path, str(exc)))
            return
        except OSError as exc:
            done.refused.append((path, exc.strerror or str(exc)))
            return
        try:
            now = walk.kind
            if delete and now == "missing":
                return  # already as the snapshot has it
            if now != planned:
                done.refused.append((path, f"is now {_a(now)}; the plan saw {_a(planned)}"))
                return
            if not delete:
                if now == "directory":  # git would remove all of it to write one file
                    done.refused.append((path, "is a directory; the snapshot has a file there"))
                else:
                    done.written.append(path)
                return
            try:
                os.unlink(walk.parts[-1], dir_fd=walk.parent)
            except OSError as exc:
                done.refused.append((path, exc.strerror or str(exc)))
                return
            done.deleted.append(path)
            walk.prune()
        finally:
            walk.close()

    @contextmanager
    def _scratch(self) -> Iterator[Path]:
        """A temporary index in the shadow repository, starting as a copy of its own."""
        handle, name = tempfile.mkstemp(prefix="index-", dir=self.git_dir)
        os.close(handle)
        path = Path(name)
        try:
            path.write_bytes(self.index.read_bytes() if self.index.is_file() else b"")
            if not path.stat().st_size:
                path.unlink()  # git wants no file rather than an empty one
            yield path
        finally:
            path.unlink(missing_ok=True)
