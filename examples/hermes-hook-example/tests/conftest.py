# The fixtures hermes-hooks offers plugin authors: `hermes_hooks` (a fresh manager with no plugins)
# and `register_plugin` (registers a plugin for one test and always unregisters it).
pytest_plugins = ["hermes_hooks.testing"]
