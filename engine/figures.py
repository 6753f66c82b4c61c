"""A widget's figures: the named headline quantities of its result.

Each widget declares its figures next to its declaration (``figures=`` on
:class:`~engine.widgets.Widget`). A figure reads one number from a
calculator's result (exact: an ``int`` or a ``Fraction``) or from an
estimator's :class:`~engine.montecarlo.Tally` (the share of trials, or a
mean per trial). :mod:`engine.scenarios` compares, sweeps and searches any
widget through them.

Readers are tolerant: a key that is missing (a rules module renamed it)
reads as ``None``, never as an exception; ``tests/test_scenarios.py`` holds
every figure of every widget to a value on the widget's defaults, so a
rename is caught there.

>>> f = prob("win", "Attacker wins", "derived", "win")
>>> f.read({"derived": {"win": {"p": "5/18", "float": 0.27}}})
Fraction(5, 18)
>>> f.read({}) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["Figure", "prob", "value", "outcome", "outcomes", "share", "mean", "exact", "PROBABILITY"]

PROBABILITY = "probability"
"""The unit of a figure that is a probability (shown as a percentage, 0 to 100 %)."""


@dataclass(frozen=True)
class Figure:
    """One named headline quantity of a widget's result."""

    name: str
    """Key, unique in the widget (what a link, the CLI and ``target`` name)."""
    label: str
    """What a reader sees."""
    read: Callable[[Any], Fraction | int | None]
    """Result (calculator) or tally (estimator) to the exact value, or None when absent."""
    unit: str = PROBABILITY
    """``probability`` or a unit in words (``steps``, ``REs``, ``points``); "" for a bare number."""

    @property
    def probability(self) -> bool:
        return self.unit == PROBABILITY

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "label": self.label, "unit": self.unit}


def exact(data: Any) -> Fraction | None:
    """An exact number from result data: ``{"p": …}``, ``{"exact": …}``, ``{"value": …}``, text ``"5/2"`` or a number.

    >>> exact({"p": "1/4", "float": 0.25}), exact("5/2"), exact(3), exact({"value": "23/24"}), exact(None)
    (Fraction(1, 4), Fraction(5, 2), Fraction(3, 1), Fraction(23, 24), None)
    """
    if isinstance(data, dict):
        for key in ("p", "exact", "value"):
            if key in data:
                return exact(data[key])
        return None
    if isinstance(data, bool) or data is None:
        return None
    if isinstance(data, (int, Fraction)):
        return Fraction(data)
    if isinstance(data, str):
        try:
            return Fraction(data.replace("−", "-").lstrip("+"))
        except (ValueError, ZeroDivisionError):
            return None
    if isinstance(data, float):
        return Fraction(data)
    return None


def _dig(result: Any, path: Iterable[Any]) -> Any:
    for part in path:
        if isinstance(result, dict):
            result = result.get(part)
        elif isinstance(result, list) and isinstance(part, int) and -len(result) <= part < len(result):
            result = result[part]
        else:
            return None
    return result


def prob(name: str, label: str, *path: Any) -> Figure:
    """A probability at ``path`` in the result (``{"p": "5/18", …}``)."""
    return Figure(name, label, lambda r: exact(_dig(r, path)))


def value(name: str, label: str, *path: Any, unit: str = "") -> Figure:
    """An exact number at ``path`` in the result (a number, its text, or ``{"exact"|"value": …}``)."""
    return Figure(name, label, lambda r: exact(_dig(r, path)), unit)


def flag(name: str, label: str, *path: Any) -> Figure:
    """A yes/no of the result as a probability of 0 or 1 (a calculator's certain answer)."""
    def read(r: Any) -> Fraction | None:
        v = _dig(r, path)
        return None if not isinstance(v, bool) else Fraction(int(v))
    return Figure(name, label, read)


def outcome(name: str, label: str, list_key: str | tuple[Any, ...], *results: str, key: str = "result") -> Figure:
    """The total probability of the named entries of an outcome list (``[{"result", "p"}, …]``)."""
    path = list_key if isinstance(list_key, tuple) else (list_key,)

    def read(r: Any) -> Fraction | None:
        rows = _dig(r, path)
        if not isinstance(rows, list):
            return None
        total = Fraction(0)
        for row in rows:
            if isinstance(row, dict) and row.get(key) in results:
                p = exact(row)
                if p is None:
                    return None
                total += p
        return total
    return Figure(name, label, read)


def outcomes(list_key: str | tuple[Any, ...], results: Iterable[str], key: str = "result", prefix: str = "p_") -> tuple[Figure, ...]:
    """One figure per named outcome of a list (names made from the outcome's text)."""
    out = []
    for text in results:
        slug = "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")
        out.append(outcome(prefix + slug, f"P({text})", list_key, text, key=key))
    return tuple(out)


def share(name: str, label: str, variable: str, *wanted: str) -> Figure:
    """An estimator's share of trials whose ``variable`` came out as one of ``wanted``."""
    def read(t: Any) -> Fraction | None:
        n = t.trials
        if not n:
            return None
        per = t.counts.get(variable, {})
        return Fraction(sum(per.get(o, 0) for o in wanted), n)
    return Figure(name, label, read)


def mean(name: str, label: str, quantity: str | Callable[[str], bool], unit: str = "") -> Figure:
    """An estimator's mean per trial of a quantity (``measure`` or ``observe``; absent counts 0).

    ``quantity`` may be a test on names: the figure is then the sum of every
    matching quantity (``attacker.lost.*`` adds the unit types' losses).
    """
    def read(t: Any) -> Fraction | None:
        n = t.trials
        if not n:
            return None
        names = [quantity] if isinstance(quantity, str) else [k for k in (*t.sums, *t.hists) if quantity(k)]
        return sum((Fraction(t.quantity(k).total) for k in names), Fraction(0)) / n
    return Figure(name, label, read, unit)
