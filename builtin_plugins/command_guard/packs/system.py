"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``system`` pack: taking a machine down or weakening it as a whole.

Permissions and owners changed recursively on system directories, every process killed, fork
bombs, shutdown and reboot, accounts removed or locked, scheduled jobs deleted, critical services
stopped, the firewall or the security modules turned off, kernel parameters and modules changed,
the shell history erased. Deleting system files is the ``filesystem`` pack's.
"""

from __future__ import annotations

import re

from hermes_hooks.shell_syntax import Command

from ..flags import read_flags
from ..paths import (
    HOME,
    ROOT,
    SYSTEM,
    TEMP,
    is_critical_file,
    is_shell_history,
    normalize,
    place,
)
from ..rules import ANY, Pack, Rule


def _help(args: tuple[str, ...]) -> bool:
    return any(a in ("--help", "--version") for a in args)


def _mode_targets(command: Command) -> tuple[bool, str, tuple[str, ...]]:
    """(recursive, mode or owner, targets) of chmod/chown/chgrp/setfacl."""
    values = ("--reference", "--from") if command.program != "setfacl" else ("-m", "-M", "-x")
    flags = read_flags(command.args, takes_value=values)
    recursive = flags.has("-R", "--recursive")
    operands = flags.operands
    if command.program == "setfacl" or flags.has("--reference"):
        return recursive, "", operands
    # chmod -x file: the mode looks like an option
    if command.program == "chmod" and not operands:
        return recursive, "", ()
    return recursive, operands[0] if operands else "", operands[1:]


def _chmod_system(command: Command) -> bool:
    recursive, _, targets = _mode_targets(command)
    dangerous = {ROOT, SYSTEM} if command.program in ("chown", "chgrp") else {ROOT, SYSTEM, HOME}
    return recursive and any(place(t) in dangerous for t in targets)


_OPEN_MODE = re.compile(r"^(?:0?[0-7]?[0-7][0-7][2367]|[ugoa]*[+=][rwxXst]*w[rwxXst]*)$")


def _chmod_world_writable(command: Command) -> bool:
    recursive, mode, targets = _mode_targets(command)
    if _chmod_system(command):
        return False
    world = bool(_OPEN_MODE.match(mode)) and (mode[0].isdigit() or mode[0] in "oa+=")
    return recursive and world and any(place(t) != TEMP for t in targets)


def _chmod_critical_file(command: Command) -> bool:
    recursive, _, targets = _mode_targets(command)
    return not recursive and any(is_critical_file(t) for t in targets)


def _kill_everything(command: Command) -> bool:
    program, args = command.program, list(command.args)
    if program == "killall5":
        return not _help(command.args)
    if program == "kill":
        pids: list[str] = []
        i = 0
        while i < len(args):
            arg = args[i]
            if arg in ("-s", "-n", "--signal"):
                i += 2
                continue
            if arg == "--":
                pids.extend(args[i + 1 :])
                break
            if arg.startswith("-") and i == 0 and arg not in ("-1",):
                i += 1
                continue
            if arg == "-1" and i == 0 and len(args) > 1:
                i += 1  # kill -1 PID: the signal HUP
                continue
            pids.append(arg)
            i += 1
        return any(p in ("-1", "1") for p in pids)
    if program in ("pkill", "pgrep"):
        if program == "pgrep":
            return False
        flags = read_flags(command.args, takes_value=("-u", "-U", "-g", "-G", "-P", "-s", "-t"))
        patterns = flags.operands
        return any(p in (".", ".*", "^", "", "$", "^.*$", ".+") for p in patterns) or any(
            p in ("init", "systemd", "^init$", "^systemd$") for p in patterns
        )
    if program == "killall":
        operands = read_flags(command.args, takes_value=("-u", "--user", "-s", "--signal")).operands
        return any(p in ("init", "systemd", "launchd", "sshd") for p in operands)
    return False


_FILTERS = frozenset(
    "cat tac tee sort uniq head tail less more wc tr rev od xxd base64 gzip gunzip zcat bzip2"
    " xz zstd jq yq sed awk grep cut paste column fmt fold nl pv true false yes echo printf dd"
    " mbuffer buffer ssh nc socat python python3 node ruby perl sh bash zsh".split()
)


def _fork_bomb(command: Command) -> bool:
    """``:(){ :|:& };:``: a command that pipes into another run of itself, both without
    arguments. Inside a function of the same name (when the parser names it in ``via``) that is
    certain; without it, a program piped into itself with no arguments is taken as one, unless
    it is a stream filter (``cat | cat`` is only odd)."""
    name = command.program
    if not name or command.dynamic or command.args:
        return False
    if not any(u.program == name and not u.args for u in command.upstream):
        return False
    if any(_defines(step, name) for step in command.via):
        return True
    return name not in _FILTERS


def _defines(step: str, name: str) -> bool:
    return step in (f"function {name}", f"{name}()", f"function {name}()")


_SHUTDOWN_VERBS = frozenset(
    "poweroff reboot halt kexec soft-reboot rescue emergency default hibernate".split()
)
_SHUTDOWN_TARGETS = frozenset(
    "poweroff.target reboot.target halt.target rescue.target emergency.target kexec.target".split()
)


_KEXEC_VALUES = ("--type", "-t", "--initrd", "--ramdisk", "--append", "--command-line", "--dtb")
_RTCWAKE_VALUES = ("-m", "--mode", "-s", "--seconds", "-t", "--time", "-d", "--device", "-A")


def _kexec_jumps(args: tuple[str, ...]) -> bool:
    """``kexec -e`` boots the loaded kernel at once (a reboot without firmware), and so does
    ``kexec KERNEL`` with none of ``-l``/``-p``/``-u``/``-s`` (load, then execute)."""
    flags = read_flags(args, takes_value=_KEXEC_VALUES)
    if flags.has("-e", "--exec"):
        return True
    only_loads = ("-l", "--load", "-p", "--load-panic", "-u", "--unload", "-S", "--status")
    return bool(flags.operands) and not flags.has(*only_loads, "--load-preserve-context")


def _shutdown(command: Command) -> bool:
    program, args = command.program, command.args
    if _help(args):
        return False
    if program == "shutdown":
        return not any(a in ("-c", "--cancel", "-k") for a in args)
    if program in ("reboot", "halt", "poweroff"):
        return "-w" not in args and "--wtmp-only" not in args
    if program in ("init", "telinit"):
        return bool(args) and args[0] in ("0", "1", "6", "s", "S", "single", "emergency")
    if program == "kexec":
        return _kexec_jumps(args)
    if program == "rtcwake":
        mode = read_flags(args, takes_value=_RTCWAKE_VALUES).value("-m", "--mode")
        return mode in ("off", "disk", "mem", "standby", "freeze")
    if program in ("systemctl", "loginctl"):
        words = read_flags(args, takes_value=("-H", "--host", "-M", "--machine", "-t")).operands
        if not words:
            return False
        if words[0] in _SHUTDOWN_VERBS and words[0] != "default":
            return True
        return words[0] == "isolate" and any(w in _SHUTDOWN_TARGETS for w in words[1:])
    return False


def _sysrq(command: Command) -> bool:
    return any(
        r.op in (">", ">>", ">|") and normalize(r.target) == "/proc/sysrq-trigger"
        for r in command.redirects
    ) or (
        command.program == "tee"
        and any(normalize(a) == "/proc/sysrq-trigger" for a in command.args)
    )


def _account_removal(command: Command) -> bool:
    program, args = command.program, command.args
    if _help(args):
        return False
    if program in ("userdel", "deluser", "groupdel", "delgroup", "luserdel", "lgroupdel"):
        return any(not a.startswith("-") for a in args)
    if program == "dscl":
        return "-delete" in args and any(a.startswith(("/Users", "/Groups")) for a in args)
    if program == "sysadminctl":
        return "-deleteUser" in args
    if program == "pw":
        return bool(args) and args[0] in ("userdel", "groupdel")
    return False


def _account_lock(command: Command) -> bool:
    program, args = command.program, command.args
    if program == "passwd":
        return read_flags(args).has("-d", "--delete", "-l", "--lock", "-e", "--expire")
    if program == "usermod":
        flags = read_flags(args, takes_value=("-e", "--expiredate", "-s", "--shell", "-G"))
        expiry = flags.value("-e", "--expiredate")
        shell = flags.value("-s", "--shell") or ""
        return (
            flags.has("-L", "--lock")
            or expiry in ("0", "1")
            or shell.endswith(("nologin", "/false"))
        )
    if program == "chage":
        flags = read_flags(args, takes_value=("-E", "--expiredate", "-M", "-m", "-W", "-I", "-d"))
        return flags.value("-E", "--expiredate") in ("0", "1") or flags.value("-d") == "0"
    if program == "chsh":
        chosen = read_flags(args, takes_value=("-s", "--shell", "-R", "--root"))
        return (chosen.value("-s", "--shell") or "").endswith(("nologin", "/false"))
    if program == "pw":  # FreeBSD: pw lock USER
        return bool(args) and args[0] == "lock" and len(args) > 1
    if program == "pwpolicy":  # macOS
        return "-disableuser" in args
    return False


_PASSWD_VALUES = (
    *("-n", "--mindays", "-x", "--maxdays", "-w", "--warndays", "-i", "--inactive"),
    *("-r", "--repository", "-R", "--root", "-P", "--prefix"),
)


def _password_change(command: Command) -> bool:
    """Another user's password set: ``passwd USER`` (as root, no old password asked),
    ``chpasswd``, ``usermod -p``. A plain ``passwd`` is the user's own, asked interactively."""
    program, args = command.program, command.args
    if _help(args):
        return False
    if program == "passwd":
        flags = read_flags(args, takes_value=_PASSWD_VALUES)
        if flags.has("-S", "--status", "-d", "--delete", "-l", "--lock", "-e", "--expire"):
            return False  # status is read-only; the others are account-lock's
        return bool(flags.operands) or flags.has("--stdin")
    if program in ("chpasswd", "chgpasswd"):
        return True
    if program == "usermod":
        return read_flags(args, takes_value=("-p", "--password")).has("-p", "--password")
    if program == "dscl":
        return "-passwd" in args
    if program == "sysadminctl":
        return "-resetPasswordFor" in args
    return False


