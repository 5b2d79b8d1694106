"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``hermes hooks serve``: the home's hook system behind ``POST /v1/hooks/<agent>/<event>``
(:mod:`hermes_hooks.serve.service`); ``hermes hooks client AGENT EVENT``: a command hook that asks it
(:mod:`hermes_hooks.serve.client`; ``hermes hooks client`` also starts without this module, see
:mod:`hermes_hooks.hermes.handover`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import State, _logging


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, type=int, help="Port (0: any free one).")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Worker processes, each with the home loaded once.")  # fmt: skip
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path),
              help="The bearer token's file (default <home>/serve/token; written 0600 when "
              "missing).")  # fmt: skip
@click.option("--body-timeout", default=10.0, show_default=True, type=float, hidden=True,
              help="Seconds a client has to send its body.")  # fmt: skip
@click.pass_obj
def serve_cmd(
    state: State, host: str, port: int, workers: int, token_file: Path | None, body_timeout: float
) -> None:
    """Serve the hooks of the home to other agents: POST /v1/hooks/<agent>/<event> with the
    agent's hook JSON and 'Authorization: Bearer <token>'; GET /v1/health."""
    _logging()
    from ..config import find_home
    from ..serve.files import TokenError
    from ..serve.service import LoadError, run

    home = find_home(state.home)
    try:
        run(
            home,
            host=host,
            port=port,
            workers=workers,
            token_file=token_file,
            config=state.config,
            accept_hooks=state.accept_hooks,
            body_timeout=body_timeout,
            announce=lambda line: click.echo(line, err=True),
        )
    except (ImportError, TokenError, LoadError) as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}"
        ) from None


@click.command("client", context_settings={"ignore_unknown_options": True})
@click.argument("agent")
@click.argument("event")
@click.option("--timeout", type=float, help="Seconds the service has to answer (default 30).")
@click.pass_obj
def client_cmd(state: State, agent: str, event: str, timeout: float | None) -> None:
    """Answer AGENT's EVENT command hook: stdin to the service, its reply out (in-process when
    the service does not answer; a decision event blocks when neither can)."""
    from ..serve.client import main

    args = [agent, event]
    if state.home:
        args += ["--home", state.home]
    if timeout is not None:
        args += ["--timeout", str(timeout)]
    if state.accept_hooks:
        os.environ["HERMES_ACCEPT_HOOKS"] = "1"
    sys.exit(main(args))
