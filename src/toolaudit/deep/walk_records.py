"""A failing value's errors recorded by the C walk (``_walk_speedups.record``), not by
the Python checks.

``record(spec, value, path, base, walk)`` checks ``value`` (named ``path``, its
children's paths extending ``base``) against the node whose C form is ``spec``
(:mod:`toolaudit.deep.walk_specs`) and says True once ``walk.found`` holds exactly what
the node's Python check (:mod:`toolaudit.deep.node_checks`) would have recorded, in the
same order, with the same reasons: nothing for a value that passes; the type, enum or
constraint error of a leaf; an object's children, keys that are not declared and
required names missing; an array's elements. False when it has recorded nothing: the
value is the Python check's (a union no branch passes, a test or a type only Python
words, a key that is no ``str``, a trial walk). Inside a value C records, a child C
cannot is checked by ``walk.check`` in its place, so a value is recorded whole, never
in part. The object and array loops of the Python checks (``walk_specs.object_keys``,
``array_items``) record a failing child the same way.

``arguments_found(roots, arguments, skip, new_walk, slow)`` is the loop of
``DeepArguments._walk`` in one C call: each (name, spec, root, node) of ``roots`` whose
argument is given and not in ``skip`` is passed, recorded as by ``record``, or checked
by ``slow(walk, node, value, name, root)``, the walk made by ``new_walk()`` at the first
value that does not pass (a valid call makes none); it gives the walk's ``found`` (a new
empty dict where none was made), or None for arguments that are no ``dict``.

Without the speedups, or with TOOLAUDIT_PURE_PYTHON=1, nothing is recorded here and the
Python checks record everything; tests/deep/test_walk_records.py holds both ways to the
same errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolaudit.deep.walk_specs import SPEEDUPS, Spec


def _left_to_python(spec: Spec, value: Any, path: str, base: str, walk: Any) -> bool:
    """Without the speedups no spec is made, so this is never asked: Python records."""
    return False


record: Callable[[Spec, Any, str, str, Any], bool] = (
    _left_to_python if SPEEDUPS is None else SPEEDUPS.record
)


#: record() over a call's arguments at once (None without the speedups: the Python loop).
arguments_found: Callable[..., dict[str, Any] | None] | None = (
    None if SPEEDUPS is None else SPEEDUPS.arguments_found
)
