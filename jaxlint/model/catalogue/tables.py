"""Every namespace's entries (imported once by ``lookup``)."""

from __future__ import annotations

from . import devices, host, lax, methods, nn, numpy, random, tree

NAMESPACES = (numpy, lax, random, nn, tree, host, methods, devices)
