"""One battle widget on its page, as the battle browser tests drive it (ATG's and the card game's).

Short Monte Carlo runs keep the slowest browser quick; any run gives CPython's
figures for the same trials. Expected HTML is always the engine's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from browsers import Driver
from conftest import estimate_html
from test_browsers import base_inputs, open_live, shows

from engine import widgets

SET = """(id, value) => { const c = document.getElementById(id);
    if (c.type === 'checkbox') c.checked = value === true; else c.value = value;
    c.dispatchEvent(new Event('change', {bubbles: true})); }"""
VALUES = """(ids) => ids.map(id => { const c = document.getElementById(id);
    return c === null ? null : c.type === 'checkbox' ? c.checked : c.value; })"""


@dataclass(frozen=True)
class BattlePage:
    page: str
    instance: str
    widget_id: str
    trials: int

    @property
    def widget(self) -> widgets.Widget:
        return widgets.get(self.widget_id)

    @property
    def sim(self) -> str:
        return f"#{self.instance} .widget-sim"

    @property
    def roll(self) -> str:
        return f"#{self.instance} .roll-result"

    def control(self, path: str) -> str:
        """The id of the form control at a dotted input path."""
        return f"{self.instance}--{path.replace('.', '-')}"

    def parts(self, driver: Driver) -> list[str]:
        """The paths of the widget's form parts not loaded yet (build.PART_OVER)."""
        return driver.call("(s) => [...document.querySelectorAll(s + ' details.part')].map(d => d.dataset.part)",
                           f"#{self.instance}")

    def open_part(self, driver: Driver, path: str) -> None:
        """Open the form part at ``path`` as a reader does (its summary) and wait until it is in the form."""
        driver.call("(id) => document.getElementById(id).querySelector(':scope > summary').click()", f"{self.control(path)}-part")
        driver.wait("(id) => document.getElementById(id) === null", f"{self.control(path)}-part", timeout=15)

    def open_short(self, driver: Driver, site_url: str, query: str = "") -> dict[str, Any]:
        """Open the page with short Monte Carlo runs; the page's base inputs."""
        open_live(driver, site_url + f"{self.page}?{query}{self.instance}.trials={self.trials}#{self.instance}")
        self.wait_run(driver)
        return self.widget.validate(base_inputs(driver, self.instance))

    def wait_run(self, driver: Driver) -> None:
        """Wait until the widget's Monte Carlo run has all its trials (else fail saying where it stood)."""
        driver.wait_run_done(self.sim, timeout=60, trials=self.trials)

    def shows_cpython(self, driver: Driver, values: dict[str, Any], seed: int, what: str) -> None:
        """The result, the seeded battle and the estimate are CPython's for these values."""
        w = self.widget
        shows(driver, f"#{self.instance} .widget-result", w.render(w.run(values)), f"{what}: the result")
        shows(driver, self.roll, w.render_sample(w.roll(values, seed)), f"{what}: the seeded battle")
        self.wait_run(driver)
        shows(driver, f"{self.sim} .sim-result", estimate_html(w.id, values, seed, self.trials),
              f"{what}: the estimate")
