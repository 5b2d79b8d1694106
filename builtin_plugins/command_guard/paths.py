"""Internal: part of the built-ins (docs/builtins.md), not an API.

What a path argument points at, as far as the words of a command line can tell.

The packs judge a command by its targets: ``rm -rf /tmp/x`` is fine, ``rm -rf /var/log`` is not.
:func:`normalize` rewrites the spellings of the home directory (``~``, ``$HOME``, ``${HOME}``) to
``~`` and of the temporary directory (``$TMPDIR``, ``${TMPDIR:-/tmp}``, ``$TMP``, ``$TEMP``) to
``/tmp``, and resolves ``.``/``..`` and repeated slashes lexically; :func:`place` sorts the result
into one of :data:`ROOT`, :data:`HOME`, :data:`SYSTEM`, :data:`TEMP` and :data:`OTHER`. Nothing
here looks at the real filesystem: the line is judged before it runs, possibly for another host.

Also here: block devices (:func:`is_block_device`), the files that hold secrets
(:func:`secret_kind`) and the variables that do (:func:`secret_variables`), and whether a word
holds an expansion whose value the line does not tell (:func:`is_dynamic`).
"""

from __future__ import annotations

import posixpath
import re

ROOT = "root"
"""``/`` itself, or everything directly in it (``/*``)."""
HOME = "home"
"""A home directory itself or everything in it (``~``, ``~/*``, ``/home/alice``, ``/root``), or
the directory of all homes (``/home``, ``/Users``)."""
SYSTEM = "system"
"""Inside the operating system's own directories (``/etc``, ``/usr``, ``/var/log``, ``/boot``,
...), or one of the top-level directories itself (``/opt``, ``/mnt``)."""
TEMP = "temp"
"""Inside a temporary directory (``/tmp/x``, ``/var/tmp/x``, ``$TMPDIR/x``): never the
temporary directory itself."""
OTHER = "other"
"""Anything else: a project path, a relative path, a path with an unknown variable."""

_HOME_SPELLINGS = re.compile(r"^(?:~(?=/|$)|\$HOME(?![A-Za-z0-9_])|\$\{HOME\})")
_TEMP_SPELLINGS = re.compile(
    r"^(?:\$\{(?:TMPDIR|TMP|TEMP|TEMPDIR)(?::?[-=][^}]*)?\}|\$(?:TMPDIR|TMP|TEMP|TEMPDIR)(?![A-Za-z0-9_]))"
)
_TEMP_ROOTS = (
    *("/tmp/", "/var/tmp/", "/private/tmp/", "/private/var/tmp/", "/dev/shm/"),
    *("/var/folders/", "/private/var/folders/"),  # macOS: where $TMPDIR points
)

_OS_DIRS = frozenset(
    "bin boot dev etc lib lib32 lib64 libx32 proc sbin sys usr var System Library private nix"
    " cores".split()
)
"""Top-level directories whose whole content belongs to the operating system."""
_TOP_DIRS = frozenset("opt srv mnt media run snap Applications Volumes lost+found".split())
"""Top-level directories that hold other things: themselves are system, their content is not."""
_HOMES = frozenset({"home", "Users"})


def normalize(word: str) -> str:
    """``word`` with home and temp spellings made canonical and ``.``/``..`` resolved."""
    word = _HOME_SPELLINGS.sub("~", word, count=1)
    word = _TEMP_SPELLINGS.sub("/tmp", word, count=1)
    if not word:
        return word
    if word.startswith("~") and not word.startswith("~/") and word != "~":
        # ~alice: another user's home
        user, _, rest = word[1:].partition("/")
        word = f"/home/{user}/{rest}" if rest else f"/home/{user}"
    if word.startswith("/"):
        word = posixpath.normpath(word)
        return "/" + word.lstrip("/") if word.startswith("//") else word
    if word.startswith("~"):
        rest = posixpath.normpath("/" + word[2:]) if len(word) > 2 else "/"
        if rest.startswith("//"):
            rest = "/" + rest.lstrip("/")
        return "~" if rest == "/" else "~" + rest
    return posixpath.normpath(word)


