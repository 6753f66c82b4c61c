"""Scenarios on the page (issue 21): Pin as A, Sweep and What it takes, in Chromium, Firefox and WebKit.

Each panel shows the engine's own HTML; every expected answer here is CPython's
(engine.scenarios) for the same inputs, seed and trials, compared after the
browser's own serialisation. The engine side is tests/test_scenarios.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from conftest import axe_violations, once, serving, wait_until
from test_browsers import (PRESS, _replace, _symlinked_copy, base_inputs, browsers, driver, drivers,  # noqa: F401
                           open_live, shows)

from engine import api, linkstate, scenarios, widgets
from engine.schema import jsonable

pytestmark = pytest.mark.browser

SG_PAGE, SG = "small-general/combat-table.html", "sg-combat"
BATTLE_PAGE, BATTLE = "sgs/panic-rout-and-pursuit.html", "sgs-battle"
BATTLE_TRIALS = 40
"""Battles a point: enough to stream over several calls, few enough for the slowest browser."""

OPEN = "(s) => { const d = document.querySelector(s + ' .widget-scenario'); d.open = true; d.dispatchEvent(new Event('toggle')); }"
CLICK = "(s) => document.querySelector(s).click()"
SET = """(s, value) => { const c = document.querySelector(s); c.value = value;
    c.dispatchEvent(new Event('change', {bubbles: true})); }"""
HAS_OPTION = "(s, value) => [...document.querySelectorAll(s + ' option')].some((o) => o.value === value)"
ENDED = "(s) => ['done', 'failed', 'stopped'].includes(document.querySelector(s + ' .scenario-result').dataset.state)"


def wait_done(driver, instance: str, timeout: float) -> None:
    """Wait for the scenario run to end, and fail at once, with what the panel said, if it ended other than done."""
    def said() -> str:
        state = driver.call("(s) => document.querySelector(s).dataset.state", panel(instance, ".scenario-result"))
        status = driver.call("(s) => document.querySelector(s).textContent", panel(instance, ".scenario-status"))
        detail = driver.call("(s) => document.querySelector(s).dataset.detail ?? ''", panel(instance, ".scenario-result"))
        return f"{state}: {status!r}; detail: {detail!r}; console: {driver.errors()}"
    try:
        driver.wait(ENDED, f"#{instance}", timeout=timeout)
    except TimeoutError as error:
        raise TimeoutError(f"{error}; the panel was {said()}") from None
    outcome = said()
    assert outcome.startswith("done:"), f"the run ended {outcome}"


def panel(instance: str, part: str) -> str:
    return f"#{instance} .widget-scenario {part}"


def vary(driver, instance: str, path: str, start: str | None = None, stop: str | None = None) -> None:
    """Choose the input to vary (and its range) as a reader does."""
    driver.wait(HAS_OPTION, panel(instance, "select.vary-input"), path, timeout=30)
    driver.call(SET, panel(instance, "select.vary-input"), path)
    if start is not None:
        driver.call(SET, panel(instance, "input.vary-from"), start)
        driver.call(SET, panel(instance, "input.vary-to"), stop)
        driver.call(SET, panel(instance, "input.vary-step"), "1")


def scenario_link(driver, instance: str, ready, timeout: float = 10) -> str:
    """The page's address once its scenario part (unpacked) is ``ready``: the link is written a moment
    after each change."""
    deadline = time.monotonic() + timeout
    while True:
        href = driver.call("() => location.href")
        text = parse_qs(urlsplit(href).query).get(f"{instance}.scenario", [None])[0]
        if text is not None and ready(linkstate.unpack(text)):
            return href
        if time.monotonic() > deadline:
            raise TimeoutError(f"the link never held the scenario: {href}")
        time.sleep(0.1)


@browsers("chromium", "firefox", "webkit")
def test_pin_compare_sweep_and_target_show_cpythons_answers_and_travel_in_the_link(driver, site_url):
    open_live(driver, site_url + SG_PAGE)
    w = widgets.get("small_general.combat")
    base = base_inputs(driver, SG)
    a = w.validate(base)
    driver.call(OPEN, f"#{SG}")
    driver.call(CLICK, panel(SG, "[data-action=pin]"))
    driver.call(SET, f"#{SG}--hex_sides", "3")
    b = w.validate({**base, "hex_sides": 3})
    shows(driver, panel(SG, ".scenario-compare"), scenarios.compare(w.id, a, b, render=True)["html"],
          "B against the pinned A")
    vary(driver, SG, "terrain")
    driver.call(CLICK, panel(SG, "[data-action=sweep]"))
    shows(driver, panel(SG, ".scenario-result"),
          scenarios.sweep(w.id, b, {"input": "terrain"}, render=True)["html"], "the sweep over terrain")
    vary(driver, SG, "attacker.attack_value", "1", "8")
    driver.call(SET, panel(SG, "select.target-figure"), "defender_retreats")
    driver.call(SET, panel(SG, "input.target-threshold"), "20%")
    driver.call(CLICK, panel(SG, "[data-action=target]"))
    spec = {"input": "attacker.attack_value", "from": "1", "to": "8", "step": "1"}
    answer = scenarios.target(w.id, b, "defender_retreats", "20%", spec, render=True)
    shows(driver, panel(SG, ".scenario-result"), answer["html"], "what it takes")
    assert answer["found"] is not None  # a real answer, not "no value reaches it"
    # The pinned A, the range and the target are in the link: opened afresh, the page shows them again.
    link = scenario_link(driver, SG, lambda state: "t" in state and "a" in state)
    open_live(driver, link)
    shows(driver, panel(SG, ".scenario-compare"), scenarios.compare(w.id, a, b, render=True)["html"],
          "the pinned A from the link")
    shows(driver, panel(SG, ".scenario-result"), answer["html"], "the target from the link")
    assert driver.errors() == []


def sweep_to_cpythons_chart(driver, site: str, what: str) -> None:
    """On the card game's battle page of ``site`` at BATTLE_TRIALS, sweep the first row's count 1..3 as a reader
    does; the chart ends as CPython's for the same inputs, seed and trials."""
    w = widgets.get("sgs.battle")
    open_live(driver, site + f"{BATTLE_PAGE}?{BATTLE}.trials={BATTLE_TRIALS}#{BATTLE}")
    inputs = w.validate(base_inputs(driver, BATTLE))
    driver.call(OPEN, f"#{BATTLE}")
    vary(driver, BATTLE, "attacker.units.0.count", "1", "3")
    driver.call(CLICK, panel(BATTLE, "[data-action=sweep]"))
    spec = {"input": "attacker.units.0.count", "from": "1", "to": "3", "step": "1"}
    expected = once(scenarios.sweep, w.id, inputs, spec, seed=1, trials=BATTLE_TRIALS, render=True)["html"]
    wait_done(driver, BATTLE, timeout=120)
    shows(driver, panel(BATTLE, ".scenario-result"), expected, what)


