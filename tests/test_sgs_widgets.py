"""The card-driven game's widgets: each runs, renders, round-trips a link and agrees with the rules modules."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from engine import api, widgets
from engine.sgs.widgets import BATTLE, INTERCEPTION, LOSSES, MORALE, PANIC_ROUT, RETREAT, ROUND_ODDS

ALL = (MORALE, ROUND_ODDS, LOSSES, PANIC_ROUT, INTERCEPTION, BATTLE, RETREAT)


@pytest.mark.parametrize("w", ALL, ids=lambda w: w.id)
def test_registered_runs_and_renders(w: widgets.Widget) -> None:
    assert widgets.get(w.id) is w
    result = w.run({})
    json.dumps(result)
    html = w.render(result)
    assert html and "<script" not in html


@pytest.mark.parametrize("w", ALL, ids=lambda w: w.id)
def test_settings_marked_assumed_are_reported(w: widgets.Widget) -> None:
    fields = {path for path, _ in w.inputs.assumed_fields()}
    result = w.run({})
    reported = {a["setting"] for a in result.get("assumptions", [])}
    assert reported <= fields


def test_morale_widget_terms() -> None:
    r = MORALE.run({"leader": 1, "units": [{"morale": 2}, {"morale": 3}], "air": True, "armour": 2,
                    "enemy_armour": 1, "booster": 1, "scenario": 1, "lost_units": 2, "next_rounds": 1,
                    "heavy_rounds": 1})
    # 1 + round(5/2) = 3 + air 1 + armour 1 + superiority 1 + 1 + 1 - 4 = 5
    assert r["morale"]["total"] == 5 and r["mean_exact"] == "5/2"
    # -5 + round(10/3) = 3 + armour 1 = -1: demoralised; the assumed test routs on 4 to 9 (hold 4 - 1 = 3)
    low = MORALE.run({"leader": -5})
    assert low["morale"]["total"] == -1 and low["demoralised"] and low["rout"]["p"] == "3/5"


def test_round_odds_widget_exact() -> None:
    r = ROUND_ODDS.run({"shooters": [{"value": 4, "rof": 1, "elite": True, "count": 1}], "modifier": 0})
    assert {d["result"]: d["p"] for d in r["distribution"]} == {"0 hits": "1/4", "1 hits": "3/4"}
    r = ROUND_ODDS.run({"shooters": [{"value": 4, "rof": 1, "elite": False, "count": 1}], "modifier": -2,
                        "settings": {"die": "1-10"}})
    assert r["mean"]["value"] == "1/5"


def test_loss_widget_matches_allocate() -> None:
    r = LOSSES.run({"cav_hits": 0, "other_hits": 5,
                    "targets": [{"strength": 2, "cav": True}, {"strength": 2, "cav": True}]})
    assert r["allocation"] == {"hits": [1, 1], "wasted": 3}


def test_panic_rout_widget() -> None:
    r = PANIC_ROUT.run({"morale": 3, "strength": 4, "hits": 2, "battle_morale": -2})
    assert r["panic"]["p"] == "3/10" and r["rout"]["p"] == "7/10"
    assert PANIC_ROUT.run({"hits": 1})["panic"]["p"] == "0"


def test_interception_widget() -> None:
    r = INTERCEPTION.run({"radar": True, "destination": True})
    assert r["interception"]["p"] == "4/5"
    assert Fraction(r["combat"]["attacker"]["p"]) + Fraction(r["combat"]["defender"]["p"]) == 1


def test_battle_sample_replays_and_narrates() -> None:
    a, b = BATTLE.roll({}, 11), BATTLE.roll({}, 11)
    assert a == b
    html = BATTLE.render_sample(a)
    assert html.count("<details") == len(a["events"]) and "wins after" in html


def test_battle_link_round_trip() -> None:
    values = BATTLE.validate({"terrain_defence": 2, "settings": {"die": "1-10"},
                              "attacker": {"leader_morale": 4}})
    link = BATTLE.link_state(values, BATTLE.validate({}))
    assert link == {"terrain_defence": "2", "settings.die": "1-10", "attacker.leader_morale": "4"}
    back, errors = BATTLE.from_link(link)
    assert not errors and back == values


def test_api_runs_the_widgets() -> None:
    out = json.loads(api.handle(json.dumps({"id": 1, "op": "run", "widget": "sgs.panic_rout", "inputs": {}})))
    assert "result" in out, out


def test_retreat_widget_draws_the_map_and_exact_ties() -> None:
    r = RETREAT.run({"north": {"supply": 1}, "units": 1})
    assert sorted((p["destinations"][0], p["p"]) for p in r["plans"]) == [("East", "1/2"), ("North", "1/2")]
    assert "<svg" in RETREAT.render(r)


def test_retreat_widget_shows_who_breaks_through() -> None:
    r = RETREAT.run({"able": 2, "leader": True, "leader_may": True})
    assert r["party"]["units"] == ["unit 1", "unit 2"] and r["party"]["leader"] == "the leader"
    assert "with the leader" in RETREAT.render(r)
    alone = RETREAT.run({"able": 3, "leave": 1, "leader_may": False})
    assert alone["party"]["units"] == ["unit 1", "unit 2"] and alone["party"]["leader"] is None
    assert "the units move alone" in RETREAT.render(alone)


def test_interception_widget_gives_whole_flight_odds() -> None:
    r = INTERCEPTION.run({"radar": True, "route_here": 1, "route_next": 1, "dest_here": False, "dest_next": 1})
    assert [f["p"] for f in r["flight"]] == ["7/10", "6/25", "27/500"]
    assert r["flight_clear"]["p"] == "3/500" and r["flight_caught"]["p"] == "497/500"
    assert "Gets through with no interception" in INTERCEPTION.render(r)


def test_battle_form_takes_every_card_effect() -> None:
    from engine.sgs.widgets import setup_from
    values = BATTLE.validate({"first_shot": "defender", "first_shot_rounds": "main and next",
                              "defender": {"cancel_first": True}, "attacker": {"card": 2, "card_rounds": "artillery",
                                                                               "card_morale": 1}})
    s = setup_from(values)
    assert s.first_shot == "defender" and s.first_shot_rounds == ("main", "next")
    assert s.defender.cancel_first and not s.attacker.cancel_first
    assert (s.attacker.card, s.attacker.card_rounds, s.attacker.card_morale) == (2, ("artillery",), 1)
    r = BATTLE.run(values)
    plain = BATTLE.run(BATTLE.validate({}))
    assert r["sides"]["attacker"]["morale"]["total"] == plain["sides"]["attacker"]["morale"]["total"] + 1
    m = MORALE.run({"card": -2})
    assert m["morale"]["card"] == -2 and m["morale"]["total"] == MORALE.run({})["morale"]["total"] - 2


def test_monte_carlo_endings_name_the_side_they_ended_for() -> None:
    """Issue 19: a defender that retreats (or is sent back by a card) is not 'the attacker retreated'."""
    w = widgets.get("sgs.battle")
    card = w.estimate(w.validate({"retreat_card": "defender"}), 1, 0, 20)
    assert card.counts["ending"] == {"defender card": 20} and card.counts["winner"] == {"attacker": 20}
    html = w.render_tally(card, w.validate({"retreat_card": "defender"}))
    assert "A card sent the defender back" in html and "Ended by a card" not in html
    leaving = w.validate({"defender": {"retreat_at": 20}})
    t = w.estimate(leaving, 1, 0, 30)
    assert set(t.counts["ending"]) <= {"defender retreated", "defender routed", "defender eliminated",
                                       "attacker routed", "attacker eliminated"}
    assert t.counts["ending"].get("defender retreated", 0) > 0


def test_the_rout_test_is_marked_ours_beside_the_win_chance() -> None:
    w = widgets.get("sgs.battle")
    v = w.validate({})
    html = w.render_tally(w.estimate(v, 1, 0, 5), v)
    note = html[html.index("Who won"):html.index("How the battles ended")]
    assert "The rout test is ours" in note and "more than 4 plus its battle morale" in note
    certain = w.validate({"settings": {"rout_test": "certain"}})
    assert "always routs" in w.render_tally(w.estimate(certain, 1, 0, 5), certain)


def test_the_battle_log_names_units_and_titles_rounds_by_what_happened() -> None:
    """Issue 20: 'unit 7 1 (left 1)' said nothing; a round's title now tells its story, units have names,
    a side with no shooter is not said to score 0 hits, and the deciding rounds are open."""
    w = widgets.get("sgs.battle")
    s = w.roll(w.validate({}), 4)
    html = w.render_sample(s)
    assert "unit 1" not in html and "panzer division (row" in html and "strength left)" in html
    assert "The defender has no unit that fires in this round." in html and "fires (modifiers: none) and scores 0" not in html
    titles = [t for t in html.split("<summary>")[1:]]
    assert any(" hits" in t.split("</summary>")[0] for t in titles)
    assert html.count("<details") > html.count('<details class="battle-round" open') >= 1


def test_round_odds_and_the_runs_check_follow_which_misses_an_elite_rolls_again() -> None:
    """Setting elite_reroll: the "Hits in one round" calculator and the battle run's exact check of its opening
    volley read it as the battle does."""
    from engine.sgs.rules import SgsRules
    from engine.sgs.widgets import opening_check, setup_from
    shooters = [{"value": 4, "rof": 2, "elite": True, "count": 1}]
    every = ROUND_ODDS.run({"shooters": shooters, "modifier": 0})
    first = ROUND_ODDS.run({"shooters": shooters, "modifier": 0, "settings": {"elite_reroll": "first shot"}})
    # every miss: 3/4 a shot; first shot only: 3/4 then 1/2
    assert {d["result"]: d["p"] for d in every["distribution"]} == {"0 hits": "1/16", "1 hits": "3/8", "2 hits": "9/16"}
    assert {d["result"]: d["p"] for d in first["distribution"]} == {"0 hits": "1/8", "1 hits": "1/2", "2 hits": "3/8"}
    assert any(a["setting"] == "settings.elite_reroll" for a in first["assumptions"])
    # an opening volley of elites: the run's check takes the setting's odds
    guards = {"attacker": {"units": [{"count": 3, "strength": 6, "combat": 4, "rof": 2, "elite": True}]},
              "defender": {"units": [{"count": 3, "strength": 6, "combat": 4, "rof": 2}]},
              "terrain_defence": 0, "crossing": 0, "entrenched": False}
    checks = {}
    for reading in ("every miss", "first shot"):
        values = BATTLE.validate({**guards, "settings": {"elite_reroll": reading}})
        checks[reading] = opening_check(setup_from(values), SgsRules(elite_reroll=reading))
    # the main round's six shots at value 4 + 1 (the better leader): each hits 21/25 after a miss's second roll,
    # or the first shot of each pair 21/25 and the second 3/5
    assert checks["every miss"].exact != checks["first shot"].exact
    from engine.sgs.shots import Shooter, hits_distribution
    for reading, check in checks.items():
        dist = hits_distribution([Shooter(5, 2, elite=True)] * 3, SgsRules(elite_reroll=reading))
        assert check.round == "main" and check.exact == dist.at_least(check.hits)


def test_both_sides_leaving_after_recon_is_a_defenders_win_in_the_run() -> None:
    """No battle is won by nobody: when both withdraw after recon the defender wins, and the endings table still
    says both withdrew."""
    w = widgets.get("sgs.battle")
    values = w.validate({"attacker": {"retreat_after_recon": True}, "defender": {"retreat_after_recon": True}})
    t = w.estimate(values, 1, 0, 40)
    assert set(t.counts["winner"]) == {"defender"} and t.counts["ending"].get("both retreated", 0) > 30
    html = w.render_tally(t, values)
    assert "Both sides withdrew after recon (the defender holds)" in html and "Nobody" not in html


# A unit row's Reduced (session 23) ----------------------------------------------------------------------------

UNIT_ROW = BATTLE.inputs.field("attacker").field("units").item

OLD_LINKS = {
    # written before Reduced could be left empty, when a new row's was 3: rows 13 and 14 added to the page's
    # attacker (combat 6 and 1, Reduced left at 3), in the form over the page's rows ...
    "~1.zeNqrVkosKUlMzk4tUrKqVirNyywpBjGSlKyio5XyEnNTlXSUkvNzkxJLlGJ1DHDAaKX8nBSFovxyJR2zWCCvPDUxG8I1jI2tra0FAArOHbg":
        [("old row", 6, 3), ("weak row", 1, 3)],
    # ... and one row of combat 5 in place of the attacker's twelve, in the form over the item's defaults
    "~1.jeyJhdHRhY2tlciI6eyJ1bml0cyI6W1sibmFtZSIsImNvbWJhdCJdLFsibG9uZSIsNV1dfX0": [("lone", 5, 3)],
}


def test_a_new_unit_row_leaves_reduced_empty_and_fires_at_its_combat_value() -> None:
    from engine.sgs.widgets import setup_from
    new = UNIT_ROW.validate(None)  # what the form's "Add unit" copies (templates/partials/form.html)
    assert new["reduced"] == "" and new["combat"] == 4
    base = BATTLE.validate({})
    values = BATTLE.validate({"attacker": {**base["attacker"], "units": [{**new, "name": "new", "combat": 2}]}})
    unit = setup_from(values).attacker.units[0]
    assert unit.reduced is None and unit.value(1, True) == unit.value(4, True) == 2
    # empty fights as a Reduced equal to the row's combat value, seed for seed
    same = BATTLE.validate({"attacker": {**base["attacker"], "units": [{**new, "name": "new", "combat": 2,
                                                                       "reduced": 2}]}})
    assert BATTLE.roll(values, 5)["events"] == BATTLE.roll(same, 5)["events"]
    assert "notes" not in BATTLE.result(values)


@pytest.mark.parametrize("state", OLD_LINKS)
def test_links_and_inputs_written_before_read_the_same_units(state: str) -> None:
    values, errors = BATTLE.from_link({"": state})
    assert errors == []
    rows = values["attacker"]["units"][-len(OLD_LINKS[state]):]
    assert [(u["name"], u["combat"], u["reduced"]) for u in rows] == OLD_LINKS[state]
    # a row given without Reduced (the command line, a page) still reads 3, and the page's rows are as they were
    assert BATTLE.validate({"attacker": {"units": [{"combat": 6}]}})["attacker"]["units"][0]["reduced"] == 3
    assert [u["reduced"] for u in BATTLE.validate({})["attacker"]["units"]] == [3, 3, 3, 3, 4, 4, 4, 3, 3, 4, 5, 4]


def test_an_empty_reduced_survives_both_kinds_of_link() -> None:
    base = BATTLE.validate({})
    units = base["defender"]["units"] + [{**UNIT_ROW.validate(None), "combat": 2}]
    values = BATTLE.validate({"defender": {**base["defender"], "units": units}})
    assert values["defender"]["units"][-1]["reduced"] == ""
    assert BATTLE.from_link({"": BATTLE.state_text(values, base)}) == (values, [])
    assert BATTLE.from_link(BATTLE.link_state(values, base)) == (values, [])


def test_a_unit_stronger_when_reduced_is_named_not_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """The source: a unit's value is usually lower once half its strength is gone. Higher is unusual, not
    impossible: the battle runs and the row is named above its figures."""
    from engine.__main__ import main
    base = BATTLE.validate({})
    units = [dict(u) for u in base["defender"]["units"]]
    units[5] = {**units[5], "combat": 2}  # the tank brigade: Reduced 3
    values = BATTLE.validate({"defender": {**base["defender"], "units": units}})
    result = BATTLE.result(values)
    assert result["notes"] == [
        "Defender row 6 (tank brigade): its reduced value 3 is above its combat value 2, so it fires better once "
        "it has lost half its strength or more. The source has a unit's value usually lower by then; leave "
        "Reduced empty to keep the combat value throughout."]
    assert BATTLE.render(result).startswith('<p class="note unit-note">Defender row 6 (tank brigade): its reduced')
    assert BATTLE.roll(values, 3)["winner"] and BATTLE.estimate(values, 1, 0, 5).trials == 5
    # where the reduced value never counts, no note
    assert "notes" not in BATTLE.run({**values, "settings": {**values["settings"], "reduced_at_half": False}})
    units[5] = {**units[5], "strength": 1}
    assert "notes" not in BATTLE.run({"defender": {**base["defender"], "units": units}})
    assert "notes" not in BATTLE.run({}) and "unit-note" not in BATTLE.render(BATTLE.run({}))
    # the command line gives the note with the figures
    hq = json.dumps({"attacker": {"units": [{"name": "HQ", "combat": 2}]}})
    assert main(["run", "sgs.battle", "--inputs", hq]) == 0
    assert json.loads(capsys.readouterr().out)["notes"][0].startswith("Attacker row 1 (HQ): its reduced value 3 is")
