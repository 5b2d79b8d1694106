"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``git`` pack: commands that destroy uncommitted work, local history or a remote's history.

Global options before the subcommand (``-C dir``, ``-c key=value``, ``--git-dir``,
``--work-tree``, ...) are skipped; ``--help``/``-h`` and ``git help`` never match. Work-tree and
history destruction asks a human; force-pushing over (or deleting) a protected branch such as
``main`` blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from hermes_hooks.shell_syntax import Command

from ..flags import long, positionals, short, values
from ..rules import Pack, Rule
from ._cli import Test, make_rule

GLOBAL_VALUE_OPTIONS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}
    | {"--exec-path", "--attr-source", "--list-cmds"}
)
"""Git's global options that take the next word as their value."""
PROTECTED = frozenset({"main", "master", "trunk", "develop", "production", "prod", "release"})
"""Branch names whose rewriting or deletion on a remote blocks rather than asks."""
EVERYTHING = frozenset({".", "./", "*", ":/", ":/*", ":(top)", "..", "../", "/"})
"""Pathspecs that cover the whole work tree (or a whole directory of it)."""


def git_call(command: Command) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """``(subcommand, its arguments, the global options)`` of a git command, or ``None`` when
    it runs none (``git --version``, ``git --help``, ``git help reset``, ``git reset -h``)."""
    if command.program.startswith("git-"):  # git-filter-repo, git-obliterate: run directly
        return command.program[4:], command.args, ()
    args = command.args
    i = 0
    while i < len(args) and args[i].startswith("-"):
        word = args[i]
        if word in ("--help", "-h", "--version", "-v"):
            return None
        i += 2 if word in GLOBAL_VALUE_OPTIONS and "=" not in word else 1
    if i >= len(args) or args[i] == "help":
        return None
    rest = args[i + 1 :]
    before = rest[: rest.index("--")] if "--" in rest else rest
    if "-h" in before or "--help" in before:
        return None
    return args[i], rest, args[:i]


Check = Callable[[tuple[str, ...], tuple[str, ...]], bool]
"""A test of a subcommand's arguments and git's global options."""


def _git(subcommands: str, check: Check | Mapping[str, Check]) -> Test:
    """A test matching ``git <one of subcommands> ...`` whose arguments pass ``check`` (or,
    when ``check`` maps subcommands to checks, the check of that subcommand)."""
    wanted = set(subcommands.split())

    def test(command: Command) -> bool:
        call = git_call(command)
        if call is None or call[0] not in wanted:
            return False
        chosen = check[call[0]] if isinstance(check, Mapping) else check
        return chosen(call[1], call[2])

    return test


