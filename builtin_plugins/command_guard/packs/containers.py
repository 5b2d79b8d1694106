"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``containers`` pack: container engines, Kubernetes and local clusters.

Covers ``docker``/``podman``/``nerdctl``/``finch`` (and their compose front-ends), ``buildah``,
``kubectl``/``oc`` (also through ``k3s``/``microk8s``), ``helm``, ``crictl`` and the local-cluster
tools. Removing
everything (prunes, ``rm -f $(docker ps -aq)``, volumes, ``compose down -v``) asks; deleting a
namespace, a CRD or anything across all namespaces blocks. This is stricter than the dcg corpus,
which has no containers pack yet: ``docker system prune`` and ``kubectl delete namespace`` are
flagged here on purpose.
"""

from __future__ import annotations

import re
from functools import partial

from hermes_hooks.shell_syntax import Command

from ..flags import long, positionals, short, values
from ..rules import Pack
from ._cli import Test, make_rule

ENGINES = ("docker", "podman", "nerdctl", "finch")
ENGINE_VALUES = frozenset(
    {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "--tlscacert"}
    | {"--tlscert", "--tlskey", "--connection", "--url", "--root", "--runroot", "--identity"}
    | {"--storage-driver", "--namespace", "-n", "--address", "-a", "--snapshotter"}
    | {"--data-root", "--cgroup-manager", "--events-backend", "--module", "--cni-path"}
)
"""Global options of the engines that take a value."""
COMPOSE = ("docker-compose", "podman-compose")
COMPOSE_VALUES = frozenset({"-f", "--file", "-p", "--project-name", "--profile", "--env-file"})
COMPOSE_VALUES |= {"--project-directory", "--ansi", "--parallel"}
KUBE = ("kubectl", "oc", "kubecolor", "k3s", "microk8s", "microk8s.kubectl")
KUBE_VALUES = frozenset(
    {"-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-s", "--server"}
    | {"--user", "--token", "-l", "--selector", "-o", "--output", "--field-selector"}
    | {"--grace-period", "--timeout", "--cascade", "--as", "--as-group", "--request-timeout"}
    | {"-f", "--filename", "-k", "--kustomize", "--replicas", "--current-replicas", "-c"}
)
"""kubectl's options (global and of the subcommands judged here) that take a value."""


def engine_words(command: Command) -> tuple[str, ...]:
    """The positional words of an engine command (its subcommand path first)."""
    return positionals(command.args, ENGINE_VALUES)


def _engine(*paths: str) -> Test:
    """An engine command whose words start with one of ``paths`` (``"system prune"``)."""
    wanted = [tuple(p.split()) for p in paths]

    def test(command: Command) -> bool:
        words = engine_words(command)
        return any(words[: len(w)] == w for w in wanted)

    return test


_ALL = re.compile(r"^(\$\(|`).*\b(ps|images|ls|list)\b.*-\w*q", re.DOTALL)
_FILTERED = re.compile(r"\s(--filter\b|-f\s)")


def _everything(command: Command) -> bool:
    """Whether the operands are every container/image: a ``$(docker ps -aq)``-style
    substitution, or ``docker ps -aq`` piped into ``xargs``."""
    if any(_ALL.match(a) and not _FILTERED.search(a) for a in command.args):
        return True
    for up in command.upstream:
        if up.program in ENGINES and engine_words(up)[:2] in (
            ("ps",),
            ("images",),
            ("container", "ls"),
            ("image", "ls"),
            ("volume", "ls"),
            ("container", "list"),
            ("image", "list"),
        ):
            return short(up.args, "q") or long(up.args, "--quiet")
    return False


def _remove_all(command: Command) -> bool:
    words = engine_words(command)
    if command.program == "buildah":  # its working containers and its images
        return words[:1] in (("rm",), ("rmi",)) and (
            short(command.args, "a") or long(command.args, "--all")
        )
    removing = words[:1] in (("rm",), ("rmi",), ("kill",)) or words[:2] in (
        ("container", "rm"),
        ("image", "rm"),
        ("container", "kill"),
        ("volume", "rm"),
    )
    return removing and (
        _everything(command) or long(command.args, "--all") or short(command.args, "a")
    )


