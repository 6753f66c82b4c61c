"""Battles of the Strategy Game Studio engine (the card-driven strategy game).

The source text describes land battles fought in rounds, battle morale, loss
allocation between CavUnits and OtherUnits, panics, routs, pursuits,
retreats, breakthroughs, anti-aircraft fire, interception and air combat. It
names no game; its wording matches the battle chapter of the Strategy Game
Studio engine, the successor of Wars Across the World by the same designer.

Modules follow the chapter: :mod:`.rules` (die and settings), :mod:`.units`
(what a battle is given), :mod:`.morale`, :mod:`.shots`, :mod:`.losses`,
:mod:`.panic`, :mod:`.rout`, :mod:`.battle` (the round sequence and
:func:`~engine.sgs.battle.fight`), :mod:`.retreat` and :mod:`.air`.
"""
from .battle import Outcome, fight  # noqa: E402
from .rules import SgsRules  # noqa: E402
from .units import Force, Setup, Unit  # noqa: E402
from . import widgets  # noqa: F401,E402  (registers the widgets)

__all__ = ["fight", "Outcome", "Setup", "Force", "Unit", "SgsRules"]