@browsers("chromium", "firefox", "webkit")
def test_a_battle_sweep_streams_to_cpythons_chart_and_stop_ends_it(driver, site_url):
    sweep_to_cpythons_chart(driver, site_url, "the battle sweep, however its calls were cut")
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    assert status == f"Done: {BATTLE_TRIALS} trials a point.", status
    # A long run (20,000 battles a point; the trials box set without starting a run of its own) says how far
    # it has come out of its size; stopped, it says so and keeps what it had.
    driver.call("(s) => { document.querySelector(s).value = '20000'; }", f"#{BATTLE} input.sim-trials")
    driver.call(HEAR, f"#{BATTLE} .widget-scenario")
    driver.call(PRESS, panel(BATTLE, "[data-action=sweep]"))
    running = driver.wait("(s) => { const t = document.querySelector(s).textContent; return t.startsWith('Running: ') && t; }",
                          panel(BATTLE, ".scenario-status"), timeout=60)
    so_far = int(running.split()[1].replace(",", ""))  # the trials done a point, not the run's 20,000
    assert 0 < so_far < 20_000 and running.endswith(" of 20,000 trials a point so far."), running
    driver.call(PRESS, panel(BATTLE, "[data-action=scenario-stop]"))
    driver.wait("(s) => document.querySelector(s + ' .scenario-result').dataset.state === 'stopped'", f"#{BATTLE}",
                timeout=30)
    # Stop, pressed from the keyboard, is disabled once the run has stopped: focus goes back to the button that
    # started it (it fell to the body).
    assert driver.call("(s) => document.activeElement === document.querySelector(s)", panel(BATTLE, "[data-action=sweep]")), \
        driver.call("() => document.activeElement?.outerHTML.slice(0, 80)")
    # A screen reader is told the run's start and end once, not each line of its progress (role=status read them all,
    # twice a second).
    heard = driver.call("() => window.heard")
    assert heard[0] == "Running…" and heard[-1] == "Stopped: the figures shown are from the trials run so far.", heard
    assert not any(text.startswith("Running: ") for text in heard), heard
    # Unpin A while its comparison runs: the comparison goes, and its status line says nothing (it said "Stopped
    # before its first figures: none are shown." under no comparison at all).
    driver.call(PRESS, panel(BATTLE, "[data-action=pin]"))
    driver.wait("(s) => document.querySelector(s).hasAttribute('aria-busy')", panel(BATTLE, ".scenario-compare"), timeout=30)
    driver.call(PRESS, panel(BATTLE, "[data-action=unpin]"))
    driver.wait("(s) => !document.querySelector(s).hasAttribute('aria-busy')", panel(BATTLE, ".scenario-compare"), timeout=30)
    assert driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".compare-status")) == ""
    assert driver.call("() => window.heard.at(-1)") == "", driver.call("() => window.heard")
    assert driver.errors() == []


HEAR = """(s) => { window.heard = [];  // every text put in the panel's live regions, as a screen reader hears them
    for (const el of document.querySelectorAll(s + ' [role=status]')) new MutationObserver(() => window.heard.push(el.textContent))
        .observe(el, {childList: true, characterData: true, subtree: true}); }"""


STOP_AT_START = """(s) => { const out = document.querySelector(s + ' .scenario-result');
    new MutationObserver((_, watch) => {  // at once when the run starts: no answer can come before
        if (out.dataset.state !== 'running') return;
        watch.disconnect(); document.querySelector(s + ' [data-action=scenario-stop]').click();
    }).observe(out, {attributes: true, attributeFilter: ['data-state']}); }"""


@browsers("firefox", "webkit")
def test_a_run_stopped_before_its_first_answer_leaves_no_earlier_tools_figures_as_its_own(driver, site_url):
    """Stop before a battle's scenario run had answered said "Stopped: the figures shown are from the trials run
    so far." over what an earlier run had left (here a "How rare" answer, under a link that now asked for the
    assumptions). Such a run has no figures: the output is emptied and the status says so."""
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}.trials={BATTLE_TRIALS}#{BATTLE}")
    driver.call(OPEN, f"#{BATTLE}")
    driver.wait(HAS_OPTION, panel(BATTLE, "select.luck-what"), "number:defender.lost", timeout=60)
    driver.call(SET, panel(BATTLE, "select.luck-what"), "number:defender.lost")
    driver.call(SET, panel(BATTLE, "input.luck-value"), "1")
    driver.call(CLICK, panel(BATTLE, "[data-action=luck]"))
    wait_done(driver, BATTLE, timeout=120)
    assert driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-result"))
    driver.call(STOP_AT_START, f"#{BATTLE}")
    driver.call(CLICK, panel(BATTLE, "[data-action=assumptions]"))
    driver.wait("(s) => document.querySelector(s).dataset.state === 'stopped'", panel(BATTLE, ".scenario-result"),
                timeout=30)
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    assert status == "Stopped before its first figures: none are shown.", status
    assert driver.call("(s) => document.querySelector(s).innerHTML", panel(BATTLE, ".scenario-result")) == ""
    assert driver.errors() == []


