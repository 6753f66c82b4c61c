"""Exact combat odds for five wargame systems.

The shared pieces (``dice``, ``schema``, ``widgets``, ``present``, ``api``)
sit at the top; each game system is a subpackage that reads like its
rulebook section and registers its widgets on import.
"""

__version__ = "0.1.0"
