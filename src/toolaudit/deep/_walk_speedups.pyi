"""Deep mode's walk in C (``_walk_speedups.c``; see deep.walk_specs and deep.walk_records)."""

from collections.abc import Callable
from typing import Any

def passes(spec: Any, value: Any, /) -> bool:
    """Whether a node's spec takes the value with nothing to record (False: ask Python)."""

def arguments_found(
    roots: tuple[tuple[str, Any, str, Any], ...],
    arguments: Any,
    skip: frozenset[str] | set[str],
    new_walk: Callable[[], Any],
    slow: Callable[[Any, Any, Any, str, str], None],
    /,
) -> dict[str, Any] | None:
    """A call's arguments walked at once: the walk's found (None: the Python loop's)."""

def object_keys(
    value: dict[Any, Any],
    fast: dict[str, Any],
    slow: Callable[[Any, Any, Any, str, bool], None],
    walk: Any,
    base: str,
    closed: bool,
    /,
) -> None:
    """An object check's loop over its keys: slow() for each key no spec of ``fast`` passes."""

def array_items(
    value: list[Any],
    spec: Any,
    node: Any,
    slow: Callable[[Any, int, Any, str], None],
    walk: Any,
    base: str,
    /,
) -> None:
    """An array check's loop over a list: slow() for each element the spec does not pass."""

def record(spec: Any, value: Any, path: str, base: str, walk: Any, /) -> bool:
    """A node's check of a value in C: True when done, False when nothing is recorded."""

class StringTest:
    """A string's length limits and pattern automaton, tested in one pass."""

    def __init__(
        self, min_length: int, max_length: int, program: tuple[Any, ...] | None, /
    ) -> None: ...
    def __call__(self, text: str, /) -> bool: ...

def typed_string(cls: type[StringTest], value: Any, /) -> StringTest:
    """msgspec's dec_hook of the typed string types: the type's test, if the value passes."""
