"""Internal: part of the built-ins (docs/builtins.md), not an API.

The ``disks`` pack: formatting, partitioning, overwriting or erasing disks and volumes.

These write below the filesystem, so nothing on the device survives them and no undo exists.
Read-only forms (``fdisk -l``, ``parted /dev/sda print``, ``wipefs /dev/sda`` without ``-a``,
``dd`` into an image file, ``mkfs`` on an image file) pass.
"""

from __future__ import annotations

from hermes_hooks.shell_syntax import Command

from ..flags import read_flags
from ..paths import is_block_device, is_device, is_dynamic, normalize
from ..rules import ANY, Pack, Rule

_FILESYSTEMS = (
    "ext2 ext3 ext4 ext4dev xfs btrfs vfat fat msdos ntfs exfat f2fs minix bfs cramfs jfs"
    " reiserfs reiser4 hfs hfsplus udf nilfs2 bcachefs ocfs2 gfs2 apfs zfs ufs nfs".split()
)
MKFS_PROGRAMS = (
    "mkfs",
    *(f"mkfs.{fs}" for fs in _FILESYSTEMS),
    "mke2fs",
    "mkntfs",
    "mkdosfs",
    "mkexfatfs",
    "mkswap",
    "mkudffs",
    "mkreiserfs",
    "newfs",
    "newfs_msdos",
    "newfs_hfs",
    "newfs_apfs",
    "newfs_exfat",
    "format",
)
"""Programs that write a new filesystem (or swap area) over a device."""

_MKFS_VALUES = (
    "-t",
    "--type",
    "-L",
    "--label",
    "-b",
    "-C",
    "-c",
    "-d",
    "-E",
    "-G",
    "-g",
    "-I",
    "-i",
    "-J",
    "-l",
    "-M",
    "-m",
    "-N",
    "-n",
    "-O",
    "-o",
    "-r",
    "-s",
    "-T",
    "-U",
    "-e",
    "-F",
    "-f",
    "-p",
    "-S",
    "-v",
    "--uuid",
    "--pagesize",
)


def _device_like(word: str) -> bool:
    """A device, or an expansion that may be one (a tool of disks gets a device in a variable)."""
    return is_block_device(word) or (is_dynamic(word) and not word.endswith((".img", ".iso")))


def _mkfs(command: Command) -> bool:
    if command.program == "format":  # format(8) of some BSDs, and an unrelated DOS word
        return any(is_block_device(a) for a in command.args)
    flags = read_flags(command.args, takes_value=_MKFS_VALUES)
    # mkfs's options vary by filesystem: any argument naming a device counts, value or not
    return any(_device_like(a) for a in flags.operands) or any(
        is_block_device(a) for a in command.args
    )


def _dd_device(command: Command) -> bool:
    # dd writes raw bytes: any /dev file but the pseudo-devices (/dev/null, /dev/stdout, ...)
    return any(a.startswith("of=") and is_device(a[3:]) for a in command.args)


_MKSWAP_VALUES = (
    *("-L", "--label", "-U", "--uuid", "-p", "--pagesize", "-e", "--endianness"),
    *("-o", "--offset", "-s", "--size", "--lock"),
)


def _mkswap_file(command: Command) -> bool:
    """mkswap over a regular file: its content is gone. A file named for swap (``/swapfile``,
    ``swap.img``) is the ordinary use; a device is :func:`_mkfs`'s."""
    flags = read_flags(command.args, takes_value=_MKSWAP_VALUES)
    if flags.asks_help("-h", "-V"):
        return False
    files = [o for o in flags.operands if not o.isdigit()]
    return any(
        not _device_like(f) and "swap" not in normalize(f).rsplit("/", 1)[-1].lower()
        for f in files[:1]
    )


_WRITES = (">", ">>", ">|", "&>", "&>>", "1>", "2>", "1>>")


def _write_device(command: Command) -> bool:
    if any(r.op in _WRITES and is_block_device(r.target) for r in command.redirects):
        return True
    if command.program == "tee":
        return any(is_block_device(a) for a in read_flags(command.args).operands)
    if command.program in ("cp", "cat", "pv", "install"):
        operands = read_flags(command.args, takes_value=("-t", "-S", "-m", "-o", "-g")).operands
        return command.program in ("cp", "install") and bool(
            operands and is_block_device(operands[-1])
        )
    return False


