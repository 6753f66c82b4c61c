"""engine.linkstate: round trips for every widget, sizes, a browser-made test vector, hostile text."""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import zlib
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from engine import api, linkstate, widgets
from engine.schema import Boolean, Choice, Field, Group, InputError, Integer, ListOf, Number, Text

from fixtures.demo_widget import ensure_registered


@pytest.fixture(scope="module", autouse=True)
def demo():
    return ensure_registered()


def random_value(f: Field, rnd: random.Random):
    if isinstance(f, Choice):
        return rnd.choice(f.choices)
    if isinstance(f, Text) and f.suggestions:
        return rnd.choice(f.suggestions)
    if isinstance(f, Boolean):
        return rnd.random() < 0.5
    if isinstance(f, Integer):
        lo = f.minimum if f.minimum is not None else -50
        hi = f.maximum if f.maximum is not None else lo + 100
        return rnd.randint(lo, min(hi, lo + 1000))
    if isinstance(f, Number):
        lo = Fraction(f.minimum if f.minimum is not None else -50)
        hi = Fraction(f.maximum if f.maximum is not None else lo + 100)
        return lo + (hi - lo) * Fraction(rnd.randint(0, 12), 12)
    if isinstance(f, Group):
        return {x.name: random_value(x, rnd) for x in f.fields if rnd.random() < 0.6}
    if isinstance(f, ListOf):
        n = rnd.randint(f.min_items, min(f.max_items, 6))
        return [random_value(f.item, rnd) for _ in range(n)]
    return f.default  # a field type this test does not know: its default


def random_state(w: widgets.Widget, rnd: random.Random, tries: int = 50):
    """A valid state with random parts (cross-field checks may refuse some; then fewer parts)."""
    for _ in range(tries):
        raw = random_value(w.inputs, rnd)
        try:
            return w.validate(raw)
        except InputError:
            continue
    return w.validate(None)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(widgets.ids())), st.randoms(use_true_random=False), st.booleans())
def test_every_widget_round_trips(widget_id, rnd, from_default):
    w = widgets.get(widget_id)
    base = w.validate(None) if from_default else random_state(w, rnd)
    values = random_state(w, rnd)
    text = w.state_text(values, base)
    assert text.startswith("~1.") and all(c.isalnum() or c in "-_.~" for c in text)
    decoded, errors = linkstate.decode(w.inputs, text, base)
    assert errors == [] and decoded == values


@pytest.mark.parametrize("widget_id", sorted(widgets.ids()))
def test_the_base_itself_is_empty(widget_id):
    w = widgets.get(widget_id)
    base = w.validate(None)
    assert w.state_text(base, base) == "~1.j"


def test_from_link_reads_the_state_then_dotted_paths():
    w = widgets.get("atg.battle")
    base = w.validate(None)
    values = w.validate({"landscape": "forest", "attackers": [{"type": "Tank", "count": 3}]})
    answer = api.handle_message({"op": "from_link", "widget": "atg.battle", "base": None,
                                 "params": {"": w.state_text(values, base), "river": "true"}})
    assert answer["inputs"]["landscape"] == "forest" and answer["inputs"]["river"] is True
    assert answer["inputs"]["attackers"][0]["type"] == "Tank" and answer["rejected"] == []
    run = api.handle_message({"op": "run", "widget": "atg.battle", "inputs": answer["inputs"]})
    assert linkstate.decode(w.inputs, run["state"], base)[0] == w.validate(answer["inputs"])


def test_dotted_links_keep_working():
    answer = api.handle_message({"op": "from_link", "widget": "small_general.combat",
                                 "params": {"terrain": "forest"}, "base": None})
    assert answer["inputs"]["terrain"] == "forest" and answer["link"] == {"terrain": "forest"}


# Sizes ------------------------------------------------------------------------------------------------------

def every_field_random(item: Group, rnd: random.Random) -> dict:
    return {f.name: random_value(f, rnd) for f in item.fields if not isinstance(f, (Group, ListOf))}


