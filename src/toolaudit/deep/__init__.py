"""Deep validation: every error inside a call's arguments, with a path and a reason.

Opt-in (``deep=True``): the contract judges the top level of the arguments,
and deep mode adds, for each argument the contract accepts, what it finds at
or inside it: nested objects and arrays, ``$ref``, ``anyOf``/``oneOf``/``allOf``,
``const`` and the constraints real tools use (``minimum``, ``maxLength``,
``pattern``...). docs/deep.md states the rules.

The contract's compiled validator (:mod:`toolaudit.contract`) builds on this
package; nothing here knows the contract's tables. The names below load on
first use: a plain audit, which only needs :mod:`toolaudit.deep.paths` to count
deep errors, never loads the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolaudit.lazy_names import lazy_names

if TYPE_CHECKING:
    from toolaudit.deep.arguments import DeepArguments, ParametersInfo, inspect_parameters
    from toolaudit.deep.check import CONSTRAINT
    from toolaudit.deep.reasons import sentence

__all__ = ["CONSTRAINT", "DeepArguments", "ParametersInfo", "inspect_parameters", "sentence"]

_LAZY = {
    "CONSTRAINT": "toolaudit.deep.check",
    "DeepArguments": "toolaudit.deep.arguments",
    "ParametersInfo": "toolaudit.deep.arguments",
    "inspect_parameters": "toolaudit.deep.arguments",
    "sentence": "toolaudit.deep.reasons",
}
__getattr__ = lazy_names(__name__, _LAZY, globals())
