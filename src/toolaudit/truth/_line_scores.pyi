"""A flat call's line scored when surely answered right, in C (``_line_scores.c``; its
pure twin and what it tells: toolaudit.truth.line_scores)."""

from typing import Any

def correct_flat(
    key: str,
    entries: dict[str, Any],
    scored: dict[str, None],
    shapes: dict[Any, Any],
    line: bytes,
    tally: Any,
    /,
) -> bool:
    """True when the line's record was scored and counted (its entry answered right, its
    shape counted already); False, with nothing changed, leaves it to the Python scorer."""
