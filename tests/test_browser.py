"""The built site in Chromium: the engine live in its worker, agreeing with CPython.

Every page with widgets is opened twice: once with JavaScript off (the
pre-rendered result must be there) and once live. Live, each widget must
first show exactly what was pre-rendered, then follow a series of input
changes, a list edit and a seeded roll with exactly the HTML that the
CPython engine renders for the same inputs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

import build
from engine import schema, widgets
from engine.schema import InputError

from browsers import WARM_UP_OFF, settings_script
from conftest import BOOT_TIMEOUT_MS, PageGuard, axe_violations, check_guard, kept_page, wait_until

pytestmark = pytest.mark.browser

BOOT_MS = 60_000
SETTLE_MS = 15_000


def site_widgets() -> list[tuple[str, str, str]]:
    """(page url, widget id, instance) for every widget block of the real site."""
    found = []
    for page in build.collect_pages(build.Config()):
        for kind, ident, instance, *_ in build.page_blocks(page.text, str(page.source)):
            if kind == "widget":
                found.append((page.url, ident, instance))
    return found


WIDGETS = site_widgets()
PAGES = sorted({url for url, _, _ in WIDGETS})
A11Y_SAMPLE = sorted({url for url, _, _ in WIDGETS if url.split("/")[0] not in
                      {u.split("/")[0] for u, _, _ in WIDGETS if u < url}})
"""The first widget page of each system: the pre-rendered, phone-width and dark-colour axe passes
use these (every widget page is checked by axe live in light colours)."""


def wait_live(page) -> None:
    wait_until(page, "() => document.documentElement.dataset.widgetsLive === location.pathname", timeout=BOOT_MS)


def normalise(page, html: str) -> str:
    """HTML as the browser serialises it, so engine output compares with innerHTML."""
    return page.evaluate("h => { const t = document.createElement('template'); t.innerHTML = h; return t.innerHTML; }", html)


def wait_html(page, selector: str, html: str, what: str) -> None:
    """Wait until the element shows exactly this HTML; fail with both versions if it never does."""
    expected = normalise(page, html)
    try:
        wait_until(page, "([s, h]) => { const e = document.querySelector(s); return e && e.innerHTML === h; }",
                   [selector, expected], timeout=SETTLE_MS)
    except TimeoutError:
        actual = page.evaluate("s => document.querySelector(s)?.innerHTML", selector) or ""
        at = next((i for i, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
        raise AssertionError(f"{what}: the page does not show the CPython result; first difference at {at}:\n"
                             f"expected: …{expected[max(0, at - 300):at + 300]}\n"
                             f"actual:   …{actual[max(0, at - 300):at + 300]}") from None


def open_parts(page, instance: str) -> None:
    """Open every form part of the widget (the elements the build leaves out of the page:
    build.PART_OVER) and wait until each is loaded in its placeholder's place."""
    page.eval_on_selector_all(f"#{instance} details.part", "els => els.forEach(d => { d.open = true; })")
    wait_until(page, "(s) => document.querySelectorAll(s + ' details.part').length === 0", f"#{instance}")


def base_inputs(page, instance: str) -> dict[str, Any]:
    return json.loads(page.eval_on_selector(f"#{instance} script.widget-base", "e => e.textContent"))


def changes(group: schema.Group, values: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, schema.Field, Any]]:
    """A different valid value for each scalar field (lists are edited separately)."""
    for f in group.fields:
        path = f"{prefix}.{f.name}" if prefix else f.name
        value = values[f.name]
        if isinstance(f, schema.Group):
            yield from changes(f, value, path)
        elif isinstance(f, schema.Choice):
            others = [c for c in f.choices if c != value]
            if others:
                yield path, f, others[-1]
        elif isinstance(f, schema.Text):
            others = [c for c in f.suggestions if c != value]
            if others:
                yield path, f, others[-1]
        elif isinstance(f, schema.Boolean):
            yield path, f, not value
        elif isinstance(f, schema.Integer):
            if f.maximum is not None and value < f.maximum:
                yield path, f, value + 1
            elif f.minimum is not None and value > f.minimum:
                yield path, f, value - 1
        elif isinstance(f, schema.Number):
            yield path, f, schema.fraction_text(value + 1) if f.maximum is None or value + 1 <= f.maximum else None


def set_path(values: dict[str, Any], path: str, value: Any) -> None:
    *head, last = path.split(".")
    for part in head:
        values = values[part]
    values[last] = value


def set_control(page, instance: str, path: str, f: schema.Field, value: Any) -> None:
    selector = f"#{instance}--{path.replace('.', '-')}"
    if isinstance(f, schema.Choice):
        page.select_option(selector, value)
    elif isinstance(f, schema.Boolean):
        page.set_checked(selector, bool(value))
    else:
        page.fill(selector, str(value))


def expected_run(w: widgets.Widget, inputs: dict[str, Any]) -> tuple[str | None, str | None]:
    """(html, None) for valid inputs, (None, error message) for invalid ones."""
    try:
        return w.render(w.run(inputs)), None
    except InputError as exc:
        return None, str(exc)


@pytest.fixture(scope="module")
def prerendered(browser, site_url) -> dict[str, dict[str, str]]:
    """Each page's widget results as shown with JavaScript off."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    shown: dict[str, dict[str, str]] = {}
    for url in PAGES:
        page.goto(site_url + url)
        assert page.locator("noscript").count() == 1
        shown[url] = dict(page.eval_on_selector_all(
            "section.widget", "els => els.map(e => [e.id, e.querySelector('.widget-result').innerHTML])"))
    context.close()
    return shown


def test_site_has_widgets_for_every_system():
    systems = {wid.split(".")[0] for _, wid, _ in WIDGETS}
    assert {"small_general", "ocs", "europa"} <= systems


@pytest.fixture(scope="module")
def reading(browser, browser_context_args, site_url) -> Iterator[tuple[object, object]]:
    """One guarded page for the tour below, kept across its tests: a reader's visit, page to page."""
    with kept_page(browser, browser_context_args, site_url) as kept:
        yield kept


