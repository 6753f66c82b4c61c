"""The combat loop: rounds until one side is gone, each round played as subrounds of single attacks.

:func:`fight` is the entry point. It builds a :class:`Battle` (the only
mutable object: it owns the individuals), plays the rounds in the page's
order and returns a frozen :class:`Outcome`. ``rng`` is the only source of
chance; with ``record=True`` the outcome carries one JSON-able event per
attack and a summary per round.

A round, in order: sea breakoff, count the round, initiative (first round),
sort, capitulation, concentric bonus, the steps (stacking, then subrounds),
auto-destroy, out of action points, breakthrough, safe retreat, panic,
orderly retreat, the victory check.

Only troops in the hex can take it. A bombardment or an air strike that
leaves no defender fighting has ``silenced`` the defence. A paradrop is an air
attack until its troops are down: while any are still carried the victory
check lets the battle go on, defenders the aircraft pin down stay in the hex
(nobody may retreat under air attack) and take up the fight again when the
paratroopers land, and the hex falls only to paratroopers who have landed and
are still fighting. The page is silent on all three points; they are our
reading of "aircraft never take a hex".

>>> import random
>>> from .setup import Setup, Unit
>>> from .rules import Rules
>>> o = fight(Setup((Unit("Tank", 6),), (Unit("Infantry", 4),)), Rules(), random.Random(1), record=False)
>>> o.ending in ("attacker_won", "defender_held", "standoff"), o.rounds >= 1
(True, True)
>>> import json; sorted(json.loads(json.dumps(o.to_json()))["attacker"]["start"].items())
[('Tank', 6)]
"""

from __future__ import annotations

import math
from math import floor
import random
from collections.abc import Iterable, Mapping
import dataclasses
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any

from ..montecarlo import Kept
from ..settings import Watched
from . import endings, parts
from .attack import (ATTACK_MODIFIERS, HIT_POINT_MODIFIERS, LOGGED_ATTACKS, ROUND_IDLE_WHEN, TARGET_IDLE_WHEN,
                     Modifier, attack, hit_effects, kind_factors, live_modifiers)
from .individuals import (CAPITULATED, CARRIED, DESTROYED, HIT, IN, KILLED, LOST, MISSION, ORDERLY, PANIC, TRAPPED,
                          PINNED_DOWN, RETREATED, RETREATING, Individual, merge, start_floats)
from .interception import Decision, intercepts
from .rules import KEPT_RULES, Rules, as_floats
from .setup import AIR_MISSIONS, BOMBARDMENTS, TAKES_HEX, Setup, SetupError, Unit, UnitState
from .units import LANDSCAPES, UnitType

__all__ = ["fight", "Battle", "Outcome", "SideTally", "MergedUnit", "UnitInfo", "BattleTooBig", "WORK_LIMIT",
           "LOGGED_ATTACKS", "CAPITULATING"]

CAPITULATING = frozenset({"amphibious", "paradrop", "rebel"})
"""Combat types in which the attackers still there at the last round capitulate (the page's list)."""

WORK_LIMIT = 15_000_000
"""Most a battle may do, counted as individuals looked over in its target searches plus attacks. The
largest battle the form allows with the page's unit types (16 units of 100 infantry and tanks a side,
entrenched) needs up to 9.7 million and plays in about a second of CPython; a custom type with 20 attacks
and 10,000 hit points a side stops here after about 2.5 seconds (twice that in the browser, on a worker
that leaves the page's calculators free) instead of running for minutes. A count, not a clock, so the
same inputs always stop at the same point."""


class BattleTooBig(SetupError):
    """The battle would take too long to play here (see :data:`WORK_LIMIT`)."""

    def __init__(self, round_: int, attacks: int) -> None:
        self.round = round_
        self.attacks = attacks
        super().__init__(f"this battle is too big to play here: it went past {attacks:,} attacks in round "
                         f"{round_} without ending")


@dataclass
class UnitInfo:
    """A unit as the battle sees it: its setup and the factors that hold all battle long."""

    unit: Unit
    label: str
    count: int
    global_modifier: float
    staff: float
    supply: float
    people: float
    against_people: float
    crosses_river: bool
    can_retreat: bool
    retreat_order: int
    outside: bool = False
    panicked: bool = False
    withdrew: bool = False
    members: list[Individual] = field(default_factory=list)


@dataclass(frozen=True)
class SideTally:
    """What one side brought and what became of it, by subformation type name."""

    start: Mapping[str, int]
    casualties: Mapping[str, int]
    """Killed, captured (capitulated) or used up."""
    survivors: Mapping[str, int]
    retreated: int
    """Individuals that left the battle alive before its end (any retreat)."""
    panics: int
    """Units that panicked."""
    withdrawals: int
    """Units that withdrew in order (retreat standing order)."""
    capitulated: int
    trapped: int
    """Defenders lost with the hex, having no side to retreat through."""
    broke_through: int
    experience: float
    """Experience points gained by the side's individuals in combat and for missions."""


@dataclass(frozen=True)
class MergedUnit:
    """A unit after the battle: its survivors merged back, stats averaged."""

    side: int
    label: str
    type: str
    survivors: int
    state: UnitState


@dataclass(frozen=True)
class Outcome:
    """Everything a battle's result holds, for one reader or for a Monte Carlo tally."""

    ending: str
    rounds: int
    attacker: SideTally
    defender: SideTally
    units: tuple[MergedUnit, ...]
    structural_damage: float
    location_destroyed: bool
    bridge_destroyed: bool
    aircraft_lost: int
    """Stationed aircraft lost with the airfield (destroyed or taken)."""
    ships_lost: int
    hex_taken: bool
    """The hex changes hands: the attack could take it (troops went in) and the attacker won."""
    card_executed: bool
    air_supply_delivered: float
    airlift_lost: int
    retreat_side: int | None
    """Hex side the losing side retreats through (None: no retreat)."""
    interceptions: tuple[dict[str, Any], ...]
    events: tuple[dict[str, Any], ...] = ()
    first_attack: tuple[float, float, bool] | None = None
    """The battle's first attack (none if nobody attacked): its attack score and hit points after every
    modifier, as drawn below, and whether it hit. Given those two numbers it hits with the exact chance
    :func:`.parts.hit_chance` gives (the "Chance of a hit" calculator's), under the battle's randomisation
    and tie reading."""

    def to_json(self, *, events: bool = False) -> dict[str, Any]:
        """Plain JSON data (events only when asked), e.g. for a tally or a worker message."""
        out = dataclasses.asdict(replace(self, events=()))
        for side in ("attacker", "defender"):
            for key in ("start", "casualties", "survivors"):
                out[side][key] = dict(out[side][key])
        if events:
            out["events"] = list(self.events)
        else:
            out.pop("events")
        out["interceptions"] = list(out["interceptions"])
        out["units"] = list(out["units"])
        return out


