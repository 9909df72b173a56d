"""A package's names that load on first use: a module ``__getattr__`` (PEP 562) that
imports the module holding the name asked for, once.

A package re-exports them under ``if TYPE_CHECKING:`` too, for type checkers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    package: str, modules: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``, whose ``namespace`` (its ``globals()``) gets each
    name of ``modules`` (name -> the module that defines it) when first asked for."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # found once: later lookups are plain attribute reads
        return value

    return __getattr__