WIPERS = ("nwipe", "dwipe", "sswap", "ddrescue", "dd_rescue", "ddpt", "sg_dd")
"""Disk wipers (nwipe, DBAN's dwipe, secure-delete's sswap for a swap partition) and the
rescue/SCSI copiers that write an image over a device."""
_WIPER_VALUES = {
    "nwipe": ("-m", "--method", "-r", "--rounds", "-l", "--logfile", "-e", "--exclude", "-P"),
    "dwipe": ("-m", "--method", "-r", "--rounds", "-l", "--logfile", "-e", "--exclude"),
    "sswap": (),
    "ddrescue": ("-b", "-c", "-e", "-i", "-o", "-s", "-m", "-a", "-K", "-r", "-x", "-Z"),
    "dd_rescue": ("-b", "-B", "-m", "-s", "-S", "-l", "-o", "-y", "-z", "-Z", "-3", "-4"),
}


def _wipe_disk(command: Command) -> bool:
    """A wiper given a device (``nwipe /dev/sdb``, ``sswap /dev/sda5``), or nwipe/dwipe told to
    wipe without asking and without a device: every disk it finds (``nwipe --autonuke``); a
    rescue copier writing onto a device (``ddrescue -f img /dev/sdb``, ``ddpt of=/dev/sdb``)."""
    program = command.program
    if program in ("ddpt", "sg_dd"):
        return any(a.startswith("of=") and is_device(a[3:]) for a in command.args)
    flags = read_flags(command.args, takes_value=_WIPER_VALUES.get(program, ()))
    if flags.asks_help("-h", "-V"):
        return False
    if program in ("ddrescue", "dd_rescue"):
        return len(flags.operands) >= 2 and is_device(flags.operands[1])
    if any(_device_like(w) for w in flags.operands):
        return True
    return program in ("nwipe", "dwipe") and not flags.operands and flags.has("--autonuke")


def _wipefs(command: Command) -> bool:
    flags = read_flags(command.args, takes_value=("-o", "--offset", "-t", "--types", "-O"))
    if flags.has("-n", "--no-act"):
        return False
    return flags.has("-a", "--all", "-o", "--offset")


_SFDISK_READ = (
    *("-l", "--list", "-d", "--dump", "-J", "--json", "-s", "--show-size", "-V", "--verify"),
    *("-F", "--list-free", "-g", "--show-geometry", "-G", "--show-pt-geometry", "-r", "--raw"),
    *("-o", "--output", "-q", "--quiet", "-v", "--version", "-h", "--help"),
)
_SGDISK_READ = (
    *("-p", "--print", "-i", "--info", "-v", "--verify", "-O", "--print-mbr", "-L"),
    *("--list-types", "-b", "--backup", "-P", "--pretend", "-?", "--help", "-V"),
    *("--version", "-D", "--display-alignment", "-F", "--first-aligned-in-largest"),
    *("-E", "--end-of-largest", "-f", "--first-in-largest", "-a", "--set-alignment"),
)
_PARTED_WRITE = frozenset(
    "mklabel mktable mkpart mkpartfs rm resize resizepart move rescue set toggle name"
    " disk_set disk_toggle type align-check".split()
) - {"align-check"}
_PARTED_VALUES = ("-a", "--align", "-f", "--fix")


def _partition(command: Command) -> bool:
    program = command.program
    flags = read_flags(command.args)
    if flags.asks_help("-h", "-V", "-v"):
        return False
    devices = [a for a in flags.operands if is_block_device(a) or is_dynamic(a)]
    if program in ("fdisk", "gdisk", "cgdisk", "cfdisk", "fdisk.exe"):
        if flags.has("-l", "--list", "-L", "--list-details"):
            return False
        return bool(devices)
    if program == "sfdisk":
        given = [f"-{s}" for s in flags.short] + list(flags.long)
        if given and all(opt in _SFDISK_READ for opt in given):
            return False
        return bool(devices)
    if program == "sgdisk":
        given = [f"-{s}" for s in flags.short] + list(flags.long)
        return bool(devices) and any(opt not in _SGDISK_READ for opt in given)
    if program == "parted":
        flags = read_flags(command.args, takes_value=_PARTED_VALUES)
        if flags.has("-l", "--list"):
            return False
        words = list(flags.operands)
        if not words or not (is_block_device(words[0]) or is_dynamic(words[0])):
            return False
        script = words[1:]
        return not script or any(w in _PARTED_WRITE for w in script)
    return False


