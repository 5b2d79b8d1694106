"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``frameworks`` pack: framework and migration-tool commands that drop or reset a database.

Rails/Rake, Django, Laravel, Symfony/Doctrine, AdonisJS, Prisma, Sequelize, Knex, TypeORM,
MikroORM, Drizzle, Alembic/Flask-Migrate, Ecto, Entity Framework and the standalone migration
tools (Flyway, Liquibase, Diesel, sqlx, goose, golang-migrate, dbmate, Atlas, SeaORM), run
directly or through a runner (``npx``, ``bundle exec``, ``python manage.py``, ``php artisan``,
``dotnet ef``, ...). Each asks under its own id; pointed at production (``RAILS_ENV=production``,
``--env=production``, ``MIX_ENV=prod``, ...) the same command blocks as
``frameworks.production-db-reset``.
"""

from __future__ import annotations

from collections.abc import Callable

from hermes_hooks.shell_syntax import Command

from ..flags import has_word, long, positionals, short
from ..rules import Pack, Rule
from ._cli import RUNNERS, effective, make_rule, production

Check = Callable[[str, tuple[str, ...], Command], bool]
"""A test of the effective program, its arguments and the command."""


def _tasks(programs: str, tasks: str, unless: str = "") -> Check:
    """The program is one of ``programs`` and one of its arguments is one of ``tasks``
    (and none of ``unless``)."""
    wanted_programs, wanted, vetoes = set(programs.split()), set(tasks.split()), unless.split()

    def check(program: str, args: tuple[str, ...], _: Command) -> bool:
        return (
            program in wanted_programs and has_word(args, *wanted) and not has_word(args, *vetoes)
        )

    return check


def _first(programs: str, *paths: str) -> Check:
    """The program is one of ``programs`` and its positional words start with a path."""
    wanted_programs, wanted = set(programs.split()), [tuple(p.split()) for p in paths]

    def check(program: str, args: tuple[str, ...], _: Command) -> bool:
        words = positionals(args)
        return program in wanted_programs and any(words[: len(w)] == w for w in wanted)

    return check


RAILS_TASKS = (
    "db:drop db:drop:all db:drop:_unsafe db:reset db:schema:load db:structure:load db:purge "
    "db:purge:all db:setup db:seed:replant db:migrate:reset db:truncate_all db:fixtures:load"
)
"""Rails tasks that drop or empty tables. ``db:setup`` stays on purpose although it is the usual
first-time setup (the public corpus counts it as ordinary): it runs ``db:schema:load``, whose
``create_table ... force: :cascade`` drops and recreates every table of a database that already
exists, data and all. ``db:prepare`` is the safe form (creates when missing, else migrates), and
the rule's question says so."""


def _rails(program: str, args: tuple[str, ...], command: Command) -> bool:
    if program not in ("rails", "rake"):
        return False
    if _tasks("rails rake", RAILS_TASKS)(program, args, command):
        return True
    return has_word(args, "db:migrate") and has_word(args, "VERSION=0")


DJANGO = "manage.py django-admin django"


def _django(program: str, args: tuple[str, ...], command: Command) -> bool:
    words = positionals(args, {"--settings", "--database", "--pythonpath"})
    if program not in DJANGO.split() or not words:
        return False
    if words[0] in ("flush", "reset_db", "reset_schema", "sqlflush_and_run"):
        return True
    if words[0] == "migrate" and words[-1:] == ("zero",):
        return True
    return words[0] == "dbshell" and _fed_sqlflush(command)


def _fed_sqlflush(command: Command) -> bool:
    for up in command.upstream:
        program, args = effective(up)
        if program in DJANGO.split() and positionals(args)[:1] == ("sqlflush",):
            return True
    return False


def _sql_after_sqlflush(program: str, args: tuple[str, ...], command: Command) -> bool:
    return program in ("psql", "mysql", "mariadb", "sqlite3") and _fed_sqlflush(command)


def _doctrine(program: str, args: tuple[str, ...], command: Command) -> bool:
    if program != "console":
        return False
    dropping = has_word(args, "doctrine:database:drop", "doctrine:schema:drop", "d:d:d", "d:s:d")
    if dropping and (long(args, "--force") or short(args, "f")):
        return True
    return has_word(args, "doctrine:fixtures:load") and not long(args, "--append")


