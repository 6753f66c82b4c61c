"""Which unit of a stack defends.

When a hex holds several units, the one with the best chance to stand up to
the attacker defends. The rules give no measure of that chance, so the
measure is a setting (``choice_measure``); lower is better, and ties go to
the unit less likely to be destroyed, then to the one more likely to hurt
the attacker, then to the one listed first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Final

from ..dice import Dist
from .combat import Combat, Outcome, Unit  # noqa: F401 (Unit: the doctest)
from .rules import DESTROYED, LOSS, RETREAT, ChoiceMeasure

__all__ = ["MEASURES", "TIE_BREAKS", "rank"]

MEASURES: Final[Mapping[ChoiceMeasure, Callable[[Combat, Dist[Outcome]], Fraction]]] = {
    "harm": lambda c, d: d.p_where(lambda o: o.final.side == "DEF" and o.final.has(LOSS, RETREAT, DESTROYED)),
    "loss": lambda c, d: d.p_where(lambda o: o.final.side == "DEF" and o.final.has(LOSS, DESTROYED)),
    "any_result": lambda c, d: d.p_where(lambda o: o.final.side == "DEF"),
    "attacker_xp": lambda c, d: d.map(lambda o: c.xp(o)[0]).mean(),
}
"""How bad an attack is for a candidate defender; the lowest value defends."""

TIE_BREAKS: Final[tuple[str, ...]] = (
    "the unit less likely to be destroyed",
    "the unit more likely to inflict a result on the attacker",
    "the unit listed first",
)
"""How equal measures are settled, in order."""


def rank(combats: list[Combat], measure: ChoiceMeasure) -> list[tuple[int, Fraction, Fraction, Fraction]]:
    """Candidates best first, as (index, measure, chance destroyed, chance attacker is hit).

    >>> foot = Unit("foot", False, "supplied", 0, "none")
    >>> tired = Unit("foot", False, "supplied", 0, "shocked")
    >>> [i for i, *_ in rank([Combat("clear", 1, foot, tired), Combat("clear", 1, foot, foot)], "harm")]
    [1, 0]
    """
    keyed = []
    for i, c in enumerate(combats):
        d = c.outcomes()
        keyed.append((i, MEASURES[measure](c, d),
                      d.p_where(lambda o: o.final.side == "DEF" and o.final.has(DESTROYED)),
                      d.p_where(lambda o: o.final.side == "ATT")))
    return sorted(keyed, key=lambda k: (k[1], k[2], -k[3], k[0]))
