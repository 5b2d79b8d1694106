"""The shape of the code, measured by structure, not size: no import cycle, the specs never
import an adapter, the core never imports a built-in, the manager never reaches the shell code,
every module importable alone and either public or marked internal, and no module outside
hookspecs/ that tests an event by its name. Every import counts: at the top, inside
functions, and under ``TYPE_CHECKING``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from hermes_hooks.builtin_plugins import BUILTINS

from hermes_hooks import catalogue

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "hermes_hooks": ROOT / "hermes_hooks",
    "hermes_hooks.builtin_plugins": ROOT / "builtin_plugins",
}


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package, root in PACKAGES.items():
        for path in sorted(root.rglob("*.py")):
            if "demo" in path.relative_to(root).parts or "templates" in path.parts:
                continue  # example files shipped as data, not the runtime
            rel = path.relative_to(root).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            found[".".join([package, *parts])] = path
    found["hermes_hooks.hookspecs"] = ROOT / "hookspecs" / "__init__.py"
    for path in sorted((ROOT / "hookspecs").glob("[!_]*.py")):
        found[f"hermes_hooks.hookspecs.{path.stem}"] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Modules of ours that ``name`` imports anywhere: at the top, inside functions and classes,
    and under ``if TYPE_CHECKING`` (a type-only import is still a dependency of the module).

    ``from package import name`` is an import of the submodule ``package.name`` when there is
    one, else of ``package`` itself (a name read from its ``__init__``). The packages above an
    imported module are not counted: Python runs their ``__init__`` too, but that is Python's
    doing, not a dependency the module declares, and our package ``__init__`` modules import
    their submodules lazily. Imports computed at run time (``importlib.import_module``) are not
    seen here: :data:`DYNAMIC` declares the ones that matter to the rules below."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = [f"{target}.{a.name}" for a in node.names]
            candidates = [c for c in subs if c in MODULES]
            if len(candidates) < len(subs):
                candidates.append(target)
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        out.update(c for c in candidates if c in MODULES and c != name)
    return out


#: Imports made with ``importlib.import_module`` and a computed name, by the importing module:
#: the catalogue imports every hookspec family; the runtime builder imports each built-in.
#: (The root package's lazy names, the host's own hookspecs, the CLI's command table and
#: command_guard's packs are imported the same way; their targets are either imported
#: statically too, not ours, or inside the same layer.)
DYNAMIC = {
    "hermes_hooks.catalogue": {n for n in MODULES if n.startswith("hermes_hooks.hookspecs.")},
    "hermes_hooks.runtime": {f"hermes_hooks.builtin_plugins.{n}" for n in BUILTINS},
}
GRAPH = {name: _imports(name, path) | DYNAMIC.get(name, set()) for name, path in MODULES.items()}


def _under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _reach(start: str) -> dict[str, list[str]]:
    """Every module ``start`` imports, directly or through others, each with one path to it."""
    paths = {start: [start]}
    todo = [start]
    while todo:
        node = todo.pop()
        for dep in sorted(GRAPH[node]):
            if dep not in paths:
                paths[dep] = [*paths[node], dep]
                todo.append(dep)
    del paths[start]
    return paths


#: The shell adapter: ``shell_hooks/`` (the wire protocol, processes, consent and pinning, warm
#: workers, http hooks, the other agents' dialects), the worker end of the warm-worker protocol
#: and the shell parser.
SHELL = {"hermes_hooks.worker", "hermes_hooks.shell_syntax"} | {
    n for n in MODULES if _under(n, "hermes_hooks.builtin_plugins.shell_hooks")
}
#: Every built-in (the shell adapter's source is one of them).
BUILTIN = {n for n in MODULES if _under(n, "hermes_hooks.builtin_plugins")}
#: What an adapter is, to the specs: the shell adapter and every built-in.
ADAPTERS = SHELL | BUILTIN
#: The layers outside the core: the CLI, the demo, replay, the Hermes Agent bridge (plugin,
#: patch, hand-over script), the service other agents' hooks post to, and the runtime builder, whose job is to assemble the built-ins.
OUTER = (
    "hermes_hooks.cli",
    "hermes_hooks.__main__",
    "hermes_hooks.demo",
    "hermes_hooks.replay",
    "hermes_hooks.hermes",  # the Hermes Agent bridge: plugin, patch, hand-over script
    "hermes_hooks.serve",  # other agents' hook runner: it reads their dialects
    "hermes_hooks.docgen",  # a tool for this repository's docs: it reads every layer
    "hermes_hooks.runtime",
)
#: The core: everything else of ``hermes_hooks`` (the hookspecs included), not a built-in.
CORE = {n for n in MODULES if not _under(n, *OUTER) and n not in BUILTIN}


def test_there_is_no_import_cycle():
    """At module granularity, every import counted (see :func:`_imports`). A package
    ``__init__`` that imports its own submodules is not in a cycle with them for that alone;
    a submodule that also reads a name from that ``__init__`` is."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(GRAPH[node]):
            if state.get(dep) == 1:
                cycles.append([*stack[stack.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*stack, dep])
        state[node] = 2

    for name in GRAPH:
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_the_specs_never_import_an_adapter():
    """The hookspecs are the event contract: they read the contract (markers, contract, the
    dialects' field helpers, answers, results), never the shell adapter or a built-in."""
    bad = [
        " -> ".join(path)
        for spec in sorted(n for n in MODULES if _under(n, "hermes_hooks.hookspecs"))
        for target, path in _reach(spec).items()
        if target in ADAPTERS
    ]
    assert bad == []


def test_the_core_never_imports_a_built_in():
    """Only the runtime builder (an outer layer) imports the built-ins; the core learns about
    them through what it passes in. The core imports no outer layer either, except the root
    package's ``load()``, which builds the runtime: so nothing of the core reaches a built-in
    but through :mod:`hermes_hooks.runtime`."""
    bad = sorted(
        f"{name} -> {dep}"
        for name in CORE
        for dep in GRAPH[name]
        if dep in BUILTIN
        or (_under(dep, *OUTER) and (name, dep) != ("hermes_hooks", "hermes_hooks.runtime"))
    )
    assert bad == []


@pytest.mark.parametrize("name", ["hermes_hooks.manager", "hermes_hooks.dispatch"])
def test_the_manager_never_reaches_the_shell_code(name):
    reached = {t: " -> ".join(p) for t, p in _reach(name).items() if t in SHELL | BUILTIN}
    assert reached == {}


def test_the_specs_and_the_dispatcher_load_no_shell_code_when_run():
    """The same rules, checked at run time: building a bare runtime and firing an event imports
    no module of the shell adapter and no built-in (the packages' own ``__init__`` included)."""
    code = (
        "import sys\n"
        "from hermes_hooks.hooks import Hooks\n"
        "hooks = Hooks()\n"
        "hooks.pre_tool_call(tool_name='terminal', args={'command': 'ls'})\n"
        "hooks.call('pre_llm_call', session_id='s', user_message='hi', is_first_turn=True)\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(out.stdout.split())
    assert sorted(loaded & (SHELL | BUILTIN)) == []


@pytest.mark.parametrize(
    "name",
    ["hermes_hooks.builtin_plugins.dangerous_patterns", "hermes_hooks.builtin_plugins.http_post"],
)
def test_a_built_in_that_needs_one_shell_module_does_not_load_the_shell_source(name):
    """``shell_hooks/__init__`` exports its names lazily: a built-in that reads one module of
    the package (the dialects' shell tool names, the URL allow-list) loads that module, not the
    whole shell-hook source with its processes, workers and consent."""
    code = f"import sys, {name}\nprint('\\n'.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(out.stdout.split())
    heavy = {f"hermes_hooks.builtin_plugins.shell_hooks.{m}" for m in ("source", "execution")}
    assert sorted(loaded & heavy) == []


#: The public surface: the host API (``load``, ``Hooks``, the results and markers it exports),
#: what a spec author writes with (the markers' ``event``, the contract (with the dialects' fields),
#: the answer types, the typed results), the pytest fixtures, and the specs themselves. Every
#: other module says ``Internal:`` on the first line of its docstring (docs/host-api.md).
PUBLIC = {
    "hermes_hooks",
    "hermes_hooks.markers",
    "hermes_hooks.answers.results",
    "hermes_hooks.contract",
    "hermes_hooks.answers",
    "hermes_hooks.testing",
} | {n for n in MODULES if _under(n, "hermes_hooks.hookspecs")}


def test_every_module_is_public_or_marked_internal():
    def first_line(name: str) -> str:
        doc = ast.get_docstring(ast.parse(MODULES[name].read_text())) or ""
        return doc.splitlines()[0] if doc else ""

    unmarked = sorted(
        n for n in MODULES if n not in PUBLIC and not first_line(n).startswith("Internal:")
    )
    marked = sorted(n for n in PUBLIC if first_line(n).startswith("Internal:"))
    assert (unmarked, marked) == ([], [])


def test_every_module_imports_alone_in_a_fresh_interpreter():
    # One fresh interpreter that has imported nothing of ours forks a child per module, and the
    # child imports that module alone: the same start as `python -c "import m"` for each module,
    # without paying an interpreter start (and the third-party imports) per module.
    code = (
        "import importlib, os, sys, traceback\n"
        "import asyncio, json, logging, subprocess, threading, typing, dataclasses\n"
        "import click, pluggy, yaml, platformdirs\n"
        "assert not [m for m in sys.modules if m.startswith('hermes_hooks')]\n"
        "def start(name):\n"
        "    r, w = os.pipe()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        os.close(r)\n"
        "        try:\n"
        "            importlib.import_module(name)\n"
        "        except BaseException:\n"
        "            os.write(w, traceback.format_exc().strip().splitlines()[-1].encode())\n"
        "            os._exit(1)\n"
        "        os._exit(0)\n"
        "    os.close(w)\n"
        "    return name, pid, r\n"
        "def finish(name, pid, r):\n"
        "    with os.fdopen(r, 'rb') as f:\n"
        "        why = f.read().decode(errors='replace')\n"
        "    _, status = os.waitpid(pid, 0)\n"
        "    return [(name, why or f'status {status}')] if status else []\n"
        "bad, running, names = [], [], sys.argv[1:]\n"
        "while names or running:\n"
        "    while names and len(running) < (os.cpu_count() or 1):\n"
        "        running.append(start(names.pop(0)))\n"
        "    bad += finish(*running.pop(0))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    modules = [n for n in MODULES if not n.endswith("__main__")]  # __main__ runs the CLI
    result = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "[]", result.stdout


def _event_names() -> set[str]:
    names = set(catalogue.events())
    names |= set(catalogue.aliases())
    return names


def _compared_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants compared with ``==``/``!=``/``in`` (also inside tuples and sets)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for part in [node.left, *node.comparators]:
            elts = part.elts if isinstance(part, (ast.Tuple, ast.List, ast.Set)) else [part]
            for elt in elts:
                if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                    found.append((node.lineno, elt.value))
    return found


@pytest.mark.parametrize("name", [n for n in MODULES if not n.startswith("hermes_hooks.hookspecs")])
def test_no_module_outside_hookspecs_tests_an_event_by_name(name):
    events = _event_names()
    tree = ast.parse(MODULES[name].read_text())
    hits = [(line, s) for line, s in _compared_strings(tree) if s in events]
    assert hits == [], f"{MODULES[name]} branches on event names: {hits}"


def test_every_type_ignore_gives_its_reason():
    import re

    bare = []
    for path in MODULES.values():
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if "type: ignore" in line and not re.search(r"type: ignore\[[\w,-]+\]\s+#\s*\S", line):
                bare.append(f"{path.relative_to(ROOT)}:{number}")
    assert bare == [], "a `# type: ignore[code]` needs a `# why` after it: " + ", ".join(bare)


def test_contributings_layout_table_is_the_tree():
    """CONTRIBUTING's module map names what the tree holds: every path it names exists, and
    every module and package of the runtime (at the top of ``hermes_hooks/`` and
    ``builtin_plugins/``) is in it."""
    import re

    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    table = text[text.index("## Layout") : text.index("The data flows one way")]
    named: set[Path] = set()
    for row in table.splitlines():
        cell = row.split("|")[1] if row.startswith("| `") else ""
        base: Path | None = None
        for item in re.findall(r"`([^`]+)`", cell):
            path = ROOT / item if "/" in item else (base / item if base else ROOT / item)
            if "/" in item:
                base = path if item.endswith("/") else path.parent
            named.add(path)
    missing = sorted(str(p.relative_to(ROOT)) for p in named if not p.exists())
    assert missing == [], f"CONTRIBUTING names paths that do not exist: {missing}"
    tree = [
        child
        for top in ("hermes_hooks", "builtin_plugins")
        for child in (ROOT / top).iterdir()
        if (child.suffix in (".py", ".pyi") and child.stem not in ("__init__", "__main__"))
        or (child.is_dir() and (child / "__init__.py").exists() and child.name != "demo")
    ]
    unnamed = sorted(str(c.relative_to(ROOT)) for c in tree if c not in named)
    assert unnamed == [], f"CONTRIBUTING's layout table leaves out: {unnamed}"


def test_every_package_of_the_tree_is_in_the_built_distribution() -> None:
    # an editable install finds any package; a wheel holds only those pyproject lists
    # (hermes_hooks.serve was left out: `hermes hooks list` failed in every installed copy)
    import tomllib

    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    listed = set(tool["setuptools"]["packages"])
    dirs = {name: ROOT / rel for name, rel in tool["setuptools"]["package-dir"].items()}
    tree = set()
    for name, top in dirs.items():
        for init in top.rglob("__init__.py"):
            parts = init.parent.relative_to(top).parts
            if "demo" in parts or "__pycache__" in parts:
                continue  # the demo home is package data (hermes hooks demo copies it)
            tree.add(".".join((name, *parts)))
    assert tree - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
