"""Throw-away virtual environments for the tests that install real distributions.

The venvs are clean (never ``--system-site-packages``: the interpreter running the tests has
hermes-hooks installed in editable mode, which would hide exactly what these tests check) and are
filled by the running interpreter's pip through ``pip --python``; packages come from PyPI through
pip's cache. A venv that must run ``pip`` itself (``hermes hooks install``, a page's
``pip install -e .``) is made ``with_pip``.

Building one costs seconds to minutes, so the tests get them from :class:`VenvPool` (the session
fixture ``venvs`` in ``conftest.py``): one venv per distinct list of install steps per run, shared
by every test that asks for the same list, in every pytest-xdist worker (the first worker to ask
builds it under a file lock; the others wait for it and reuse it). A shared venv is only read,
possibly by several tests at once: a test that changes what is installed asks for a ``fresh`` one.
Building a venv outside a ``slow`` test fails (``slow_guard``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import slow_guard

from hermes_hooks.hermes.patch import SUPPORTED

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "hermes-hook-example"
#: The Hermes Agent release the bridge patches (hermes_patch.SUPPORTED), as pip installs it.
HERMES_AGENT = f"hermes-agent=={SUPPORTED}"
#: Hermes Agent's own entry function, started as its ``hermes`` script would start it.
RUN_HERMES = (
    "import sys; from hermes_cli.main import main; sys.argv[0] = 'hermes'; sys.exit(main())"
)

# Never copied into a build: caches, old build output, local venvs, VCS data.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".*venv*",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".benchmarks",
)

# Environment variables a venv subprocess never inherits: the calling interpreter's venv and
# Python settings, the machine's hermes configuration and pip requirements, and the switches of
# the third-party plugins that tests/test_compat_real_plugins.py installs.
_NOT_INHERITED = (
    "HERMES",
    "PYTHON",
    "VIRTUAL_ENV",
    "__PYVENV",
    "PYTEST",
    "PIP_REQUIRE",
    "NOISEGATE",
    "AGENTGUARD",
)

# Built once per test run and shared by every module that installs them: {name: wheel path}.
_WHEELS: dict[str, Path] = {}


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing): the pytest-xdist workers of one
    run build each shared venv and wheel once, the others waiting for it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _done(path: Path) -> Path:
    """The marker written next to ``path`` once it is built whole."""
    return path.with_name(path.name + ".done")


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a venv subprocess: nothing of the calling interpreter's venv or
    of the machine's hermes configuration leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_NOT_INHERITED)}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    env.update(extra)
    return env


def run(cmd: list[str] | str, *, check: bool = True, timeout: float = 600, **kwargs: Any) -> Any:
    """``subprocess.run`` with text output (a string runs through the shell); a failure shows
    the command's output."""
    kwargs.setdefault("env", clean_env())
    out = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=timeout,
        shell=isinstance(cmd, str),
        **kwargs,
    )
    if check and out.returncode != 0:
        shown = cmd if isinstance(cmd, str) else " ".join(map(str, cmd))
        raise AssertionError(
            f"{shown} exited {out.returncode}\n"
            f"--- stdout\n{out.stdout[-6000:]}\n--- stderr\n{out.stderr[-6000:]}"
        )
    return out


def pip(*args: str, python: Path | None = None, **kwargs: Any) -> Any:
    """Run the calling interpreter's pip, aimed at ``python``'s environment when given."""
    target = ["--python", str(python)] if python is not None else []
    return run([sys.executable, "-m", "pip", *target, *args], **kwargs)


def copy_source(src: Path, dst: Path) -> Path:
    """A copy of a project to build from, so a build never writes into (or reads stale files
    from) the working tree's ``build/``."""
    shutil.copytree(src, dst, ignore=_NOT_SOURCE)
    return dst