PRUNED = frozenset({"container", "containers", "image", "images", "network", "pod", "pods"})
"""What ``<engine> <kind> prune`` removes (volumes: volume-delete; the build cache is only
cache). ``image prune`` without ``-a`` still removes untagged images, the result of a
``docker build`` without ``-t``."""


def _prune(command: Command) -> bool:
    words = engine_words(command)
    if command.program == "buildah":
        return words[:1] == ("rmi",) and (short(command.args, "p") or long(command.args, "--prune"))
    return len(words) >= 2 and words[0] in PRUNED and words[1] == "prune"


def _volumes(command: Command) -> bool:
    words = engine_words(command)
    if words[:2] in (("volume", "rm"), ("volume", "prune"), ("volume", "remove")):
        return True
    if words[:2] == ("system", "prune") and long(command.args, "--volumes"):
        return True
    return _compose_down_volumes(command)


def _compose_down_volumes(command: Command) -> bool:
    if command.program in COMPOSE:
        words = positionals(command.args, COMPOSE_VALUES)
    elif command.program in ENGINES and engine_words(command)[:1] == ("compose",):
        words = positionals(command.args, ENGINE_VALUES | COMPOSE_VALUES)[1:]
    else:
        return False
    return words[:1] == ("down",) and (short(command.args, "v") or long(command.args, "--volumes"))


def kube_call(command: Command) -> tuple[str, ...]:
    """The positional words of a kubectl-like command (``k3s kubectl``/``microk8s kubectl``
    and ``microk8s.kubectl`` included), or ``()``."""
    words = positionals(command.args, KUBE_VALUES)
    if command.program in ("k3s", "microk8s"):
        return words[1:] if words[:1] == ("kubectl",) else ()
    return words


NAMESPACE_KINDS = frozenset({"namespace", "namespaces", "ns", "project", "projects"})
CRD_KINDS = frozenset({"crd", "crds", "customresourcedefinition", "customresourcedefinitions"})
STORAGE_KINDS = frozenset({"pv", "pvc", "persistentvolume", "persistentvolumes"})
STORAGE_KINDS |= {"persistentvolumeclaim", "persistentvolumeclaims", "storageclass", "sc"}
NODE_KINDS = frozenset({"node", "nodes", "no"})


def _kinds(words: tuple[str, ...]) -> set[str]:
    """The resource kinds a ``delete`` names: ``ns``, ``ns,deploy``, ``ns/prod``."""
    kinds: set[str] = set()
    named = [w for w in words[2:] if "/" in w]
    for word in [*words[1:2], *named]:
        for part in word.split(","):
            kinds.add(part.split("/", 1)[0].split(".", 1)[0].lower())
    return kinds


def _kube_delete(kinds: frozenset[str]) -> Test:
    def test(command: Command) -> bool:
        words = kube_call(command)
        return words[:1] == ("delete",) and bool(_kinds(words) & kinds)

    return test


def _dry_run(command: Command) -> bool:
    return (
        any(v != "none" for v in values(command.args, "--dry-run")) or "--dry-run" in command.args
    )


def _kube_all_namespaces(command: Command) -> bool:
    words = kube_call(command)
    everywhere = short(command.args, "A", "nslfok") or long(command.args, "--all-namespaces")
    return words[:1] == ("delete",) and everywhere and not _dry_run(command)


def _kube_delete_all(command: Command) -> bool:
    words = kube_call(command)
    listed = any(kube_call(up)[:1] == ("get",) for up in command.upstream if up.program in KUBE)
    everything = long(command.args, "--all") or (listed and "xargs" in command.via)
    return words[:1] == ("delete",) and everything and not _dry_run(command)


def _kube_delete_manifest(command: Command) -> bool:
    words = kube_call(command)
    given = values(command.args, "-f", "--filename", "-k", "--kustomize")
    return words[:1] == ("delete",) and bool(given) and not _dry_run(command)


def _kube_delete_named(command: Command) -> bool:
    """Any other ``kubectl delete``: of named resources (``po web``, ``deploy/web``) or by a
    label selector; the kinds and forms with a rule of their own are left to it."""
    words = kube_call(command)
    if words[:1] != ("delete",) or _dry_run(command):
        return False
    if len(words) < 2 and not values(command.args, "-l", "--selector", "--field-selector"):
        return False
    kinds = NAMESPACE_KINDS | CRD_KINDS | STORAGE_KINDS | NODE_KINDS
    return not (
        _kinds(words) & kinds
        or _kube_all_namespaces(command)
        or _kube_delete_all(command)
        or _kube_delete_manifest(command)
    )