@browsers("chromium")
def test_a_refused_range_clears_the_earlier_chart_and_keeps_the_pinned_a_in_the_link(driver, site_url):
    """A sweep the engine refuses (a range that ends before it starts) used to leave the last range's chart
    under its "Not run" line, as if it were the answer, and dropped the whole scenario from the link: the pinned
    A still on the page was gone on reload."""
    open_live(driver, site_url + SG_PAGE)
    driver.call(OPEN, f"#{SG}")
    driver.call(CLICK, panel(SG, "[data-action=pin]"))
    driver.call(SET, f"#{SG}--hex_sides", "3")
    vary(driver, SG, "attacker.attack_value", "1", "8")
    driver.call(CLICK, panel(SG, "[data-action=sweep]"))
    wait_done(driver, SG, timeout=30)
    scenario_link(driver, SG, lambda state: "a" in state and "s" in state)
    driver.call(SET, panel(SG, "input.vary-from"), "9")
    driver.call(SET, panel(SG, "input.vary-to"), "1")
    driver.call(CLICK, panel(SG, "[data-action=sweep]"))
    driver.wait("(s) => document.querySelector(s).dataset.state === 'failed'", panel(SG, ".scenario-result"), timeout=30)
    status = driver.call("(s) => document.querySelector(s).textContent", panel(SG, ".scenario-status"))
    assert status == "Not run: to: the range ends before it starts.", status
    link = scenario_link(driver, SG, lambda state: "a" in state and "s" not in state)
    assert driver.call("(s) => document.querySelector(s).innerHTML", panel(SG, ".scenario-result")) == ""
    open_live(driver, link)
    driver.wait("(s) => !document.querySelector(s).hidden && document.querySelector(s).textContent !== ''",
                panel(SG, ".scenario-compare"), timeout=30)
    assert driver.errors() == []


RANGE = "(p) => ['from', 'to', 'step'].map((f) => document.querySelector(p + 'input.vary-' + f).value)"


@browsers("chromium")
def test_a_suggested_range_holds_only_values_the_form_takes_and_follows_it_until_the_reader_sets_one(driver,
                                                                                                   site_url):
    """Sweeping Small General's hex sides from the page's example suggested 1 to 6, and 4-6 were refused points
    (three free hexes leave room for three sides). The engine suggests the range (CPython's here), narrowed to
    what fits the rest of the form; it follows the form while untouched and is kept once the reader sets it."""
    open_live(driver, site_url + SG_PAGE)
    w = widgets.get("small_general.combat")

    def suggested(free: int) -> list[str]:
        base = w.validate({**base_inputs(driver, SG), "retreat_hexes": free})
        (entry,) = [v for v in scenarios.varies(w, base, "hex_sides") if v["input"] == "hex_sides"]
        return [str(entry["range"]["from"]), str(entry["range"]["to"]), "1"]

    driver.call(SET, f"#{SG}--retreat_hexes", "3")
    driver.call(OPEN, f"#{SG}")
    vary(driver, SG, "hex_sides")
    driver.wait("([p, want]) => JSON.stringify((" + RANGE + ")(p)) === JSON.stringify(want)",
                [panel(SG, ""), suggested(3)], timeout=30)
    assert suggested(3)[1] == "3", suggested(3)
    driver.call(SET, f"#{SG}--retreat_hexes", "1")  # the untouched range follows the form
    driver.wait("([p, want]) => JSON.stringify((" + RANGE + ")(p)) === JSON.stringify(want)",
                [panel(SG, ""), suggested(1)], timeout=30)
    driver.call(CLICK, panel(SG, "[data-action=sweep]"))
    wait_done(driver, SG, timeout=30)
    assert driver.call("(s) => document.querySelector(s).textContent.includes('Refused')",
                       panel(SG, ".scenario-result")) is False
    driver.call(SET, panel(SG, "input.vary-to"), "4")  # the reader's own range stays as set
    driver.call(SET, f"#{SG}--retreat_hexes", "2")
    driver.wait("(s) => document.querySelector(s).dataset.outdated === 'stale'", panel(SG, ".scenario-result"),
                timeout=30)
    time.sleep(0.5)
    assert driver.call(RANGE, panel(SG, "")) == [suggested(1)[0], "4", "1"]
    assert driver.errors() == []


@browsers("chromium", "firefox")
def test_enter_in_a_panel_field_runs_that_parts_button(driver, site_url):
    """Enter in the range's last field sweeps, in the threshold finds, as a form's submit would; it did nothing."""
    open_live(driver, site_url + SG_PAGE)
    w = widgets.get("small_general.combat")
    base = w.validate(base_inputs(driver, SG))
    driver.call(OPEN, f"#{SG}")
    vary(driver, SG, "attacker.attack_value", "1", "8")
    enter = """(s) => { const f = document.querySelector(s); f.focus();
        f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true})); }"""
    driver.call(enter, panel(SG, "input.vary-step"))
    spec = {"input": "attacker.attack_value", "from": "1", "to": "8", "step": "1"}
    shows(driver, panel(SG, ".scenario-result"), scenarios.sweep(w.id, base, spec, render=True)["html"],
          "the sweep Enter ran")
    driver.call(SET, panel(SG, "select.target-figure"), "defender_retreats")
    driver.call(SET, panel(SG, "input.target-threshold"), "20%")
    driver.call(enter, panel(SG, "input.target-threshold"))
    shows(driver, panel(SG, ".scenario-result"),
          scenarios.target(w.id, base, "defender_retreats", "20%", spec, render=True)["html"], "what Enter found")
    assert driver.errors() == []