NAVIGATE = "(url) => { window.rulesExplorer.navigate(new URL(url, location.href), true); }"
"""An in-site link followed (navigation.js): the page changes, the engine stays."""
LIVE_AT = """(path) => location.pathname === path && document.documentElement.dataset.widgetsLive === path
    && {restarts: window.rulesExplorer.engine.bootRestarts}"""


def go_to(page, site_url: str, url: str) -> None:
    """The page ``url``, reached as a reader goes on: by the site's own navigation, which keeps the engine; the
    first page of the tour (or one after a test that left no live page) is a first visit."""
    if page.url.startswith(site_url) and page.evaluate("() => Boolean(document.documentElement.dataset.widgetsLive)"):
        page.evaluate(NAVIGATE, site_url + url)
        wait_until(page, LIVE_AT, urlsplit(site_url + url).path, timeout=BOOT_MS)
    else:
        page.goto(site_url + url)
        wait_live(page)


@pytest.mark.parametrize("url", PAGES)
def test_widgets_live_and_equal_to_cpython(reading, site_url, prerendered, url):
    """Every widget page, one after another in one visit (in-site navigation keeps the engine, as for a reader:
    the first visit's boot is every other test's): live results equal the pre-rendered ones and CPython's."""
    page, guard = reading
    try:
        go_to(page, site_url, url)
        _widgets_live_and_equal_to_cpython(page, prerendered, url)
    finally:
        check_guard(page, guard)


def _widgets_live_and_equal_to_cpython(page, prerendered, url: str) -> None:
    # 0. accessible as a live page; in dark colours too on one page per system (same CSS, same parts)
    for scheme in ("light", "dark") if url in A11Y_SAMPLE else ("light",):
        page.emulate_media(color_scheme=scheme)
        assert axe_violations(page) == [], f"{url} ({scheme})"
    for _, widget_id, instance in [w for w in WIDGETS if w[0] == url]:
        w = widgets.get(widget_id)
        result_sel = f"#{instance} .widget-result"
        status = page.text_content(f"#{instance} .engine-status")
        assert status.startswith("Live"), status
        # 1. the live default equals the pre-rendered one, character for character
        assert prerendered[url][instance].strip(), f"#{instance} has no pre-rendered result"
        assert page.inner_html(result_sel) == prerendered[url][instance]
        # 2. every scalar input, changed one after another, matches CPython
        open_parts(page, instance)
        page.eval_on_selector_all(f"#{instance} details.settings", "els => els.forEach(d => d.open = true)")
        inputs = base_inputs(page, instance)
        for path, f, value in list(changes(w.inputs, w.validate(inputs)))[:10]:
            if value is None:
                continue
            trial = json.loads(json.dumps(inputs))
            set_path(trial, path, schema.to_text(value) if not isinstance(value, str) else value)
            html, error = expected_run(w, trial)
            set_control(page, instance, path, f, value)
            if error is None:
                wait_html(page, result_sel, html, f"#{instance} after {path} = {value}")
                inputs = trial
            else:  # an impossible combination: the message shows, then we step back
                page.wait_for_selector(f"#{instance} .widget-messages:not([hidden])")
                assert error.split(": ", 1)[-1] in page.text_content(f"#{instance} .widget-messages")
                set_control(page, instance, path, f, _get(w.validate(inputs), path))
                wait_html(page, result_sel, expected_run(w, inputs)[0], f"#{instance} back after {path}")
        # 3. a list edit (add a unit, remove the first) matches CPython
        for path, f in list_fields(w.inputs):
            current = _get(w.validate(inputs), path)
            if len(current) < f.max_items:
                page.click(f"#{instance}--{path.replace('.', '-')} > .add-item")
                trial = json.loads(json.dumps(schema.jsonable(w.validate(inputs))))
                set_path(trial, path, _get(trial, path) + [schema.jsonable(f.item.validate(None))])
                html, error = expected_run(w, trial)
                if error is None:
                    wait_html(page, result_sel, html, f"#{instance} after adding to {path}")
                    inputs = trial
                    current = _get(w.validate(inputs), path)
                else:  # the default row makes the list invalid: the message shows, then the row goes
                    wait_until(page, "([s, m]) => document.querySelector(s).textContent.includes(m)",
                               [f"#{instance} .widget-messages", error.split(": ", 1)[-1]])
                    page.click(f"#{instance}--{path.replace('.', '-')} .items > [data-item]:last-child .remove-item")
                    wait_html(page, result_sel, expected_run(w, inputs)[0], f"#{instance} after removing the bad row")
            if len(current) > f.min_items:
                # the first row whose removal leaves valid inputs (a unit type still named by a unit stays)
                for k in range(len(current)):
                    trial = json.loads(json.dumps(schema.jsonable(w.validate(inputs))))
                    set_path(trial, path, _get(trial, path)[:k] + _get(trial, path)[k + 1:])
                    html, error = expected_run(w, trial)
                    if error is None:
                        break
                if error is None:
                    page.click(f"#{instance}--{path.replace('.', '-')} .items > [data-item]:nth-child({k + 1}) .remove-item")
                    wait_html(page, result_sel, html, f"#{instance} after removing row {k + 1} from {path}")
                    inputs = trial
        # 4. a seeded roll replays exactly as in CPython
        if w.sample is not None:
            page.fill(f"#{instance}--seed", "424242")
            page.click(f"#{instance} [data-action=replay]")
            wait_html(page, f"#{instance} .roll-result", w.render_sample(w.roll(inputs, 424242)),
                      f"#{instance} roll with seed 424242")


def list_fields(group: schema.Group, prefix: str = "") -> Iterator[tuple[str, schema.ListOf]]:
    for f in group.fields:
        path = f"{prefix}.{f.name}" if prefix else f.name
        if isinstance(f, schema.ListOf):
            yield path, f
        elif isinstance(f, schema.Group):
            yield from list_fields(f, path)


