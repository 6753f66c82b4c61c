"""A land battle, round by round: :func:`fight` and the battle object.

The rounds come in a fixed order (:data:`~.rules.ROUNDS`): artillery
preparation, air support, mines, recon, main, then up to three next rounds
(:attr:`~.rules.SgsRules.next_rounds`, three by default);
each is fought only if some unit can fire in it. In a round both sides fire
together unless a card gives one side the first shot; hits are allocated
(:mod:`.losses`), hard-hit units test for panic (:mod:`.panic`), battle
morale drops, and a demoralised side may rout (:mod:`.rout`), perhaps into a
pursuit. From the first next round a side may retreat of its own accord,
which spares it any pursuit. The winner is the side left alone with combat
units fighting; failing that, the one that stayed when the other withdrew;
failing that (both withdrew after the recon round), the defender.

>>> from .units import Force, Unit
>>> rifles = Unit("rifles", strength=4, combat=4, reduced=3, morale=3, rof=2)
>>> setup = Setup(Force((rifles, rifles), leader_morale=1), Force((rifles,), leader_morale=1), terrain_defence=1)
>>> out = fight(setup, SgsRules(), random.Random(1), record=True)
>>> out.winner in ("attacker", "defender"), out.rounds >= 1, len(out.events) >= out.rounds
(True, True, True)
>>> fight(setup, SgsRules(), random.Random(1), record=False) == replace(out, events=())
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from itertools import compress
from typing import Any

from .losses import TIERS, allocate_groups, tier_groups
from .morale import armour_superiority, battle_morale, heavy_losses
from .panic import must_test, panics
from .rout import demoralised, routs, who_tests
from .rules import RoundName, SgsRules, faces
from .shots import rerolls, round_modifiers
from .units import SideName, Setup, Unit

__all__ = ["Outcome", "Battle", "fight", "SIDES"]

SIDES: tuple[SideName, SideName] = ("attacker", "defender")
_SPECIAL: tuple[RoundName, ...] = ("artillery", "air", "mines", "recon")


@dataclass(frozen=True)
class Outcome:
    """What a finished battle leaves: enough for a Monte Carlo tally, and the story if recorded.

    Pairs are (attacker, defender).
    """

    winner: SideName
    """Every battle has one: when both sides withdrew after the recon round, the defender."""
    reason: str
    """``"eliminated"`` (one side has no combat unit fighting), ``"rout"``, ``"retreat"``
    (a side withdrew), ``"both retreated"`` (both withdrew after recon: the defender wins), ``"card"`` (a
    retreat card called the battle off) or ``"rounds"`` (every round fought; the defender holds)."""
    rounds: int
    """Fire rounds fought, the pursuit not counted."""
    routed: SideName | None
    pursuit: bool
    """A pursuit round was fought."""
    retreated: SideName | None
    """The side that withdrew of its own accord (retreat button, after recon, or a retreat card); None when
    nobody did, or both (reason ``"both retreated"``)."""
    losses: tuple[int, int]
    """Strength points lost."""
    eliminated: tuple[int, int]
    """Units eliminated (support units lost to total elimination included)."""
    panics: tuple[int, int]
    """Units that panicked."""
    morale: tuple[int, int]
    """Battle morale at the end."""
    strengths: tuple[tuple[int, ...], tuple[int, ...]]
    """Strength left to each unit, in the setup's order."""
    breakthrough: bool
    """The attacker won with combat units able to break through still fighting (whether the scenario
    and the terrain allow it is for :mod:`.retreat` to say)."""
    events: tuple[dict[str, Any], ...] = ()
    """One JSON-able record per round when recorded."""
    opening: int | None = None
    """Hits the battle's opening volley scored (:attr:`Lineup.opening`); None when no round was fought."""


