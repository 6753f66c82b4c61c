"""Advanced Tactics Gold pages: meta, widget blocks, and what each teaching battle's prose claims.

The pages pre-render each battle with seed 1 (``build.DEFAULT_SEED``); the
prose around a teaching battle says what it shows, so these tests hold the
seeded battle to those words.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from conftest import page_meta as meta
from conftest import page_widget_blocks as blocks

import build
from engine import widgets
from engine.atg.widgets import WIDGETS

PAGES = sorted((Path(__file__).resolve().parents[1] / "site" / "content" / "atg").glob("*.md"))
OURS = {w.id: w for w in WIDGETS}


def test_pages_exist_with_meta() -> None:
    assert len(PAGES) == 6
    for p in PAGES:
        m = meta(p)
        assert set(m) == {"title", "system", "summary"}, p.name
        assert m["system"] == "Advanced Tactics Gold"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_widget_blocks_and_examples_validate(page: Path) -> None:
    for kind, ident, instance, pairs, examples in blocks(page):
        if kind != "widget":
            continue
        w = OURS[ident]
        base, rejected = w.from_link(pairs)
        assert not rejected, (instance, [str(e) for e in rejected])
        w.run(base)
        for title, ex in examples:
            values, rejected = w.from_link(ex, base)
            assert not rejected, (instance, title, [str(e) for e in rejected])
            assert values != base, (instance, title)


def _battle(instance: str) -> dict[str, Any]:
    for page in PAGES:
        for kind, ident, inst, pairs, _ in blocks(page):
            if inst == instance:
                w = widgets.get(ident)
                base, _rejected = w.from_link(pairs)
                return w.roll(base, build.DEFAULT_SEED)
    raise LookupError(instance)


def _rounds(sample: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [e for e in sample["events"] if e["type"] == "round"]


def _notes(sample: Mapping[str, Any], event: str) -> list[dict[str, Any]]:
    return [n for r in _rounds(sample) for n in r["notes"] if n["event"] == event]


def test_interception_battle() -> None:
    s = _battle("atg-intercept-battle")
    assert [i["joins"] for i in s["interceptions"]] == [True, False]
    assert "not above average readiness" in s["interceptions"][1]["reason"]
    assert any(e["type"] == "attack" and "AA from distance" in str(e["attack_modifiers"]) for e in s["events"])


def test_concentric_battle_loses_a_flank() -> None:
    """What the page's text says of its seeded battle."""
    s = _battle("atg-concentric-battle")
    rounds = _rounds(s)
    assert [r["concentric"] for r in rounds] == [1.5, 1.25] and [r["sides"] for r in rounds] == [3, 2]
    assert (rounds[0]["attacker"]["lost"], rounds[0]["attacker"]["retreating"]) == (11, 16)
    assert rounds[1]["attacker"]["fighting"] == 0 and s["ending"] == "defender_held"


def test_panic_battle_panics() -> None:
    s = _battle("atg-panic-battle")
    tested = [(r["round"], n["unit"], n["remaining %"], n["panics"]) for r in _rounds(s) for n in r["notes"]
              if n["event"] == "panic test"]
    free = [t for t in tested if t[1] == "D1 Infantry"]                  # the unit that can fall back
    trapped = [t for t in tested if t[1] == "D2 Infantry"]
    assert [t[3] for t in free] == [False, False, False, True] and free[0][0] == 2
    assert all(t[2] < 70 for t in free)                                  # lost more than its morale of 30
    assert trapped and trapped[0][0] == 4 and not any(t[3] for t in trapped)
    assert all(t[2] < 40 for t in trapped)                               # more than its doubled morale of 60
    assert s["ending"] == "defender_held" and s["rounds"] == 5 == free[-1][0]


def test_overstacked_battle_recovers() -> None:
    rounds = _rounds(_battle("atg-overstack-battle"))
    over = [r["attacker"]["overstack"]["land"] for r in rounds]
    assert rounds[0]["attacker"]["fighting"] == 33 and over[1] == pytest.approx((100 / 132) ** 2, abs=1e-6)
    assert over[0] == pytest.approx((100 / 160) ** 2) and over[2] == 1


def test_breakthrough_battle_reaches_the_guns() -> None:
    s = _battle("atg-breakthrough-battle")
    assert _notes(s, "breakthrough")
    assert any(e["type"] == "attack" and not e["counter"] and "Artillery" in e["target"] for e in s["events"])


