"""Operational Combat Series (OCS) v3: the combat table, surprise and results.

Modules follow the charts:

* :mod:`.table` - the combat table as printed (terrain rows of odds columns, 2d6 rows);
* :mod:`.odds` - strength totals (out of supply at half) and the odds column;
* :mod:`.surprise` - action ratings, the combat DRM (9.7) and surprise (9.8);
* :mod:`.results` - result cells read into parts and carried out;
* :mod:`.explain` - results in words;
* :mod:`.combat` - exact enumeration of one combat;
* :mod:`.sequence` - the combat sequence (9.2), described and played;
* :mod:`.widgets` - the widgets ``ocs.combat``, ``ocs.result`` and ``ocs.walkthrough``;
* :mod:`.charts` - the exhibits ``ocs.combat_table``, ``ocs.surprise_table`` and ``ocs.results_key``.

Importing the package registers the widgets and exhibits.

>>> from engine import widgets
>>> sorted(i for i in widgets.ids() if i.startswith("ocs."))
['ocs.combat', 'ocs.result', 'ocs.walkthrough']
"""

from . import charts, widgets  # noqa: F401  (registers widgets and exhibits)

__all__ = ["charts", "widgets"]