def _is_all(rest: str) -> bool:
    """``rest`` (after a directory) names everything in it: ``*``, ``.*``, ``{*,.*}``..."""
    return bool(rest) and set(rest) <= set("*.{},?[]!")


def place(word: str) -> str:
    """Which of :data:`ROOT` :data:`HOME` :data:`SYSTEM` :data:`TEMP` :data:`OTHER` ``word`` is."""
    path = normalize(word)
    if path in ("/", "/.") or (path.startswith("/") and _is_all(path[1:])):
        return ROOT
    if path == "~" or (path.startswith("~/") and _is_all(path[2:])):
        return HOME
    if path.startswith("~"):
        return OTHER
    if not path.startswith("/"):
        return OTHER
    if any(path.startswith(t) for t in _TEMP_ROOTS):
        return TEMP
    parts = path[1:].split("/")
    top = parts[0]
    if top == "root" and (len(parts) == 1 or (len(parts) == 2 and _is_all(parts[1]))):
        return HOME
    if top in _HOMES:
        if len(parts) == 1 or _is_all(parts[1]):
            return HOME
        if len(parts) == 2 or (len(parts) == 3 and _is_all(parts[2])):
            return HOME
        return OTHER
    if top in _OS_DIRS or _is_all(top):
        return SYSTEM
    if top in _TOP_DIRS and (len(parts) == 1 or _is_all(parts[1])):
        return SYSTEM
    return OTHER


def is_temp(word: str) -> bool:
    """``word`` is inside a temporary directory (see :data:`TEMP`)."""
    return place(word) == TEMP


def is_critical(word: str) -> bool:
    """``word`` is the root, a home, or a system path: losing it breaks the machine or a user."""
    return place(word) in (ROOT, HOME, SYSTEM)


def is_dynamic(word: str) -> bool:
    """``word`` holds an expansion the line leaves open (``$X``, ``$(cmd)``, a backtick)."""
    return "$" in word or "`" in word


_DEVICE = re.compile(
    r"^/dev/(?:(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|sr|nbd|zd|mtdblock|mtd|ubi|rbd"
    r"|bcache|pmem|nvd|ada|da|ad|fd\d|scd|nst|st\d|sg|mem$|kmem$|port$)"
    r"|(?:mapper|disk|md|zvol|block)/"
    r"|(?!(?:pts|fd|shm|input|snd|bus|net|dri|char|usb|serial|v4l|hugepages|mqueue|cpu)/)"
    r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$)"
)


def is_block_device(word: str) -> bool:
    """``word`` names a disk, partition, volume or memory device (``/dev/sda1``,
    ``/dev/nvme0n1``, ``/dev/mapper/root``, ``/dev/vg0/lv0``, ``/dev/disk2``, ``/dev/mem``);
    ``/dev/null``, ``/dev/stdout``, terminals and the like are not."""
    path = normalize(word)
    return bool(_DEVICE.match(path))


_PSEUDO_DEVICES = re.compile(
    r"^/dev/(?:null|zero|full|random|urandom|stdout|stderr|stdin|tty|ptmx|console"
    r"|(?:fd|shm|pts|mqueue|hugepages)(?:/.*)?)$"
)


def is_device(word: str) -> bool:
    """``word`` is a device file that holds data: any ``/dev/...`` (``/dev/sdb``,
    ``/dev/usb_drive``, ``/dev/dest_drive``) but the pseudo-devices (``/dev/null``,
    ``/dev/zero``, ``/dev/urandom``, ``/dev/stdout``, ``/dev/tty``, ``/dev/fd/N``,
    ``/dev/shm/...``, ``/dev/pts/N``). Wider than :func:`is_block_device`: for programs that
    only ever write raw bytes to devices (``dd of=``)."""
    path = normalize(word)
    return path.startswith("/dev/") and len(path) > 5 and not _PSEUDO_DEVICES.match(path)


_HISTORY_NAMES = re.compile(
    r"^(?:\.bash_history|\.zsh_history|\.zhistory|\.history|\.sh_history|\.ksh_history"
    r"|fish_history|\$\{?HISTFILE\}?)$"
)


