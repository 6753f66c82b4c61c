"""Result cells: reading ``"Ao1 e4 DL1o2"`` into its parts, and carrying it out.

A cell has an attacker part (after ``A``) and a defender part (after
``D``). The codes are:

* ``L#`` - that side loses # steps, no choice;
* ``o#`` - that side owes # options, each paid as one step or one hex of retreat;
* ``e#`` - attacker only: attacking units with an action rating of # or more
  are marked for exploitation (subject to the voiding notes);
* ``DG`` - defender only: the defending units become disorganized.

>>> Cell.parse("Ao1 e4 DL1o2")
Cell(attacker=AttackerPart(loss=0, options=1, exploit=4), defender=DefenderPart(loss=1, options=2, dg=False))
>>> Cell.parse(" ae3 dl2o2dg ").text
'Ae3 DL2o2DG'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from .table import CellText, printed_cells

__all__ = [
    "CellFormatError",
    "AttackerPart",
    "DefenderPart",
    "Cell",
    "CELL_SHAPE",
    "RESULT_ORDER",
    "OptionUse",
    "ExcusedOptions",
    "OptionPolicy",
    "AttackContext",
    "Execution",
    "execute",
    "option_choices",
    "Side",
]

Side = Literal["attacker", "defender", "neutral"]
"""Which player a result favours (used to colour a chart bar)."""

CELL_SHAPE = ("a cell reads like 'Ao1 DL1o1': 'A' then the attacker's codes, 'D' then the defender's; "
              "codes are L# (steps lost), o# (options), e# (attacker only: exploitation) and "
              "DG (defender only: disorganized), with # a digit from 1 to 9")
"""What a well-formed cell looks like, for error messages."""

RESULT_ORDER: tuple[CellText, ...] = (
    "AL2",
    "AL1o1",
    "AL1o1 Do1",
    "AL1 Do1",
    "Ao1 Do1",
    "AL1 DL1o1",
    "Ao1 DL1o1",
    "Ao1 e4 DL1o2",
    "Ae4 DL1o2",
    "Ae3 DL2o2DG",
    "Ae2 DL2o3DG",
)
"""Every printed cell from the worst for the attacker to the best.