class Lineup:
    """What a battle reads about its units and never changes, worked out once per setup and rules.

    A Monte Carlo run fights thousands of battles on one setup: who may fire in
    each round, who can be hit, each unit's class and loss priority, and the
    modifiers of a round are the same in all of them, so :func:`lineup` keeps
    them between battles instead of every battle building them again.
    Indexed by side, 0 (attacker) and 1 (defender), then by unit.
    """

    def __init__(self, setup: Setup, rules: SgsRules) -> None:
        self.setup, self.rules = setup, rules
        self.forces = (setup.attacker, setup.defender)
        self.units: tuple[tuple[Unit, ...], tuple[Unit, ...]] = (setup.attacker.units, setup.defender.units)
        self.everyone = [range(len(us)) for us in self.units]
        self.combat_idx = [[i for i, u in enumerate(us) if u.role == "combat"] for us in self.units]
        self.is_combat = [[u.role == "combat" for u in us] for us in self.units]
        self.is_armour = [[c and u.armour for c, u in zip(cs, us)] for cs, us in zip(self.is_combat, self.units)]
        self.is_air = [[c and u.air for c, u in zip(cs, us)] for cs, us in zip(self.is_combat, self.units)]
        self.morale_base = [f.leader_morale + f.booster_morale + f.scenario_morale + f.card_morale
                            for f in self.forces]
        """The terms of battle morale that no loss changes: leader, boosters, scenario and cards."""
        self.shooter_idx = [{rn: [i for i, u in enumerate(us) if self._may_fire(u, rn)]
                             for rn in ("artillery", "air", "mines", "recon", "main", "next", "pursuit")}
                            for us in self.units]
        self.target_idx = [{air_too: [i for i in self.combat_idx[s] if air_too or not self.units[s][i].air]
                            for air_too in (False, True)} for s in (0, 1)]
        self.target_groups = [{air_too: _by_priority(self.units[s], idx) for air_too, idx in self.target_idx[s].items()}
                              for s in (0, 1)]
        """:attr:`target_idx` as :func:`~.losses.allocate_groups` takes them."""
        self.start = ([u.strength for u in self.units[0]], [u.strength for u in self.units[1]],
                      [len(c) for c in self.combat_idx],
                      [sum(us[i].morale for i in c) for us, c in zip(self.units, self.combat_idx)],
                      [sum(a) for a in self.is_armour], [sum(a) for a in self.is_air],
                      [[sum(us[i].strength for i in self.target_idx[s][air_too]) for air_too in (False, True)]
                       for s, us in enumerate(self.units)])
        """How a battle starts, copied by each: strength by unit, then the counts :class:`Battle` keeps up to date,
        per side (combat units fighting, the sum of their morales, armour, aircraft, the strength that can be
        hit)."""
        self.air_idx = [[i for i in c if self.is_air[s][i]] for s, c in enumerate(self.combat_idx)]
        """Aircraft among the combat units, per side."""
        fs = faces(rules)
        self.low, self.sides_n = fs[0], len(fs)
        self.shot_parts = [[(tuple(u.value(left, rules.reduced_at_half) - self.low + 1
                                   for left in range(u.strength + 1)),
                             rerolls(u.elite, u.rof, rules), u.cav) for u in us] for us in self.units]
        """Per unit, what its shots read: by strength left, the number of the die's faces at or under its combat
        value before modifiers (:meth:`~.units.Unit.value`, the reduced value at half strength or less if the rules
        say so); one flag per shot (its rate of fire), whether a miss of that shot is rolled once more
        (:func:`~.shots.rerolls`: an elite's every shot, or only its first); CavUnit."""
        self.modifiers: dict[tuple[int, RoundName, int, int, bool], tuple[tuple[tuple[str, int], ...], int]] = {}
        """:func:`round_modifiers` and their sum by side, round, armour on each side and first round: they
        depend on nothing else, so every battle on this setup shares them."""
        self.opening = self._opening()
        """The battle's opening volley, (side, round), or None: the first fire round's volley that nothing in
        the battle can change before it is rolled. That is the volley of the side given the first shot if
        its card covers the round, or else (both sides fire at once) the attacker's, or the defender's when
        only the defender fires in that round. Every unit of the side that may fire in the round fires, at
        full strength, with the round's modifiers for the battle's first round and armour at the start. So
        its hits have the exact distribution the "Hits in one round" calculator gives for those shooters
        (:meth:`opening_shooters`), less one hit when the enemy holds a card cancelling the first hit."""

    def _may_fire(self, u: Unit, round_name: RoundName) -> bool:
        """Whether a unit fires in a round at all (the rules of who shoots, per round)."""
        if u.rof <= 0:
            return False
        if round_name == "artillery":
            return u.artillery
        if round_name == "air":
            return u.air
        if round_name == "mines":
            return u.mines
        if round_name == "recon":
            return u.recon and self.setup.recon_terrain
        if round_name == "pursuit":
            return u.pursuit and u.role == "combat"
        return u.role == "combat"

    def _opening(self) -> tuple[int, RoundName] | None:
        if self.setup.retreat_card is not None:  # the battle is called off before a shot
            return None
        first: RoundName = next((r for r in _SPECIAL if self.shooter_idx[0][r] or self.shooter_idx[1][r]), "main")
        if self.setup.first_shot is not None and first in self.setup.first_shot_rounds:
            return SIDES.index(self.setup.first_shot), first
        return (0 if self.shooter_idx[0][first] else 1), first

    def opening_shooters(self) -> tuple[list[tuple[int, int, bool]], int, bool]:
        """The opening volley's shooters as (combat value before the round's modifiers, rate of fire, elite), the
        round's net modifier, and whether the enemy cancels the first hit; no shooters without an opening."""
        if self.opening is None:
            return [], 0, False
        s, round_name = self.opening
        armour = [sum(a) for a in self.is_armour]
        bonus = self.round_modifiers(s, round_name, armour[s], armour[1 - s], True)[1]
        us = self.units[s]
        shooters = [(us[i].value(us[i].strength, self.rules.reduced_at_half), us[i].rof, us[i].elite)
                    for i in self.shooter_idx[s][round_name]]
        return shooters, bonus, self.forces[1 - s].cancel_first

    def round_modifiers(self, s: int, round_name: RoundName, armour: int, enemy_armour: int,
                        first: bool) -> tuple[tuple[tuple[str, int], ...], int]:
        """:func:`~.shots.round_modifiers` for side ``s``, and their total."""
        key = (s, round_name, armour, enemy_armour, first)
        mods = self.modifiers.get(key)
        if mods is None:
            named = round_modifiers(self.setup, SIDES[s], round_name, self.rules, armour=armour,
                                    enemy_armour=enemy_armour, first=first)
            mods = self.modifiers[key] = (named, sum(v for _, v in named))
        return mods


