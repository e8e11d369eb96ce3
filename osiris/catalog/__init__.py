"""The schema catalog: what `osiris discover` learnt of a connection's tables or a CSV file."""

from osiris.catalog.store import Catalog, Catalogs, list_catalogs, read_catalog, write_catalog

__all__ = ["Catalog", "Catalogs", "list_catalogs", "read_catalog", "write_catalog"]
