"""Results in words: what each code means, which choices remain, how it is carried out.

>>> [p.code for p in parts(Cell.parse("Ao1 e4 DL1o2"))]
['o1', 'e4', 'L1', 'o2']
>>> choices_text(2)
'2 steps; 1 step and 1 hex of retreat; or 2 hexes of retreat'
"""

from __future__ import annotations

from dataclasses import dataclass

from .results import AttackContext, Cell, Execution, OptionPolicy, OptionUse, execute, option_choices

__all__ = [
    "Part",
    "NOTES",
    "parts",
    "choices_text",
    "exploit_lines",
    "choices",
    "carry_out",
    "steps_word",
    "hexes_word",
]

NOTES: dict[int, str] = {
    1: "Paying an attacker's option with a retreat cancels any exploitation in the result.",
    2: ("When the attacker pays any of his options with a retreat, or his units are all destroyed "
        "before every option is paid, the defender may skip his own options; he may still pay them "
        "in full if he wants to."),
    3: "Every unit that retreats two hexes or more becomes disorganized (DG).",
    4: ("An attack made from three or more hexes, or from two hexes that do not touch, never "
        "earns exploitation: drop the e# and carry out the rest of the result."),
}
"""The four numbered notes of the results key, in our words."""


def steps_word(n: int) -> str:
    """``1 step``, ``2 steps``."""
    return f"{n} step{'s' if n != 1 else ''}"


def hexes_word(n: int) -> str:
    """``1 hex``, ``2 hexes``."""
    return f"{n} hex{'es' if n != 1 else ''}"


@dataclass(frozen=True)
class Part:
    """One code of a cell with its meaning."""

    side: str
    """``attacker`` or ``defender``."""
    code: str
    """The code as printed: ``L1``, ``o2``, ``e4``, ``DG``."""
    meaning: str
    """What it does, in words."""


def parts(cell: Cell) -> list[Part]:
    """Each code of a cell, attacker's first, with its meaning.

    >>> parts(Cell.parse("DG"))[0].meaning
    'The defending units become disorganized (DG).'
    """
    out: list[Part] = []
    a, d = cell.attacker, cell.defender
    if a is not None:
        if a.loss:
            out.append(Part("attacker", f"L{a.loss}", f"The attackers lose {steps_word(a.loss)}; no choice."))
        if a.options:
            out.append(Part("attacker", f"o{a.options}",
                            f"The attacker owes {_options_word(a.options)}, {_each(a.options)} paid as one step "
                            "lost or one hex of retreat, as he prefers."))
        if a.exploit is not None:
            out.append(Part("attacker", f"e{a.exploit}",
                            f"Attacking units with an action rating of {a.exploit} or more are marked for "
                            "exploitation, unless a voiding rule applies."))
    if d is not None:
        if d.loss:
            out.append(Part("defender", f"L{d.loss}", f"The defenders lose {steps_word(d.loss)}; no choice."))
        if d.options:
            out.append(Part("defender", f"o{d.options}",
                            f"The defender owes {_options_word(d.options)}, {_each(d.options)} paid as one step "
                            "lost or one hex of retreat, as he prefers."))
        if d.dg:
            out.append(Part("defender", "DG", "The defending units become disorganized (DG)."))
    return out


def _each(n: int) -> str:
    return "each" if n > 1 else "which is"


def _options_word(n: int) -> str:
    return f"{n} option{'s' if n != 1 else ''}"


def choices_text(options: int) -> str:
    """Every way to pay a number of options, in words."""
    words = []
    for steps, hexes in option_choices(options):
        if steps and hexes:
            words.append(f"{steps_word(steps)} and {hexes_word(hexes)} of retreat")
        elif steps:
            words.append(steps_word(steps))
        else:
            words.append(f"{hexes_word(hexes)} of retreat")
    if len(words) == 2:
        return f"{words[0]} or {words[1]}"
    return "; ".join(words[:-1]) + "; or " + words[-1]


