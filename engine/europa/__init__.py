"""Europa armour and anti-tank effects (rule 10): AECA, AECD, ATEC and heavy armour.

The package reads like the rule:

* ``units``: the five capability values and the unit types the rule tells apart;
* ``totals``: a stack's AECA, AECD or ATEC, with every conversion (10.B, 10.C);
* ``tables``: the armour effects and heavy unit tables (assumed; not in the source);
* ``effects``: the ratios and the die modifier after terrain and weather (10.C to 10.E);
* ``losses``: required losses (10.F);
* ``heavy``: heavy armour and heavy ATEC (10.I);
* ``widgets``: the ``europa.aec`` and ``europa.ratio`` widgets, their inputs and figures;
* ``exhibits``: tables the pages show.

Importing the package registers its widgets and exhibits.

>>> from engine import widgets
>>> widgets.get("europa.aec").run({})["aeca"]
'2'
"""

from __future__ import annotations

from ..exhibits import register_exhibit
from .exhibits import EXHIBITS
from .widgets import AEC, RATIO

__all__ = ["AEC", "RATIO"]

for _id, _render in EXHIBITS.items():
    register_exhibit(_id, _render)
