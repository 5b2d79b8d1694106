"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``cloud`` pack: infrastructure-as-code tools and cloud provider CLIs.

Tearing down whole stacks (``terraform destroy``, ``pulumi destroy``, ``cdk destroy``, ...),
deleting buckets, projects, resource groups, clusters and databases blocks; other deletions
through a provider CLI (``aws <service> delete-*``, ``gcloud ... delete``, ``az ... delete``,
``doctl``/``hcloud``/``oci``/... ``delete``), recursive object deletion, state surgery and
unattended applies ask. Read-only subcommands (``plan``, ``list``, ``describe``, ``s3 ls``) and
help never match.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import partial

from hermes_hooks.shell_syntax import Command

from ..flags import has_word, long, positionals, short
from ..rules import Pack
from ._cli import Test, make_rule

TERRAFORM = ("terraform", "tofu", "terragrunt")
AWS_VALUES = frozenset(
    {"--region", "--profile", "--output", "--endpoint-url", "--query", "--color"}
    | {"--cli-read-timeout", "--cli-connect-timeout", "--ca-bundle", "--cli-binary-format"}
)
GCLOUD_VALUES = frozenset(
    {"--project", "--account", "--configuration", "--format", "--verbosity", "--zone"}
    | {"--region", "--impersonate-service-account", "--billing-project", "--filter"}
)
AZ_VALUES = frozenset({"--subscription", "-o", "--output", "--query"})
GSUTIL_VALUES = frozenset({"-o", "-h", "-u", "-i"})
S3CMD_VALUES = frozenset(
    {"-c", "--config", "--access_key", "--secret_key", "--access_token", "--region"}
    | {"--host", "--host-bucket", "--exclude", "--include", "--rexclude", "--rinclude"}
    | {"--exclude-from", "--include-from", "--rexclude-from", "--rinclude-from"}
)
STORAGE = ("aws", "gsutil", "gcloud", "s3cmd")
"""The programs whose storage subcommands :func:`_storage_words` reads."""


def _help(command: Command) -> bool:
    return has_word(command.args, "-help", "-h", "help")


def _terraform_words(command: Command) -> tuple[str, ...]:
    return positionals([a for a in command.args if not a.startswith("-chdir")])


def _terraform_destroy(command: Command) -> bool:
    if _help(command):
        return False
    words = _terraform_words(command)
    if words[:1] in (("destroy",), ("destroy-all",)):
        return True
    if words[:1] in (("run-all",), ("run",), ("stack",)) and "destroy" in words[1:3]:
        return True
    applying = "apply" in words[:2]
    return applying and long(command.args, "-destroy", "--destroy")


def _terraform_auto_approve(command: Command) -> bool:
    words = _terraform_words(command)
    applying = "apply" in words[:2] and not long(command.args, "-destroy", "--destroy")
    return applying and long(command.args, "-auto-approve", "--auto-approve") and not _help(command)


STATE_SURGERY = (("state", "rm"), ("state", "push"), ("workspace", "delete"), ("force-unlock",))


def _terraform_state(command: Command) -> bool:
    words = _terraform_words(command)
    return any(words[: len(p)] == p for p in STATE_SURGERY) and not _help(command)


def _pulumi(*paths: str) -> Test:
    wanted = [tuple(p.split()) for p in paths]

    def test(command: Command) -> bool:
        words = positionals(command.args, {"-C", "--cwd", "-s", "--stack", "--color"})
        return any(words[: len(w)] == w for w in wanted) and not long(
            command.args, "--preview-only"
        )

    return test


STACK_TOOLS: dict[str, tuple[tuple[str, ...], ...]] = {
    "cdk": (("destroy",),),
    "cdktf": (("destroy",),),
    "serverless": (("remove",),),
    "sls": (("remove",),),
    "sam": (("delete",),),
    "sst": (("remove",),),
    "amplify": (("delete",),),
    "eb": (("terminate",),),
    "copilot": (("app", "delete"), ("env", "delete"), ("svc", "delete")),
    "fly": (("apps", "destroy"), ("apps", "delete"), ("destroy",)),
    "flyctl": (("apps", "destroy"), ("apps", "delete"), ("destroy",)),
    "eksctl": (("delete", "cluster"),),
}


