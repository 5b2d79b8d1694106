"""Internal: the ``hermes hooks`` command line (docs/cli.md), not an API.

``python -m hermes_hooks`` runs the ``hermes hooks`` command line."""

from .cli import main

main()
