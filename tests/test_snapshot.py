"""The snapshot built-in and `hermes hooks snapshots` / `restore`, with real git repositories in
temporary directories, a real config.yaml, and the CLI as a real subprocess (one on a pty)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import hermes_hooks
from hermes_hooks.shadow import Shadow

HERMES_HOOKS = shutil.which("hermes-hooks")
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return out.stdout


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data dir: never the real user's."""
    path = tmp_path / "data"
    monkeypatch.setenv("HERMES_HOOKS_DATA_DIR", str(path))
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: Path) -> Path:
    """A repository with one commit (a.txt, b.txt, .gitignore), the working directory."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    (path / "a.txt").write_text("a\n")
    (path / "b.txt").write_text("b\n")
    (path / ".gitignore").write_text("*.log\n")
    git(path, "add", ".")
    git(path, "commit", "-qm", "init")
    monkeypatch.chdir(path)
    return path


def load(home: Path, setting: object = True) -> hermes_hooks.Hooks:
    (home / "config.yaml").write_text(yaml.safe_dump({"snapshot": setting}))
    return hermes_hooks.load(home, entry_points=False)


def tree(repo: Path, commit: str) -> set[str]:
    return set(Shadow(repo).git("ls-tree", "-r", "--name-only", commit).split())


def fingerprint(git_dir: Path) -> dict[str, str]:
    return {
        str(p.relative_to(git_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(git_dir.rglob("*"))
        if p.is_file()
    }


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    env["HERMES_HOOKS_DATA_DIR"] = os.environ["HERMES_HOOKS_DATA_DIR"]
    return subprocess.run([HERMES_HOOKS, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_snapshots_are_recorded_on_turn_and_tool_events(home, repo):
    hooks = load(home)
    hooks.pre_llm_call(session_id="s1", user_message="hi", is_first_turn=True)
    (repo / "a.txt").write_text("edited\n")
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s1")
    hooks.post_tool_call(tool_name="terminal", args={}, result="ok", status="ok", session_id="s1")
    (repo / "c.txt").write_text("new\n")
    hooks.post_llm_call(session_id="s1", assistant_response="done")
    found = Shadow(repo).snapshots()
    assert [(s.fields["event"], s.fields.get("tool")) for s in found] == [
        ("post_llm_call", None),
        ("pre_tool_call", "terminal"),
        ("pre_llm_call", None),
    ]  # post_tool_call saw the same tree as pre_tool_call: nothing recorded
    assert {s.fields["session"] for s in found} == {"s1"}
    assert tree(repo, found[0].id) == {".gitignore", "a.txt", "b.txt", "c.txt"}
    assert found[0].files_changed == 1 and found[2].files_changed == 3
    assert Shadow(repo).git("show", f"{found[1].id}:a.txt") == "edited\n"


def test_it_only_observes(home, repo):
    hooks = load(home)
    decision = hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s")
    assert decision.action in (None, "allow") and decision.args is None
    assert hooks.pre_llm_call(session_id="s", user_message="hi", is_first_turn=True) is None
    assert len(Shadow(repo).snapshots()) == 1


def test_the_repositorys_ignore_rules_are_honoured(home, repo, tmp_path):
    (repo / ".git" / "info" / "exclude").write_text("private/\n")
    global_ignore = tmp_path / "ignore-file"
    global_ignore.write_text("*.tmp\n")
    git(repo, "config", "core.excludesFile", str(global_ignore))
    (repo / "sub").mkdir()
    (repo / "sub" / ".gitignore").write_text("build/\n")
    for name in ("x.log", "private/key.txt", "scratch.tmp", "sub/build/out.o", "sub/kept.txt"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name)
    load(home).pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    [snap] = Shadow(repo).snapshots()
    assert tree(repo, snap.id) == {".gitignore", "a.txt", "b.txt", "sub/.gitignore", "sub/kept.txt"}


def test_new_files_over_the_limit_are_skipped_tracked_ones_kept(home, repo):
    (repo / "tracked.bin").write_bytes(b"t" * 3000)
    git(repo, "add", "tracked.bin")
    git(repo, "commit", "-qm", "big tracked file")
    (repo / "huge.bin").write_bytes(b"h" * (2 * 1024 * 1024 + 1))
    (repo / "exact.bin").write_bytes(b"e" * (2 * 1024 * 1024))
    load(home).pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    [snap] = Shadow(repo).snapshots()
    assert "huge.bin" not in tree(repo, snap.id) and snap.fields["skipped"] == "huge.bin"
    assert {"exact.bin", "tracked.bin"} <= tree(repo, snap.id)

    (repo / "medium.bin").write_bytes(b"m" * 2000)
    load(home, {"max_file_bytes": 1000}).pre_llm_call(session_id="s", user_message="hi")
    newest = Shadow(repo).snapshots()[0]
    assert "medium.bin" not in tree(repo, newest.id) and "tracked.bin" in tree(repo, newest.id)


def test_repositories_nested_in_the_work_tree_are_left_out(home, repo, data):
    git(repo, "init", "-q", "fresh-clone")  # no commit checked out: `git add` would refuse it
    (repo / "fresh-clone" / "readme").write_text("theirs\n")
    (repo / "mine.txt").write_text("mine\n")
    load(home).pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    [snap] = Shadow(repo).snapshots()
    assert tree(repo, snap.id) == {".gitignore", "a.txt", "b.txt", "mine.txt"}
    assert oct(Shadow(repo).git_dir.stat().st_mode & 0o777) == "0o700"


def test_the_real_git_directory_is_never_written(home, repo):
    before = fingerprint(repo / ".git")
    hooks = load(home)
    hooks.pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    (repo / "a.txt").write_text("changed\n")
    (repo / "big.bin").write_bytes(b"x" * (2 * 1024 * 1024 + 10))  # reads the real index
    hooks.post_tool_call(tool_name="write_file", args={}, result="ok", status="ok")
    first = Shadow(repo).snapshots()[-1].id
    out = cli("restore", first[:12], "--yes", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert fingerprint(repo / ".git") == before  # index, HEAD, config, objects: byte-identical


def test_restore_brings_back_modified_and_deleted_files_and_removes_new_ones(home, repo):
    hooks = load(home)
    (repo / "dir").mkdir()
    (repo / "dir" / "tool.sh").write_text("#!/bin/sh\necho hi\n")
    (repo / "dir" / "tool.sh").chmod(0o755)
    (repo / "kept.log").write_text("ignored, never touched\n")
    hooks.pre_tool_call(tool_name="terminal", args={"command": "rm -rf"}, session_id="s")
    snap = Shadow(repo).snapshots()[0].id[:12]
    (repo / "a.txt").write_text("mangled\n")
    shutil.rmtree(repo / "dir")
    (repo / "b.txt").unlink()
    (repo / "new").mkdir()
    (repo / "new" / "file.txt").write_text("created by the tool\n")
    (repo / "kept.log").write_text("still ignored\n")
    hooks.post_tool_call(tool_name="terminal", args={}, result="", status="ok", session_id="s")

    out = cli("restore", snap, "--yes", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert "overwrite a.txt" in out.stderr and "delete    new/file.txt" in out.stderr
    assert "create    b.txt" in out.stderr and "create    dir/tool.sh" in out.stderr
    assert (repo / "a.txt").read_text() == "a\n" and (repo / "b.txt").read_text() == "b\n"
    assert os.access(repo / "dir" / "tool.sh", os.X_OK)
    assert not (repo / "new").exists()
    assert (repo / "kept.log").read_text() == "still ignored\n"
    assert "1 overwritten, 2 created, 1 deleted" in out.stdout
    again = cli("restore", snap, "--yes", cwd=repo)
    assert "already matches" in again.stdout


def test_a_restore_can_be_undone(home, repo):
    hooks = load(home)
    hooks.pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    snap = Shadow(repo).snapshots()[0].id[:12]
    (repo / "a.txt").write_text("work in progress\n")  # never snapshotted by a hook
    out = cli("restore", snap, "--yes", cwd=repo)
    undo = Shadow(repo).snapshots()[0]
    assert undo.fields == {"event": "restore", "target": snap} and undo.id[:12] in out.stdout
    assert cli("restore", undo.id[:12], "--yes", cwd=repo).returncode == 0
    assert (repo / "a.txt").read_text() == "work in progress\n"


def test_restore_without_a_terminal_refuses_and_says_to_pass_yes(home, repo):
    load(home).pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    snap = Shadow(repo).snapshots()[0].id[:12]
    (repo / "a.txt").write_text("keep me\n")
    out = cli("restore", snap, cwd=repo)
    assert out.returncode == 1 and "pass --yes" in out.stderr and "overwrite a.txt" in out.stderr
    assert (repo / "a.txt").read_text() == "keep me\n"


def _on_a_terminal(args: list[str], cwd: Path, answer: bytes) -> tuple[int, str]:
    controller, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    env["HERMES_HOOKS_DATA_DIR"] = os.environ["HERMES_HOOKS_DATA_DIR"]
    proc = subprocess.Popen([HERMES_HOOKS, *args], cwd=cwd, env=env, stdin=terminal,
                            stdout=terminal, stderr=terminal)  # fmt: skip
    os.close(terminal)
    os.write(controller, answer)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the pty closes when the process exits (EIO on Linux)
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    return proc.wait(timeout=60), b"".join(chunks).decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_restore_asks_on_a_terminal(home, repo):
    load(home).pre_llm_call(session_id="s", user_message="hi", is_first_turn=True)
    snap = Shadow(repo).snapshots()[0].id[:12]
    (repo / "a.txt").write_text("keep me\n")
    code, shown = _on_a_terminal(["restore", snap], repo, b"n\n")
    assert code == 1 and "Restore?" in shown and "overwrite a.txt" in shown
    assert (repo / "a.txt").read_text() == "keep me\n"
    code, shown = _on_a_terminal(["restore", snap], repo, b"y\n")
    assert code == 0 and "Restored snapshot" in shown
    assert (repo / "a.txt").read_text() == "a\n"


def test_snapshots_lists_them(home, repo):
    hooks = load(home)
    hooks.pre_llm_call(session_id="s7", user_message="hi", is_first_turn=True)
    (repo / "a.txt").write_text("x\n")
    hooks.pre_tool_call(tool_name="patch", args={}, session_id="s7")
    rows = json.loads(cli("snapshots", "--json", cwd=repo).stdout)
    assert [(r["event"], r.get("tool"), r["session"], r["files_changed"]) for r in rows] == [
        ("pre_tool_call", "patch", "s7", 1),
        ("pre_llm_call", None, "s7", 3),
    ]
    assert all(len(r["id"]) == 12 and isinstance(r["time"], int) for r in rows)
    table = cli("snapshots", "--repo", str(repo), cwd=home).stdout
    assert rows[0]["id"] in table and "pre_tool_call" in table and "patch" in table
    assert "FILES CHANGED" in table


def test_snapshots_of_a_repository_without_any(repo):
    out = cli("snapshots", cwd=repo)
    assert out.returncode == 0 and "No snapshots of" in out.stdout
    assert json.loads(cli("snapshots", "--json", cwd=repo).stdout) == []
    out = cli("restore", "abc123", "--yes", cwd=repo)
    assert out.returncode == 1 and "no snapshot 'abc123'" in out.stderr


def test_outside_a_repository_nothing_happens(home, data, tmp_path, monkeypatch, caplog):
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    hooks = load(home)
    with caplog.at_level(logging.DEBUG, logger="hermes_hooks"):
        hooks.pre_tool_call(tool_name="terminal", args={}, session_id="s")
    assert not data.exists()
    assert [r.levelno for r in caplog.records if "snapshot" in r.getMessage()] == [logging.DEBUG]
    out = cli("snapshots", cwd=elsewhere)
    assert out.returncode == 1 and "not in a git work tree" in out.stderr


def test_without_git_it_is_silent(home, repo, data, tmp_path, monkeypatch, caplog):
    hooks = load(home)
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with caplog.at_level(logging.DEBUG, logger="hermes_hooks"):
        hooks.pre_tool_call(tool_name="terminal", args={}, session_id="s")
        hooks.post_tool_call(tool_name="terminal", args={}, result="", status="ok")
    assert not data.exists()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_failure_is_logged_once_and_never_reaches_the_agent(home, repo, data, caplog):
    data.write_text("a file where the data directory should be\n")
    hooks = load(home)
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        for n in range(3):
            (repo / "a.txt").write_text(f"{n}\n")
            decision = hooks.pre_tool_call(tool_name="terminal", args={}, session_id="s")
            assert decision.action in (None, "allow")
    warnings = [r.getMessage() for r in caplog.records if "snapshot" in r.getMessage()]
    assert len(warnings) == 1 and "reported once" in warnings[0]


def test_unknown_events_and_arguments_are_reported(home, repo, caplog):
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        hooks = load(home, {"events": ["PreToolUse", "pre_tool_cal"], "max_bytes": 5})
    said = caplog.text
    assert "unknown event 'pre_tool_cal'" in said and "unknown argument 'max_bytes'" in said
    rows = [r for r in hooks.rows() if r["name"] == "builtin:snapshot"]
    assert [r["event"] for r in rows] == ["pre_tool_call"]


def test_listed_like_any_other_hook(home, repo):
    rows = [r for r in load(home).rows() if r["name"] == "builtin:snapshot"]
    assert sorted(r["event"] for r in rows) == [
        "post_llm_call", "post_tool_call", "pre_llm_call", "pre_tool_call"
    ]  # fmt: skip
    assert all(r["status"] == "active" and r["source"] == "builtin" for r in rows)


def test_a_builtin_entry_puts_snapshot_on_its_event_only(home, tmp_path, monkeypatch):
    repo = tmp_path / "entry-repo"
    repo.mkdir()
    for args in (["init", "-q"], ["config", "user.email", "a@b.c"], ["config", "user.name", "A"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    (repo / "f.txt").write_text("one\n")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HERMES_HOOKS_DATA_DIR", str(tmp_path / "data"))
    (home / "config.yaml").write_text(
        "hooks:\n  post_tool_call:\n    - {type: builtin, name: snapshot}\n"
    )
    hooks = hermes_hooks.load(home, entry_points=False)
    rows = [r["event"] for r in hooks.rows() if r["name"] == "builtin:snapshot"]
    assert rows == ["post_tool_call"]


@pytest.mark.parametrize("limit", [50, "50"], ids=["int", "str"])  # read alike by the CLI
def test_restore_leaves_new_files_over_the_configured_limit_alone(home, repo, limit):
    hooks = load(home, {"max_file_bytes": limit})
    hooks.pre_tool_call(tool_name="terminal", args={"command": "ls"}, session_id="s")
    snap = Shadow(repo).snapshots()[0].id[:12]
    (repo / "big.bin").write_text("x" * 100)  # over the configured 50 bytes: never recorded
    (repo / "small.txt").write_text("y")
    out = cli("--home", str(home), "restore", snap, "--yes", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert (repo / "big.bin").exists() and not (repo / "small.txt").exists()
    assert "big.bin" not in out.stderr


def test_a_bad_size_limit_is_reported_and_the_default_used(home, repo, caplog):
    with caplog.at_level(logging.WARNING, logger="hermes_hooks"):
        hooks = load(home, {"max_file_bytes": "lots"})
    assert "max_file_bytes must be a positive whole number of bytes, not 'lots'" in caplog.text
    [row] = [r for r in hooks.rows() if r["name"] == "builtin:snapshot"][:1]
    assert row["matcher"] == f"new files ≤ {2 * 1024 * 1024} bytes"


# ---------------------------------------------------------------------- restore: checked again


def _restore_swapping(repo: Path, snap: str, swap) -> tuple[int, str]:
    """``hermes hooks restore SNAP`` on a real pty: once the plan is shown and it asks,
    ``swap()`` changes the work tree, then the answer is yes."""
    controller, terminal = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES")}
    env["HERMES_HOOKS_DATA_DIR"] = os.environ["HERMES_HOOKS_DATA_DIR"]
    proc = subprocess.Popen([HERMES_HOOKS, "restore", snap], cwd=repo, env=env, stdin=terminal,
                            stdout=terminal, stderr=terminal)  # fmt: skip
    os.close(terminal)
    chunks: list[bytes] = []
    asked = False
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the pty closes when the process exits (EIO on Linux)
            break
        if not chunk:
            break
        chunks.append(chunk)
        if not asked and b"Restore?" in b"".join(chunks):
            asked = True
            swap()
            os.write(controller, b"y\n")
    os.close(controller)
    assert asked, b"".join(chunks)
    return proc.wait(timeout=60), b"".join(chunks).decode(errors="replace")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A sibling of the repository in the test's own tmp dir, holding files of the same names
    as the ones a restore will delete: what must survive."""
    path = tmp_path / "outside"
    path.mkdir()
    for name in ("new.txt", "other.txt", "a.txt"):
        (path / name).write_text(f"outside {name}\n")
    return path