def _scheduled_jobs(command: Command) -> bool:
    program, args = command.program, command.args
    if program == "crontab":
        flags = read_flags(args, takes_value=("-u",))
        if flags.has("-r", "--remove"):
            return True
        if flags.asks_help("-V") or flags.has("-l", "-e", "-T"):
            return False
        return bool(flags.operands)  # crontab FILE (or -): replaces the whole crontab
    if program == "atrm":
        return bool(args) and not _help(args)
    if program == "at":
        return read_flags(args).has("-r", "-d")
    return False


_CRITICAL_UNITS = frozenset(
    "ssh sshd networking network NetworkManager systemd-networkd systemd-resolved dbus"
    " dbus-broker systemd-journald systemd-logind systemd-udevd getty cron crond firewalld ufw"
    " nftables iptables apparmor auditd polkit wpa_supplicant".split()
)


def _unit_name(word: str) -> str:
    name = word.split("@", 1)[0]
    for suffix in (".service", ".socket", ".target"):
        name = name.removesuffix(suffix)
    return name


_CRITICAL_PROCESSES = frozenset(
    "sshd cron crond anacron atd systemd-journald journald rsyslogd rsyslog syslogd syslog-ng"
    " auditd NetworkManager systemd-networkd systemd-resolved systemd-logind systemd-udevd"
    " dbus-daemon dbus-broker firewalld wpa_supplicant polkitd launchd configd mDNSResponder"
    " syslogd".split()
)
_HARMLESS_SIGNALS = frozenset(
    "HUP 1 USR1 10 30 USR2 12 31 0 CONT 18 19 25 WINCH 28 INFO 29 ZERO".split()
)
"""Signals that reload, report or resume (``kill -HUP`` rereads a configuration)."""
_PID_LOOKUP = re.compile(
    r"(?:\$\(|`)\s*(?:pgrep|pidof)\s+(?:-\S+\s+)*['\"]?\^?([\w.@-]+?)\$?['\"]?\s*(?:\)|`)"
    r"|(?:\$\(|`)\s*cat\s+/(?:var/)?run/([\w.-]+?)(?:/[\w.-]+)?\.pid\s*(?:\)|`)"
)