def test_largest_europa_state_fits():
    """12 attacking and 12 defending units, every field of every unit and every setting at random."""
    w = widgets.get("europa.aec")
    base = w.validate(None)
    rnd = random.Random(1)
    worst = 0
    for _ in range(10):
        raw = {side: {"units": [every_field_random(w.inputs.field(side).field("units").item, rnd) for _ in range(12)],
                      "declines": True, "losses": 3}
               for side in ("attacker", "defender")}
        raw["settings"] = {f.name: random_value(f, rnd) for f in w.inputs.field("settings").fields
                           if not isinstance(f, ListOf)}
        values = w.inputs.validate(raw)
        text = w.state_text(values, base)
        assert linkstate.decode(w.inputs, text, base) == (values, [])
        worst = max(worst, len(text))
    assert worst < 2000, worst


def wide_battle() -> Group:
    """atg.battle's inputs, with room for 12 units a side if its bounds give fewer."""
    w = widgets.get("atg.battle")
    return dataclasses.replace(w.inputs, fields=tuple(
        dataclasses.replace(f, max_items=max(12, f.max_items)) if f.name in ("attackers", "defenders") else f
        for f in w.inputs.fields))


def test_a_battle_of_two_dozen_rows_and_ten_changed_settings_fits():
    group = wide_battle()
    base = group.validate(None)
    unit = group.field("attackers").item
    rules = list(group.field("rules").fields)
    rnd = random.Random(2)
    worst = 0
    for _ in range(10):
        raw = {"attackers": [every_field_random(unit, rnd) for _ in range(12)],
               "defenders": [every_field_random(unit, rnd) for _ in range(12)],
               "rules": {f.name: random_value(f, rnd) for f in rnd.sample(rules, 10)},
               "landscape": "forest", "river": True}
        values = group.validate(raw)
        text = linkstate.encode(group, values, base)
        assert linkstate.decode(group, text, base) == (values, [])
        worst = max(worst, len(text))
    assert worst < 2000, worst


# The format -------------------------------------------------------------------------------------------------

SMALL = Group("inputs", "", fields=(
    Integer("sides", "", 1, minimum=1, maximum=6),
    ListOf("units", "", ({"n": 1},), item=Group("unit", "", fields=(Integer("n", "", 0), Integer("m", "", 0)))),
))


def test_a_state_compressed_by_the_browser_decodes():
    """Made in Node with CompressionStream('deflate') (the zlib format), base64url."""
    vector = "~1.zeJyrVirOTEktVrIy1lEqzcssKVayio5WylPSUcpVitWJNtLJK83JidWJBlE6prGxtQB_Ww-b"
    values, errors = linkstate.decode(SMALL, vector, SMALL.validate({}))
    assert errors == [] and values == {"sides": 3, "units": [{"n": 2, "m": 0}, {"n": 0, "m": 5}]}


def test_long_states_are_compressed_in_the_zlib_format():
    values = SMALL.validate({"sides": 2, "units": [{"n": i, "m": 2 * i} for i in range(20)]})
    text = linkstate.encode(SMALL, values, SMALL.validate({}))
    assert text.startswith("~1.z")
    data = base64.urlsafe_b64decode(text[4:] + "=" * (-len(text[4:]) % 4))
    rows = [[None, None], *[[i, 2 * i] for i in range(1, 20)]]  # the first item is the item default
    assert json.loads(zlib.decompress(data)) == {"sides": 2, "units": [["n", "m"], *rows]}


