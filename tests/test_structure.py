"""The shape of the code: small modules, no import cycles, every module importable alone, and no
module outside hookspecs/ that tests an event by its name."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

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


def _top_level_imports(name: str, path: Path) -> set[str]:
    """Modules of ours imported when ``name`` is imported (not inside functions or
    ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [target] + [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        out.update(c for c in candidates if c in MODULES and c != name)
    return out


def test_there_is_no_import_cycle():
    graph = {name: _top_level_imports(name, path) for name, path in MODULES.items()}
    # A package imports its parent package's __init__ implicitly; that is not a cycle of ours.
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if node.startswith(dep + "."):
                continue
            if state.get(dep) == 1:
                cycles.append([*stack[stack.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*stack, dep])
        state[node] = 2

    for name in graph:
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_every_module_imports_alone_in_a_fresh_interpreter():
    code = (
        "import importlib, subprocess, sys\n"
        "bad = []\n"
        "for name in sys.argv[1:]:\n"
        "    r = subprocess.run([sys.executable, '-c', f'import {name}'], capture_output=True,"
        " text=True)\n"
        "    if r.returncode: bad.append((name, r.stderr.strip().splitlines()[-1:]))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    modules = [n for n in MODULES if not n.endswith("__main__")]  # __main__ runs the CLI
    result = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


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