@browsers("chromium", "firefox", "webkit")
def test_an_input_whose_value_is_a_fraction_gets_a_range_that_sweeps(driver, site_url):
    """Choosing an input whose value the engine gives as a fraction (AT Gold's concentric factor for one side,
    1/10) filled the range as "0 to NaN", and Sweep then said "'NaN' is not a number". In every browser, since the
    long sweep's table is held by style (a region's height, headings that stay in view)."""
    page, instance = "atg/the-combat-loop.html", "atg-concentric"
    open_live(driver, site_url + page)
    driver.call(OPEN, f"#{instance}")
    vary(driver, instance, "rules.concentric_1")
    fields = driver.call("(p) => ['from', 'to', 'step'].map((f) => document.querySelector(p + 'input.vary-' + f).value)",
                         panel(instance, ""))
    assert fields == ["0", "1.1", "0.1"], fields  # a tenth of the range, rounded to a step that reads well
    driver.call(CLICK, panel(instance, "[data-action=sweep]"))
    wait_done(driver, instance, timeout=30)
    w = widgets.get("atg.concentric")
    spec = {"input": "rules.concentric_1", "from": "0", "to": "1.1", "step": "0.1"}
    shows(driver, panel(instance, ".scenario-result"),
          scenarios.sweep(w.id, w.validate(base_inputs(driver, instance)), spec, render=True)["html"],
          "the sweep over a fraction's default range")
    # A chart's data table shows a default sweep's points whole; a long sweep's table is kept to a height and
    # scrolls in its named region (every row still in the page, for a screen reader), its headings in view.
    for step, points in (("0.1", 12), ("0.02", 56)):
        driver.call(SET, panel(instance, "input.vary-step"), step)
        driver.call(CLICK, panel(instance, "[data-action=sweep]"))
        driver.wait("([s, n]) => document.querySelector(s)?.tBodies[0].rows.length === n",
                    [panel(instance, ".scenario-result table.chart-data"), points], timeout=30)
        wait_done(driver, instance, timeout=30)
        regions = driver.call(DATA_REGIONS, panel(instance, ".scenario-result"))
        assert regions and all(r["rows"] == points and r["name"] and r["focusable"] for r in regions), regions
        if points == 12:
            assert all(r["scrolls"] is False for r in regions), regions
        else:
            assert all(r["scrolls"] and r["height"] <= 30 * r["rem"] and r["headingInView"] for r in regions), regions
    assert driver.errors() == []


DATA_REGIONS = """(s) => [...document.querySelectorAll(s + ' .table-wrap')].filter((w) => w.querySelector('table.chart-data'))
    .map((w) => { w.scrollTop = w.scrollHeight; const th = w.querySelector('thead th').getBoundingClientRect();
        const box = w.getBoundingClientRect();
        return {rows: w.querySelector('tbody').rows.length, height: w.clientHeight, whole: w.scrollHeight,
                scrolls: w.scrollHeight > w.clientHeight,
                rem: parseFloat(getComputedStyle(document.documentElement).fontSize), name: w.getAttribute('aria-label'),
                focusable: w.tabIndex === 0, headingInView: th.top >= box.top - 1 && th.bottom <= box.bottom + 1}; })"""


@browsers("chromium")
def test_inputs_with_an_error_are_not_pinned_as_a(driver, site_url):
    """Pin as A with an error in the form used to pin it: once the form was mended, every comparison still
    said "Not run: attacker.attack_value: 'abc' is not a whole number", a value the form no longer showed."""
    open_live(driver, site_url + SG_PAGE)
    driver.call(OPEN, f"#{SG}")
    driver.call(SET, f"#{SG}--attacker-attack_value", "abc")
    driver.call(CLICK, panel(SG, "[data-action=pin]"))
    status = driver.wait("(s) => document.querySelector(s).textContent", panel(SG, ".compare-status"), timeout=30)
    # the input named as the page names it, not by its path; on the comparison's own status line
    assert status == "Not pinned: Attacker, Attack value: 'abc' is not a whole number; enter a whole number from 0 to 30.", status
    assert driver.call("(s) => document.querySelector(s).hidden", panel(SG, "[data-action=unpin]"))
    driver.call(SET, f"#{SG}--attacker-attack_value", "4")
    driver.call(CLICK, panel(SG, "[data-action=pin]"))
    driver.call(SET, f"#{SG}--hex_sides", "3")
    w = widgets.get("small_general.combat")
    base = base_inputs(driver, SG)
    a = w.validate({**base, "attacker": {**base["attacker"], "attack_value": 4}})
    b = w.validate({**base, "attacker": {**base["attacker"], "attack_value": 4}, "hex_sides": 3})
    shows(driver, panel(SG, ".scenario-compare"), scenarios.compare(w.id, a, b, render=True)["html"],
          "B against the A pinned once the form was mended")
    assert driver.call("(s) => document.querySelector(s).textContent", panel(SG, ".compare-status")) == ""
    assert driver.errors() == []


@browsers("chromium")
def test_a_battles_scenario_refuses_a_trials_box_it_cannot_run_and_counts_one_trial_in_the_singular(driver,
                                                                                                   site_url):
    """With the trials box at 0 (or blank, or past the largest run) a battle's sweep used to run the widget's
    1,000 trials a point without a word; it now says what the box needs. One trial is "1 trial"."""
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}.trials={BATTLE_TRIALS}#{BATTLE}")
    driver.call(OPEN, f"#{BATTLE}")
    vary(driver, BATTLE, "attacker.units.0.count", "1", "2")
    for typed in ("0", "", "100001"):
        driver.call("([s, v]) => { document.querySelector(s).value = v; }", [f"#{BATTLE} input.sim-trials", typed])
        driver.call(CLICK, panel(BATTLE, "[data-action=sweep]"))
        driver.wait("(s) => document.querySelector(s).dataset.state === 'failed'", panel(BATTLE, ".scenario-result"),
                    timeout=30)
        status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
        assert status == "Not run: enter a whole number of trials from 1 to 100,000 in the Trials box.", (typed, status)
    driver.call("(s) => { document.querySelector(s).value = '1'; }", f"#{BATTLE} input.sim-trials")
    driver.call(CLICK, panel(BATTLE, "[data-action=sweep]"))
    wait_done(driver, BATTLE, timeout=120)
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    assert status == "Done: 1 trial a point.", status
    # "What it takes" runs each point only as far as it needs: a threshold at point 2's own estimate leaves it
    # undecided with the box's trials all spent. It used to say the fewest any point ran ("Done: 4 trials a
    # point.") and to ask for a "trial budget" the page has no control for.
    w = widgets.get("sgs.battle")
    inputs = w.validate(base_inputs(driver, BATTLE))
    spec = {"input": "attacker.units.0.count", "from": "1", "to": "2", "step": "1"}
    first = scenarios.target(w.id, inputs, "attacker_won", "0.5", spec, count=BATTLE_TRIALS, max_trials=BATTLE_TRIALS)
    threshold = first["points"][1]["figure"]["exact"]
    driver.call("(s) => { document.querySelector(s).value = String(%d); }" % BATTLE_TRIALS, f"#{BATTLE} input.sim-trials")
    driver.call(SET, panel(BATTLE, "select.target-figure"), "attacker_won")
    driver.call(SET, panel(BATTLE, "input.target-threshold"), threshold)
    driver.call(CLICK, panel(BATTLE, "[data-action=target]"))
    wait_done(driver, BATTLE, timeout=120)
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    assert status == f"Done: up to {BATTLE_TRIALS} trials a point.", status
    answer = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".target-answer"))
    assert answer.startswith("Cannot tell") and "allow more trials a point" in answer, answer
    # The widget's own run of one battle says so in the singular too.
    driver.call("(s) => { document.querySelector(s).value = '1'; }", f"#{BATTLE} input.sim-trials")
    driver.call(CLICK, f"#{BATTLE} [data-action=sim-run]")
    driver.wait_run_done(f"#{BATTLE} .widget-sim", timeout=60)
    announce = driver.call("(s) => document.querySelector(s).textContent", f"#{BATTLE} .sim-announce")
    assert announce == "Done: 1 trial.", announce
    assert driver.errors() == []


