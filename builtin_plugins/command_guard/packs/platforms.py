"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``platforms`` pack: forge, hosting and package-registry CLIs that delete what they host.

Deleting a repository, an app with its add-ons, or a hosted database blocks; deleting releases,
secrets, deployments, or unpublishing a package version asks; so does a raw ``DELETE`` through
``gh api``/``glab api``. Help (``--help``) never matches.
"""

from __future__ import annotations

from functools import partial

from hermes_hooks.shell_syntax import Command

from ..flags import has_word, long, positionals, values
from ..rules import Pack
from ._cli import Test, make_rule

VALUE_OPTIONS = frozenset(
    {"-R", "--repo", "-a", "--app", "-r", "--remote", "--project", "--token", "-t", "--scope"}
    | {"--site", "--team", "-e", "--environment", "--org", "-o", "--profile", "-g", "--group"}
)
"""Options of these CLIs that take a value (the repository, app, project, ...)."""


def words_of(command: Command) -> tuple[str, ...]:
    """The positional words, ``heroku apps:destroy`` split at ``:`` into ``apps destroy``."""
    out: list[str] = []
    for word in positionals(command.args, VALUE_OPTIONS):
        if command.program in ("heroku", "netlify", "firebase") and ":" in word and not out:
            out.extend(word.split(":"))
        else:
            out.append(word)
    return tuple(out)


def _paths(table: dict[str, tuple[str, ...]]) -> Test:
    """A test for the programs of ``table`` whose words start with one of its paths."""
    wanted = {p: [tuple(path.split()) for path in paths] for p, paths in table.items()}

    def test(command: Command) -> bool:
        words = words_of(command)
        return any(words[: len(w)] == w for w in wanted.get(command.program, ()))

    return test


REPO_DELETE: dict[str, tuple[str, ...]] = {
    "gh": ("repo delete",),
    "glab": ("repo delete",),
    "tea": ("repo delete", "repos delete", "repo rm", "repos rm"),
    "hub": ("delete",),
    "bb": ("repo delete",),
}
APP_DELETE: dict[str, tuple[str, ...]] = {
    "heroku": ("apps destroy", "destroy", "pg reset"),
    "netlify": ("sites delete",),
    "vercel": ("project rm", "project remove", "projects rm", "projects remove"),
    "railway": ("delete",),
    "supabase": ("projects delete",),
    "render": ("services delete",),
    "neonctl": ("projects delete", "project delete"),
    "neon": ("projects delete", "project delete"),
    "pscale": ("database delete", "db delete"),
    "turso": ("db destroy", "db delete", "group destroy"),
    "wrangler": ("d1 delete", "r2 bucket delete", "kv namespace delete"),
}
"""Deleting an app, site or project together with its data (Heroku add-ons, hosted
databases, storage buckets)."""
SOFT_DELETE: dict[str, tuple[str, ...]] = {
    "vercel": ("remove", "rm", "env rm", "env remove", "domains rm"),
    "heroku": ("addons destroy", "addons remove", "pg backups delete"),
    "wrangler": ("delete", "versions delete", "secret delete"),
    "railway": ("down",),
    "netlify": ("env unset",),
    "firebase": ("functions delete", "hosting disable", "database remove"),
    "neonctl": ("branches delete", "branch delete", "databases delete"),
    "neon": ("branches delete", "branch delete", "databases delete"),
    "pscale": ("branch delete",),
}
"""Deleting a release, secret, deployment or branch database: recoverable or narrow."""
FORGES = ("gh", "glab", "tea", "bb", "berg", "fj")
"""Forge CLIs, read by their shape ``<noun> <verb>`` (:func:`_forge_delete`) rather than a
list of their nouns."""
FORGE_LOCAL = frozenset(
    "alias aliases extension extensions ext config login logins auth completion".split()
)
"""Forge nouns that live on this machine only (a shortcut, a plug-in, a saved login)."""
DELETE_VERBS = frozenset({"delete", "remove", "rm", "del", "destroy", "purge"})


def _deleting(word: str) -> bool:
    return word in DELETE_VERBS or word.startswith("delete-") or word.endswith("-delete")


def _forge_delete(command: Command) -> bool:
    """A forge CLI deleting something it hosts: ``gh release|secret|gist|run|cache|label|
    codespace|cs|ssh-key|project delete``, ``gh release delete-asset``, ``gh project
    item-delete``, ``gh repo deploy-key delete``, ``glab mr|snippet|variable delete``, ``tea
    labels rm``. Deleting the repository itself is ``repo-delete``; local nouns (alias,
    extension, config) pass."""
    if command.program not in FORGES:
        return False
    words = words_of(command)
    if len(words) < 2 or words[0] in FORGE_LOCAL:
        return False
    if words[0] in ("repo", "repos"):  # gh repo deploy-key delete; repo delete is repo-delete
        return len(words) >= 3 and not _deleting(words[1]) and _deleting(words[2])
    return _deleting(words[1])


def _resource_delete(command: Command) -> bool:
    return _forge_delete(command) or _soft_delete(command)


_soft_delete = _paths(SOFT_DELETE)


def _supabase_reset(remote: bool) -> Test:
    def test(command: Command) -> bool:
        if words_of(command)[:2] != ("db", "reset"):
            return False
        linked = long(command.args, "--linked", "--db-url")
        return linked == remote

    return test


def _firestore_delete(everything: bool) -> Test:
    def test(command: Command) -> bool:
        if words_of(command)[:2] != ("firestore", "delete"):
            return False
        return long(command.args, "--all-collections") == everything

    return test


def _api_delete(command: Command) -> bool:
    words = words_of(command)
    method = [v.upper() for v in values(command.args, "-X", "--method")]
    return words[:1] == ("api",) and "DELETE" in method


UNPUBLISH: dict[str, tuple[str, ...]] = {
    "npm": ("unpublish",),
    "pnpm": ("unpublish",),
    "yarn": ("npm unpublish",),
    "cargo": ("yank",),
    "gem": ("yank",),
    "nuget": ("delete",),
    "dotnet": ("nuget delete",),
}


def _unpublish(command: Command) -> bool:
    return _paths(UNPUBLISH)(command) and not has_word(command.args, "--dry-run", "--undo")


CONCOURSE_VALUES = frozenset({"-t", "--target", "-p", "--pipeline", "-n", "--team-name", "--team"})
CONCOURSE_DESTROY = frozenset({"destroy-pipeline", "dp", "destroy-team", "dt"})
"""Concourse ``fly`` subcommands (and their aliases) that delete a pipeline or a whole team
with its build history. Fly.io's CLI is also called ``fly`` but has none of these words."""


