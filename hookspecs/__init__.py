"""The event catalogue: one pluggy hookspec per event, grouped by family.

Every other view of the catalogue (validation, did-you-mean, ``hermes hooks events``,
``docs/events.md``, the synthetic payloads of ``hermes hooks test``) is derived from these modules
by :mod:`hermes_hooks.catalogue`; nothing repeats them.
"""

#: Family modules, in the order the catalogue lists them.
FAMILIES = (
    "tools", "llm", "models", "api", "session", "compaction", "approvals", "gateway", "kanban",
)  # fmt: skip
