"""Advanced Tactics Gold: the individual-based combat loop, as the Combat Calculations page describes it.

Modules, in the page's order: :mod:`.rules` (the rule variables),
:mod:`.units` (subformation types and the illustrative roster),
:mod:`.setup` (a battle's frozen description), :mod:`.individuals`,
:mod:`.interception`, :mod:`.attack` (one attack and its modifiers),
:mod:`.loop` (the rounds, the steps and :func:`fight`), :mod:`.endings`
(what happens after the last round) and :mod:`.parts` (exact calculators).
"""

from . import widgets as _widgets  # noqa: F401,E402  (importing registers the system's widgets)
