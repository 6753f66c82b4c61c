"""Example battles used by tests, pages and the benchmark.

:data:`TWELVE_A_SIDE` puts twelve units on each side with every kind of
round present (artillery, air support, mines, recon, main and next rounds).

>>> len(TWELVE_A_SIDE.attacker.units), len(TWELVE_A_SIDE.defender.units)
(12, 12)
"""

from __future__ import annotations

from .units import Force, Setup, Unit

__all__ = ["TWELVE_A_SIDE", "attacking_force", "defending_force"]


def attacking_force() -> Force:
    """An armoured corps with air and artillery, twelve units."""
    inf = Unit("infantry division", strength=6, combat=4, reduced=3, morale=3, rof=2)
    tank = Unit("panzer division", strength=6, combat=5, reduced=4, morale=4, rof=2, cav=True, armour=True,
                pursuit=True)
    mech = Unit("motorised regiment", strength=3, combat=4, reduced=3, morale=3, cav=True, pursuit=True)
    units = (inf, inf, inf, inf, tank, tank, tank, mech,
             Unit("recon battalion", strength=2, combat=3, morale=3, recon=True, pursuit=True),
             Unit("corps artillery", strength=2, combat=4, morale=2, role="support", artillery=True),
             Unit("dive bombers", strength=2, combat=5, morale=4, air=True),
             Unit("elite grenadiers", strength=4, combat=5, reduced=4, morale=5, elite=True))
    return Force(units, leader_morale=2, leader_combat=2, booster_combat=0, booster_morale=1)


def defending_force() -> Force:
    """An infantry army behind minefields and a fort, twelve units."""
    inf = Unit("rifle division", strength=6, combat=4, reduced=3, morale=3, rof=2)
    units = (inf, inf, inf, inf, inf,
             Unit("tank brigade", strength=4, combat=4, reduced=3, morale=3, cav=True, armour=True, pursuit=True),
             Unit("minefield", strength=2, combat=3, morale=9, mines=True, priority="first"),
             Unit("fort", strength=4, combat=4, morale=5, priority="last"),
             Unit("recon company", strength=1, combat=3, morale=3, recon=True),
             Unit("heavy artillery", strength=2, combat=4, morale=2, artillery=True),
             Unit("guards division", strength=6, combat=5, reduced=4, morale=4, rof=2, elite=True),
             Unit("army HQ", strength=1, combat=2, morale=3, role="support", artillery=True))
    return Force(units, leader_morale=1, leader_combat=1, booster_morale=1)


TWELVE_A_SIDE = Setup(attacking_force(), defending_force(), terrain_defence=1, crossing=1, entrenched=True)
"""The benchmark battle: twelve units against twelve, every round type present."""
