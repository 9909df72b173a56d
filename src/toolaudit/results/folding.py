"""Bounded tables: at most ``limit`` distinct names, the rest folded into ``<other>``.

A model that invents tool or parameter names can produce millions of them; a
summary must not grow with them. A table keeps the names with the smallest
*stable* hashes (a "bottom-k" sample), which makes the result independent of
the order names arrive in: shards of a log audited apart and merged keep the
same names as the audit of the whole, and the same ``<other>`` counts. The
same sample estimates how many distinct names were folded.

Tables hold up to twice their limit between compactions, so that adding a
name costs O(1) amortised.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import TypeVar

OTHER = "<other>"
#: Where calls that gave no usable tool name are counted.
NO_NAME = "<no name>"
#: Names that are never folded: the buckets themselves.
_BUCKETS = frozenset({OTHER, NO_NAME})
_ESCAPE = "\\"
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
    """Which names one bounded table keeps. ``threshold`` is None until the
    first fold; from then on a new name is kept only if its hash is below it."""

    __slots__ = ("limit", "threshold")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.threshold: int | None = None

    def admits(self, name: str) -> bool:
        """Whether a name not yet in the table may enter it (else it counts as <other>)."""
        return self.threshold is None or name in _BUCKETS or stable_hash(name) < self.threshold

    def entry(
        self,
        table: MutableMapping[str, V],
        name: str,
        new: Callable[[], V],
        merge: Callable[[V, V], V],
    ) -> tuple[str, V]:
        """(the key, the entry) that counts ``name`` in ``table``: its own, made with
        ``new`` if it is admitted, else <other>'s. Compacts the table when it is full."""
        value = table.get(name)
        if value is None:
            if not self.admits(name):
                name = OTHER
            value = table.get(name)
            if value is None:
                self.maybe_compact(table, merge)
                value = table[name] = new()
        return name, value

    def maybe_compact(self, table: MutableMapping[str, V], merge: Callable[[V, V], V]) -> None:
        """Compact when the table has grown to twice its limit."""
        if len(table) > 2 * self.limit + len(_BUCKETS):
            self.compact(table, merge)

    def compact(self, table: MutableMapping[str, V], merge: Callable[[V, V], V]) -> None:
        """Keep the ``limit`` names with the smallest hashes; fold the others into <other>."""
        if len(table) - sum(bucket in table for bucket in _BUCKETS) <= self.limit:
            return  # nothing to fold: spare hashing every name (summaries compact on creation)
        ranked = sorted((stable_hash(name), name) for name in table if name not in _BUCKETS)
        for _, name in ranked[self.limit :]:
            folded = table.pop(name)
            table[OTHER] = merge(table[OTHER], folded) if OTHER in table else folded
        kept_max = ranked[self.limit - 1][0]
        self.threshold = kept_max if self.threshold is None else min(self.threshold, kept_max)


def folded_estimate(table: Mapping[str, object], limit: int) -> int:
    """About how many distinct names were folded into <other> in a compacted
    table (0 when nothing was).

    The table then keeps the ``limit`` smallest hashes of all n names, and the
    k-th smallest of n uniform hashes lies near k/n of the hash space: n is
    about (k - 1) / (k-th smallest / space).
    """
    if OTHER not in table:
        return 0
    kept = [stable_hash(name) for name in table if name not in _BUCKETS]
    if len(kept) < limit or limit < 2:
        return 0
    estimate = (limit - 1) * _HASH_SPACE / max(max(kept), 1)
    return max(0, round(estimate) - limit)