def _signal_name(value: str) -> str:
    name = value.upper().removeprefix("-")
    return name.removeprefix("SIG") if name.startswith("SIG") else name


def _signal_and_targets(command: Command) -> tuple[str, list[str]]:
    """(signal, the process names targeted) of kill/killall/pkill."""
    args = list(command.args)
    signal = "TERM"
    names: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-s", "--signal", "-n") and i + 1 < len(args):
            signal = _signal_name(args[i + 1])
            i += 2
            continue
        if arg.startswith("--signal="):
            signal = _signal_name(arg.partition("=")[2])
        elif arg.startswith("-") and len(arg) > 1 and (arg[1:].isdigit() or arg[1:].isupper()):
            signal = _signal_name(arg)
        elif command.program in ("killall", "pkill") and arg in (
            *("-u", "--user", "-U", "-g", "-G", "-P", "-t", "-o", "-y", "--older-than"),
            "--younger-than",
        ):
            i += 1
        elif command.program == "kill":
            names += [m.group(1) or m.group(2) for m in _PID_LOOKUP.finditer(arg)]
        elif not arg.startswith("-"):
            names.append(arg.strip("^$'\""))
        i += 1
    return signal, names


def _critical_process_signal(command: Command) -> bool:
    signal, names = _signal_and_targets(command)
    if signal in _HARMLESS_SIGNALS or any(a in ("-l", "-L", "--list") for a in command.args):
        return False
    return any(n in _CRITICAL_PROCESSES or _unit_name(n) in _CRITICAL_UNITS for n in names)