def test_short_states_stay_plain():
    text = linkstate.encode(SMALL, SMALL.validate({"sides": 2}), SMALL.validate({}))
    assert text == "~1.j" + base64.urlsafe_b64encode(b'{"sides":2}').decode().rstrip("=")


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@pytest.mark.parametrize("text, says", [
    ("~2.jAAAA", "format this site does not read"),
    ("~1.x", "an encoding this site does not write"),
    ("~1.j!!", "characters"),
    ("~1.z" + b64(b"not zlib"), "the link may be cut short or damaged"),
    ("~1.z" + b64(zlib.compress(b'{"sides":3}')[:-3]), "cut short"),
    ("~1.z" + b64(zlib.compress(b" " * (linkstate.MAX_JSON + 10))), "unpacks to more than"),
    ("~1.j" + b64(b"[" * 100 + b"]" * 100), "nests deeper"),
    ("~1.z" + b64(zlib.compress(b"[" * 100000 + b"]" * 100000)), "nests deeper"),
    ("~1.j" + b64(b"\xff\xfe"), "does not hold text"),
    ("~1.j" + b64(b"{"), "not valid JSON"),
    ("~1.j" + "A" * (linkstate.MAX_TEXT + 1), "longer than"),
])
def test_hostile_states_are_refused_whole(text, says):
    base = SMALL.validate({})
    values, errors = linkstate.decode(SMALL, text, base)
    assert values == base and len(errors) == 1 and errors[0].field == "state" and says in errors[0].message
    assert errors[0].message.startswith("this link's saved inputs could not be read (")
    assert errors[0].message.endswith("the widget shows the page's example instead")


@pytest.mark.parametrize("payload, path", [
    ({"sides": 9}, "sides"),
    ({"nope": 1}, "nope"),
    ({"units": "x"}, "units"),
    ({"units": [["n", "n"], [1, 1]]}, "units"),
    ({"units": [["n"], [1, 2]]}, "units.0"),
    ({"units": [["q"], [1]]}, "units.0.q"),
    ({"units": [["n"]] + [[1]] * 31}, "units"),
    ([1, 2], "state"),
])
def test_a_bad_part_is_rejected_on_its_path_and_the_rest_kept(payload, path):
    base = SMALL.validate({})
    text = "~1.j" + b64(json.dumps(payload).encode())
    values, errors = linkstate.decode(SMALL, text, base)
    assert values == base and [e.field for e in errors] == [path]
    mixed = {"sides": 4, **payload} if isinstance(payload, dict) and "sides" not in payload else None
    if mixed:
        values, errors = linkstate.decode(SMALL, "~1.j" + b64(json.dumps(mixed).encode()), base)
        assert values["sides"] == 4 and [e.field for e in errors] == [path]


# The site's example links -----------------------------------------------------------------------------------

EXAMPLE_LINK_CEILING = 400
"""Longest example link a page may carry, in the shorter of its two forms (the largest today: 265)."""


def example_links():
    from pathlib import Path

    import build
    content = Path(__file__).resolve().parent.parent / "site" / "content"
    for path in sorted(content.rglob("*.md")):
        for kind, ident, instance, _title, pairs, examples in build.page_blocks(path.read_text("utf-8"), str(path)):
            if kind != "widget":
                continue
            w = widgets.get(ident)
            base, _ = w.from_link(pairs, None)
            for title, ex in examples:
                values, _ = w.from_link(ex, base)
                dotted = "&".join(f"{instance}.{k}={build._quote(x)}" for k, x in w.link_state(values, base).items())
                yield path.relative_to(content).as_posix(), title, dotted, f"{instance}={w.state_text(values, base)}"


def test_the_largest_example_link_on_every_page_is_held():
    worst: dict[str, int] = {}
    for page, title, dotted, state in example_links():
        shorter = min(len(dotted), len(state))
        assert shorter <= EXAMPLE_LINK_CEILING, (page, title, len(dotted), len(state))
        assert len(state) < 2000
        worst[page] = max(worst.get(page, 0), shorter)
    assert worst and max(worst.values()) <= EXAMPLE_LINK_CEILING


