"""Every settings group is made from its system's rules dataclass, never declared by hand.

Each game system declares its rule settings once, as the fields of one frozen
dataclass (:func:`engine.settings.setting`). A widget's ``settings`` (or
``rules``) group must be exactly what :func:`engine.settings.rules_group`
makes from that class: the same fields, with the same help, label, range,
choices and assumed note. A widget may show only some of the settings, in
its own order; those fields must still be the generated ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine import widgets
from engine.atg.rules import Rules as AtgRules
from engine.europa.rules import EuropaRules
from engine.ocs.combat import Settings as OcsSettings
from engine.schema import Group, ListOf, Text
from engine.settings import rules_from, rules_group
from engine.sgs.rules import SgsRules
from engine.small_general.rules import Settings as SmallGeneralSettings

RULES_OF_SYSTEM: dict[str, type[Any]] = {
    "small_general": SmallGeneralSettings,
    "europa": EuropaRules,
    "ocs": OcsSettings,
    "atg": AtgRules,
    "sgs": SgsRules,
}
"""The one rules dataclass of each game system."""

SETTINGS_GROUP_NAMES = ("settings", "rules")
"""Names a group of rule settings goes by in a widget's inputs."""

HAND_DECLARED: frozenset[tuple[str, str]] = frozenset()
"""(widget id, group path) pairs allowed to declare settings by hand: none."""


def _settings_groups(group: Group, path: str = "") -> Iterator[tuple[str, Group]]:
    for f in group.fields:
        if isinstance(f, Group):
            if f.name in SETTINGS_GROUP_NAMES:
                yield path + f.name, f
            yield from _settings_groups(f, f"{path}{f.name}.")
        elif isinstance(f, ListOf):
            yield from _settings_groups(f.item, f"{path}{f.name}.*.")


GROUPS = [(w.id, path, g) for w in widgets.all_widgets() for path, g in _settings_groups(w.inputs)]


def test_every_system_with_settings_is_covered() -> None:
    systems = {widget_id.split(".")[0] for widget_id, _, _ in GROUPS}
    assert systems == set(RULES_OF_SYSTEM)


@pytest.mark.parametrize(("widget_id", "path", "group"), GROUPS, ids=[f"{w}:{p}" for w, p, _ in GROUPS])
def test_settings_group_is_generated(widget_id: str, path: str, group: Group) -> None:
    if (widget_id, path) in HAND_DECLARED:
        pytest.skip("declared by hand on purpose")
    cls = RULES_OF_SYSTEM[widget_id.split(".")[0]]
    names = [f.name for f in group.fields]
    expected = rules_group(cls, group.name, group.help, label=group.label, only=names)
    assert group == expected
    for shown, made in zip(group.fields, expected.fields):
        assert repr(shown) == repr(made), f"{widget_id} {path}.{shown.name} differs from its declaration"


SCALAR_SYSTEMS = {name: cls for name, cls in RULES_OF_SYSTEM.items() if cls is not EuropaRules}
"""Systems whose settings are all single values (Europa's tables validate into new rows: tested below)."""


@pytest.mark.parametrize("cls", list(SCALAR_SYSTEMS.values()), ids=list(SCALAR_SYSTEMS))
def test_defaults_round_trip(cls: type[Any]) -> None:
    """The form's defaults give back the dataclass's defaults."""
    assert rules_from(cls, rules_group(cls).validate({})) == cls()


def test_europa_tables_round_trip() -> None:
    """Europa's tables come back as validated rows; the tables they make are the default ones."""
    rules = rules_from(EuropaRules, rules_group(EuropaRules).validate({}))
    assert rules.armour == EuropaRules().armour and rules.heavy == EuropaRules().heavy


def test_a_hand_made_field_is_caught() -> None:
    group = rules_group(SmallGeneralSettings, "settings", "Values the rulebook leaves open.", label="Settings")
    first = group.fields[0]
    edited = Group(group.name, group.help, label=group.label,
                   fields=(Text(first.name, first.help, "harm", label=first.label), *group.fields[1:]))
    expected = rules_group(SmallGeneralSettings, edited.name, edited.help, label=edited.label,
                           only=[f.name for f in edited.fields])
    assert edited != expected
