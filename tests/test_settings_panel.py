"""The settings panel of a widget with many rule settings, in Chromium, Firefox and WebKit.

Settings come in named sections (``engine.settings``); the panel counts the
ones changed from the page's own, can show only those, and resets a section
to the page's values, after which the widget shows CPython's result again.
Keyboard focus is never lost to the page's body on the way: not when the panel
loads in its placeholder's place, nor when "show only changed" would hide the
setting or section that has it.
"""

from __future__ import annotations

import pytest
from test_browsers import PRESS, base_inputs, browsers, driver, drivers, open_live, open_parts, shows  # noqa: F401

from engine import schema, settings, widgets

pytestmark = pytest.mark.browser

PAGE = "atg/interception.html"
INSTANCE = "atg-intercept-battle"
PANEL = f"#{INSTANCE} details.settings"

CHANGE = """(id, value) => { const c = document.getElementById(id); c.value = value;
    c.dispatchEvent(new Event('change', {bubbles: true})); }"""
# What has keyboard focus once the page has drawn (a control hidden with focus loses it at the next style update).
FOCUSED = """async () => { await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const e = document.activeElement; return e === document.body ? 'body' : e.id || e.className || e.tagName; }"""
VISIBLE = """(s) => [...document.querySelectorAll(s + ' .field')].filter(e => e.offsetParent !== null).map(e => e.dataset.key)"""


@browsers("chromium", "firefox", "webkit")
def test_sections_count_filter_and_reset(driver, site_url):
    w = widgets.get("atg.battle")
    open_live(driver, site_url + PAGE)
    base = w.validate(base_inputs(driver, INSTANCE))
    group = w.inputs.field("rules")
    # The panel is a part (build.PART_OVER): opened, it loads open, its sections in it. Opened from the keyboard,
    # its summary had focus and went with the placeholder: focus goes to the loaded panel's summary.
    driver.call(PRESS, f"{PANEL} > summary")
    driver.wait("(s) => !document.querySelector(s).classList.contains('part')", PANEL, timeout=15)
    assert driver.wait(FOCUSED) == "SUMMARY" and driver.call("(s) => document.activeElement.parentElement === document.querySelector(s)", PANEL)
    sections = driver.call("(s) => [...document.querySelectorAll(s + ' .settings-section legend')].map(e => e.textContent)", PANEL)
    assert sections == [name for name, _ in settings.sections(group)]
    choice = next(f for f in group.fields if isinstance(f, schema.Choice) and len(f.choices) > 1)
    other = next(c for c in choice.choices if c != base["rules"][choice.name])
    driver.call("(s) => document.querySelector(s).open = true", PANEL)
    driver.call(CHANGE, f"{INSTANCE}--rules-{choice.name}", other)
    changed = {**base, "rules": {**base["rules"], choice.name: other}}
    shows(driver, f"#{INSTANCE} .widget-result", w.render(w.run(changed)), "after a setting changed")
    assert driver.call("(s) => document.querySelector(s + ' .settings-changed').textContent", PANEL) == "(1 changed)"
    driver.call("(id) => { const b = document.getElementById(id); b.checked = true; b.dispatchEvent(new Event('change', {bubbles: true})); }",
                f"{INSTANCE}--rules-changed-only")
    assert driver.call(VISIBLE, PANEL) == [choice.name]
    # Set back to the page's value from the keyboard, the setting is no longer changed but keeps focus (and is
    # shown while it does); changed again, and its section reset from its button, the button keeps focus.
    control = f"{INSTANCE}--rules-{choice.name}"
    driver.call("(id) => document.getElementById(id).focus()", control)
    driver.call(CHANGE, control, base["rules"][choice.name])
    shows(driver, f"#{INSTANCE} .widget-result", w.render(w.run(base)), "after the setting was set back")
    assert driver.wait(FOCUSED) == control
    assert driver.call(VISIBLE, PANEL) == [choice.name]
    driver.call(CHANGE, control, other)
    shows(driver, f"#{INSTANCE} .widget-result", w.render(w.run(changed)), "after the setting changed again")
    reset = driver.call("(id) => { const b = document.getElementById(id).closest('.settings-section').querySelector('.reset-section');"
                        " b.id = 'reset-under-test'; return '#' + b.id; }", control)
    driver.call(PRESS, reset)
    shows(driver, f"#{INSTANCE} .widget-result", w.render(w.run(base)), "after the section was reset")
    assert driver.call("(s) => document.querySelector(s + ' .settings-changed').textContent", PANEL) == ""
    assert driver.wait(FOCUSED) == "reset-under-test"
    assert driver.errors() == []
