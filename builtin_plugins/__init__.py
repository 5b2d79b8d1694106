"""Plugins that ship with the runtime; registered after every third-party plugin (``trylast``).

Each module listed in :data:`BUILTINS` exposes ``setup(hooks)`` which returns a hook source to
register (:class:`hermes_hooks.sources.HookSource`), or ``None`` when it has nothing to
contribute. ``hooks`` is the
:class:`hermes_hooks.hooks.Hooks` being loaded; a built-in reads ``hooks.config`` and
``hooks.home`` from it.
"""

#: Built-in plugin modules, in registration order.
BUILTINS: tuple[str, ...] = ("gateway_hooks", "boot_md", "shell_hooks")
