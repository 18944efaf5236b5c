"""See the package docstring of llamatest."""