def is_shell_history(word: str) -> bool:
    """``word`` is a shell's history file (``~/.bash_history``, ``~/.zsh_history``,
    ``~/.history``, fish's ``fish_history``, ``$HISTFILE``)."""
    name = normalize(word).rstrip("/").rsplit("/", 1)[-1]
    return bool(_HISTORY_NAMES.match(name))


_PRIVATE_NAMES = re.compile(r"^id_[a-z0-9_]+$|^ssh_host_[a-z0-9]+_key$|^private-keys-v1\.d$")
_SECRET_NAMES = re.compile(
    r"^\.env(?:\.(?!example$|sample$|template$|dist$|defaults?$)[\w.-]+)?$"
    r"|\.(?:pem|key|p12|pfx|jks|keystore|kdbx|ppk|asc|gpg)$"
    r"|^(?:\.netrc|_netrc|\.git-credentials|\.npmrc|\.pypirc|\.pgpass|\.my\.cnf|credentials"
    r"|credentials\.json|service[-_]account.*\.json|secrets?\.(?:json|ya?ml|toml)"
    r"|\.bash_history|\.zsh_history|\.python_history|\.psql_history|\.mysql_history"
    r"|htpasswd|\.htpasswd|\.vault-token|kubeconfig)$"
)
_SECRET_DIRS = re.compile(
    r"(?:^|/)(?:\.ssh|\.aws|\.gnupg|\.kube|\.docker|\.azure|\.password-store"
    r"|\.config/(?:gcloud|gh|hub|doctl|op)|\.terraform\.d)(?:/|$)"
)
_PUBLIC = re.compile(r"\.pub$|(?:^|/)known_hosts(?:\.old)?$|(?:^|/)authorized_keys$")


def secret_kind(word: str) -> str | None:
    """``"private"`` for a private key or the password hashes (``~/.ssh/id_ed25519``,
    ``/etc/shadow``), ``"secret"`` for another file of credentials (``.env``, ``*.pem``,
    ``~/.aws/credentials``, ``~/.kube/config``, ``~/.netrc``, a shell history), else ``None``.

    A ``curl -d @file`` or ``name=@file`` spelling should be stripped to the file first."""
    path = normalize(word)
    if not path or _PUBLIC.search(path):
        return None
    name = path.rsplit("/", 1)[-1]
    if path in ("/etc/shadow", "/etc/gshadow", "/etc/master.passwd", "/etc/security/opasswd"):
        return "private"
    if _PRIVATE_NAMES.match(name) or "/private-keys-v1.d" in path:
        return "private"
    if _SECRET_NAMES.search(name) or _SECRET_DIRS.search(path):
        return "secret"
    if path.startswith("/etc/ssl/private") or path == "/etc/sudoers":
        return "secret"
    if path.endswith("/secrets/kubernetes.io/serviceaccount/token"):
        return "secret"
    return None


_SECRET_VAR = re.compile(
    r"\$\{?((?:[A-Za-z_][A-Za-z0-9_]*)?(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|APIKEY"
    r"|API_KEY|PRIVATE_KEY|ACCESS_KEY|_KEY|_PAT)(?:_[A-Z0-9]+)?)(?![A-Za-z0-9_])",
    re.IGNORECASE,
)


def secret_variables(word: str) -> list[str]:
    """The names of the secret-looking variables ``word`` expands (``$GITHUB_TOKEN``,
    ``${AWS_SECRET_ACCESS_KEY}``, ``$DB_PASSWORD``)."""
    return [m.group(1) for m in _SECRET_VAR.finditer(word)]


_CRITICAL_FILES = frozenset(
    "/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/sudoers /etc/fstab /etc/crypttab"
    " /etc/master.passwd /etc/login.defs /etc/nsswitch.conf /etc/ld.so.preload /etc/ld.so.conf"
    " /etc/inittab /etc/securetty /etc/ssh/sshd_config".split()
)
_CRITICAL_TREES = (
    "/boot/",
    "/bin/",
    "/sbin/",
    "/usr/bin/",
    "/usr/sbin/",
    "/lib/",
    "/lib32/",
    "/lib64/",
    "/usr/lib/",
    "/usr/lib64/",
    "/etc/pam.d/",
    "/etc/sudoers.d/",
    "/System/",
)


