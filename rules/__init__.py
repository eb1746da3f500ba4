"""jaxlint's rules: one module per rule, grouped by family (installed as ``jaxlint.rules``)."""
