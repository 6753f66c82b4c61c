"""Small General experience: points for results caused, and the levels they buy.

A unit earns points for each result it causes to an enemy: 1 for a
disruption, 2 for shocked, 3 for panic, 4 for a loss and 5 for a kill.
Levels come at 5, 12, 20 and 30 points; level 4 is the last.

>>> points_for(Result.parse("DEF Shocked"))
2
>>> level_for(11), level_for(12)
(1, 2)
>>> next_threshold(12)
20
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .rules import COMBINE_MODES, DESTROYED, DISRUPTED, LOSS, PANIC, SHOCKED, Combine, Effect, Level, Result

__all__ = ["Combine", "COMBINE_MODES", "POINTS_FOR_CAUSING", "LEVEL_THRESHOLDS",
           "points_for", "level_for", "next_threshold"]


POINTS_FOR_CAUSING: Final[Mapping[Effect, int]] = {
    DISRUPTED: 1,
    SHOCKED: 2,
    PANIC: 3,
    LOSS: 4,
    DESTROYED: 5,  # a kill
}
"""Experience points for causing each part of a result; a retreat earns none."""

LEVEL_THRESHOLDS: Final[tuple[int, ...]] = (5, 12, 20, 30)
"""Points at which a unit reaches levels 1, 2, 3 and 4."""


def points_for(result: Result, combine: Combine = "sum") -> int:
    """Points the unit that caused ``result`` earns.

    ``combine`` says how parts add up: ``sum`` counts every part, ``highest``
    only the best-paid part.

    >>> r = Result.parse("DEF Retreat + Panick + Loss")
    >>> points_for(r, "sum"), points_for(r, "highest")
    (7, 4)
    >>> points_for(Result.parse("no result"))
    0
    """
    parts = [POINTS_FOR_CAUSING.get(e, 0) for e in result.effects]
    if not parts:
        return 0
    return sum(parts) if combine == "sum" else max(parts)


def level_for(points: int) -> Level:
    """Experience level a unit has with ``points``.

    >>> [level_for(p) for p in (0, 4, 5, 19, 20, 29, 30, 99)]
    [0, 0, 1, 2, 3, 3, 4, 4]
    """
    return sum(1 for t in LEVEL_THRESHOLDS if points >= t)


def next_threshold(points: int) -> int | None:
    """Points needed in total for the next level, or ``None`` at level 4.

    >>> next_threshold(0), next_threshold(30)
    (5, None)
    """
    for t in LEVEL_THRESHOLDS:
        if points < t:
            return t
    return None