def _get(values: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        values = values[part]
    return values


@pytest.mark.parametrize("url", [p.url for p in build.collect_pages(build.Config()) if p.url not in PAGES]
                         + ["search.html?q=surprise"])
def test_pages_without_widgets_are_accessible(guarded_page, site_url, url):
    page = guarded_page
    page.goto(site_url + url)
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert axe_violations(page) == [], f"{url} ({scheme})"


def test_axe_check_finds_a_planted_violation(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url)
    page.evaluate("() => { const i = document.createElement('img'); i.src = 'static/favicon.svg'; document.querySelector('main').append(i); }")
    assert any(v.startswith("image-alt") for v in axe_violations(page))


def test_prerendered_pages_are_accessible(browser, site_url):
    """The pages as a reader without JavaScript gets them (widgets pre-rendered, not live).

    axe needs timers, so it cannot run with JavaScript off; blocking the site's
    own script gives the same DOM.
    """
    context = browser.new_context()
    context.route("**/static/widgets.js", lambda route: route.abort())
    page = context.new_page()
    for url in A11Y_SAMPLE:
        page.goto(site_url + url)
        assert page.get_attribute("section.widget .engine-status", "data-state") == "static"
        assert axe_violations(page) == [], url
    context.close()


def test_search_finds_rules_and_calculators_and_leads_there(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url + "ocs/combat-table-and-odds.html")
    page.evaluate("window.visitMarker = 1")
    page.fill("#site-search-q", "hedgehog surprise")
    page.press("#site-search-q", "Enter")
    page.wait_for_selector("#search-results li")
    assert page.evaluate("window.visitMarker") == 1  # an in-site move, not a reload
    assert "q=hedgehog+surprise" in page.url
    assert "found for “hedgehog surprise”" in page.text_content("#search-status")
    first = page.locator("#search-results li a").first
    assert any(w in first.text_content().lower() for w in ("combat modifier", "surprise"))
    assert page.locator("#search-results mark").count() >= 2
    page.fill("#search-query", "stack builder")
    wait_until(page, "() => [...document.querySelectorAll('#search-results a')].some(a => a.textContent.startsWith('Calculator:'))")
    page.fill("#search-query", "qwxzv")
    wait_until(page, "() => document.getElementById('search-status').textContent.startsWith('Nothing found')")
    page.fill("#search-query", "surprise")
    page.locator("#search-results li a").first.click()
    wait_until(page, "() => location.pathname.startsWith('/ocs/') && location.hash.length > 1")


def test_glossary_link_from_the_text(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url + "europa/conversions-and-totals.html")
    page.click("a.term[href$='#term-regimental-equivalent']")
    wait_until(page, "() => location.pathname === '/glossary.html' && location.hash === '#term-regimental-equivalent'")
    assert page.title().startswith("Glossary")
    assert page.is_visible("#term-regimental-equivalent")


PHONE_WIDTH = 375
"""A small phone's width in CSS pixels (an iPhone SE or mini)."""

SMALL_TARGETS = """(doc) => {
    // Every control a finger must hit is at least 24 px each way (WCAG 2.5.8), counting its label.
    doc = doc || document;
    const small = [];
    for (const el of doc.querySelectorAll('button, input:not([type=hidden]), select, summary, textarea')) {
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height || doc.defaultView.getComputedStyle(el).visibility === 'hidden') continue;
        let w = r.width, h = r.height;
        const label = el.id && doc.querySelector(`label[for="${CSS.escape(el.id)}"]`);
        if (label) { const l = label.getBoundingClientRect(); w = Math.max(w, l.width); h = Math.max(h, l.height); }
        if (w < 24 || h < 24) small.push(`${el.tagName.toLowerCase()}#${el.id} ${Math.round(w)}x${Math.round(h)}`);
    }
    return small.slice(0, 5);
}"""


OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
"""How far a page is wider than its viewport (0 when nothing scrolls sideways)."""


def test_phone_width_pages_fit_and_are_accessible(browser, site_url):
    """At 375 px in mobile emulation nothing makes a page scroll sideways (wide tables scroll in their own
    region), every control is a 24 px target, and axe passes."""
    context = browser.new_context(viewport={"width": PHONE_WIDTH, "height": 800}, is_mobile=True, has_touch=True)
    context.route("**/static/widgets.js", lambda route: route.abort())
    page = context.new_page()
    all_pages = [p.url for p in build.collect_pages(build.Config())]
    for url in all_pages:
        page.goto(site_url + url)
        overflow = page.evaluate(OVERFLOW)
        assert overflow == 0, f"{url} is {overflow} px too wide at {PHONE_WIDTH} px"
        assert page.evaluate(SMALL_TARGETS) == [], url
        # axe at phone width on the first page of each system and the pages outside them
        # (every widget page is checked by axe live, in light and dark, above)
        if url in A11Y_SAMPLE or "/" not in url:
            assert axe_violations(page) == [], url
    context.close()


def live_phone_context(browser):
    """A phone's context (375 px, touch) whose pages go live with one engine and no warm-up or service worker."""
    context = browser.new_context(viewport={"width": PHONE_WIDTH, "height": 800}, is_mobile=True, has_touch=True,
                                  service_workers="block")
    context.add_init_script(settings_script(WARM_UP_OFF) + "globalThis.rulesExplorerWorkers = 1;")
    return context


def test_worked_examples_opened_at_phone_width_scroll_in_place(browser, site_url, built_site):
    """A worked example's result is left out of the page and loaded when its details open (forms.js loadView):
    as wide as the widget's own result, it must scroll in its place as that does. Small General's candidate
    tables made the defenders page 272 px too wide at 375 px once an example was open."""
    too_wide = []
    with_examples = [url for url in PAGES if 'class="examples' in (built_site / url).read_text(encoding="utf-8")]
    assert with_examples
    for url in with_examples:  # a first visit each (one page going from one booting engine to the next crashed Chromium here)
        context = live_phone_context(browser)
        page = context.new_page()
        page.goto(site_url + url)
        page.eval_on_selector_all(".examples details", "els => els.forEach(d => { d.open = true; })")
        wait_until(page, "() => !document.querySelector('.examples details a[data-part-src]')", timeout=BOOT_MS)
        overflow = page.evaluate(OVERFLOW)
        if overflow:
            too_wide.append(f"{url}: {overflow} px")
        context.close()
    assert too_wide == [], f"too wide at {PHONE_WIDTH} px with the worked examples open: {too_wide}"


def test_a_links_notices_wrap_at_phone_width(browser, site_url):
    """A link's notices quote what it carried: a long key (of no widget, or of no input of a widget) or a long
    "#" part, with no space to break at, wraps inside its notice at 375 px rather than pushing the page wider."""
    context = live_phone_context(browser)
    page = context.new_page()
    page.goto(site_url + f"ocs/combat-table-and-odds.html?no-such-widget.{'x' * 80}=1&ocs-odds.bogus_{'y' * 150}=1"
                         f"#ocs-odds.attack={'9' * 100}")
    wait_until(page, "() => document.querySelectorAll('.link-notice').length === 2", timeout=BOOT_MS)
    wait_until(page, "() => document.querySelector('#ocs-odds .widget-messages').textContent.includes('bogus_')",
               timeout=BOOT_MS)
    assert page.evaluate(OVERFLOW) == 0
    context.close()


NARROW_WIDTH = 320
"""The narrowest phones, and an embed's frame in a host page's column."""


def test_pages_and_embeds_fit_a_320_px_frame(browser, site_url, built_site):
    """At 320 px every page and every widget's embed page fits without scrolling sideways. Two had not: the
    site's search form stood 1 px past the header, and a battle's embed page was 35-49 px too wide, its
    result table's visually hidden "Bar" heading placed against the page instead of inside the result area
    that scrolls."""
    context = browser.new_context(viewport={"width": NARROW_WIDTH, "height": 800}, is_mobile=True, has_touch=True)
    context.route("**/static/widgets.js", lambda route: route.abort())  # the pre-rendered pages, as built
    page = context.new_page()
    embeds = sorted(p.relative_to(built_site).as_posix() for p in (built_site / "embed").glob("*/*/*.html"))
    assert len(embeds) >= 20, embeds
    too_wide = []
    for url in [p.url for p in build.collect_pages(build.Config())] + embeds:
        page.goto(site_url + url)
        overflow = page.evaluate(OVERFLOW)
        if overflow:
            too_wide.append(f"{url}: {overflow} px")
    context.close()
    assert too_wide == [], f"too wide at {NARROW_WIDTH} px: {too_wide}"


# Small General: links, bad links, bad input, copy link --------------------

SG_PAGE = next((url for url, wid, _ in WIDGETS if wid == "small_general.combat"), None)
SG = next((inst for url, wid, inst in WIDGETS if wid == "small_general.combat"), None)


def sg_state_query(instance: str, pairs: dict[str, str]) -> str:
    return "&".join(f"{instance}.{k}={quote(v, safe='')}" for k, v in pairs.items())


def test_link_reproduces_a_state(guarded_page, site_url):
    page = guarded_page
    pairs = {"terrain": "town", "hex_sides": "3", "attacker.supply": "problem", "defender.state": "shocked"}
    page.goto(f"{site_url}{SG_PAGE}?{sg_state_query(SG, pairs)}&{SG}.seed=77#{SG}")
    wait_live(page)
    w = widgets.get("small_general.combat")
    base = base_inputs(page, SG)
    values, rejected = w.from_link(pairs, base)
    assert rejected == []
    wait_html(page, f"#{SG} .widget-result", w.render(w.run(values)), "linked state")
    wait_html(page, f"#{SG} .roll-result", w.render_sample(w.roll(values, 77)), "linked seed")
    assert page.input_value(f"#{SG}--terrain") == "town"
    assert page.input_value(f"#{SG}--hex_sides") == "3"
    assert page.input_value(f"#{SG}--attacker-supply") == "problem"
    assert page.is_hidden(f"#{SG} .widget-messages")
    # the address bar keeps the state, and the share box (written once the state has settled) offers the same link
    assert f"{SG}.terrain=town" in page.url
    wait_until(page, "([sel, s]) => document.querySelector(sel).value.includes(s)", [f"#{SG}--link", f"{SG}.terrain=town"],
               timeout=5_000)
    share = page.input_value(f"#{SG}--link")
    page.goto(share)
    wait_live(page)
    wait_html(page, f"#{SG} .widget-result", w.render(w.run(values)), "shared link")


def test_a_key_the_link_gives_twice_is_said_and_its_last_value_applied(guarded_page, site_url):
    """A hand-edited link that added a value rather than changed one (hex_sides=2&hex_sides=3) took the last
    without a word."""
    page = guarded_page
    page.goto(f"{site_url}{SG_PAGE}?{SG}.hex_sides=2&{SG}.terrain=forest&{SG}.hex_sides=3")
    wait_live(page)
    assert page.text_content(".link-notice") == (f"This link gives {SG}.hex_sides more than once; the last value "
                                                 "given was applied.")
    assert page.input_value(f"#{SG}--hex_sides") == "3"


def test_malformed_link_reports_each_rejected_part(guarded_page, site_url):
    page = guarded_page
    query = f"{SG}.terrain=swamp&{SG}.hex_sides=3&{SG}.attacker.nonsense=1&nowidget.x=1"
    page.goto(f"{site_url}{SG_PAGE}?{query}")
    wait_live(page)
    messages = page.locator(f"#{SG} .widget-messages")
    messages.wait_for(state="visible")
    text = messages.text_content()
    assert "terrain: 'swamp' is not allowed" in text and "clear, forest, town" in text
    assert "attacker.nonsense: no input of this widget has that name" in text
    notice = page.text_content(".link-notice")
    assert "nowidget.x names no widget on this page" in notice and "The rest of the link was applied" in notice
    # the valid part is kept, the rejected ones fall back to the page's inputs
    w = widgets.get("small_general.combat")
    base = base_inputs(page, SG)
    values, _ = w.from_link({"hex_sides": "3"}, base)
    wait_html(page, f"#{SG} .widget-result", w.render(w.run(values)), "valid part of a bad link")
    assert page.input_value(f"#{SG}--terrain") == base["terrain"]


def test_bad_input_shows_its_message_in_place(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    before = page.inner_html(f"#{SG} .widget-result")
    page.fill(f"#{SG}--hex_sides", "9")
    error = page.locator(f"#{SG}--hex_sides-error")
    error.wait_for(state="visible")
    # Beside the field, the message alone; at the widget's top, with the field as the page names it (not its path).
    assert error.text_content() == "9 is out of range; enter a whole number from 1 to 6"
    assert page.text_content(f"#{SG} .widget-messages") == ("Not computed: Hex sides used: 9 is out of range; enter a "
                                                            "whole number from 1 to 6. The results below are for the "
                                                            "last inputs that worked.")
    assert page.get_attribute(f"#{SG}--hex_sides", "aria-invalid") == "true"
    assert page.get_attribute(f"#{SG} .widget-result", "data-state") == "stale"
    assert page.inner_html(f"#{SG} .widget-result") == before
    page.fill(f"#{SG}--hex_sides", "")
    wait_until(page, f"() => document.getElementById('{SG}--hex_sides-error').textContent.includes('enter a whole number')")
    page.fill(f"#{SG}--hex_sides", "2")
    wait_until(page, f"() => document.querySelector('#{SG} .widget-result').dataset.state === 'live'")
    assert page.is_hidden(f"#{SG}--hex_sides-error")


def test_bad_seed_is_reported(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    page.fill(f"#{SG}--seed", "-5")
    page.click(f"#{SG} [data-action=replay]")
    wait_until(page, f"() => document.querySelector('#{SG} .widget-messages').textContent.includes('seed')")
    assert "not a seed" in page.text_content(f"#{SG} .widget-messages")


def test_keyboard_only_change(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    page.focus(f"#{SG}--terrain")
    page.keyboard.press("ArrowDown")
    w = widgets.get("small_general.combat")
    base = base_inputs(page, SG)
    chosen = page.input_value(f"#{SG}--terrain")
    assert chosen != base["terrain"]
    values, _ = w.from_link({"terrain": chosen}, base)
    wait_html(page, f"#{SG} .widget-result", w.render(w.run(values)), "keyboard change")


@pytest.mark.parametrize("blocked, timeout_ms, reason", [
    ("**/static/engine-start.js", None, "its start-up script did not load"),
    ("**/pyodide/pyodide.mjs", None, "could not start"),
    # an aborted .wasm download makes Pyodide hang, not fail: the watchdog reports it
    ("**/pyodide/pyodide.asm.wasm", 4000, "did not start within 4 s"),
    # the worker's own later import: once failed as an unhandled rejection with the engine still "live"
    ("**/static/scheduler.js", None, "its scheduler could not be loaded"),
])
def test_engine_failure_is_visible_and_keeps_the_prerendered_result(page, site_url, blocked, timeout_ms, reason):
    if timeout_ms:
        page.add_init_script(f"globalThis.rulesExplorerBootTimeoutMs = {timeout_ms};")
    uncaught: list[str] = []
    page.on("pageerror", lambda exc: uncaught.append(str(exc)))
    page.on("worker", lambda worker: worker.on(
        "console", lambda m: uncaught.append(m.text) if m.text.startswith("Uncaught") else None))
    page.route(blocked, lambda route: route.abort())
    page.goto(site_url + SG_PAGE)
    before = page.inner_html(f"#{SG} .widget-result")
    wait_until(page, "() => document.documentElement.dataset.engine === 'failed'", timeout=BOOT_MS)
    status = page.text_content(f"#{SG} .engine-status")
    assert reason in status and "pre-rendered" in status
    assert page.get_attribute(f"#{SG} .engine-status", "data-state") == "failed"
    assert page.inner_html(f"#{SG} .widget-result") == before
    assert page.is_disabled(f"#{SG} [data-action=copy-link]")
    assert uncaught == []


# In-site navigation keeps the engine ------------------------------------------

def test_in_site_links_keep_one_engine_for_the_visit(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    first_title = page.title()
    page.evaluate("window.visitMarker = 'same document'")
    page.evaluate("window.scrollTo(0, 600)")
    next_href = page.get_attribute("a[rel=next]", "href")
    page.evaluate("document.querySelector('a[rel=next]').click()")  # as a reader would, without scrolling first
    next_path = "/" + next_href.replace("../", "")
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", next_path, timeout=SETTLE_MS)
    assert page.evaluate("window.visitMarker") == "same document"  # no reload, the worker lives on
    assert page.url.endswith(next_path) and page.title() != first_title
    assert page.evaluate("document.activeElement.id") == "main"
    assert page.evaluate("window.scrollY") == 0
    # the new page's widgets are live and agree with CPython
    for url, widget_id, instance in [w for w in WIDGETS if "/" + w[0] == next_path]:
        w = widgets.get(widget_id)
        wait_html(page, f"#{instance} .widget-result", w.render(w.run(base_inputs(page, instance))), f"#{instance} after navigation")
    # back and forward restore page, title and scroll position
    page.go_back()
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", "/" + SG_PAGE, timeout=SETTLE_MS)
    assert page.title() == first_title
    wait_until(page, "() => Math.abs(window.scrollY - 600) < 2")
    page.go_forward()
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", next_path, timeout=SETTLE_MS)
    assert page.evaluate("window.visitMarker") == "same document"


def test_an_in_site_link_the_network_cannot_bring_leaves_the_page_as_it_was_and_says_so(page, site_url):
    """Offline before the site was saved for offline use (a phone losing its signal on a first visit), following
    the pager went to the browser's own error page, with nothing to go back to. The page now stays, its widgets
    live and their state kept, and says why beside the link; once online the link works."""
    guard = PageGuard(page, site_url.rstrip("/"))
    page.set_default_timeout(BOOT_TIMEOUT_MS)
    # The next page's requests fail as they do offline, from the start: the page fetched ahead (which would
    # follow the pager offline) fails too. (Playwright's offline switch lets routed requests through.)
    next_path = "/small-general/defenders-and-retreats.html"
    def offline(route):
        route.abort("internetdisconnected")
    page.route("**" + next_path, offline)
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    assert page.get_attribute("a[rel=next]", "href").endswith(next_path.removeprefix("/small-general/"))
    page.evaluate("window.visitMarker = 'same document'")
    page.evaluate("document.querySelector('a[rel=next]').click()")
    wait_until(page, "() => document.querySelector('.unreachable')")
    said = page.evaluate("() => document.querySelector('.unreachable').textContent")
    page.unroute("**" + next_path, offline)
    assert said.startswith("That page could not be loaded: the network did not answer"), said
    assert page.evaluate("window.visitMarker") == "same document" and page.url.split("?")[0].endswith("/" + SG_PAGE)
    assert page.evaluate("document.querySelector('.unreachable').previousElementSibling.contains("
                         "document.querySelector('a[rel=next]'))"), "said beside the link followed"
    assert page.evaluate("document.activeElement.classList.contains('unreachable')"), "focus is where the reader is"
    page.evaluate("document.querySelector('a[rel=next]').click()")
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", next_path, timeout=SETTLE_MS)
    assert page.evaluate("window.visitMarker") == "same document"
    assert page.evaluate("document.querySelector('.unreachable')") is None
    # The browser's own word on the load it could not make aside, nothing went wrong.
    assert [e for e in guard.errors if not e.endswith("net::ERR_INTERNET_DISCONNECTED")] == [], guard.errors
    assert guard.foreign == []


def test_a_change_just_before_leaving_stays_in_the_history_entry(guarded_page, site_url):
    """The address bar follows the widgets a moment after they settle; leaving the page
    sooner still writes the state, so Back returns to it."""
    page = guarded_page
    page.goto(site_url + SG_PAGE)
    wait_live(page)
    base = base_inputs(page, SG)
    chosen = next(t for t in ("clear", "forest", "town") if t != base["terrain"])
    next_path = "/" + page.get_attribute("a[rel=next]", "href").replace("../", "")  # before it is the next page's
    page.evaluate("""([sel, value]) => {
        const section = document.querySelector(sel).closest('section.widget');
        section.addEventListener('widget-result', () => document.querySelector('a[rel=next]').click(), { once: true });
        const control = document.querySelector(sel);
        control.value = value;
        control.dispatchEvent(new Event('change', { bubbles: true }));
    }""", [f"#{SG}--terrain", chosen])
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", next_path, timeout=SETTLE_MS)
    page.go_back()
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", "/" + SG_PAGE, timeout=SETTLE_MS)
    assert f"{SG}.terrain={chosen}" in page.url
    assert page.input_value(f"#{SG}--terrain") == chosen
    w = widgets.get("small_general.combat")
    values, rejected = w.from_link({"terrain": chosen}, base)
    assert rejected == []
    wait_html(page, f"#{SG} .widget-result", w.render(w.run(values)), "state after Back")


def test_the_pager_pages_are_fetched_ahead_and_used(guarded_page, site_url):
    """Once the page is live and the browser idle, the previous and next sections are
    fetched and parsed; following the pager then swaps the parsed page in without
    asking again, and Back does the same with the page it left."""
    page = guarded_page
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url.split("?")[0].split("#")[0]))
    url = "small-general/defenders-and-retreats.html"  # has both a previous and a next page
    page.goto(site_url + url)
    wait_live(page)
    hrefs = [page.evaluate(f"document.querySelector('a[rel={rel}]').href") for rel in ("prev", "next")]
    for href in hrefs:
        wait_until(page, "h => performance.getEntriesByName(h).length > 0", href, timeout=10_000)
    assert all(requested.count(h) == 1 for h in hrefs), requested
    next_path = "/" + hrefs[1].split("/", 3)[3]
    # and parsed ahead, in idle time: the click only swaps the parsed page in
    wait_until(page, "p => window.rulesExplorer.parsed.has(p)", next_path, timeout=10_000)
    page.evaluate("document.querySelector('a[rel=next]').click()")
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", next_path, timeout=SETTLE_MS)
    assert requested.count(hrefs[1]) == 1, "the next page was fetched again"
    assert page.evaluate("window.rulesExplorer.parsedUsed") == 1
    assert not page.evaluate("p => window.rulesExplorer.parsed.has(p)", next_path), "a parsed copy was kept for reuse"
    assert page.title() != "" and page.evaluate("document.querySelectorAll('header.site-header').length") == 1
    # Back finds the page it left parsed ahead too (it is the new page's previous one)
    url_path = "/" + url
    wait_until(page, "p => window.rulesExplorer.parsed.has(p)", url_path, timeout=10_000)
    page.go_back()
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", url_path, timeout=SETTLE_MS)
    assert page.evaluate("window.rulesExplorer.parsedUsed") == 2


def test_home_page_link_into_a_system_starts_the_engine_once(guarded_page, site_url):
    page = guarded_page
    page.goto(site_url)
    assert page.evaluate("document.documentElement.dataset.hasWidgets") == "0"
    page.evaluate("window.visitMarker = 1")
    page.click(f"a[href='{SG_PAGE}']")
    wait_until(page, "p => document.documentElement.dataset.widgetsLive === p", "/" + SG_PAGE, timeout=BOOT_MS)
    assert page.evaluate("window.visitMarker") == 1


# Europa: a built stack survives a link ----------------------------------------

HEAR_STATUS = """window.heard = []; new MutationObserver((changes) => {  // what a screen reader is told of a widget's state
    for (const change of changes) {
        const line = (change.target.nodeType === 1 ? change.target : change.target.parentElement)?.closest('.widget-header [role=status]');
        if (line) window.heard.push(line.textContent);
    } }).observe(document, {childList: true, characterData: true, subtree: true});"""


def test_link_reproduces_a_built_stack(guarded_page, site_url):
    page = guarded_page
    url = "europa/conversions-and-totals.html"
    page.add_init_script(HEAR_STATUS)
    page.goto(site_url + url)
    wait_live(page)
    inst = "eu-stacks"
    w = widgets.get("europa.aec")
    base = base_inputs(page, inst)
    open_parts(page, inst)  # the unit tables are parts of the page (build.PART_OVER)
    # build: add an attacking unit, make it a double-value tank division, drop the first unit
    page.click(f"#{inst}--attacker-units > .add-item")
    n = len(base["attacker"]["units"])
    row = f"#{inst}--attacker-units-{n}"
    page.select_option(f"{row}-unit_type", "tank")
    page.select_option(f"{row}-formation", "division")
    page.fill(f"{row}-re_size", "3")
    page.select_option(f"{row}-aec", "double")
    page.click(f"#{inst}--attacker-units .items > [data-item]:first-child .remove-item")
    built = json.loads(json.dumps(base))
    new_unit = schema.jsonable(w.inputs.field("attacker").field("units").item.validate(
        {"unit_type": "tank", "formation": "division", "re_size": "3", "aec": "double"}))
    built["attacker"]["units"] = built["attacker"]["units"][1:] + [new_unit]
    expected = w.render(w.run(built))
    wait_html(page, f"#{inst} .widget-result", expected, "built stack")
    # the copy button offers the link (the clipboard may be closed to a headless browser)
    page.click(f"#{inst} [data-action=copy-link]")
    # the status says so once the clipboard has answered
    wait_until(page, "s => ['Link copied.', 'Link selected: copy it with Ctrl+C or Cmd+C.']"
               ".includes(document.querySelector(s).textContent)", f"#{inst} .engine-status", timeout=10_000)
    # A screen reader was told that, and not each stage of the engine's start ("Loading the Python runtime… The
    # result shown was pre-rendered…", "Starting Python…", "Live: …", on every widget of a page).
    assert page.evaluate("window.heard") == [page.text_content(f"#{inst} .engine-status")], page.evaluate("window.heard")
    link = page.input_value(f"#{inst}--link")
    # a stack is long as dotted parameters: the link carries the engine's compact state
    assert f"?{inst}=%7E1." in link and link.endswith(f"#{inst}") and len(link) < 1000, link
    # a fresh visit to the link rebuilds the same stack, form and result alike
    page.goto("about:blank")
    page.goto(link)
    wait_live(page)
    wait_html(page, f"#{inst} .widget-result", expected, "linked stack")  # before the tables are loaded
    open_parts(page, inst)  # and once loaded, they show the link's rows
    assert page.locator(f"#{inst}--attacker-units .items > [data-item]").count() == n
    assert page.input_value(f"#{inst}--attacker-units-{n - 1}-aec") == "double"
    assert page.input_value(f"#{inst}--attacker-units-{n - 1}-re_size") == "3"


def test_list_table_rows_duplicate_move_and_remove(guarded_page, site_url):
    """A list of plain fields is a table: a row can be duplicated, moved and removed, and
    controls keep names and ids by row (links and error messages name them so). From the
    keyboard: a table opened from its placeholder takes focus, and a row moved to the end keeps
    it on a button that moves it back."""
    page = guarded_page
    page.goto(site_url + "europa/conversions-and-totals.html")
    wait_live(page)
    inst, w = "eu-stacks", widgets.get("europa.aec")
    base = base_inputs(page, inst)
    # The table is a part of the page (build.PART_OVER), opened here with the keyboard: its summary goes with the
    # placeholder, and focus to the loaded table's first control (it fell to the page's body).
    page.focus(f"#{inst}--attacker-units-part > summary")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#{inst}--attacker-units.list-table")
    assert page.evaluate("(s) => document.querySelector(s).contains(document.activeElement)", f"#{inst}--attacker-units")
    open_parts(page, inst)
    units = base["attacker"]["units"]
    rows = f"#{inst}--attacker-units .items > [data-item]"
    page.click(f"{rows}:first-child [data-action=duplicate-item]")
    page.click(f"{rows}:first-child [data-action=move-down]")
    page.select_option(f"#{inst}--attacker-units-0-unit_type", "tank")
    expected_units = [dict(units[0]), dict(units[0])] + [dict(u) for u in units[1:]]
    expected_units[0]["unit_type"] = "tank"
    built = {**base, "attacker": {**base["attacker"], "units": expected_units}}
    wait_html(page, f"#{inst} .widget-result", w.render(w.run(built)), "duplicated, moved and edited row")
    names = page.eval_on_selector_all(f"{rows} select[name$='unit_type']", "els => els.map(e => e.name)")
    assert names == [f"attacker.units.{i}.unit_type" for i in range(len(expected_units))]
    numbers = page.eval_on_selector_all(f"{rows} > th.item-number", "els => els.map(e => e.textContent)")
    assert numbers == [str(i + 1) for i in range(len(expected_units))]
    # Each row's buttons are named with its number (they were "Duplicate", "Move up", … on every row), renumbered too.
    second = page.locator(f"{rows}:nth-child(2) .row-actions")
    for name in ("Duplicate row 2", "Move row 2 up", "Move row 2 down", "Remove row 2"):
        assert second.get_by_role("button", name=name, exact=True).count() == 1, name
    assert page.is_disabled(f"{rows}:first-child [data-action=move-up]")
    # Enter on the next-to-last row's "Move down" moves it to the end, where that button is disabled: focus goes to
    # its "Move up", and Enter again moves it back (focus went to Remove, and Enter again deleted the row).
    page.focus(f"{rows}:nth-last-child(2) [data-action=move-down]")
    page.keyboard.press("Enter")
    assert page.evaluate("(s) => document.activeElement === document.querySelector(s)", f"{rows}:last-child [data-action=move-up]")
    page.keyboard.press("Enter")
    assert page.locator(rows).count() == len(expected_units)
    wait_html(page, f"#{inst} .widget-result", w.render(w.run(built)), "row moved down and back")
    # Duplicate pressed with Enter on the row that fills the list (its most rows, here made one more than it has):
    # every Duplicate is disabled, the one pressed too, and focus goes to the copy's first control (it fell to the
    # page's body).
    page.eval_on_selector(f"#{inst}--attacker-units", "(l) => { l.dataset.max = String(l.querySelector('tbody').rows.length + 1); }")
    page.focus(f"{rows}:last-child [data-action=duplicate-item]")
    page.keyboard.press("Enter")
    assert page.evaluate("(s) => document.activeElement === document.querySelector(s)", f"{rows}:last-child select, {rows}:last-child input"), \
        page.evaluate("() => document.activeElement.outerHTML.slice(0, 80)")
    page.focus(f"{rows}:last-child [data-action=remove-item]")
    page.keyboard.press("Enter")
    page.click(f"{rows}:first-child [data-action=remove-item]")
    built["attacker"]["units"] = expected_units[1:]
    wait_html(page, f"#{inst} .widget-result", w.render(w.run(built)), "row removed")


FOCUS_RING_CONTRAST = """() => {
    const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; })
        .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
    const e = document.activeElement;
    if (!e.matches(':focus-visible')) return 0;
    let back = e.parentElement;  // the ring is drawn outside the element, on what is behind it
    while (back && (getComputedStyle(back).backgroundColor === 'rgba(0, 0, 0, 0)')) back = back.parentElement;
    const [a, b] = [lum(rgb(getComputedStyle(e).outlineColor)), lum(rgb(getComputedStyle(back ?? document.documentElement).backgroundColor))];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); }"""


def test_results_being_recomputed_or_out_of_date_stay_readable(guarded_page, site_url):
    """A recompute (pending), a result left from inputs now in error (stale) and a running Monte
    Carlo estimate are marked without fading: axe finds no contrast failure in any of those states."""
    page = guarded_page
    url = next(u for u, wid, _ in WIDGETS if wid == "atg.battle")
    page.goto(site_url + url)
    wait_live(page)
    for state, sim_state in (("pending", "running"), ("stale", "stale")):
        page.evaluate("""([state, simState]) => {
            for (const r of document.querySelectorAll('.widget-result')) r.dataset.state = state;
            for (const s of document.querySelectorAll('.widget-sim')) s.dataset.state = simState;
        }""", [state, sim_state])
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            assert axe_violations(page) == [], f"{url}: results {state}, estimates {sim_state} ({scheme})"
    # Every output that takes keyboard focus (it scrolls) is a named region: unnamed, a screen reader took its whole
    # text for its name on focus (a battle's roll: thousands of lines).
    unnamed = page.evaluate("""() => [...document.querySelectorAll('.widget [tabindex="0"]')]
        .filter((e) => !e.matches('summary, a, button, input, select') && !(e.getAttribute('role') && (e.getAttribute('aria-label') || e.getAttribute('aria-labelledby'))))
        .map((e) => e.className)""")
    assert unnamed == [], unnamed
    # The keyboard's focus ring stands out from what is around it, 3:1 at least (WCAG 1.4.11), in both schemes: the
    # light scheme's was the dark one's yellow, 1.6:1 on its near-white page. (axe does not look at focus.)
    page.focus(".widget .seed")
    page.keyboard.press("Tab")  # from the keyboard, so :focus-visible holds
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        ratio = page.evaluate(FOCUS_RING_CONTRAST)
        assert ratio >= 3, f"focus ring contrast {ratio:.2f} ({scheme})"


def test_wide_list_tables_keep_their_first_column_and_show_their_choices_whole(browser, site_url):
    """Issue 20: at 1280 px AT Gold's unit table cut its columns with no cue and choices were cut short."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/static/widgets.js", lambda route: route.abort())
    page = context.new_page()
    # The tables are parts of their pages (build.PART_OVER): as a reader without scripts reads them, on their own pages.
    # Europa's table fits 1280 px on a page without the site's sidebar: it is read at 800 px.
    for url, width in (("parts/atg/individuals-and-combat-types/atg-types-battle--unit_types.html", 1280),
                       ("parts/europa/conversions-and-totals/eu-stacks--attacker.units.html", 800)):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(site_url + url)
        state = page.evaluate("""() => [...document.querySelectorAll('.widget-form .table-scroll')].map((t) => {
            const wide = t.scrollWidth > t.clientWidth;
            t.scrollLeft = t.scrollWidth;
            const cell = t.querySelector('tbody tr > :first-child');
            const stuck = !cell || Math.abs(cell.getBoundingClientRect().left - t.getBoundingClientRect().left) < 2;
            const cut = [...t.querySelectorAll('select')].filter((s) => s.scrollWidth > s.clientWidth + 1).length;
            const cue = getComputedStyle(t).backgroundImage.includes('gradient');
            return {wide, stuck, cut, cue};
        })""")
        assert state and all(s["stuck"] and s["cut"] == 0 and s["cue"] for s in state), (url, state)
        assert any(s["wide"] for s in state), url          # the cue and the sticky column are put to work
    context.close()