def _by_priority(units: tuple[Unit, ...], idx: list[int]) -> list[tuple[list[int], list[int]]]:
    """Units ``idx`` by loss priority and class (:func:`~.losses.tier_groups`)."""
    return tier_groups(idx, [TIERS[u.priority] for u in units], [u.cav for u in units])


_last_lineup: list[Lineup] = []
"""The lineup of the last battle fought: a run's battles share one setup and one rules object."""


def lineup(setup: Setup, rules: SgsRules) -> Lineup:
    """The :class:`Lineup` of ``setup`` under ``rules``, the last one kept (the same objects, not equal ones)."""
    if not _last_lineup or _last_lineup[0].setup is not setup or _last_lineup[0].rules is not rules:
        _last_lineup[:] = [Lineup(setup, rules)]
    return _last_lineup[0]


class Battle:
    """The mutable state of one battle; everything else is frozen (or, in :class:`Lineup`, shared).

    Sides are indexed 0 (attacker) and 1 (defender).
    """

    def __init__(self, setup: Setup, rules: SgsRules, rng: random.Random, record: bool) -> None:
        self.setup, self.rules, self.record = setup, rules, record
        line = self.line = lineup(setup, rules)
        self.forces, self.units = line.forces, line.units
        self.combat_idx, self.shooter_idx, self.target_idx = line.combat_idx, line.shooter_idx, line.target_idx
        start = line.start
        self.strength = [start[0][:], start[1][:]]
        self.panicked = [[False] * len(start[0]), [False] * len(start[1])]
        self.drops = [0, 0]
        self.lost = [0, 0]
        self.dead = [0, 0]
        self.panic_count = [0, 0]
        self.active = [[True] * len(start[0]), [True] * len(start[1])]
        """A unit is active while it has strength and has not panicked."""
        self.kept: list[dict[Any, Any]] = [{}, {}]
        """Per side, the lists of who is active that :meth:`shooters`, :meth:`targets` and :meth:`target_groups`
        worked out, kept (and returned: callers do not change them) until a unit of that side leaves (:meth:`leave`)."""
        # Counts over the combat units still fighting, kept up to date by :meth:`leave` so that battle
        # morale, asked for several times a round, counts no lists.
        self.fighting_n = start[2][:]
        """Combat units still fighting, per side."""
        self.morale_sum = start[3][:]
        """The sum of their base morales, per side."""
        self.armoured = start[4][:]
        """Armour still fighting, per side."""
        self.flying = start[5][:]
        """Aircraft still fighting, per side."""
        self.standing = [start[6][0][:], start[6][1][:]]
        """Strength of the units that can be hit still fighting (:meth:`targets`), per side: ground units
        alone, and with aircraft; a round's heavy losses are counted against it."""
        self.low, self.sides_n = line.low, line.sides_n
        self.random = rng.random
        self.events: list[dict[str, Any]] = []
        self.rounds = 0
        self.tested = False
        """A side took its rout test this round already (demoralised by a first shot)."""
        self.cancel = [setup.defender.cancel_first, setup.attacker.cancel_first]
        """Side ``s`` still has its first hit cancelled by the enemy's card."""
        self.opening: int | None = None
        """Hits of the opening volley (:attr:`Lineup.opening`), once rolled."""

    # Dice ---------------------------------------------------------------
    def die(self) -> int:
        return self.low + int(self.random() * self.sides_n)

    # Who is where -----------------------------------------------------------
    def engaged(self, s: int, i: int) -> bool:
        return self.active[s][i]

    def fighting(self, s: int) -> list[int]:
        """Combat units still on the battlefield."""
        active = self.active[s]
        return [i for i in self.combat_idx[s] if active[i]]

    def shooters(self, s: int, round_name: RoundName) -> list[int]:
        """Units of side ``s`` that fire in the round: those that may (:attr:`Lineup.shooter_idx`) and are active."""
        found = self.kept[s].get(round_name)
        if found is None:
            active = self.active[s]
            found = self.kept[s][round_name] = [i for i in self.shooter_idx[s][round_name] if active[i]]
        return found

    def targets(self, s: int, round_name: RoundName) -> list[int]:
        """Units that can be hit: ground combat units still fighting, and aircraft too in the main and next
        rounds; in a pursuit, panicked units are back and can be hit."""
        if round_name == "pursuit":
            st = self.strength[s]
            return [i for i in self.target_idx[s][False] if st[i] > 0]
        air_too = round_name in ("main", "next")
        found = self.kept[s].get(air_too)
        if found is None:
            active = self.active[s]
            found = self.kept[s][air_too] = [i for i in self.target_idx[s][air_too] if active[i]]
        return found

    def target_groups(self, s: int, round_name: RoundName) -> list[tuple[list[int], list[int]]]:
        """:meth:`targets` by loss priority and class, as :func:`~.losses.allocate_groups` takes them."""
        if round_name == "pursuit":
            st = self.strength[s]
            return [([i for i in cavs if st[i] > 0], [i for i in others if st[i] > 0])
                    for cavs, others in self.line.target_groups[s][False]]
        key = "groups", round_name in ("main", "next")
        found = self.kept[s].get(key)
        if found is None:
            active = self.active[s]
            found = self.kept[s][key] = [([i for i in cavs if active[i]], [i for i in others if active[i]])
                                         for cavs, others in self.line.target_groups[s][key[1]]]
        return found

    def armour(self, s: int) -> int:
        return self.armoured[s]

    def leave(self, s: int, i: int) -> None:
        """Unit ``i`` of side ``s`` leaves the fight (eliminated or panicked)."""
        if self.active[s][i]:
            self.active[s][i] = False
            self.kept[s].clear()
            line = self.line
            if line.is_combat[s][i]:
                self.fighting_n[s] -= 1
                self.morale_sum[s] -= self.units[s][i].morale
                if line.is_armour[s][i]:
                    self.armoured[s] -= 1
                left = self.strength[s][i]
                standing = self.standing[s]
                standing[1] -= left
                if line.is_air[s][i]:
                    self.flying[s] -= 1
                else:
                    standing[0] -= left

    def morale(self, s: int) -> int:
        """Battle morale now: :meth:`morale_terms` added up in whole numbers (the hot path)."""
        rounding = self.rules.mean_rounding
        n = self.fighting_n[s]
        if rounding == "half up":
            mean = (2 * self.morale_sum[s] + n) // (2 * n) if n else 0
        elif rounding == "up":
            mean = -(-self.morale_sum[s] // n) if n else 0
        else:
            return self.morale_terms(s).total
        own, enemy = self.armoured[s], self.armoured[1 - s]
        return (self.line.morale_base[s] + mean + (1 if self.flying[s] else 0) + (1 if own else 0)
                + (1 if armour_superiority(own, enemy) else 0) - self.drops[s])

    def morale_terms(self, s: int) -> Any:
        f = self.forces[s]
        here = self.fighting(s)
        us = self.units[s]
        return battle_morale(f.leader_morale, [us[i].morale for i in here], air=any(us[i].air for i in here),
                             armour=self.armour(s), enemy_armour=self.armour(1 - s), booster=f.booster_morale,
                             scenario=f.scenario_morale, drops=self.drops[s], rounding=self.rules.mean_rounding,
                             card=f.card_morale)

    # One side's fire --------------------------------------------------------
    def fire(self, s: int, round_name: RoundName, log: dict[str, Any] | None) -> tuple[int, int]:
        """Roll every shot of side ``s``; return hits scored by its CavUnits and by its OtherUnits."""
        mods, bonus = self.line.round_modifiers(s, round_name, self.armoured[s], self.armoured[1 - s],
                                                self.rounds == 1)
        cav_hits = other_hits = 0
        reduced, cancel = self.rules.reduced_at_half, self.cancel[s]
        # the die as :meth:`die` rolls it, its parts held here: this loop rolls most of a battle's dice
        rand, low, n = self.random, self.low, self.sides_n
        units, strength = self.units[s], self.strength[s]
        if log is None and not cancel:
            # Unrecorded, with no hit to cancel, a volley only counts its hits: the shots below, the dice rolled
            # in the same order (a re-rolled miss's second die only after the miss), nothing else kept
            parts, active = self.line.shot_parts[s], self.active[s]
            for i in self.shooter_idx[s][round_name]:  # (:meth:`shooters`, filtered here: no list kept)
                if not active[i]:
                    continue
                faces_under, rerolls, cav = parts[i]
                # the die shows ``low + int(rand() * n)``: at or under the modified value when ``rand() * n`` is
                # under ``hitting``, the number of faces that hit
                hitting = faces_under[strength[i]] + bonus
                hits = 0
                for again in rerolls:  # one a shot: whether a miss is rolled once more
                    if rand() * n < hitting or (again and rand() * n < hitting):
                        hits += 1
                if cav:
                    cav_hits += hits
                else:
                    other_hits += hits
            return cav_hits, other_hits
        shots: list[dict[str, Any]] = []
        parts = self.line.shot_parts[s]
        for i in self.shooters(s, round_name):
            u = units[i]
            target = u.value(strength[i], reduced) + bonus
            hits = 0
            for again in parts[i][1]:  # one a shot (its rate of fire): whether a miss is rolled once more
                d = first = low + int(rand() * n)
                if d > target and again:  # an elite rolls a miss once more
                    d = low + int(rand() * n)
                hit = d <= target
                cancelled = hit and cancel
                if cancelled:
                    cancel = hit = False
                if hit:
                    hits += 1
                if log is not None:
                    shot = {"unit": u.name, "target": target, "dice": [first, d] if first > target and again else [d],
                            "hit": hit}
                    if cancelled:
                        shot["cancelled"] = True
                    shots.append(shot)
            if u.cav:
                cav_hits += hits
            else:
                other_hits += hits
        self.cancel[s] = cancel
        if log is not None:
            log.setdefault("fire", []).append({"side": SIDES[s], "modifiers": dict(mods), "shots": shots,
                                               "hits": cav_hits + other_hits})
        return cav_hits, other_hits

    # Taking hits -------------------------------------------------------------
    def take(self, s: int, scored: tuple[int, int], round_name: RoundName, log: dict[str, Any] | None) -> list[int]:
        """Allocate the enemy's hits on side ``s``; return each unit's hits (a side takes hits once a round)."""
        st = self.strength[s]
        hits = [0] * len(st)
        wasted = 0
        if scored[0] or scored[1]:
            # the strength left to each unit is the room the allocation fills: it goes down as hits land
            wasted = allocate_groups(scored[0], scored[1], self.target_groups(s, round_name), st, hits, self.rules)
            landed = sum(hits)
            self.lost[s] += landed
            if round_name != "pursuit":  # (a pursuit hits panicked units too; nothing reads standing after it)
                standing = self.standing[s]
                standing[0] -= landed - sum(map(hits.__getitem__, self.line.air_idx[s]))
                standing[1] -= landed
            for i in compress(self.line.everyone[s], hits):  # the units hit
                if st[i] == 0:
                    self.leave(s, i)
                    self.dead[s] += 1
                    self.drops[s] += 1
        if log is not None:
            log.setdefault("allocation", []).append({
                "side": SIDES[s], "wasted": wasted,
                "hits": [{"unit": self.units[s][i].name, "hits": h, "left": st[i]} for i, h in enumerate(hits) if h]})
        return hits

    def panic_tests(self, s: int, before: list[int], taken: list[int], log: dict[str, Any] | None) -> None:
        strength, panicked = self.strength[s], self.panicked[s]
        for i in compress(self.line.everyone[s], taken):  # the units hit this round
            h = taken[i]
            if strength[i] > 0 and not panicked[i] and must_test(h, before[i]):
                u = self.units[s][i]
                d = self.die()
                failed = panics(d, u.morale)
                if failed:
                    panicked[i] = True
                    self.leave(s, i)
                    self.panic_count[s] += 1
                    self.drops[s] += 1
                if log is not None:
                    log.setdefault("panics", []).append({"side": SIDES[s], "unit": u.name, "die": d,
                                                         "morale": u.morale, "panicked": failed})

    def rout_test(self, s: int, log: dict[str, Any] | None) -> bool:
        bm = self.morale(s)
        d = self.die()
        failed = routs(d, bm, self.rules)
        if log is not None:
            log["rout_test"] = {"side": SIDES[s], "morale": bm, "die": d, "routed": failed}
        return failed

    def tally(self, s: int) -> tuple[int, int]:
        loss = self.dead[s] if self.rules.rout_tally == "units" else self.lost[s]
        return loss, self.panic_count[s]

    # A round -------------------------------------------------------------------
    def round(self, round_name: RoundName) -> SideName | None:
        """Fight one round; return a side that routed in it, if any."""
        log: dict[str, Any] | None = {"round": round_name} if self.record else None
        if self.rules.cancel_scope == "round":
            self.cancel = [self.setup.defender.cancel_first, self.setup.attacker.cancel_first]
        if log is not None:
            log["morale_start"] = [self.morale_terms(0).to_json(), self.morale_terms(1).to_json()]
        # strength present at the round's start (for heavy losses): that of :meth:`targets`
        air_too = round_name in ("main", "next")
        present = [self.standing[0][air_too], self.standing[1][air_too]]
        lost_before = list(self.lost)
        before = [list(self.strength[0]), list(self.strength[1])]
        routed: SideName | None = None
        first = self.setup.first_shot
        self.tested = False
        if first is not None and round_name in self.setup.first_shot_rounds:
            a = SIDES.index(first)
            volley = self.fire(a, round_name, log)
            if self.rounds == 1:
                self.opening = volley[0] + volley[1]
            taken = self.take(1 - a, volley, round_name, log)
            self.panic_tests(1 - a, before[1 - a], taken, log)
            if self.fighting_n[1 - a] and demoralised(self.morale(1 - a), self.rules):
                # demoralised before it could reply: it does not fire, it tests at once (and only then)
                self.tested = True
                if self.rout_test(1 - a, log):
                    routed = SIDES[1 - a]
                if log is not None:
                    log["no_reply"] = SIDES[1 - a]
            else:
                taken = self.take(a, self.fire(1 - a, round_name, log), round_name, log)
                self.panic_tests(a, before[a], taken, log)
        else:
            scored = (self.fire(0, round_name, log), self.fire(1, round_name, log))
            if self.rounds == 1 and self.line.opening is not None:
                s = self.line.opening[0]
                self.opening = scored[s][0] + scored[s][1]
            taken_1 = self.take(1, scored[0], round_name, log)
            taken_0 = self.take(0, scored[1], round_name, log)
            self.panic_tests(0, before[0], taken_0, log)
            self.panic_tests(1, before[1], taken_1, log)
        for s in (0, 1):
            if heavy_losses(self.lost[s] - lost_before[s], present[s]):
                self.drops[s] += 1
                if log is not None:
                    log.setdefault("heavy_losses", []).append(SIDES[s])
        if log is not None:
            log["morale_end"] = [self.morale(0), self.morale(1)]
            self.events.append(log)
        return routed

    def can_fire(self, round_name: RoundName) -> bool:
        return bool(self.shooters(0, round_name) or self.shooters(1, round_name))

    def pursue(self, victor: int) -> bool:
        """The victor's pursuit round after a rout; return whether it was fought."""
        if not self.setup.pursuit_terrain or not self.shooters(victor, "pursuit"):
            return False
        log: dict[str, Any] | None = {"round": "pursuit"} if self.record else None
        if self.rules.cancel_scope == "round":
            self.cancel = [self.setup.defender.cancel_first, self.setup.attacker.cancel_first]
        scored = self.fire(victor, "pursuit", log)
        self.take(1 - victor, scored, "pursuit", log)
        if log is not None:
            self.events.append(log)
        return True

    def total_elimination(self, s: int) -> None:
        """All combat units eliminated: half the support units go too."""
        us = self.units[s]
        if any(u.role == "combat" and self.strength[s][i] > 0 for i, u in enumerate(us)):
            return
        support = [i for i, u in enumerate(us) if u.role == "support" and self.strength[s][i] > 0]
        n = len(support) // 2 if self.rules.support_rounding == "down" else (len(support) + 1) // 2
        for i in support[:n]:
            self.lost[s] += self.strength[s][i]
            self.strength[s][i] = 0
            self.leave(s, i)
            self.dead[s] += 1
        if self.record and n:
            self.events.append({"round": "total elimination", "side": SIDES[s],
                                "support_lost": [us[i].name for i in support[:n]]})

    # The whole battle -------------------------------------------------------
    def run(self) -> Outcome:
        card = self.setup.retreat_card
        if card is not None:
            if self.record:
                self.events.append({"round": "retreat", "side": card, "morale": self.morale(SIDES.index(card)),
                                    "card": True})
            return self.outcome("defender" if card == "attacker" else "attacker", "card", retreated=card)
        order: list[RoundName] = [r for r in _SPECIAL] + ["main"] + ["next"] * self.rules.next_rounds
        for round_name in order:
            if round_name in _SPECIAL and not self.can_fire(round_name):
                continue
            if round_name == "next":
                self.drops[0] += 1
                self.drops[1] += 1
                for s in (0, 1):
                    limit = self.forces[s].retreat_at
                    if limit is not None and self.morale(s) <= limit:
                        if self.record:
                            self.events.append({"round": "retreat", "side": SIDES[s], "morale": self.morale(s)})
                        return self.outcome(SIDES[1 - s], "retreat", retreated=SIDES[s])
            self.rounds += 1
            routed = self.round(round_name)
            if round_name == "recon" and routed is None:
                leaving = [s for s in (0, 1) if self.forces[s].retreat_after_recon and self.fighting_n[s]]
                for s in leaving:
                    if self.record:
                        self.events.append({"round": "retreat", "side": SIDES[s], "morale": self.morale(s)})
                if len(leaving) == 2:
                    # both may leave, and both do: neither is the only side left, neither stayed, so the
                    # source's last rule gives the battle to the defender
                    return self.outcome("defender", "both retreated")
                if leaving:
                    s = leaving[0]
                    return self.outcome(SIDES[1 - s], "retreat", retreated=SIDES[s])
            alive = [self.fighting_n[0] > 0, self.fighting_n[1] > 0]
            if not (alive[0] and alive[1]):
                if round_name in ("main", "next"):  # the source: total elimination ends a main or next round
                    for s in (0, 1):
                        self.total_elimination(s)
                winner = "attacker" if alive[0] and not alive[1] else "defender"
                return self.outcome(winner, "eliminated")
            if routed is None and not self.tested:
                low = demoralised(self.morale(0), self.rules), demoralised(self.morale(1), self.rules)
                # (neither side demoralised: nobody tests, and the tallies are not read)
                tester = (who_tests(low[0], low[1], self.tally(0), self.tally(1), self.rules)
                          if low[0] or low[1] else None)
                if tester is not None:
                    log: dict[str, Any] | None = {"round": "rout test"} if self.record else None
                    if self.rout_test(SIDES.index(tester), log):
                        routed = tester
                    if log is not None:
                        self.events.append(log)
            if routed is not None:
                loser = SIDES.index(routed)
                pursued = self.pursue(1 - loser)
                self.total_elimination(loser)
                return self.outcome(SIDES[1 - loser], "rout", routed=routed, pursuit=pursued)
        return self.outcome("defender", "rounds")

    def outcome(self, winner: SideName, reason: str, *, routed: SideName | None = None, pursuit: bool = False,
                retreated: SideName | None = None) -> Outcome:
        return Outcome(winner=winner, reason=reason, rounds=self.rounds, routed=routed, pursuit=pursuit,
                       retreated=retreated, losses=(self.lost[0], self.lost[1]),
                       eliminated=(self.dead[0], self.dead[1]), panics=(self.panic_count[0], self.panic_count[1]),
                       morale=(self.morale(0), self.morale(1)),
                       strengths=(tuple(self.strength[0]), tuple(self.strength[1])),
                       breakthrough=winner == "attacker" and any(
                           self.active[0][i] for i in self.shooter_idx[0]["pursuit"]),
                       events=tuple(self.events), opening=self.opening)


def fight(setup: Setup, rules: SgsRules, rng: random.Random, *, record: bool = False) -> Outcome:
    """Fight one battle with ``rng`` as the only source of chance.

    With ``record`` the outcome carries one JSON-able event per round (each
    shot's dice and target, the allocation, panics, morale); without it none
    are built.
    """
    return Battle(setup, rules, rng, record).run()