def _kube_replace_force(command: Command) -> bool:
    words = kube_call(command)
    return words[:1] == ("replace",) and long(command.args, "--force") and not _dry_run(command)


def _kube_drain(command: Command) -> bool:
    return kube_call(command)[:1] == ("drain",) and not _dry_run(command)


def _kube_scale_zero(command: Command) -> bool:
    words = kube_call(command)
    return words[:1] == ("scale",) and "0" in values(command.args, "--replicas")


def _helm_uninstall(command: Command) -> bool:
    words = positionals(command.args, {"-n", "--namespace", "--kube-context", "--kubeconfig"})
    verbs = ("uninstall", "delete", "del", "un")
    return words[:1] in [(v,) for v in verbs] and not long(command.args, "--dry-run")


SWARM_REMOVE = frozenset(
    {("stack", "rm"), ("stack", "remove"), ("stack", "down"), ("service", "rm")}
    | {("service", "remove")}
)


def _swarm_remove(command: Command) -> bool:
    return engine_words(command)[:2] in SWARM_REMOVE


HELMFILE_VALUES = frozenset(
    {"-f", "--file", "-e", "--environment", "-l", "--selector", "-n", "--namespace"}
    | {"--kube-context", "-b", "--helm-binary", "--state-values-file", "--state-values-set"}
    | {"--chart", "-c", "--log-level"}
)


def _helmfile_destroy(command: Command) -> bool:
    words = positionals(command.args, HELMFILE_VALUES)
    return words[:1] in (("destroy",), ("delete",))


def _crictl_remove_all(command: Command) -> bool:
    words = positionals(command.args, {"-r", "--runtime-endpoint", "-i", "--image-endpoint"})
    if words[:1] not in (("rmi",), ("rm",), ("rmp",)):
        return False
    return short(command.args, "a") or long(command.args, "--all", "--prune")


LOCAL_CLUSTERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "minikube": (("delete",),),
    "kind": (("delete", "cluster"), ("delete", "clusters")),
    "k3d": (("cluster", "delete"), ("cluster", "rm")),
    "microk8s": (("reset",),),
    "kubeadm": (("reset",),),
    "k3s-uninstall.sh": ((),),
    "rke2-uninstall.sh": ((),),
}


def _local_cluster(command: Command) -> bool:
    words = positionals(command.args, {"-p", "--profile", "--name", "--kubeconfig"})
    return any(words[: len(p)] == p for p in LOCAL_CLUSTERS.get(command.program, ()))


#: A rule of this pack: ``_rule(name, reason, alternative, catastrophic, programs, test)``.
_rule = partial(make_rule, "containers")


