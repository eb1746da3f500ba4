"""The rule contract (``Rule``), the registry and settings, suppression comments and the
engine: one text-ordered walk of each file that runs every rule.

May import: ``jaxlint.base``, ``jaxlint.files``, ``jaxlint.plan``, ``jaxlint.model``.
"""
