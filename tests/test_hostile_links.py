"""Hostile and broken links on real pages, in Chromium, Firefox and WebKit (issue 11).

Each link is opened as a reader would open it; the page must go live, say
which parts it did not apply, leave the page's own objects alone, keep every
state it shows editable, and then answer an ordinary change with exactly
CPython's result. The engine-side cases (and why each is answered at once)
are in test_hostile.py.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from test_browsers import base_inputs, browsers, change_one_input, driver, drivers, open_live, shows  # noqa: F401

from engine import schema, widgets

pytestmark = pytest.mark.browser

PROTO = "__proto__.error=1&__proto__.method=POST&constructor.keys=1&constructor.entries=1"
UNTOUCHED = """() => ({}).error === undefined && ({}).method === undefined && typeof Object.keys === 'function'
    && typeof Object.entries === 'function' && !('keys' in {})"""
NOTICES = "() => [...document.querySelectorAll('.link-notice, .widget-messages:not([hidden])')].map(e => e.textContent).join(' | ')"


@browsers("chromium", "firefox", "webkit")
def test_prototype_keys_and_a_huge_exponent_touch_nothing(driver, site_url):
    url = "ocs/combat-table-and-odds.html"
    open_live(driver, site_url + f"{url}?{PROTO}&ocs-odds.attack=1e99999999&ocs-odds.defense=5#ocs-odds")
    assert driver.call(UNTOUCHED)
    notices = driver.call(NOTICES)
    assert "__proto__.error" in notices and "attack" in notices and "not applied" in notices, notices
    w = widgets.get("ocs.combat")
    values = w.validate({**base_inputs(driver, "ocs-odds"), "defense": "5"})
    shows(driver, "#ocs-odds .widget-result", w.render(w.run(values)), "the applied part of the link")
    driver.call("""() => { const i = document.getElementById('ocs-odds--attack'); i.value = '13';
        i.dispatchEvent(new Event('change', {bubbles: true})); }""")
    shows(driver, "#ocs-odds .widget-result", w.render(w.run({**values, "attack": "13"})), "a change after the link")
    driver.wait("() => !location.search.includes('__proto__') && location.search.includes('ocs-odds.attack=13')", timeout=5)
    assert driver.call(UNTOUCHED)
    assert driver.errors() == []


@browsers("chromium", "firefox", "webkit")
def test_a_cell_off_the_chart_stays_editable(driver, site_url):
    url = "ocs/results.html"
    open_live(driver, site_url + f"{url}?ocs-reader.cell=AL3o3#ocs-reader")
    assert driver.call("() => document.getElementById('ocs-reader--cell').value") == "AL3o3"
    w = widgets.get("ocs.result")
    values = w.validate({**base_inputs(driver, "ocs-reader"), "cell": "AL3o3"})
    shows(driver, "#ocs-reader .widget-result", w.render(w.run(values)), "the linked cell")
    driver.call("""() => { const s = document.getElementById('ocs-reader--attacker_ar');
        s.value = String((Number(s.value) + 1) % 6); s.dispatchEvent(new Event('change', {bubbles: true})); }""")
    ar = driver.call("() => document.getElementById('ocs-reader--attacker_ar').value")
    shows(driver, "#ocs-reader .widget-result", w.render(w.run({**values, "attacker_ar": ar})), "a change after it")
    assert driver.errors() == []


def first_list_path(group: schema.Group, prefix: str = "") -> str | None:
    for f in group.fields:
        path = f"{prefix}.{f.name}" if prefix else f.name
        if isinstance(f, schema.ListOf):
            return path
        if isinstance(f, schema.Group) and (found := first_list_path(f, path)):
            return found
    return None


@browsers("chromium", "firefox", "webkit")
def test_deep_nesting_in_a_link_is_refused_and_the_engine_stays_healthy(driver, site_url):
    url = "europa/conversions-and-totals.html"
    path = first_list_path(widgets.get("europa.aec").inputs)
    open_live(driver, site_url + f"{url}?eu-stacks.{path}={quote('[' * 3000)}#eu-stacks")
    notices = driver.call(NOTICES)
    assert path in notices and "deep" in notices, notices
    change_one_input(driver, url)
    assert driver.errors() == []


# Issue 20: a refused link or input is said where the reader looks, in their words, and every output that no
# longer matches the form says so. The card game's battle has all three outputs: result, seeded battle, estimate.

BATTLE_PAGE, BATTLE = "sgs/panic-rout-and-pursuit.html", "sgs-battle"
MESSAGE = """(id) => { const s = document.getElementById(id), m = s.querySelector('.widget-messages');
    return !m.hidden && {text: m.textContent, inHeader: Boolean(m.closest('.widget-header')),
        fromTop: m.getBoundingClientRect().top - s.getBoundingClientRect().top,
        focus: document.activeElement === m ? 'messages' : document.activeElement.id}; }"""


@browsers("chromium", "firefox", "webkit")
def test_a_link_that_cannot_be_read_is_said_at_the_widgets_top_in_plain_words(driver, site_url):
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}=~1.zbroken#{BATTLE}")
    shown = driver.wait(MESSAGE, BATTLE, timeout=15)
    assert shown["inHeader"] and shown["fromTop"] < 200, shown
    assert shown["text"].startswith("This link's saved inputs could not be read (the link may be cut short or "
                                    "damaged); the widget shows the page's example instead"), shown["text"]
    assert shown["focus"] == "messages"
    # a refused field: the message at the top, the field itself in focus
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}.terrain_defence=lots#{BATTLE}")
    shown = driver.wait(MESSAGE, BATTLE, timeout=15)
    assert shown["inHeader"] and "terrain_defence" in shown["text"] and "'lots'" in shown["text"], shown
    assert shown["focus"] == f"{BATTLE}--terrain_defence"
    # a refused field in a part of the form that is not loaded (build.PART_OVER): the part loads, the field in focus
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}.settings.rout_hold=lots#{BATTLE}")
    shown = driver.wait(MESSAGE, BATTLE, timeout=15)
    assert "rout_hold" in shown["text"] and "'lots'" in shown["text"], shown
    driver.wait("(id) => document.activeElement?.id === id", f"{BATTLE}--settings-rout_hold", timeout=15)
    assert driver.call("(id) => document.getElementById(id).closest('details.settings').open", f"{BATTLE}--settings-rout_hold")
    # a number of trials the Monte Carlo box cannot run: said at the top too (not only beside the box, far below),
    # beside the link's seed that cannot roll and its damaged scenario (one message must not replace another)
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}.trials=1e99999&{BATTLE}.seed=%3Cscript%3E"
                                 f"&{BATTLE}.scenario=~1.zAAAA#{BATTLE}")
    shown = driver.wait("(id, m) => { const r = (" + MESSAGE + ")(id); "
                        "return r && r.text.includes('Not rolled') && r.text.includes('scenario') && r; }",
                        BATTLE, timeout=15)
    assert shown["inHeader"] and shown["fromTop"] < 200, shown
    assert 'the number of trials "1e99999": enter a whole number from 1 to 100,000' in shown["text"], shown["text"]
    assert "Not rolled: '<script>' is not a seed; enter a whole number from 0 to 9,007,199,254,740,992." \
        in shown["text"], shown["text"]  # the message alone, beside the Seed box; its range in figures
    assert ("the link's scenario (a pinned A, a sweep, a target, a result or the assumptions) could not be read"
            in shown["text"]), shown["text"]
    assert shown["focus"] == f"{BATTLE}--trials"
    assert driver.call("(id) => document.getElementById(id).querySelector('.widget-sim').dataset.state", BATTLE) \
        == "prerendered"  # nothing ran
    assert driver.errors() == []


@browsers("chromium", "firefox", "webkit")
def test_a_seed_too_big_is_quoted_as_typed_and_old_outputs_are_marked(driver, site_url):
    open_live(driver, site_url + f"{BATTLE_PAGE}#{BATTLE}")
    driver.call("""(id) => { const i = document.getElementById(id + '--seed'); i.value = '1e99999999';
        i.dispatchEvent(new Event('change', {bubbles: true})); }""", BATTLE)
    text = driver.wait("(id) => { const m = document.getElementById(id).querySelector('.widget-messages');"
                       " return !m.hidden && m.textContent; }", BATTLE, timeout=15)
    assert "'1e99999999' is not a seed" in text, text
    # an input the engine refuses: the result, the seeded battle and the estimate are all marked out of date
    driver.call("""(id) => { const i = document.getElementById(id + '--terrain_defence'); i.value = 'x';
        i.dispatchEvent(new Event('input', {bubbles: true})); }""", BATTLE)
    marks = driver.wait("""(id) => { const s = document.getElementById(id);
        const marks = ['.widget-result', '.roll-result', '.sim-result'].map((c) => {
            const el = s.querySelector(c); return el.dataset.state === 'stale' || el.dataset.outdated === 'stale'; });
        return marks.every(Boolean) && marks; }""", BATTLE, timeout=15)
    assert marks == [True, True, True]
    note = driver.call("(id) => getComputedStyle(document.getElementById(id).querySelector('.roll-result'), "
                       "'::before').content", BATTLE)
    assert "Out of date" in note
    assert driver.errors() == []


@browsers("chromium", "firefox", "webkit")
def test_settings_after_the_links_hash_are_said_not_applied(driver, site_url):
    """The site reads a widget's state from the query alone: settings a link puts after its "#" (made by hand,
    or a "?" some tool turned into "#") are quoted, as text, in a notice that says so; the query still applies.
    A plain anchor says nothing."""
    page, w = "ocs/combat-table-and-odds.html", widgets.get("ocs.combat")
    open_live(driver, site_url + f"{page}?ocs-odds.defense=4#ocs-odds")
    assert driver.call(NOTICES) == ""
    open_live(driver, site_url + f"{page}?ocs-odds.defense=5#ocs-odds.attack=%3Cb%3E13%3C/b%3E")
    notices = driver.call(NOTICES)
    assert notices == ('Part of this link was not applied: "ocs-odds.attack=<b>13</b>" comes after its "#", where '
                       'the site reads no settings. A link copied from a widget puts them after "?".'), notices
    assert driver.call("() => document.querySelector('.link-notice b') === null")
    values = w.validate({**base_inputs(driver, "ocs-odds"), "defense": "5"})
    assert values["attack"] == w.validate(None)["attack"]
    shows(driver, "#ocs-odds .widget-result", w.render(w.run(values)), "the query applied, the hash not")
    assert driver.errors() == []


@browsers("chromium", "firefox", "webkit")
def test_a_link_whose_values_do_not_fit_together_is_said_to_be_undone_whole(driver, site_url):
    """Six sides attacked leave no free hex, so the link's hex sides cannot stand with the page's three free
    hexes: the widget's check refuses the pair, and none of the link is applied. The notice says that, not
    "part of the link", and names the refusal; the result is the page's example."""
    w = widgets.get("small_general.combat")
    values, rejected = w.from_link({"hex_sides": "6"}, None)
    assert [e.to_json().get("whole") for e in rejected] == [True]
    open_live(driver, site_url + "small-general/combat-table.html?sg-combat.hex_sides=6&sg-combat.terrain=forest#sg-combat")
    notices = driver.call(NOTICES)
    assert notices.startswith("The link was not applied: its values do not fit together."), notices
    assert "attacks over all 6 hex sides leave the defender no free friendly hex" in notices, notices
    assert "Part of the link" not in notices, notices
    shows(driver, "#sg-combat .widget-result", w.render(w.run(base_inputs(driver, "sg-combat"))), "the page's example")
    assert base_inputs(driver, "sg-combat")["terrain"] == w.validate(None)["terrain"]
    assert driver.errors() == []
