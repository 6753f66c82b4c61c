"""Small General: 3d6 combat with modifiers, artillery, retreats and experience.

Importing the package registers its widgets and exhibits:

* ``small_general.combat``: exact odds of one attack, with a seeded sample;
* ``small_general.defender_choice``: which unit of a stack defends, and its odds;
* ``small_general.experience``: points for results caused, and the level they give.

Modules read like the rules section: :mod:`.rules` (terms, the table, the
modifier lists and the settings that are ours), :mod:`.combat` (resolving an
attack), :mod:`.defender_choice` (which unit of a stack fights),
:mod:`.experience` (points and levels); :mod:`.widgets` declares the widgets,
their inputs and figures, and :mod:`.exhibits` the printed tables.

>>> [w.id for w in (COMBAT, DEFENDER_CHOICE, EXPERIENCE)]
['small_general.combat', 'small_general.defender_choice', 'small_general.experience']
>>> COMBAT.run({"terrain": "town"})["total_modifier"]
-2
"""

from __future__ import annotations

from ..exhibits import register_exhibit
from .exhibits import EXHIBITS
from .widgets import COMBAT, DEFENDER_CHOICE, EXPERIENCE

__all__ = ["COMBAT", "DEFENDER_CHOICE", "EXPERIENCE"]

for _id, _fn in EXHIBITS.items():
    register_exhibit(_id, _fn)