def _snapshot_then_change(home: Path, repo: Path) -> str:
    """A snapshot with sub/a.txt; then sub/a.txt changed and sub/new.txt, sub/other.txt and
    top.txt created (the restore deletes those three and overwrites sub/a.txt)."""
    (repo / "sub").mkdir()
    (repo / "sub" / "a.txt").write_text("sub a\n")
    hooks = load(home)
    hooks.pre_tool_call(tool_name="terminal", args={}, session_id="s")
    snap = Shadow(repo).snapshots()[0].id[:12]
    (repo / "sub" / "a.txt").write_text("changed\n")
    (repo / "sub" / "new.txt").write_text("new\n")
    (repo / "sub" / "other.txt").write_text("other\n")
    (repo / "top.txt").write_text("top\n")
    return snap


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty and symlinks")
def test_a_directory_swapped_for_a_symlink_after_the_confirmation_deletes_nothing_outside(
    home, repo, outside, tmp_path
):
    snap = _snapshot_then_change(home, repo)

    def swap() -> None:
        (repo / "sub").rename(tmp_path / "sub-moved")
        (repo / "sub").symlink_to(outside, target_is_directory=True)

    code, shown = _restore_swapping(repo, snap, swap)
    assert code == 1, shown
    for name in ("new.txt", "other.txt", "a.txt"):
        assert (outside / name).read_text() == f"outside {name}\n"
    assert (repo / "sub").is_symlink()  # left as the user made it
    assert "sub/new.txt: sub is now a symlink, not a directory" in shown
    assert "sub/other.txt: sub is now a symlink, not a directory" in shown
    assert "sub/a.txt: sub is now a symlink, not a directory" in shown
    assert not (repo / "top.txt").exists()  # what is still as planned is restored
    assert "0 overwritten, 0 created, 1 deleted; 3 left alone." in shown


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty and symlinks")
def test_a_file_swapped_for_a_symlink_or_a_directory_is_left_alone(home, repo, outside):
    snap = _snapshot_then_change(home, repo)

    def swap() -> None:
        (repo / "top.txt").unlink()
        (repo / "top.txt").symlink_to(outside / "new.txt")
        (repo / "sub" / "a.txt").unlink()
        (repo / "sub" / "a.txt").mkdir()
        (repo / "sub" / "a.txt" / "work.txt").write_text("work\n")

    code, shown = _restore_swapping(repo, snap, swap)
    assert code == 1, shown
    assert "top.txt: is now a symlink; the plan saw a file" in shown
    assert "sub/a.txt: is now a directory; the plan saw a file" in shown
    assert (repo / "top.txt").is_symlink() and (
        outside / "new.txt"
    ).read_text() == "outside new.txt\n"
    assert (repo / "sub" / "a.txt" / "work.txt").read_text() == "work\n"
    assert not (repo / "sub" / "new.txt").exists() and not (repo / "sub" / "other.txt").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_a_directory_to_recreate_that_is_now_a_file_is_left_alone(home, repo):
    (repo / "dir").mkdir()
    (repo / "dir" / "tool.sh").write_text("#!/bin/sh\n")
    hooks = load(home)
    hooks.pre_tool_call(tool_name="terminal", args={}, session_id="s")
    snap = Shadow(repo).snapshots()[0].id[:12]
    shutil.rmtree(repo / "dir")
    (repo / "a.txt").write_text("changed\n")

    def swap() -> None:
        (repo / "dir").write_text("a file the user wrote meanwhile\n")

    code, shown = _restore_swapping(repo, snap, swap)
    assert code == 1, shown
    assert "dir/tool.sh: dir is now a file, not a directory" in shown
    assert (repo / "dir").read_text() == "a file the user wrote meanwhile\n"
    assert (repo / "a.txt").read_text() == "a\n"  # the rest is restored


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_a_file_created_where_the_plan_saw_nothing_is_left_alone(home, repo):
    load(home).pre_tool_call(tool_name="terminal", args={}, session_id="s")
    snap = Shadow(repo).snapshots()[0].id[:12]
    (repo / "b.txt").unlink()

    def swap() -> None:
        (repo / "b.txt").write_text("written meanwhile\n")

    code, shown = _restore_swapping(repo, snap, swap)
    assert code == 1 and "b.txt: is now a file; the plan saw nothing there" in shown
    assert (repo / "b.txt").read_text() == "written meanwhile\n"


