"""One module or subpackage per experiment of the book, each with its chapter's ``SETTINGS``."""
