"""The Advanced Tactics Gold battle page in Chromium, Firefox and WebKit.

The page holds the unit types, the sides and the rule variables as parts
(build.PART_OVER): the engine agrees with CPython before any is opened, an
opened one shows its table, and a refused field in one not opened opens it.
The unit-type editor drives the live estimate and the seeded battle; a roll
shows the battle round by round; the settings panel counts and resets; and a
shared link carrying an edited unit type, twelve units a side and changed
settings opens to the same form and CPython's figures. Every expected HTML
is the engine's own, computed here in CPython for the state under test.
"""

from __future__ import annotations

import random
from typing import Any
from urllib.parse import quote

import pytest
from battle_page import SET, VALUES, BattlePage
from conftest import estimate_html
from test_browsers import base_inputs, browsers, driver, drivers, open_live, shows  # noqa: F401 (fixtures)

from engine import schema, settings
from engine.atg.widgets import RULES_GROUP

pytestmark = pytest.mark.browser

P = BattlePage("atg/individuals-and-combat-types.html", "atg-types-battle", "atg.battle", trials=60)
PAGE, INSTANCE, TRIALS, W, SIM, ROLL = P.page, P.instance, P.trials, P.widget, P.sim, P.roll
control, open_short, shows_cpython = P.control, P.open_short, P.shows_cpython


def type_row(values: dict[str, Any], name: str) -> int:
    return [r["name"] for r in values["unit_types"]].index(name)


@browsers("chromium", "firefox", "webkit")
def test_editing_a_unit_type_changes_the_battle_to_cpythons(driver, site_url):
    base = open_short(driver, site_url)
    # Live and CPython's with the heavy parts of the form never opened: the page holds placeholders only.
    assert {"unit_types", "attackers", "defenders", "rules"} <= set(P.parts(driver))
    assert driver.call("(id) => document.getElementById(id)", control("unit_types.0.name")) is None
    shows_cpython(driver, base, 1, "the page's own battle, no part opened")
    P.open_part(driver, "unit_types")
    table = driver.call("""(id) => { const t = document.getElementById(id);
        return [t.getBoundingClientRect().height > 0, t.querySelectorAll('tbody > tr').length]; }""", control("unit_types"))
    assert table == [True, len(base["unit_types"])]
    i = type_row(base, "Anti-tank gun")
    edited = {**base, "unit_types": [dict(r) for r in base["unit_types"]]}
    edited["unit_types"][i]["attack_hard"] = 90
    edited = W.validate(edited)
    before, after = estimate_html(W.id, base, 1, TRIALS), estimate_html(W.id, edited, 1, TRIALS)
    assert before != after and W.roll(base, 1) != W.roll(edited, 1)  # the edit matters to this battle
    driver.call(SET, control(f"unit_types.{i}.attack_hard"), "90")
    shows_cpython(driver, edited, 1, "after the anti-tank gun's hard attack went to 90")
    # A unit naming a type the list no longer holds is refused on its own cell, naming the row; the
    # defenders' part, not opened, opens for it.
    assert base["defenders"][1]["type"] == "Anti-tank gun" and "defenders" in P.parts(driver)
    driver.call(SET, control(f"unit_types.{i}.name"), "Pak 40")
    error = driver.wait("(id) => { const e = document.getElementById(id + '-error'); return e && !e.hidden && e.textContent; }",
                        control("defenders.1.type"), timeout=15)
    assert error.startswith("defender row 2: ") and "Anti-tank gun" in error, error  # beside the cell: no path
    top = driver.call("(s) => document.querySelector(s + ' .widget-messages').textContent", f"#{INSTANCE}")
    assert top == f"Not computed: Defenders, row 2, Type: {error}. The results below are for the last inputs that worked.", top
    assert "defenders" not in P.parts(driver)
    assert driver.errors() == []


@browsers("chromium", "firefox", "webkit")
def test_a_seeded_battle_is_told_round_by_round(driver, site_url):
    base = open_short(driver, site_url)
    seed = 5  # a three-round battle here (issue 19's rules moved seed 12's three-round standoff)
    sample = W.roll(base, seed)
    assert sample["rounds"] == 3
    driver.call(SET, f"{INSTANCE}--seed", str(seed))
    shows(driver, ROLL, W.render_sample(sample), f"the battle of seed {seed}")
    rounds = driver.call("(s) => [...document.querySelectorAll(s + ' details.atg-round')].map(d => d.open)", ROLL)
    assert rounds == [True, False, False]
    summary = driver.call("""(s) => { const d = document.querySelectorAll(s + ' details.atg-round')[2];
        const before = d.getBoundingClientRect().height; d.querySelector('summary').click();
        return [d.open, d.getBoundingClientRect().height > before, d.querySelector('summary').textContent]; }""", ROLL)
    assert summary[0] is True and summary[1] is True and summary[2].startswith("Round 3"), summary
    # A screen reader is told the new battle by its figures, not its whole log (the roll was a live region: every
    # line of every round was read out on each change of the form).
    said = driver.call("(s) => [document.querySelector(s + ' .roll-result').hasAttribute('aria-live'),"
                       " document.querySelector(s + ' .roll-announce').textContent]", f"#{INSTANCE}")
    assert said[0] is False and said[1].startswith("Ending: ") and "Rounds: 3." in said[1] and len(said[1]) < 400, said
    assert driver.errors() == []