_DISKUTIL_WRITE = frozenset(
    "eraseDisk eraseVolume reformat zeroDisk randomDisk secureErase partitionDisk"
    " splitPartition mergePartitions resizeVolume deleteContainer deleteVolume"
    " deleteSnapshot deleteVolumeGroup".split()
)


def _diskutil(command: Command) -> bool:
    return any(a in _DISKUTIL_WRITE for a in command.args[:3])


_HDPARM_ERASE = (
    "--security-erase",
    "--security-erase-enhanced",
    "--trim-sector-ranges",
    "--trim-sector-ranges-stdin",
    "--write-sector",
    "--make-bad-sector",
    "--dco-restore",
    "--dco-setmax",
    "--fwdownload",
    "--fwdownload-mode3",
    "--fwdownload-mode3-max",
    "--fwdownload-mode7",
    "--security-set-pass",
)


def _firmware_erase(command: Command) -> bool:
    program, args = command.program, command.args
    if program == "hdparm":
        return any(a.partition("=")[0] in _HDPARM_ERASE for a in args)
    if program == "nvme":
        return bool(args) and args[0] in ("format", "sanitize", "delete-ns", "fw-download")
    if program in ("sg_format", "sg_sanitize", "sg_unmap"):
        return not read_flags(args).asks_help("-h", "-V")
    if program == "flashrom":
        flags = read_flags(args, takes_value=("-p", "--programmer", "-c", "--chip", "-l"))
        return flags.has("-w", "--write", "-E", "--erase")
    if program in ("blkdiscard",):
        return not read_flags(args).asks_help("-h", "-V")
    if program == "badblocks":
        return read_flags(args, takes_value=("-b", "-c", "-e", "-d", "-i", "-o", "-p", "-t")).has(
            "-w"
        )
    return False


_LUKS_DESTROY = frozenset({"luksFormat", "erase", "luksErase", "reencrypt"})
_LUKS_KEY = frozenset({"luksKillSlot", "luksRemoveKey"})


def _cryptsetup_verb(command: Command) -> str | None:
    operands = read_flags(
        command.args,
        takes_value=("-c", "--cipher", "-s", "--key-size", "-h", "--hash", "-d", "--key-file"),
    ).operands
    return operands[0] if operands else None


def _cryptsetup_destroy(command: Command) -> bool:
    return _cryptsetup_verb(command) in _LUKS_DESTROY


def _cryptsetup_key(command: Command) -> bool:
    return _cryptsetup_verb(command) in _LUKS_KEY


def _pool_destroy(command: Command) -> bool:
    args = command.args
    if command.program == "zpool":
        return bool(args) and args[0] in ("destroy", "labelclear")
    if command.program == "zfs":
        if not args or args[0] != "destroy":
            return False
        flags = read_flags(args[1:])
        if flags.has("-n"):
            return False
        # a dataset (no @): its data goes; a snapshot with -r/-R takes its children's too
        return any("@" not in o for o in flags.operands) or flags.has("-r", "-R")
    return False


def _snapshot_loss(command: Command) -> bool:
    args = command.args
    if command.program == "zfs" and args and args[0] == "destroy":
        flags = read_flags(args[1:])
        return not flags.has("-n", "-r", "-R") and all("@" in o for o in flags.operands)
    if command.program == "zfs" and args and args[0] == "rollback":
        return True
    if command.program == "btrfs":
        words = [a for a in args if not a.startswith("-")]
        return words[:2] in (["subvolume", "delete"], ["subvol", "delete"], ["sub", "del"])
    return False


def _lvm_remove(command: Command) -> bool:
    flags = read_flags(command.args)
    if flags.asks_help("-h", "-t", "--test"):
        return False
    if command.program == "mdadm":
        return flags.has("--zero-superblock", "--create", "-C")
    return bool(flags.operands) or flags.has("-a", "--all", "--select", "-S")