def _prisma(program: str, args: tuple[str, ...], _: Command) -> bool:
    words = positionals(args, {"--schema"})
    if program != "prisma":
        return False
    if words[:2] == ("migrate", "reset"):
        return True
    return words[:2] == ("db", "push") and long(args, "--force-reset", "--accept-data-loss")


def _knex(program: str, args: tuple[str, ...], _: Command) -> bool:
    rollback_all = has_word(args, "migrate:rollback") and long(args, "--all")
    return program == "knex" and rollback_all


def _drizzle(program: str, args: tuple[str, ...], _: Command) -> bool:
    return program == "drizzle-kit" and has_word(args, "push") and long(args, "--force")


def _alembic(program: str, args: tuple[str, ...], _: Command) -> bool:
    words = positionals(args, {"-c", "--config", "-n", "--name", "-x", "--app", "-d"})
    if program == "flask" and words[:1] == ("db",):
        words = words[1:]
    return program in ("alembic", "flask") and words[:2] == ("downgrade", "base")


def _ecto(program: str, args: tuple[str, ...], command: Command) -> bool:
    if program != "mix":
        return False
    if has_word(args, "ecto.drop", "ecto.reset"):
        return True
    return has_word(args, "ecto.rollback") and long(args, "--all")


def _ef(program: str, args: tuple[str, ...], _: Command) -> bool:
    words = positionals(args, {"-p", "--project", "-s", "--startup-project", "-c", "--context"})
    if program != "dotnet-ef":
        return False
    return words[:2] == ("database", "drop") or words[:3] == ("database", "update", "0")


MIGRATION_TOOLS: dict[str, tuple[str, ...]] = {
    "flyway": ("clean",),
    "liquibase": ("drop-all", "dropAll"),
    "diesel": ("database reset", "database drop"),
    "sqlx": ("database drop", "database reset", "db drop", "db reset"),
    "goose": (),
    "migrate": ("drop",),
    "dbmate": ("drop",),
    "atlas": ("schema clean",),
    "sea-orm-cli": ("migrate fresh", "migrate reset", "migrate refresh"),
}


def _migration_tool(program: str, args: tuple[str, ...], _: Command) -> bool:
    takes = {"-path", "-database", "-source", "--url", "-u", "--env", "-d", "--dir"}
    words = positionals(args, takes)
    paths = [tuple(p.split()) for p in MIGRATION_TOOLS.get(program, ())]
    if program == "goose":  # goose DRIVER DBSTRING reset
        return "reset" in words[:3] or words[-2:] == ("down-to", "0")
    return any(words[: len(p)] == p for p in paths)