def exploit_lines(cell: Cell, context: AttackContext, rating: int) -> list[str]:
    """Whether an ``e#`` can count in this attack, and for a unit of this rating.

    >>> exploit_lines(Cell.parse("Ae3 DL2o2DG"), AttackContext(), 3)[-1]
    'The attacker’s action-rating unit (rating 3) qualifies.'
    """
    exploit = cell.attacker_part.exploit
    if exploit is None:
        return ["No exploitation: the cell has no e#."]
    void = context.exploit_void_reason()
    if void is not None:
        return [f"The e{exploit} is void: {void}; the rest of the result stands."]
    lines = [f"Attacking units rated {exploit} or better will be marked for exploitation, "
             "provided the attacker pays no option with a retreat."]
    verdict = "qualifies" if rating >= exploit else "does not qualify"
    lines.append(f"The attacker’s action-rating unit (rating {rating}) {verdict}.")
    return lines


def choices(cell: Cell) -> dict[str, list[str]]:
    """The choices each player still has once the cell is known.

    >>> choices(Cell.parse("Ao1 Do1"))["attacker"][0]
    'Pay o1 as: 1 step or 1 hex of retreat.'
    """
    a, d = cell.attacker_part, cell.defender_part
    attacker: list[str] = []
    defender: list[str] = []
    if a.options:
        attacker.append(f"Pay o{a.options} as: {choices_text(a.options)}.")
        consequences = []
        if a.exploit is not None:
            consequences.append(f"cancels the e{a.exploit}")
        if d.options:
            consequences.append(f"lets the defender skip his o{d.options}")
        if consequences:
            attacker.append("Retreating with any option " + " and ".join(consequences) + ".")
    if d.options:
        defender.append(f"Pay o{d.options} as: {choices_text(d.options)}.")
        if d.options >= 2:
            defender.append("A retreat of two hexes or more leaves the retreating units DG.")
        if a.options:
            defender.append("If the attacker retreated with an option, skip the options or pay them anyway.")
    if not attacker:
        attacker.append("None: the attacker's part leaves no choice.")
    if not defender:
        defender.append("None: the defender's part leaves no choice.")
    return {"attacker": attacker, "defender": defender}


def carry_out(cell: Cell, ex: Execution, policy: OptionPolicy, rating: int) -> list[str]:
    """The result carried out, attacker first, under the option choices.

    >>> carry_out(Cell.parse("AL1 Do1"), execute(Cell.parse("AL1 Do1")), OptionPolicy(), 3)
    ['Attacker: loses 1 step (L1).', 'Defender: pays o1 by retreating 1 hex.']
    """
    a, d = cell.attacker_part, cell.defender_part
    attacker: list[str] = []
    if a.loss:
        attacker.append(f"loses {steps_word(a.loss)} (L{a.loss})")
    if a.options:
        attacker.append(_pay(a.options, policy.attacker))
    if a.exploit is not None:
        if ex.exploit is None:
            attacker.append(f"the e{a.exploit} is void ({ex.exploit_void})")
        else:
            mark = "is marked" if ex.exploits(rating) else "is not marked"
            attacker.append(f"units rated {a.exploit} or better are marked for exploitation; the action-rating "
                            f"unit (rating {rating}) {mark}")
    if ex.attacker_dg:
        attacker.append("the retreat of two hexes or more leaves them DG")
    defender: list[str] = []
    if d.loss:
        defender.append(f"loses {steps_word(d.loss)} (L{d.loss})")
    if d.options:
        if ex.defender_excused:
            defender.append(f"skips o{d.options}, as the attacker retreated")
        elif ex.attacker_retreat:
            defender.append(f"could skip o{d.options} after the attacker's retreat, but "
                            + _pay(d.options, policy.defender))
        else:
            defender.append(_pay(d.options, policy.defender))
    if d.dg:
        defender.append("is disorganized (DG)")
    elif ex.defender_dg:
        defender.append("the retreat of two hexes or more leaves the defenders DG")
    return [f"Attacker: {_sentence(attacker) if attacker else 'nothing happens'}.",
            f"Defender: {_sentence(defender) if defender else 'nothing happens'}."]


def _pay(options: int, use: OptionUse) -> str:
    if use is OptionUse.STEPS:
        return f"pays o{options} as {steps_word(options)} lost"
    return f"pays o{options} by retreating {hexes_word(options)}"


def _sentence(items: list[str]) -> str:
    return "; ".join(items)

