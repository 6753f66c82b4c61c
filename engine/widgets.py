"""The widget registry: every interactive calculator the site can show.

A widget has an id (``small_general.combat``), a declared input schema, a
pure function from validated inputs to a JSON result, an optional seeded
sampler, and a renderer that turns a result into HTML. The same registry
serves the command line, the site build and the browser worker.

>>> from engine import widgets
>>> "small_general.combat" in widgets.ids()
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .schema import Group, InputError, flatten, jsonable, unflatten

__all__ = ["Widget", "register", "get", "ids", "all_widgets", "SYSTEM_MODULES", "UnknownWidgetError"]

Result = dict[str, Any]
"""A widget result: plain JSON data (probabilities as ``{"p": "5/18", "float": …}``)."""

SYSTEM_MODULES = (
    "engine.small_general",
    "engine.ocs",
    "engine.europa",
    "engine.atg",
    "engine.sgs",
)
"""Game-system packages; importing one registers its widgets."""


class UnknownWidgetError(LookupError):
    """No widget has that id."""

    def __init__(self, widget_id: str) -> None:
        self.widget_id = widget_id
        super().__init__(f"no widget named {widget_id!r}; known widgets: {', '.join(ids())}")

    def to_json(self) -> dict[str, str]:
        return {"type": "UnknownWidgetError", "field": "", "message": str(self), "allowed": ", ".join(ids())}


@dataclass(frozen=True)
class Widget:
    """One interactive calculator."""

    id: str
    """Registry key, ``system.name``."""
    title: str
    """Heading shown above the widget."""
    inputs: Group
    """Declared inputs: names, types, allowed values, defaults, help."""
    compute: Callable[[dict[str, Any]], Result]
    """Pure function from validated inputs to a JSON result."""
    render: Callable[[Result], str]
    """Result to HTML; runs in the build and in the browser alike."""
    sample: Callable[[dict[str, Any], int], Result] | None = None
    """Seeded sampler: (inputs, seed) to one played-out combat."""
    render_sample: Callable[[Result], str] | None = None
    """Sample to HTML."""
    check: Callable[[dict[str, Any]], None] | None = None
    """Cross-field validation; raises InputError for impossible combinations."""
    description: str = ""
    """One sentence for listings."""
    extras: Mapping[str, Any] = field(default_factory=dict)
    """Free-form data a page template may use (e.g. tables the reader can view)."""

    def validate(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Complete and check inputs; raises :class:`InputError`."""
        values = self.inputs.validate(raw)
        if self.check is not None:
            self.check(values)
        return values

    def run(self, raw: Mapping[str, Any] | None) -> Result:
        """Validate and compute; the result echoes the normalised inputs."""
        values = self.validate(raw)
        result = self.compute(values)
        result.setdefault("widget", self.id)
        result.setdefault("inputs", jsonable(values))
        return result

    def roll(self, raw: Mapping[str, Any] | None, seed: int) -> Result:
        """Play one combat with a seed that replays it exactly."""
        if self.sample is None:
            raise InputError("", f"{self.id} has no sample roll")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 2**53:
            raise InputError("seed", f"{seed!r} is not a seed; enter a whole number from 0 to 2**53", "0..2**53")
        values = self.validate(raw)
        result = self.sample(values, seed)
        result.setdefault("seed", seed)
        result.setdefault("widget", self.id)
        return result

    def link_state(self, values: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, str]:
        """Dotted-path text of every input that differs from ``base``, for a shareable link."""
        return flatten(self.inputs, values, base)

    def from_link(self, pairs: Mapping[str, str],
                  base: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[InputError]]:
        """Inputs from link text over ``base``; rejected parts are reported and left as in ``base``."""
        start = self.validate(base)
        values, errors = unflatten(self.inputs, pairs, start)
        if self.check is not None:
            try:
                self.check(values)
            except InputError as exc:
                errors.append(exc)
                values = start
        return values, errors

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "description": self.description,
                "inputs": [f.describe() for f in self.inputs.fields],
                "sample": self.sample is not None}


_REGISTRY: dict[str, Widget] = {}
_loaded = False


def register(widget: Widget) -> Widget:
    """Add a widget to the registry (each id once)."""
    if widget.id in _REGISTRY and _REGISTRY[widget.id] is not widget:
        raise ValueError(f"widget {widget.id!r} is registered twice")
    _REGISTRY[widget.id] = widget
    return widget


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for name in SYSTEM_MODULES:
            importlib.import_module(name)


def get(widget_id: str) -> Widget:
    """The widget with this id, or :class:`UnknownWidgetError`."""
    _load()
    try:
        return _REGISTRY[widget_id]
    except KeyError:
        raise UnknownWidgetError(widget_id) from None


def ids() -> list[str]:
    """Every registered widget id, sorted."""
    _load()
    return sorted(_REGISTRY)


def all_widgets() -> list[Widget]:
    return [get(i) for i in ids()]
