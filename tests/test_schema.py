"""Declared inputs: validation, coercion from text, links."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine.schema import Boolean, Choice, Group, InputError, Integer, ListOf, Number, flatten, unflatten

UNIT = Group("unit", "", fields=(Number("re", "Size", 1, minimum=0), Choice("kind", "", "inf", choices=("inf", "tank"))))
ROOT = Group("inputs", "", fields=(
    Choice("terrain", "Terrain", "clear", choices=("clear", "forest")),
    Integer("sides", "Hex sides", 1, minimum=1, maximum=6),
    Boolean("night", "At night"),
    Group("attacker", "", fields=(Number("strength", "", 4, minimum=0),)),
    ListOf("units", "", item=UNIT, default=({"re": 1, "kind": "tank"},), max_items=3),
))


def test_defaults_fill_everything():
    assert ROOT.validate({}) == {"terrain": "clear", "sides": 1, "night": False,
                                 "attacker": {"strength": Fraction(4)},
                                 "units": [{"re": Fraction(1), "kind": "tank"}]}


@pytest.mark.parametrize("raw, field, text", [
    ({"terrain": "swamp"}, "terrain", "'swamp' is not allowed; choose one of clear, forest"),
    ({"sides": 7}, "sides", "7 is out of range; enter a whole number from 1 to 6"),
    ({"sides": "two"}, "sides", "'two' is not a whole number"),
    ({"sides": ""}, "sides", "enter a whole number from 1 to 6"),
    ({"sides": True}, "sides", "true is not a whole number"),
    # A whole number too long to read (a hand-edited link of 10,000 nines) is out of range, not "not a number".
    ({"sides": "9" * 41}, "sides", "9999…' is out of range; enter a whole number from 1 to 6"),
    ({"sides": "-" + "9" * 10_000}, "sides", "9999…' is out of range; enter a whole number from 1 to 6"),
    ({"attacker": {"strength": "9" * 10_000}}, "attacker.strength", "9999…' is out of range; enter a number of at least 0"),
    ({"night": "maybe"}, "night", "'maybe' is not true or false"),
    ({"attacker": {"strength": "-1"}}, "attacker.strength", "-1 is out of range; enter a number of at least 0"),
    ({"attacker": {"strength": "1/0"}}, "attacker.strength", "is not a number"),
    ({"attacker": {"speed": 3}}, "attacker.speed", "unknown field"),
    ({"units": [{"re": 1}, {"kind": "ship"}]}, "units.1.kind", "'ship' is not allowed"),
    ({"units": [{}] * 4}, "units", "has 4 items"),
    ({"units": "not json"}, "units", "units: 'not json' is not valid JSON"),
    ({"units": "<script>" * 20}, "units", "units: '<script><script><script>…' is not valid JSON"),
    ({"extra": 1}, "extra", "unknown field"),
])
def test_errors_name_the_field(raw, field, text):
    with pytest.raises(InputError) as info:
        ROOT.validate(raw)
    assert info.value.field == field
    assert text in str(info.value)


def test_a_range_is_said_as_the_site_writes_numbers():
    """A bound of thousands is written with its commas ("from 1 to 10,000", as the trials box says 100,000)."""
    bridge = Integer("structure", "Structure", 100, minimum=1, maximum=10_000)
    with pytest.raises(InputError) as info:
        bridge.coerce("20000", "structure")
    assert str(info.value) == "structure: 20000 is out of range; enter a whole number from 1 to 10,000"
    assert Integer("n", "", 0, minimum=-1500).allowed() == "a whole number of at least -1,500"
    assert Integer("n", "", 0, maximum=2500).allowed() == "a whole number of at most 2,500"


def test_text_coerces_like_json():
    assert ROOT.validate({"sides": "3", "night": "true", "attacker": {"strength": "5/2"}}) == \
        ROOT.validate({"sides": 3, "night": True, "attacker": {"strength": 2.5}})


def test_link_round_trip_and_base():
    values = ROOT.validate({"terrain": "forest", "attacker": {"strength": "5/2"}, "units": []})
    link = flatten(ROOT, values)
    assert link == {"terrain": "forest", "attacker.strength": "5/2", "units": "[]"}
    back, errors = unflatten(ROOT, link)
    assert back == values and errors == []
    base = ROOT.validate({"terrain": "forest"})
    assert flatten(ROOT, base, base) == {}
    assert unflatten(ROOT, {}, base)[0] == base


def test_bad_link_parts_fall_back_one_by_one():
    values, errors = unflatten(ROOT, {"terrain": "forest", "sides": "0", "wings": "2", "attacker.nope": "1"})
    assert values["terrain"] == "forest" and values["sides"] == 1
    assert [e.field for e in errors] == ["sides", "wings", "attacker.nope"]