@pytest.fixture(scope="module")
def helper_stalling_site(built_site, tmp_path_factory) -> Iterator[str]:
    """The built site whose first extra worker's boot sticks (engine-start.js's test hook), with a short stall bound."""
    copy = _symlinked_copy(built_site, tmp_path_factory.mktemp("helper-stall"))
    start = copy / "static" / "engine-start.js"
    code = start.read_text(encoding="utf-8")
    _replace(start, 'globalThis.rulesExplorerTestHelperStall = "thread"; globalThis.rulesExplorerWorkers = 2;\n'
                    "globalThis.rulesExplorerStallMs = 4000;\n" + code)
    with serving(copy) as url:
        yield url


@browsers("chromium")
def test_a_battle_sweep_whose_extra_worker_stalls_as_it_boots_ends_on_the_one_started_in_its_place(driver,
                                                                                                helper_stalling_site):
    """A battle's scenario waits for the pool's extra worker; one whose boot sticks used to hold the run at
    "Running" for ever. The pool gives it up by the page engine's stall rule and starts another, which runs the
    sweep to CPython's chart. Chromium only, for the run's time budget: the watch is pool.js's, the same in every
    browser, and tests/js/pool.test.mjs and scenario.test.mjs hold its rules."""
    sweep_to_cpythons_chart(driver, helper_stalling_site, "the sweep, on the extra worker started again")
    pool = driver.call("() => { const p = window.rulesExplorer.pool; return {replaced: p.replaced, "
                       "helpers: p.helpers.map((h) => h.state)}; }")
    assert pool == {"replaced": 1, "helpers": ["live"]}, pool
    assert driver.errors() == []


SHARED_TRIALS = 250
"""Battles a point in the two-engine test: enough calls for the page's own engine to take part, and past the
first checkpoint at which "Which assumptions matter" stops readings (200)."""
SHARE_ALWAYS = """() => { const p = window.rulesExplorer.pool; p.size = 2; p.fixed = true;
    globalThis.rulesExplorerScenarioShare = "always"; }"""
"""Two engines, and the page's own takes part however slow a trial is on a loaded machine (it joins only below
SLOW_TRIAL_MS otherwise, as measured by the extra worker's first calls: under a load of 15 that gate kept it out)."""


