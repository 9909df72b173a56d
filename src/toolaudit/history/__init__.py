"""Conversations: whether every call in a history is answered and every result paired,
as each provider requires, and how often each tool failed (docs/conversations.md).

:func:`check` reads one history in any provider's shape (:data:`SHAPES`);
:func:`check_history` is the same check at an agent's boundary, on SDK objects too,
and repairs what it finds when asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolaudit.history.check import check
from toolaudit.history.model import (
    PAIRING_CODES,
    SHAPES,
    Checked,
    HistoryCall,
    Problem,
    ToolOutcome,
)
from toolaudit.lazy_names import lazy_names

if TYPE_CHECKING:
    from toolaudit.history.boundary import check_history
    from toolaudit.history.repair import Change, Repaired

__all__ = [
    "PAIRING_CODES",
    "SHAPES",
    "Change",
    "Checked",
    "HistoryCall",
    "Problem",
    "Repaired",
    "ToolOutcome",
    "check",
    "check_history",
]

#: The boundary API and its repairs, loaded on first use: the audit reads histories
#: with :func:`check` alone, and need not pay for them at start-up.
_LAZY = {
    "check_history": "toolaudit.history.boundary",
    "Change": "toolaudit.history.repair",
    "Repaired": "toolaudit.history.repair",
}
__getattr__ = lazy_names(__name__, _LAZY, globals())
