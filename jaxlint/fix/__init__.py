"""Applying a fix's edits (overlaps, fixed points) and writing files atomically; rewriting
only the changed cells of a notebook.

May import: ``jaxlint.base`` … ``jaxlint.lint``.
"""