@browsers("chromium", "firefox")
def test_a_battle_sweep_and_compare_shared_by_two_engines_give_cpythons_html(driver, site_url):
    """With an extra worker, a battle's sweep, compare, how rare and which assumptions matter are shared by it and
    the page's own engine (small calls from the last trial back, scenario.js `shared`; the assumptions stage by
    stage), their partial states merged by the engine (``parts``): the chart and the tables are exactly CPython's
    for the same (inputs, seed, trials). Not in WebKit, for the run's time budget (76 s there under load): the
    sharing is scenario.js, the same in every browser, and WebKit's two workers sharing a run are
    test_simulation.py's."""
    from engine import luck
    w = widgets.get("sgs.battle")
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}.trials={SHARED_TRIALS}#{BATTLE}")
    driver.call(SHARE_ALWAYS)
    inputs = w.validate(base_inputs(driver, BATTLE))
    # The page's engine takes part only when nothing else has asked it for a while: let the form's run end.
    driver.wait_run_done(f"#{BATTLE} .widget-sim", timeout=120)
    driver.call(OPEN, f"#{BATTLE}")
    vary(driver, BATTLE, "attacker.units.0.count", "1", "3")
    driver.call(CLICK, panel(BATTLE, "[data-action=sweep]"))
    spec = {"input": "attacker.units.0.count", "from": "1", "to": "3", "step": "1"}
    expected = once(scenarios.sweep, w.id, inputs, spec, seed=1, trials=SHARED_TRIALS, render=True)["html"]
    ended = driver.wait("(s) => { const o = document.querySelector(s + ' .scenario-result'); "
                        "return ['done', 'failed', 'stopped'].includes(o.dataset.state) && o.dataset.state; }",
                        f"#{BATTLE}", timeout=180)
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    assert ended == "done", f"{driver.name}: the shared sweep ended {ended}: {status}"
    shows(driver, panel(BATTLE, ".scenario-result"), expected, "the battle sweep shared by two engines")
    assert driver.call("(s) => document.querySelector(s).dataset.engines", panel(BATTLE, ".scenario-result")) == "2"
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    assert status == f"Done: {SHARED_TRIALS} trials a point.", status
    # Pin as A, change the leader: the compare (one paired tally) is shared too.
    compare_done = "(s) => document.querySelector(s).dataset.state === 'done'"
    driver.call(CLICK, panel(BATTLE, "[data-action=pin]"))
    driver.wait(compare_done, panel(BATTLE, ".scenario-compare"), timeout=180)
    assert inputs["attacker"]["leader_combat"] != 3
    driver.call(SET, f"#{BATTLE}--attacker-leader_combat", "3")
    b = w.validate({**inputs, "attacker": {**inputs["attacker"], "leader_combat": 3}})
    # (The page's own engine steps aside while anything else asks it: here the change's own run merges on it.)
    shows(driver, panel(BATTLE, ".scenario-compare"),
          once(scenarios.compare, w.id, inputs, b, seed=1, trials=SHARED_TRIALS, render=True)["html"],
          "the compare after a change")
    # Once the page is quiet, "how rare" (one tally) is shared by both engines too.
    driver.wait_run_done(f"#{BATTLE} .widget-sim", timeout=120)
    driver.wait(HAS_OPTION, panel(BATTLE, "select.luck-what"), "number:defender.lost", timeout=60)
    driver.call(SET, panel(BATTLE, "select.luck-what"), "number:defender.lost")
    driver.call(SET, panel(BATTLE, "input.luck-value"), "3")
    driver.call(CLICK, panel(BATTLE, "[data-action=luck]"))
    wait_done(driver, BATTLE, timeout=180)
    shows(driver, panel(BATTLE, ".scenario-result"),
          once(luck.luck, w.id, b, {"defender.lost": 3}, seed=1, trials=SHARED_TRIALS, render=True)["html"],
          "how rare, shared by two engines")
    assert driver.call("(s) => document.querySelector(s).dataset.engines", panel(BATTLE, ".scenario-result")) == "2"
    # "Which assumptions matter", shared stage by stage: both engines' trials before the checkpoint at 200 decide
    # which readings play on, and both play the readings that do. The page engine plays a trial longer than
    # its slice (AT Gold's: 0.3 s against 100 ms) in slices of the readings, one call each; the card game's
    # trials are short, so the slice is cut to 10 ms here to play them that way.
    from engine import sensitivity
    answer = once(sensitivity.sensitivity, w.id, b, seed=1, trials=SHARED_TRIALS, render=True)
    assert any(a["stopped"] for r in answer["settings"] for a in r["alternatives"])
    driver.call("() => { globalThis.rulesExplorerShareSliceMs = 10; }")
    driver.call(CLICK, panel(BATTLE, "[data-action=assumptions]"))
    wait_done(driver, BATTLE, timeout=180)
    shows(driver, panel(BATTLE, ".scenario-result"), answer["html"], "which assumptions matter, shared by two engines")
    result = driver.call("(s) => ({...document.querySelector(s).dataset})", panel(BATTLE, ".scenario-result"))
    assert result["engines"] == "2" and int(result.get("sliced", 0)) > 0, result
    assert driver.errors() == []


def test_a_damaged_scenario_link_is_said_at_the_widgets_top_and_the_panel_is_accessible(guarded_page, site_url):
    page = guarded_page
    w = widgets.get("small_general.combat")
    bad_pin = linkstate.pack({"a": {"hex_sides": 99}, "s": {"input": "nope"}})
    unread = "the link's scenario (a pinned A, a sweep, a target, a result or the assumptions) could not be read"
    for state, words in (("~1.zAAAA", unread),
                         (bad_pin, "hex_sides")):
        page.goto(site_url + f"{SG_PAGE}?{SG}.scenario={quote(state, safe='~.')}&{SG}.hex_sides=2#{SG}")
        wait_until(page, "() => document.documentElement.dataset.widgetsLive === location.pathname", timeout=60_000)
        wait_until(page, "(s) => !document.querySelector(s).hidden", f"#{SG} .widget-messages")
        text = page.text_content(f"#{SG} .widget-messages")
        assert "Part of the link was not applied" in text and words in text, text
        assert page.input_value(f"#{SG}--hex_sides") == "2"  # the rest of the link was applied
        base = page.evaluate("(s) => JSON.parse(document.querySelector(s).textContent)", f"#{SG} script.widget-base")
        expected = w.render(w.run(w.validate({**base, "hex_sides": 2})))
        wait_until(page, "([s, h]) => { const t = document.createElement('template'); t.innerHTML = h; "
                   "return document.querySelector(s).innerHTML === t.innerHTML; }", [f"#{SG} .widget-result", expected])
    page.evaluate(OPEN, f"#{SG}")
    page.click(panel(SG, "[data-action=pin]"))
    page.fill(panel(SG, "input.target-threshold"), "50%")
    wait_until(page, "([s, v]) => [...document.querySelectorAll(s + ' option')].some((o) => o.value === v)",
               [panel(SG, "select.vary-input"), "hex_sides"])
    page.select_option(panel(SG, "select.vary-input"), "hex_sides")
    page.click(panel(SG, "[data-action=sweep]"))
    wait_until(page, "(s) => document.querySelector(s + ' .scenario-result').dataset.state === 'done'", f"#{SG}")
    assert axe_violations(page, f"#{SG} .widget-scenario") == []
    # At a phone's width the open panel, its long input names and its chart fit the screen.
    page.set_viewport_size({"width": 375, "height": 800})
    page.select_option(panel(SG, "select.vary-input"), "attacker.experience_level")
    page.click(panel(SG, "[data-action=sweep]"))
    wait_until(page, "(s) => document.querySelector(s + ' .scenario-result').dataset.state === 'done'", f"#{SG}")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375


RETREAT_PAGE, RETREAT = "small-general/defenders-and-retreats.html", "sg-retreat"