def fight(setup: Setup, rules: Rules, rng: random.Random, *, record: bool = False,
          work_limit: int = WORK_LIMIT, merge_units: bool = True) -> Outcome:
    """Play one battle to its end, or raise :class:`BattleTooBig` past ``work_limit`` (see :data:`WORK_LIMIT`).

    ``merge_units=False``: the outcome's ``units`` (each unit's survivors merged back) is left empty, for a
    Monte Carlo trial that tallies none of it; nothing else changes (merging draws no number).
    """
    setup.check()
    b = Battle(setup, rules, rng, record, work_limit)
    b.run()
    return b.outcome(merge_units)


_initiative = attrgetter("initiative")
_morale = attrgetter("morale")
"""Read over a side's or a unit's individuals at C speed."""


def _anyone_fighting(people: Iterable[Individual]) -> bool:
    """Whether anyone of ``people`` is still fighting (a plain loop that stops at the first: quicker in both
    runtimes than ``IN in map(attrgetter("status"), people)``, and by most in Pyodide)."""
    for p in people:
        if p.status == IN:
            return True
    return False


_setup_floats: list[Any] = [None, {}]
"""The last setup, and its units' and types' fixed numbers as floats by ``id`` (:meth:`Battle._floats_of`):
the setup keeps them alive, so an ``id`` stays theirs while it is held."""


_modifier_lists = Kept(KEPT_RULES)
"""By the setup and the rules a battle was built for (held with them), and by which interceptors joined, its
modifier lists (:meth:`Battle._build`): they depend on nothing else. A watched battle's rules
(:class:`engine.settings.Watched`) note what is read, so its lists are built afresh and not kept."""


