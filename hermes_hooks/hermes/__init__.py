"""Internal: not an API; hosts use ``hermes_hooks`` (docs/host-api.md, "What is public").

The Hermes Agent bridge: :mod:`.agent`, the plugin Hermes Agent loads (``register(ctx)``, entry
point ``hermes-hooks``); :mod:`.patch`, the version-checked reach into Hermes' internals it needs;
:mod:`.handover`, the ``hermes`` console script (``hermes hooks ...`` is ours, everything else goes
to Hermes Agent as typed). Reference: ``docs/hermes-agent.md``.
"""
