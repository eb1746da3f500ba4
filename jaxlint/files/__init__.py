"""Which files a run sees and how each is read: discovery (no symlink loops, ``.py`` and
``.ipynb``), IPython magics, a notebook's code cells as one virtual module and the map
back to its cells.

May import: ``jaxlint.base``.
"""