def _stack_destroy(command: Command) -> bool:
    words = positionals(command.args, {"-a", "--app", "--profile", "--region", "-c", "--config"})
    paths = STACK_TOOLS.get(command.program, ())
    return any(words[: len(p)] == p for p in paths) and not _help(command)


AWS_DESTROY = frozenset(
    tuple(pair.split())
    for pair in (
        "ec2 terminate-instances, rds delete-db-instance, rds delete-db-cluster, "
        "rds delete-global-cluster, dynamodb delete-table, cloudformation delete-stack, "
        "eks delete-cluster, ecs delete-cluster, route53 delete-hosted-zone, "
        "kms schedule-key-deletion, s3api delete-bucket, efs delete-file-system, "
        "ecr delete-repository, elasticache delete-replication-group, "
        "elasticache delete-cache-cluster, redshift delete-cluster, docdb delete-db-cluster, "
        "neptune delete-db-cluster, opensearch delete-domain, "
        "es delete-elasticsearch-domain, organizations delete-organization, "
        "organizations close-account, backup delete-backup-vault, glacier delete-vault, "
        "cognito-idp delete-user-pool, kinesis delete-stream, qldb delete-ledger"
    ).split(",")
)
"""AWS operations that destroy a data store, a cluster, a whole stack or an account."""
AWS_DELETE = re.compile(r"^(delete|terminate|remove|deregister|purge|batch-delete)-|^schedule-")


def aws_call(command: Command) -> tuple[str, ...]:
    """``(service, operation, ...)`` of an ``aws`` command (``()`` when it asks for help)."""
    words = positionals(command.args, AWS_VALUES)
    return () if "help" in words else words


def _aws_destroy(command: Command) -> bool:
    return aws_call(command)[:2] in AWS_DESTROY


def _aws_delete(command: Command) -> bool:
    words = aws_call(command)
    if len(words) < 2 or words[0] == "s3" or words[:2] in AWS_DESTROY:
        return False
    return bool(AWS_DELETE.match(words[1]))


def _bucket_root(url: str) -> bool:
    """``s3://bucket``, ``gs://bucket/``, ``gs://bucket/*``, an access point's
    ``s3://arn:aws:s3:region:account:accesspoint/name``: a whole bucket."""
    scheme, _, rest = url.partition("://")
    slashes = 1 if rest.startswith("arn:") else 0
    return scheme in ("s3", "gs") and rest.rstrip("*").rstrip("/").count("/") == slashes


def _recursive(args: Collection[str]) -> bool:
    return short(list(args), "rR") or long(list(args), "--recursive")


def _storage_words(command: Command) -> tuple[str, ...]:
    """The storage subcommand words: ``aws s3 rm ...`` and ``gcloud storage rm ...`` give
    ``("rm", ...)``; ``gsutil rm ...`` gives ``("rm", ...)``; others ``()``."""
    if command.program == "aws":
        words = aws_call(command)
        return words[1:] if words[:1] == ("s3",) else ()
    if command.program == "gcloud":
        words = positionals(command.args, GCLOUD_VALUES)
        return words[1:] if words[:1] == ("storage",) else ()
    if command.program == "gsutil":
        return positionals(command.args, GSUTIL_VALUES)
    if command.program == "s3cmd":
        words = positionals(command.args, S3CMD_VALUES)
        return ("rm", *words[1:]) if words[:1] == ("del",) else words
    return ()


def _dry_run(command: Command) -> bool:
    """``aws s3 rm --dryrun``, ``s3cmd rm -n``: only lists what would be deleted."""
    return long(command.args, "--dryrun", "--dry-run") or (
        command.program == "s3cmd" and short(command.args, "n")
    )


def _bucket_delete(command: Command) -> bool:
    words = _storage_words(command)
    if _dry_run(command):
        return False
    if words[:1] == ("rb",) or words[:2] == ("buckets", "delete"):
        return True
    deleting = words[:1] == ("rm",) and (_recursive(command.args) or command.program == "gsutil")
    return deleting and any(_bucket_root(w) for w in words[1:])


def _object_delete(command: Command) -> bool:
    """``aws s3 rm s3://bucket/key``, ``gsutil rm``, ``s3cmd rm``/``del`` of single objects
    (not recursive, and not a whole bucket: those have rules of their own)."""
    words = _storage_words(command)
    if words[:1] != ("rm",) or len(words) < 2 or _recursive(command.args):
        return False
    return not (_dry_run(command) or _bucket_delete(command))