RULES = (
    _rule(
        "system-prune",
        "system prune removes every stopped container, unused network and dangling (with -a: unused) image",
        "Remove the specific containers or images you mean; docker system df shows what is used",
        False,
        ENGINES,
        _engine("system prune"),
    ),
    _rule(
        "system-reset",
        "podman system reset deletes every container, image, volume and pod of the host",
        "Prune what you mean (podman container prune, podman image prune)",
        True,
        ("podman",),
        _engine("system reset"),
    ),
    _rule(
        "prune",
        "Pruning removes all stopped containers, pods, unused networks or untagged (with -a: every "
        "unused) image",
        "Remove the specific containers, images or networks you mean",
        False,
        (*ENGINES, "buildah"),
        _prune,
    ),
    _rule(
        "remove-all",
        "Removing every container or image ($(docker ps -aq), --all) loses their data and layers",
        "Remove the containers or images you mean, by name",
        False,
        (*ENGINES, "buildah"),
        _remove_all,
    ),
    _rule(
        "volume-delete",
        "Deleting volumes (volume rm/prune, system prune --volumes, compose down -v) deletes their data",
        "Keep the volumes (compose down without -v); back a volume up before removing it",
        False,
        ENGINES + COMPOSE,
        _volumes,
    ),
    _rule(
        "kubectl-delete-namespace",
        "Deleting a namespace (or OpenShift project) deletes everything running and stored in it",
        "Delete the specific resources you mean, or scale the workloads down",
        True,
        KUBE,
        _kube_delete(NAMESPACE_KINDS),
    ),
    _rule(
        "kubectl-delete-crd",
        "Deleting a CustomResourceDefinition deletes every resource of that kind in the cluster",
        "Delete the specific custom resources you mean",
        True,
        KUBE,
        _kube_delete(CRD_KINDS),
    ),
    _rule(
        "kubectl-delete-all-namespaces",
        "kubectl delete --all-namespaces deletes the resources in every namespace of the cluster",
        "Name the namespace (-n) and the resources",
        True,
        KUBE,
        _kube_all_namespaces,
    ),
    _rule(
        "kubectl-delete-all",
        "kubectl delete --all deletes every resource of the kind in the namespace",
        "Delete by name or by a label selector (-l); try --dry-run=client first",
        False,
        KUBE,
        _kube_delete_all,
    ),
    _rule(
        "kubectl-delete-storage",
        "Deleting persistent volumes, claims or storage classes can delete the stored data",
        "Check the reclaim policy and back up the volume first",
        False,
        KUBE,
        _kube_delete(STORAGE_KINDS),
    ),
    _rule(
        "kubectl-delete-node",
        "Deleting a node removes it from the cluster with the pods scheduled on it",
        "kubectl cordon and drain the node first, with a human watching",
        False,
        KUBE,
        _kube_delete(NODE_KINDS),
    ),
    _rule(
        "kubectl-delete-manifest",
        "kubectl delete -f/-k deletes every resource the manifests describe",
        "kubectl diff -f / delete --dry-run=client -f first to see what would go",
        False,
        KUBE,
        _kube_delete_manifest,
    ),
    _rule(
        "kubectl-delete",
        "kubectl delete of named resources (or by a selector) deletes them and what they own",
        "kubectl delete --dry-run=client first, or scale the workload down instead",
        False,
        KUBE,
        _kube_delete_named,
    ),
    _rule(
        "kubectl-replace-force",
        "kubectl replace --force deletes the resources and creates them again (pods restart, data in them goes)",
        "kubectl apply, or kubectl replace without --force",
        False,
        KUBE,
        _kube_replace_force,
    ),
    _rule(
        "kubectl-drain",
        "kubectl drain evicts every pod from a node",
        "kubectl cordon to stop new pods, and drain during a planned window",
        False,
        KUBE,
        _kube_drain,
    ),
    _rule(
        "kubectl-scale-zero",
        "Scaling to zero replicas stops the workload entirely",
        "Scale down by one step, or roll out a change instead",
        False,
        KUBE,
        _kube_scale_zero,
    ),
    _rule(
        "helm-uninstall",
        "helm uninstall deletes every resource of the release",
        "helm rollback to an earlier revision, or uninstall --dry-run first",
        False,
        ("helm",),
        _helm_uninstall,
    ),
    _rule(
        "helmfile-destroy",
        "helmfile destroy uninstalls every release of the helmfile (and deletes their resources)",
        "helmfile diff, then remove releases from the helmfile one by one (or helm uninstall one)",
        True,
        ("helmfile",),
        _helmfile_destroy,
    ),
    _rule(
        "swarm-remove",
        "docker stack rm / service rm removes a deployed Swarm stack or service with its tasks",
        "docker service scale to fewer replicas, or docker stack deploy an updated compose file",
        False,
        ("docker",),
        _swarm_remove,
    ),
    _rule(
        "crictl-remove-all",
        "crictl rm/rmi --all removes every container or image of the node's runtime",
        "Remove the containers or images you mean, by id",
        False,
        ("crictl",),
        _crictl_remove_all,
    ),
    _rule(
        "local-cluster-delete",
        "Deleting a local cluster (minikube, kind, k3d, kubeadm reset, ...) destroys its state",
        "Stop the cluster instead (minikube stop, k3d cluster stop)",
        False,
        tuple(LOCAL_CLUSTERS),
        _local_cluster,
    ),
)

PACK = Pack(
    "containers",
    "Container engines, Kubernetes and local clusters: prunes, mass removals, volume and namespace deletion",
    RULES,
)
