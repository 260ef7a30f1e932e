"""Turning chapters into the book: the runner, the CLI, the chapter registry, the glance page
and the Sphinx extension."""
