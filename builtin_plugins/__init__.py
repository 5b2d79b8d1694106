"""Plugins that ship with the runtime; registered after every third-party plugin (``trylast``).

Each module (or package, like ``shell_hooks``) listed in :data:`BUILTINS` exposes
``setup(hooks)`` which returns a plugin object to register as ``builtin:<name>`` (or ``None``
when it has nothing to contribute); one that is a :class:`hermes_hooks.sources.HookSource` is
registered as a hook source. ``hooks`` is the :class:`hermes_hooks.Hooks` being loaded; a
built-in reads ``hooks.config`` and ``hooks.home`` from it.
"""

#: Built-in plugin modules and packages, in registration order.
BUILTINS: tuple[str, ...] = ("gateway_hooks", "boot_md", "shell_hooks", "required")