def edited_battle(rnd: random.Random, settings_changed: int = 10):
    """atg.battle with 12 unit rows a side (every field at random, types from the list), one unit type
    edited in several columns and ``settings_changed`` rule variables changed."""
    w = widgets.get("atg.battle")
    base = w.validate(None)
    unit = w.inputs.field("attackers").item
    names = [r["name"] for r in base["unit_types"]]

    def row(side: str) -> dict:
        r = every_field_random(unit, rnd)
        r["type"] = rnd.choice(names)
        r["name"] = rnd.choice(["", f"{side}{rnd.randint(1, 99)}"])
        return r

    types = [dict(r) for r in base["unit_types"]]
    edited = rnd.randrange(len(types))
    types[edited] = {**types[edited], "name": types[edited]["name"] + " II", "hit_points": rnd.randint(1, 200),
                     "attack_soft": rnd.randint(0, 90), "kill": 20, "retreat": 20, "tries": rnd.randint(1, 9)}
    names[edited] = types[edited]["name"]
    rules = [f for f in w.inputs.field("rules").fields]
    changed = {}
    for f in rnd.sample(rules, len(rules)):
        if len(changed) == settings_changed:
            break
        v = random_value(f, rnd)
        if f.coerce(v, f.name) != base["rules"][f.name]:
            changed[f.name] = v
    values = w.validate({"attackers": [row("A") for _ in range(12)], "defenders": [row("D") for _ in range(12)],
                         "unit_types": types, "rules": changed})
    assert sum(values["rules"][k] != base["rules"][k] for k in base["rules"]) == settings_changed
    assert sum(a != b for a, b in zip(values["unit_types"], base["unit_types"])) == 1
    return w, base, values


def test_a_battle_with_an_edited_unit_type_fits_a_link():
    """Issue 14: 2 × 12 unit rows, one edited unit type and ten changed settings in under 2,000 characters."""
    worst = 0
    for seed in range(10):
        w, base, values = edited_battle(random.Random(seed))
        text = w.state_text(values, base)
        assert linkstate.decode(w.inputs, text, base) == (values, [])
        assert w.from_link({"": text}) == (values, [])
        worst = max(worst, len(text))
    assert worst < 2000, worst


def _payload(text: str):
    body = text[len(linkstate.PREFIX):]
    data = base64.urlsafe_b64decode(body[1:] + "=" * (-len(body[1:]) % 4))
    return json.loads(zlib.decompress(data) if body[0] == "z" else data)


def test_a_list_is_written_against_the_base_rows_when_that_is_shorter():
    base = SMALL.validate({"units": [{"n": 7, "m": 8}, {"n": 9, "m": 10}, {"n": 11, "m": 12}]})
    values = SMALL.validate({"units": [{"n": 7, "m": 8}, {"n": 9, "m": 99}, {"n": 11, "m": 12}, {"n": 1}]})
    text = linkstate.encode(SMALL, values, base)
    assert _payload(text) == {"units": {"b": [["n", "m"], 0, [None, 99], 0, [1, None]]}}
    assert linkstate.decode(SMALL, text, base) == (values, [])
    # A list unlike its base keeps the first form (rows against the item default).
    other = SMALL.validate({"units": [{"n": 1}, {"n": 2}]})
    assert _payload(linkstate.encode(SMALL, other, base)) == {"units": [["n"], [1], [2]]}
    assert linkstate.decode(SMALL, linkstate.encode(SMALL, other, base), base) == (other, [])


def test_links_written_before_the_base_row_form_read_as_before():
    """A first-form list is read against the item default even where the base has rows."""
    base = SMALL.validate({"units": [{"n": 7, "m": 8}, {"n": 9, "m": 10}]})
    old = "~1.j" + base64.urlsafe_b64encode(b'{"units":[["m"],[5],[null]]}').decode().rstrip("=")
    assert linkstate.decode(SMALL, old, base) == ({"sides": 1, "units": [{"n": 0, "m": 5}, {"n": 0, "m": 0}]}, [])


@pytest.mark.parametrize("part", [{"b": 3}, {"b": [["n"], [1], "x"]}, {"b": [["n"], [1]], "c": 1}, {"c": []}])
def test_a_damaged_base_row_list_is_refused_on_its_path(part):
    base = SMALL.validate({"units": [{"n": 7}]})
    text = "~1.j" + base64.urlsafe_b64encode(json.dumps({"units": part, "sides": 4}).encode()).decode().rstrip("=")
    values, errors = linkstate.decode(SMALL, text, base)
    assert values == {**base, "sides": 4} and [e.field.split(".")[0] for e in errors] == ["units"]