def is_critical_file(word: str) -> bool:
    """``word`` is a file the system cannot boot, log in or run programs without: the account
    and sudo files, ``/etc/fstab``, the boot directory, the system's programs and libraries."""
    path = normalize(word)
    return path in _CRITICAL_FILES or any(path.startswith(t) for t in _CRITICAL_TREES)


_STARTUP_OR_AUTH = re.compile(
    r"^(?:"
    # log-in and privileges: PAM, sudo, the dynamic loader's preloads
    r"/etc/(?:pam\.d|pam\.conf|sudoers(?:\.d)?|security|ld\.so\.preload|ld\.so\.conf(?:\.d)?)"
    r"|/Library/Security/SecurityAgentPlugins"
    # services and boot scripts: launchd, StartupItems, emond, systemd, SysV init, rc
    r"|(?:/System)?/Library/(?:LaunchDaemons|LaunchAgents|StartupItems)|/etc/emond\.d"
    r"|/etc/(?:systemd/(?:system|user)|init\.d|init|rc\.local|rc\.common|rc\.d|rc[0-6S]\.d)"
    r"|/(?:usr/)?lib/systemd/(?:system|user)|/etc/xdg/autostart|/etc/update-motd\.d"
    r"|/etc/(?:udev/rules\.d|modules-load\.d|modules|modprobe\.d)"
    # scheduled jobs
    r"|/etc/(?:cron\.[a-z]+|crontab|anacrontab)|/var/spool/cron|/var/at|/usr/lib/cron/tabs"
    # every log-in shell's start-up files
    r"|/etc/(?:profile(?:\.d)?|bash\.bashrc|bashrc|zshrc|zprofile|zshenv|zlogin|zsh|environment)"
    # a user's own agents and autostart entries
    r"|(?:~|/Users/[^/]+|/home/[^/]+|/root)/(?:Library/LaunchAgents|\.config/autostart"
    r"|\.config/systemd/user)"
    r")(?:/|$)"
)


def is_startup_or_auth(word: str) -> bool:
    """``word`` is in a place the system runs or trusts at boot, log-in or on a schedule: PAM,
    sudoers, ``/etc/ld.so.preload``, launchd's LaunchDaemons/LaunchAgents (the system's and a
    user's), ``/Library/StartupItems``, emond, systemd units, init scripts, ``rc.local``, cron,
    the shells' system-wide profiles, autostart entries. A file put there runs (or grants
    access) without anyone starting it: where malware persists."""
    return bool(_STARTUP_OR_AUTH.match(normalize(word)))


def is_top_level(word: str) -> bool:
    """``word`` is the root, a home, or a top-level directory (``/etc``, ``/usr``, ``/opt``), or
    a directory directly in ``/usr`` or ``/var`` (``/usr/lib``, ``/var/lib``)."""
    path = normalize(word)
    kind = place(path)
    if kind in (ROOT, HOME):
        return True
    if kind != SYSTEM:
        return False
    parts = path[1:].split("/")
    return len(parts) == 1 or (len(parts) == 2 and parts[0] in ("usr", "var", "private"))


def remote_path(word: str) -> str | None:
    """The path part of an scp/rsync remote operand (``host:/etc`` is ``/etc``, ``host:`` and
    ``user@host:`` are the remote home ``~``), or ``None`` for a local operand."""
    if word.startswith("rsync://"):
        rest = word[len("rsync://") :].partition("/")[2]
        return "/" + rest
    match = re.match(r"^(?:[\w.+-]+@)?\[?[\w.:-]+?\]?:(?!//)(.*)$", word)
    if not match or word.startswith("/") or word.startswith("."):
        return None
    path = match.group(1)
    return path if path.startswith("/") or path.startswith("~") else f"~/{path}" if path else "~"
