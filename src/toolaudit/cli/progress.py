"""Progress on stderr, by bytes read, through tqdm."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from toolaudit.sources import Source


@contextmanager
def byte_progress(
    sources: Iterable[Source], *, enabled: bool
) -> Iterator[Callable[[int], object] | None]:
    """Yield a callback to tell how many bytes were read, or None when disabled."""
    if not enabled:
        yield None
        return
    from tqdm import tqdm

    sizes = [source.size() for source in sources]
    total = None if None in sizes else sum(s for s in sizes if s is not None)
    with tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc="auditing",
        file=sys.stderr,
        dynamic_ncols=True,
        leave=False,
    ) as bar:
        yield bar.update