_STOPPING_VERBS = frozenset({"stop", "disable", "kill"})
_SERVICE_STOP = frozenset({"stop"})
# (sets, not literals in the comparison: "stop" is also a hook event's name, which the
# structure test keeps out of comparisons outside hookspecs)


def _critical_service(command: Command) -> bool:
    program, args = command.program, command.args
    if program in ("kill", "killall", "pkill"):
        return _critical_process_signal(command)
    if program == "systemctl":
        words = read_flags(args, takes_value=("-H", "--host", "-M", "--machine", "-s")).operands
        if not words:
            return False
        verb, units = words[0], words[1:]
        if verb == "mask":
            return bool(units)
        return verb in _STOPPING_VERBS and any(_unit_name(u) in _CRITICAL_UNITS for u in units)
    if program == "service":
        return (
            len(args) >= 2 and args[1] in _SERVICE_STOP and _unit_name(args[0]) in _CRITICAL_UNITS
        )
    return False


_IPTABLES = (
    *("iptables", "ip6tables", "iptables-legacy", "ip6tables-legacy", "iptables-nft"),
    *("ip6tables-nft", "ebtables", "arptables"),
)


def _firewall_off(command: Command) -> bool:
    program, args = command.program, command.args
    if program in _IPTABLES:
        flags = read_flags(args, takes_value=("-t", "--table", "-A", "-I", "-D", "-N", "-j"))
        if flags.has("-F", "--flush", "-X", "--delete-chain"):
            return True
        policy = [a for a in args if a not in ("-P", "--policy")]
        return ("-P" in args or "--policy" in args) and any(
            p in ("DROP", "REJECT", "ACCEPT") for p in policy
        )
    if program == "ufw":
        return bool(args) and args[0] in ("disable", "reset")
    if program == "nft":
        words = [a for a in args if not a.startswith("-")]
        return words[:2] == ["flush", "ruleset"] or words[:2] == ["delete", "table"]
    if program == "firewall-cmd":
        return any(a in ("--panic-on", "--set-default-zone=trusted") for a in args)
    if program == "pfctl":
        flags = read_flags(args, takes_value=("-F", "-f", "-a", "-s", "-T", "-t", "-k"))
        return flags.has("-d") or flags.value("-F") in ("all", "rules")
    return False


def _sysctl_write(command: Command) -> bool:
    flags = read_flags(command.args, takes_value=("-p", "--load"))
    return flags.has("-w", "--write") or any("=" in o for o in flags.operands)


def _security_off(command: Command) -> bool:
    program, args = command.program, command.args
    if program == "setenforce":
        return bool(args) and args[0].lower() in ("0", "permissive")
    if program in ("aa-disable", "aa-teardown", "aa-complain"):
        return not _help(args)
    if program == "apparmor_parser":
        return read_flags(args).has("-R", "--remove")
    if program == "spctl":
        return any(a in ("--master-disable", "--global-disable", "--disable") for a in args)
    if program == "csrutil":  # SIP, and its sealed system volume (authenticated-root)
        words = [a for a in args if not a.startswith("-")]
        return any(w in ("disable", "clear") for w in words[:2])
    if program == "fdesetup":  # FileVault: decrypts the disk
        return bool(args) and args[0] == "disable"
    if program == "mokutil":  # Secure Boot's signature checks
        return read_flags(args).has("--disable-validation")
    if program == "auditctl":
        flags = read_flags(args, takes_value=("-e", "-w", "-a", "-k", "-p", "-F", "-b", "-f"))
        return flags.value("-e") == "0" or flags.has("-D")
    return False


