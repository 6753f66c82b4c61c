"""The card game's battle page in Chromium, Firefox and WebKit.

A seeded battle is told round by round, one ``<details>`` a round, and a
round opens on a click; a shared link carrying twelve units a side, leaders,
cards and changed settings opens to the same form and to CPython's result,
battle and estimate. (Every widget of the card game's pages also answers an
input change with CPython's HTML in all three browsers: test_browser.py and
test_browsers.py walk every widget page.) Expected HTML is the engine's own,
computed here in CPython for the state under test.
"""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import quote

import pytest
from battle_page import SET, VALUES, BattlePage
from test_browsers import base_inputs, browsers, driver, drivers, open_live, shows  # noqa: F401 (fixtures)

from engine import schema
from engine.sgs.widgets import SETTINGS

pytestmark = pytest.mark.browser

P = BattlePage("sgs/panic-rout-and-pursuit.html", "sgs-battle", "sgs.battle", trials=200)
PAGE, INSTANCE, TRIALS, W, SIM, ROLL = P.page, P.instance, P.trials, P.widget, P.sim, P.roll
control, open_short, shows_cpython = P.control, P.open_short, P.shows_cpython


@browsers("chromium", "firefox", "webkit")
def test_a_seeded_battle_is_told_round_by_round(driver, site_url):
    base = open_short(driver, site_url)
    seed = 4  # six rounds in the page's battle
    sample = W.roll(base, seed)
    assert len(sample["events"]) >= 6
    driver.call(SET, f"{INSTANCE}--seed", str(seed))
    shows(driver, ROLL, W.render_sample(sample), f"the battle of seed {seed}")
    rounds = driver.call("(s) => document.querySelectorAll(s + ' details.battle-round').length", ROLL)
    assert rounds == len(sample["events"])
    # issue 20: the rounds that decided the battle open by default, and each title says what happened
    last_open = driver.call("(s) => { const all = document.querySelectorAll(s + ' details.battle-round');"
                            " return all[all.length - 1].open; }", ROLL)
    assert last_open is True
    opened = driver.call("""(s) => { const d = document.querySelector(s + ' details.battle-round');
        const before = d.open, height = d.getBoundingClientRect().height;
        d.querySelector('summary').click();
        return [before, d.open, d.getBoundingClientRect().height > height, d.querySelector('summary').textContent]; }""",
                         ROLL)
    assert opened[:3] == [False, True, True], opened
    assert opened[3].startswith("1. ") and " hit" in opened[3], opened
    outcome = driver.call("(s) => document.querySelector(s + ' p.outcome').textContent", ROLL)
    assert outcome.startswith(f"The {sample['winner']} wins after {sample['rounds']} round(s)"), outcome
    # A screen reader is told the new battle by its figures, not its whole log (the roll was a live region: every
    # line of every round was read out on each change of the form).
    said = driver.call("(s) => [document.querySelector(s + ' .roll-result').hasAttribute('aria-live'),"
                       " document.querySelector(s + ' .roll-announce').textContent]", f"#{INSTANCE}")
    assert said == [False, outcome], said
    assert driver.errors() == []


def shared_state(page_base: dict[str, Any]) -> dict[str, Any]:
    """Twelve unit rows a side with every kind of unit, leaders, boosters, a card, and eight changed settings."""
    rnd = random.Random(15)
    kinds = [{}, {"artillery": True}, {"air": True}, {"recon": True}, {"mines": True, "role": "support"},
             {"cav": True, "armour": True, "pursuit": True}, {"elite": True}, {"priority": "first"}]

    def units(side: int) -> list[dict[str, Any]]:
        return [{"count": rnd.randint(1, 2), "strength": rnd.randint(2, 8), "combat": rnd.randint(2, 6),
                 "reduced": rnd.randint(1, 3), "morale": rnd.randint(1, 6), "rof": rnd.randint(1, 2),
                 **kinds[(k + side) % len(kinds)]} for k in range(12)]
    settings: dict[str, Any] = {}
    for f in SETTINGS.fields:
        if len(settings) == 8:
            break
        current = page_base["settings"][f.name]
        if isinstance(f, schema.Boolean):
            settings[f.name] = not current
        elif isinstance(f, schema.Choice):
            settings[f.name] = next(c for c in f.choices if c != current)
        elif isinstance(f, schema.Integer):
            settings[f.name] = current + 1 if f.maximum is None or current < f.maximum else current - 1
    attacker = {**page_base["attacker"], "units": units(0), "leader_morale": 2, "leader_combat": 3, "card": 1}
    defender = {**page_base["defender"], "units": units(1), "booster_morale": 1, "scenario_morale": -1}
    values = W.validate({**page_base, "attacker": attacker, "defender": defender,
                         "settings": {**page_base["settings"], **settings}, "terrain_defence": 2, "crossing": 1})
    assert sum(values["settings"][k] != page_base["settings"][k] for k in settings) == 8
    return values