The chart never gets worse for the attacker moving right along a row or
down a column in this order (the tests hold it to that); outcome lists are
shown in this order.
"""


class CellFormatError(ValueError):
    """Text that is not a combat result cell."""


@dataclass(frozen=True)
class AttackerPart:
    """What a result does to the attacking side."""

    loss: int = 0
    """Steps the attackers must lose (``L#``)."""
    options: int = 0
    """Options owed (``o#``): each is one step or one hex of retreat."""
    exploit: int | None = None
    """``e#``: lowest action rating that earns an exploitation marker, or None."""

    @property
    def text(self) -> str:
        """The part as the chart spells it.

        >>> AttackerPart(options=1, exploit=4).text, AttackerPart(exploit=3).text
        ('Ao1 e4', 'Ae3')
        """
        out = "A"
        if self.loss:
            out += f"L{self.loss}"
        if self.options:
            out += f"o{self.options}"
        if self.exploit is not None:
            out += f"{' ' if len(out) > 1 else ''}e{self.exploit}"
        return out


@dataclass(frozen=True)
class DefenderPart:
    """What a result does to the defending side."""

    loss: int = 0
    """Steps the defenders must lose (``L#``)."""
    options: int = 0
    """Options owed (``o#``)."""
    dg: bool = False
    """True when the defenders become disorganized (``DG``)."""

    @property
    def text(self) -> str:
        """The part as the chart spells it.

        >>> DefenderPart(loss=2, options=3, dg=True).text, DefenderPart(dg=True).text
        ('DL2o3DG', 'DG')
        """
        codes = (f"L{self.loss}" if self.loss else "") + (f"o{self.options}" if self.options else "")
        return "D" + codes + ("DG" if self.dg else "") if codes or not self.dg else "DG"


_ATTACKER_CODES = {"L": "loss", "O": "options", "E": "exploit"}
_DEFENDER_CODES = {"L": "loss", "O": "options"}


@dataclass(frozen=True)
class Cell:
    """One combat result, split into the two sides' parts."""

    attacker: AttackerPart | None
    """The attacker's part, or None when the cell names only the defender."""
    defender: DefenderPart | None
    """The defender's part, or None when the cell names only the attacker."""

    @property
    def text(self) -> CellText:
        """The cell as the chart spells it (attacker first)."""
        return " ".join(p.text for p in (self.attacker, self.defender) if p is not None)

    @property
    def printed(self) -> bool:
        """True when this exact result appears somewhere on the combat table.

        >>> Cell.parse("AL1 DL1o1").printed, Cell.parse("AL3").printed
        (True, False)
        """
        return self.text in _PRINTED

    @property
    def attacker_part(self) -> AttackerPart:
        """The attacker's part, empty when absent."""
        return self.attacker or AttackerPart()

    @property
    def defender_part(self) -> DefenderPart:
        """The defender's part, empty when absent."""
        return self.defender or DefenderPart()

    @property
    def side(self) -> Side:
        """Which player the result favours, counting every step and option owed.

        >>> Cell.parse("AL1o1 Do1").side, Cell.parse("Ao1 Do1").side, Cell.parse("Ae4 DL1o2").side
        ('defender', 'neutral', 'attacker')
        """
        a, d = self.attacker_part, self.defender_part
        owed_a, owed_d = a.loss + a.options, d.loss + d.options
        if owed_a > owed_d:
            return "defender"
        if owed_d > owed_a or a.exploit is not None or d.dg:
            return "attacker"
        return "neutral"

    @staticmethod
    def parse(text: str) -> Cell:
        """Read a cell typed in any letter case, with or without spaces.

        >>> Cell.parse("AL1o1").text
        'AL1o1'
        >>> Cell.parse("Do1 AL1")
        Traceback (most recent call last):
        ...
        engine.ocs.results.CellFormatError: 'Do1 AL1' is not a combat result: the attacker's part must come first; a cell reads like 'Ao1 DL1o1': 'A' then the attacker's codes, 'D' then the defender's; codes are L# (steps lost), o# (options), e# (attacker only: exploitation) and DG (defender only: disorganized), with # a digit from 1 to 9
        """
        if not isinstance(text, str):
            raise CellFormatError(f"{text!r} is not text; {CELL_SHAPE}")
        compact = "".join(text.split()).upper()
        try:
            return _Reader(compact).read()
        except CellFormatError as exc:
            raise CellFormatError(f"{text!r} is not a combat result: {exc}; {CELL_SHAPE}") from None


class _Reader:
    """A tiny left-to-right reader over the upper-cased cell text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def read(self) -> Cell:
        if not self.text:
            raise CellFormatError("it is empty")
        attacker = self._attacker() if self._peek() == "A" else None
        defender = self._defender() if self._peek() == "D" else None
        if self.pos < len(self.text):
            rest = self.text[self.pos:]
            if rest.startswith("A") and defender is not None:
                raise CellFormatError("the attacker's part must come first")
            raise CellFormatError(f"the text from {rest!r} on is not understood")
        return Cell(attacker, defender)

    def _peek(self, n: int = 1) -> str:
        return self.text[self.pos:self.pos + n]

    def _number(self, code: str) -> int:
        digit = self._peek()
        if not (digit.isascii() and digit.isdigit()) or self._peek(2)[1:].isdigit():
            raise CellFormatError(f"{code} must be followed by one digit")
        if digit == "0":
            raise CellFormatError(f"{code}0 is not a result; numbers run from 1 to 9")
        self.pos += 1
        return int(digit)

    def _codes(self, side: str, codes: dict[str, str]) -> dict[str, int]:
        found: dict[str, int] = {}
        while self._peek() in codes:
            code = self._peek()
            name = codes[code]
            if name in found:
                raise CellFormatError(f"the {side}'s part repeats {code.replace('O', 'o').replace('E', 'e')}")
            self.pos += 1
            found[name] = self._number(code.replace("O", "o").replace("E", "e"))
        return found

    def _attacker(self) -> AttackerPart:
        self.pos += 1
        found = self._codes("attacker", _ATTACKER_CODES)
        if not found:
            raise CellFormatError("'A' must be followed by at least one of L#, o#, e#")
        return AttackerPart(found.get("loss", 0), found.get("options", 0), found.get("exploit"))

    def _defender(self) -> DefenderPart:
        self.pos += 1
        dg = False
        if self._peek(1) == "G":  # "DG" with no other defender code
            self.pos += 1
            return DefenderPart(dg=True)
        found = self._codes("defender", _DEFENDER_CODES)
        if self._peek() == "E":
            raise CellFormatError("e# (exploitation) applies to the attacker only")
        if self._peek(2) == "DG":
            self.pos += 2
            dg = True
        if not found and not dg:
            raise CellFormatError("'D' must be followed by at least one of L#, o#, DG")
        return DefenderPart(found.get("loss", 0), found.get("options", 0), dg)


_PRINTED = frozenset(printed_cells())


# Carrying a result out -------------------------------------------------

class OptionUse(str, enum.Enum):
    """How a side pays its options (``o#``): the owning player's choice."""

    STEPS = "steps"
    """Every option is paid as one step lost."""
    RETREAT = "retreat"
    """Every option is paid as one hex of retreat."""


class ExcusedOptions(str, enum.Enum):
    """What the defender does when note 2 lets him skip his options."""

    IGNORE = "ignore"
    """He skips them."""
    APPLY = "apply"
    """He pays them anyway, as his option setting says."""


@dataclass(frozen=True)
class OptionPolicy:
    """The players' choices about options, needed to count losses and retreats."""

    attacker: OptionUse = OptionUse.STEPS
    """How the attacker pays options."""
    defender: OptionUse = OptionUse.RETREAT
    """How the defender pays options when he pays them."""
    excused: ExcusedOptions = ExcusedOptions.IGNORE
    """Whether the defender skips options he is allowed to skip."""


@dataclass(frozen=True)
class AttackContext:
    """Facts about the attack that decide whether an ``e#`` counts."""

    overrun: bool = False
    """True for an overrun (exploitation never applies)."""
    attack_hexes: int = 1
    """How many hexes the attack comes from."""
    adjacent: bool = True
    """With two attacking hexes: whether they touch each other."""

    def exploit_void_reason(self) -> str | None:
        """Why no ``e#`` result can count in this attack, or None if one can.

        >>> AttackContext(attack_hexes=2, adjacent=False).exploit_void_reason()
        'the attack comes from two hexes that are not next to each other'
        >>> AttackContext(attack_hexes=2).exploit_void_reason() is None
        True
        """
        if self.overrun:
            return "an overrun never earns exploitation"
        if self.attack_hexes >= 3:
            return f"the attack comes from {self.attack_hexes} hexes (three or more)"
        if self.attack_hexes == 2 and not self.adjacent:
            return "the attack comes from two hexes that are not next to each other"
        return None


@dataclass(frozen=True)
class Execution:
    """A result carried out under stated option choices."""

    attacker_steps: int
    """Steps the attackers lose (``L#`` plus options paid as steps)."""
    attacker_retreat: int
    """Hexes the attackers retreat."""
    attacker_dg: bool
    """True when the attackers retreat two hexes or more (note 3)."""
    exploit: int | None
    """The ``e#`` number still in force after every voiding rule, or None."""
    exploit_void: str | None
    """Why a printed ``e#`` was voided, or None."""
    defender_steps: int
    """Steps the defenders lose."""
    defender_retreat: int
    """Hexes the defenders retreat."""
    defender_dg: bool
    """True when the defenders end disorganized (``DG`` or a retreat of two hexes or more)."""
    defender_excused: bool
    """True when note 2 let the defender skip his options and he did."""

    def exploits(self, rating: int) -> bool:
        """True when a unit with this action rating is marked for exploitation.

        >>> execute(Cell.parse("Ae3 DL2o2DG")).exploits(3)
        True
        """
        return self.exploit is not None and rating >= self.exploit


def execute(cell: Cell, policy: OptionPolicy = OptionPolicy(),
            context: AttackContext = AttackContext()) -> Execution:
    """Carry out a result: the attacker first, then the defender.

    >>> ex = execute(Cell.parse("Ao1 e4 DL1o2"), OptionPolicy(attacker=OptionUse.RETREAT))
    >>> ex.exploit, ex.exploit_void, ex.defender_steps, ex.defender_excused
    (None, 'the attacker paid an option with a retreat', 1, True)
    """
    a, d = cell.attacker_part, cell.defender_part
    a_retreat = a.options if policy.attacker is OptionUse.RETREAT else 0
    a_steps = a.loss + (a.options - a_retreat)
    void = None
    if a.exploit is not None:
        void = context.exploit_void_reason()
        if void is None and a_retreat:
            void = "the attacker paid an option with a retreat"
    exploit = a.exploit if void is None else None
    excused = a_retreat > 0 and d.options > 0 and policy.excused is ExcusedOptions.IGNORE
    d_options = 0 if excused else d.options
    d_retreat = d_options if policy.defender is OptionUse.RETREAT else 0
    d_steps = d.loss + (d_options - d_retreat)
    return Execution(a_steps, a_retreat, a_retreat >= 2, exploit, void,
                     d_steps, d_retreat, d.dg or d_retreat >= 2, excused)


def option_choices(options: int) -> tuple[tuple[int, int], ...]:
    """Every way to pay ``options``: (steps, hexes of retreat), steps first.

    >>> option_choices(2)
    ((2, 0), (1, 1), (0, 2))
    """
    return tuple((options - hexes, hexes) for hexes in range(options + 1))
