"""Europa armour and anti-tank effects (rule 10): AECA, AECD, ATEC and heavy armour.

The package reads like the rule:

* ``units``: the five capability values and the unit types the rule tells apart;
* ``totals``: a stack's AECA, AECD or ATEC, with every conversion (10.B, 10.C);
* ``tables``: the armour effects and heavy unit tables (assumed; not in the source);
* ``effects``: the ratios and the die modifier after terrain and weather (10.C to 10.E);
* ``losses``: required losses (10.F);
* ``heavy``: heavy armour and heavy ATEC (10.I);
* ``inputs`` and ``widget``: the ``europa.aec`` and ``europa.ratio`` widgets;
* ``exhibits``: tables the pages show.

Importing the package registers its widgets and exhibits.

>>> from engine import widgets
>>> widgets.get("europa.aec").run({})["aeca"]
'2'
"""

from __future__ import annotations

from ..exhibits import register_exhibit
from ..widgets import Widget, register
from .. import figures as fig
from .exhibits import EXHIBITS
from .inputs import AEC_INPUTS, RATIO_INPUTS, check_aec, check_ratio
from .widget import compute_aec, compute_ratio, render_aec, render_ratio, render_sample, sample_aec, sample_ratio

__all__ = ["AEC", "RATIO"]

AEC = register(Widget(
    id="europa.aec",
    title="Armour effects: stack builder",
    inputs=AEC_INPUTS,
    compute=compute_aec,
    render=render_aec,
    sample=sample_aec,
    render_sample=render_sample,
    check=check_aec,
    description="AECA, AECD and ATEC of two stacks with every conversion, the armour and heavy modifiers, "
                "and the required losses.",
    figures=(fig.value("modifier_mean", "Expected armour modifier", "modifier", "mean"),
             fig.value("aeca", "AECA", "aeca", unit="REs"),
             fig.value("aecd", "AECD", "aecd", unit="REs"),
             fig.value("atec", "ATEC", "atec", unit="REs"),
             fig.value("attacker_required", "Attacker's required AEC losses", "required_losses", "attacker", "required",
                       unit="strength points"),
             fig.value("defender_required", "Defender's required AEC losses", "required_losses", "defender", "required",
                       unit="strength points")),
))
"""The stack builder."""

RATIO = register(Widget(
    id="europa.ratio",
    title="Armour effects: ratio to modifier",
    inputs=RATIO_INPUTS,
    compute=compute_ratio,
    render=render_ratio,
    sample=sample_ratio,
    render_sample=render_sample,
    check=check_ratio,
    description="Reads AECA against ATEC or AECD on the armour effects table, then applies terrain and weather.",
    figures=(fig.value("modifier_mean", "Expected armour modifier", "modifier", "mean"),
             fig.value("row_modifier", "Table row's modifier", "modifier", "armour", "row", "modifier"),
             fig.prob("chance_of_next", "P(one more)", "modifier", "armour", "row", "chance_of_next")),
))
"""The ratio reader."""

for _id, _render in EXHIBITS.items():
    register_exhibit(_id, _render)