@browsers("chromium", "firefox", "webkit")
def test_a_shared_battle_of_twelve_units_a_side_round_trips(driver, site_url):
    open_live(driver, site_url + PAGE)
    page_base = W.validate(base_inputs(driver, INSTANCE))
    values = shared_state(page_base)
    state = W.state_text(values, page_base)
    assert len(state) < 2000, len(state)
    assert W.from_link({"": state}, page_base) == (values, [])
    open_short(driver, site_url, f"{INSTANCE}={quote(state, safe='')}&{INSTANCE}.seed=3&")
    for path in P.parts(driver):  # the unit tables and the settings: parts of the page (build.PART_OVER)
        P.open_part(driver, path)
    paths: list[tuple[str, Any]] = []
    for side in ("attacker", "defender"):
        for k, row in enumerate(values[side]["units"]):
            paths += [(f"{side}.units.{k}.{name}", v) for name, v in row.items()]
        paths += [(f"{side}.{name}", v) for name, v in values[side].items() if name != "units"]
    paths += [(f"settings.{name}", v) for name, v in values["settings"].items()]
    paths += [(name, values[name]) for name in ("terrain_defence", "crossing", "first_shot")]
    shown = driver.call(VALUES, [control(p) for p in (p for p, _ in paths)])
    expected = [v if isinstance(v, bool) else schema.to_text(v) for _, v in paths]
    wrong = [(p, s, e) for (p, _), s, e in zip(paths, shown, expected) if s != e]
    assert not wrong, wrong[:10]
    shows_cpython(driver, values, 3, "the shared battle")
    assert driver.errors() == []


@browsers("chromium", "firefox", "webkit")
def test_a_new_unit_row_fires_at_its_combat_value_until_given_a_reduced_one(driver, site_url):
    """A unit added in the editor leaves Reduced empty, so it fires at whatever combat value the reader gives it;
    a Reduced above that value is named above the figures, not refused."""
    base = open_short(driver, site_url)
    if "defender.units" in P.parts(driver):
        P.open_part(driver, "defender.units")
    n = len(base["defender"]["units"])
    driver.call("(s) => document.querySelector(s).click()", f"#{control('defender.units')} > .add-item")
    row = f"defender.units.{n}"
    assert driver.call(VALUES, [control(f"{row}.combat"), control(f"{row}.reduced")]) == ["4", ""]
    driver.call(SET, control(f"{row}.combat"), "2")
    new = {**W.inputs.field("defender").field("units").item.validate(None), "combat": 2}
    values = W.validate({**base, "defender": {**base["defender"], "units": [*base["defender"]["units"], new]}})
    shows(driver, f"#{INSTANCE} .widget-result", W.render(W.run(values)), "a new row of combat 2")
    driver.call(SET, control(f"{row}.reduced"), "3")
    values["defender"]["units"][n]["reduced"] = 3
    html = W.render(W.run(values))
    assert f"Defender row {n + 1} (infantry): its reduced value 3 is above its combat value 2" in html
    shows(driver, f"#{INSTANCE} .widget-result", html, "a new row reduced above its combat value")
    assert driver.errors() == []