class Battle:
    """The mutable state of one battle: individuals, the round, the running factors and the log."""

    __slots__ = ("round", "events", "setup", "rules", "f", "rng", "random", "record", "work", "work_limit",
                 "retreat_open", "defence_may_retreat", "types", "slots", "candidates", "target_lists",
                 "attacks_made", "first_attack", "unlogged", "subround", "combat", "bombardment", "air_mission",
                 "takes_hex", "dropped", "counterattacks", "whole", "tie_hits", "landscape_attack", "river_factor",
                 "airfield_strike", "away_interceptors", "concentric", "concentric_bonuses", "sides", "hqs", "stack",
                 "stack_max", "stack_factor", "units", "people", "everyone", "lowest_fuel", "structural", "continued",
                 "ending", "decisions", "had_ships", "prevent", "_round_notes", "type_floats", "aircraft", "search_work",
                 "transports_at_start", "never_overstacked", "defenders_may_capitulate", "battle_modifiers",
                 "round_checks", "round_lists", "idle_against", "may_attack", "deals_structural", "auto_destroys",
                 "attack_points", "hit_points", "experience_ratios", "hit_effects", "type_tables",
                 "favourite_scores", "attack_modifiers", "hit_point_modifiers", "attack_factors",
                 "hit_point_factors", "attack_factors_by_kind", "hit_point_factors_by_kind")
    """Every attribute a battle has (each documented where :meth:`__init__` or :meth:`_build` sets it): a battle
    has more than an instance dict can share between battles, and the steps read them thousands of times."""

    def __init__(self, setup: Setup, rules: Rules, rng: random.Random, record: bool,
                 work_limit: int = WORK_LIMIT) -> None:
        self.setup = setup
        self.rules = rules
        self.f = as_floats(rules)
        self.rng = rng
        self.random = rng.random
        """``rng.random``, bound once: every draw of the battle (the steps draw several times an attack)."""
        self.record = record
        self.events: list[dict[str, Any]] = []
        self.work = 0
        """Work done so far (individuals looked over in target searches, plus attacks): see WORK_LIMIT."""
        self.work_limit = work_limit
        self.retreat_open = setup.retreat_open()
        self.defence_may_retreat = any(self.retreat_open)
        """A defending unit has an avenue of retreat only if some side around the hex is open."""
        self.types: list[UnitType] = []
        """The battle's unit types, each once: an individual's ``slot`` is its type's place here."""
        self.slots: dict[int, int] = {}
        """Each type's place in ``types``, by ``id``."""
        self.candidates: tuple[dict[tuple[int, bool], list[Individual]], ...] = ({}, {})
        """The targets :meth:`_find_target` found for each kind of attacker in these steps (by the attackers'
        side, then type slot and brokenness), kept up to date: during the steps the only change is that
        someone hit is a target no more (:meth:`out_of_reach`). Kinds with the same :meth:`_type_table` may
        target the same enemies: they share one list."""
        self.target_lists: tuple[dict[tuple[Any, ...], list[Individual]], ...] = ({}, {})
        """The same lists, each once, by the attackers' side and the :meth:`_type_table` they were found with."""
        self.attacks_made = 0
        self.first_attack: tuple[float, float, bool] | None = None
        """The battle's first attack: its attack score and hit points after every modifier, and whether it hit."""
        self.unlogged = 0
        """Attacks of this round past LOGGED_ATTACKS, counted but not described."""
        self.round = 0
        self.subround = 0
        self.combat = setup.combat
        self.bombardment = setup.combat in BOMBARDMENTS
        self.air_mission = setup.combat in AIR_MISSIONS
        self.takes_hex = setup.combat in TAKES_HEX
        self.dropped = False
        """A paradrop's troops are down (:meth:`_drop`): from then on it is a ground fight."""
        self.counterattacks = not (rules.counterattacks_off or self.bombardment)
        """Whoever is attacked may strike back (the rest of :meth:`_may_counter` permitting)."""
        self.whole = rules.randomisation == "whole"
        self.tie_hits = rules.tie_reading == "ties_to_attacker"
        land = LANDSCAPES[setup.landscape]
        self.landscape_attack = (float(land.attacker_attack), float(land.defender_attack))
        bonus = self.f["river_hit_points"] if setup.river else 0.0
        self.river_factor = parts.river_factor(bonus, setup.bridge, self.f["river_bridge"])
        self.airfield_strike = setup.airfield and setup.combat in ("airstrike", "bombing_run")
        self.concentric_bonuses = tuple(self.f[f"concentric_{k}"] for k in range(1, 9))  # rulevars 132-139
        self.concentric = 1.0
        self.sides = 0
        self.hqs = 0
        self.stack: list[dict[str, float]] = [{}, {}]
        self.stack_max: list[dict[str, float]] = [{}, {}]
        self.stack_factor: list[dict[str, float]] = [{"land": 1.0, "air": 1.0, "artillery": 1.0},
                                                     {"land": 1.0, "air": 1.0, "artillery": 1.0}]
        self.units: list[list[UnitInfo]] = [[], []]
        self.people: list[list[Individual]] = [[], []]
        self.everyone: list[Individual] = []
        self.lowest_fuel = math.inf
        """The least fuel any individual has (kept as fuel is used: :func:`.attack._use_fuel`)."""
        self.structural = [0.0, 0.0]
        self.continued = False
        self.ending = "continuing"
        self.decisions: list[Decision] = []
        self.had_ships = False
        self.prevent = rules.prevent_rules and any(setup.type_of(u).prevents
                                                  for u in setup.attackers + setup.defenders)
        self._round_notes: list[dict[str, Any]] = []
        self.type_floats: list[tuple[float, float, float]] = []
        """Per type (by slot): special attack, special defence and start-up share as floats (the hot
        path's copy), filled as the sides are built."""
        self._build()

    # Building the sides -----------------------------------------------------------------------------

    def _add_unit(self, side: int, unit: Unit, *, outside: bool = False, interceptor: bool = False) -> None:
        f = self.f
        t = self.setup.type_of(unit)
        index = len(self.units[side])
        label = unit.name or f"{'A' if side == 0 else 'D'}{index + 1} {t.name}"
        global_modifier, staff_xp_bonus, hq_power, people, against_people = self._floats_of(unit)
        staff = 1.0 + (f["staff_bonus"] + unit.staff_xp * staff_xp_bonus / 100.0) * hq_power
        info = UnitInfo(unit, label, unit.count, global_modifier, staff,
                        parts.weighted_factor(float(unit.state.supply), f["supply_weight"]),
                        people, against_people, unit.crosses_river,
                        unit.can_retreat and (side == 0 or self.defence_may_retreat), unit.retreat_order, outside)
        self.units[side].append(info)
        cargo = unit.cargo and side == 0 and self.combat in ("paradrop", "airlift")
        slot = self.slots.get(id(t))
        if slot is None:
            slot = self.slots[id(t)] = len(self.types)
            self.types.append(t)
            self.type_floats.append(self._floats_of(t))
        record = self.record
        start = start_floats(unit.state)
        if unit.count and start[5] < self.lowest_fuel:
            self.lowest_fuel = start[5]
        # each individual's own name only where there is a log to name it in
        info.members = [Individual(f"{label} #{i + 1}" if record else label, side, index, t, start, slot, outside,
                                   cargo, interceptor) for i in range(unit.count)]
        self.people[side].extend(info.members)
        self.everyone.extend(info.members)

    def _floats_of(self, x: Unit | UnitType) -> tuple[float, ...]:
        """A unit's (global modifier, staff experience bonus, HQ power, people, against people) or a type's
        (special attack, special defence, start-up share) as floats, converted once for a run's battles (they
        share one setup: the last setup's are kept)."""
        if _setup_floats[0] is not self.setup:
            _setup_floats[:] = [self.setup, {}]
        held = _setup_floats[1]
        floats = held.get(id(x))
        if floats is None:
            floats = held[id(x)] = (
                (float(x.special_attack), float(x.special_defence), float(x.startup_penalty)) if isinstance(x, UnitType)
                else (float(x.global_modifier), float(x.staff_xp_bonus), float(x.hq_power), float(x.people_modifier),
                      float(x.against_people)))
        return floats

    def _build(self) -> None:
        s = self.setup
        for u in s.attackers:
            self._add_unit(0, u)
        for u in s.defenders:
            self._add_unit(1, u)
        self.had_ships = any(u.members[0].t.theatre == "naval" for u in self.units[1] if u.members)
        self.decisions = intercepts(s, self.rules, self.rng)
        away = []
        for d in self.decisions:
            if d.joins:
                if not d.interceptor.own_airfield_targeted:
                    away.append(len(self.units[1]))
                self._add_unit(1, d.interceptor.unit, interceptor=True)
        self.away_interceptors = frozenset(away)
        """The defenders' unit indices of interceptors flying in from another airfield (spared the airfield
        penalty: they are not caught on their own field)."""
        if self.air_mission:
            for aa in s.aa_support:
                if s.type_of(aa.unit).aa_range >= aa.distance:
                    self._add_unit(1, aa.unit, outside=True)
        self.aircraft = tuple(any(u.members[0].t.theatre == "air" for u in self.units[side] if u.members)
                              for side in (0, 1))
        """Whether each side has aircraft, interceptors that joined included."""
        self.search_work = tuple(len(self.people[1 - side]) + 1 for side in (0, 1))
        """The work a target search by each side counts: its enemies looked over, plus its attack."""
        carrying = self.combat in ("paradrop", "airlift", "air_supply")
        self.transports_at_start = sum(1 for p in self.people[0] if p.t.transport) if carrying else 0
        rules = self.rules
        built: dict[tuple[bool, ...], Any] = ({} if isinstance(rules, Watched) else
                                              _modifier_lists.keep((id(s), id(rules)), lambda: (s, rules, {}))[2])
        if len(built) > 64:
            built.clear()
        joined = tuple(d.joins for d in self.decisions)
        kept = built.get(joined)
        if kept is None:
            self.never_overstacked = self._never_overstacked()
            self.defenders_may_capitulate = self._defenders_may_capitulate()
            mods = (live_modifiers(self, ATTACK_MODIFIERS), live_modifiers(self, HIT_POINT_MODIFIERS))
            checks = tuple(dict.fromkeys(ROUND_IDLE_WHEN[fn] for _, fn in mods[0] + mods[1] if fn in ROUND_IDLE_WHEN))
            idle_against = tuple(frozenset(fn for fn, idle in TARGET_IDLE_WHEN.items() if idle(self, side))
                                 for side in (0, 1))
            kept = built[joined] = (mods, checks, {}, idle_against, self.never_overstacked,
                                    self.defenders_may_capitulate, self._type_facts())
        (self.battle_modifiers, self.round_checks, self.round_lists, self.idle_against, self.never_overstacked,
         self.defenders_may_capitulate, facts) = kept
        """The attack and hit point modifiers that can differ from 1.0 in this battle; the checks of
        :data:`ROUND_IDLE_WHEN` they need; each round's lists by those checks' answers (:meth:`_round_modifiers`);
        the modifiers that stay 1.0 against each side's individuals (:data:`TARGET_IDLE_WHEN`); whether no side
        can be overstacked (:meth:`_never_overstacked`); whether a defender may capitulate
        (:meth:`_defenders_may_capitulate`). The same for every battle of one setup, rules and interceptors
        joining, so worked out once for them."""
        (self.may_attack, self.deals_structural, self.auto_destroys, self.attack_points, self.hit_points,
         self.experience_ratios, self.hit_effects, self.type_tables, self.favourite_scores) = facts
        """What the battle's types and rules fix (:meth:`_type_facts`), also the same for every battle of one
        setup, rules and interceptors joining."""
        self.attack_modifiers, self.hit_point_modifiers = self.battle_modifiers
        self.attack_factors: tuple[Modifier, ...] = ()
        self.hit_point_factors: tuple[Modifier, ...] = ()
        self.attack_factors_by_kind: tuple[tuple[tuple[Modifier, ...], ...], ...] = ((), ())
        self.hit_point_factors_by_kind: tuple[tuple[tuple[Modifier, ...], ...], ...] = ((), ())
        """Set for each round's steps by :meth:`_round_modifiers`."""

    def _never_overstacked(self) -> bool:
        """Whether no side can be overstacked in this battle: each side's stacks as :meth:`_stacking` counts them,
        but with everyone who may fight in the hex fighting at once (the cargo still carried too), within the
        lowest maxima the side can have (an attack's land maximum is never below rulevar 30's). The stacks a
        round counts can only be smaller: stack points are not negative, and nobody fights who is not here."""
        if any(p.t.stack < 0 for p in self.everyone):
            return False
        for side in (0, 1):
            ground, air = self._side_stack(side, everyone=True)
            lowest = self._stack_maxima(side, float(int(self.f["land_stack_max"])))
            if not (ground <= lowest["land"] and air <= lowest["air"] and ground <= lowest["artillery"]):
                return False
        return True

    def _defenders_may_capitulate(self) -> bool:
        """Whether any defender's morale may fall below rulevar 37's limit in this battle (else none is ever
        tested for capitulation). Morale falls only by a retreat or pinned hit (one at most: whoever is hit is
        nobody's target again, but for a paradrop's defenders pinned down before the drop, who fight again
        after it: two at most there) and by its unit's panic (once at most), so the lowest it can reach is its
        start times what the worse hits and a panic leave; the margin is far above any rounding of those
        products."""
        f = self.f
        hit_kept = max(0.0, min(1.0 - f["retreat_morale_loss"] / 100.0, 1.0 - f["pinned_morale_loss"] / 100.0, 1.0))
        if self.combat == "paradrop":
            hit_kept *= hit_kept
        panic_kept = max(0.0, min(1.0 - f["panic_morale_loss"], 1.0))
        if not self.people[1]:
            return False
        start = min(map(_morale, self.people[1]))
        lowest = min(start, start * hit_kept * panic_kept)
        return lowest - abs(lowest) * 1e-9 < f["capitulation_morale"]

    def _type_facts(self) -> tuple[Any, ...]:
        """What the battle's types (by slot) and rules fix, worked out once for every battle that shares them:
        who may attack at all (:meth:`_attacks_at_all`, by side and slot); whether any type deals structural
        damage, and whether any is used up (else those passes are skipped); attack points as floats (by
        attacker and target slot) and hit points as floats; the experience ratio of a hit (the target's power
        over the attacker's, kept between the rulevars; by target and attacker slot); what a retreat or pinned
        hit leaves (:func:`.attack.hit_effects`); :meth:`_type_table`'s answers, filled as asked; and each
        type's favourite-target score for each type (by attacker and target slot: artillery favourites in a
        bombardment)."""
        f, types = self.f, self.types
        return (tuple([self._attacks_at_all(side, t) for t in types] for side in (0, 1)),
                any(t.anti_structural for t in types),
                any(t.auto_destroy for t in types),
                [[float(at.attack.get(xt.group, 0)) for xt in types] for at in types],
                [float(t.hit_points) for t in types],
                [[parts.experience_modifier(float(tt.power_points), float(at.power_points), f["experience_min"],
                                            f["experience_max"]) for at in types] for tt in types],
                hit_effects(f),
                {},
                [[(at.artillery_favourites if self.bombardment else at.favourites).get(xt.group, 0) for xt in types]
                 for at in types])

    def _round_modifiers(self) -> None:
        """The modifiers that can differ from 1.0 in this round's steps (the hot path's lists), with their
        names for the log and without them for a battle that is not logged, and for each kind of attack
        (:func:`.attack.kind_factors`: also without those that stay 1.0 against its targets' side). Worked out
        once for each answer to the round's checks."""
        answers = tuple(check(self) for check in self.round_checks)
        lists = self.round_lists.get(answers)
        if lists is None:
            att, hp = (live_modifiers(self, mods, ROUND_IDLE_WHEN, dict(zip(self.round_checks, answers)))
                       for mods in self.battle_modifiers)
            lists = self.round_lists[answers] = (att, hp, tuple(fn for _, fn in att), tuple(fn for _, fn in hp),
                                                 kind_factors(att, self.idle_against),
                                                 kind_factors(hp, self.idle_against))
        (self.attack_modifiers, self.hit_point_modifiers, self.attack_factors, self.hit_point_factors,
         self.attack_factors_by_kind, self.hit_point_factors_by_kind) = lists

    # The loop -----------------------------------------------------------------------------------------

    def run(self) -> None:
        """Play rounds until the victory check ends the battle."""
        while True:
            if self._sea_breakoff():
                break
            self.round += 1
            self._round_notes = []
            if self.round == 1:
                self._throw_initiative()
            self._sort()
            self._capitulation()
            self._set_concentric()
            self._steps()
            self._auto_destroy()
            self._out_of_ap()
            self._breakthrough()
            self._safe_retreat()
            self._panic()
            self._orderly_retreat()
            self.ending = self._victory()
            if self.record:
                self.events.append(self._summary())
            if self.ending != "continuing":
                break

    def _sea_breakoff(self) -> bool:
        if not (self.setup.sea and self.had_ships):
            return False
        if any(p.status == IN and p.t.theatre == "naval" for p in self.people[1]):
            return False
        e = endings.ending(self._attackers_left(), self._defenders_left())
        self.ending = "breakoff" if e == "continuing" else e
        if self.record:
            self.events.append({"type": "breakoff", "round": self.round, "ending": self.ending})
        return True

    def _throw_initiative(self) -> None:
        rnd = self.random
        for p in self.everyone:
            p.initiative = rnd() * p.t.initiative

    def _sort(self) -> None:
        if self.round > 1:  # initiative is thrown once: a later round's sort would leave the order as it is
            return
        self.everyone.sort(key=_initiative, reverse=True)  # highest first; a stable sort, ties keep their order

    def _capitulation(self) -> None:
        f = self.f
        morale_limit, rdn_limit = f["capitulation_morale"], f["capitulation_readiness"]
        for p in self.people[1] if self.defenders_may_capitulate else ():
            if p.capitulation_checked or p.status not in (RETREATING, RETREATED):
                continue
            if p.morale < morale_limit and p.readiness < rdn_limit:  # else its chance is 0: no test
                chance = parts.capitulation_chance(p.readiness, p.morale, morale_limit, rdn_limit)
                p.capitulation_checked = True
                draw = self.random()
                if draw < chance:
                    p.status = CAPITULATED
                self._note({"event": "capitulation test", "who": p.key, "chance": round(chance, 6),
                            "draw": round(draw, 6), "capitulated": p.status == CAPITULATED})
        if self.round >= self.rules.attacker_capitulation_round:
            self._round_limit()

    def _round_limit(self) -> None:
        """The last round: the attackers still there capitulate in an amphibious, paradrop or rebel battle, the
        kinds the page names (setting ``attacker_capitulation``), and in any other go home (our reading, so that
        every battle ends: the page speaks of no other battle that lasts so long)."""
        give_up = self.combat in CAPITULATING or self.rules.attacker_capitulation == "every"
        n = 0
        for p in self.people[0]:
            if p.status in (IN, RETREATING, CARRIED) and give_up:
                p.status = CAPITULATED
                n += 1
            elif p.status in (IN, RETREATING):  # carried cargo stays with its transports
                p.status = RETREATED
                n += 1
        if n:
            self._note({"event": "attackers capitulate" if give_up else "attackers go home: last round",
                        "count": n})

    def _set_concentric(self) -> None:
        present = [u.unit for u in self.units[0] if _anyone_fighting(u.members)]
        self.sides = len({u.side for u in present})
        self.hqs = len({u.hq for u in present})
        self.concentric = parts.concentric_factor(self.sides, self.hqs, self.concentric_bonuses,
                                                  float(self.rules.concentric_multiple_hq))

    # The steps --------------------------------------------------------------------------------------------

    def stack_class(self, p: Individual) -> str:
        """Which stacking maximum an individual's side is held to: land, air or artillery."""
        if p.t.theatre == "air":
            return "air"
        return "artillery" if p.side == 0 and self.bombardment else "land"

    def _side_stack(self, side: int, everyone: bool = False) -> tuple[float, float]:
        """Stack points of side ``side`` in the hex, on the ground and in the air: its individuals still in the
        fight (``everyone``: all of them), never those outside the hex, and for the attacker the stack it
        remembers from earlier battles (its air mission's too)."""
        ground = air = 0.0
        for p in self.people[side]:
            if (everyone or p.status == IN) and not p.outside:
                if p.t.theatre == "air":
                    air += p.t.stack
                else:
                    ground += p.t.stack
        if side == 0 and self.rules.remember_battlestack:
            remembered = float(self.setup.remembered_stack)
            ground += remembered
            air += remembered if self.air_mission else 0.0
        return ground, air

    def _stack_maxima(self, side: int, attack_land: float) -> dict[str, float]:
        """Side ``side``'s stack maxima, the attacker's on land being ``attack_land``."""
        f = self.f
        if side == 0:
            return {"land": attack_land, "air": f["air_stack_max"], "artillery": f["artillery_stack_max"]}
        return {"land": f["land_stack_max"], "air": f["air_stack_max"], "artillery": f["land_stack_max"]}

    def _stacking(self) -> None:
        f = self.f
        power = f["overstack_power"]
        attack_land = float(parts.land_attack_stack_max(self.sides, int(f["land_stack_max"]),
                                                         int(f["land_stack_per_side"])))
        for side in (0, 1):
            ground, air = self._side_stack(side)
            maxima = self._stack_maxima(side, attack_land)
            stacks = {"land": ground, "air": air, "artillery": ground}
            self.stack[side] = stacks
            self.stack_max[side] = maxima
            self.stack_factor[side] = {k: parts.overstack_factor(stacks[k], maxima[k], power) for k in stacks}
            if side == 0:  # rulevars 833 and 834 as switches: the attacker's air or artillery bears no penalty
                if f["air_may_overstack"]:
                    self.stack_factor[0]["air"] = 1.0
                if f["artillery_may_overstack"]:
                    self.stack_factor[0]["artillery"] = 1.0

    def _steps(self) -> None:
        for found in self.candidates + self.target_lists:
            found.clear()
        if self.round > 1:  # everyone starts the battle with none
            for p in self.everyone:
                p.attacks = 0
                p.attacked = 0
        if self.record or not self.never_overstacked:  # else every factor stays 1.0 and no breakthrough can fail
            self._stacking()  # (a recorded battle shows its stacks in each round's summary)
        self._round_modifiers()
        self.subround = 0
        may_attack = self.may_attack
        acting = (self.everyone if all(map(all, may_attack))  # (copied by the first subround's filter)
                  else [p for p in self.everyone if may_attack[p.side][p.slot]])
        while True:
            self.subround += 1
            acted = False
            # Who may attack in this subround, in initiative order: nobody else can (attacks made only grow,
            # and nobody comes back into the fight during the steps). At its turn, only being hit since (its
            # status) can have changed that: its attacks grow only at its own turns.
            acting = [p for p in acting if p.status == IN and p.attacks < p.t.attacks]
            for p in acting:
                if p.status != IN:
                    continue
                target = self._find_target(p)
                if target is None:
                    p.attacks = p.t.attacks
                    continue
                if self.prevent:
                    target = self._preventer(p, target)
                attack(self, p, target, False)
                acted = True
                if self._may_counter(p, target):
                    attack(self, target, p, True)
            if not acted:
                break
        self._structural_damage()

    def _attacks_at_all(self, side: int, t: UnitType) -> bool:
        """Whether a side's individuals of type ``t`` may attack in this battle (in the steps, while they
        fight and have attacks left). Asked once a battle for each side and type (:attr:`may_attack`)."""
        if side == 0:
            return not (self.combat == "air_recon" and t.is_air)
        if self.bombardment:
            return self.rules.counter_battery and t.artillery_range > 0
        return True

    def targetable(self, a: Individual, x: Individual) -> bool:
        """May ``a`` choose ``x`` as its target? The page's target rules, backbench ones included."""
        if x.status != IN and not (x.status == RETREATING and x.kind != HIT):
            return False
        if x.outside or not self.type_targetable(a.t, a.broken, x.t, x.status == RETREATING):
            return False
        if x.broken and a.t.artillery_range > 0 and a.t.theatre == "land":
            return False
        return True

    @staticmethod
    def type_targetable(at: UnitType, a_broken: bool, xt: UnitType, retreating: bool) -> bool:
        """The part of :meth:`targetable` that depends only on the two types, the attacker's
        brokenness and whether the target is retreating."""
        if not at.attack.get(xt.group, 0):
            return False
        a_air = at.theatre == "air"
        x_air = xt.theatre == "air"
        if a_air and x_air and at.backbench and not xt.backbench:
            return False
        if xt.backbench and not retreating:
            if x_air:
                if not (at.aa_range > 0 and not a_air) and not (a_air and (at.backbench or a_broken)):
                    return False
            elif not a_air and not a_broken and at.artillery_range <= 0:
                return False
        return True

    def _type_table(self, a: Individual) -> tuple[tuple[bool, ...], tuple[bool, ...], bool]:
        """:meth:`type_targetable` for ``a`` against each type of the battle (by slot), in the battle
        and retreating, and whether ``a`` spares enemies that broke through (land artillery): all that
        decides whom it may target, besides their state. Worked out once per attacking type, brokenness
        and side, as types do not change (every individual joins before the first round)."""
        key = (a.slot, a.broken, a.side)
        table = self.type_tables.get(key)
        if table is None:
            table = self.type_tables[key] = (
                tuple(self.type_targetable(a.t, a.broken, xt, False) for xt in self.types),
                tuple(self.type_targetable(a.t, a.broken, xt, True) for xt in self.types),
                a.t.artillery_range > 0 and a.t.theatre == "land")
        return table

    def targets_for(self, a: Individual) -> list[Individual]:
        """Every enemy ``a`` may choose as its target now, in its side's order: what :meth:`targetable`
        says, with its type-only part looked up."""
        fighting, retreating, spares_broken = self._type_table(a)
        return [x for x in self.people[1 - a.side]
                if (fighting[x.slot] if x.status == IN else
                    x.status == RETREATING and x.kind != HIT and retreating[x.slot])
                and not x.outside and not (x.broken and spares_broken)]

    def _find_target(self, a: Individual) -> Individual | None:
        self.work += self.search_work[a.side]
        if self.work > self.work_limit:
            raise BattleTooBig(self.round, self.attacks_made)
        kept = self.candidates[a.side]
        key = (a.slot, a.broken)
        candidates = kept.get(key)
        if candidates is None:  # a kind of attacker that targets whom an earlier one does shares its list
            table = self._type_table(a)
            shared = self.target_lists[a.side]
            candidates = shared.get(table)
            if candidates is None:
                candidates = shared[table] = self.targets_for(a)
            kept[key] = candidates
        if not candidates:
            return None
        n = len(candidates)
        rnd = self.random
        best = candidates[floor(rnd() * n)]  # (floor: int() of a draw, never negative, at less cost)
        tries = a.t.tries
        if tries > 1:
            fav = self.favourite_scores[a.slot]  # by the target's type slot
            best_score = fav[best.slot]
            for _ in range(tries - 1):
                x = candidates[floor(rnd() * n)]
                score = fav[x.slot]
                if score > best_score:
                    best, best_score = x, score
        return best

    def out_of_reach(self, x: Individual) -> None:
        """``x`` was just hit: killed, pinned down or retreating under fire, it is nobody's target in these steps.
        Taken out of the targets found so far, which keep their order (the draws pick by position)."""
        for found in self.target_lists[1 - x.side].values():  # the lists of x's enemies, each once
            try:
                found.remove(x)  # (one look over the list, not two: it is usually there)
            except ValueError:
                pass

    def _preventer(self, a: Individual, target: Individual) -> Individual:
        name = target.t.name
        guards = [x for x in self.people[target.side]
                  if x is not target and x.status == IN and name in x.t.prevents and self.targetable(a, x)]
        if not guards:
            return target
        chosen = guards[int(self.random() * len(guards))]
        if self.record:
            self.events.append({"type": "prevent", "round": self.round, "attacker": a.key, "meant": target.key,
                                "target": chosen.key})
        return chosen

    def _may_counter(self, a: Individual, t: Individual) -> bool:
        if not self.counterattacks or t.status != IN or a.outside:
            return False
        at, tt = a.t, t.t
        if at.theatre == "air" and tt.theatre != "air":
            return False
        if a.attacked > at.max_attacked or t.attacked > tt.max_attacked:
            return False
        return self.attack_points[t.slot][a.slot] > 0  # attack_points(self, t, a), on the hot path

    def _structural_damage(self) -> None:
        if not self.deals_structural:
            return
        f = self.f
        for p in self.everyone:
            asp = p.t.anti_structural
            if not asp or p.status != IN or p.outside or (p.side == 1 and p.attacks == 0):
                continue
            dmg = asp * p.readiness / 100.0
            if p.t.theatre == "air" and self.combat != "bombing_run":
                dmg *= f["aircraft_structural"]
            dmg /= 1 + p.attacked
            self.structural[p.side] += dmg

    # After the steps ------------------------------------------------------------------------------------

    def _auto_destroy(self) -> None:
        if not self.auto_destroys:
            return
        for p in self.everyone:
            if p.status == IN and p.t.auto_destroy and (
                    p.attacks_total >= 1 or (p.side == 0 and p.t.anti_structural > 0)):
                p.status = DESTROYED
                self._note({"event": "auto-destroyed", "who": p.key})

    def _out_of_ap(self) -> None:
        f = self.f
        cost = f["round_ap_cost"]
        r = self.round
        if self.combat == "paradrop" and r == self.rules.paradrop_round:
            self._drop()
        mission_over = [self._mission_over(t, r) for t in self.types]  # by type slot
        defenders_pay = self.rules.defenders_pay_ap
        for p in self.everyone:
            if p.status != IN or p.outside:
                continue
            if p.side == 0:
                if mission_over[p.slot]:
                    p.retreat(MISSION, r)
                    continue
            elif not defenders_pay or p.interceptor:
                continue
            if p.ap < cost:
                p.retreat(MISSION, r)
                self._note({"event": "out of action points", "who": p.key})
            else:
                p.ap -= cost

    def _mission_over(self, t: UnitType, r: int) -> bool:
        """Whether the hex's attackers of type ``t`` end their mission in round ``r``."""
        if self.combat == "paradrop":
            return t.transport and r >= self.rules.paradrop_round
        if self.combat in ("air_recon", "airlift", "air_supply", "surprise"):
            return r >= self.rules.mission_round and (self.combat == "surprise" or t.is_air)
        return False

    def _transports_lost(self) -> int:
        return sum(1 for p in self.people[0] if p.t.transport and p.status in LOST)

    def _drop(self) -> None:
        """Paratroopers jump: those of transports shot down die with them, those of transports already
        turned back go home with them (none jump from a plane that has left), the rest land and fight.

        Defenders the aircraft pinned down before the drop never left the hex (nobody may retreat under air
        attack): they take up the fight again against the troops that land (interceptors and guns firing from
        another hex are not in the hex, and stay as they are)."""
        self.dropped = True
        at_start = self.transports_at_start
        share = endings.carried_loss_share(at_start, self._transports_lost())
        turned_back = sum(1 for p in self.people[0] if p.t.transport and p.status in (RETREATING, RETREATED))
        home = turned_back / at_start if at_start else 0.0
        lost = dropped = back = 0
        for p in self.people[0]:
            if p.status == CARRIED:
                draw = self.random() if share or home else 1.0
                if draw < share:
                    p.status = KILLED
                    lost += 1
                elif draw < share + home:
                    p.status = RETREATED
                    back += 1
                else:
                    p.status = IN
                    p.joined = self.round + 1  # landed after this round's steps
                    dropped += 1
        rejoin = 0
        for p in self.people[1]:
            if p.status == PINNED_DOWN and not p.outside and not p.interceptor:
                p.status = IN
                rejoin += 1
        note = {"event": "paratroopers dropped", "dropped": dropped, "lost with transports": lost}
        if back:
            note["carried home by transports that turned back"] = back
        if rejoin:
            note["pinned-down defenders back in the fight"] = rejoin
        self._note(note)

    def _breakthrough(self) -> None:
        self._breakthrough_side(0)
        if self.rules.defender_breakthrough != "none":
            self._breakthrough_side(1, aircraft_only=self.rules.defender_breakthrough == "aircraft")

    def _front_line(self, side: int) -> bool:
        """Whether ``side`` has anyone in the hex fighting in front of its backbench."""
        return any(x.status == IN and not x.outside and not x.t.backbench for x in self.people[side])

    def _breakthrough_side(self, side: int, *, aircraft_only: bool = False) -> None:
        r = self.round
        if side == 0 and self.rules.breakthrough_no_front == "automatic" and not self._front_line(1):
            for p in self.people[0]:  # no front line left: everyone still fighting is through at once
                if p.status == IN and not p.broken and not p.outside:
                    p.broken = True
                    self._note({"event": "breakthrough", "who": p.key, "no front line": True})
            return
        need = self.rules.breakthrough_rounds
        if (aircraft_only or r < need) and not self.aircraft[side]:
            return  # only aircraft may break through now (no one has fought `need` rounds yet), and it has none
        fail = parts.breakthrough_failure(self.stack[side].get("land", 0.0), self.stack_max[side].get("land", 1.0))
        # an overstacked side may fail to break through an enemy front line (nobody to fail against without one)
        front = fail > 0 and self._front_line(1 - side)
        for p in self.people[side]:
            if p.status != IN or p.broken or p.outside:
                continue
            if p.t.theatre == "air":
                if p.attacked == 0:
                    p.broken = True
                    self._note({"event": "breakthrough", "who": p.key})
                continue
            if aircraft_only or r - p.joined + 1 < need:  # rounds it has fought, a paratrooper's from its landing
                continue
            unhit_and_hitting = p.last_hit <= r - need and p.last_success > r - need
            untouched = p.last_targeted <= r - need
            if not (unhit_and_hitting or untouched):
                continue
            if front:
                draw = self.random()
                if draw < fail:
                    self._note({"event": "breakthrough failed (overstacked)", "who": p.key,
                                "chance": round(fail, 6), "draw": round(draw, 6)})
                    continue
            p.broken = True
            self._note({"event": "breakthrough", "who": p.key})

    def _safe_retreat(self) -> None:
        rounds = self.rules.safe_retreat_rounds
        for p in self.everyone:
            if p.status == RETREATING and self.round >= p.retreat_round + rounds:
                p.status = RETREATED

    def retreat_barred(self, side: int) -> bool:
        """No retreat for this side: in a bombardment, or a defender under air attack (a paradrop's
        defenders only until the paratroopers are down, after the steps of the drop round: from then on it
        is a ground fight)."""
        if self.bombardment:
            return True
        if side == 0 or not self.air_mission:
            return False
        return not self.dropped

    def _panic(self) -> None:
        f = self.f
        for side in (0, 1):
            if self.retreat_barred(side):
                continue
            for u in self.units[side]:
                if u.panicked or u.outside or not u.count:
                    continue
                fighting = [p for p in u.members if p.status == IN]
                if not fighting:
                    continue
                remaining = 100.0 * len(fighting) / u.count
                morale = math.fsum([p.morale for p in fighting]) / len(fighting)
                if not parts.panic_possible(remaining, morale, u.can_retreat, f["no_retreat_morale_factor"],
                                            f["panic_complement"] == 1.0):
                    continue
                draw = self.random()
                panics = draw < f["panic_chance"]
                self._note({"event": "panic test", "unit": u.label, "remaining %": round(remaining, 3),
                            "morale": round(morale, 3), "chance": f["panic_chance"], "draw": round(draw, 6),
                            "panics": panics})
                if panics:
                    u.panicked = True
                    for p in u.members:  # the page: all individuals lose morale, not only those fighting
                        if p.status not in LOST:
                            p.morale *= 1.0 - f["panic_morale_loss"]
                    for p in fighting:
                        p.retreat(PANIC, self.round)

    def _orderly_retreat(self) -> None:
        for side in (0, 1):
            if self.retreat_barred(side):
                continue
            for u in self.units[side]:
                # a standing order of 100 % never withdraws: its casualties cannot pass it
                if u.withdrew or u.retreat_order >= 100 or u.outside or not u.can_retreat or not u.count:
                    continue
                fighting = [p for p in u.members if p.status == IN]
                if not fighting:
                    continue
                casualties = 100.0 * sum(1 for p in u.members if p.status in LOST) / u.count
                if casualties > u.retreat_order:
                    u.withdrew = True
                    for p in fighting:
                        p.retreat(ORDERLY, self.round)
                    self._note({"event": "orderly retreat", "unit": u.label, "casualties %": round(casualties, 3),
                                "standing order %": u.retreat_order})

    def _attackers_left(self) -> bool:
        """Whether any attacker is still fighting (a paradrop's still carried count)."""
        if self.combat == "paradrop":
            return any(p.status == IN or p.status == CARRIED for p in self.people[0])
        return _anyone_fighting(self.people[0])

    def _defenders_left(self) -> bool:
        """Whether any defender is still fighting in the hex (anti-aircraft support firing from another hex does
        not count: there is some only in an air mission, see :meth:`_build`)."""
        if not self.air_mission:
            return _anyone_fighting(self.people[1])
        return any(p.status == IN and not p.outside for p in self.people[1])

    def _continues(self) -> bool:
        if self.combat == "bombing_run":
            return True
        if self.bombardment and self.setup.location:
            return True
        return self.combat == "airstrike" and self.rules.airstrike_continues

    def _troops_in_hex(self) -> bool:
        """Whether the attacker has troops in the hex that can take it: aircraft and guns never can. In a land
        battle (or an amphibious, rebel or surprise one) everyone left fighting counts, as the page has it; in
        a paradrop only paratroopers that have landed and are still fighting."""
        if not self.takes_hex:
            return False
        if self.combat != "paradrop":
            return True
        return any(p.cargo and p.status == IN for p in self.people[0])

    def _victory(self) -> str:
        if self.combat == "paradrop" and not self.dropped and any(p.status == CARRIED for p in self.people[0]):
            # the troops are still in their transports: whatever the aircraft do, the fight for the hex is yet
            # to come (defenders they pinned down are still in it, and fight the troops that land)
            return "continuing"
        att, dfd = self._attackers_left(), self._defenders_left()
        if dfd == 0 and att > 0 and self._continues():
            if not self.continued:
                self._note({"event": "no defenders left: the attack goes on until the attackers leave"})
            self.continued = True
            return "continuing"
        e = endings.ending(att, dfd)
        if e == "standoff" and self.continued:
            e = "attacker_won"
        if e == "attacker_won" and not self._troops_in_hex():
            return "silenced"
        return e

    # The log ------------------------------------------------------------------------------------------------

    def _note(self, note: dict[str, Any]) -> None:
        if self.record:
            self._round_notes.append(note)

    def _summary(self) -> dict[str, Any]:
        def side(s: int) -> dict[str, Any]:
            ps = self.people[s]
            return {"fighting": sum(1 for p in ps if p.status == IN),
                    "retreating": sum(1 for p in ps if p.status == RETREATING),
                    "retreated": sum(1 for p in ps if p.status == RETREATED),
                    "lost": sum(1 for p in ps if p.status in LOST),
                    "pinned down": sum(1 for p in ps if p.status == PINNED_DOWN),
                    "carried": sum(1 for p in ps if p.status == CARRIED),
                    "stack": {k: round(v, 6) for k, v in self.stack[s].items()},
                    "stack_max": {k: round(v, 6) for k, v in self.stack_max[s].items()},
                    "overstack": {k: round(v, 6) for k, v in self.stack_factor[s].items()}}
        unlogged, self.unlogged = self.unlogged, 0
        return {"type": "round", "round": self.round, "subrounds": self.subround, "sides": self.sides,
                "attacks_not_listed": unlogged,
                "hqs": self.hqs, "concentric": round(self.concentric, 6), "attacker": side(0),
                "defender": side(1), "notes": self._round_notes, "ending": self.ending}

    # The end ---------------------------------------------------------------------------------------------------

    def outcome(self, merge_units: bool = True) -> Outcome:
        """End-of-battle effects, then the frozen result (without the merged units if not ``merge_units``)."""
        s, f = self.setup, self.f
        damage = self.structural[0]
        location_destroyed = s.location and endings.structure_left(s.location_structure, damage) == 0
        bridge_destroyed = s.bridge and s.river and endings.structure_left(s.bridge_structure, damage) == 0
        hex_taken = self.takes_hex and self.ending == "attacker_won"
        scuttled = self.takes_hex and self.ending in ("attacker_won", "standoff")  # the page: a standoff too
        aircraft_lost = s.stationed_aircraft if s.airfield and (scuttled or location_destroyed) else 0
        ships_lost = s.stationed_ships if s.port and (scuttled or location_destroyed) else 0
        self._mission_experience()
        transports_lost = self._transports_lost()
        share = endings.carried_loss_share(self.transports_at_start, transports_lost)
        supply = s.air_supply * (1 - share) if self.combat == "air_supply" else 0.0
        airlift_lost = 0
        if self.combat == "airlift":
            for p in self.people[0]:
                if p.status == CARRIED:
                    if share and self.random() < share:
                        p.status = KILLED
                        airlift_lost += 1
                    else:
                        p.status = RETREATED
        card = s.card and hex_taken
        retreat = None
        if hex_taken:
            retreat = endings.retreat_side(tuple(sorted({u.side for u in s.attackers})), self.retreat_open)
            if retreat is None and self.rules.trapped_defenders == "lost":
                self._trap_defenders()
        merged = tuple(MergedUnit(side, u.label, u.unit.type, n, merge(alive, u.unit.state.supply))
                       for side in (0, 1) for u in self.units[side]
                       for alive in [[p for p in u.members if p.status not in LOST]] for n in [len(alive)]
                       ) if merge_units else ()
        inter = tuple({"unit": d.interceptor.unit.type, "count": d.interceptor.unit.count, "joins": d.joins,
                       "reason": d.check.reason, "failure": round(d.check.failure, 6),
                       "draw": None if d.draw is None else round(d.draw, 6)} for d in self.decisions)
        return Outcome(self.ending, self.round, self._tally(0), self._tally(1), merged, damage,
                       bool(location_destroyed), bool(bridge_destroyed), aircraft_lost, ships_lost, hex_taken, card, supply,
                       airlift_lost, retreat, inter, tuple(self.events), self.first_attack)

    def _trap_defenders(self) -> None:
        """The hex fell with no side open: its defenders still alive cannot leave and are lost with it."""
        trapped = [p for p in self.people[1] if p.status not in LOST and not p.outside and not p.interceptor]
        for p in trapped:
            p.status = TRAPPED

    def _mission_experience(self) -> None:
        xp = {"bombing_run": self.f["bombing_xp"], "air_recon": self.f["recon_xp"], "paradrop": self.f["transport_xp"],
              "airlift": self.f["transport_xp"], "air_supply": self.f["transport_xp"]}.get(self.combat, 0.0)
        if not xp:
            return
        carriers = self.combat in ("paradrop", "airlift", "air_supply")
        for p in self.people[0]:
            if (p.t.transport if carriers else p.t.is_air) and p.status not in LOST:
                before = p.xp
                p.xp = min(self.f["max_experience"], p.xp + xp)
                p.xp_gained += p.xp - before

    def _tally(self, side: int) -> SideTally:
        start: dict[str, int] = {}
        lost: dict[str, int] = {}
        alive: dict[str, int] = {}
        for u in self.units[side]:  # a unit's members are its side's individuals of its type, in their order
            if not u.members:
                continue
            name = u.members[0].t.name
            n, k = len(u.members), len([p for p in u.members if p.status in LOST])
            start[name] = start.get(name, 0) + n
            lost[name] = lost.get(name, 0) + k
            alive[name] = alive.get(name, 0) + n - k
        ps = self.people[side]  # its units' members, each once
        # (lists made by comprehensions and counted by list methods: faster in both runtimes than Counter and
        # attrgetter over map, most of all in Pyodide)
        statuses = [p.status for p in ps]
        return SideTally(start, lost, alive,
                         retreated=statuses.count(RETREATING) + statuses.count(RETREATED),
                         panics=len([u for u in self.units[side] if u.panicked]),
                         withdrawals=len([u for u in self.units[side] if u.withdrew]),
                         capitulated=statuses.count(CAPITULATED),
                         trapped=statuses.count(TRAPPED),
                         broke_through=len([p for p in ps if p.broken]),
                         experience=math.fsum([p.xp_gained for p in ps]))