RULES = (
    Rule(
        id="disks.mkfs",
        reason="writes a new filesystem over a device, erasing everything on it",
        alternative="check the device with lsblk first; format image files, not disks",
        catastrophic=True,
        programs=MKFS_PROGRAMS,
        test=_mkfs,
    ),
    Rule(
        id="disks.dd-device",
        reason="dd writes raw bytes over a disk or partition",
        alternative="write to an image file (of=disk.img); flash devices by hand after lsblk",
        catastrophic=True,
        programs=("dd", "dcfldd", "dc3dd"),
        test=_dd_device,
    ),
    Rule(
        id="disks.mkswap-file",
        reason="mkswap overwrites the start of the file with a swap signature",
        alternative="create a new swap file (fallocate -l 1G /swapfile) and mkswap that",
        catastrophic=False,
        programs=("mkswap",),
        test=_mkswap_file,
    ),
    Rule(
        id="disks.write-device",
        reason="writes over a disk, partition or memory device through a redirection or copy",
        alternative="write to an image file and flash it by hand after checking lsblk",
        catastrophic=True,
        programs=(ANY,),
        test=_write_device,
    ),
    Rule(
        id="disks.wipe-disk",
        reason="a disk wiper (nwipe, dwipe, sswap) or rescue copier (ddrescue) overwrites a whole "
        "device",
        alternative="check the device with lsblk and wipe it by hand, never from an agent",
        catastrophic=True,
        programs=WIPERS,
        test=_wipe_disk,
    ),
    Rule(
        id="disks.wipefs",
        reason="erases the filesystem and partition signatures of a device",
        alternative="list them first with wipefs (no -a), or use wipefs --no-act",
        catastrophic=True,
        programs=("wipefs",),
        test=_wipefs,
    ),
    Rule(
        id="disks.partition-table",
        reason="edits or replaces a disk's partition table",
        alternative="inspect with fdisk -l, parted -l or sgdisk -p; partition by hand",
        catastrophic=True,
        programs=("fdisk", "sfdisk", "cfdisk", "gdisk", "cgdisk", "sgdisk", "parted"),
        test=_partition,
    ),
    Rule(
        id="disks.diskutil-erase",
        reason="diskutil erases, reformats or repartitions a macOS disk or volume",
        alternative="check the identifier with diskutil list; do this by hand",
        catastrophic=True,
        programs=("diskutil",),
        test=_diskutil,
    ),
    Rule(
        id="disks.firmware-erase",
        reason="discards, secure-erases, low-level formats or reflashes a drive or firmware",
        alternative="never from an agent: do it by hand after a backup",
        catastrophic=True,
        programs=(
            "hdparm",
            "nvme",
            "sg_format",
            "sg_sanitize",
            "sg_unmap",
            "flashrom",
            "blkdiscard",
            "badblocks",
        ),
        test=_firmware_erase,
    ),
    Rule(
        id="disks.cryptsetup-format",
        reason="formats or erases a LUKS header: the encrypted data can never be opened again",
        alternative="back up the header (cryptsetup luksHeaderBackup) and do this by hand",
        catastrophic=True,
        programs=("cryptsetup",),
        test=_cryptsetup_destroy,
    ),
    Rule(
        id="disks.cryptsetup-key",
        reason="removes a key slot of an encrypted volume; with the last one the data is lost",
        alternative="add the new key first (luksAddKey) and back up the header",
        catastrophic=False,
        programs=("cryptsetup",),
        test=_cryptsetup_key,
    ),
    Rule(
        id="disks.pool-destroy",
        reason="destroys a ZFS pool or dataset with all of its data",
        alternative="snapshot and send it elsewhere first; use zfs destroy -n to preview",
        catastrophic=True,
        programs=("zpool", "zfs"),
        test=_pool_destroy,
    ),
    Rule(
        id="disks.snapshot-loss",
        reason="deletes a snapshot or subvolume, or rolls back and loses later changes",
        alternative="list snapshots first and keep the newest; preview with zfs destroy -n",
        catastrophic=False,
        programs=("zfs", "btrfs"),
        test=_snapshot_loss,
    ),
    Rule(
        id="disks.volume-remove",
        reason="removes or shrinks an LVM volume, group or physical volume, or a RAID superblock",
        alternative="back up the volume and check it with lvs/vgs/pvs or mdadm --detail first",
        catastrophic=True,
        programs=("lvremove", "vgremove", "pvremove", "lvreduce", "mdadm"),
        test=_lvm_remove,
    ),
)

PACK = Pack(
    name="disks",
    description="Formatting, partitioning, overwriting or erasing disks, volumes and pools.",
    rules=RULES,
)
