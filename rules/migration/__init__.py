"""JAX8xx: removed and deprecated JAX APIs, driven by one data table (``table.py``)."""