def wheel(name: str, src: Path, tmp_root: Path) -> Path:
    """Build ``src`` into a wheel once per test run (``--no-deps``: only this project), in
    ``tmp_root``, which every worker of the run shares."""
    if name not in _WHEELS or not _WHEELS[name].exists():
        slow_guard.require_slow(f"building the {name} wheel")
        work = tmp_root / f"build-{name}"
        out = work / "dist"
        with locked(work.with_name(work.name + ".lock")):
            if not _done(work).exists():
                if work.exists():  # a build of this run that failed half-way
                    shutil.rmtree(work)
                copy = copy_source(src, work / "src")
                pip("wheel", "--no-deps", "--quiet", "-w", str(out), str(copy))
                _done(work).write_text(name)
        (built,) = out.glob("*.whl")
        _WHEELS[name] = built
    return _WHEELS[name]


class Venv:
    """One virtual environment: its interpreter, console scripts and site-packages."""

    def __init__(
        self,
        root: Path,
        *,
        with_pip: bool = False,
        clone_of: Venv | None = None,
        built: bool = False,
    ) -> None:
        """Create the venv at ``root`` (a copy of ``clone_of`` when given), or, when ``built``,
        open the one another worker of this run built there."""
        slow_guard.require_slow(f"building a venv in {root}")
        self.root = root
        if built:
            pass  # built by another worker of this run: nothing to create
        elif clone_of is None:
            run([sys.executable, "-m", "venv", *([] if with_pip else ["--without-pip"]), str(root)])
        else:
            _clone(clone_of.root, root)
        self.bindir = root / ("Scripts" if os.name == "nt" else "bin")
        self.python = self.bindir / ("python.exe" if os.name == "nt" else "python")
        paths = self.py("import json, sysconfig; print(json.dumps(sysconfig.get_paths()))")
        self.site_packages = Path(json.loads(paths.stdout)["purelib"])

    def install(self, *requirements: str) -> None:
        """``pip install`` into this venv (dependencies from PyPI, through pip's cache)."""
        pip("install", "--quiet", *requirements, python=self.python)

    def script(self, name: str) -> Path:
        """A console script installed in this venv."""
        return self.bindir / name

    def env(self, home: Path | None = None, **extra: str) -> dict[str, str]:
        """A clean environment that runs this venv's programs first (then the calling
        interpreter's own ``bin``: pyenv shims need the real ``$HOME``, which a test may
        replace); ``home`` becomes ``$HOME``."""
        base = clean_env()
        base["PATH"] = os.pathsep.join(
            [str(self.bindir), str(Path(sys.executable).parent), base.get("PATH", "")]
        )
        base["VIRTUAL_ENV"] = str(self.root)
        if home is not None:
            base["HOME"] = str(home)
        base.update(extra)
        return base

    def py(
        self, code: str, *args: str, cwd: Path | None = None, check: bool = True, **env: str
    ) -> Any:
        """Run ``python -c code args...`` in this venv (from ``cwd``, default the venv's root, so
        the repository is never on ``sys.path``)."""
        return run(
            [str(self.python), "-c", code, *args],
            cwd=cwd or self.root,
            env=self.env(**env),
            check=check,
        )

    def cli(
        self, name: str, *args: str, cwd: Path | None = None, check: bool = True, **env: str
    ) -> Any:
        """Run one of this venv's console scripts."""
        return run(
            [str(self.script(name)), *args],
            cwd=cwd or self.root,
            env=self.env(**env),
            check=check,
        )

    def top_level_names(self) -> set[str]:
        """Every module or package name at the top of site-packages."""
        names = set()
        for entry in self.site_packages.iterdir():
            if entry.suffix in (".pth", ".dist-info") or entry.name.endswith(".dist-info"):
                continue
            names.add(entry.name.removesuffix(".py"))
        return names


def _clone(src: Path, dst: Path) -> None:
    """Copy the venv ``src`` to ``dst``: the files pip installed are the same wherever the venv
    lives; only what names the venv's own path (the scripts' ``#!`` lines, ``activate``,
    ``pyvenv.cfg``) is rewritten. Much faster than installing the same packages again."""
    shutil.copytree(src, dst, symlinks=True)
    old, new = str(src).encode(), str(dst).encode()
    for path in [dst / "pyvenv.cfg", *(dst / "bin").iterdir()]:
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if old in data:
            path.write_bytes(data.replace(old, new))


