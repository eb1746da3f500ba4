"""Plain records and helpers every stage shares: positions, edits, diagnostics, literal
values, dotted-name resolution, the cache's record encoding.

May import: nothing of jaxlint outside ``jaxlint.base``.
"""
