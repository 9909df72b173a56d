"""A flat call's line (or a provider record's one call) scored when its score is sure,
in C (``_line_scores.c``; its pure twin and what it tells: toolaudit.truth.line_scores);
a line's id read at a top-level key (its twin: pipeline.scored_lines.LineIds); both
kept for the typed reader in a CallKernel."""

from collections.abc import Callable
from typing import Any

def score_flat(
    key: str,
    entries: dict[str, Any],
    scored: dict[str, None],
    shapes: dict[Any, Any],
    most_samples: int,
    first: Callable[..., object],
    write: Callable[[bytes], object] | None,
    source: bytes | None,
    line: bytes,
    tally: Any,
    line_number: int,
    /,
) -> bool:
    """True when the line's record was scored and counted by its entry's shape (and its
    --scores line written, with ``write``); False, with nothing changed, leaves it to
    the Python scorer."""

def score_call(
    entries: dict[str, Any],
    scored: dict[str, None],
    shapes: dict[Any, Any],
    most_samples: int,
    first: Callable[..., object],
    write: Callable[[bytes], object] | None,
    source: bytes | None,
    id: str,
    name: str,
    arguments: str | bytes,
    model: str | None,
    tally: Any,
    line_number: int,
    /,
) -> bool:
    """score_flat's answer for a record's one call as a typed decode named it: its id,
    its tool's name, its arguments' JSON text (a str's UTF-8, or bytes), its model."""

def id_at(line: bytes, key: str, /) -> str | None:
    """The id the line holds at its top-level ``key`` (a string as it is, an integer's
    digits), where that is sure; None leaves it to LineIds' msgspec reading."""

class CallKernel:
    """score_call's arguments kept once, for the typed reader (its twin:
    truth.line_scores.CallKernel, which says what each method answers)."""

    def __init__(
        self,
        key: str,
        entries: dict[str, Any],
        scored: dict[str, None],
        shapes: dict[Any, Any],
        most_samples: int,
        first: Callable[..., object],
        write: Callable[[bytes], object] | None,
        source: bytes | None,
    ) -> None: ...
    def id_of(self, line: bytes, calls: object, /) -> str | bool | None:
        """False: the line may hold an integer past 64 bits; the id of a record whose one
        call the kernel may score, where it has an entry; else None."""
    def score(
        self, id: str, calls: object, model: str | None, tally: Any, line_number: int, /
    ) -> bool:
        """score_call's answer for the one call of ``calls``."""

class ShapeTable(dict[Any, Any]):
    """EntryShapes' shapes by key (a dict), those the kernel met also found by their key's
    parts and counted in C until :meth:`flush` (see _shape_table.h)."""

    def flush(self) -> None:
        """Add each shape's count kept here to its ``waiting``, and set it to 0."""

    def makes(self, shape_class: type, /) -> None:
        """The class of the shapes the kernel makes itself (EntryShapes.first's short
        path: ``shape_class(section, outcome, tallies, parameters, waiting)``)."""

def _collide_shapes(on: bool, /) -> None:
    """For tests: every shape key's hash the same in the ShapeTables made after (the
    parts' comparison alone tells shapes apart), or not."""