def test_the_sentence_under_a_result_follows_the_inputs_and_leads_to_its_setting(guarded_page, site_url):
    """Issue 22: a calculator whose headline an assumed setting moves far says so under its result, kept up
    to date live; its link opens the settings and puts the setting in focus. The panel's 'Which assumptions
    matter' shows the engine's tornado chart and table."""
    from engine import sensitivity
    page = guarded_page
    page.goto(site_url + RETREAT_PAGE)
    wait_until(page, "() => document.documentElement.dataset.widgetsLive === location.pathname", timeout=60_000)
    note = f"#{RETREAT} .sensitivity-note"
    base = page.evaluate("(s) => JSON.parse(document.querySelector(s).textContent)", f"#{RETREAT} script.widget-base")
    changed = {**base, "retreat_hexes": 1}
    expected = sensitivity.note_html(sensitivity.sensitivity("small_general.combat", changed), RETREAT)
    assert expected and expected != sensitivity.note_html(sensitivity.sensitivity("small_general.combat", base), RETREAT)
    page.fill(f"#{RETREAT}--retreat_hexes", "1")
    page.dispatch_event(f"#{RETREAT}--retreat_hexes", "change")
    wait_until(page, "([s, h]) => { const t = document.createElement('template'); t.innerHTML = h; "
               "const e = document.querySelector(s); return !e.hidden && e.innerHTML === t.innerHTML; }", [note, expected])
    # With the settings panel showing only those changed (none here), the link shows them all: the setting it names
    # was hidden, could not take focus, and the link seemed to do nothing.
    page.evaluate("(s) => { document.querySelector(s).open = true; }", f"#{RETREAT} details.settings")
    page.wait_for_selector(f"#{RETREAT}--settings-changed-only")
    page.check(f"#{RETREAT}--settings-changed-only")
    assert not page.is_visible(f"#{RETREAT}--settings-retreat_direction")
    page.click(f"{note} a.setting-link")
    wait_until(page, "(id) => document.activeElement?.id === id", f"{RETREAT}--settings-retreat_direction", timeout=10_000)
    assert page.is_visible(f"#{RETREAT}--settings-retreat_direction")
    assert page.evaluate("(id) => document.getElementById(id).closest('details').open", f"{RETREAT}--settings-retreat_direction")
    page.evaluate(OPEN, f"#{RETREAT}")
    page.click(panel(RETREAT, "[data-action=assumptions]"))
    w = widgets.get("small_general.combat")
    html = sensitivity.sensitivity(w.id, w.validate(changed), render=True)["html"]
    wait_until(page, "([s, h]) => { const t = document.createElement('template'); t.innerHTML = h; "
               "return document.querySelector(s).innerHTML === t.innerHTML; }", [panel(RETREAT, ".scenario-result"), html])


@browsers("chromium", "firefox", "webkit")
def test_how_lucky_places_what_happened_as_cpython_does(driver, site_url):
    """Issue 22: say what happened (a calculator's result; a battle's number or ending) and see how rare it is,
    exactly for a calculator, from the run's own trials for a battle; a blank number is said in words. What
    happened, and which assumptions matter, are kept in the link."""
    from engine import luck, sensitivity
    open_live(driver, site_url + SG_PAGE)
    w = widgets.get("small_general.combat")
    inputs = w.validate(base_inputs(driver, SG))
    driver.call(OPEN, f"#{SG}")
    driver.wait(HAS_OPTION, panel(SG, "select.luck-what"), "result:DEF Retreat + Loss", timeout=30)
    driver.call(SET, panel(SG, "select.luck-what"), "result:DEF Retreat + Loss")
    driver.call(CLICK, panel(SG, "[data-action=luck]"))
    expected = luck.luck(w.id, inputs, {"result": "DEF Retreat + Loss"}, render=True)["html"]
    shows(driver, panel(SG, ".scenario-result"), expected, "how rare a calculator's result is")
    # What happened travels in the link, which no longer keeps a sweep shown before it: opened afresh, the page
    # says how rare it is again, the form showing the result it places.
    vary(driver, SG, "terrain")
    driver.call(CLICK, panel(SG, "[data-action=sweep]"))
    driver.call(CLICK, panel(SG, "[data-action=luck]"))
    link = scenario_link(driver, SG, lambda state: state == {"h": {"result": "DEF Retreat + Loss"}})
    open_live(driver, link)
    shows(driver, panel(SG, ".scenario-result"), expected, "how rare a result is, from the link")
    assert driver.call("(s) => document.querySelector(s).value", panel(SG, "select.luck-what")) \
        == "result:DEF Retreat + Loss"
    # So does "Which assumptions matter" (the same link code: WebKit, the slowest to boot a page, reopens one link).
    if driver.name != "webkit":
        driver.call(CLICK, panel(SG, "[data-action=assumptions]"))
        link = scenario_link(driver, SG, lambda state: state == {"m": 1})
        open_live(driver, link)
        shows(driver, panel(SG, ".scenario-result"), sensitivity.sensitivity(w.id, inputs, render=True)["html"],
              "which assumptions matter, from the link")
    b = widgets.get("sgs.battle")
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}.trials={BATTLE_TRIALS}#{BATTLE}")
    inputs = b.validate(base_inputs(driver, BATTLE))
    driver.call(OPEN, f"#{BATTLE}")
    driver.wait(HAS_OPTION, panel(BATTLE, "select.luck-what"), "number:defender.lost", timeout=60)
    driver.call(SET, panel(BATTLE, "select.luck-what"), "number:defender.lost")
    driver.call(CLICK, panel(BATTLE, "[data-action=luck]"))
    driver.wait("(s) => document.querySelector(s).dataset.state === 'failed'", panel(BATTLE, ".scenario-result"), timeout=30)
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    # named as the panel lists it, not by its path
    assert status == "Not run: Defender lost: nothing entered; give how many there were.", status
    driver.call(SET, panel(BATTLE, "input.luck-value"), "3")
    driver.call(CLICK, panel(BATTLE, "[data-action=luck]"))
    wait_done(driver, BATTLE, timeout=120)
    expected = once(luck.luck, b.id, inputs, {"defender.lost": 3}, seed=1, trials=BATTLE_TRIALS, render=True)["html"]
    shows(driver, panel(BATTLE, ".scenario-result"), expected, "how rare a battle's losses are, over the run's trials")
    driver.call(SET, panel(BATTLE, "select.luck-what"), "ending:defender routed")
    driver.call(CLICK, panel(BATTLE, "[data-action=luck]"))
    wait_done(driver, BATTLE, timeout=120)
    expected = once(luck.luck, b.id, inputs, {"ending": "defender routed"}, seed=1, trials=BATTLE_TRIALS, render=True)["html"]
    shows(driver, panel(BATTLE, ".scenario-result"), expected, "how rare a battle's ending is")
    # The seeded battle says the same of itself once a run of its inputs has ended: among that run's battles.
    driver.call(CLICK, f"#{BATTLE} [data-action=sim-run]")
    driver.wait_run_done(f"#{BATTLE} .widget-sim", timeout=120)
    tally = b.estimate(inputs, 1, 0, BATTLE_TRIALS).to_json()
    note = once(luck.luck, b.id, inputs, b.roll(inputs, 1)["observed"], seed=1, count=0, tally=tally)["note"]
    driver.wait("([s, t]) => { const p = document.querySelector(s); return !p.hidden && !p.dataset.outdated "
                "&& p.textContent === t; }", [f"#{BATTLE} .roll-luck", note], timeout=30)
    assert driver.errors() == []


