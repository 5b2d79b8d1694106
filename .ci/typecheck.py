"""Run mypy over the package as it installs: ``hookspecs/`` and ``builtin_plugins/`` live at the
top of the repository but install as ``hermes_hooks.hookspecs`` and
``hermes_hooks.builtin_plugins``. mypy names modules after directories, so it gets a mirror of the
installed layout made of symlinks (nothing is copied: every error names a file of the checkout
through the mirror path ``<tmp>/hermes_hooks/...``)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPED = {"hookspecs": ROOT / "hookspecs", "builtin_plugins": ROOT / "builtin_plugins"}


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="hermes-hooks-mypy-") as tmp:
        mirror = Path(tmp) / "hermes_hooks"
        mirror.mkdir()
        for entry in (ROOT / "hermes_hooks").iterdir():
            if entry.name != "__pycache__":
                (mirror / entry.name).symlink_to(entry)
        for name, target in MAPPED.items():
            (mirror / name).symlink_to(target)
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")]
        result = subprocess.run([*command, str(mirror)], cwd=tmp)
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
