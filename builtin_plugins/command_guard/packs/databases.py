"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``databases`` pack: dropping, truncating and flushing data through database clients.

SQL is read only where a client takes it: its ``-c``/``-e``/``--query``-style option, its
positional statement (``sqlite3 db "SQL"``), a heredoc or herestring it reads, or the literal
text an ``echo``/``printf`` (or a ``cat`` heredoc) pipes into it. A script file
(``psql -f x.sql``, ``psql < x.sql``) is content we cannot see and is not judged. Quoted
literals and comments are removed before the SQL is matched, so ``SELECT 'DROP TABLE x'`` is
data. Dropping a whole database blocks; dropping or emptying a table asks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from hermes_hooks.shell_syntax import Command

from ..flags import long, positionals, short, values
from ..rules import Pack
from ._cli import Test, make_rule

SQL_OPTIONS: dict[str, tuple[str, ...]] = {
    "psql": ("-c", "--command"),
    "mysql": ("-e", "--execute"),
    "mariadb": ("-e", "--execute"),
    "cqlsh": ("-e", "--execute"),
    "clickhouse-client": ("-q", "--query"),
    "clickhouse": ("-q", "--query"),
    "cockroach": ("-e", "--execute"),
    "sqlcmd": ("-Q", "-q"),
    "snowsql": ("-q", "--query"),
    "duckdb": ("-c", "-cmd"),
    "sqlite3": ("-cmd",),
    "trino": ("--execute",),
    "presto": ("--execute",),
    "spark-sql": ("-e",),
    "hive": ("-e",),
    "beeline": ("-e",),
    "impala-shell": ("-q", "--query"),
    "vsql": ("-c", "--command"),
    "usql": ("-c", "--command"),
    "mysqlsh": ("-e", "--execute"),
    "bq": (),
}
"""SQL clients and the options that carry a statement."""
POSITIONAL_SQL: dict[str, tuple[int, frozenset[str]]] = {
    "sqlite3": (1, frozenset({"-cmd", "-init", "-separator", "-newline", "-nullvalue"})),
    "duckdb": (1, frozenset({"-c", "-cmd", "-init", "-separator", "-newline", "-nullvalue"})),
    "bq": (1, frozenset({"--project_id", "--location", "--format", "--max_rows"})),
}
"""Clients taking SQL as positional words: how many positionals come first (the database file;
``bq``'s ``query``), and their options that take a value."""
REDIS = ("redis-cli", "valkey-cli", "keydb-cli")
REDIS_VALUES = frozenset({"-h", "-p", "-a", "-n", "-u", "-s", "--user", "--pass", "--sni"})
REDIS_VALUES |= {"--cacert", "--cacertdir", "--cert", "--key", "-r", "-i", "-d", "--pattern"}
MONGO = ("mongosh", "mongo")
FEEDERS = ("echo", "printf", "print")


def _feed(command: Command) -> list[str]:
    """Text fed to the command's input that we can see: heredocs and herestrings, and the
    words of an ``echo``/``printf`` or a ``cat`` heredoc piped into it."""
    out = [r.target for r in command.redirects if r.op.startswith("<<")]
    for up in command.upstream:
        if up.program in FEEDERS:
            words = " ".join(a for a in up.args if not a.startswith("-"))
            out.append(words.replace("\\n", "\n"))  # printf's escaped newlines
        out.extend(r.target for r in up.redirects if r.op.startswith("<<"))
    return out


def _client(command: Command) -> str:
    if command.program == "cockroach" and command.args[:1] != ("sql",):
        return ""
    if command.program == "clickhouse" and command.args[:1] not in (("client",), ("local",)):
        return ""
    if command.program == "bq" and command.args[:1] != ("query",):
        return ""
    return command.program


def sql_texts(command: Command) -> list[str]:
    """The SQL a client command runs, as far as the line shows it."""
    client = _client(command)
    if client not in SQL_OPTIONS:
        return []
    texts = values(command.args, *SQL_OPTIONS[client])
    if client in POSITIONAL_SQL:
        skip, takes = POSITIONAL_SQL[client]
        words = positionals(command.args, takes)[skip:]
        texts.extend(w for w in words if not w.startswith("."))
    return texts + _feed(command)