@browsers("chromium", "firefox", "webkit")
def test_a_changed_rule_variable_is_counted_and_its_section_reset(driver, site_url):
    base = open_short(driver, site_url)
    panel = f"#{INSTANCE} details.settings"
    section, first, second = next((name or "Other settings", *ints[:2]) for name, fields in settings.sections(RULES_GROUP)
                                  for ints in [[f for f in fields if isinstance(f, schema.Integer) and f.assumed]]
                                  if len(ints) >= 2)  # assumed settings: the result lists them when changed
    P.open_part(driver, "rules")
    assert driver.call("(s) => document.querySelector(s).open", panel) is True
    new = {first.name: _other(first, base["rules"][first.name]), second.name: _other(second, base["rules"][second.name])}
    driver.call(SET, control(f"rules.{first.name}"), str(new[first.name]))
    driver.call(SET, control(f"rules.{second.name}"), str(new[second.name]))
    changed = W.validate({**base, "rules": {**base["rules"], **new}})
    shows(driver, f"#{INSTANCE} .widget-result", W.render(W.run(changed)), "after two settings changed")
    driver.wait("(s) => document.querySelector(s + ' .settings-changed').textContent === '(2 changed)'", panel, timeout=15)
    legend = driver.call("(id) => { const s = document.getElementById(id).closest('.settings-section');"
                         " s.querySelector('.reset-section').click(); return s.querySelector('legend').textContent; }",
                         control(f"rules.{first.name}"))
    assert legend == section
    shows(driver, f"#{INSTANCE} .widget-result", W.render(W.run(base)), "after the section was reset")
    assert driver.call("(s) => document.querySelector(s + ' .settings-changed').textContent", panel) == ""
    assert driver.call(VALUES, [control(f"rules.{n}") for n in new]) == [str(base["rules"][n]) for n in new]
    assert driver.errors() == []


def _other(f: schema.Integer, value: int) -> int:
    return value + 1 if f.maximum is None or value < f.maximum else value - 1


def shared_state(page_base: dict[str, Any]) -> dict[str, Any]:
    """An edited (and renamed) unit type, twelve units a side naming it among others, ten changed settings."""
    rnd = random.Random(14)
    types = [dict(r) for r in page_base["unit_types"]]
    i = type_row(page_base, "Tank")
    types[i] = {**types[i], "name": "Heavy tank", "hit_points": 70, "attack_hard": 45, "startup_penalty": "1/4"}
    land = [r["name"] for r in types if r["theatre"] == "land"]
    def units(side: int) -> list[dict[str, Any]]:
        return [{"type": land[(k + side) % len(land)], "count": rnd.randint(1, 4), "readiness": rnd.randint(60, 100),
                 "morale": rnd.randint(50, 100), "experience": rnd.randint(0, 40), "side": rnd.randint(0, 5) * (1 - side),
                 "entrenchment": rnd.randint(0, 40) * side, "hq_power": "1/2" if k % 4 == 0 else "0",
                 "name": f"{'AD'[side]}{k + 1}" if k % 5 == 0 else ""} for k in range(12)]
    rules = {}
    for f in RULES_GROUP.fields:
        if isinstance(f, schema.Integer) and len(rules) < 10:
            rules[f.name] = _other(f, page_base["rules"][f.name])
    values = W.validate({**page_base, "unit_types": types, "attackers": units(0), "defenders": units(1),
                         "rules": {**page_base["rules"], **rules}, "landscape": "forest"})
    assert sum(values["rules"][k] != page_base["rules"][k] for k in rules) == 10
    return values


@browsers("chromium", "firefox", "webkit")
def test_a_shared_battle_with_edited_unit_types_round_trips(driver, site_url):
    open_live(driver, site_url + PAGE)
    page_base = W.validate(base_inputs(driver, INSTANCE))
    values = shared_state(page_base)
    state = W.state_text(values, page_base)
    assert len(state) < 2000, len(state)
    assert W.from_link({"": state}, page_base) == (values, [])
    open_short(driver, site_url, f"{INSTANCE}={quote(state, safe='')}&")
    # The link's values are the form's before its parts are opened: counted, and CPython's figures.
    assert {"unit_types", "rules"} <= set(P.parts(driver))
    assert driver.call("(s) => document.querySelector(s).textContent", f"#{INSTANCE} details.settings .settings-changed") == "(10 changed)"
    shows_cpython(driver, values, 1, "the shared battle, no part opened")
    for path in P.parts(driver):
        P.open_part(driver, path)
    paths: list[tuple[str, Any]] = []
    for side in ("attackers", "defenders", "unit_types"):
        for k, row in enumerate(values[side]):
            paths += [(f"{side}.{k}.{name}", v) for name, v in row.items()]
    paths += [(f"rules.{name}", v) for name, v in values["rules"].items()]
    paths += [(name, values[name]) for name in ("landscape", "combat")]
    shown = driver.call(VALUES, [control(p) for p, _ in paths])
    expected = [v if isinstance(v, bool) else schema.to_text(v) for _, v in paths]
    wrong = [(p, s, e) for (p, _), s, e in zip(paths, shown, expected) if s != e]
    assert not wrong, wrong[:10]
    shows_cpython(driver, values, 1, "the shared battle")
    assert driver.errors() == []
