"""The optional C speedups: which were built, and the one switch that turns them off.

Each is built at install where a C compiler is there (setup.py), and each has a pure-Python
twin that answers the same, more slowly: where an extension is missing, or
``TOOLAUDIT_PURE_PYTHON`` is set, the twin runs alone.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def speedups(name: str) -> ModuleType | None:
    """The compiled module ``name`` (``toolaudit.history._speedups``...), or None where it
    was not built or ``TOOLAUDIT_PURE_PYTHON`` is set."""
    if os.environ.get("TOOLAUDIT_PURE_PYTHON"):
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
