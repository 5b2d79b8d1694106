"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

hermes-hooks as the hook runner of other agents (docs/agents.md): ``answering`` reads an agent's
command-hook stdin back as our event and renders the result as that agent reads it (the one
handler), ``service`` serves it over HTTP (``hermes hooks serve``), ``client`` posts an agent's
hook stdin to the service and falls back to the same handler in-process (``hermes hooks
client``), ``files`` keeps the service's token and URL.
"""