def _backups_off(command: Command) -> bool:
    program, args = command.program, command.args
    words = [a.lower() for a in args if not a.startswith("-")]
    if program == "tmutil":
        return bool(words) and words[0] in (
            *("disable", "disablelocal", "delete", "deletelocalsnapshots", "thinlocalsnapshots"),
            *("removedestination", "deleteinprogress"),
        )
    if program in ("vssadmin", "vssadmin.exe"):
        return words[:2] in (["delete", "shadows"], ["resize", "shadowstorage"])
    if program in ("wbadmin", "wbadmin.exe"):
        return bool(words) and words[0] == "delete"
    return False


_HISTORY_VARIABLES = ("HISTFILE", "HISTSIZE", "HISTFILESIZE", "SAVEHIST")


def _history_setting_off(name: str, value: str) -> bool:
    if name == "HISTFILE":
        return normalize(value) == "/dev/null" or value == ""
    return name in _HISTORY_VARIABLES and value in ("0", "")


def _history_clear(command: Command) -> bool:
    program, args = command.program, command.args
    if program == "history":
        return read_flags(args, takes_value=("-d",)).has("-c")
    if program == "unset":
        return "HISTFILE" in args
    if program == "set":
        return "history" in args and "+o" in args
    settings = list(command.assignments) if not program else []
    if program in ("export", "declare", "typeset", "readonly"):
        settings += [(a.partition("=")[0], a.partition("=")[2]) for a in args if "=" in a]
    if any(_history_setting_off(n, v) for n, v in settings):
        return True
    written = [r.target for r in command.redirects if r.op in (">", ">|", "&>", "1>")]
    if program in ("rm", "unlink", "shred", "srm", "wipe", "truncate", "tee"):
        written += read_flags(args, takes_value=("-s", "--size", "-n")).operands
    elif program == "ln":
        operands = read_flags(args, takes_value=("-t", "-S", "--suffix")).operands
        written += operands[-1:] if len(operands) == 2 else []
    elif program in ("cp", "mv"):
        operands = read_flags(args, takes_value=("-t", "-S", "--suffix")).operands
        written += operands[-1:] if len(operands) >= 2 else []
    elif program == "dd":
        written += [a[3:] for a in args if a.startswith("of=")]
    return any(is_shell_history(w) for w in written)


def _module_remove(command: Command) -> bool:
    if command.program == "rmmod":
        return bool(command.args) and not _help(command.args)
    if command.program == "modprobe":
        return read_flags(command.args).has("-r", "--remove")
    return False


