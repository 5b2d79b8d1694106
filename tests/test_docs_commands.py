"""Every command shown in the pages listed in PAGES runs, in page order.

A page is turned into one bash script:

- a fenced block right after a line that is only a backquoted path and a colon (`` `~/x/HOOK.yaml`: ``)
  is written to that path (``~`` is the test's private ``$HOME``);
- in a ``console`` block, ``$ `` lines are commands; the other lines are the output shown to the
  reader, and each of them must appear in what the commands printed (spaces collapsed), except
  lines with ``...`` or a ``/home/you`` path, which stand for output that differs per machine.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from venvs import VenvPool, run

DOCS = Path(__file__).resolve().parents[1] / "docs"
CAPTION = re.compile(r"^`([^`]+)`:$")
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


@dataclass
class Step:
    kind: str  # "file" or "console"
    path: str = ""
    body: list[str] = field(default_factory=list)


def steps(page: Path) -> list[Step]:
    out: list[Step] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    previous = ""
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            if lines[i].strip():
                previous = lines[i].strip()
            i += 1
            continue
        indent, lang = opening.groups()
        body = []
        i += 1
        while not re.match(rf"^{indent}```\s*$", lines[i]):
            body.append(lines[i][len(indent) :])
            i += 1
        i += 1
        caption = CAPTION.match(previous)
        if caption:
            out.append(Step("file", caption.group(1), body))
        elif lang == "console":
            out.append(Step("console", body=body))
        previous = ""
    return out


def script(page_steps: list[Step]) -> str:
    parts = ["set -euo pipefail", "exec 2>&1"]
    for n, step in enumerate(page_steps):
        if step.kind == "file":
            path = step.path
            target = (
                f'"$HOME"/{shlex.quote(path[2:])}' if path.startswith("~/") else shlex.quote(path)
            )
            parts.append(f'mkdir -p "$(dirname {target})"')
            parts.append(
                f"cat > {target} <<'__HERMES_DOC_EOF__'\n"
                + "\n".join(step.body)
                + "\n__HERMES_DOC_EOF__"
            )
            continue
        parts.append(f"echo '@@@ block {n}'")
        for line in step.body:
            if line.startswith("$ "):
                parts.append(f"echo {shlex.quote('+ ' + line[2:])}")
                parts.append(line[2:])
    return "\n".join(parts) + "\n"


def expected_output(step: Step) -> list[str]:
    return [
        " ".join(line.split())
        for line in step.body
        if not line.startswith("$ ")
        and line.strip()
        and "..." not in line
        and "/home/you" not in line
    ]


def check(page: Path, output: str) -> None:
    blocks = dict(
        (
            int(chunk.split("\n", 1)[0]),
            " ".join(chunk.split("\n", 1)[1].split()) if "\n" in chunk else "",
        )
        for chunk in output.split("@@@ block ")[1:]
    )
    for n, step in enumerate(steps(page)):
        if step.kind != "console":
            continue
        for line in expected_output(step):
            assert line in blocks[n], f"{page.name}: block {n} did not print {line!r}:\n{blocks[n]}"


def test_pages_have_commands_and_files():
    for name in ("gateway-hooks.md", "writing-plugins.md", "replay.md"):
        kinds = {s.kind for s in steps(DOCS / name)}
        assert kinds == {"file", "console"}, name


PAGES = [
    "gateway-hooks.md",
    "writing-plugins.md",
    "cli.md",
    "host-api.md",
    "troubleshooting.md",
    "replay.md",
]


INSTALLS = re.compile(r"^\$ (pip install|hermes hooks (install|uninstall)) ")


def installs(page: Path) -> bool:
    """Whether a command of the page installs or uninstalls a distribution."""
    return any(
        INSTALLS.match(line) for step in steps(page) if step.kind == "console" for line in step.body
    )


def test_every_page_with_console_blocks_is_run():
    shown = {p.name for p in DOCS.glob("*.md") if any(s.kind == "console" for s in steps(p))}
    assert shown <= set(PAGES), f"pages whose commands no test runs: {sorted(shown - set(PAGES))}"


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGES)
def test_every_command_in_the_page_runs(name: str, venvs: VenvPool, tmp_path: Path) -> None:
    page = DOCS / name
    user_home = tmp_path / "user"
    work = tmp_path / "work"
    user_home.mkdir()
    work.mkdir()
    # A page that installs something gets its own copy of the run's editable venv: the other
    # pages may be running in the shared one at the same time (pytest-xdist).
    venv = venvs.editable(private=installs(page))
    env = venv.env(home=user_home)
    out = run(["bash", "-c", script(steps(page))], env=env, cwd=work, timeout=600)
    check(page, out.stdout + out.stderr)
