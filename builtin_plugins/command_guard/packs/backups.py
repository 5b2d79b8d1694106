"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``backups`` pack: backup tools deleting the backups themselves.

Forgetting or pruning snapshots (``restic forget``/``prune``, ``borg prune``, ``kopia snapshot
expire --delete``, ``duplicity remove-older-than --force``) and deleting single archives or
snapshots (``borg delete repo::archive``, ``kopia snapshot delete``, ``tarsnap -d``) ask;
deleting a whole repository (``borg delete repo``, ``borg repo-delete``, ``tarsnap --nuke``)
blocks: it is the last copy of the data it was made to keep. Dry runs and help never match.
(``rclone purge``/``delete`` are in the ``cloud`` pack.)
"""

from __future__ import annotations

from functools import partial

from hermes_hooks.shell_syntax import Command

from ..flags import long, positionals, short, values
from ..rules import Pack
from ._cli import Test, make_rule

RESTIC_VALUES = frozenset(
    {"-r", "--repo", "--repository-file", "-p", "--password-file", "--password-command"}
    | {"--cacert", "--cache-dir", "-o", "--option", "--limit-upload", "--limit-download"}
    | {"--tls-client-cert", "--key-hint", "--pack-size", "--compression"}
)
BORG_VALUES = frozenset(
    {"-r", "--repo", "--remote-path", "--lock-wait", "--rsh", "--umask", "--debug-topic"}
    | {"-a", "--glob-archives", "--match-archives", "-P", "--prefix", "--first", "--last"}
    | {"--keep-within", "--keep-last", "--keep-secondly", "--keep-minutely", "--keep-hourly"}
    | {"-H", "-d", "--keep-daily", "-w", "--keep-weekly", "-m", "--keep-monthly", "-y"}
    | {"--keep-yearly", "--sort-by", "--checkpoint-interval", "--format"}
)
"""borg's options (global and of ``prune``/``delete``) that take a value."""
BORG_ARCHIVE_OPTIONS = (
    "-a",
    "--glob-archives",
    "--match-archives",
    "-P",
    "--prefix",
    "--first",
    "--last",
)
"""Options of ``borg delete`` that pick archives rather than the whole repository."""
KOPIA_VALUES = frozenset({"--config-file", "--password", "-p", "--log-level", "--cache-directory"})


def _dry(command: Command) -> bool:
    return short(command.args, "n") or long(command.args, "--dry-run")


def _restic_prune(command: Command) -> bool:
    words = positionals(command.args, RESTIC_VALUES)
    return words[:1] in (("forget",), ("prune",)) and not _dry(command)


def _borg_words(command: Command) -> tuple[str, ...]:
    return positionals(command.args, BORG_VALUES)


def _borg_prune(command: Command) -> bool:
    return _borg_words(command)[:1] == ("prune",) and not _dry(command)


def _borg_delete(command: Command) -> bool | None:
    """Whether a ``borg delete`` deletes the whole repository (``None``: it is no delete).

    borg 1 names ``REPO::ARCHIVE`` (an archive) or ``REPO`` (the repository, every archive in
    it); borg 2 names the repository with ``-r`` and only ever deletes archives with
    ``delete`` (``repo-delete``/``rdelete`` delete the repository)."""
    words = _borg_words(command)
    if words[:1] in (("repo-delete",), ("rdelete",)):
        return not _dry(command)
    if words[:1] != ("delete",) or _dry(command) or long(command.args, "--cache-only"):
        return None
    if values(command.args, "-r", "--repo") or values(command.args, *BORG_ARCHIVE_OPTIONS):
        return False
    operands = words[1:]  # borg 1.2 also takes ``REPO ARCHIVE...``
    return len(operands) <= 1 and not any("::" in w for w in operands)


def _borg_delete_repository(command: Command) -> bool:
    return _borg_delete(command) is True


def _borg_delete_archive(command: Command) -> bool:
    return _borg_delete(command) is False


def _kopia(command: Command) -> tuple[str, ...]:
    words = positionals(command.args, KOPIA_VALUES)
    return ("snapshot", *words[1:]) if words[:1] == ("snap",) else words


def _kopia_expire(command: Command) -> bool:
    return _kopia(command)[:2] == ("snapshot", "expire") and long(command.args, "--delete")


def _kopia_delete(command: Command) -> bool:
    return _kopia(command)[:2] in (("snapshot", "delete"), ("snapshot", "rm"))


DUPLICITY_REMOVE = ("remove-older-than", "remove-all-but-n-full", "remove-all-inc-of-but-n-full")


def _duplicity_remove(command: Command) -> bool:
    """``duplicity remove-*`` only lists what it would delete unless ``--force`` is given."""
    words = positionals(command.args, {"--archive-dir", "--name", "--log-file", "-t", "--time"})
    return bool(words) and words[0] in DUPLICITY_REMOVE and long(command.args, "--force")


def _tarsnap_delete(command: Command) -> bool:
    return short(command.args, "d", "fC") and not _dry(command)


def _tarsnap_nuke(command: Command) -> bool:
    return long(command.args, "--nuke")


def _any(*tests: Test) -> Test:
    def test(command: Command) -> bool:
        return any(t(command) for t in tests)

    return test


#: A rule of this pack: ``_rule(name, reason, alternative, catastrophic, programs, test)``.
_rule = partial(make_rule, "backups")


RULES = (
    _rule(
        "prune",
        "Forgetting or pruning backups (restic forget/prune, borg prune, ...) deletes snapshots for good",
        "Run it with --dry-run (-n) first and check which snapshots it would remove",
        False,
        ("restic", "borg", "kopia", "duplicity"),
        _any(_restic_prune, _borg_prune, _kopia_expire, _duplicity_remove),
    ),
    _rule(
        "delete-archive",
        "Deleting a backup archive or snapshot (borg delete repo::archive, kopia snapshot delete, tarsnap -d) loses it",
        "List the archives first (borg list, kopia snapshot list) and confirm which one goes",
        False,
        ("borg", "kopia", "tarsnap"),
        _any(_borg_delete_archive, _kopia_delete, _tarsnap_delete),
    ),
    _rule(
        "delete-repository",
        "Deleting a whole backup repository (borg delete repo, tarsnap --nuke) deletes every backup in it",
        "Delete single archives you no longer need; let a human remove the repository",
        True,
        ("borg", "tarsnap"),
        _any(_borg_delete_repository, _tarsnap_nuke),
    ),
)

PACK = Pack(
    "backups",
    "Backup tools (restic, borg, kopia, duplicity, tarsnap) deleting snapshots, archives or repositories",
    RULES,
)