_LITERAL = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"|--[^\n]*|/\*.*?\*/", re.DOTALL)


def statements(sql: str) -> list[str]:
    """The statements of ``sql`` with literals and comments removed, whitespace folded."""
    bare = _LITERAL.sub("''", sql)
    return [" ".join(s.split()).upper() for s in bare.split(";") if s.strip()]


DROP_DATABASE = re.compile(r"\bDROP\s+(DATABASE|SCHEMA|KEYSPACE)\b")
DROP_TABLE = re.compile(r"\bDROP\s+(TEMPORARY\s+)?(TABLE|COLLECTION|MATERIALIZED\s+VIEW)\b")
TRUNCATE = re.compile(r"^TRUNCATE\b")
DELETE_ALL = re.compile(r"^DELETE\s+FROM\s+\S+(\s+(AS\s+)?\w+)?$")
UPDATE_ALL = re.compile(r"^UPDATE\s+\S+\s+SET\s")


def _sql(match: Callable[[str], bool]) -> Test:
    def test(command: Command) -> bool:
        return any(match(s) for text in sql_texts(command) for s in statements(text))

    return test


def _update_all(statement: str) -> bool:
    return bool(UPDATE_ALL.match(statement)) and " WHERE " not in f" {statement} "


def _redis(*verbs: str) -> Test:
    wanted = {v.upper() for v in verbs}

    def test(command: Command) -> bool:
        words = positionals(command.args, REDIS_VALUES)
        if words and words[0].upper() in wanted:
            return True
        firsts = (line.split()[:1] for text in _feed(command) for line in text.splitlines())
        return any(first and first[0].upper() in wanted for first in firsts)

    return test


MONGO_DROP_DB = re.compile(r"\.\s*dropDatabase\s*\(")
MONGO_DROP_COLL = re.compile(r"\.\s*drop\s*\(\s*\)|\.\s*(deleteMany|remove)\s*\(\s*(\{\s*\})?\s*\)")


def _mongo(pattern: re.Pattern[str]) -> Test:
    def test(command: Command) -> bool:
        texts = values(command.args, "--eval") + _feed(command)
        return any(pattern.search(t) for t in texts)

    return test


def _dropdb(command: Command) -> bool:
    if command.program == "dropdb":
        return True
    words = positionals(
        command.args, {"-h", "-u", "-P", "-S", "--host", "--user", "--port", "--socket"}
    )
    return bool(words) and words[0].lower() == "drop"


ETCD_VALUES = frozenset(
    {"--endpoints", "--user", "--password", "--cacert", "--cert", "--key", "-w", "--write-out"}
    | {"--dial-timeout", "--command-timeout", "--discovery-srv"}
)


def _etcd_del(command: Command) -> tuple[str, ...] | None:
    """The keys an ``etcdctl del`` names, or ``None`` when it is no delete."""
    words = positionals(command.args, ETCD_VALUES)
    return words[1:] if words[:1] in (("del",), ("delete",)) else None


def _etcd_delete_range(command: Command) -> bool:
    keys = _etcd_del(command)
    if keys is None:
        return False
    return long(command.args, "--prefix", "--from-key") or len(keys) >= 2  # del key range_end


def _etcd_delete_key(command: Command) -> bool:
    keys = _etcd_del(command)
    return bool(keys) and not _etcd_delete_range(command)


def _influx_delete(command: Command) -> bool:
    words = positionals(command.args, {"--host", "-t", "--token", "-o", "--org", "-b"})
    return words[:1] == ("delete",) or words[:2] in (("bucket", "delete"), ("org", "delete"))


def _restore_drop(command: Command) -> bool:
    if command.program == "pg_restore":
        return short(command.args, "c", "dfFIjnNPsStTU") or long(command.args, "--clean")
    return long(command.args, "--drop")


#: A rule of this pack: ``_rule(name, reason, alternative, catastrophic, programs, test)``.
_rule = partial(make_rule, "databases")


