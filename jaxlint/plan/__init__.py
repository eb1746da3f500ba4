"""The first pass with the stdlib ``ast``: a file's units (``outline``) and which of them
LibCST must see for the enabled rules (``slicing``: ``FilePlan``, ``Decision``).

May import: ``jaxlint.base``, ``jaxlint.files``.
"""