def _concourse_destroy(command: Command) -> bool:
    return positionals(command.args, CONCOURSE_VALUES)[:1] in [(w,) for w in CONCOURSE_DESTROY]


#: A rule of this pack: ``_rule(name, reason, alternative, catastrophic, programs, test)``.
_rule = partial(make_rule, "platforms")


RULES = (
    _rule(
        "repo-delete",
        "Deleting a hosted repository removes its code, issues, pull requests and wiki",
        "Archive the repository (gh repo archive) or make it private",
        True,
        tuple(REPO_DELETE),
        _paths(REPO_DELETE),
    ),
    _rule(
        "app-delete",
        "Deleting an app, site, project or hosted database (and its add-ons' data)",
        "Scale it down or pause it; take a backup and let a human delete it",
        True,
        tuple(APP_DELETE),
        _paths(APP_DELETE),
    ),
    _rule(
        "resource-delete",
        "Deleting a release, secret, gist, codespace, workflow run, deployment, add-on or branch "
        "on a forge or hosting platform",
        "Check what depends on it first; most platforms can roll back instead",
        False,
        (*FORGES, *SOFT_DELETE),
        _resource_delete,
    ),
    _rule(
        "database-reset-remote",
        "supabase db reset --linked / --db-url wipes the remote database and re-runs migrations",
        "Reset a local database (supabase db reset) or a branch database instead",
        True,
        ("supabase",),
        _supabase_reset(True),
    ),
    _rule(
        "database-reset",
        "supabase db reset drops the local database's data and re-runs migrations",
        "supabase db dump --data-only first if the data matters",
        False,
        ("supabase",),
        _supabase_reset(False),
    ),
    _rule(
        "firestore-delete-all",
        "firebase firestore:delete --all-collections deletes every document of the database",
        "Delete the specific collection path, after an export (gcloud firestore export)",
        True,
        ("firebase",),
        _firestore_delete(True),
    ),
    _rule(
        "firestore-delete",
        "firebase firestore:delete removes documents (with -r, every subcollection too)",
        "Export the collection first (gcloud firestore export)",
        False,
        ("firebase",),
        _firestore_delete(False),
    ),
    _rule(
        "ci-pipeline-destroy",
        "fly destroy-pipeline / destroy-team deletes Concourse pipelines with their build history",
        "fly pause-pipeline (or archive-pipeline) instead",
        False,
        ("fly",),
        _concourse_destroy,
    ),
    _rule(
        "api-delete",
        "A raw DELETE request through the forge API deletes whatever the path names",
        "Use the CLI's own subcommand, which confirms what it deletes",
        False,
        ("gh", "glab"),
        _api_delete,
    ),
    _rule(
        "package-unpublish",
        "Unpublishing or yanking a package version breaks everyone who depends on it",
        "Deprecate the version (npm deprecate) and publish a fixed one",
        False,
        tuple(UNPUBLISH),
        _unpublish,
    ),
)

PACK = Pack(
    "platforms",
    "Forge, hosting and registry CLIs: deleting repositories, apps, hosted databases, releases and packages",
    RULES,
)