@pytest.fixture
def locked_dir():
    """Makes a directory refuse changes to its entries (``chattr +i`` as root, who ignores
    modes; mode 0555 otherwise), and gives it back afterwards."""
    locked: list[Path] = []

    def lock(path: Path) -> None:
        if os.geteuid() == 0:
            if shutil.which("chattr") is None:
                pytest.skip("root without chattr: no way to deny a deletion")
            if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
                pytest.skip("this file system has no immutable attribute")
        else:
            path.chmod(0o555)
        locked.append(path)

    yield lock
    for path in locked:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        else:
            path.chmod(0o755)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_a_deletion_the_system_refuses_is_reported_and_the_rest_restored(home, repo, locked_dir):
    snap = _snapshot_then_change(home, repo)
    code, shown = _restore_swapping(repo, snap, lambda: locked_dir(repo / "sub"))
    assert code == 1, shown
    assert "sub/new.txt: Operation not permitted" in shown or (
        "sub/new.txt: Permission denied" in shown
    )
    assert (repo / "sub" / "new.txt").read_text() == "new\n"
    assert not (repo / "top.txt").exists()  # the other deletion went ahead


def test_restoring_a_snapshot_that_does_not_exist(home, repo):
    load(home).pre_tool_call(tool_name="terminal", args={}, session_id="s")
    (repo / "a.txt").write_text("keep\n")
    out = cli("restore", "0123456789ab", "--yes", cwd=repo)
    assert out.returncode == 1 and "no snapshot '0123456789ab'" in out.stderr
    assert "Traceback" not in out.stderr and (repo / "a.txt").read_text() == "keep\n"


