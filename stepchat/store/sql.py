"""Values spelled into LanceDB filter expressions."""

from __future__ import annotations

from stepchat.core.ports import StoreError


def sql_str(value: str) -> str:
    """`value` as a SQL string literal: single quotes doubled, NULs refused."""
    if "\x00" in value:
        raise StoreError("cache store: NUL character in a filter value")
    return "'" + value.replace("'", "''") + "'"