def _objects_delete(command: Command) -> bool:
    words = _storage_words(command)
    if command.program == "azcopy":
        words = positionals(command.args)
        return words[:1] in (("remove",), ("rm",)) and _recursive(command.args)
    if command.program == "rclone":
        return positionals(command.args, {"--config"})[:1] in (("purge",), ("delete",))
    if words[:1] == ("rm",) and _recursive(command.args) and not _dry_run(command):
        return not any(_bucket_root(w) for w in words[1:])
    syncing = words[:1] in (("sync",), ("rsync",))
    return syncing and (
        long(command.args, "--delete", "--delete-unmatched-destination-objects")
        or (command.program == "s3cmd" and long(command.args, "--delete-removed"))
        or (command.program == "gsutil" and short(command.args, "d"))
    )


GCLOUD_DESTROY = (
    ("projects",),
    ("sql", "instances"),
    ("container", "clusters"),
    ("spanner", "instances"),
    ("spanner", "databases"),
    ("bigtable", "instances"),
    ("firestore", "databases"),
    ("alloydb", "clusters"),
)
AZ_DESTROY = (
    ("group",),
    ("storage", "account"),
    ("sql", "server"),
    ("sql", "db"),
    ("cosmosdb",),
    ("aks",),
    ("postgres", "flexible-server"),
    ("mysql", "flexible-server"),
)
DELETE_VERBS = frozenset({"delete", "destroy", "remove", "rm", "terminate", "purge", "del"})
_CAMEL_DELETE = re.compile(r"^(Delete|Terminate|Remove|Release|Destroy)[A-Z]")


def _verb_at(words: tuple[str, ...]) -> int:
    """Where the first deleting verb is among the first words (``-1`` when there is none)."""
    for i, word in enumerate(words[:6]):
        if word in DELETE_VERBS or word.startswith("delete-") or word.endswith("-delete"):
            return i
        if _CAMEL_DELETE.match(word):
            return i
    return -1


def _provider(values: frozenset[str], destroy: tuple[tuple[str, ...], ...], worst: bool) -> Test:
    def test(command: Command) -> bool:
        words = positionals(command.args, values)
        at = _verb_at(words)
        storage = command.program == "gcloud" and words[:1] == ("storage",)
        if at < 0 or storage or _help(command):
            return False
        whole = any(words[:at] == path for path in destroy) or (
            command.program == "az" and words[:at] == ("keyvault",) and words[at] == "purge"
        )
        return whole == worst

    return test


CLI_DELETE = tuple(
    "doctl hcloud linode-cli oci vultr-cli ibmcloud scw exo civo aliyun tccli upctl eksctl fly flyctl bq".split()
)


DOCTL_DELETE = frozenset({"d", "rm", "del"})
"""doctl's aliases of ``delete`` (``doctl a d app_id``, ``doctl compute droplet rm``): a verb,
never the first word, where the same letters name a group (``doctl d`` is ``databases``)."""
DOCTL_NOUN_GROUPS = frozenset({"compute", "kubernetes", "k", "k8s", "kube"})
"""doctl groups whose second word is a noun, never a verb (``doctl compute d`` is ``droplet``)."""
DOCTL_VALUES = frozenset(
    {"--context", "-t", "--access-token", "-c", "--config", "-u", "--api-url", "-o", "--output"}
)


def _cli_delete(command: Command) -> bool:
    if _stack_destroy(command) or _help(command):
        return False
    if command.program == "doctl":
        words = positionals(command.args, DOCTL_VALUES)
        first_verb = 2 if words[:1] and words[0] in DOCTL_NOUN_GROUPS else 1
        if any(w in DOCTL_DELETE for w in words[first_verb:4]):
            return True
        return _verb_at(words[first_verb:]) >= 0
    else:
        words = positionals(command.args, {"--context", "--profile", "--region", "-o", "--output"})
    return _verb_at(words) >= 0


#: A rule of this pack: ``_rule(name, reason, alternative, catastrophic, programs, test)``.
_rule = partial(make_rule, "cloud")