ASSUMPTION_TRIALS = 250
"""Battles of a battle's 'Which assumptions matter': past the first checkpoint (200), where readings that
changed no battle stop, over many calls; few enough for the slowest browser."""


@browsers("chromium", "firefox", "webkit")
def test_a_battles_assumptions_stop_readings_early_as_cpython_does_however_the_calls_were_cut(driver, site_url):
    """Issue 22: a battle's 'Which assumptions matter' streams in calls the page sizes by time, and ends on
    CPython's answer in one call: the same readings stopped at the same checkpoint, the table saying so."""
    from engine import sensitivity
    w = widgets.get("sgs.battle")
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}.trials={ASSUMPTION_TRIALS}#{BATTLE}")
    inputs = w.validate(base_inputs(driver, BATTLE))
    answer = once(sensitivity.sensitivity, w.id, inputs, seed=1, trials=ASSUMPTION_TRIALS, render=True)
    readings = [a for r in answer["settings"] for a in r["alternatives"]]
    assert any(a["stopped"] for a in readings) and any(not a["stopped"] for a in readings)
    driver.call(OPEN, f"#{BATTLE}")
    driver.call(CLICK, panel(BATTLE, "[data-action=assumptions]"))
    wait_done(driver, BATTLE, timeout=180)
    shows(driver, panel(BATTLE, ".scenario-result"), answer["html"], "which assumptions matter, readings stopped early")
    text = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-result"))
    assert "200: changed none, stopped (at most 1.9 % of battles)" in text
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    assert status == f"Done: {ASSUMPTION_TRIALS} trials.", status
    assert driver.errors() == []


@browsers("chromium")
def test_a_battles_assumptions_run_whose_readings_all_stop_keeps_its_calls_within_the_engines_bound(driver, site_url):
    """12 against 1: no reading changes a battle, all stop at 200 and the inputs as they are play on alone, so a
    call of the same length holds far more trials; the page's calls stay within the most the engine takes a
    call (the answer's most_count), and the run ends on CPython's answer. Chromium only, for the run's time
    budget: the calls' sizing is scenario.js, the same in every browser, and the test above runs a battle's
    assumptions in all three."""
    from engine import sensitivity
    w = widgets.get("sgs.battle")
    open_live(driver, site_url + f"{BATTLE_PAGE}#{BATTLE}")
    base = w.validate(base_inputs(driver, BATTLE))
    lone = jsonable(base)
    lone["defender"]["units"] = lone["defender"]["units"][:1]
    values = w.validate(lone)
    trials = 20_000
    answer = once(sensitivity.sensitivity, w.id, values, seed=1, trials=trials, render=True)
    readings = [a for r in answer["settings"] for a in r["alternatives"]]
    assert readings and all(a["trials"] == 200 for a in readings)
    assert trials > api.MAX_SCENARIO_TRIALS // (1 + len(readings)) * 4  # more than a few calls at the bound
    state = w.state_text(values, base)
    open_live(driver, site_url + f"{BATTLE_PAGE}?{BATTLE}={quote(state, safe='~.')}&{BATTLE}.trials={trials}#{BATTLE}")
    driver.call(OPEN, f"#{BATTLE}")
    driver.call(CLICK, panel(BATTLE, "[data-action=assumptions]"))
    driver.wait("(s) => ['done', 'failed'].includes(document.querySelector(s + ' .scenario-result').dataset.state)",
                f"#{BATTLE}", timeout=240)
    status = driver.call("(s) => document.querySelector(s).textContent", panel(BATTLE, ".scenario-status"))
    assert status == f"Done: {trials:,} trials.", status
    shows(driver, panel(BATTLE, ".scenario-result"), answer["html"], "every reading stopped at the first checkpoint")
    assert driver.errors() == []


@browsers("chromium")
@pytest.mark.pooled
def test_at_golds_assumptions_copy_the_battles_a_reading_never_read_and_end_on_cpythons_answer(driver, site_url):
    """AT Gold's battles note the rule variables they read (``Widget.watched``), and each reading of a variable
    a battle never read copies that battle instead of playing it: the page's run (Pyodide, calls of a few
    trials on two engines) ends on CPython's answer. Chromium only, for the run's time budget: the copying is the
    engine's Python, the same in every browser; the test above runs a battle's stopping stages in all three."""
    from engine import sensitivity
    w = widgets.get("atg.battle")
    page, instance, trials = "atg/interception.html", "atg-intercept-battle", 60
    open_live(driver, site_url + f"{page}#{instance}")
    base = w.validate(base_inputs(driver, instance))
    values = w.validate({**jsonable(base), "combat": "land", "interceptors": [], "aa_support": [],
                         "attackers": [{"type": "Infantry", "count": 2}, {"type": "Tank", "count": 1}],
                         "defenders": [{"type": "Infantry", "count": 2}]})
    answer = once(sensitivity.sensitivity, w.id, values, seed=1, trials=trials, render=True)
    state = w.state_text(values, base)
    open_live(driver, site_url + f"{page}?{instance}={quote(state, safe='~.')}&{instance}.trials={trials}#{instance}")
    driver.call(OPEN, f"#{instance}")
    driver.call(CLICK, panel(instance, "[data-action=assumptions]"))
    wait_done(driver, instance, timeout=240)
    shows(driver, panel(instance, ".scenario-result"), answer["html"], "AT Gold's assumptions, battles copied")
    assert driver.errors() == []