SQL_CLIENTS = tuple(SQL_OPTIONS)
RULES = (
    _rule(
        "sql-drop-database",
        "DROP DATABASE / SCHEMA / KEYSPACE deletes every table and row in it",
        "Take a dump first (pg_dump, mysqldump) and drop a copy, not the original",
        True,
        SQL_CLIENTS,
        _sql(lambda s: bool(DROP_DATABASE.search(s))),
    ),
    _rule(
        "sql-drop-table",
        "DROP TABLE deletes the table and all its rows",
        "Rename the table, or dump it first; drop it through a reviewed migration",
        False,
        SQL_CLIENTS,
        _sql(lambda s: bool(DROP_TABLE.search(s))),
    ),
    _rule(
        "sql-truncate",
        "TRUNCATE deletes every row of the table at once",
        "DELETE with a WHERE clause for the rows you mean, inside a transaction",
        False,
        SQL_CLIENTS,
        _sql(lambda s: bool(TRUNCATE.match(s))),
    ),
    _rule(
        "sql-delete-all",
        "DELETE without WHERE deletes every row of the table",
        "Add a WHERE clause; run it in a transaction and check the row count",
        False,
        SQL_CLIENTS,
        _sql(lambda s: bool(DELETE_ALL.match(s))),
    ),
    _rule(
        "sql-update-all",
        "UPDATE without WHERE overwrites a column in every row",
        "Add a WHERE clause; run it in a transaction and check the row count",
        False,
        SQL_CLIENTS,
        _sql(_update_all),
    ),
    _rule(
        "dropdb",
        "dropdb / mysqladmin drop deletes a whole database",
        "Dump it first and drop a copy, or rename it",
        True,
        ("dropdb", "mysqladmin", "mariadb-admin"),
        _dropdb,
    ),
    _rule(
        "dropuser",
        "dropuser deletes a database role and what depends on it",
        "Revoke its privileges (REVOKE / ALTER ROLE ... NOLOGIN) instead",
        False,
        ("dropuser",),
        lambda c: True,
    ),
    _rule(
        "redis-flushall",
        "FLUSHALL deletes every key of every Redis database",
        "Delete the keys you mean (SCAN with a pattern, then UNLINK)",
        True,
        REDIS,
        _redis("FLUSHALL"),
    ),
    _rule(
        "redis-flushdb",
        "FLUSHDB deletes every key of the selected Redis database",
        "Delete the keys you mean (SCAN with a pattern, then UNLINK)",
        False,
        REDIS,
        _redis("FLUSHDB"),
    ),
    _rule(
        "mongo-drop-database",
        "db.dropDatabase() deletes the whole MongoDB database",
        "mongodump first, and drop a copy",
        True,
        MONGO,
        _mongo(MONGO_DROP_DB),
    ),
    _rule(
        "mongo-drop-collection",
        "Dropping a collection or deleting all its documents loses every document in it",
        "Pass a filter to deleteMany, or mongodump the collection first",
        False,
        MONGO,
        _mongo(MONGO_DROP_COLL),
    ),
    _rule(
        "etcd-delete-range",
        'etcdctl del --prefix / --from-key deletes every key in the range ("" is all of them)',
        "Delete single keys, or take an etcdctl snapshot save first",
        False,
        ("etcdctl",),
        _etcd_delete_range,
    ),
    _rule(
        "etcd-delete",
        "etcdctl del deletes the key (Kubernetes and other systems keep their state in etcd)",
        "etcdctl get the key first, and take an etcdctl snapshot save",
        False,
        ("etcdctl",),
        _etcd_delete_key,
    ),
    _rule(
        "influx-delete",
        "influx delete / bucket delete removes stored time series",
        "Narrow the delete with --start/--stop and a --predicate, after a backup",
        False,
        ("influx",),
        _influx_delete,
    ),
    _rule(
        "restore-drop",
        "pg_restore --clean / mongorestore --drop drops existing objects before restoring",
        "Restore into a new database and switch over after checking it",
        False,
        ("pg_restore", "mongorestore"),
        _restore_drop,
    ),
)

PACK = Pack(
    "databases",
    "Dropping, truncating and flushing data through SQL, Redis, MongoDB, etcd and InfluxDB clients",
    RULES,
)