RULES = (
    _rule(
        "terraform-destroy",
        "terraform destroy (or apply -destroy) deletes every resource the configuration manages",
        "terraform plan -destroy to review, then remove resources from the configuration one by one",
        True,
        TERRAFORM,
        _terraform_destroy,
    ),
    _rule(
        "terraform-auto-approve",
        "apply -auto-approve changes (and may replace or delete) real infrastructure unreviewed",
        "terraform plan -out=plan, have the plan reviewed, then apply that plan",
        False,
        TERRAFORM,
        _terraform_auto_approve,
    ),
    _rule(
        "terraform-state",
        "state rm/push, workspace delete and force-unlock edit the state that tracks real resources",
        "terraform state pull > backup.tfstate first; prefer moved/removed blocks in code",
        False,
        TERRAFORM,
        _terraform_state,
    ),
    _rule(
        "pulumi-destroy",
        "pulumi destroy deletes every resource of the stack",
        "pulumi preview --diff, then remove resources from the program",
        True,
        ("pulumi",),
        _pulumi("destroy", "down"),
    ),
    _rule(
        "pulumi-stack-rm",
        "pulumi stack rm / state delete drops a stack's state and history",
        "pulumi stack export > backup.json first",
        False,
        ("pulumi",),
        _pulumi("stack rm", "state delete"),
    ),
    _rule(
        "stack-destroy",
        "Tearing down a deployed stack or app (cdk destroy, serverless remove, sam delete, ...) deletes its resources",
        "Review what the stack holds and remove resources through the code, with a human",
        True,
        tuple(STACK_TOOLS),
        _stack_destroy,
    ),
    _rule(
        "aws-destroy",
        "This AWS operation destroys a data store, cluster, stack, key or account",
        "Snapshot or back it up first, and have a human run it",
        True,
        ("aws",),
        _aws_destroy,
    ),
    _rule(
        "aws-delete",
        "An AWS delete/terminate/remove operation deletes a cloud resource",
        "Describe the resource first and confirm it is the one meant",
        False,
        ("aws",),
        _aws_delete,
    ),
    _rule(
        "bucket-delete",
        "Deleting a bucket or everything in it (s3 rb, gsutil rb, rm -r of a bucket) loses all its objects",
        "Delete the prefixes you mean; enable versioning or copy the bucket first",
        True,
        STORAGE,
        _bucket_delete,
    ),
    _rule(
        "objects-delete-recursive",
        "Recursive object deletion (rm -r, sync --delete, rclone purge) removes everything under a prefix",
        "List what would go first (--dryrun / -n), then delete the prefix you mean",
        False,
        (*STORAGE, "azcopy", "rclone"),
        _objects_delete,
    ),
    _rule(
        "object-delete",
        "Deleting objects from a bucket (aws s3 rm, gsutil rm, s3cmd rm) loses them unless versioning is on",
        "Check the bucket's versioning, or copy the objects aside first",
        False,
        STORAGE,
        _object_delete,
    ),
    _rule(
        "gcloud-destroy",
        "Deleting a Google Cloud project, database, cluster or bucket destroys everything in it",
        "Have a human run it after a backup; for projects, shut them down from the console",
        True,
        ("gcloud",),
        _provider(GCLOUD_VALUES, GCLOUD_DESTROY, True),
    ),
    _rule(
        "gcloud-delete",
        "gcloud ... delete deletes a Google Cloud resource",
        "Describe the resource first and confirm it is the one meant",
        False,
        ("gcloud",),
        _provider(GCLOUD_VALUES, GCLOUD_DESTROY, False),
    ),
    _rule(
        "azure-destroy",
        "Deleting an Azure resource group, storage account, database server or cluster destroys its contents",
        "Put a delete lock on it and have a human remove it after a backup",
        True,
        ("az",),
        _provider(AZ_VALUES, AZ_DESTROY, True),
    ),
    _rule(
        "azure-delete",
        "az ... delete deletes an Azure resource",
        "az ... show the resource first and confirm it is the one meant",
        False,
        ("az",),
        _provider(AZ_VALUES, AZ_DESTROY, False),
    ),
    _rule(
        "cli-delete",
        "A cloud provider CLI deleting or destroying a resource (doctl, hcloud, oci, linode-cli, ...)",
        "Inspect the resource first; snapshot it before deleting",
        False,
        CLI_DELETE,
        _cli_delete,
    ),
)

PACK = Pack(
    "cloud",
    "Infrastructure-as-code teardown and deletions through cloud provider CLIs",
    RULES,
)