def test_airfield_battle_destroys_the_field_and_its_aircraft() -> None:
    s = _battle("atg-airfield-battle")
    assert s["ending"] == "silenced" and s["rounds"] == 7                # 60 AP: six paid rounds after the first
    assert not s["end"]["hex_taken"]
    assert s["end"]["structural_damage"] > 200 and s["end"]["location_destroyed"] and s["end"]["aircraft_lost"] == 5


def test_page_02_says_a_unit_at_full_readiness_never_intercepts() -> None:
    """The standing order must be above the average readiness and both top out at 100: the page says what
    that means, and the engine does it."""
    from engine.atg.interception import check
    from engine.atg.rules import Rules
    from engine.atg.setup import Interceptor, Unit, UnitState
    from engine.atg.units import ROSTER
    full = Interceptor(Unit("Fighter", 2, UnitState(readiness=100)), intercept_setting=100, distance=0)
    assert not check(full, ROSTER["Fighter"], Rules()).may
    assert widgets.get("atg.battle").inputs.field("interceptors").item.field("intercept_setting").maximum == 100
    text = " ".join((PAGES[1]).read_text(encoding="utf-8").split())
    assert PAGES[1].name == "02-interception.md" and "a unit at full readiness never intercepts" in text


def _text(name: str) -> str:
    return " ".join(next(p for p in PAGES if p.name.startswith(name)).read_text(encoding="utf-8").split())


def test_page_06_gives_mission_experience_to_the_transports_alone() -> None:
    """A paradrop into an empty hex: its two transports earn mission experience (setting ``transport_xp``, 5
    each by default), the bombers flying with them none; page 06 says so."""
    import random
    from engine.atg.loop import fight
    from engine.atg.rules import Rules
    from engine.atg.setup import Setup, Unit
    o = fight(Setup((Unit("Transport", 2), Unit("Infantry", 4, cargo=True), Unit("Bomber", 2)), (),
                    combat="paradrop"), Rules(), random.Random(1), record=True)
    assert o.attacker.experience == 2 * Rules().transport_xp
    assert "the transports that carried paratroopers, an airlift or air supply, gain experience" in _text("06")


def test_page_03_s_panic_morale_loss_is_rulevar_172_s_default() -> None:
    from engine.atg.rules import Rules
    assert Rules().panic_morale_loss == Fraction(1, 2)
    assert "lose rulevar 172's share of their morale at once (half by default: the page gives no value)" in \
        _text("03")


def test_page_05_marks_its_two_readings_of_the_page_s_wording() -> None:
    """Readiness lost per attack (the page's stray "not") and rulevar 109's "being dropped": each an assumed box,
    and the engine does what the box says (the paratroopers are attacked with 109 only once they are down)."""
    import random
    from engine.atg.loop import fight
    from engine.atg.rules import Rules
    from engine.atg.setup import Setup, Unit
    text = _text("05")
    assert '!!! assumed "Readiness lost by attacking"' in text and '!!! assumed "Troops being dropped or landing"' in text
    para = Setup((Unit("Transport", 1), Unit("Infantry", 3, cargo=True)), (Unit("Machine guns", 3),), combat="paradrop")
    o = fight(para, Rules(panic_chance=Fraction(0)), random.Random(35), record=True)
    on_para = [e for e in o.events if e["type"] == "attack" and e["attacker_side"] == 1 and "Infantry" in e["target"]]
    assert on_para and all(e["round"] > Rules().paradrop_round for e in on_para)
    assert all({"name": "versus paradrop", "factor": 3.0} in e["attack_modifiers"] for e in on_para if not e["counter"])


def test_page_05_names_the_roster_s_types_spared_the_start_up_rule() -> None:
    """Page 05's box says which of the illustrative roster's types take the start-up penalty and which are spared
    it (our choice: the page names none); the roster's shares say the same."""
    from engine.atg.units import ROSTER_ORDER
    text = _text("05")
    assert '!!! assumed "Who is spared the start-up rule"' in text
    assert "infantry, machine guns and anti-tank guns take all of it, tanks half" in text
    assert "their share is 0 and the rule leaves their attacks alone" in text
    assert {t.name: t.startup_penalty for t in ROSTER_ORDER} == {
        "Infantry": 1, "Machine guns": 1, "Anti-tank gun": 1, "Tank": Fraction(1, 2), "Artillery": 0, "Flak": 0,
        "Fighter": 0, "Bomber": 0, "Transport": 0, "Ship": 0}