FRAMEWORKS: tuple[tuple[str, str, str, tuple[str, ...], Check], ...] = (
    (
        "rails-db-reset",
        "rails/rake db:drop, db:reset, db:setup, db:schema:load, db:purge ... delete the database's data",
        "Run the migration you need (db:migrate, db:rollback STEP=1, or db:prepare to set up); dump the data first",
        ("rails", "rake"),
        _rails,
    ),
    (
        "django-flush",
        "manage.py flush / reset_db / migrate <app> zero deletes the data of every table",
        "Delete the objects you mean in a shell or a data migration; dumpdata first",
        ("manage.py", "django-admin", "psql", "mysql", "mariadb", "sqlite3"),
        lambda p, a, c: _django(p, a, c) or _sql_after_sqlflush(p, a, c),
    ),
    (
        "laravel-migrate-fresh",
        "artisan migrate:fresh / migrate:reset / migrate:refresh / db:wipe drops every table",
        "php artisan migrate (forward only); migrate:rollback --step=1 for one step",
        ("artisan",),
        _tasks("artisan", "migrate:fresh migrate:reset migrate:refresh db:wipe"),
    ),
    (
        "doctrine-drop",
        "doctrine:database:drop / schema:drop --force, or fixtures:load (which purges), deletes data",
        "doctrine:migrations:migrate; load fixtures with --append",
        ("console",),
        _doctrine,
    ),
    (
        "adonis-migration-fresh",
        "node ace migration:fresh / reset / refresh / db:wipe drops every table",
        "node ace migration:run (forward only)",
        ("ace",),
        _tasks("ace", "migration:fresh migration:reset migration:refresh db:wipe"),
    ),
    (
        "prisma-reset",
        "prisma migrate reset / db push --force-reset drops the database and recreates it",
        "prisma migrate dev / deploy; back the data up first",
        ("prisma",),
        _prisma,
    ),
    (
        "sequelize-drop",
        "sequelize db:drop / db:migrate:undo:all deletes the database or every table",
        "Undo one migration (db:migrate:undo)",
        ("sequelize", "sequelize-cli"),
        _tasks("sequelize sequelize-cli", "db:drop db:migrate:undo:all db:seed:undo:all"),
    ),
    (
        "knex-rollback-all",
        "knex migrate:rollback --all reverts every migration, dropping their tables",
        "knex migrate:rollback (one batch) or migrate:down",
        ("knex",),
        _knex,
    ),
    (
        "typeorm-schema-drop",
        "typeorm schema:drop / mikro-orm schema:drop or schema:fresh drops every table",
        "Revert one migration (migration:revert / migration:down)",
        ("typeorm", "typeorm-ts-node-commonjs", "typeorm-ts-node-esm", "mikro-orm"),
        _tasks(
            "typeorm typeorm-ts-node-commonjs typeorm-ts-node-esm mikro-orm",
            "schema:drop schema:fresh migration:fresh",
        ),
    ),
    (
        "drizzle-push-force",
        "drizzle-kit push --force applies data-losing schema changes without asking",
        "drizzle-kit push without --force, reading what it would drop",
        ("drizzle-kit",),
        _drizzle,
    ),
    (
        "alembic-downgrade-base",
        "alembic / flask db downgrade base reverts every migration, dropping their tables",
        "Downgrade one revision (downgrade -1)",
        ("alembic", "flask"),
        _alembic,
    ),
    (
        "ecto-drop",
        "mix ecto.drop / ecto.reset / ecto.rollback --all deletes the database or every table",
        "mix ecto.rollback (one step)",
        ("mix",),
        _ecto,
    ),
    (
        "ef-database-drop",
        "dotnet ef database drop (or update 0) deletes the database or every table",
        "dotnet ef database update <previous migration>",
        ("dotnet", "dotnet-ef"),
        _ef,
    ),
    (
        "migration-tool-reset",
        "flyway clean, liquibase drop-all, diesel/sqlx database reset, goose reset, migrate drop, "
        "dbmate drop, atlas schema clean drop every object",
        "Migrate down one step; dump the database first",
        tuple(MIGRATION_TOOLS),
        _migration_tool,
    ),
)


def _test(check: Check, in_production: bool) -> Callable[[Command], bool]:
    def test(command: Command) -> bool:
        program, args = effective(command)
        return check(program, args, command) and production(command, args) == in_production

    return test


def _any(command: Command) -> bool:
    return any(_test(check, True)(command) for *_, check in FRAMEWORKS)


ALL_PROGRAMS = tuple(dict.fromkeys(p for *_, programs, _ in FRAMEWORKS for p in programs))
RUNNER_PROGRAMS = tuple(RUNNERS)


def _rule(
    name: str, reason: str, alternative: str, programs: tuple[str, ...], check: Check
) -> Rule:
    programs = tuple(dict.fromkeys((*programs, *RUNNER_PROGRAMS)))
    return make_rule("frameworks", name, reason, alternative, False, programs, _test(check, False))


RULES = (
    *(_rule(*entry) for entry in FRAMEWORKS),
    make_rule(
        "frameworks",
        "production-db-reset",
        "Dropping or resetting the database of a production environment",
        "Never reset production from an agent; restore from backup with a human if needed",
        True,
        tuple(dict.fromkeys((*ALL_PROGRAMS, *RUNNER_PROGRAMS))),
        _any,
    ),
)

PACK = Pack(
    "frameworks",
    "Framework and migration-tool commands that drop or reset a database",
    RULES,
)
