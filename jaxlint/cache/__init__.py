"""The on-disk cache: sealed JSON entries in ``.jaxlint_cache/`` (``store``) and the
per-user secret that seals them (``key``).

May import: ``jaxlint.base`` … ``jaxlint.fix``.
"""