RULES = (
    Rule(
        id="system.chmod-system",
        reason="recursively changes permissions or owners of /, a home or a system directory",
        alternative="change the one file or project directory that needs it",
        catastrophic=True,
        programs=("chmod", "chown", "chgrp", "setfacl"),
        test=_chmod_system,
    ),
    Rule(
        id="system.chmod-world-writable",
        reason="makes a whole tree writable by every user of the machine",
        alternative="grant the owner or group only (chmod -R u+w, g+w)",
        catastrophic=False,
        programs=("chmod",),
        test=_chmod_world_writable,
    ),
    Rule(
        id="system.chmod-critical-file",
        reason="changes the permissions or owner of an account, sudo, boot or system program file",
        alternative="leave system files' modes to the package manager",
        catastrophic=False,
        programs=("chmod", "chown", "chgrp", "setfacl"),
        test=_chmod_critical_file,
    ),
    Rule(
        id="system.kill-everything",
        reason="kills every process the user may signal, or init itself",
        alternative="kill the specific process id (pgrep -f NAME to find it)",
        catastrophic=True,
        programs=("kill", "killall5", "pkill", "killall"),
        test=_kill_everything,
    ),
    Rule(
        id="system.fork-bomb",
        reason="a function that starts two copies of itself exhausts the process table",
        alternative="do not run it; test limits with ulimit in a container",
        catastrophic=True,
        programs=(ANY,),
        test=_fork_bomb,
    ),
    Rule(
        id="system.shutdown",
        reason="shuts down, reboots or halts the machine, ending every session on it",
        alternative="ask the user to reboot; restart only the service that needs it",
        catastrophic=False,
        programs=(
            *("shutdown", "reboot", "halt", "poweroff", "init", "telinit", "systemctl"),
            *("kexec", "rtcwake"),
        ),
        test=_shutdown,
    ),
    Rule(
        id="system.sysrq",
        reason="a write to /proc/sysrq-trigger reboots, halts or crashes the kernel at once",
        alternative="use the normal shutdown path, by hand",
        catastrophic=True,
        programs=(ANY,),
        test=_sysrq,
    ),
    Rule(
        id="system.account-removal",
        reason="deletes a user account or group (with -r, its home too)",
        alternative="lock the account instead (usermod -L) and keep its files",
        catastrophic=False,
        programs=(
            "userdel",
            "deluser",
            "groupdel",
            "delgroup",
            "luserdel",
            "lgroupdel",
            "dscl",
            "sysadminctl",
            "pw",
        ),
        test=_account_removal,
    ),
    Rule(
        id="system.account-lock",
        reason="removes a password, or locks or expires an account (root too)",
        alternative="change the password with passwd, by hand",
        catastrophic=False,
        programs=("passwd", "usermod", "chage", "chsh", "pw", "pwpolicy"),
        test=_account_lock,
    ),
    Rule(
        id="system.password-change",
        reason="sets another user's password (as root no old password is asked)",
        alternative="let the user change their own password, by hand",
        catastrophic=False,
        programs=("passwd", "chpasswd", "chgpasswd", "usermod", "dscl", "sysadminctl"),
        test=_password_change,
    ),
    Rule(
        id="system.scheduled-jobs",
        reason="deletes or replaces the user's crontab, or deletes queued at jobs, without a copy",
        alternative="save them first (crontab -l > crontab.bak) and edit with crontab -e",
        catastrophic=False,
        programs=("crontab", "atrm", "at"),
        test=_scheduled_jobs,
    ),
    Rule(
        id="system.critical-service",
        reason="stops, disables, masks or kills a service the machine needs (ssh, network, "
        "logging, cron)",
        alternative="restart it instead (systemctl restart), or ask first",
        catastrophic=False,
        programs=("systemctl", "service", "kill", "killall", "pkill"),
        test=_critical_service,
    ),
    Rule(
        id="system.firewall-off",
        reason="flushes or disables the firewall, or changes a chain's default policy",
        alternative="add or delete the one rule you need",
        catastrophic=False,
        programs=(*_IPTABLES, "ufw", "nft", "firewall-cmd", "pfctl"),
        test=_firewall_off,
    ),
    Rule(
        id="system.sysctl-write",
        reason="changes a kernel parameter of the running system",
        alternative="read it with sysctl NAME; persist changes in /etc/sysctl.d by review",
        catastrophic=False,
        programs=("sysctl",),
        test=_sysctl_write,
    ),
    Rule(
        id="system.security-off",
        reason="turns off SELinux, AppArmor, Gatekeeper/SIP, FileVault, Secure Boot checks or "
        "the audit log",
        alternative="fix the policy for the one program that is denied",
        catastrophic=False,
        programs=(
            "setenforce",
            "aa-disable",
            "aa-teardown",
            "aa-complain",
            "apparmor_parser",
            "spctl",
            "csrutil",
            "auditctl",
            "fdesetup",
            "mokutil",
        ),
        test=_security_off,
    ),
    Rule(
        id="system.backups-off",
        reason="turns off or deletes the machine's backups (Time Machine, shadow copies)",
        alternative="leave backups on; exclude the one path with tmutil addexclusion",
        catastrophic=False,
        programs=("tmutil", "vssadmin", "vssadmin.exe", "wbadmin", "wbadmin.exe"),
        test=_backups_off,
    ),
    Rule(
        id="system.history-clear",
        reason="erases the shell history (or stops it being kept), the record of what was run",
        alternative="leave the history; remove a single leaked line with history -d N",
        catastrophic=False,
        programs=(ANY,),
        test=_history_clear,
    ),
    Rule(
        id="system.module-remove",
        reason="unloads a kernel module (a disk, network or filesystem driver in use)",
        alternative="check lsmod and what uses it first; do it by hand",
        catastrophic=False,
        programs=("rmmod", "modprobe"),
        test=_module_remove,
    ),
)

PACK = Pack(
    name="system",
    description="Taking the machine down or weakening it: kills, shutdown, accounts, firewall.",
    rules=RULES,
)