Step = Sequence[str]


Key = tuple[bool, tuple[tuple[str, ...], ...]]


class VenvPool:
    """The venvs of one test run. ``get`` gives the shared venv for a list of install steps
    (each step one ``pip install``, in order: what is installed later owns a console script both
    packages ship), building it on first use; ``fresh`` builds a private one for a test that
    installs or uninstalls something.

    Shared venvs and wheels live in ``shared``, the same directory for every pytest-xdist worker
    of the run (default: ``root``); each is built by the first worker that asks, under a file
    lock, and reused by the others. Private venvs live in ``root``, this worker's own."""

    def __init__(self, root: Path, shared: Path | None = None) -> None:
        self.root = root
        self.shared = shared or root
        self._shared: dict[Key, Venv] = {}
        self._count = 0

    def wheel(self, name: str, src: Path) -> Path:
        """The wheel of ``src`` built once per run (``hermes-hooks``: this repository)."""
        return wheel(name, src, self.shared)

    def _place(self, key: Key) -> Path:
        """Where the shared venv of ``key`` lives, the same in every worker."""
        digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]
        return self.shared / f"venv-{digest}"

    def hermes_hooks_wheel(self) -> Path:
        return self.wheel("hermes-hooks", REPO)

    def example_wheel(self) -> Path:
        return self.wheel("hermes-hook-example", EXAMPLE)

    def get(self, *steps: Step, with_pip: bool = False) -> Venv:
        """The venv shared by every test of this run that installs exactly ``steps``; the tests
        that use it must leave it as they found it."""
        key = (with_pip, tuple(tuple(step) for step in steps))
        if key not in self._shared:
            place = self._place(key)
            with locked(place.with_name(place.name + ".lock")):
                if _done(place).exists():
                    venv = Venv(place, with_pip=with_pip, built=True)
                else:
                    if place.exists():  # a build of this run that failed half-way
                        shutil.rmtree(place)
                    venv = self._build(place, steps, with_pip)
                    _done(place).write_text(json.dumps(key))
            self._shared[key] = venv
        return self._shared[key]

    def fresh(self, *steps: Step, with_pip: bool = False) -> Venv:
        """A new venv with ``steps`` installed, for this test alone. With more than one step it
        starts as a copy of the shared venv of every step but the last, or of all of them when
        that one is built already (``hermes-agent`` and its dependencies are installed once per
        run, and so is each step after them, however many venvs start with the same steps)."""
        self._count += 1
        return self._build(self.root / f"venv-{self._count}", steps, with_pip)

    def _build(self, root: Path, steps: Sequence[Step], with_pip: bool) -> Venv:
        key = (with_pip, tuple(tuple(step) for step in steps))
        if key in self._shared or _done(self._place(key)).exists():
            base, todo = self.get(*steps, with_pip=with_pip), ()
        elif len(steps) > 1:
            base, todo = self.get(*steps[:-1], with_pip=with_pip), steps[-1:]
        else:
            base, todo = None, steps
        venv = Venv(root, with_pip=with_pip, clone_of=base)
        for step in todo:
            venv.install(*step)
        return venv

    def editable(self, *, private: bool = False) -> Venv:
        """This repository installed editable, with pytest and pip: the venv the docs' commands
        and the scaffold's steps run in (``hermes hooks install`` drives its own pip). A test
        that installs into it asks for a ``private`` copy: others may be reading the shared one
        at the same time (pytest-xdist)."""
        steps = ("-e", str(REPO), "pytest")
        shared = self.get(steps, with_pip=True)  # built once: a private copy starts as a clone
        return self.fresh(steps, with_pip=True) if private else shared


def run_pool(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> VenvPool:
    """The ``VenvPool`` of this run: its shared venvs in the run's base temp directory, which a
    pytest-xdist worker's own base temp directory is inside, its private ones in this worker's."""
    base = tmp_path_factory.getbasetemp()
    run_root = base.parent if hasattr(config, "workerinput") else base
    return VenvPool(tmp_path_factory.mktemp("venvs"), shared=run_root / "shared-venvs")