def _object_file(repo: Path, rev: str) -> Path:
    shadow = Shadow(repo)
    sha = shadow.git("rev-parse", rev).strip()
    return shadow.git_dir / "objects" / sha[:2] / sha[2:]


def test_a_damaged_snapshot_is_refused_before_anything_is_touched(home, repo):
    load(home).pre_tool_call(tool_name="terminal", args={}, session_id="s")
    snap = Shadow(repo).snapshots()[0].id
    (repo / "b.txt").unlink()
    (repo / "new.txt").write_text("made since\n")
    blob = _object_file(repo, f"{snap}:b.txt")
    blob.rename(blob.with_suffix(".aside"))  # the content of b.txt is gone from the shadow
    out = cli("restore", snap[:12], "--yes", cwd=repo)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert f"snapshot {snap[:12]} is damaged" in out.stderr and "nothing was restored" in out.stderr
    assert (repo / "new.txt").read_text() == "made since\n"  # not deleted first


def test_a_snapshot_whose_commit_is_garbage_is_reported(home, repo):
    load(home).pre_tool_call(tool_name="terminal", args={}, session_id="s")
    snap = Shadow(repo).snapshots()[0].id
    (repo / "a.txt").write_text("keep\n")
    commit = _object_file(repo, snap)
    commit.chmod(0o644)
    commit.write_bytes(b"\x00garbage, not a zlib stream")
    out = cli("restore", snap[:12], "--yes", cwd=repo)
    assert out.returncode == 1 and "Traceback" not in out.stderr and out.stderr.startswith("Error:")
    assert (repo / "a.txt").read_text() == "keep\n"


def test_the_plan_shows_file_names_escaped(home, repo):
    load(home).pre_tool_call(tool_name="terminal", args={}, session_id="s")
    snap = Shadow(repo).snapshots()[0].id[:12]
    (repo / "evil\x1b]0;owned\x07\x1b[2J.txt").write_text("made since\n")
    out = cli("restore", snap, "--yes", cwd=repo)
    assert out.returncode == 0, out.stderr
    assert "delete    evil\\x1b]0;owned\\x07\\x1b[2J.txt" in out.stderr
    assert "\x1b" not in out.stderr + out.stdout


def test_snapshots_lists_session_and_tool_names_escaped(home, repo):
    hooks = load(home)
    hooks.pre_tool_call(tool_name="tool\x1b[2J", args={}, session_id="s\x1b]0;owned\x07")
    out = cli("snapshots", cwd=repo)
    assert out.returncode == 0 and "tool\\x1b[2J" in out.stdout
    assert "s\\x1b]0;owned\\x07" in out.stdout and "\x1b" not in out.stdout
