"""Property tests through the browser bridge: the worker in Pyodide answers
exactly what the CPython engine answers, for random valid and invalid inputs."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import api, schema, widgets

from conftest import check_guard, kept_page, wait_until
from test_properties import invalid_for, leaf_paths, set_path, values_for

pytestmark = pytest.mark.browser

BRIDGE = settings(max_examples=12, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module")
def live_page(browser, browser_context_args, site_url):
    """One live page for the module: the bridge answers each request on its own."""
    with kept_page(browser, browser_context_args, site_url) as (page, guard):
        page.goto(site_url + "small-general/combat-table.html")
        wait_until(page, "() => document.documentElement.dataset.widgetsLive === location.pathname", timeout=60_000)
        yield page, guard


@pytest.fixture
def live(live_page):
    page, guard = live_page
    yield page
    check_guard(page, guard)  # console errors, CSP violations and off-site requests, as guarded_page


def bridge(page, message: dict) -> dict:
    """One request through the page's worker, answered as {result} or {error}."""
    answer = page.evaluate("m => window.rulesExplorer.engine.call(m)", message)
    answer.pop("id", None)
    return answer


def cpython(message: dict) -> dict:
    answer = api.handle_message(json.loads(json.dumps(message)))
    return {"error": answer["error"]} if "error" in answer else {"result": answer}


@pytest.mark.parametrize("widget_id", widgets.ids())
def test_random_valid_inputs_agree_with_cpython(live, widget_id):
    w = widgets.get(widget_id)

    @BRIDGE
    @given(values_for(w.inputs))
    def check(raw):
        message = {"op": "run", "widget": widget_id, "inputs": raw}
        assert bridge(live, message) == cpython(message)

    check()


@pytest.mark.parametrize("widget_id", widgets.ids())
def test_random_invalid_inputs_give_the_same_error(live, widget_id):
    w = widgets.get(widget_id)
    cases = [(path, bad) for path, f in leaf_paths(w.inputs) for bad in invalid_for(f)]

    @BRIDGE
    @given(st.sampled_from(cases))
    def check(case):
        path, bad = case
        raw = json.loads(json.dumps(schema.jsonable(w.inputs.validate({}))))
        set_path(raw, path, bad)
        answer = bridge(live, {"op": "run", "widget": widget_id, "inputs": raw})
        assert answer == cpython({"op": "run", "widget": widget_id, "inputs": raw})
        assert answer["error"]["type"] == "InputError"
        assert answer["error"]["field"] == path or answer["error"]["field"].startswith(path + ".")

    check()
