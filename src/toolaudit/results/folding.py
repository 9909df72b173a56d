"""Bounded tables: at most ``limit`` distinct names, the rest folded into ``<other>``.

A model that invents tool or parameter names can produce millions of them; a
summary must not grow with them. A table keeps the names with the smallest
*stable* hashes (a "bottom-k" sample), which makes the result independent of
the order names arrive in: shards of a log audited apart and merged keep the
same names as the audit of the whole, and the same ``<other>`` counts. The
same sample estimates how many distinct names were folded.

A table may also tell names that something declared (a tool of the schemas, a
parameter of a tool) from those a model invented, by their counts: each kind then has
its own ``limit``, so that invented names, however many, never push a declared one
into ``<other>``.

Tables hold up to twice their limit between compactions, so that adding a
name costs O(1) amortised.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any, TypeVar

OTHER = "<other>"
#: Where calls that gave no usable tool name are counted.
NO_NAME = "<no name>"
#: Names that are never folded: the buckets themselves.
_BUCKETS = frozenset({OTHER, NO_NAME})
_ESCAPE = "\\"
#: What a name begins with where it may not be its own key (a bucket's "<", the escape):
#: a name that begins otherwise is its own :func:`table_key`, told without calling it.
NOT_OWN_KEY_STARTS = "<" + _ESCAPE
_HASH_SPACE = 1 << 64

DEFAULT_MAX_TOOLS = 10_000
DEFAULT_MAX_PARAMS = 1_000

V = TypeVar("V")


def table_key(name: str | None) -> str:
    """The key that counts a name from a log in a summary's table.

    The buckets' own keys never stand for a real name: a tool (or parameter)
    really named ``<other>`` is counted as ``\\<other>``, one named ``\\<other>``
    as ``\\\\<other>``, and so on, so no two names share a key; every other
    name is its own key. None (no usable name) is :data:`NO_NAME`.
    """
    if name is None:
        return NO_NAME
    if name.lstrip(_ESCAPE) in _BUCKETS:
        return _ESCAPE + name
    return name


def stable_hash(name: str) -> int:
    """A 64-bit hash that is the same in every process and every run."""
    data = name.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


class Folding:
    """Which names one bounded table keeps. ``threshold`` is None until the first fold
    of invented names (``declared_threshold``, of declared ones); from then on a new
    name of that kind is kept only if its hash is below it.

    ``declared`` tells, from a table's value, whether its name was declared (None: all
    names are of one kind). Declared names are kept up to ``limit`` of their own."""

    __slots__ = ("declared", "declared_threshold", "limit", "threshold")

    def __init__(self, limit: int, declared: Callable[[Any], bool] | None = None) -> None:
        self.limit = limit
        self.declared = declared
        self.threshold: int | None = None
        self.declared_threshold: int | None = None

    def admits(self, name: str, *, declared: bool = False) -> bool:
        """Whether a name not yet in the table may enter it (else it counts as <other>)."""
        threshold = self.declared_threshold if declared else self.threshold
        return threshold is None or name in _BUCKETS or stable_hash(name) < threshold

    def entry(
        self,
        table: MutableMapping[str, V],
        name: str,
        new: Callable[[], V],
        merge: Callable[[V, V], V],
        *,
        declared: bool = False,
    ) -> tuple[str, V]:
        """(the key, the entry) that counts ``name`` in ``table``: its own, made with
        ``new`` if it is admitted, else <other>'s. Compacts the table when it is full.
        ``declared``: the name is counted as declared (see the class)."""
        value = table.get(name)
        if value is None:
            if not self.admits(name, declared=declared and self.declared is not None):
                name = OTHER
            value = table.get(name)
            if value is None:
                self.maybe_compact(table, merge)
                value = table[name] = new()
        return name, value

    def maybe_compact(self, table: MutableMapping[str, V], merge: Callable[[V, V], V]) -> None:
        """Compact when the table has grown to twice its limit (of each kind)."""
        kinds = 1 if self.declared is None else 2
        if len(table) > kinds * 2 * self.limit + len(_BUCKETS):
            self.compact(table, merge)

    def compact(self, table: MutableMapping[str, V], merge: Callable[[V, V], V]) -> None:
        """Keep the ``limit`` names with the smallest hashes (of each kind); fold the
        others into <other>."""
        if len(table) - sum(bucket in table for bucket in _BUCKETS) <= self.limit:
            return  # nothing to fold: spare hashing every name (summaries compact on creation)
        invented, declared = _by_kind(table, self.declared)
        self.threshold = self._fold(table, invented, merge, self.threshold)
        self.declared_threshold = self._fold(table, declared, merge, self.declared_threshold)

    def _fold(
        self,
        table: MutableMapping[str, V],
        names: list[str],
        merge: Callable[[V, V], V],
        threshold: int | None,
    ) -> int | None:
        """Fold all but the ``limit`` smallest hashes of ``names``; the new threshold."""
        if len(names) <= self.limit:
            return threshold
        ranked = sorted((stable_hash(name), name) for name in names)
        for _, name in ranked[self.limit :]:
            folded = table.pop(name)
            table[OTHER] = merge(table[OTHER], folded) if OTHER in table else folded
        kept_max = ranked[self.limit - 1][0]
        return kept_max if threshold is None else min(threshold, kept_max)


def folded_estimate(
    table: Mapping[str, Any], limit: int, declared: Callable[[Any], bool] | None = None
) -> int:
    """About how many distinct names were folded into <other> in a compacted
    table (0 when nothing was); with ``declared`` (see :class:`Folding`), the sum of the
    estimates of each kind.

    The table then keeps the ``limit`` smallest hashes of all n names (of a kind), and
    the k-th smallest of n uniform hashes lies near k/n of the hash space: n is about
    (k - 1) / (k-th smallest / space).
    """
    if OTHER not in table:
        return 0
    return sum(_estimate(names, limit) for names in _by_kind(table, declared))


def _by_kind(
    table: Mapping[str, Any], declared: Callable[[Any], bool] | None
) -> tuple[list[str], list[str]]:
    """(the invented names, the declared ones) of a table, buckets left out; with no
    ``declared``, every name is of the first kind."""
    kinds: tuple[list[str], list[str]] = ([], [])
    for name, value in table.items():
        if name not in _BUCKETS:
            kinds[declared is not None and bool(declared(value))].append(name)
    return kinds


def _estimate(names: list[str], limit: int) -> int:
    kept = [stable_hash(name) for name in names]
    if len(kept) < limit or limit < 2:
        return 0
    estimate = (limit - 1) * _HASH_SPACE / max(max(kept), 1)
    return max(0, round(estimate) - limit)
