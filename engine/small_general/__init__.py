"""Small General: 3d6 combat with modifiers, artillery, retreats and experience.

Importing the package registers its widgets and exhibits:

* ``small_general.combat``: exact odds of one attack, with a seeded sample;
* ``small_general.defender_choice``: which unit of a stack defends, and its odds;
* ``small_general.experience``: points for results caused, and the level they give.

Modules read like the rules section: :mod:`.rules` (terms, the table and the
modifier lists), :mod:`.combat` (resolving an attack), :mod:`.experience`
(points and levels), :mod:`.inputs` (inputs and the settings that are ours).

>>> [w.id for w in (COMBAT, DEFENDER_CHOICE, EXPERIENCE)]
['small_general.combat', 'small_general.defender_choice', 'small_general.experience']
>>> COMBAT.run({"terrain": "town"})["total_modifier"]
-2
"""

from __future__ import annotations

from .. import figures as fig
from ..exhibits import register_exhibit
from ..widgets import Widget, register
from . import combat_widget, defender_choice, experience_widget
from .combat import COMBAT_INPUTS
from .exhibits import EXHIBITS

__all__ = ["COMBAT", "DEFENDER_CHOICE", "EXPERIENCE"]

COMBAT: Widget = register(Widget(
    id="small_general.combat",
    title="Small General combat odds",
    inputs=COMBAT_INPUTS,
    compute=combat_widget.compute,
    render=combat_widget.render,
    sample=combat_widget.sample,
    render_sample=combat_widget.render_sample,
    description="Exact chances of every combat result, with modifiers, artillery, retreats and experience.",
    figures=(fig.prob("defender_destroyed", "P(defender destroyed)", "derived", "defender_destroyed"),
             fig.prob("defender_retreats", "P(defender retreats)", "derived", "defender_retreats"),
             fig.prob("defender_loss", "P(defender takes a loss)", "derived", "defender_loss"),
             fig.prob("attacker_loss", "P(attacker takes a loss)", "derived", "attacker_loss"),
             fig.prob("attacker_destroyed", "P(attacker destroyed)", "derived", "attacker_destroyed"),
             fig.prob("attacker_advances", "P(attacker advances)", "derived", "attacker_advances"),
             fig.prob("no_result", "P(no result)", "derived", "no_result"),
             fig.value("total_modifier", "Die modifier", "total_modifier")),
))

DEFENDER_CHOICE: Widget = register(Widget(
    id="small_general.defender_choice",
    title="Which unit defends the hex",
    inputs=defender_choice.CHOICE_INPUTS,
    compute=defender_choice.compute,
    render=defender_choice.render,
    sample=defender_choice.sample,
    render_sample=defender_choice.render_sample,
    description="Ranks the units of a stack by their chance to stand up to an attack; the best one fights.",
    figures=(fig.value("chosen", "Defending unit (row number, from 0)", "chosen", "index"),
             fig.prob("defender_destroyed", "P(defender destroyed)", "combat", "derived", "defender_destroyed"),
             fig.prob("attacker_loss", "P(attacker takes a loss)", "combat", "derived", "attacker_loss"),
             fig.value("total_modifier", "Die modifier", "combat", "total_modifier")),
))

EXPERIENCE: Widget = register(Widget(
    id="small_general.experience",
    title="Experience points and levels",
    inputs=experience_widget.EXPERIENCE_INPUTS,
    compute=experience_widget.compute,
    render=experience_widget.render,
    check=experience_widget.check,
    description="Points for the results a unit caused, its level and the points it needs for the next one.",
    figures=(fig.value("points", "Experience points", "points", unit="points"),
             fig.value("level", "Level", "level"),
             fig.value("points_to_next", "Points to the next level", "points_to_next", unit="points"),
             fig.value("attack_modifier", "Attack modifier", "attack_modifier"),
             fig.value("defence_modifier", "Defence modifier", "defence_modifier")),
))

for _id, _fn in EXHIBITS.items():
    register_exhibit(_id, _fn)