def _reset_hard(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return long(rest, "--hard", shortest=4) or long(rest, "--merge", shortest=4)


def _clean_force(rest: tuple[str, ...], glob: tuple[str, ...]) -> bool:
    if short(rest, "n", "e") or long(rest, "--dry-run", shortest=4):
        return False
    no_guard = any(
        v.lower().replace(" ", "") == "clean.requireforce=false" for v in values(glob, "-c")
    )
    return no_guard or short(rest, "f", "e") or long(rest, "--force", shortest=4)


PUSH_VALUES = frozenset({"--repo", "--receive-pack", "--exec", "-o", "--push-option"})


def _refspec_targets(rest: tuple[str, ...]) -> list[str]:
    """The remote branches a push names (after the remote), without ``+`` and ``refs/heads/``."""
    words = positionals(rest, PUSH_VALUES)[1:]
    out = []
    for spec in words:
        target = spec.lstrip("+").rsplit(":", 1)[-1]
        out.append(target.removeprefix("refs/heads/"))
    return out


def _forced(rest: tuple[str, ...]) -> bool:
    words = positionals(rest, PUSH_VALUES)[1:]
    return (
        short(rest, "f", "o")
        or long(rest, "--force")
        or long(rest, "--mirror")
        or any(w.startswith("+") for w in words)
    )


def _deleting(rest: tuple[str, ...]) -> bool:
    words = positionals(rest, PUSH_VALUES)[1:]
    return (
        short(rest, "d", "o")
        or long(rest, "--delete", "--prune")
        or any(w.startswith(":") for w in words)
    )


def _touches_protected(rest: tuple[str, ...]) -> bool:
    return any(t in PROTECTED or t.startswith("release/") for t in _refspec_targets(rest))


def _push_force(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return _forced(rest) and not _touches_protected(rest)


def _push_delete(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return _deleting(rest) and not _touches_protected(rest)


def _push_protected(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return (_forced(rest) or _deleting(rest)) and _touches_protected(rest)


def _names_protected(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    """git-extras' ``git delete-branch NAME...`` names a protected branch."""
    return any(w in PROTECTED or w.startswith("release/") for w in positionals(rest))


def _names_unprotected(rest: tuple[str, ...], glob: tuple[str, ...]) -> bool:
    return bool(positionals(rest)) and not _names_protected(rest, glob)


def _push_lease(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return long(rest, "--force-with-lease") and not _forced(rest)


def _branch_force_delete(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    if short(rest, "D"):
        return True
    deleting = short(rest, "d") or long(rest, "--delete")
    return deleting and (short(rest, "f") or long(rest, "--force"))


def _broad(paths: tuple[str, ...]) -> bool:
    return any(p in EVERYTHING or p.endswith("/") for p in paths)


CHECKOUT_VALUES = frozenset({"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"})
FILE_EXTENSIONS = frozenset(
    "txt md rst py js ts jsx tsx mjs cjs json yaml yml toml ini cfg conf env lock xml html css "
    "scss c h cc cpp hpp rs go java kt rb php sh bash zsh sql csv tsv proto tf gradle swift "
    "vue svelte lua pl r ipynb".split()
)
"""Extensions that make ``git checkout notes.txt`` read as a file rather than a branch. Without
``--`` git takes a single word for a branch when one of that name exists, else for a path; the
guard cannot see the refs, so only a word ending in a common file extension (and not a version
such as ``v1.2``) is taken for a path."""


def _looks_like_file(word: str) -> bool:
    stem, dot, ext = word.rpartition(".")
    return bool(dot and stem and not stem.endswith("/")) and ext.lower() in FILE_EXTENSIONS


def _checkout_discard(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    if short(rest, "f", "bB") or long(rest, "--force"):
        return True
    if short(rest, "bB") or long(rest, "--orphan"):
        return False  # creating a branch: git refuses paths with it
    if long(rest, "--pathspec-from-file"):
        return True
    words = positionals(rest, CHECKOUT_VALUES)
    if "--" in rest:
        # git checkout [<tree-ish>] -- <paths>: every word after -- is a path
        return len(rest) > rest.index("--") + 1
    if len(words) >= 2:
        return True  # git checkout <tree-ish> <paths>
    return _broad(words) or any(_looks_like_file(w) for w in words)


def _restore_worktree(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    staged_only = (short(rest, "S", "s") or long(rest, "--staged")) and not (
        short(rest, "W", "s") or long(rest, "--worktree")
    )
    if staged_only:
        return False
    paths = positionals(rest, {"-s", "--source", "--pathspec-from-file"})
    return bool(paths) or long(rest, "--pathspec-from-file")


def _stash(verb: str) -> Check:
    def check(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
        return rest[:1] == (verb,)

    return check


def _always(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return True


NOW = ("now", "all", "0", "never")


def _reflog_expire(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    if rest[:1] == ("delete",):
        return True
    if rest[:1] != ("expire",) or short(rest, "n") or long(rest, "--dry-run"):
        return False
    given = values(rest, "--expire", "--expire-unreachable")
    return any(v.strip().lower() in NOW for v in given)


def _prune_now(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return any(v.strip().lower() in NOW for v in values(rest, "--prune"))


def _prune(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return not (short(rest, "n") or long(rest, "--dry-run"))


def _update_ref_delete(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return short(rest, "d")


def _switch_discard(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return short(rest, "f", "cC") or long(rest, "--discard-changes", "--force")


def _worktree_force(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return rest[:1] == ("remove",) and (short(rest, "f") or long(rest, "--force"))


def _rm_force(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    if long(rest, "--cached") or short(rest, "n") or long(rest, "--dry-run"):
        return False
    return short(rest, "f") or long(rest, "--force")


def _submodule_deinit(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return rest[:1] == ("deinit",) and (short(rest, "f") or long(rest, "--force"))


EXTRAS_DISCARD = (
    "clear clear-soft reset-file force-clone fresh-branch undo delete-squashed-branches"
    " delete-submodule"
)
"""git-extras (and look-alike) subcommands that throw away uncommitted changes, untracked files,
local branches or a submodule: ``git clear`` is ``git clean -fdx`` and ``git reset --hard``,
``git reset-file f`` is ``git checkout HEAD -- f``, ``git force-clone URL dir`` resets ``dir``
to the remote, ``git undo --hard`` drops commits with their changes, ``git
delete-squashed-branches`` force-deletes branches it guesses were squash-merged.
``git delete-merged-branches`` is ``git branch -d`` of merged branches: it passes."""


def _undo_hard(rest: tuple[str, ...], _: tuple[str, ...]) -> bool:
    return long(rest, "--hard")


def _rule(
    name: str,
    reason: str,
    alternative: str,
    catastrophic: bool,
    subcommands: str,
    check: Check | Mapping[str, Check],
) -> Rule:
    programs = ("git", *(f"git-{sub}" for sub in subcommands.split()))
    return make_rule(
        "git", name, reason, alternative, catastrophic, programs, _git(subcommands, check)
    )


RULES = (
    _rule(
        "reset-hard",
        "git reset --hard (or --merge) discards uncommitted changes in the work tree and index",
        "Stash first (git stash), or reset without --hard (git reset --soft / --mixed)",
        False,
        "reset",
        _reset_hard,
    ),
    _rule(
        "clean-force",
        "git clean -f deletes untracked files (with -x also ignored ones); they are not in git",
        "Preview with git clean -n, or remove the specific files you mean",
        False,
        "clean",
        _clean_force,
    ),
    _rule(
        "push-force",
        "A force push replaces the remote branch, dropping commits others may have pushed",
        "Push normally; if history must be rewritten, git push --force-with-lease on your own branch",
        False,
        "push",
        _push_force,
    ),
    _rule(
        "push-force-with-lease",
        "git push --force-with-lease still rewrites the remote branch's history",
        "Push normally, or confirm the branch is yours alone",
        False,
        "push",
        _push_lease,
    ),
    _rule(
        "push-delete",
        "Deleting remote branches or tags (--delete, :branch, --prune, git delete-branch, "
        "git delete-tag) removes them for everyone",
        "Delete the branch in the forge's web UI, where it can be restored",
        False,
        "push delete-branch delete-tag",
        {"push": _push_delete, "delete-branch": _names_unprotected, "delete-tag": _always},
    ),
    _rule(
        "push-protected",
        "Force-pushing over or deleting a protected branch (main, master, ...) rewrites shared history",
        "Open a pull request, or push to a new branch",
        True,
        "push delete-branch",
        {"push": _push_protected, "delete-branch": _names_protected},
    ),
    _rule(
        "branch-force-delete",
        "git branch -D deletes a branch even when its commits are merged nowhere",
        "git branch -d, which refuses to delete unmerged work",
        False,
        "branch",
        _branch_force_delete,
    ),
    _rule(
        "checkout-discard",
        "git checkout -f, or of paths (-- paths, a directory, a file), overwrites their uncommitted changes",
        "git stash first, or git diff the paths to see what would be lost",
        False,
        "checkout",
        _checkout_discard,
    ),
    _rule(
        "restore-worktree",
        "git restore (without --staged alone) throws away uncommitted changes of the paths in the work tree",
        "git restore --staged to unstage only, or git stash to keep the changes",
        False,
        "restore",
        _restore_worktree,
    ),
    _rule(
        "switch-discard",
        "git switch --discard-changes / -f throws away uncommitted changes",
        "git stash, then switch",
        False,
        "switch",
        _switch_discard,
    ),
    _rule(
        "stash-drop",
        "git stash drop deletes a stashed set of changes",
        "Keep the stash, or git stash branch <name> to turn it into a branch",
        False,
        "stash",
        _stash("drop"),
    ),
    _rule(
        "stash-clear",
        "git stash clear deletes every stash",
        "Drop the specific stash you no longer need after checking it with git stash show",
        False,
        "stash",
        _stash("clear"),
    ),
    _rule(
        "rewrite-history",
        "filter-branch / filter-repo / obliterate / reauthor rewrites every commit of the repository",
        "Run it on a fresh clone, keeping the original as a backup",
        False,
        "filter-branch filter-repo obliterate reauthor",
        _always,
    ),
    _rule(
        "reflog-expire",
        "Expiring or deleting reflog entries removes the record needed to recover lost commits",
        "Leave the reflog to expire on its own schedule",
        False,
        "reflog",
        _reflog_expire,
    ),
    _rule(
        "prune-unreachable",
        "Pruning unreachable objects now makes dropped commits and stashes unrecoverable",
        "git gc without --prune=now, which keeps recent unreachable objects",
        False,
        "gc",
        _prune_now,
    ),
    _rule(
        "prune",
        "git prune deletes every unreachable object, with no grace period by default",
        "git gc, which keeps recent unreachable objects",
        False,
        "prune",
        _prune,
    ),
    _rule(
        "update-ref-delete",
        "git update-ref -d deletes a ref directly, without any safety check",
        "git branch -d or git tag -d",
        False,
        "update-ref",
        _update_ref_delete,
    ),
    _rule(
        "worktree-remove-force",
        "git worktree remove --force deletes a worktree with its uncommitted changes",
        "git worktree remove without --force, which refuses when the worktree is dirty",
        False,
        "worktree",
        _worktree_force,
    ),
    _rule(
        "rm-force",
        "git rm -f deletes files from the work tree even when they have uncommitted changes",
        "git rm --cached to stop tracking, or commit the changes first",
        False,
        "rm",
        _rm_force,
    ),
    _rule(
        "extras-discard",
        "git clear / reset-file / force-clone / fresh-branch / undo --hard / "
        "delete-squashed-branches (git-extras) throw away uncommitted changes, untracked files "
        "or unmerged branches",
        "git stash first, or use the plain git command with a dry run (git clean -n, git diff)",
        False,
        EXTRAS_DISCARD,
        {sub: _undo_hard if sub == "undo" else _always for sub in EXTRAS_DISCARD.split()},
    ),
    _rule(
        "submodule-deinit-force",
        "git submodule deinit -f deletes submodule work trees with their local changes",
        "git submodule deinit without -f",
        False,
        "submodule",
        _submodule_deinit,
    ),
)

PACK = Pack(
    "git", "Git commands that destroy uncommitted work or history, locally or on a remote", RULES
)
