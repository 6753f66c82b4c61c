"""Static exhibits: HTML made from engine data, such as a printed table.

Pages place them with a ``::: exhibit ID`` block, so a table is typed once,
as engine data that tests hold against the rulebook, and shown from there.
"""

from __future__ import annotations

from collections.abc import Callable

from . import widgets

__all__ = ["register_exhibit", "get_exhibit", "exhibit_ids"]

_EXHIBITS: dict[str, Callable[[], str]] = {}


def register_exhibit(exhibit_id: str, render: Callable[[], str]) -> Callable[[], str]:
    """Register a function that returns the exhibit's HTML."""
    if exhibit_id in _EXHIBITS and _EXHIBITS[exhibit_id] is not render:
        raise ValueError(f"exhibit {exhibit_id!r} is registered twice")
    _EXHIBITS[exhibit_id] = render
    return render


def get_exhibit(exhibit_id: str) -> Callable[[], str]:
    widgets.ids()  # importing the systems registers their exhibits
    try:
        return _EXHIBITS[exhibit_id]
    except KeyError:
        raise LookupError(f"no exhibit named {exhibit_id!r}; known: {', '.join(sorted(_EXHIBITS))}") from None


def exhibit_ids() -> list[str]:
    widgets.ids()
    return sorted(_EXHIBITS)
