"""The ``client`` fixture: a real LSP client and ``python -m jaxlint server`` (no debounce)."""

from .helpers import SERVER, server_fixture

client = server_fixture(SERVER)
