"""Progress on stderr, through tqdm: by bytes read, and by blocks finished (--dask)."""

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


@contextmanager
def block_progress(*, enabled: bool) -> Iterator[Callable[[int, int], object] | None]:
    """With --dask, a second bar under the bytes' one: the blocks finished."""
    if not enabled:
        yield None
        return
    from tqdm import tqdm

    with tqdm(
        desc="blocks", unit="block", file=sys.stderr, dynamic_ncols=True, leave=False, position=1
    ) as bar:

        def update(done: int, total: int) -> None:
            bar.total, bar.n = total, done
            bar.refresh()

        yield update
